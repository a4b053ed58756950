// Reference kernels that combine elements: iota, reductions, arg-reductions, cumulative ops and
// dot_general. See Note [Reduction order].
#include <algorithm>
#include <cstring>

#include "jit/backend.hpp"
#include "jit/interp_kernels.hpp"
#include "jit/scalar.hpp"

// Note [Reduction order]
// Reductions, cumulative ops and dot_general accumulate in the element type (the output dtype),
// sequentially in increasing index order along the reduced axes, starting from the combiner's
// identity (reductions, dot_general) or from the first element (cumulative ops). Float sums are
// therefore those of a plain left-to-right loop; the JITs may reassociate and are compared with
// a tolerance. Integer reductions wrap. A reduction over an empty axis gives the identity
// (sum 0, prod 1, max -inf or the lowest integer, min +inf or the highest, all true, any false).

namespace scn::interp {

std::vector<int64_t> stridesOf(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

namespace {

// A single axis splits a row-major array into outer x dim x inner.
struct AxisSplit {
  int64_t outer = 1, dim = 1, inner = 1;
};

AxisSplit splitAt(const Shape& shape, int64_t axis) {
  AxisSplit s;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < axis) s.outer *= shape[d];
    else if (d == axis) s.dim = shape[d];
    else s.inner *= shape[d];
  }
  return s;
}

}  // namespace

Array iotaOp(const Attrs& attrs, const Type& out) {
  Array r(out.dtype, out.shape);
  AxisSplit s = splitAt(out.shape, attrs.axes[0]);
  dispatchDType(out.dtype, [&]<typename T>() {
    T* o = r.data<T>();
    for (int64_t i = 0, n = r.size(); i < n; ++i)
      o[i] = scalar::convert<T, int64_t>((i / s.inner) % s.dim);
  });
  return r;
}

Array reduceOp(Op op, const Array& x, const Attrs& attrs, const Type& out) {
  Array r(out.dtype, out.shape);
  Op comb = scalar::combinerOf(op);
  // Output stride of each input axis: 0 for reduced axes.
  std::vector<int64_t> outStrides = stridesOf(out.shape), map(x.shape.size(), 0);
  for (size_t d = 0, k = 0; d < x.shape.size(); ++d)
    if (std::find(attrs.axes.begin(), attrs.axes.end(), static_cast<int64_t>(d)) == attrs.axes.end())
      map[d] = outStrides[k++];
  dispatchDType(x.dtype, [&]<typename T>() {
    T* o = r.data<T>();
    const T* p = x.data<T>();
    for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = scalar::identityOf<T>(comb);
    int64_t flat = 0;
    forEachIndex(x.shape, [&](const std::vector<int64_t>& idx) {
      int64_t oi = 0;
      for (size_t d = 0; d < idx.size(); ++d) oi += idx[d] * map[d];
      o[oi] = scalar::binary<T>(comb, o[oi], p[flat++]);
    });
  });
  return r;
}

Array argReduceOp(Op op, const Array& x, const Attrs& attrs, const Type& out) {
  Array r(out.dtype, out.shape);
  AxisSplit s = splitAt(x.shape, attrs.axes[0]);
  bool isMax = op == Op::ArgMax;
  int32_t* o = r.data<int32_t>();
  dispatchDType(x.dtype, [&]<typename T>() {
    const T* p = x.data<T>();
    for (int64_t a = 0; a < s.outer; ++a)
      for (int64_t b = 0; b < s.inner; ++b) {
        // The first extreme wins; a NaN counts as the extreme (as NumPy and JAX).
        int64_t best = 0;
        T bv = p[a * s.dim * s.inner + b];
        for (int64_t k = 1; k < s.dim && !scalar::isNan(bv); ++k) {
          T v = p[(a * s.dim + k) * s.inner + b];
          if (scalar::isNan(v) || (isMax ? v > bv : v < bv)) {
            best = k;
            bv = v;
          }
        }
        o[a * s.inner + b] = static_cast<int32_t>(best);
      }
  });
  return r;
}

namespace {

/// Calls step(at, before) for every element along the split axis of every row, in scan order
/// (reverse: from the end of the axis); `before` is the flat index of the element scanned just
/// before in the same row, -1 for the row's first.
template <typename F>
void inScanOrder(const AxisSplit& s, bool reverse, F&& step) {
  for (int64_t a = 0; a < s.outer; ++a)
    for (int64_t b = 0; b < s.inner; ++b)
      for (int64_t i = 0; i < s.dim; ++i) {
        int64_t k = reverse ? s.dim - 1 - i : i;
        int64_t prev = reverse ? k + 1 : k - 1;
        step((a * s.dim + k) * s.inner + b, i == 0 ? -1 : (a * s.dim + prev) * s.inner + b);
      }
}

}  // namespace

