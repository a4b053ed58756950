// Builtins of jax.numpy.linalg: cholesky triangular_solve solve inv det slogdet qr eigh svd, on
// the Linalg ops (Note [Linear algebra ops] in jit/linalg.hpp); solve, inv, det and slogdet are
// built on lu.
#include <algorithm>
#include <cmath>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

bool given(const Args& a, size_t i) { return a.has(i) && !a.get(i).isNone(); }

/// x as a float or complex stack of matrices: integers become f32 (i64/u64 f64) as in jnp, and
/// x needs rank >= 2 (square when `square`), else E0282.
AVal matrixOperand(Evaluator& ev, AVal x, Span span, const char* fn, bool square = true) {
  x = defaultize(x, span);
  x.weak = false;
  if (!isFloat(x.type.dtype) && !isComplex(x.type.dtype)) {
    bool wide = x.type.dtype == DType::I64 || x.type.dtype == DType::U64;
    x = ev.ops().convert(x, wide ? DType::F64 : DType::F32, span);
  }
  const Shape& s = x.type.shape;
  if (s.size() < 2)
    fail("E0282", span, std::string(fn) + " needs a matrix (an array of rank 2 or more), got shape " + shapeString(s),
         "the last two axes are the matrix; leading axes are a batch");
  if (square && s[s.size() - 2] != s.back())
    fail("E0282", span, std::string(fn) + " needs square matrices, got shape " + shapeString(s),
         "the last two axes must have one size");
  return x;
}

std::vector<AVal> apply(Evaluator& ev, Op op, const std::vector<AVal>& in, const Attrs& at, Span span) {
  return ev.ops().tracer().apply(op, in, at, span);
}

Value tuple(const std::vector<AVal>& xs) {
  std::vector<Value> vs;
  for (const AVal& x : xs) vs.push_back(arr(x));
  return Value::ofTuple(std::move(vs));
}

/// a [..., n, n] and b [..., n, k] with their leading axes broadcast together and one dtype;
/// b a vector when `vector` (then [..., n] with the same leading-axis rule). E0283 on a size
/// mismatch.
std::pair<AVal, AVal> solveOperands(Evaluator& ev, AVal a, AVal b, bool vector, Span span, const char* fn) {
  ArrayOps& ops = ev.ops();
  int64_t n = a.type.shape.back();
  if (vector) b = ops.reshape(b, {b.type.shape[0], 1}, span);
  const Shape &sa = a.type.shape, &sb = b.type.shape;
  if (sb.size() < 2 || sb[sb.size() - 2] != n)
    fail("E0283", span, std::string(fn) + " got a of shape " + shapeString(sa) + " and b of shape " +
                            shapeString(vector ? Shape{sb[0]} : sb),
         "b needs " + std::to_string(n) + " rows (b's shape is (..., " + std::to_string(n) + ") for a vector or (..., " +
             std::to_string(n) + ", k))");
  AVal pa = AVal::of(Array(DType::Bool, Shape(sa.begin(), sa.end() - 2)));
  AVal pb = AVal::of(Array(DType::Bool, Shape(sb.begin(), sb.end() - 2)));
  Shape batch = ops.broadcastShapes({pa, pb}, span, fn);
  Shape ta = batch, tb = batch;
  ta.insert(ta.end(), {n, n});
  tb.insert(tb.end(), {n, sb.back()});
  DType t = promoteTypes(a, b);
  a = ops.convert(ops.broadcastTo(a, ta, span, fn), t, span);
  b = ops.convert(ops.broadcastTo(b, tb, span, fn), t, span);
  return {a, b};
}

/// x [..., n, 1] as [..., n]: the solution for a vector b (batched when a is).
AVal dropLastAxis(Evaluator& ev, const AVal& x, Span span) {
  return ev.ops().reshape(x, Shape(x.type.shape.begin(), x.type.shape.end() - 1), span);
}

AVal triangularSolve(Evaluator& ev, const AVal& a, const AVal& b, bool lower, bool transpose, bool unit, Span span) {
  Attrs at;
  at.lower = lower;
  at.transpose = transpose;
  at.unitDiagonal = unit;
  return apply(ev, Op::TriangularSolve, {a, b}, at, span).at(0);
}

/// lu(a): (lu, pivots, perm) of Note [Linear algebra ops].
std::vector<AVal> luOf(Evaluator& ev, const AVal& a, Span span) { return apply(ev, Op::Lu, {a}, {}, span); }

