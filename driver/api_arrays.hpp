// Host arrays crossing the embedding API: views in (borrowed when the layout allows, else
// copied), engine arrays out as HostArrays, and the check of their count against the
// parameters. Used by driver/api.cpp only.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "jit/array.hpp"
#include "lang/value.hpp"
#include "scn/scn.hpp"

namespace scn {

/// Turns input `i` into an Array: borrowed when contiguous, aligned and allowed, else copied
/// (adding its bytes to `copied`). Bad views fail with E0601 or E0402.
Array inputArray(const ArrayView& v, size_t i, bool mayBorrow, std::vector<std::weak_ptr<Buffer>>& borrowed,
                 size_t& copied);

/// Why `n` inputs cannot call `closure` (null: a builtin or a transformation), or nothing: the
/// count must reach every parameter without a default at the end, and an omitted input must be
/// for a parameter with a default (E0220 at the function).
std::optional<Diagnostic> inputCountProblem(const Closure* closure, const std::string& name, const ArrayView* inputs,
                                            size_t n);

/// A result leaf as a HostArray: shares the engine's buffer, or copies it if it is a borrowed
/// input (`fn f(x) = x`) that the host may free after the call.
HostArray toHost(const Array& a, const std::vector<std::weak_ptr<Buffer>>& borrowed);

}  // namespace scn
