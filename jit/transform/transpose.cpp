// Transpose rules of the linear ops that JVP rules emit: given the cotangent of a linear
// equation's output, the cotangents of its linear inputs (Note [Autodiff design] in vjp.cpp).
#include <algorithm>
#include <numeric>
#include <string>

#include "base/diagnostics.hpp"
#include "jit/transform/ad.hpp"

namespace scn::ad {

namespace {

std::vector<int64_t> argsort(const std::vector<int64_t>& v) {
  std::vector<int64_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return v[a] < v[b]; });
  return idx;
}

std::vector<int64_t> remaining(int64_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end()) out.push_back(d);
  return out;
}

std::vector<int64_t> range(int64_t from, size_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

// The cotangent of dot_general's lhs x given ct of the output and the rhs y (JAX's
// _dot_general_transpose_lhs); swapped: x is really the rhs (the output has y's free axes first).
int dotTransposeLhs(Builder& b, int ct, const Type& x, int y, const std::vector<int64_t>& xContract,
                    const std::vector<int64_t>& yContract, const std::vector<int64_t>& xBatch,
                    const std::vector<int64_t>& yBatch, bool swapped) {
  int64_t xRank = static_cast<int64_t>(x.shape.size()), yRank = static_cast<int64_t>(b.type(y).shape.size());
  std::vector<int64_t> xKept = remaining(xRank, xContract, xBatch), yKept = remaining(yRank, yContract, yBatch);
  size_t nb = xBatch.size();
  std::vector<int64_t> ansBatch = range(0, nb);
  std::vector<int64_t> ansY = swapped ? range(static_cast<int64_t>(nb), yKept.size())
                                      : range(static_cast<int64_t>(nb + xKept.size()), yKept.size());
  std::vector<int64_t> order = argsort(yContract), xContractSorted;
  for (int64_t i : order) xContractSorted.push_back(xContract[i]);
  // dot(ct, y) has x's axes in the order (batch, kept, contracted); dot(y, ct) in the order
  // (batch, contracted, kept). When the second is x's own order (the weight of `h @ w`), it
  // needs no transpose (XLA folds the transpose into the product the same way).
  std::vector<int64_t> ctFirst = xBatch, yFirst = xBatch;
  ctFirst.insert(ctFirst.end(), xKept.begin(), xKept.end());
  ctFirst.insert(ctFirst.end(), xContractSorted.begin(), xContractSorted.end());
  yFirst.insert(yFirst.end(), xContractSorted.begin(), xContractSorted.end());
  yFirst.insert(yFirst.end(), xKept.begin(), xKept.end());
  Attrs a;
  if (std::is_sorted(yFirst.begin(), yFirst.end()) && !std::is_sorted(ctFirst.begin(), ctFirst.end())) {
    a.lhsContract = yKept;
    a.rhsContract = ansY;
    a.lhsBatch = yBatch;
    a.rhsBatch = ansBatch;
    return b.emit1(Op::DotGeneral, {y, ct}, std::move(a));
  }
  a.lhsContract = ansY;
  a.rhsContract = yKept;
  a.lhsBatch = ansBatch;
  a.rhsBatch = yBatch;
  int d = b.emit1(Op::DotGeneral, {ct, y}, std::move(a));
  return b.transpose(d, argsort(ctFirst));
}

int broadcastTranspose(Builder& b, const Eqn& e, int ct, const Type& in) {
  const Shape& out = e.attrs.shape;
  std::vector<int64_t> sum;
  for (size_t d = 0; d < out.size(); ++d) {
    auto it = std::find(e.attrs.axes.begin(), e.attrs.axes.end(), static_cast<int64_t>(d));
    if (it == e.attrs.axes.end()) {
      sum.push_back(static_cast<int64_t>(d));
      continue;
    }
    size_t i = static_cast<size_t>(it - e.attrs.axes.begin());
    if (in.shape[i] == 1 && out[d] != 1) sum.push_back(static_cast<int64_t>(d));
  }
  SCN_ASSERT(std::is_sorted(e.attrs.axes.begin(), e.attrs.axes.end()), "broadcast_in_dim keeps the axis order");
  return b.reshape(b.reduceSum(ct, sum), in.shape);
}

int sliceTranspose(Builder& b, const Eqn& e, int ct, const Type& in) {
  bool unit = std::all_of(e.attrs.strides.begin(), e.attrs.strides.end(), [](int64_t s) { return s == 1; });
  if (unit) {
    std::vector<int> args{b.zeros(in), ct};
    for (int64_t s : e.attrs.starts) args.push_back(b.full(Type{DType::I32, {}}, static_cast<double>(s)));
    return b.emit1(Op::DynamicUpdateSlice, std::move(args));
  }
  const Type& ctType = b.type(ct);
  std::vector<int> args{b.zeros(in), ct};
  for (size_t d = 0; d < in.shape.size(); ++d) {
    Attrs io;
    io.dtype = DType::I32;
    io.shape = ctType.shape;
    io.axes = {static_cast<int64_t>(d)};
    int iota = b.emit1(Op::Iota, {}, std::move(io));
    int stride = b.full(b.type(iota), static_cast<double>(e.attrs.strides.empty() ? 1 : e.attrs.strides[d]));
    args.push_back(b.add(b.mul(iota, stride), b.full(b.type(iota), static_cast<double>(e.attrs.starts[d]))));
  }
  return b.emit1(Op::ScatterAdd, std::move(args));
}

// Gather's indices as the elements it reads (wrapped once, then clamped), for a scatter.
int clampedIndex(Builder& b, int idx, int64_t dim) {
  int n = b.full(b.type(idx), static_cast<double>(dim));
  int wrapped = b.select(b.emit1(Op::Lt, {idx, b.like(idx, 0)}), b.add(idx, n), idx);
  return b.emit1(Op::Max, {b.emit1(Op::Min, {wrapped, b.full(b.type(idx), static_cast<double>(dim - 1))}), b.like(idx, 0)});
}

// Where the updates of `.at[idx].set` with repeated indices are the last write to their
// element: the updates scatter their own positions with the same indices, and each reads back
// which position won (the overwritten ones neither reach the result nor get a cotangent).
int lastWrites(Builder& b, const std::vector<int>& idx, const std::vector<int>& clamped, const Type& operand) {
  const Shape batch = b.type(idx[0]).shape;
  Attrs iota;
  iota.dtype = DType::I32;
  iota.shape = {numElements(batch)};
  iota.axes = {0};
  int positions = b.reshape(b.emit1(Op::Iota, {}, std::move(iota)), batch);
  Shape indexed(operand.shape.begin(), operand.shape.begin() + static_cast<int64_t>(idx.size()));
  std::vector<int> scatter{b.full(Type{DType::I32, indexed}, -1), positions};
  scatter.insert(scatter.end(), idx.begin(), idx.end());
  std::vector<int> gather{b.emit1(Op::Scatter, std::move(scatter))};
  gather.insert(gather.end(), clamped.begin(), clamped.end());
  return b.emit1(Op::Eq, {b.emit1(Op::Gather, std::move(gather)), positions});
}

// The gathered cotangent of a scatter's updates, zero where an update was dropped (and, with
// `lastWins`, where a later update to the same element overwrote it).
int gatheredUpdates(Builder& b, int ct, const std::vector<int>& idx, const Type& operand, const Type& updates,
                    bool lastWins) {
  std::vector<int> args{ct};
  int valid = -1;
  for (size_t k = 0; k < idx.size(); ++k) {
    int64_t dim = operand.shape[k];
    int n = b.full(b.type(idx[k]), static_cast<double>(dim));
    int w = b.select(b.emit1(Op::Lt, {idx[k], b.like(idx[k], 0)}), b.add(idx[k], n), idx[k]);
    int ok = b.emit1(Op::And, {b.emit1(Op::Ge, {w, b.like(w, 0)}), b.emit1(Op::Lt, {w, n})});
    valid = valid < 0 ? ok : b.emit1(Op::And, {valid, ok});
    args.push_back(clampedIndex(b, idx[k], dim));
  }
  if (lastWins) valid = b.emit1(Op::And, {valid, lastWrites(b, idx, std::vector<int>(args.begin() + 1, args.end()), operand)});
  int g = b.emit1(Op::Gather, std::move(args));
  int mask = b.broadcast(valid, updates.shape, range(0, b.type(valid).shape.size()));
  return b.select(mask, g, b.zeros(updates));
}

// rfft(x) is fft(x as complex)[..., :n/2+1]: its transpose pads ct with zeros to n, transforms
// it and keeps the real part (Note [Complex derivatives] in jvp_rules.cpp).
int rfftTranspose(Builder& b, int ct, int64_t n) {
  Type t = b.type(ct);
  int64_t m = t.shape.back(), axis = static_cast<int64_t>(t.shape.size()) - 1;
  int padded = ct;
  if (n > m) {
    Type rest = t;
    rest.shape.back() = n - m;
    Attrs a;
    a.axes = {axis};
    padded = b.emit1(Op::Concat, {ct, b.zeros(rest)}, std::move(a));
  }
  return b.un(Op::Real, b.un(Op::Fft, padded));
}

// irfft's transpose: conj(rfft(ct) * w / n), w = 1 for the zero frequency (and the Nyquist one
// of an even n), 2 for the others, which irfft counts twice.
int irfftTranspose(Builder& b, int ct) {
  int64_t n = b.type(ct).shape.back();
  int x = b.un(Op::Rfft, ct);
  Type t = b.type(x);
  int64_t m = t.shape.back();
  Array w(t.dtype, {m});
  for (int64_t k = 0; k < m; ++k) w.setDouble(k, (k == 0 || (n % 2 == 0 && k == m - 1) ? 1.0 : 2.0) / static_cast<double>(n));
  Attrs a;
  a.dtype = t.dtype;
  a.value = std::make_shared<Array>(std::move(w));
  int weights = b.broadcast(b.emit1(Op::Constant, {}, std::move(a)), t.shape, {static_cast<int64_t>(t.shape.size()) - 1});
  return b.un(Op::Conj, b.mul(x, weights));
}

}  // namespace