/// The diagonal of the last two axes of x, as its last axis (x * eye summed over the rows).
AVal diagonalOf(Evaluator& ev, const AVal& x, Span span) {
  ArrayOps& ops = ev.ops();
  int64_t n = x.type.shape.back();
  AVal eye = ops.binary(Op::Eq, ops.iota(DType::I32, {n, n}, 0, span), ops.iota(DType::I32, {n, n}, 1, span), span, "diag");
  AVal zero = strongScalar(x.type.dtype, 0);
  AVal masked = ops.select(ops.broadcastTo(eye, x.type.shape, span), x, zero, span);
  return ops.reduce(Op::ReduceSum, masked, std::vector<int64_t>{-2}, span);
}

/// (-1) ** (the number of row swaps of the pivots), in dtype t, over the leading axes.
AVal pivotSign(Evaluator& ev, const AVal& pivots, DType t, Span span) {
  ArrayOps& ops = ev.ops();
  int64_t n = pivots.type.shape.back();
  AVal swapped = ops.binary(Op::Ne, pivots, ops.broadcastTo(ops.iota(DType::I32, {n}, 0, span), pivots.type.shape, span), span, "!=");
  AVal swaps = ops.reduce(Op::ReduceSum, ops.convert(swapped, DType::I32, span), std::vector<int64_t>{-1}, span);
  AVal odd = ops.binary(Op::Eq, ops.binary(Op::Rem, swaps, weakInt(2), span, "%"), weakInt(1), span, "==");
  return ops.select(odd, strongScalar(t, -1), strongScalar(t, 1), span);
}

/// x = a^-1 b by lu: P a = L U, so x = U^-1 L^-1 (P b); P b through a one-hot matrix of perm.
AVal luSolve(Evaluator& ev, const AVal& a, const AVal& b, Span span) {
  ArrayOps& ops = ev.ops();
  std::vector<AVal> f = luOf(ev, a, span);
  int64_t n = a.type.shape.back();
  Shape ps = f[2].type.shape;
  ps.push_back(1);
  Shape full = a.type.shape;
  AVal perm = ops.broadcastTo(ops.reshape(f[2], ps, span), full, span);
  AVal cols = ops.broadcastTo(ops.iota(DType::I32, {n, n}, 1, span), full, span);
  AVal p = ops.convert(ops.binary(Op::Eq, perm, cols, span, "=="), a.type.dtype, span);
  AVal pb = ops.matmul(p, b, span);
  AVal y = triangularSolve(ev, f[0], pb, true, false, true, span);
  return triangularSolve(ev, f[0], y, false, false, false, span);
}

// cholesky(a): the lower Cholesky factor of each matrix; NaNs where not positive definite.
Value cholesky(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "cholesky", {"a"});
  return arr(apply(ev, Op::Cholesky, {matrixOperand(ev, a.array(0), a.span(0), "cholesky")}, {}, c.span).at(0));
}

// triangular_solve(a, b, lower=false, trans=0, unit_diagonal=false): jax.scipy.linalg.solve_triangular.
Value triangularSolveBuiltin(Evaluator& ev, CallArgs& c) {
  const char* fn = "triangular_solve";
  Args a(ev, c, fn, {"a", "b", "lower=", "trans=", "unit_diagonal="});
  AVal m = matrixOperand(ev, a.array(0), a.span(0), fn);
  AVal b = defaultize(a.array(1), a.span(1));
  bool transpose = false;
  if (given(a, 3)) {
    const Value& t = a.get(3);
    std::string s = t.kind == ValueKind::String ? t.str : std::to_string(a.integer(3, 0));
    if (s == "1" || s == "T") {
      transpose = true;
    } else if (s == "2" || s == "C") {  // a^H x = b: conj(a) transposed (the op never conjugates)
      transpose = true;
      if (isComplex(m.type.dtype)) m = ev.ops().complexPart(Op::Conj, m, a.span(0));
    } else if (s != "0" && s != "N") {
      fail("E0284", a.span(3), "triangular_solve got trans=" + (t.kind == ValueKind::String ? "\"" + s + "\"" : s),
           "trans is 0 or \"N\" (a x = b), 1 or \"T\" (a^T x = b), or 2 or \"C\" (a^H x = b)");
    }
  }
  bool vector = b.type.shape.size() == 1;
  auto [aa, bb] = solveOperands(ev, m, b, vector, c.span, fn);
  AVal x = triangularSolve(ev, aa, bb, a.boolean(2, false), transpose, a.boolean(4, false), c.span);
  return arr(vector ? dropLastAxis(ev, x, c.span) : x);
}