Array cumulativeOp(Op op, const Array& x, const Attrs& attrs, const Type& out) {
  Array r(out.dtype, out.shape);
  Op comb = scalar::combinerOf(op);
  dispatchDType(x.dtype, [&]<typename T>() {
    const T* p = x.data<T>();
    T* o = r.data<T>();
    inScanOrder(splitAt(x.shape, attrs.axes[0]), attrs.reverse, [&](int64_t at, int64_t before) {
      o[at] = before < 0 ? p[at] : scalar::binary<T>(comb, o[before], p[at]);
    });
  });
  return r;
}

std::vector<Array> assocScanOp(const Func& combiner, const std::vector<Array>& xs, const Attrs& attrs) {
  // The definition (Note [Associative scans]): a left fold along the axis, one call of the
  // scalar combiner per position, on the k operands' elements together.
  std::vector<Array> rs;
  for (const Array& x : xs) rs.emplace_back(x.dtype, x.shape);
  auto element = [](const Array& a, int64_t i) {
    Array e(a.dtype, {});
    size_t width = dtypeSize(a.dtype);
    std::memcpy(e.raw(), static_cast<const char*>(a.raw()) + i * width, width);
    return e;
  };
  inScanOrder(splitAt(xs[0].shape, attrs.axes[0]), attrs.reverse, [&](int64_t at, int64_t before) {
    std::vector<Array> args;
    if (before >= 0)
      for (const Array& r : rs) args.push_back(element(r, before));
    for (const Array& x : xs) args.push_back(element(x, at));
    std::vector<Array> v = before < 0 ? args : interpret(combiner, args);
    for (size_t i = 0; i < rs.size(); ++i) {
      size_t width = dtypeSize(rs[i].dtype);
      std::memcpy(static_cast<char*>(rs[i].raw()) + at * width, v[i].raw(), width);
    }
  });
  return rs;
}

Array dotGeneralOp(const Array& lhs, const Array& rhs, const Attrs& attrs, const Type& out) {
  Array r(out.dtype, out.shape);
  const size_t nb = attrs.lhsBatch.size(), nc = attrs.lhsContract.size();
  auto freeAxes = [](size_t rank, const std::vector<int64_t>& batch, const std::vector<int64_t>& contract) {
    std::vector<int64_t> v;
    for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contract.begin(), contract.end(), d) == contract.end())
        v.push_back(d);
    return v;
  };
  std::vector<int64_t> lFree = freeAxes(lhs.rank(), attrs.lhsBatch, attrs.lhsContract);
  std::vector<int64_t> rFree = freeAxes(rhs.rank(), attrs.rhsBatch, attrs.rhsContract);
  Shape contractShape;
  for (int64_t d : attrs.lhsContract) contractShape.push_back(lhs.shape[d]);
  std::vector<int64_t> ls = stridesOf(lhs.shape), rs = stridesOf(rhs.shape);

  dispatchDType(out.dtype, [&]<typename T>() {
    const T* pl = lhs.data<T>();
    const T* pr = rhs.data<T>();
    T* o = r.data<T>();
    int64_t flat = 0;
    // Output index = (batch..., lhs free..., rhs free...).
    forEachIndex(out.shape, [&](const std::vector<int64_t>& oi) {
      int64_t lBase = 0, rBase = 0;
      for (size_t i = 0; i < nb; ++i) {
        lBase += oi[i] * ls[attrs.lhsBatch[i]];
        rBase += oi[i] * rs[attrs.rhsBatch[i]];
      }
      for (size_t i = 0; i < lFree.size(); ++i) lBase += oi[nb + i] * ls[lFree[i]];
      for (size_t i = 0; i < rFree.size(); ++i) rBase += oi[nb + lFree.size() + i] * rs[rFree[i]];
      T acc = scalar::identityOf<T>(Op::Add);
      forEachIndex(contractShape, [&](const std::vector<int64_t>& ci) {
        int64_t li = lBase, ri = rBase;
        for (size_t j = 0; j < nc; ++j) {
          li += ci[j] * ls[attrs.lhsContract[j]];
          ri += ci[j] * rs[attrs.rhsContract[j]];
        }
        acc = scalar::binary<T>(Op::Add, acc, scalar::binary<T>(Op::Mul, pl[li], pr[ri]));
      });
      o[flat++] = acc;
    });
  });
  return r;
}

}  // namespace scn::interp
