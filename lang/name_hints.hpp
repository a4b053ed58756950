// Help for names scn does not know: Python and NumPy spellings, module prefixes (`jnp.sum`),
// and did-you-mean over the scope, the builtins and the dtypes. All knowledge of other
// languages' names lives here (Note [Name hints]).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "jit/dtype.hpp"
#include "lang/eval.hpp"
#include "lang/syntax/ast.hpp"

namespace scn {

/// The help line for the unknown name `name`, looked up in `env`.
std::string unknownNameHelp(const std::string& name, const Env& env);

/// The scn dtype that NumPy and JAX call `name` (`float32` is f32, `int64` i64, `bool_` bool).
std::optional<DType> foreignDTypeName(std::string_view name);

/// E0273 when `e` is a NumPy/JAX module path (`jnp.sum`, `jax.numpy.float32`, `lax.scan`)
/// whose first name is not bound in `env`; returns otherwise.
void rejectModulePrefix(const AttrExpr& e, const Env& env);

}  // namespace scn
