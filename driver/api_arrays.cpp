// Host arrays crossing the embedding API (driver/api_arrays.hpp).
#include "driver/api_arrays.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "base/diagnostics.hpp"

namespace scn {

namespace {
bool validDataType(DataType t) { return static_cast<unsigned>(t) <= static_cast<unsigned>(DataType::F16); }
}  // namespace

/// Copies a strided host array into the contiguous `out` (bool bytes are normalised to 0/1).
static void gatherInto(const ArrayView& v, const std::vector<int64_t>& strides, Array& out) {
  size_t es = dtypeSize(out.dtype);
  auto* dst = static_cast<unsigned char*>(out.raw());
  const auto* src = static_cast<const unsigned char*>(v.data);
  int64_t n = out.size();
  size_t rank = v.shape.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * es, src + offset, es);
    if (out.dtype == DType::Bool) dst[i] = dst[i] != 0;
    for (size_t d = rank; d-- > 0;) {  // odometer step, keeping the byte offset in sync
      offset += strides[d];
      if (++idx[d] < v.shape[d]) break;
      offset -= strides[d] * v.shape[d];
      idx[d] = 0;
    }
  }
}

/// Turns input `i` into an Array: borrowed when contiguous, aligned and allowed, else copied
/// (adding its bytes to `copied`).
Array inputArray(const ArrayView& v, size_t i, bool mayBorrow, std::vector<std::weak_ptr<Buffer>>& borrowed,
                 size_t& copied) {
  auto which = [i] { return "input " + std::to_string(i); };  // for messages only: not built per call
  if (!validDataType(v.dtype))
    fail("E0601", Span{}, which() + " has an invalid dtype (value " +
                              std::to_string(static_cast<int>(v.dtype)) + ")",
         "use one of the scn::DataType / scn_dtype values");
  if (v.weak && (!v.shape.empty() ||
                 (v.dtype != DataType::I64 && v.dtype != DataType::F64 && v.dtype != DataType::C128)))
    fail("E0601", Span{}, which() + " is marked weak but has dtype " + std::string(dataTypeName(v.dtype)) +
                              " and shape " + shapeString(v.shape),
         "only a 0-d i64, f64 or c128 value (a host language's int, float or complex) may be weakly typed");
  for (int64_t d : v.shape)
    if (d < 0)
      fail("E0601", Span{}, which() + " has a negative dimension in its shape " + shapeString(v.shape));
  if (!v.strides.empty() && v.strides.size() != v.shape.size())
    fail("E0601", Span{}, which() + " has " + std::to_string(v.strides.size()) + " strides for " +
                              std::to_string(v.shape.size()) + " dimensions",
         "give one byte stride per dimension, or none for contiguous row-major data");
  DType dtype = static_cast<DType>(v.dtype);
  Shape shape(v.shape.begin(), v.shape.end());
  int64_t n = numElements(shape);
  if (n > 0 && v.data == nullptr)
    fail("E0601", Span{}, which() + " has a null data pointer but " + std::to_string(n) + " elements");
  size_t es = dtypeSize(dtype);
  // An empty array has nothing to read, whatever its other dimensions (they may be huge).
  if (n == 0) return Array(dtype, std::move(shape));
  // Byte strides below are bounded by n * es, so checking it once keeps them from overflowing.
  if (n > INT64_MAX / static_cast<int64_t>(es))
    fail("E0402", Span{}, which() + " of shape " + shapeString(v.shape) +
                              " has more bytes than an address space holds");
  // Row-major byte strides; a dimension of extent 1 may carry any stride.
  std::vector<int64_t> rowMajor(shape.size());
  bool contiguous = true;
  int64_t step = static_cast<int64_t>(es);
  for (size_t d = shape.size(); d-- > 0;) {
    rowMajor[d] = step;
    if (!v.strides.empty() && shape[d] != 1 && v.strides[d] != step) contiguous = false;
    step *= shape[d];
  }
  bool aligned = reinterpret_cast<uintptr_t>(v.data) % es == 0;
  if (n > 0 && contiguous && aligned && mayBorrow && dtype != DType::Bool) {
    Array a;
    a.dtype = dtype;
    a.shape = std::move(shape);
    a.buffer = std::make_shared<Buffer>(Buffer::Borrow{}, v.data, static_cast<size_t>(n) * es);
    borrowed.push_back(a.buffer);
    return a;
  }
  Array a(dtype, std::move(shape));
  if (n > 0) gatherInto(v, contiguous ? rowMajor : v.strides, a);
  copied += static_cast<size_t>(n) * es;
  return a;
}

/// A result leaf as a HostArray: shares the engine's buffer, or copies it if it is a borrowed
/// input (`fn f(x) = x`) that the host may free after the call.
HostArray toHost(const Array& a, const std::vector<std::weak_ptr<Buffer>>& borrowed) {
  std::shared_ptr<Buffer> buf = a.buffer;
  for (const auto& w : borrowed)
    if (w.lock() == buf) buf = a.clone().buffer;
  if (!buf) buf = std::make_shared<Buffer>(0);
  std::vector<int64_t> shape(a.shape.begin(), a.shape.end());
  return HostArray(static_cast<DataType>(a.dtype), std::move(shape),
                   std::shared_ptr<const void>(buf, buf->data()));
}

std::optional<Diagnostic> inputCountProblem(const Closure* closure, const std::string& name, const ArrayView* inputs,
                                            size_t n) {
  auto problem = [&](std::string message, std::string help) {
    Diagnostic d;
    d.code = "E0220";
    d.span = closure ? closure->span : Span{};
    d.message = std::move(message);
    d.help = std::move(help);
    return d;
  };
  for (size_t i = 0; i < n; ++i)
    if (inputs[i].omitted && (!closure || i >= closure->params->size() || !(*closure->params)[i].defaultValue))
      return problem("input " + std::to_string(i) + " of `" + name + "` is omitted, but " +
                         (closure && i < closure->params->size()
                              ? "its parameter `" + (*closure->params)[i].name + "` has no default"
                              : std::string("only a fn's parameters have defaults")),
                     "pass an array for it");
  if (!closure) return std::nullopt;
  size_t want = closure->params->size(), least = want;
  while (least > 0 && (*closure->params)[least - 1].defaultValue) --least;  // trailing defaults
  if (n >= least && n <= want) return std::nullopt;
  std::string takes = least == want ? std::to_string(want) : std::to_string(least) + " to " + std::to_string(want);
  return problem("`" + name + "` takes " + takes + " argument" + (want == 1 ? "" : "s") + " but " + std::to_string(n) +
                     (n == 1 ? " was" : " were") + " given",
                 least == want ? "pass one array per parameter, in order"
                               : "pass one array per parameter, in order (those from `" + (*closure->params)[least].name +
                                     "` on have defaults)");
}

}  // namespace scn
