// Window geometry shared by the convolutions and reduce_window (lax's conventions): per-axis
// integer arguments, padding strings and pairs, and dilating or padding an axis with a fill.
// Argument errors are E0272.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lang/builtin_args.hpp"

namespace scn {

/// (low, high) pads, one pair per windowed axis.
using Pads = std::vector<std::pair<int64_t, int64_t>>;

/// E0272 at span.
[[noreturn]] void badWindow(Span span, const std::string& message, const std::string& help);

/// Argument i: one static integer >= 1 per windowed axis (`n` of them: strides, dilations,
/// window dimensions); `dflt` for each when absent or None.
std::vector<int64_t> perAxisInts(const Args& a, size_t i, size_t n, int64_t dflt = 1);

/// Argument i as a padding string of lax, upper-cased ("SAME", "SAME_LOWER", "VALID"; E0272 for
/// another string); nullopt when it is not a string.
std::optional<std::string> paddingMode(const Args& a, size_t i);

/// Argument i as n (low, high) pairs of static integers (E0272 otherwise).
Pads explicitPads(const Args& a, size_t i, size_t n);

/// lax.padtype_to_pads: the pads of a padding string for extents `in`, (dilated) windows
/// `window` and `strides`: SAME and SAME_LOWER keep ceil(in / stride) outputs, the odd element of
/// padding at the end (SAME) or the start (SAME_LOWER); VALID none.
Pads padsOfMode(const std::string& mode, const std::vector<int64_t>& in, const std::vector<int64_t>& window,
                const std::vector<int64_t>& strides);

/// The extent of a window of k taps spaced d apart: (k - 1) * d + 1, 0 for no taps.
int64_t dilatedExtent(int64_t k, int64_t d);

/// How many windows of `extent` elements, `stride` apart, fit in `size` elements.
int64_t windowCount(int64_t size, int64_t extent, int64_t stride);

/// The taps of the windows over axes [first, first + window.size()) of x, one per multi-index j
/// of the window (row-major): the strided slice of the elements tap j of every window reads,
/// `out[d]` windows `strides[d]` apart along axis first + d, the taps `dilation[d]` apart.
std::vector<AVal> windowTaps(ArrayOps& ops, const AVal& x, size_t first, const std::vector<int64_t>& window,
                             const std::vector<int64_t>& strides, const std::vector<int64_t>& dilation,
                             const std::vector<int64_t>& out, Span span);

/// x with d - 1 copies of `fill` (a scalar of x's dtype) between consecutive elements along axis.
AVal dilateAxis(ArrayOps& ops, const AVal& x, int64_t axis, int64_t d, const AVal& fill, Span span);

/// x with `lo` copies of `fill` before and `hi` after along axis; a negative side crops (E0272
/// when the two remove more than the axis has).
AVal padAxis(ArrayOps& ops, AVal x, int64_t axis, int64_t lo, int64_t hi, const AVal& fill, Span span);

}  // namespace scn
