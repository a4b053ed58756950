// Printing arrays with options (print's threshold=); formatArray in array.hpp uses NumPy's defaults.
#pragma once

#include <cstdint>
#include <string>

#include "jit/array.hpp"

namespace scn {

/// NumPy's print threshold: arrays with more elements are summarised with "...".
constexpr int64_t kDefaultSummaryThreshold = 1000;

/// formatArray, summarising arrays (or axes) with more than `summaryThreshold` elements.
std::string formatArray(const Array& a, int64_t summaryThreshold);

}  // namespace scn
