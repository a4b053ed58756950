// Builtins over the diagonals of matrices: tril triu diag diagonal trace.
#include <algorithm>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

void needMatrix(const AVal& x, Span span, const char* name) {
  if (x.type.shape.size() < 2)
    fail("E0271", span, std::string(name) + " needs an array of at least 2 dimensions, got shape " + shapeString(x.type.shape));
}

/// Whether column - row compares with k (op Le: on or below the k-th diagonal; Ge: on or above)
/// for the last two axes of `shape`.
AVal diagonalMask(ArrayOps& ops, const Shape& shape, int64_t k, Op op, Span span, const char* name) {
  Shape m(shape.end() - 2, shape.end());
  AVal offset = ops.binary(Op::Sub, ops.iota(DType::I64, m, 1, span), ops.iota(DType::I64, m, 0, span), span, name);
  return ops.broadcastTo(ops.binary(op, offset, strongScalar(DType::I64, static_cast<double>(k)), span, name), shape, span, name);
}

// tril / triu (x, k=0): x with the elements above (below) the k-th diagonal zeroed.
template <bool lower>
Value triangle(Evaluator& ev, CallArgs& c) {
  const char* name = lower ? "tril" : "triu";
  Args a(ev, c, name, {"x", "k="});
  AVal x = a.array(0);
  needMatrix(x, c.span, name);
  AVal mask = diagonalMask(ev.ops(), x.type.shape, a.integer(1, 0, StaticUse::Other), lower ? Op::Le : Op::Ge, c.span, name);
  AVal zero = strongScalar(x.type.dtype, 0);
  zero.weak = x.weak;
  return arr(ev.ops().select(mask, x, zero, c.span, name));
}

/// The k-th diagonal of x over axes p and q, as a new last axis: the two axes moved to the end
/// and merged, then one strided slice (a diagonal step is one row plus one column).
AVal diagonalOf(Evaluator& ev, const AVal& x, int64_t k, int64_t p, int64_t q, Span span) {
  ArrayOps& ops = ev.ops();
  std::vector<int64_t> perm;
  for (size_t d = 0; d < x.type.shape.size(); ++d)
    if (static_cast<int64_t>(d) != p && static_cast<int64_t>(d) != q) perm.push_back(static_cast<int64_t>(d));
  perm.insert(perm.end(), {p, q});
  AVal moved = ops.transpose(x, perm, span);
  Shape s = moved.type.shape;
  int64_t n = s[s.size() - 2], m = s.back();
  int64_t length = std::max<int64_t>(0, k >= 0 ? std::min(n, m - k) : std::min(n + k, m));
  int64_t start = k >= 0 ? k : -k * m;
  s.pop_back();
  s.back() = n * m;
  AVal flat = ops.reshape(moved, s, span);
  size_t rank = s.size();
  std::vector<int64_t> starts(rank, 0), limits = s, strides(rank, 1);
  starts.back() = length > 0 ? start : 0;
  limits.back() = length > 0 ? start + (length - 1) * (m + 1) + 1 : 0;
  strides.back() = m + 1;
  return ops.slice(flat, starts, limits, strides, span);
}

// diagonal(x, offset=0, axis1=0, axis2=1)
Value diagonal(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "diagonal", {"x", "offset=", "axis1=", "axis2="});
  AVal x = a.array(0);
  needMatrix(x, c.span, "diagonal");
  size_t rank = x.type.shape.size();
  int64_t p = ArrayOps::normAxis(a.integer(2, 0, StaticUse::Axis), rank, a.span(2), "diagonal");
  int64_t q = ArrayOps::normAxis(a.integer(3, 1, StaticUse::Axis), rank, a.span(3), "diagonal");
  if (p == q) fail("E0271", c.span, "diagonal's axis1 and axis2 must differ, both are " + std::to_string(p));
  return arr(diagonalOf(ev, x, a.integer(1, 0, StaticUse::Other), p, q, c.span));
}

