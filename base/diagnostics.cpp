// Diagnostic sink, source line tables and the text renderer used by the CLI and REPL.
#include "base/diagnostics.hpp"

#include <algorithm>
#include <vector>
#include <sstream>

namespace scn {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
}

std::pair<uint32_t, uint32_t> SourceFile::lineCol(uint32_t offset) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - lineStarts_.begin());
  return {line, offset - lineStarts_[line - 1] + 1};
}

std::string_view SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  uint32_t b = lineStarts_[line - 1];
  uint32_t e = line < lineStarts_.size() ? lineStarts_[line] : text_.size();
  std::string_view s(text_.data() + b, e - b);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void DiagnosticSink::report(Diagnostic d) {
  if (d.severity == Severity::Error) ++errors_;
  if (callback_) callback_(d);
  all_.push_back(std::move(d));
}

Diagnostic makeDiagnostic(const std::string& code, Span span, std::string message, std::string help,
                          std::vector<DiagNote> notes) {
  Diagnostic d;
  d.code = code;
  d.span = span;
  d.message = std::move(message);
  d.help = std::move(help);
  d.notes = std::move(notes);
  return d;
}

void fail(const std::string& code, Span span, std::string message, std::string help,
          std::vector<DiagNote> notes) {
  throw UserError(makeDiagnostic(code, span, std::move(message), std::move(help), std::move(notes)));
}

void failInterrupted(Span span) {
  fail("E0507", span, "interrupted",
       "the computation was stopped by Ctrl-C or the host's interrupt; definitions made before it are kept");
}

void internalError(const std::string& what) {
  fail("E9999", Span{}, "internal compiler error: " + what,
       "this is a bug in scn; please report it with the program that triggered it");
}

namespace {

const char* severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

// The length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
size_t utf8Length(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

// A source line made safe for a terminal: invalid UTF-8 bytes and control characters become
// '?'; `columns` gets the display column (in code points) of each byte offset.
std::string displayable(std::string_view line, std::vector<size_t>& columns) {
  std::string out;
  columns.assign(line.size() + 1, 0);
  size_t col = 0;
  for (size_t i = 0; i < line.size();) {
    size_t n = utf8Length(line, i);
    unsigned char c = static_cast<unsigned char>(line[i]);
    bool control = n == 1 && (c < 0x20 || c == 0x7f) && c != '\t';
    for (size_t k = 0; k < std::max<size_t>(n, 1); ++k) columns[i + k] = col;
    if (n == 0 || control) {
      out += '?';
      i += 1;
    } else {
      out.append(line.substr(i, n));
      i += n;
    }
    ++col;
  }
  columns[line.size()] = col;
  return out;
}

// Prints the source line of `span` and a caret line underneath; tabs kept so carets align.
void renderSnippet(std::ostringstream& out, const Span& span) {
  auto [line, col] = span.file->lineCol(span.begin);
  std::string_view raw = span.file->lineText(line);
  // Very long lines (minified or generated input) are clipped around the caret.
  const size_t kMaxShown = 160;
  size_t start = 0;
  if (raw.size() > kMaxShown && col > kMaxShown / 2) start = col - kMaxShown / 2;
  while (start > 0 && start < raw.size() && (static_cast<unsigned char>(raw[start]) >> 6) == 0x2) --start;
  std::string_view shownRaw = raw.substr(std::min(start, raw.size()), kMaxShown);
  std::vector<size_t> columns;
  std::string shown = displayable(shownRaw, columns);
  std::string gutter = std::to_string(line);
  out << " " << gutter << " | " << (start ? "..." : "") << shown << "\n";
  out << " " << std::string(gutter.size(), ' ') << " | " << (start ? "   " : "");
  size_t caretByte = std::min(col - 1 - start, shownRaw.size());
  for (size_t i = 0; i < caretByte; ++i)
    if (columns[i + 1] != columns[i]) out << (shownRaw[i] == '\t' ? '\t' : ' ');
  size_t endByte = std::min<size_t>(caretByte + (span.end > span.begin ? span.end - span.begin : 1), shownRaw.size());
  size_t width = endByte > caretByte ? columns[endByte] - columns[caretByte] : 1;
  out << '^' << std::string(std::max<size_t>(width, 1) - 1, '~') << "\n";
}

}  // namespace

std::string render(const Diagnostic& d, bool color) {
  // ANSI colours for the labels, as rustc and clang show them on a terminal.
  auto paint = [color](const char* code, const std::string& text) {
    return color ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
  };
  const char* severityColor = d.severity == Severity::Error ? "1;31" : "1;33";
  std::ostringstream out;
  if (d.span.valid()) {
    auto [line, col] = d.span.file->lineCol(d.span.begin);
    out << d.span.file->name() << ":" << line << ":" << col << ": ";
  } else {
    out << "scn: ";
  }
  std::string label = severityName(d.severity);
  if (!d.code.empty()) label += "[" + d.code + "]";
  out << paint(severityColor, label) << ": " << d.message << "\n";
  if (d.span.valid()) renderSnippet(out, d.span);
  for (const DiagNote& n : d.notes) {
    if (n.span.valid()) {
      auto [line, col] = n.span.file->lineCol(n.span.begin);
      out << n.span.file->name() << ":" << line << ":" << col << ": " << paint("1", "note") << ": " << n.message << "\n";
      renderSnippet(out, n.span);
    } else {
      out << paint("1", "note") << ": " << n.message << "\n";
    }
  }
  if (!d.help.empty()) out << paint("1;36", "help") << ": " << d.help << "\n";
  return out.str();
}

}  // namespace scn
