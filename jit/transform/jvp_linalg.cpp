// The JVP rules of the linear-algebra factorisations (Note [Linear algebra ops] in
// jit/linalg.hpp): triangular_solve, cholesky, lu and eigh. solve, inv, det and slogdet are built
// from lu and triangular_solve in the language, so they differentiate through these. Each tangent
// is linear in the input tangents with coefficients from the primal outputs, built from products,
// triangular masks and triangular solves, so reverse mode transposes it like any other
// (triangular_solve is linear in its right-hand side: transpose.cpp).
#include "base/diagnostics.hpp"
#include "jit/transform/ad.hpp"

namespace scn::ad {

namespace {

int64_t rankOf(const Builder& b, int x) { return static_cast<int64_t>(b.type(x).shape.size()); }

// x @ y over the last two axes, batched over the leading ones.
int matmul(Builder& b, int x, int y) {
  int64_t r = rankOf(b, x);
  Attrs a;
  a.lhsContract = {r - 1};
  a.rhsContract = {r - 2};
  for (int64_t d = 0; d < r - 2; ++d) {
    a.lhsBatch.push_back(d);
    a.rhsBatch.push_back(d);
  }
  return b.emit1(Op::DotGeneral, {x, y}, std::move(a));
}

// x with its last two axes swapped; adjoint also conjugates a complex x.
int swapLast(Builder& b, int x) {
  int64_t r = rankOf(b, x);
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < r; ++d) perm.push_back(d);
  std::swap(perm[r - 2], perm[r - 1]);
  return b.transpose(x, perm);
}

int adjoint(Builder& b, int x) {
  int t = swapLast(b, x);
  return isComplex(b.type(x).dtype) ? b.un(Op::Conj, t) : t;
}

// Where row `cmp` column holds in the last two axes of type t (Ge: the lower triangle with the
// diagonal, Gt: strictly lower, Le / Lt: upper, Eq: the diagonal), as a bool array of t's shape.
int triangleMask(Builder& b, const Type& t, Op cmp) {
  int64_t r = static_cast<int64_t>(t.shape.size());
  Attrs rows;
  rows.dtype = DType::I32;
  rows.shape = {t.shape[r - 2], t.shape[r - 1]};
  rows.axes = {0};
  Attrs cols = rows;
  cols.axes = {1};
  int mask = b.emit1(cmp, {b.emit1(Op::Iota, {}, std::move(rows)), b.emit1(Op::Iota, {}, std::move(cols))});
  return b.broadcast(mask, t.shape, {r - 2, r - 1});
}

// x where triangleMask(cmp) holds, zero elsewhere.
int triangle(Builder& b, int x, Op cmp) {
  Type t = b.type(x);
  return b.select(triangleMask(b, t, cmp), x, b.zeros(t));
}

// The identity matrices of type t.
int identity(Builder& b, const Type& t) { return b.convert(triangleMask(b, t, Op::Eq), t.dtype); }

int solve(Builder& b, int a, int rhs, bool lower, bool transpose, bool unitDiagonal) {
  Attrs at;
  at.lower = lower;
  at.transpose = transpose;
  at.unitDiagonal = unitDiagonal;
  return b.emit1(Op::TriangularSolve, {a, rhs}, std::move(at));
}

// x = op(A)^-1 rhs with A the triangle of a that the solve reads:
// dx = op(A)^-1 (d rhs - op(dA) x).
Tan triangularSolveJvp(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin, int x) {
  const Attrs& at = e.attrs;
  Tan rhs = tin[1];
  if (tin[0]) {
    Op read = at.lower ? (at.unitDiagonal ? Op::Gt : Op::Ge) : (at.unitDiagonal ? Op::Lt : Op::Le);
    int da = triangle(b, *tin[0], read);
    int product = matmul(b, at.transpose ? swapLast(b, da) : da, x);
    rhs = rhs ? b.sub(*rhs, product) : b.neg(product);
  }
  return b.emit1(Op::TriangularSolve, {in[0], *rhs}, at);
}

// l l^H = S, S the Hermitian part of a: dl = l phi(l^-1 dS l^-H), phi the lower triangle with
// the diagonal halved (JAX's rule). With Z = l^-1 dS, l^-1 dS l^-H = (Z l^-H) = l^-1 Z^H, since
// it is Hermitian.
int choleskyJvp(Builder& b, int da, int l) {
  int dS = b.mul(b.add(da, adjoint(b, da)), b.like(da, 0.5));
  int z = solve(b, l, dS, true, false, false);
  int y = solve(b, l, adjoint(b, z), true, false, false);
  int phi = b.add(triangle(b, y, Op::Gt), b.mul(triangle(b, y, Op::Eq), b.like(y, 0.5)));
  return matmul(b, l, phi);
}

// P a = L U, packed into lu: with X = L^-1 P da U^-1, dL = L strict_lower(X) and
// dU = upper(X) U (JAX's rule). P da through the one-hot matrix of perm.
int luJvp(Builder& b, int da, int lu, int perm) {
  Type t = b.type(lu);
  int64_t r = static_cast<int64_t>(t.shape.size());
  Shape column = b.type(perm).shape;
  column.push_back(1);
  std::vector<int64_t> spread;
  for (int64_t d = 0; d < r; ++d) spread.push_back(d);
  int rows = b.broadcast(b.reshape(perm, column), t.shape, spread);
  Attrs cols;
  cols.dtype = DType::I32;
  cols.shape = t.shape;
  cols.axes = {r - 1};
  int p = b.convert(b.emit1(Op::Eq, {rows, b.emit1(Op::Iota, {}, std::move(cols))}), t.dtype);
  int la = solve(b, lu, matmul(b, p, da), true, false, true);       // L^-1 P da
  int x = swapLast(b, solve(b, lu, swapLast(b, la), false, true, false));  // (U^-T (L^-1 P da)^T)^T
  int l = b.add(triangle(b, lu, Op::Gt), identity(b, t));
  int u = triangle(b, lu, Op::Le);
  return b.add(matmul(b, l, triangle(b, x, Op::Gt)), matmul(b, triangle(b, x, Op::Le), u));
}

// a = v diag(w) v^H of the Hermitian part S of a: with M = v^H dS v, dw = real(diag(M)) and
// dv = v (F * M), F[i][j] = 1 / (w[j] - w[i]) off the diagonal and 0 on it (JAX's rule; equal
// eigenvalues give inf, as in JAX).
std::vector<Tan> eighJvp(Builder& b, int da, int w, int v) {
  Type t = b.type(v);
  int64_t r = static_cast<int64_t>(t.shape.size());
  int dS = b.mul(b.add(da, adjoint(b, da)), b.like(da, 0.5));
  int m = matmul(b, matmul(b, adjoint(b, v), dS), v);
  std::vector<int64_t> leading;
  for (int64_t d = 0; d < r - 2; ++d) leading.push_back(d);
  std::vector<int64_t> asRow = leading, asColumn = leading;
  asRow.push_back(r - 1);
  asColumn.push_back(r - 2);
  int wt = b.convert(w, t.dtype);
  int gaps = b.sub(b.broadcast(wt, t.shape, asRow), b.broadcast(wt, t.shape, asColumn));
  int eye = identity(b, t);
  int f = b.sub(b.un(Op::Reciprocal, b.add(eye, gaps)), eye);
  int dv = matmul(b, v, b.mul(f, m));
  int diagonal = b.reduceSum(triangle(b, m, Op::Eq), {r - 2});
  int dw = isComplex(t.dtype) ? b.un(Op::Real, diagonal) : diagonal;
  return {dw, dv};
}

}  // namespace

std::vector<Tan> linalgJvp(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin,
                           const std::vector<int>& out) {
  switch (e.op) {
    case Op::TriangularSolve: return {triangularSolveJvp(b, e, in, tin, out[0])};
    case Op::Cholesky: return {choleskyJvp(b, *tin[0], out[0])};
    case Op::Lu: return {luJvp(b, *tin[0], out[0], out[2]), std::nullopt, std::nullopt};
    case Op::Eigh: return eighJvp(b, *tin[0], out[0], out[1]);
    default: break;
  }
  internalError(std::string("no linear-algebra JVP rule for ") + opName(e.op));
}

}  // namespace scn::ad
