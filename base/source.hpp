// Source files and spans: where every token, node and diagnostic points.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace scn {

/// One loaded source text with its name and line table.
class SourceFile {
 public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  /// 1-based line and column (in bytes) of a byte offset.
  std::pair<uint32_t, uint32_t> lineCol(uint32_t offset) const;
  /// The text of a 1-based line, without its newline.
  std::string_view lineText(uint32_t line) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> lineStarts_;
};

/// A half-open byte range [begin, end) in one source file. A null file means "no location".
struct Span {
  const SourceFile* file = nullptr;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file != nullptr; }
  /// The smallest span covering both (same file assumed).
  Span to(const Span& other) const {
    if (!valid()) return other;
    if (!other.valid()) return *this;
    return Span{file, begin < other.begin ? begin : other.begin,
                end > other.end ? end : other.end};
  }
  std::string_view text() const {
    return valid() ? std::string_view(file->text()).substr(begin, end - begin) : std::string_view();
  }
};

}  // namespace scn
