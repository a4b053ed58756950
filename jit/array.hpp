// Concrete arrays: a dtype, a static shape and a contiguous row-major buffer shared by copies.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "jit/dtype.hpp"

namespace scn {

using Shape = std::vector<int64_t>;

/// Number of elements of a shape (1 for a scalar). Throws a UserError on overflow.
int64_t numElements(const Shape& shape);
/// "(3, 4)" as in NumPy; "()" for a scalar.
std::string shapeString(const Shape& shape);

/// A 64-byte aligned host allocation.
class Buffer {
 public:
  explicit Buffer(size_t bytes);
  /// Tag for the borrowing constructor.
  struct Borrow {};
  /// Wraps memory someone else owns (an embedding host's input array): no copy, and the
  /// destructor leaves it alone. The owner keeps it alive and unchanged while the buffer lives;
  /// nothing writes to it (compiled code never writes to its parameters).
  Buffer(Borrow, const void* data, size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  /// False when something wrote into the guard zones around an owned allocation: an
  /// out-of-bounds write by compiled code, which no sanitizer sees (Note [Buffer guards]).
  /// Always true in builds without guards and for borrowed memory.
  bool guardsIntact() const;

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  size_t rounded_ = 0;  // the allocated payload: bytes_ rounded up to the alignment
  bool borrowed_ = false;
};

/// A dense array value. Copies share the buffer; arrays are treated as immutable once built.
struct Array {
  DType dtype = DType::F32;
  Shape shape;
  std::shared_ptr<Buffer> buffer;

  Array() = default;
  /// Allocates an uninitialised array (a UserError if the allocation fails).
  Array(DType dtype, Shape shape);

  int64_t size() const { return numElements(shape); }
  size_t rank() const { return shape.size(); }
  size_t bytes() const { return static_cast<size_t>(size()) * dtypeSize(dtype); }
  template <typename T> T* data() { return static_cast<T*>(buffer->data()); }
  template <typename T> const T* data() const { return static_cast<const T*>(buffer->data()); }
  void* raw() { return buffer->data(); }
  const void* raw() const { return buffer->data(); }

  /// Element i (flat index) converted to double / int64 (for printing, folding and tests).
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;
  uint64_t getUInt(int64_t i) const;
  /// Sets element i from a double (converted with C++ rules; bool is != 0).
  void setDouble(int64_t i, double v);
  void setInt(int64_t i, int64_t v);

  /// A 0-d array holding `v` converted to `dtype`.
  static Array scalar(DType dtype, double v);
  static Array scalarInt(DType dtype, int64_t v);
  /// A deep copy with its own buffer.
  Array clone() const;
};

/// Formats a value as scn prints it: 3, 1.5, true, [1.0, 2.0], [[1, 2], [3, 4]].
/// Floats print in the shortest form that round-trips in their dtype, always with a '.' or
/// an exponent. Arrays over 1000 elements are summarised with "..." as NumPy does.
std::string formatArray(const Array& a);

}  // namespace scn
