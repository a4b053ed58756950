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

/// Element `i` (row-major) as formatArray writes it: floats as Python's repr.
std::string formatElement(const Array& a, int64_t i);

/// A complex element from the texts of its parts: "1.0+2.0j", "1.0-0.5j".
std::string formatComplex(const std::string& re, const std::string& im);

/// NumPy's print options (the builtin set_printoptions): how arrays are written.
struct PrintOptions {
  int64_t threshold = kDefaultSummaryThreshold;
  int precision = -1;  // digits after the point of a float; -1: the shortest that reads back
  int linewidth = 75;  // where displayArray wraps a row
};

/// One line, as print writes it, with the options' threshold and precision.
std::string formatArray(const Array& a, const PrintOptions& o);

/// As the REPL shows an array (Note [Array display] in array_display.cpp): formatArray for
/// fewer than two dimensions; else one row of the last axis per line, the columns aligned, a
/// blank line between blocks of higher axes, rows wrapped at the line width.
std::string displayArray(const Array& a, const PrintOptions& o);

}  // namespace scn
