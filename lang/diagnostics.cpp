// Diagnostic sink, source line tables and the text renderer used by the CLI and REPL.
#include "lang/diagnostics.hpp"

#include <algorithm>
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

void fail(const std::string& code, Span span, std::string message, std::string help,
          std::vector<DiagNote> notes) {
  Diagnostic d;
  d.code = code;
  d.span = span;
  d.message = std::move(message);
  d.help = std::move(help);
  d.notes = std::move(notes);
  throw UserError(std::move(d));
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

// Prints the source line of `span` and a caret line underneath; tabs kept so carets align.
void renderSnippet(std::ostringstream& out, const Span& span) {
  auto [line, col] = span.file->lineCol(span.begin);
  std::string_view text = span.file->lineText(line);
  // Very long lines (minified or generated input) are clipped around the caret.
  const size_t kMaxShown = 160;
  size_t start = 0;
  if (text.size() > kMaxShown && col > kMaxShown / 2) start = col - kMaxShown / 2;
  std::string_view shown = text.substr(std::min(start, text.size()), kMaxShown);
  std::string gutter = std::to_string(line);
  out << " " << gutter << " | " << (start ? "..." : "") << shown << "\n";
  out << " " << std::string(gutter.size(), ' ') << " | " << (start ? "   " : "");
  size_t caretCol = col - 1 - start;
  for (size_t i = 0; i < caretCol && i < shown.size(); ++i) out << (shown[i] == '\t' ? '\t' : ' ');
  size_t width = span.end > span.begin ? span.end - span.begin : 1;
  size_t lineRemaining = shown.size() > caretCol ? shown.size() - caretCol : 1;
  width = std::max<size_t>(1, std::min(width, lineRemaining));
  out << '^' << std::string(width - 1, '~') << "\n";
}

}  // namespace

std::string render(const Diagnostic& d, bool color) {
  (void)color;
  std::ostringstream out;
  if (d.span.valid()) {
    auto [line, col] = d.span.file->lineCol(d.span.begin);
    out << d.span.file->name() << ":" << line << ":" << col << ": ";
  } else {
    out << "scn: ";
  }
  out << severityName(d.severity);
  if (!d.code.empty()) out << "[" << d.code << "]";
  out << ": " << d.message << "\n";
  if (d.span.valid()) renderSnippet(out, d.span);
  for (const DiagNote& n : d.notes) {
    if (n.span.valid()) {
      auto [line, col] = n.span.file->lineCol(n.span.begin);
      out << n.span.file->name() << ":" << line << ":" << col << ": note: " << n.message << "\n";
      renderSnippet(out, n.span);
    } else {
      out << "note: " << n.message << "\n";
    }
  }
  if (!d.help.empty()) out << "help: " << d.help << "\n";
  return out.str();
}

}  // namespace scn
