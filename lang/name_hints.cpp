// Help for unknown names: Python habits, NumPy/JAX dtype names and module prefixes, typos.
#include "lang/name_hints.hpp"

#include <algorithm>

#include <utility>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/suggest.hpp"
#include "lang/namespaces.hpp"

namespace scn {

// Note [Name hints]
// A user coming from Python/JAX writes `True`, `float32`, `jnp.sum`, `lambda`. Each of these is
// an unknown name to scn; its help says what scn writes instead, in this order: a Python habit
// (a fixed table), a NumPy dtype name, else the names closest to it (base/suggest.hpp) among the
// names in scope (innermost first, so a local wins a tie), the builtins (prelude functions are
// globals, so in scope) and the dtypes. A module path (`jnp.sum`, `jax.numpy.sum`) is caught
// where the attribute is read, before the unknown `jnp` would be reported, and gets E0273 with
// the bare name, or with scn's module path when the path ends in one of scn's modules
// (`jax.random.normal`: `random.normal`; Note [Module namespaces]). A bound `jax` is simply not
// a module path: the check only looks at roots that are not bound.

namespace {

// Python (and NumPy) names with a different scn spelling, and what to write instead.
const std::vector<std::pair<std::string_view, std::string_view>>& pythonNames() {
  static const std::vector<std::pair<std::string_view, std::string_view>> table = {
      {"True", "scn spells the booleans `true` and `false`"},
      {"False", "scn spells the booleans `true` and `false`"},
      {"none", "scn's \"no value\" is `None`"},
      {"null", "scn's \"no value\" is `None`"},
      {"nil", "scn's \"no value\" is `None`"},
      {"def", "scn defines a function with `fn`: `fn f(x) = x + 1`"},
      {"lambda", "scn writes a function value between bars: `|x| x + 1`"},
      {"return", "scn has no `return`: the last expression of a block is its value"},
      {"range", "a loop is written `for i in 0..n { ... }`; `arange(n)` is the array 0, 1, ..., n-1"},
      {"jit", "every `fn` is compiled when it is first called; scn needs no `jit`"},
      {"array", "an array is written as a literal: `[1.0, 2.0]`, `[[1, 2], [3, 4]]`"},
      {"asarray", "an array is written as a literal: `[1.0, 2.0]`, `[[1, 2], [3, 4]]`"},
  };
  return table;
}

std::optional<std::string_view> pythonNameHelp(std::string_view name) {
  for (const auto& [python, help] : pythonNames())
    if (python == name) return help;
  return std::nullopt;
}

// The first names of NumPy/JAX module paths; a path's inner names (`numpy`, `random`) are
// modules too, its last one the function.
bool isForeignModule(std::string_view name) {
  return name == "jnp" || name == "np" || name == "numpy" || name == "jax" || name == "onp" || name == "scipy";
}

// Every name a program can use here: the scope (innermost first), the builtins, the dtypes.
std::vector<std::string> knownNames(const Env& env) {
  std::vector<std::string> names;
  for (const Env* e = &env; e; e = e->parent().get())
    for (const auto& [name, v] : e->vars()) names.push_back(name);
  for (const auto& [name, b] : builtins()) names.push_back(name);
  for (DType t : kAllDTypes) names.emplace_back(dtypeName(t));
  return names;
}

bool isKnown(const std::string& name, const Env& env) {
  return env.lookup(name) || builtins().count(name) || dtypeFromName(name);
}

// The first member of scn's module `module` in the module table.
std::string_view firstMember(std::string_view module) {
  for (const ModuleMember& m : moduleMembers())
    if (m.module == module) return m.member;
  return "";
}

std::string dtypeHelp(DType t) {
  return std::string("scn calls this dtype `") + dtypeName(t) + "`";
}

// `a.b.c` as {"a", "b", "c"}; empty when the chain does not start with a plain name.
std::vector<std::string> dottedPath(const Expr& e) {
  if (e.kind == ExprKind::Name) return {static_cast<const NameExpr&>(e).name};
  if (e.kind != ExprKind::Attr) return {};
  const auto& a = static_cast<const AttrExpr&>(e);
  std::vector<std::string> path = dottedPath(*a.base);
  if (!path.empty()) path.push_back(a.attr);
  return path;
}

// The help for `jnp.NAME`: NAME as scn writes it, if scn has it.
std::string modulePathHelp(const std::string& name, const Env& env) {
  if (auto python = pythonNameHelp(name)) return std::string(*python);
  if (auto t = foreignDTypeName(name)) return "drop the prefix: " + dtypeHelp(*t);
  if (isKnown(name, env)) return "scn's functions have no prefix: write `" + name + "`";
  std::string close = didYouMean(closestNames(name, knownNames(env)));
  if (!close.empty()) return "scn has no `" + name + "` either; " + close;
  return "scn has no `" + name + "` either; its builtins are listed in docs/language.md";
}

}  // namespace

std::optional<DType> foreignDTypeName(std::string_view name) {
  static const std::vector<std::pair<std::string_view, DType>> table = {
      {"float32", DType::F32}, {"float64", DType::F64}, {"float", DType::F32},
      {"float_", DType::F64},  {"double", DType::F64},  {"single", DType::F32},
      {"int32", DType::I32},   {"int64", DType::I64},   {"int_", DType::I64},
      {"uint32", DType::U32},  {"uint64", DType::U64},  {"bool_", DType::Bool},
      {"boolean", DType::Bool}, {"complex64", DType::C64}, {"complex128", DType::C128},
      {"complex_", DType::C128}, {"csingle", DType::C64}, {"cdouble", DType::C128},
      {"bfloat16", DType::BF16}, {"float16", DType::F16}, {"half", DType::F16},
  };
  for (const auto& [foreign, t] : table)
    if (foreign == name) return t;
  return std::nullopt;
}

std::string unknownNameHelp(const std::string& name, const Env& env) {
  if (auto python = pythonNameHelp(name)) return std::string(*python);
  if (auto t = foreignDTypeName(name)) return dtypeHelp(*t) + ": write `" + dtypeName(*t) + "`";
  if (isForeignModule(name))
    return "scn has no module `" + name + "`: NumPy's functions are builtins, used without a prefix (`sum(x)`)";
  if (isModuleName(name))
    return "`" + name + "` is a module, not a value: use one of its members, e.g. `" + name + "." +
           std::string(firstMember(name)) + "(...)`";
  std::string close = didYouMean(closestNames(name, knownNames(env)));
  if (!close.empty()) return close;
  return "define it with `let " + name + " = ...` or `fn " + name + "(...)` before this line";
}

void rejectModulePrefix(const AttrExpr& e, const Env& env) {
  if (e.base->kind != ExprKind::Name && e.base->kind != ExprKind::Attr) return;
  std::vector<std::string> path = dottedPath(e);
  if (path.size() < 2 || !isForeignModule(path[0]) || isKnown(path[0], env)) return;
  std::string module = path[0];
  for (size_t i = 1; i + 1 < path.size(); ++i) module += "." + path[i];
  // jax.checkpoint_policies.dots_saveable: checkpoint takes its policies by name, the name
  // policies as builtins (Note [Checkpoint names] in builtins_autodiff.cpp).
  if (path.size() >= 3 && path[path.size() - 2] == "checkpoint_policies") {
    bool namePolicy = path.back() == "save_only_these_names" || path.back() == "save_any_names_but_these";
    fail("E0273", e.span, "scn has no module `" + module + "`",
         namePolicy ? "checkpoint's name policies are builtins in scn: write `policy=" + path.back() + "(\"a\", ...)`"
                    : "checkpoint's policies are strings in scn: write `policy=\"" + path.back() + "\"`");
  }
  if (std::find(path.begin(), path.end(), "tree") != path.end() ||
      std::find(path.begin(), path.end(), "tree_util") != path.end())
    fail("E0273", e.span, "scn has no module `" + module + "`",
         "scn has no pytree utilities: apply the function to each element of the tuple, `(f(t.0), f(t.1))`, "
         "or build the tuple in a `for x in t` loop");
  std::optional<std::string> scnModule = foreignModulePathHelp(path, env);
  fail("E0273", e.span, "scn has no module `" + module + "`", scnModule ? *scnModule : modulePathHelp(path.back(), env));
}

}  // namespace scn
