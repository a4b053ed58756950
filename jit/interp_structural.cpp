// Reference kernels that move elements without computing on them: broadcast, reshape,
// transpose, concat, slices and reverse. They copy bytes, so one loop serves every dtype.
#include <algorithm>
#include <cstring>
#include <limits>

#include "jit/interp_kernels.hpp"

namespace scn::interp {

namespace {

// Builds `out` by copying, for each of its elements in row-major order, the element of `x` at
// the flat index `source(outIndex)`.
template <typename F>
Array gather(const Array& x, const Type& out, F&& source) {
  Array r(out.dtype, out.shape);
  const size_t es = dtypeSize(out.dtype);
  const char* p = static_cast<const char*>(x.raw());
  char* o = static_cast<char*>(r.raw());
  int64_t flat = 0;
  forEachIndex(out.shape, [&](const std::vector<int64_t>& idx) {
    std::memcpy(o + flat++ * es, p + source(idx) * es, es);
  });
  return r;
}

}  // namespace

int64_t clampedStart(const Array& index, int64_t hi) {
  int64_t v =
      isUnsignedInt(index.dtype)
          ? static_cast<int64_t>(std::min<uint64_t>(index.getUInt(0), std::numeric_limits<int64_t>::max()))
          : index.getInt(0);
  return std::clamp<int64_t>(v, 0, std::max<int64_t>(hi, 0));
}

Array broadcastInDimOp(const Array& x, const Attrs& attrs, const Type& out) {
  std::vector<int64_t> xs = stridesOf(x.shape);
  return gather(x, out, [&](const std::vector<int64_t>& oi) {
    int64_t src = 0;
    for (size_t i = 0; i < x.shape.size(); ++i)
      if (x.shape[i] != 1) src += oi[attrs.axes[i]] * xs[i];
    return src;
  });
}

Array reshapeOp(const Array& x, const Type& out) {
  Array r = x;  // same bytes, new shape: share the (immutable) buffer
  r.shape = out.shape;
  return r;
}

Array transposeOp(const Array& x, const Attrs& attrs, const Type& out) {
  std::vector<int64_t> xs = stridesOf(x.shape);
  return gather(x, out, [&](const std::vector<int64_t>& oi) {
    int64_t src = 0;
    for (size_t i = 0; i < oi.size(); ++i) src += oi[i] * xs[attrs.axes[i]];
    return src;
  });
}

Array concatOp(const std::vector<Array>& xs, const Attrs& attrs, const Type& out) {
  Array r(out.dtype, out.shape);
  const int64_t axis = attrs.axes[0];
  const size_t es = dtypeSize(out.dtype);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out.shape[d];
  for (size_t d = axis + 1; d < out.shape.size(); ++d) inner *= out.shape[d];
  const size_t outRow = out.shape[axis] * inner * es;
  char* o = static_cast<char*>(r.raw());
  size_t offset = 0;  // bytes into each output row where this operand's block starts
  for (const Array& x : xs) {
    const size_t row = x.shape[axis] * inner * es;
    const char* p = static_cast<const char*>(x.raw());
    for (int64_t a = 0; a < outer && row > 0; ++a) std::memcpy(o + a * outRow + offset, p + a * row, row);
    offset += row;
  }
  return r;
}

Array sliceOp(const Array& x, const Attrs& attrs, const Type& out) {
  std::vector<int64_t> xs = stridesOf(x.shape);
  return gather(x, out, [&](const std::vector<int64_t>& oi) {
    int64_t src = 0;
    for (size_t d = 0; d < oi.size(); ++d) {
      int64_t stride = attrs.strides.empty() ? 1 : attrs.strides[d];
      src += (attrs.starts[d] + oi[d] * stride) * xs[d];
    }
    return src;
  });
}

Array reverseOp(const Array& x, const Attrs& attrs, const Type& out) {
  std::vector<int64_t> xs = stridesOf(x.shape);
  std::vector<bool> flip(x.shape.size(), false);
  for (int64_t a : attrs.axes) flip[a] = true;
  return gather(x, out, [&](const std::vector<int64_t>& oi) {
    int64_t src = 0;
    for (size_t d = 0; d < oi.size(); ++d) src += (flip[d] ? x.shape[d] - 1 - oi[d] : oi[d]) * xs[d];
    return src;
  });
}

// Starts are clamped into [0, dim - size] as in XLA, so the window always lies inside.
Array dynamicSliceOp(const std::vector<Array>& in, const Type& out) {
  const Array& x = in[0];
  std::vector<int64_t> starts;
  for (size_t d = 0; d < x.shape.size(); ++d)
    starts.push_back(clampedStart(in[1 + d], x.shape[d] - out.shape[d]));
  std::vector<int64_t> xs = stridesOf(x.shape);
  return gather(x, out, [&](const std::vector<int64_t>& oi) {
    int64_t src = 0;
    for (size_t d = 0; d < oi.size(); ++d) src += (starts[d] + oi[d]) * xs[d];
    return src;
  });
}

Array dynamicUpdateSliceOp(const std::vector<Array>& in, const Type& out) {
  const Array& x = in[0];
  const Array& u = in[1];
  Array r = x.clone();
  std::vector<int64_t> starts;
  for (size_t d = 0; d < x.shape.size(); ++d)
    starts.push_back(clampedStart(in[2 + d], x.shape[d] - u.shape[d]));
  std::vector<int64_t> xs = stridesOf(x.shape);
  const size_t es = dtypeSize(x.dtype);
  const char* p = static_cast<const char*>(u.raw());
  char* o = static_cast<char*>(r.raw());
  int64_t flat = 0;
  forEachIndex(u.shape, [&](const std::vector<int64_t>& ui) {
    int64_t dst = 0;
    for (size_t d = 0; d < ui.size(); ++d) dst += (starts[d] + ui[d]) * xs[d];
    std::memcpy(o + dst * es, p + flat++ * es, es);
  });
  return r;
}

}  // namespace scn::interp