std::vector<Tan> transposeRule(Builder& b, const Eqn& e, const std::vector<bool>& linear, const std::vector<Tan>& ctOut) {
  std::vector<Tan> r(e.inputs.size());
  int ct = *ctOut.at(0);
  auto in = [&](size_t i) { return b.type(e.inputs[i]); };
  auto lin = [&](size_t i) { return linear[i]; };
  switch (e.op) {
    case Op::Neg: r[0] = b.neg(ct); return r;
    case Op::Add:
      if (lin(0)) r[0] = ct;
      if (lin(1)) r[1] = ct;
      return r;
    case Op::Sub:
      if (lin(0)) r[0] = ct;
      if (lin(1)) r[1] = b.neg(ct);
      return r;
    case Op::Mul:
      SCN_ASSERT(!(lin(0) && lin(1)), "a product of two tangents is not linear");
      if (lin(0)) r[0] = b.mul(ct, e.inputs[1]);
      if (lin(1)) r[1] = b.mul(e.inputs[0], ct);
      return r;
    case Op::Div:
      SCN_ASSERT(!lin(1), "a tangent divisor is not linear");
      r[0] = b.div(ct, e.inputs[1]);
      return r;
    case Op::Select: {
      int z = b.zeros(b.type(ct));
      if (lin(1)) r[1] = b.select(e.inputs[0], ct, z);
      if (lin(2)) r[2] = b.select(e.inputs[0], z, ct);
      return r;
    }
    case Op::Convert: r[0] = b.convert(ct, in(0).dtype); return r;
    case Op::ReduceSum: {
      std::vector<int64_t> kept = remaining(static_cast<int64_t>(in(0).shape.size()), e.attrs.axes, {});
      r[0] = b.broadcast(ct, in(0).shape, kept);
      return r;
    }
    case Op::CumSum: {
      Attrs a = e.attrs;
      a.reverse = !a.reverse;
      r[0] = b.emit1(Op::CumSum, {ct}, std::move(a));
      return r;
    }
    case Op::BroadcastInDim: r[0] = broadcastTranspose(b, e, ct, in(0)); return r;
    case Op::Reshape: r[0] = b.reshape(ct, in(0).shape); return r;
    case Op::Transpose: r[0] = b.transpose(ct, argsort(e.attrs.axes)); return r;
    case Op::Reverse: r[0] = b.emit1(Op::Reverse, {ct}, e.attrs); return r;
    case Op::Slice: r[0] = sliceTranspose(b, e, ct, in(0)); return r;
    case Op::Concat: {
      int64_t axis = e.attrs.axes.at(0), at = 0;
      for (size_t i = 0; i < e.inputs.size(); ++i) {
        const Type& t = in(i);
        if (lin(i)) {
          r[i] = b.sliceAxis(ct, axis, at, at + t.shape[axis]);
        }
        at += t.shape[axis];
      }
      return r;
    }
    case Op::DynamicSlice: {
      std::vector<int> args{b.zeros(in(0)), ct};
      args.insert(args.end(), e.inputs.begin() + 1, e.inputs.end());
      r[0] = b.emit1(Op::DynamicUpdateSlice, std::move(args));
      return r;
    }
    case Op::DynamicUpdateSlice: {
      std::vector<int> starts(e.inputs.begin() + 2, e.inputs.end());
      if (lin(0)) {
        std::vector<int> args{ct, b.zeros(in(1))};
        args.insert(args.end(), starts.begin(), starts.end());
        r[0] = b.emit1(Op::DynamicUpdateSlice, std::move(args));
      }
      if (lin(1)) {
        std::vector<int> args{ct};
        args.insert(args.end(), starts.begin(), starts.end());
        Attrs a;
        a.shape = in(1).shape;
        r[1] = b.emit1(Op::DynamicSlice, std::move(args), std::move(a));
      }
      return r;
    }
    case Op::Gather: {
      std::vector<int> args{b.zeros(in(0)), ct};
      for (size_t k = 1; k < e.inputs.size(); ++k) args.push_back(clampedIndex(b, e.inputs[k], in(0).shape[k - 1]));
      r[0] = b.emit1(Op::ScatterAdd, std::move(args));
      return r;
    }
    case Op::Scatter: case Op::ScatterAdd: {
      std::vector<int> idx(e.inputs.begin() + 2, e.inputs.end());
      if (lin(0)) {
        if (e.op == Op::ScatterAdd) {
          r[0] = ct;
        } else {  // the overwritten elements do not reach the result
          std::vector<int> args{ct, b.zeros(in(1))};
          args.insert(args.end(), idx.begin(), idx.end());
          r[0] = b.emit1(Op::Scatter, std::move(args));
        }
      }
      if (lin(1)) r[1] = gatheredUpdates(b, ct, idx, in(0), in(1), e.op == Op::Scatter);
      return r;
    }
    case Op::DotGeneral: {
      const Attrs& a = e.attrs;
      SCN_ASSERT(!(lin(0) && lin(1)), "a product of two tangents is not linear");
      if (lin(0))
        r[0] = dotTransposeLhs(b, ct, in(0), e.inputs[1], a.lhsContract, a.rhsContract, a.lhsBatch, a.rhsBatch, false);
      if (lin(1))
        r[1] = dotTransposeLhs(b, ct, in(1), e.inputs[0], a.rhsContract, a.lhsContract, a.rhsBatch, a.lhsBatch, true);
      return r;
    }
    // The parts of complex numbers (Note [Complex derivatives] in jvp_rules.cpp).
    case Op::Real: r[0] = b.emit1(Op::Complex, {ct, b.zeros(b.type(ct))}); return r;
    case Op::Imag: r[0] = b.emit1(Op::Complex, {b.zeros(b.type(ct)), b.neg(ct)}); return r;
    case Op::Conj: r[0] = b.un(Op::Conj, ct); return r;
    case Op::TriangularSolve: {  // x = op(a)^-1 rhs, linear in rhs: rhs's cotangent is op(a)^-T ct
      SCN_ASSERT(!lin(0), "a triangular solve is linear in its right-hand side only");
      Attrs at = e.attrs;
      at.transpose = !at.transpose;
      r[1] = b.emit1(Op::TriangularSolve, {e.inputs[0], ct}, std::move(at));
      return r;
    }
    case Op::Complex:
      if (lin(0)) r[0] = b.un(Op::Real, ct);
      if (lin(1)) r[1] = b.neg(b.un(Op::Imag, ct));
      return r;
    case Op::Fft: case Op::Ifft: r[0] = b.emit1(e.op, {ct}, e.attrs); return r;
    case Op::Rfft: r[0] = rfftTranspose(b, ct, in(0).shape.back()); return r;
    case Op::Irfft: r[0] = irfftTranspose(b, ct); return r;
    SCN_AD_NONLINEAR_OPS
    SCN_AD_OPS_WITHOUT_RULES
      break;  // JVP rules emit only the linear ops above on tangents
  }
  internalError(std::string("no transpose rule for ") + opName(e.op) + " (a JVP rule emitted a non-linear op on a tangent)");
}

bool hasTransposeRule(Op op) {
  switch (op) {
    case Op::Neg: case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Select: case Op::Convert:
    case Op::ReduceSum: case Op::CumSum: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose:
    case Op::Reverse: case Op::Slice: case Op::Concat: case Op::DynamicSlice: case Op::DynamicUpdateSlice:
    case Op::Gather: case Op::Scatter: case Op::ScatterAdd: case Op::DotGeneral: case Op::Real: case Op::Imag:
    case Op::Conj: case Op::Complex: case Op::Fft: case Op::Ifft: case Op::Rfft: case Op::Irfft:
    case Op::TriangularSolve:
      return true;
    SCN_AD_NONLINEAR_OPS
    SCN_AD_OPS_WITHOUT_RULES
      return false;
  }
  return false;
}

}  // namespace scn::ad
