// Concrete arrays: aligned buffers, shape arithmetic, element access and printing.
#include "jit/array.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "jit/array_format.hpp"
#include "jit/scalar.hpp"
#include "base/diagnostics.hpp"

namespace scn {

namespace {

constexpr size_t kAlignment = 64;

std::string typeText(DType dtype, const Shape& shape) {
  std::string s = dtypeName(dtype);
  s += "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace

// ---- shapes ----

int64_t numElements(const Shape& shape) {
  // An empty array is valid whatever its other dims: the answer must not depend on their order.
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) fail("E0402", Span{}, "invalid shape " + shapeString(shape) + ": negative dimension");
    empty = empty || d == 0;
  }
  if (empty) return 0;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (n > std::numeric_limits<int64_t>::max() / d)
      fail("E0402", Span{}, "shape " + shapeString(shape) + " has too many elements",
           "the number of elements must fit in a signed 64-bit integer");
    n *= d;
  }
  return n;
}

std::string shapeString(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// ---- buffers ----

// Note [Buffer guards]
// ~~~~~~~~~~~~~~~~~~~~
// JIT-compiled kernels are not instrumented by AddressSanitizer: an out-of-bounds store in
// generated code silently corrupts the heap, and ASan notices only much later, in an unrelated
// free (as fuzz_tracer once did inside LLVM's ScalarEvolution). Sanitizer builds therefore put a
// guard zone of a known byte pattern on both sides of every owned buffer; the CPU backend checks
// the zones of every buffer a kernel touched right after the kernel returns, so a stray store is
// an internal error naming the program that did it. Release builds allocate no guards.
#if defined(SCN_BUFFER_GUARDS)
constexpr size_t kGuardBytes = 256;  // a multiple of kAlignment, wider than any vector store
#else
constexpr size_t kGuardBytes = 0;
#endif
constexpr unsigned char kGuardByte = 0xA5;

Buffer::Buffer(size_t bytes) : bytes_(bytes) {
  // aligned_alloc wants a size that is a multiple of the alignment (and never 0 here).
  size_t rounded = bytes == 0 ? kAlignment : bytes;
  if (rounded % kAlignment) {
    if (rounded > std::numeric_limits<size_t>::max() - kAlignment)
      fail("E0401", Span{}, "cannot allocate " + std::to_string(bytes) + " bytes");
    rounded += kAlignment - rounded % kAlignment;
  }
  if (rounded > std::numeric_limits<size_t>::max() - 2 * kGuardBytes)
    fail("E0401", Span{}, "cannot allocate " + std::to_string(bytes) + " bytes");
  rounded_ = rounded;
  auto* base = static_cast<unsigned char*>(std::aligned_alloc(kAlignment, rounded + 2 * kGuardBytes));
  if (!base) fail("E0401", Span{}, "cannot allocate " + std::to_string(bytes) + " bytes");
  if (kGuardBytes) {
    std::memset(base, kGuardByte, kGuardBytes);
    std::memset(base + kGuardBytes + rounded, kGuardByte, kGuardBytes);
  }
  data_ = base + kGuardBytes;
}

Buffer::Buffer(Borrow, const void* data, size_t bytes)
    : data_(const_cast<void*>(data)), bytes_(bytes), borrowed_(true) {}

bool Buffer::guardsIntact() const {
  if (borrowed_ || kGuardBytes == 0) return true;
  const auto* payload = static_cast<const unsigned char*>(data_);
  for (size_t i = 0; i < kGuardBytes; ++i)
    if (payload[-1 - static_cast<std::ptrdiff_t>(i)] != kGuardByte || payload[rounded_ + i] != kGuardByte) return false;
  return true;
}

Buffer::~Buffer() {
  if (!borrowed_) std::free(static_cast<unsigned char*>(data_) - kGuardBytes);
}

// ---- arrays ----

Array::Array(DType dtype_, Shape shape_) : dtype(dtype_), shape(std::move(shape_)) {
  int64_t n = numElements(shape);
  size_t es = dtypeSize(dtype);
  if (static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / es)
    fail("E0401", Span{}, "cannot allocate an array of type " + typeText(dtype, shape),
         "its size in bytes does not fit in memory addresses");
  size_t bytes = static_cast<size_t>(n) * es;
  try {
    buffer = std::make_shared<Buffer>(bytes);
  } catch (const UserError&) {
    fail("E0401", Span{},
         "cannot allocate " + std::to_string(bytes) + " bytes for " + typeText(dtype, shape),
         "the machine is out of memory; use smaller arrays");
  } catch (const std::bad_alloc&) {
    fail("E0401", Span{},
         "cannot allocate " + std::to_string(bytes) + " bytes for " + typeText(dtype, shape),
         "the machine is out of memory; use smaller arrays");
  }
}

double Array::getDouble(int64_t i) const {
  return dispatchWithLowPrecision(dtype, [&]<typename T>() -> double {
    return ::scn::scalar::convert<double>(data<T>()[i]);
  });
}

int64_t Array::getInt(int64_t i) const {
  return dispatchWithLowPrecision(dtype, [&]<typename T>() -> int64_t {
    return ::scn::scalar::convert<int64_t>(data<T>()[i]);
  });
}

uint64_t Array::getUInt(int64_t i) const {
  return dispatchWithLowPrecision(dtype, [&]<typename T>() -> uint64_t {
    return ::scn::scalar::convert<uint64_t>(data<T>()[i]);
  });
}

void Array::setDouble(int64_t i, double v) {
  dispatchWithLowPrecision(dtype, [&]<typename T>() { data<T>()[i] = ::scn::scalar::convert<T>(v); });
}

void Array::setInt(int64_t i, int64_t v) {
  dispatchWithLowPrecision(dtype, [&]<typename T>() { data<T>()[i] = ::scn::scalar::convert<T>(v); });
}

Array Array::scalar(DType dtype, double v) {
  Array a(dtype, {});
  a.setDouble(0, v);
  return a;
}

Array Array::scalarInt(DType dtype, int64_t v) {
  Array a(dtype, {});
  a.setInt(0, v);
  return a;
}

Array Array::clone() const {
  Array a(dtype, shape);
  if (bytes()) std::memcpy(a.raw(), raw(), bytes());
  return a;
}

// ---- printing ----

namespace {

// Python's repr of a float given its shortest round-tripping digits as "[-]d[.ddd]e(+|-)XX":
// fixed notation when the decimal point falls within 16 digits (1000000.0, 0.0001), scientific
// otherwise (1e+16, 1e-05); fixed forms always carry a '.'.
std::string formatScientific(const std::string& sci) {
  size_t epos = sci.find('e');
  int exponent = std::atoi(sci.c_str() + epos + 1);
  bool negative = sci[0] == '-';
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < epos; ++i)
    if (sci[i] != '.') digits += sci[i];
  int decpt = exponent + 1;  // value = 0.digits * 10^decpt
  if (decpt <= -4 || decpt > 16) return sci;
  std::string out = negative ? "-" : "";
  int nd = static_cast<int>(digits.size());
  if (decpt <= 0) {
    out += "0." + std::string(-decpt, '0') + digits;
  } else if (decpt >= nd) {
    out += digits + std::string(decpt - nd, '0') + ".0";
  } else {
    out += digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  return out;
}

// f32 / f64: the shortest digits that round-trip in the dtype.
template <typename F>
std::string formatFloat(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return formatScientific(std::string(buf, res.ptr));
}

// bf16 / f16: the shortest digits that give the same 16 bits back, as ml_dtypes' repr (5
// significant digits always suffice for f16, 4 for bf16).
template <typename Low>
std::string formatLowPrecision(Low v) {
  float wide = ::scn::scalar::convert<float>(v);
  if (std::isnan(wide) || std::isinf(wide)) return formatFloat(wide);
  char buf[64];
  for (int digits = 1;; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, static_cast<double>(wide));
    if (digits >= 9 || ::scn::scalar::convert<Low>(std::strtof(buf, nullptr)).bits == v.bits) break;
  }
  return formatScientific(buf);
}

}  // namespace

