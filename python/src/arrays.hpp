// Arrays between Python and the embedding API: call arguments (NumPy arrays, any object with
// __dlpack__ or the buffer protocol, Python numbers) as borrowed scn::ArrayViews, and results as
// read-only NumPy arrays that own scn's buffers. See Note [Zero copies] in arrays.cpp.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "scn/scn.hpp"

namespace scn::python {

namespace nb = nanobind;

/// The views of one call's arguments and what keeps their memory alive until the call returns.
class CallInputs {
 public:
  explicit CallInputs(size_t n);
  /// Adds argument `i` (for messages: `fn`'s argument number i + 1). Raises TypeError for an
  /// object scn cannot take (an unsupported dtype, a device array, an int that overflows i64).
  void add(nb::handle arg, size_t i, const char* fn);
  const std::vector<ArrayView>& views() const { return views_; }

 private:
  bool addArray(nb::handle arg, size_t i, const char* fn, std::optional<DataType> bitsOf = std::nullopt);
  bool addBfloat16(nb::handle arg, size_t i, const char* fn);
  std::vector<ArrayView> views_;
  std::vector<nb::ndarray<nb::ro>> arrays_;  // the borrowed arrays
  std::vector<nb::object> converted_;       // numpy.asarray of a list, a tuple, ...
  std::vector<uint64_t> scalars_;           // Python numbers' bytes (never reallocated: reserved)
};

/// A result as a read-only NumPy array sharing the HostArray's buffer (no copy); the array
/// keeps the buffer alive after the function and the context are gone.
nb::object toNumpy(HostArray&& result);

}  // namespace scn::python
