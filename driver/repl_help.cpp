// `:help NAME` in the REPL: builtins from their table, functions from their definition.
#include <sstream>

#include "driver/repl_internal.hpp"
#include "lang/array_ops.hpp"

namespace scn {

namespace {

/// "f(x, static n)": the parameters as written.
std::string declaredSignature(const Closure& c) {
  std::string s = c.name + "(";
  for (size_t i = 0; i < c.params->size(); ++i) {
    const Param& p = (*c.params)[i];
    s += (i ? ", " : "") + std::string(p.isStatic ? "static " : "") + p.name;
  }
  return s + ")";
}

/// The `#` comment lines right above the line where `span` starts, without their `# `.
std::vector<std::string> commentAbove(Span span) {
  std::vector<std::string> lines;
  if (!span.valid()) return lines;
  for (uint32_t line = span.file->lineCol(span.begin).first; line > 1; --line) {
    std::string_view text = span.file->lineText(line - 1);
    size_t start = text.find_first_not_of(" \t");
    if (start == std::string_view::npos || text[start] != '#') break;
    text.remove_prefix(start + 1);
    if (!text.empty() && text[0] == ' ') text.remove_prefix(1);
    lines.insert(lines.begin(), std::string(text));
  }
  return lines;
}

void helpForFunction(Session& session, const Closure& c, std::ostream& out) {
  out << declaredSignature(c) << "\n";
  for (const std::string& line : commentAbove(c.span)) out << "  " << line << "\n";
  if (c.span.valid()) out << "  defined at " << c.span.file->name() << ":" << c.span.file->lineCol(c.span.begin).first << "\n";
  std::vector<std::string> sigs = session.evaluator().compiledSignatures(&c);
  if (sigs.empty()) {
    out << "  not compiled yet\n";
    return;
  }
  out << "  compiled for:";
  for (size_t i = 0; i < sigs.size(); ++i) out << (i ? ", " : " ") << sigs[i];
  out << "\n";
}

}  // namespace

void helpFor(Session& session, const std::string& name, std::ostream& out) {
  if (auto it = builtins().find(name); it != builtins().end()) {
    out << it->second.signature << "\n  " << it->second.description << "\n";
    return;
  }
  if (const Value* v = session.evaluator().globals()->lookup(name)) {
    if (v->kind == ValueKind::Closure) helpForFunction(session, *v->closure, out);
    else if (v->isArray()) out << name << ": " << surfaceTypeString(*v->array) << "\n";
    else out << name << ": " << describe(*v) << "\n";
    return;
  }
  Diagnostic d;
  d.code = "E0243";
  d.message = "no builtin or definition named `" + name + "`";
  d.help = "`:help NAME` (or `?NAME`) describes a builtin or a function, e.g. `:help sum`; `:help` lists the commands";
  session.diagnostics().report(d);
}

}  // namespace scn
