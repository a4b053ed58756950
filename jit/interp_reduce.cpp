// Reference kernels that combine elements: iota, reductions, arg-reductions, cumulative ops and
// dot_general. See Note [Reduction order].
#include <algorithm>
#include <cstring>

#include "jit/backend.hpp"
#include "jit/interp_kernels.hpp"
#include "jit/scalar.hpp"

// Note [Reduction order]
// A reduction combines the elements of each output position in increasing index order along the
// reduced axes (row-major over them), as a pairwise tree: a run of at most kPairwiseLeaf
// elements is folded left to right from the combiner's identity, a longer run is split in
// halves whose results are combined. A float sum of n elements is then off by at most about
// (kPairwiseLeaf + log2(n)) eps * sum |x|, where a left-to-right loop is off by n eps (and
// stops growing at 2^24 for f32 ones); the JITs use trees of their own (Note [Blocked
// reductions] in jit/kernel/lower_reduce.cpp) and agree to within a few ulp. Integer reductions
// wrap (exactly, in any order). A reduction over an empty axis gives the identity (sum 0, prod
// 1, max -inf or the lowest integer, min +inf or the highest, all true, any false).
// Cumulative ops and dot_general accumulate sequentially in increasing index order, in the
// element type, from the first element (cumulative ops) or the identity (dot_general); the JITs
// may reassociate them and are compared with a tolerance.

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

namespace {

constexpr int64_t kPairwiseLeaf = 8;

/// Offsets into a row-major input of the elements of one output position, in reduction order:
/// an odometer over the reduced axes.
class ReducedElements {
 public:
  ReducedElements(const Shape& shape, const std::vector<int64_t>& axes) {
    std::vector<int64_t> strides = stridesOf(shape);
    for (int64_t a : axes) {
      dims_.push_back(shape[a]);
      strides_.push_back(strides[a]);
    }
    idx_.assign(dims_.size(), 0);
  }
  /// Positions the odometer at reduced element r (0 <= r < count) of the output at `base`.
  void seek(int64_t base, int64_t r) {
    offset_ = base;
    for (size_t d = dims_.size(); d-- > 0;) {
      idx_[d] = r % dims_[d];
      r /= dims_[d];
      offset_ += idx_[d] * strides_[d];
    }
  }
  int64_t offset() const { return offset_; }
  void next() {
    for (size_t d = dims_.size(); d-- > 0;) {
      offset_ += strides_[d];
      if (++idx_[d] < dims_[d]) return;
      offset_ -= idx_[d] * strides_[d];
      idx_[d] = 0;
    }
  }

 private:
  std::vector<int64_t> dims_, strides_, idx_;
  int64_t offset_ = 0;
};

/// The pairwise combination of reduced elements first .. first+count-1 (Note [Reduction order]).
template <typename T>
T pairwise(Op comb, const T* p, ReducedElements& el, int64_t base, int64_t first, int64_t count) {
  if (count > kPairwiseLeaf) {
    int64_t half = count / 2;
    T lo = pairwise(comb, p, el, base, first, half);
    return scalar::binary<T>(comb, lo, pairwise(comb, p, el, base, first + half, count - half));
  }
  T acc = scalar::identityOf<T>(comb);
  if (count == 0) return acc;  // an empty reduced axis (no position to seek)
  el.seek(base, first);
  for (int64_t k = 0; k < count; ++k, el.next()) acc = scalar::binary<T>(comb, acc, p[el.offset()]);
  return acc;
}

}  // namespace

Array reduceOp(Op op, const Array& x, const Attrs& attrs, const Type& out) {
  Array r(out.dtype, out.shape);
  Op comb = scalar::combinerOf(op);
  // The input offset of each output position: the kept axes' strides.
  std::vector<int64_t> inStrides = stridesOf(x.shape), kept;
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (std::find(attrs.axes.begin(), attrs.axes.end(), static_cast<int64_t>(d)) == attrs.axes.end())
      kept.push_back(inStrides[d]);
  int64_t count = 1;
  for (int64_t a : attrs.axes) count *= x.shape[a];
  ReducedElements el(x.shape, attrs.axes);
  dispatchWithComplex(x.dtype, [&]<typename T>() {
    T* o = r.data<T>();
    const T* p = x.data<T>();
    int64_t oi = 0;
    forEachIndex(out.shape, [&](const std::vector<int64_t>& idx) {
      int64_t base = 0;
      for (size_t d = 0; d < idx.size(); ++d) base += idx[d] * kept[d];
      o[oi++] = pairwise<T>(comb, p, el, base, 0, count);
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
  dispatchWithComplex(x.dtype, [&]<typename T>() {
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

  dispatchWithComplex(out.dtype, [&]<typename T>() {
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
