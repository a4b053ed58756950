// The .npz format: a zip archive of .npy files (numpy.savez / savez_compressed), read and
// written with zlib. Only what NumPy writes is needed: stored and deflated members, zip64 sizes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/diagnostics.hpp"
#include "jit/array.hpp"

namespace scn {

/// One array of an archive: its name without ".npy" ("arr_0", "weights").
struct NamedArray {
  std::string name;
  Array array;
};

/// The arrays of a .npz image, in the archive's order. E0522 for a broken archive; the
/// members' own errors are those of decodeNpy, naming "archive.npz (member.npy)".
std::vector<NamedArray> decodeNpz(std::string_view bytes, const std::string& name, Span span);

/// The .npz image of `arrays` (each member "<name>.npy"), deflated when `compress`.
/// E0522 when a member or the archive would need zip64 (4 GiB).
std::string encodeNpz(const std::vector<NamedArray>& arrays, bool compress, const std::string& name, Span span);

}  // namespace scn
