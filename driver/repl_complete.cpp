// Tab completion in the REPL (Note [Completion]).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "driver/repl_internal.hpp"
#include "lang/namespaces.hpp"

namespace scn {

// Note [Completion]
// The word before the cursor decides what completes it, as in IPython:
// - the first word of a `:command` line: the commands;
// - the rest of a `:load` line, or the text of an open string after `import`: file paths (a
//   directory completes with `/`, and only .scn files and directories are offered);
// - a name after `MODULE.` (`linalg.so`): the module's members, as whole paths (`linalg.solve`),
//   unless a definition of the session hides the module;
// - any other name: builtins, the session's definitions, dtypes, module names, and the keyword arguments
//   (`axis=`) of the function whose call the cursor is in — a builtin's from its signature in
//   the builtin table, a `fn`'s from its parameters.
// completionsAt is pure (line and cursor in, words out) so tests can check it without a
// terminal; the line editor only hands it the line.

namespace {

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> pathCompletions(const std::string& prefix) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  size_t slash = prefix.rfind('/');
  std::string dir = slash == std::string::npos ? "" : prefix.substr(0, slash + 1);
  std::string stem = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!startsWith(name, stem) || (stem.empty() && name[0] == '.')) continue;
    bool isDir = it->is_directory(ec);
    if (isDir) out.push_back(dir + name + "/");
    else if (it->path().extension() == ".scn") out.push_back(dir + name);
  }
  return out;
}

/// The name of the function whose argument list is open at `pos`, or "".
std::string openCallee(const std::string& line, size_t pos) {
  int depth = 0;
  for (size_t i = pos; i-- > 0;) {
    char c = line[i];
    if (c == ')' || c == ']') ++depth;
    else if (c == '[') depth = std::max(0, depth - 1);
    else if (c == '(' && depth-- == 0) {
      size_t end = i;
      while (end > 0 && line[end - 1] == ' ') --end;
      size_t start = end;
      while (start > 0 && isNameChar(line[start - 1])) --start;
      return line.substr(start, end - start);
    }
  }
  return "";
}

/// `axis=` and the like: the keyword arguments of `callee`.
std::vector<std::string> keywordArguments(Session& session, const std::string& callee) {
  std::vector<std::string> out;
  if (auto it = builtins().find(callee); it != builtins().end()) {
    const std::string& sig = it->second.signature;  // "sum(x, axis=None)"
    size_t open = sig.find('(');
    for (size_t i = open == std::string::npos ? sig.size() : open + 1; i < sig.size();) {
      size_t end = sig.find_first_of(",)", i);
      std::string param = sig.substr(i, end == std::string::npos ? std::string::npos : end - i);
      param.erase(0, param.find_first_not_of(" ["));
      size_t nameEnd = 0;
      while (nameEnd < param.size() && isNameChar(param[nameEnd])) ++nameEnd;
      if (nameEnd > 0) out.push_back(param.substr(0, nameEnd) + "=");
      if (end == std::string::npos) break;
      i = end + 1;
    }
  } else if (const Value* v = session.evaluator().globals()->lookup(callee); v && v->kind == ValueKind::Closure) {
    for (const Param& p : *v->closure->params)
      if (p.name != "_") out.push_back(p.name + "=");
  }
  return out;
}

std::vector<std::string> nameCompletions(Session& session, const std::string& line, size_t wordStart,
                                         const std::string& prefix) {
  std::set<std::string> found;
  auto offer = [&](const std::string& w) {
    if (startsWith(w, prefix)) found.insert(w);
  };
  for (const std::string& kw : keywordArguments(session, openCallee(line, wordStart))) offer(kw);
  for (const auto& [name, b] : builtins()) offer(name);
  for (const auto& [name, v] : session.evaluator().globals()->vars()) offer(name);
  for (DType t : kAllDTypes) offer(dtypeName(t));
  for (std::string_view m : moduleNames()) offer(std::string(m));
  return {found.begin(), found.end()};
}

/// `linalg.so` -> linalg.solve ...: the members of the module before the dot (Note [Completion]).
std::vector<std::string> memberCompletions(Session& session, const std::string& module, const std::string& prefix) {
  std::vector<std::string> out;
  const Env& globals = *session.evaluator().globals();
  for (const ModuleMember& m : moduleMembers())
    if (m.module == module && startsWith(m.member, prefix) && moduleMemberValue(m, globals))
      out.push_back(module + "." + m.member);
  return out;
}

}  // namespace

const std::vector<std::string>& replCommands() {
  static const std::vector<std::string> commands = {
      ":help", ":type", ":ir", ":kernels", ":llvm", ":asm", ":cuda", ":ptx", ":time",
      ":mem", ":stats", ":backend", ":load", ":reset", ":quit"};
  return commands;
}

std::vector<std::string> completionsAt(Session& session, const std::string& lineIn, size_t cursor) {
  std::string line = lineIn.substr(0, std::min(cursor, lineIn.size()));
  size_t first = line.find_first_not_of(" \t");
  if (first != std::string::npos && line[first] == ':') {
    size_t space = line.find(' ', first);
    if (space == std::string::npos) {
      std::vector<std::string> out;
      for (const std::string& c : replCommands())
        if (startsWith(c, line.substr(first))) out.push_back(c);
      return out;
    }
    if (line.compare(first, space - first, ":load") == 0) {
      size_t arg = line.find_first_not_of(' ', space);
      return pathCompletions(arg == std::string::npos ? "" : line.substr(arg));
    }
  }
  // Inside `import "...`: an odd number of quotes after the last `import`.
  if (size_t imp = line.rfind("import"); imp != std::string::npos) {
    size_t quote = line.find('"', imp);
    if (quote != std::string::npos && line.find('"', quote + 1) == std::string::npos)
      return pathCompletions(line.substr(quote + 1));
  }
  size_t start = line.size();
  while (start > 0 && isNameChar(line[start - 1])) --start;
  if (start > 0 && line[start - 1] == '.') {
    size_t moduleStart = start - 1;
    while (moduleStart > 0 && isNameChar(line[moduleStart - 1])) --moduleStart;
    std::string module = line.substr(moduleStart, start - 1 - moduleStart);
    bool plainName = moduleStart == 0 || line[moduleStart - 1] != '.';
    if (plainName && isModuleName(module) && !session.evaluator().globals()->lookup(module))
      return memberCompletions(session, module, line.substr(start));
  }
  return nameCompletions(session, line, start, line.substr(start));
}

}  // namespace scn
