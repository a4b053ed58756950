// The method forms of the array builtins (Note [Methods] in lang/methods.cpp).
#pragma once

#include <string>

namespace scn {

/// Whether `x.name(...)` is a method call of a builtin (Note [Methods]).
bool isArrayMethod(const std::string& name);

}  // namespace scn