std::string formatComplex(const std::string& re, const std::string& im) {
  // Python's complex repr without its parentheses and with scn's floats: 1.0+2.0j, 1.0-0.5j,
  // nan+infj (a sign is added before an imaginary part that has none).
  return re + (im[0] == '-' ? "" : "+") + im + "j";
}

std::string formatElement(const Array& a, int64_t i) {
  return dispatchWithLowPrecision(a.dtype, [&]<typename T>() -> std::string {
    T v = a.data<T>()[i];
    if constexpr (::scn::scalar::kIsComplex<T>) return formatComplex(formatFloat(v.re), formatFloat(v.im));
    else if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
    else if constexpr (std::is_same_v<T, bf16> || std::is_same_v<T, f16>) return formatLowPrecision(v);
    else if constexpr (std::is_floating_point_v<T>) return formatFloat(v);
    else return std::to_string(v);
  });
}

namespace {

constexpr int64_t kEdgeItems = 3;            // NumPy's edgeitems

void formatAxis(const Array& a, size_t axis, int64_t offset, const std::vector<int64_t>& strides,
                bool summarise, std::string& out) {
  if (axis == a.shape.size()) {
    out += formatElement(a, offset);
    return;
  }
  int64_t dim = a.shape[axis];
  out += "[";
  bool cut = summarise && dim > 2 * kEdgeItems;
  bool first = true;
  for (int64_t i = 0; i < dim; ++i) {
    if (cut && i == kEdgeItems) {
      out += ", ...";
      i = dim - kEdgeItems;
    }
    if (!first) out += ", ";
    first = false;
    formatAxis(a, axis + 1, offset + i * strides[axis], strides, summarise, out);
  }
  out += "]";
}

}  // namespace

std::string formatArray(const Array& a) { return formatArray(a, kDefaultSummaryThreshold); }

std::string formatArray(const Array& a, int64_t summaryThreshold) {
  // Row-major element strides. An empty array has no element to reach, and its other dims may
  // be huge (2 * (2**63 - 1) would overflow), so its strides stay 0.
  std::vector<int64_t> strides(a.shape.size(), a.size() > 0 ? 1 : 0);
  for (size_t i = a.shape.size(); i-- > 1;) strides[i - 1] = strides[i] * a.shape[i];
  std::string out;
  // Summarise large arrays, and also long axes of empty ones (2**40 empty rows would otherwise
  // print forever).
  bool longAxis = false;
  for (int64_t d : a.shape) longAxis = longAxis || d > summaryThreshold;
  formatAxis(a, 0, 0, strides, a.size() > summaryThreshold || longAxis, out);
  return out;
}

}  // namespace scn
