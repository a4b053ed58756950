// vmap as an IR-to-IR transformation: batching rules by op category, plus rules for the
// irregular ops (dot_general, scan, while, cond, dynamic slices).
#pragma once

#include <optional>

#include "jit/ir.hpp"

namespace scn {

/// Returns a function that computes `f` for each of `axisSize` lanes at once.
/// inAxes[i]: where parameter i of the result carries the batch dimension (nullopt: the
/// parameter is shared by all lanes and has f's parameter type). Axes are non-negative here.
/// outAxes[j]: where result j carries the batch dimension; nullopt requires the result to be
/// unbatched (same for every lane), otherwise the error says which result is batched.
/// Errors (e.g. a bad out axis) come back as UserErrors with code E0301 at `span`.
FuncPtr batchFunc(const Func& f, const std::vector<std::optional<int>>& inAxes, int64_t axisSize,
                  const std::vector<std::optional<int>>& outAxes, Span span);

}  // namespace scn