// solve(a, b): x with a x = b; b is a vector when it has one axis, else a stack of matrices.
Value solve(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "solve", {"a", "b"});
  AVal m = matrixOperand(ev, a.array(0), a.span(0), "solve");
  AVal b = defaultize(a.array(1), a.span(1));
  if (b.type.shape.empty())
    fail("E0283", a.span(1), "solve needs b of rank 1 or more, got a scalar", "b is a vector (n,) or matrices (..., n, k)");
  bool vector = b.type.shape.size() == 1;
  auto [aa, bb] = solveOperands(ev, m, b, vector, c.span, "solve");
  AVal x = luSolve(ev, aa, bb, c.span);
  return arr(vector ? dropLastAxis(ev, x, c.span) : x);
}

// inv(a): solve(a, I).
Value inv(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "inv", {"a"});
  AVal m = matrixOperand(ev, a.array(0), a.span(0), "inv");
  ArrayOps& ops = ev.ops();
  int64_t n = m.type.shape.back();
  AVal eye = ops.convert(ops.binary(Op::Eq, ops.iota(DType::I32, {n, n}, 0, c.span), ops.iota(DType::I32, {n, n}, 1, c.span), c.span, "=="),
                         m.type.dtype, c.span);
  return arr(luSolve(ev, m, ops.broadcastTo(eye, m.type.shape, c.span), c.span));
}

// det(a): the product of U's diagonal, negated for an odd number of row swaps.
Value det(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "det", {"a"});
  AVal m = matrixOperand(ev, a.array(0), a.span(0), "det");
  std::vector<AVal> f = luOf(ev, m, c.span);
  AVal prod = ev.ops().reduce(Op::ReduceProd, diagonalOf(ev, f[0], c.span), std::vector<int64_t>{-1}, c.span);
  return arr(ev.ops().binary(Op::Mul, prod, pivotSign(ev, f[1], m.type.dtype, c.span), c.span, "*"));
}

// slogdet(a): (sign, log|det|); a singular matrix gives (0, -inf), as JAX. Of a complex a the sign
// is complex (det / |det|) and log|det| real, as JAX's.
Value slogdet(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "slogdet", {"a"});
  AVal m = matrixOperand(ev, a.array(0), a.span(0), "slogdet");
  ArrayOps& ops = ev.ops();
  std::vector<AVal> f = luOf(ev, m, c.span);
  AVal d = diagonalOf(ev, f[0], c.span);
  AVal sign = ops.reduce(Op::ReduceProd, ops.unary(Op::Sign, d, c.span), std::vector<int64_t>{-1}, c.span);
  sign = ops.binary(Op::Mul, sign, pivotSign(ev, f[1], m.type.dtype, c.span), c.span, "*");
  AVal logdet = ops.reduce(Op::ReduceSum, ops.unary(Op::Log, ops.unary(Op::Abs, d, c.span), c.span), std::vector<int64_t>{-1}, c.span);
  // A zero pivot: sign 0 (not -0.0 from an odd permutation), as JAX.
  AVal singular = ops.binary(Op::Eq, logdet, strongScalar(logdet.type.dtype, -INFINITY), c.span, "==");
  sign = ops.select(singular, strongScalar(m.type.dtype, 0), sign, c.span);
  return tuple({sign, logdet});
}

// qr(a, mode="reduced"): (q, r); mode "complete" gives the square q, "r" only r.
Value qr(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "qr", {"a", "mode="});
  AVal m = matrixOperand(ev, a.array(0), a.span(0), "qr", false);
  std::string mode = "reduced";
  if (given(a, 1)) {
    if (a.get(1).kind != ValueKind::String) fail("E0284", a.span(1), "qr's mode must be a string, got " + describe(a.get(1)),
                                                   "mode is \"reduced\", \"complete\" or \"r\"");
    mode = a.get(1).str;
  }
  if (mode != "reduced" && mode != "complete" && mode != "r")
    fail("E0284", a.span(1), "qr got mode=\"" + mode + "\"", "mode is \"reduced\", \"complete\" or \"r\"");
  Attrs at;
  at.fullMatrices = mode == "complete";
  std::vector<AVal> qr = apply(ev, Op::Qr, {m}, at, c.span);
  if (mode == "r") return arr(qr[1]);
  return tuple(qr);
}

