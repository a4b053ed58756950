// JAX's module paths as names: `linalg.solve`, `nn.relu`, `random.normal`, `lax.scan`, `fft.rfft`
// (Note [Module namespaces] in lang/namespaces.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lang/eval.hpp"
#include "lang/syntax/ast.hpp"

namespace scn {

/// One name of a module: `linalg.solve` is the builtin `solve`. `target` is the builtin (or
/// prelude function) it names, null when scn has none; then `advice` says what to write
/// instead. A target not registered (yet) is reported with `advice` too.
struct ModuleMember {
  const char* module;
  const char* member;
  const char* target;
  const char* advice;
};

/// Every entry of the module table, grouped by module.
const std::vector<ModuleMember>& moduleMembers();
/// The modules: fft, lax, linalg, nn, random.
const std::vector<std::string_view>& moduleNames();
bool isModuleName(std::string_view name);
/// The entry of `module.member`, or null.
const ModuleMember* findModuleMember(std::string_view module, std::string_view member);

/// What `module.member` names when its target exists: the builtin, or the prelude function
/// bound at the top of `env`'s scope chain; nullopt otherwise.
std::optional<Value> moduleMemberValue(const ModuleMember& m, const Env& env);

/// The value of `e` when it is a module path (`linalg.solve`, its first name not bound in
/// `env`); nullopt when it is not one. A module path to a member scn lacks is E0109, whose help
/// says what to write instead.
std::optional<Value> resolveModulePath(const AttrExpr& e, const Env& env);

/// The help for `jax.random.normal` / `jnp.linalg.solve` (E0273): the scn module path, when
/// the foreign path ends in a module of scn and one of its names; nullopt otherwise.
std::optional<std::string> foreignModulePathHelp(const std::vector<std::string>& path, const Env& env);

/// The help for reading a member of a variable that hides a module (`let nn = 3` then
/// `nn.relu(x)`); nullopt when `e` is not such a read.
std::optional<std::string> shadowedModuleHelp(const AttrExpr& e, const Env& env);

}  // namespace scn
