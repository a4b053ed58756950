// Reference kernels of gather and scatter: reading and writing an array at computed positions.
#include <cstring>
#include <algorithm>
#include <limits>
#include <optional>

#include "jit/interp_kernels.hpp"
#include "jit/scalar.hpp"

namespace scn::interp {

// Note [Gather and scatter]
// Two IR ops move elements at computed positions, with JAX's semantics:
//   gather(x, i_0..i_{k-1})        out[b, w] = x[i_0[b], ..., i_{k-1}[b], w]
//   scatter(x, u, i_0..i_{k-1})    out = x; for b in order: out[i_0[b], ..., w] op= u[b, w]
// The k index arrays have one integer shape B and index the first k axes of x; the window w
// runs over x's other axes. A negative index wraps once (i + n, as NumPy and JAX); after that a
// gather clamps it into [0, n-1] (JAX's default for reads) and a scatter drops an update whose
// index is out of range (JAX's default for writes). Scatter's combiner is the Combiner column
// (none: replace); the updates are applied in row-major order of b, so duplicate indices
// accumulate (add, mul, min, max) and the last write wins for a plain scatter. The other modes of
// the surface are elementwise ops around these two (lang/gather_index.cpp): `fill` selects the
// fill value where an index is out of range; `clip` clamps the indices before a scatter.
//
// The tracer puts the indexed axes first: an indexing expression becomes one index array per
// axis of x up to the last one an advanced index or a slice touches (slices become iotas, which
// fuse), so the one gather form serves every NumPy index (lang/gather_index.cpp). The lowering
// (jit/kernel/lower_gather.cpp) makes a gather a fused load at a computed index, and a scatter a
// copy of x into its output (none when x's buffer is dead: the update is in place) followed by a
// kernel that is parallel over the window and sequential over b.

namespace {

/// Element i of an index array as an int64 (unsigned values above INT64_MAX saturate).
int64_t indexAt(const Array& a, int64_t i) {
  if (isUnsignedInt(a.dtype))
    return static_cast<int64_t>(std::min<uint64_t>(a.getUInt(i), std::numeric_limits<int64_t>::max()));
  return a.getInt(i);
}

/// Index v into an axis of n elements, wrapped once when negative.
int64_t wrapped(int64_t v, int64_t n) { return v < 0 ? v + n : v; }

}  // namespace

Array gatherOp(const std::vector<Array>& in, const Type& out) {
  const Array& x = in[0];
  const size_t k = in.size() - 1;
  const int64_t points = in[1].size();
  const int64_t window = points == 0 ? 0 : numElements(out.shape) / points;
  std::vector<int64_t> xs = stridesOf(x.shape);
  const size_t es = dtypeSize(x.dtype);
  Array r(out.dtype, out.shape);
  const char* p = static_cast<const char*>(x.raw());
  char* o = static_cast<char*>(r.raw());
  for (int64_t b = 0; b < points; ++b) {
    int64_t src = 0;
    for (size_t d = 0; d < k; ++d)
      src += std::clamp<int64_t>(wrapped(indexAt(in[1 + d], b), x.shape[d]), 0, x.shape[d] - 1) * xs[d];
    std::memcpy(o + b * window * es, p + src * es, window * es);
  }
  return r;
}

Array scatterOp(Op op, const std::vector<Array>& in, const Type& out) {
  const Array& x = in[0];
  const Array& u = in[1];
  const size_t k = in.size() - 2;
  const int64_t points = in[2].size();
  const int64_t window = points == 0 ? 0 : u.size() / points;
  std::vector<int64_t> xs = stridesOf(x.shape);
  Array r = x.clone();
  std::optional<Op> comb = opInfo(op).combiner;
  dispatchWithComplex(out.dtype, [&]<typename T>() {
    T* o = r.data<T>();
    const T* pu = u.data<T>();
    for (int64_t b = 0; b < points; ++b) {
      int64_t dst = 0;
      bool inRange = true;
      for (size_t d = 0; d < k; ++d) {
        int64_t i = wrapped(indexAt(in[2 + d], b), x.shape[d]);
        inRange = inRange && i >= 0 && i < x.shape[d];
        dst += i * xs[d];
      }
      if (!inRange) continue;
      for (int64_t w = 0; w < window; ++w) {
        T v = pu[b * window + w];
        o[dst + w] = comb ? scalar::binary<T>(*comb, o[dst + w], v) : v;
      }
    }
  });
  return r;
}

}  // namespace scn::interp
