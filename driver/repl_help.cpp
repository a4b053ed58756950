// `:help NAME` in the REPL: builtins from their table, functions from their definition.
#include <sstream>

#include "driver/repl_internal.hpp"
#include "lang/array_ops.hpp"
#include "lang/namespaces.hpp"

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

void reportNoHelp(Session& session, const std::string& message, const std::string& help) {
  Diagnostic d;
  d.code = "E0243";
  d.message = message;
  d.help = help;
  session.diagnostics().report(d);
}

/// `:help linalg` lists the module's members; `:help linalg.solve` describes the builtin the
/// member names, under the member's name (Note [Module namespaces]). False when `name` is not
/// a module path (a global of that name hides the module).
bool helpForModulePath(Session& session, const std::string& name, std::ostream& out) {
  size_t dot = name.find('.');
  std::string module = name.substr(0, dot);
  if (!isModuleName(module) || session.evaluator().globals()->lookup(module)) return false;
  const Env& globals = *session.evaluator().globals();
  if (dot == std::string::npos) {
    out << module << ": a module; its members:";
    for (const ModuleMember& m : moduleMembers())
      if (m.module == module && moduleMemberValue(m, globals)) out << " " << m.member;
    out << "\n";
    return true;
  }
  std::string member = name.substr(dot + 1);
  const ModuleMember* m = findModuleMember(module, member);
  std::optional<Value> v = m ? moduleMemberValue(*m, globals) : std::nullopt;
  if (!v) {
    std::string help = m && m->advice ? m->advice : "`:help " + module + "` lists the members of `" + module + "`";
    std::string what = !m ? "module `" + module + "` has no member `" + member + "`"
                       : "`" + name + (m->target ? "` is not implemented in scn yet" : "` is not in scn");
    reportNoHelp(session, what, help);
    return true;
  }
  if (v->kind == ValueKind::Closure) {
    helpForFunction(session, *v->closure, out);
    return true;
  }
  const Builtin& b = *v->builtin;
  out << name << b.signature.substr(b.signature.find('(')) << "\n  " << b.description;
  if (b.name != member) out << " (the builtin `" << b.name << "`)";
  out << "\n";
  return true;
}

}  // namespace

void helpFor(Session& session, const std::string& name, std::ostream& out) {
  if (auto it = builtins().find(name); it != builtins().end()) {
    out << it->second.signature << "\n  " << it->second.description << "\n";
    return;
  }
  if (helpForModulePath(session, name, out)) return;
  if (const Value* v = session.evaluator().globals()->lookup(name)) {
    if (v->kind == ValueKind::Closure) helpForFunction(session, *v->closure, out);
    else if (v->isArray()) out << name << ": " << surfaceTypeString(*v->array) << "\n";
    else out << name << ": " << describe(*v) << "\n";
    return;
  }
  reportNoHelp(session, "no builtin or definition named `" + name + "`",
               "`:help NAME` (or `?NAME`) describes a builtin or a function, e.g. `:help sum`; `:help` lists the commands");
}

}  // namespace scn