// eigh(a): (eigenvalues ascending, eigenvectors as columns) of the symmetrised a.
Value eigh(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "eigh", {"a"});
  return tuple(apply(ev, Op::Eigh, {matrixOperand(ev, a.array(0), a.span(0), "eigh")}, {}, c.span));
}

// svd(a, full_matrices=true, compute_uv=true): (u, s, vh), or s.
Value svd(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "svd", {"a", "full_matrices=", "compute_uv="});
  AVal m = matrixOperand(ev, a.array(0), a.span(0), "svd", false);
  Attrs at;
  at.fullMatrices = a.boolean(1, true) && a.boolean(2, true);
  std::vector<AVal> usv = apply(ev, Op::Svd, {m}, at, c.span);
  if (!a.boolean(2, true)) return arr(usv[1]);
  return tuple(usv);
}

/// (u, s, vh) of the SVD with full_matrices=false: u [.., m, k], s [.., k], vh [.., k, n].
std::vector<AVal> reducedSvd(Evaluator& ev, const AVal& m, Span span) {
  Attrs at;
  at.fullMatrices = false;
  return apply(ev, Op::Svd, {m}, at, span);
}

// The machine epsilon of the real dtype t (f32's for bf16 and f16, which linalg widens).
double epsilonOf(DType t) { return t == DType::F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07; }

/// x with its last two axes swapped.
AVal swapLastAxes(Evaluator& ev, const AVal& x, Span span) {
  std::vector<int64_t> perm(x.type.shape.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return ev.ops().transpose(x, perm, span);
}

/// The largest singular value of each matrix, kept as a trailing axis of 1 (s is descending).
AVal largest(Evaluator& ev, const AVal& s, Span span) {
  Shape kept = s.type.shape;
  kept.back() = 1;
  return ev.ops().reshape(ev.ops().reduce(Op::ReduceMax, s, std::vector<int64_t>{-1}, span), kept, span);
}

// eigvalsh(a): the eigenvalues of the Hermitian (symmetric) part of a, ascending.
Value eigvalsh(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "eigvalsh", {"a"});
  return arr(apply(ev, Op::Eigh, {matrixOperand(ev, a.array(0), a.span(0), "eigvalsh")}, {}, c.span).at(0));
}

// pinv(a, rtol=None): jnp.linalg.pinv: from the SVD of conj(a), singular values at or below
// rtol * the largest (default 10 * max(m, n) * eps) taken as zero.
Value pinv(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "pinv", {"a", "rtol="});
  ArrayOps& ops = ev.ops();
  AVal m = matrixOperand(ev, a.array(0), a.span(0), "pinv", false);
  const Shape& shape = m.type.shape;
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  Shape outShape = shape;
  std::swap(outShape[shape.size() - 1], outShape[shape.size() - 2]);
  if (rows == 0 || cols == 0) return arr(ops.broadcastTo(strongScalar(m.type.dtype, 0), outShape, c.span));
  if (isComplex(m.type.dtype)) m = ops.complexPart(Op::Conj, m, c.span);
  std::vector<AVal> usv = reducedSvd(ev, m, c.span);
  DType real = usv[1].type.dtype;
  AVal rtol = given(a, 1) ? ops.convert(a.array(1), real, a.span(1))
                          : strongScalar(real, 10.0 * static_cast<double>(std::max(rows, cols)) * epsilonOf(real));
  if (!rtol.type.shape.empty()) rtol = ops.expandDims(rtol, -1, c.span);  // one per matrix
  AVal cutoff = ops.binary(Op::Mul, rtol, largest(ev, usv[1], c.span), c.span, "*");
  AVal s = ops.select(ops.binary(Op::Gt, usv[1], cutoff, c.span, ">"), usv[1], strongScalar(real, INFINITY), c.span);
  s = ops.convert(s, usv[0].type.dtype, c.span);
  AVal scaled = ops.binary(Op::Div, swapLastAxes(ev, usv[0], c.span), ops.expandDims(s, -1, c.span), c.span, "/");
  return arr(ops.matmul(swapLastAxes(ev, usv[2], c.span), scaled, c.span));
}

