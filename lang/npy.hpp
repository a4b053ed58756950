// The .npy file format (NumPy's format versions 1.0, 2.0 and 3.0): header parsing, decoding to
// an Array (byte swaps, Fortran order) and encoding. No evaluator dependency, so the fuzz target
// and the .npz reader call it directly.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/diagnostics.hpp"
#include "jit/array.hpp"

namespace scn {

/// NumPy's own limit on a header's length (np.load's max_header_size): longer ones are E0516.
constexpr size_t kNpyMaxHeaderBytes = 10000;
/// NumPy's limit on the number of dimensions (NPY_MAXDIMS in NumPy 2).
constexpr size_t kNpyMaxRank = 64;

/// What a .npy header says.
struct NpyHeader {
  int major = 1, minor = 0;
  DType dtype = DType::F64;
  bool swapBytes = false;  // the data's byte order is not this machine's
  bool fortranOrder = false;
  Shape shape;
  size_t dataOffset = 0;  // where the data starts
  size_t dataBytes = 0;   // what the shape and dtype need
};

/// Parses the header at the start of `bytes` (a prefix of the file of at least the header's
/// length suffices). `name` is the file as messages show it; errors point at `span`:
/// E0515 (not .npy), E0516 (malformed header), E0517 (unsupported dtype), E0519 (bad shape).
NpyHeader parseNpyHeader(std::string_view bytes, const std::string& name, Span span);

/// Decodes a whole .npy image in memory: the header, then exactly the data it describes
/// (E0518 when the size differs), byte-swapped and transposed to scn's layout.
Array decodeNpy(std::string_view bytes, const std::string& name, Span span);

/// Turns data laid out as `h` says (already in `a`'s buffer) into scn's layout: native byte
/// order, row-major, bools as 0/1.
void normaliseNpyData(Array& a, const NpyHeader& h);

/// The .npy image of `a`: version 1.0 (2.0 if the header needs it), little-endian, C order,
/// the header padded so the data starts at a multiple of 64 bytes, as NumPy writes it.
std::string encodeNpy(const Array& a);

/// "'<f8'": the descr NumPy writes for a dtype (little-endian).
std::string npyDescr(DType t);

}  // namespace scn
