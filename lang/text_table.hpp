// Small text tables (numpy.loadtxt / numpy.savetxt): rows of numbers split by whitespace or a
// delimiter, '#' comments.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/diagnostics.hpp"
#include "jit/array.hpp"

namespace scn {

/// How a table is split: `delimiter` nullopt means runs of whitespace (NumPy's None).
struct TextTableFormat {
  std::optional<char> delimiter;
  int64_t skipRows = 0;
};

/// Parses a table into an array of dtype `t`: rows x columns, squeezed as loadtxt's ndmin=0
/// does ((1, 3) -> (3,), (1, 1) -> ()). E0523 for a bad number or a ragged row, naming the
/// line and column.
Array parseTextTable(std::string_view text, DType t, const TextTableFormat& f, const std::string& name, Span span);

/// A 1-D (one value per line) or 2-D array as text: floats as NumPy's default '%.18e',
/// integers in decimal, bools as 1/0.
std::string formatTextTable(const Array& a, char delimiter);

}  // namespace scn
