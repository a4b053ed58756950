// Integer-array and boolean-mask indexing and the functional updates of `x.at[...]`: every
// NumPy index is one gather or one scatter (Note [Index plans] in gather_index.cpp).
#pragma once

#include <optional>
#include <vector>

#include "lang/eval.hpp"

namespace scn {

/// One evaluated item of `x[...]` or `x.at[...]`.
struct IndexArg {
  enum class Kind { NewAxis, Ellipsis, Slice, Array };
  Kind kind = Kind::Array;
  Span span;
  std::optional<int64_t> start, stop;  // Slice
  int64_t step = 1;                    // Slice
  std::optional<AVal> value;           // Array: an integer or bool array or scalar
};

/// Whether `x[args]` needs a gather: some item is an array of rank >= 1 or of dtype bool.
bool needsGather(const std::vector<IndexArg>& args);

/// x[args] with NumPy's rules for where the indexed axes go; out-of-range indices clamp unless
/// `fill` is given (then they read it). `checkStatic`: a static integer scalar out of range is
/// E0219, as for basic indexing.
AVal gatherIndexed(Evaluator& ev, const AVal& x, const std::vector<IndexArg>& args,
                   const std::optional<AVal>& fill, bool checkStatic, Span span);

/// x.at[args] updated with `updates` (broadcast to the shape of x[args]) by scatter op `op`;
/// out-of-range updates are dropped, or clamped into range when `clip`.
AVal scatterIndexed(Evaluator& ev, const AVal& x, const std::vector<IndexArg>& args, Op op,
                    AVal updates, bool clip, Span span);

}  // namespace scn
