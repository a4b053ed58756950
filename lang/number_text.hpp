// Numbers written as text: parsing `args` strings (int("3"), f64(args[0])) and text tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "lang/value.hpp"

namespace scn {

/// Parses one number as Python's int()/float() do (surrounding spaces, a sign, underscores
/// between digits; floats also inf and nan) and stores it as element `i` of `into`, which has
/// dtype `t`. Returns an empty string on success, else what is wrong ("not an integer",
/// "out of range for i32").
std::string parseNumberInto(std::string_view text, DType t, Array& into, int64_t i);

/// int(s), float(s) and dtype(s) on a string: the number as a scalar of dtype `t` (weakly typed
/// when `weak`, as a literal is). E0524 at `span` for text that is not such a number.
AVal parseNumberText(const std::string& text, DType t, bool weak, Span span, const std::string& fn);

}  // namespace scn