// matrix_rank(M, rtol=None): jnp.linalg.matrix_rank: the singular values above a threshold,
// by default max(s) * max(m, n) * eps; a given rtol is the threshold itself, as in JAX. A
// vector (or scalar) has rank 1 when any element is nonzero.
Value matrixRank(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "matrix_rank", {"M", "rtol="});
  ArrayOps& ops = ev.ops();
  AVal x = defaultize(a.array(0), a.span(0));
  if (x.type.shape.size() < 2) {
    AVal any = ops.reduce(Op::ReduceOr, ops.binary(Op::Ne, x, strongScalar(x.type.dtype, 0), c.span, "!="), std::nullopt, c.span);
    return arr(ops.convert(any, DType::I32, c.span));
  }
  AVal s = singularValues(ev, x, c.span);
  DType real = s.type.dtype;
  const Shape& shape = x.type.shape;
  double size = static_cast<double>(std::max(shape[shape.size() - 2], shape.back()));
  AVal threshold = given(a, 1) ? ops.convert(a.array(1), real, a.span(1))
                               : ops.binary(Op::Mul, largest(ev, s, c.span), strongScalar(real, size * epsilonOf(real)), c.span, "*");
  if (given(a, 1) && !threshold.type.shape.empty()) threshold = ops.expandDims(threshold, -1, c.span);
  AVal above = ops.convert(ops.binary(Op::Gt, s, threshold, c.span, ">"), DType::I32, c.span);
  return arr(ops.reduce(Op::ReduceSum, above, std::vector<int64_t>{-1}, c.span));
}

/// x^H: the last two axes swapped, conjugated when complex.
AVal adjoint(Evaluator& ev, const AVal& x, Span span) {
  AVal t = swapLastAxes(ev, x, span);
  return isComplex(t.type.dtype) ? ev.ops().complexPart(Op::Conj, t, span) : t;
}

// lstsq(a, b, rcond=None, numpy_resid=false): jnp.linalg.lstsq: (x, resid, rank, s) for one
// matrix a [m, n] and b [m] or [m, k], from the reduced SVD: singular values below rcond times
// the largest (default eps * max(m, n)) are dropped; resid is |b - a x|^2 per column, always
// (JAX's default; numpy_resid's empty residuals depend on the rank, a value: refused).
Value lstsq(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "lstsq", {"a", "b", "rcond=", "numpy_resid="});
  ArrayOps& ops = ev.ops();
  if (a.boolean(3, false))
    fail("E0284", a.span(3), "lstsq(numpy_resid=true) is not supported: NumPy's empty residuals depend on the rank",
         "leave numpy_resid false (JAX's default): resid is then |b - a x|^2 for every column");
  AVal m = matrixOperand(ev, a.array(0), a.span(0), "lstsq", false);
  AVal b = defaultize(a.array(1), a.span(1));
  if (m.type.shape.size() != 2)
    fail("E0282", a.span(0), "lstsq needs one matrix (rank 2), got shape " + shapeString(m.type.shape),
         "lstsq is not batched (as in JAX); use vmap(lstsq) over a stack");
  int64_t rows = m.type.shape[0], cols = m.type.shape[1];
  bool vector = b.type.shape.size() == 1;
  if (b.type.shape.empty() || b.type.shape.size() > 2 || b.type.shape[0] != rows)
    fail("E0283", a.span(1), "lstsq got a of shape " + shapeString(m.type.shape) + " and b of shape " + shapeString(b.type.shape),
         "b needs " + std::to_string(rows) + " rows: (" + std::to_string(rows) + ",) or (" + std::to_string(rows) + ", k)");
  DType t = promoteTypes(m, b);
  if (!isFloat(t) && !isComplex(t)) t = DType::F32;
  m = ops.convert(m, t, c.span);
  b = ops.convert(vector ? ops.reshape(b, {rows, 1}, c.span) : b, t, c.span);
  DType real = isComplex(t) ? componentType(t) : t;
  int64_t k = b.type.shape[1];
  AVal x, rank, s;
  if (rows == 0 || cols == 0) {
    x = ops.broadcastTo(strongScalar(t, 0), {cols, k}, c.span);
    rank = strongScalar(DType::I32, 0);
    s = ops.broadcastTo(strongScalar(real, 0), {0}, c.span);
  } else {
    std::vector<AVal> usv = reducedSvd(ev, m, c.span);
    s = usv[1];
    AVal eps = strongScalar(real, epsilonOf(real));
    AVal rcond = strongScalar(real, epsilonOf(real) * static_cast<double>(std::max(rows, cols)));
    if (given(a, 2)) {  // a negative rcond means eps, as in JAX
      AVal asked = ops.convert(a.array(2), real, a.span(2));
      rcond = ops.select(ops.binary(Op::Lt, asked, strongScalar(real, 0), c.span, "<"), eps, asked, c.span);
    }
    AVal zero = strongScalar(real, 0);
    AVal mask = ops.binary(Op::And, ops.binary(Op::Gt, s, zero, c.span, ">"),
                           ops.binary(Op::Ge, s, ops.binary(Op::Mul, rcond, largest(ev, s, c.span), c.span, "*"), c.span, ">="),
                           c.span, "&");
    rank = ops.reduce(Op::ReduceSum, ops.convert(mask, DType::I32, c.span), std::nullopt, c.span);
    AVal inverse = ops.select(mask, ops.binary(Op::Div, strongScalar(real, 1), ops.select(mask, s, strongScalar(real, 1), c.span), c.span, "/"),
                              zero, c.span);
    AVal uTb = ops.matmul(adjoint(ev, usv[0], c.span), b, c.span);
    AVal scaled = ops.binary(Op::Mul, ops.convert(ops.expandDims(inverse, -1, c.span), t, c.span), uTb, c.span, "*");
    x = ops.matmul(adjoint(ev, usv[2], c.span), scaled, c.span);
  }
  AVal r = ops.unary(Op::Abs, ops.binary(Op::Sub, b, ops.matmul(m, x, c.span), c.span, "-"), c.span);
  AVal resid = ops.reduce(Op::ReduceSum, ops.binary(Op::Mul, r, r, c.span, "*"), std::vector<int64_t>{0}, c.span);
  if (vector) x = ops.reshape(x, {cols}, c.span);
  return tuple({x, resid, rank, s});
}

}  // namespace