// diag(x, k=0): the k-th diagonal of a matrix, or the square matrix with a vector on it.
Value diag(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "diag", {"x", "k="});
  AVal v = a.array(0);
  int64_t k = a.integer(1, 0, StaticUse::Other);
  if (v.type.shape.size() == 2) return arr(diagonalOf(ev, v, k, 0, 1, c.span));
  if (v.type.shape.size() != 1) fail("E0271", c.span, "diag needs a vector or a matrix, got shape " + shapeString(v.type.shape));
  ArrayOps& ops = ev.ops();
  int64_t n = v.type.shape[0] + std::abs(k);
  AVal zero = strongScalar(v.type.dtype, 0);
  zero.weak = v.weak;
  // out[r, c] = v[r] (k >= 0) or v[c] (k < 0) where c - r == k: v padded to n, spread over the other axis.
  AVal padded = k == 0 ? v : ops.concat({v, ops.full({std::abs(k)}, zero, c.span)}, 0, c.span);
  AVal spread = ops.broadcastTo(ops.reshape(padded, k >= 0 ? Shape{n, 1} : Shape{1, n}, c.span), {n, n}, c.span, "diag");
  AVal mask = diagonalMask(ops, {n, n}, k, Op::Eq, c.span, "diag");
  return arr(ops.select(mask, spread, zero, c.span, "diag"));
}

// The sum of x's offset-th diagonal over axes p and q, in dtype t when given.
AVal traceOf(Evaluator& ev, const AVal& x, int64_t offset, int64_t p, int64_t q, std::optional<DType> t, Span span) {
  if (p == q) fail("E0271", span, "trace's axis1 and axis2 must differ, both are " + std::to_string(p));
  AVal d = diagonalOf(ev, x, offset, p, q, span);
  if (t) d = ev.ops().cast(d, *t, span);
  return ev.ops().reduce(Op::ReduceSum, d, std::vector<int64_t>{-1}, span, "trace");
}

// trace(x, offset=0, axis1=0, axis2=1, dtype=None): the sum of a diagonal.
Value trace(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "trace", {"x", "offset=", "axis1=", "axis2=", "dtype="});
  AVal x = a.array(0);
  needMatrix(x, c.span, "trace");
  size_t rank = x.type.shape.size();
  int64_t p = ArrayOps::normAxis(a.integer(2, 0, StaticUse::Axis), rank, a.span(2), "trace");
  int64_t q = ArrayOps::normAxis(a.integer(3, 1, StaticUse::Axis), rank, a.span(3), "trace");
  return arr(traceOf(ev, x, a.integer(1, 0, StaticUse::Other), p, q, a.dtype(4), c.span));
}

// linalg.diagonal(x, offset=0) and linalg.trace(x, offset=0, dtype=None): as jnp.linalg's, over
// the last two axes (a batch of matrices), where jnp.diagonal and jnp.trace take axes 0 and 1.
Value linalgDiagonal(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "linalg.diagonal", {"x", "offset="});
  AVal x = a.array(0);
  needMatrix(x, c.span, "linalg.diagonal");
  int64_t rank = static_cast<int64_t>(x.type.shape.size());
  return arr(diagonalOf(ev, x, a.integer(1, 0, StaticUse::Other), rank - 2, rank - 1, c.span));
}

Value linalgTrace(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "linalg.trace", {"x", "offset=", "dtype="});
  AVal x = a.array(0);
  needMatrix(x, c.span, "linalg.trace");
  int64_t rank = static_cast<int64_t>(x.type.shape.size());
  return arr(traceOf(ev, x, a.integer(1, 0, StaticUse::Other), rank - 2, rank - 1, a.dtype(2), c.span));
}

}  // namespace

BuiltinDefs matrixBuiltins() {
  return {{},
          {
              {"tril(x, k=0)", "x with the elements above the k-th diagonal (of the last two axes) set to zero", triangle<true>},
              {"triu(x, k=0)", "x with the elements below the k-th diagonal (of the last two axes) set to zero", triangle<false>},
              {"diagonal(x, offset=0, axis1=0, axis2=1)", "the offset-th diagonal of x over axis1 and axis2, as its last axis", diagonal},
              {"linalg.diagonal(x, offset=0)", "the offset-th diagonal of x's last two axes, as its last axis", linalgDiagonal},
              {"diag(x, k=0)", "the k-th diagonal of a matrix, or the square matrix with the vector x on its k-th diagonal", diag},
              {"trace(x, offset=0, axis1=0, axis2=1, dtype=None)", "the sum of the offset-th diagonal of x over axis1 and axis2", trace},
              {"linalg.trace(x, offset=0, dtype=None)", "the sum of the offset-th diagonal of x's last two axes", linalgTrace},
          }};
}

}  // namespace scn