AVal singularValues(Evaluator& ev, const AVal& x, Span span) {
  return reducedSvd(ev, matrixOperand(ev, x, span, "norm", false), span).at(1);
}

BuiltinDefs linalgBuiltins() {
  return {{},
          {
              {"cholesky(a)", "the lower Cholesky factor l (l @ l.T == a) of each matrix of a, NaNs in l where a is not positive definite", cholesky},
              {"triangular_solve(a, b, lower=false, trans=0, unit_diagonal=false)",
               "x with a @ x == b (a.T @ x == b for trans=1) for triangular a, as jax.scipy.linalg.solve_triangular", triangularSolveBuiltin},
              {"solve(a, b)", "x with a @ x == b for square a, b a vector (one axis) or a stack of matrices", solve},
              {"inv(a)", "the inverse of each square matrix of a (infs or NaNs where singular)", inv},
              {"det(a)", "the determinant of each square matrix of a", det},
              {"slogdet(a)", "(sign, log of the absolute value) of the determinant of each square matrix of a", slogdet},
              {"qr(a, mode=\"reduced\")", "(q, r) with q orthonormal and r upper triangular, mode \"complete\" or \"r\" (only r)", qr},
              {"eigh(a)", "(w, v): the eigenvalues ascending and the eigenvectors (columns) of each symmetric matrix of a", eigh},
              {"lstsq(a, b, rcond=None, numpy_resid=false)", "(x, resid, rank, s): the least-squares solution of a @ x == b from the SVD, |b - a x|^2 per column, the numerical rank and the singular values, as jnp.linalg.lstsq", lstsq},
              {"eigvalsh(a)", "the eigenvalues of each symmetric (Hermitian) matrix of a, ascending: eigh(a)[0]", eigvalsh},
              {"pinv(a, rtol=None)", "the Moore-Penrose pseudo-inverse of each matrix of a, from its SVD (singular values at or below rtol times the largest taken as zero)", pinv},
              {"matrix_rank(M, rtol=None)", "the number of singular values of each matrix of M above max(s) * max(m, n) * eps (or above rtol when given)", matrixRank},
              {"svd(a, full_matrices=true, compute_uv=true)", "(u, s, vh) with a == u * s @ vh, s descending, only s when compute_uv is false", svd},
          }};
}

}  // namespace scn
