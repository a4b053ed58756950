// The Linalg ops' shape rules and their reference implementation (Note [Linear algebra ops] in
// jit/linalg.hpp): textbook algorithms in double precision, written for clarity, not speed.
#include "jit/linalg.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <type_traits>

#include "base/diagnostics.hpp"
#include "jit/conjugate.hpp"
#include "jit/fft.hpp"
#include "jit/interp_kernels.hpp"

namespace scn {

namespace {

Shape leading(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

Shape with(Shape batch, std::initializer_list<int64_t> tail) {
  batch.insert(batch.end(), tail);
  return batch;
}

int64_t product(const Shape& s) {
  int64_t p = 1;
  for (int64_t d : s) p *= d;
  return p;
}

}  // namespace

int LinalgCall::numInputs() const { return op == Op::TriangularSolve ? 2 : 1; }

int LinalgCall::numOutputs() const {
  if (op == Op::Cholesky || op == Op::TriangularSolve || isFftOp(op)) return 1;
  return op == Op::Qr || op == Op::Eigh ? 2 : 3;  // Lu, Svd: 3
}

int64_t LinalgCall::inputElems(int i) const {
  if (isFftOp(op)) return op == Op::Irfft ? n / 2 + 1 : n;
  return i == 0 ? m * n : n * k;
}

int64_t LinalgCall::outputElems(int i) const {
  if (isFftOp(op)) return op == Op::Rfft ? n / 2 + 1 : n;
  int64_t r = std::min(m, n);
  if (op == Op::Cholesky) return n * n;
  if (op == Op::TriangularSolve) return n * k;
  if (op == Op::Lu) return i == 0 ? n * n : n;
  if (op == Op::Qr) return i == 0 ? (fullMatrices ? m * m : m * r) : (fullMatrices ? m * n : r * n);
  if (op == Op::Eigh) return i == 0 ? n : n * n;
  SCN_ASSERT(op == Op::Svd, "not a linalg op");
  if (i == 1) return r;
  if (i == 0) return fullMatrices ? m * m : m * r;
  return fullMatrices ? n * n : r * n;
}

DType LinalgCall::inputDType(int) const { return dtype; }

DType LinalgCall::outputDType(int i) const {
  if (op == Op::Lu && i > 0) return DType::I32;
  if ((op == Op::Eigh && i == 0) || (op == Op::Svd && i == 1)) return componentType(dtype);  // real of complex
  if (op == Op::Rfft) return complexOf(dtype);
  if (op == Op::Irfft) return componentType(dtype);
  return dtype;
}

namespace {

std::string inferFft(Op op, const Type& a, const Attrs& attrs, std::vector<Type>* out) {
  const std::string name = opName(op);
  if (a.shape.empty()) return name + " needs an operand of rank 1 or more but got " + typeString(a);
  bool real = op == Op::Rfft;
  if (real ? !isFloat(a.dtype) : !isComplex(a.dtype))
    return name + std::string(" needs a ") + (real ? "real float" : "complex") + " operand but got " + typeString(a);
  Shape s = a.shape;
  int64_t n = op == Op::Irfft ? attrs.length : s.back();
  if (n < 1) return name + " needs a transform length of 1 or more but got " + std::to_string(n);
  if (op == Op::Irfft && s.back() != n / 2 + 1)
    return "irfft of length " + std::to_string(n) + " needs " + std::to_string(n / 2 + 1) + " terms but got " +
           typeString(a);
  s.back() = op == Op::Rfft ? n / 2 + 1 : n;
  DType t = op == Op::Rfft ? complexOf(a.dtype) : op == Op::Irfft ? componentType(a.dtype) : a.dtype;
  *out = {Type{t, s}};
  return "";
}

}  // namespace

std::string inferLinalg(Op op, const std::vector<Type>& in, const Attrs& attrs, std::vector<Type>* out) {
  const std::string name = opName(op);
  const Type& a = in[0];
  if (isFftOp(op)) return inferFft(op, a, attrs, out);
  if (a.shape.size() < 2) return name + " needs an operand of rank 2 or more but got " + typeString(a);
  Shape batch = leading(a.shape);
  int64_t m = a.shape[a.shape.size() - 2], n = a.shape.back(), r = std::min(m, n);
  bool square = op != Op::Qr && op != Op::Svd;
  if (square && m != n) return name + " needs square matrices but got " + typeString(a);
  if (op == Op::Cholesky || op == Op::Eigh) {
    *out = op == Op::Cholesky ? std::vector<Type>{a} : std::vector<Type>{Type{componentType(a.dtype), with(batch, {n})}, a};
  } else if (op == Op::TriangularSolve) {
    const Type& b = in[1];
    if (b.dtype != a.dtype || b.shape.size() != a.shape.size() || leading(b.shape) != batch ||
        b.shape[b.shape.size() - 2] != n)
      return "triangular_solve needs b of a's dtype and leading axes with " + std::to_string(n) +
             " rows but got " + typeString(a) + " and " + typeString(b);
    *out = {b};
  } else if (op == Op::Lu) {
    *out = {a, Type{DType::I32, with(batch, {n})}, Type{DType::I32, with(batch, {n})}};
  } else if (op == Op::Qr) {
    if (attrs.fullMatrices) *out = {Type{a.dtype, with(batch, {m, m})}, a};
    else *out = {Type{a.dtype, with(batch, {m, r})}, Type{a.dtype, with(batch, {r, n})}};
  } else if (op == Op::Svd) {
    Type s{componentType(a.dtype), with(batch, {r})};
    if (attrs.fullMatrices) *out = {Type{a.dtype, with(batch, {m, m})}, s, Type{a.dtype, with(batch, {n, n})}};
    else *out = {Type{a.dtype, with(batch, {m, r})}, s, Type{a.dtype, with(batch, {r, n})}};
  } else {
    return name + " is not a linalg op";
  }
  return "";
}

LinalgCall linalgCallOf(Op op, const std::vector<Type>& in, const Attrs& attrs) {
  LinalgCall c;
  const Shape& s = in.at(0).shape;
  c.op = op;
  c.dtype = in[0].dtype;
  if (isFftOp(op)) {
    c.batch = product(Shape(s.begin(), s.end() - 1));
    c.m = c.n = op == Op::Irfft ? attrs.length : s.back();
    return c;
  }
  c.batch = product(leading(s));
  c.m = s[s.size() - 2];
  c.n = s.back();
  if (op == Op::TriangularSolve) c.k = in.at(1).shape.back();
  c.lower = attrs.lower;
  c.transpose = attrs.transpose;
  c.unitDiagonal = attrs.unitDiagonal;
  c.fullMatrices = attrs.fullMatrices;
  return c;
}

int32_t linalgFlags(const LinalgCall& c) {
  return (c.lower ? 1 : 0) | (c.transpose ? 2 : 0) | (c.unitDiagonal ? 4 : 0) | (c.fullMatrices ? 8 : 0);
}

LinalgCall linalgCallFromFlags(Op op, DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k, int32_t flags) {
  LinalgCall c;
  c.op = op;
  c.dtype = dtype;
  c.batch = batch;
  c.m = m;
  c.n = n;
  c.k = k;
  c.lower = flags & 1;
  c.transpose = flags & 2;
  c.unitDiagonal = flags & 4;
  c.fullMatrices = flags & 8;
  return c;
}

namespace {

using Mat = std::vector<double>;  // row-major
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The scalar helpers that let cholesky, triangular_solve and lu run on real (S = double) and
// complex (S = std::complex<double>) matrices with one text (and conjugate, jit/conjugate.hpp).
double nanOf(double) { return kNaN; }
std::complex<double> nanOf(std::complex<double>) { return {kNaN, kNaN}; }  // both parts, as JAX's
double realPart(double x) { return x; }
double realPart(std::complex<double> z) { return z.real(); }
double imagPart(double) { return 0; }
double imagPart(std::complex<double> z) { return z.imag(); }
// The pivot's size as LAPACK's i?amax measures it: |x|, and |re| + |im| for a complex x.
double pivotSize(double x) { return std::abs(x); }
double pivotSize(std::complex<double> z) { return std::abs(z.real()) + std::abs(z.imag()); }

/// (a + a^H) / 2: the symmetric (Hermitian) part, which JAX factors.
template <typename S>
std::vector<S> symmetrised(const std::vector<S>& a, int64_t n) {
  std::vector<S> s(n * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) s[i * n + j] = (a[i * n + j] + conjugate(a[j * n + i])) / 2.0;
  return s;
}

template <typename S>
std::vector<S> identity(int64_t rows, int64_t cols) {
  std::vector<S> q(rows * cols, S(0.0));
  for (int64_t i = 0; i < std::min(rows, cols); ++i) q[i * cols + i] = 1;
  return q;
}

// Cholesky-Banachiewicz (l l^H = a); any pivot that is not > 0 (NaN included) fails the whole
// matrix.
template <typename S>
void cholesky(const std::vector<S>& a0, int64_t n, std::vector<S>& l) {
  std::vector<S> a = symmetrised(a0, n);
  l.assign(n * n, S(0.0));
  for (int64_t j = 0; j < n; ++j) {
    double d = realPart(a[j * n + j]);
    for (int64_t k = 0; k < j; ++k) d -= realPart(l[j * n + k] * conjugate(l[j * n + k]));
    if (!(d > 0)) {  // JAX: NaN in the lower triangle, the upper stays 0
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < n; ++k) l[i * n + k] = k <= i ? nanOf(S()) : S(0.0);
      return;
    }
    l[j * n + j] = std::sqrt(d);
    for (int64_t i = j + 1; i < n; ++i) {
      S s = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) s -= l[i * n + k] * conjugate(l[j * n + k]);
      l[i * n + j] = s / l[j * n + j];
    }
  }
}

// Substitution on op(a) = a or a^T (never conjugated: trans="C" is conj(a) transposed, made by
// the caller), which is lower triangular when lower != transpose.
template <typename S>
void triangularSolve(const std::vector<S>& a, const std::vector<S>& b, const LinalgCall& c, std::vector<S>& x) {
  int64_t n = c.n, k = c.k;
  auto A = [&](int64_t i, int64_t j) { return c.transpose ? a[j * n + i] : a[i * n + j]; };
  bool forward = c.lower != c.transpose;
  x = b;
  for (int64_t col = 0; col < k; ++col)
    for (int64_t s = 0; s < n; ++s) {
      int64_t i = forward ? s : n - 1 - s;
      S v = x[i * k + col];
      for (int64_t t = 0; t < s; ++t) {
        int64_t j = forward ? t : n - 1 - t;
        v -= A(i, j) * x[j * k + col];
      }
      x[i * k + col] = c.unitDiagonal ? v : v / A(i, i);
    }
}

// Doolittle with partial pivoting (the first largest pivot wins, as LAPACK's i?amax measures).
template <typename S>
void lu(const std::vector<S>& a, int64_t n, std::vector<S>& f, std::vector<int32_t>& piv, std::vector<int32_t>& perm) {
  f = a;
  piv.assign(n, 0);
  perm.resize(n);
  std::iota(perm.begin(), perm.end(), 0);
  for (int64_t j = 0; j < n; ++j) {
    int64_t p = j;
    for (int64_t i = j + 1; i < n; ++i)
      if (pivotSize(f[i * n + j]) > pivotSize(f[p * n + j])) p = i;
    piv[j] = static_cast<int32_t>(p);
    if (p != j) {
      for (int64_t c = 0; c < n; ++c) std::swap(f[j * n + c], f[p * n + c]);
      std::swap(perm[j], perm[p]);
    }
    S d = f[j * n + j];
    if (d == S(0.0)) continue;
    for (int64_t i = j + 1; i < n; ++i) {
      f[i * n + j] /= d;
      for (int64_t c = j + 1; c < n; ++c) f[i * n + c] -= f[i * n + j] * f[j * n + c];
    }
  }
}

// Householder QR with LAPACK's ?larfg convention: beta = -sign(re alpha) * ||(alpha, x)|| (real),
// tau = (beta - alpha) / beta, v = x / (alpha - beta); no reflection when x is zero and alpha
// real. R is reduced by H^H = I - conj(tau) v v^H, and Q = H_1 ... H_k, as ?geqrf / ?orgqr.
template <typename S>
void qr(const std::vector<S>& a, int64_t m, int64_t n, bool full, std::vector<S>& q, std::vector<S>& r) {
  int64_t kk = std::min(m, n);
  std::vector<S> R = a;
  std::vector<std::vector<S>> vs(kk);
  std::vector<S> taus(kk, S(0.0));
  for (int64_t j = 0; j < kk; ++j) {
    S alpha = R[j * n + j];
    double xnorm = 0;
    for (int64_t i = j + 1; i < m; ++i) xnorm = std::hypot(xnorm, std::abs(R[i * n + j]));
    std::vector<S> v(m - j, S(0.0));
    v[0] = 1;
    if (xnorm != 0 || imagPart(alpha) != 0) {
      double beta = -std::copysign(std::hypot(std::abs(alpha), xnorm), realPart(alpha));
      taus[j] = (beta - alpha) / beta;
      for (int64_t i = j + 1; i < m; ++i) v[i - j] = R[i * n + j] / (alpha - beta);
      for (int64_t c = j; c < n; ++c) {  // R[j:, c] -= conj(tau) v (v^H R[j:, c])
        S dot = 0;
        for (int64_t i = j; i < m; ++i) dot += conjugate(v[i - j]) * R[i * n + c];
        for (int64_t i = j; i < m; ++i) R[i * n + c] -= conjugate(taus[j]) * v[i - j] * dot;
      }
      R[j * n + j] = beta;
      for (int64_t i = j + 1; i < m; ++i) R[i * n + j] = 0;
    }
    vs[j] = std::move(v);
  }
  int64_t qc = full ? m : kk;
  q = identity<S>(m, qc);
  for (int64_t j = kk; j-- > 0;)
    for (int64_t c = 0; c < qc; ++c) {
      S dot = 0;
      for (int64_t i = j; i < m; ++i) dot += conjugate(vs[j][i - j]) * q[i * qc + c];
      for (int64_t i = j; i < m; ++i) q[i * qc + c] -= taus[j] * vs[j][i - j] * dot;
    }
  int64_t rr = full ? m : kk;
  r.assign(rr * n, S(0.0));
  for (int64_t i = 0; i < rr; ++i)
    for (int64_t c = i; c < n; ++c) r[i * n + c] = i < m ? R[i * n + c] : S(0.0);
}

// Cyclic Jacobi rotations until the off-diagonal part vanishes; then sorted ascending. For a
// complex (Hermitian) a each rotation first turns a_pq real: column q (and row q, conjugated)
// times e^{-i arg a_pq}, then the real rotation, so the diagonal stays real.
template <typename S>
void eigh(const std::vector<S>& a0, int64_t n, Mat& w, std::vector<S>& v) {
  std::vector<S> a = symmetrised(a0, n);
  v = identity<S>(n, n);
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, total = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) (i == j ? total : off) += std::norm(a[i * n + j]);
    if (off <= 1e-30 * (total + off) || off == 0) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        S apq = a[p * n + q];
        double mag = std::abs(apq);
        if (mag == 0) continue;
        S phase = apq / mag;  // column q times conj(phase), row q times phase: a_pq becomes |a_pq|
        double theta = (realPart(a[q * n + q]) - realPart(a[p * n + p])) / (2 * mag);
        double t = std::copysign(1.0, theta) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // columns p, q
          S akp = a[k * n + p], akq = a[k * n + q] * conjugate(phase);
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; ++k) {  // rows p, q
          S apk = a[p * n + k], aqk = a[q * n + k] * phase;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (int64_t k = 0; k < n; ++k) {
          S vkp = v[k * n + p], vkq = v[k * n + q] * conjugate(phase);
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto diag = [&](int64_t i) { return realPart(a[i * n + i]); };
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return diag(x) < diag(y); });
  w.resize(n);
  std::vector<S> sorted(n * n);
  for (int64_t j = 0; j < n; ++j) {
    w[j] = diag(order[j]);
    for (int64_t i = 0; i < n; ++i) sorted[i * n + j] = v[i * n + order[j]];
  }
  v = std::move(sorted);
  normaliseSigns(v.data(), n, n, n);
}

/// Fills the columns of the [rows, cols] q from `from` on (and any zero column) with an
/// orthonormal completion: Gram-Schmidt (twice) of the unit vectors against what is there.
template <typename S>
void completeColumns(std::vector<S>& q, int64_t rows, int64_t cols, const std::vector<bool>& have) {
  int64_t e = 0;
  for (int64_t j = 0; j < cols; ++j) {
    if (have[j]) continue;
    for (; e < rows; ++e) {
      std::vector<S> x(rows, S(0.0));
      x[e] = 1;
      for (int pass = 0; pass < 2; ++pass)
        for (int64_t c = 0; c < cols; ++c) {
          if (c == j || (!have[c] && c > j)) continue;
          S dot = 0;
          for (int64_t i = 0; i < rows; ++i) dot += conjugate(q[i * cols + c]) * x[i];
          for (int64_t i = 0; i < rows; ++i) x[i] -= dot * q[i * cols + c];
        }
      double norm = 0;
      for (const S& xi : x) norm = std::hypot(norm, std::abs(xi));
      if (norm < 1e-6) continue;
      for (int64_t i = 0; i < rows; ++i) q[i * cols + j] = x[i] / norm;
      ++e;
      break;
    }
  }
}

// One-sided Jacobi (Hestenes) on the columns of a [m, n] with m >= n: a V = U S, vt = V^H. For
// complex columns the rotation first turns their inner product real (as eigh's does a_pq).
template <typename S>
void svdTall(const std::vector<S>& a, int64_t m, int64_t n, bool full, std::vector<S>& u, Mat& s, std::vector<S>& vt) {
  std::vector<S> U = a, V = identity<S>(n, n);
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0;
        S gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += std::norm(U[i * n + p]);
          beta += std::norm(U[i * n + q]);
          gamma += conjugate(U[i * n + p]) * U[i * n + q];
        }
        double g = std::abs(gamma);
        if (g <= 1e-15 * std::sqrt(alpha * beta) || g == 0) continue;
        rotated = true;
        S phase = gamma / g;  // column q times conj(phase): the inner product becomes |gamma|
        double zeta = (beta - alpha) / (2 * g);
        double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        double c = 1 / std::sqrt(1 + t * t), sn = c * t;
        for (std::vector<S>* X : {&U, &V}) {
          int64_t rows = X == &U ? m : n;
          for (int64_t i = 0; i < rows; ++i) {
            S xp = (*X)[i * n + p], xq = (*X)[i * n + q] * conjugate(phase);
            (*X)[i * n + p] = c * xp - sn * xq;
            (*X)[i * n + q] = sn * xp + c * xq;
          }
        }
      }
    if (!rotated) break;
  }
  std::vector<double> sv(n);
  for (int64_t j = 0; j < n; ++j) {
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm = std::hypot(norm, std::abs(U[i * n + j]));
    sv[j] = norm;
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return sv[x] > sv[y]; });
  int64_t uc = full ? m : n;
  u.assign(m * uc, S(0.0));
  s.resize(n);
  vt.assign(n * n, S(0.0));
  std::vector<bool> have(uc, false);
  for (int64_t j = 0; j < n; ++j) {
    int64_t o = order[j];
    s[j] = sv[o];
    for (int64_t i = 0; i < n; ++i) vt[j * n + i] = conjugate(V[i * n + o]);
    if (sv[o] == 0) continue;
    have[j] = true;
    for (int64_t i = 0; i < m; ++i) u[i * uc + j] = U[i * n + o] / sv[o];
  }
  completeColumns(u, m, uc, have);
  normaliseSigns(u.data(), m, n, uc, vt.data(), n, true, n);
}

template <typename S>
void svd(const std::vector<S>& a, int64_t m, int64_t n, bool full, std::vector<S>& u, Mat& s, std::vector<S>& vt) {
  if (m >= n) return svdTall(a, m, n, full, u, s, vt);
  // a^H = U' S V'^H, so a = V' S U'^H: u = (V'^H)^H, vt = U'^H.
  std::vector<S> ah(n * m), u2, vt2;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) ah[j * m + i] = conjugate(a[i * n + j]);
  svdTall(ah, n, m, full, u2, s, vt2);
  int64_t uc = full ? n : m;  // u2 is [n, uc], vt2 [m, m]
  u.assign(m * m, S(0.0));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j) u[i * m + j] = conjugate(vt2[j * m + i]);
  vt.assign(uc * n, S(0.0));
  for (int64_t i = 0; i < uc; ++i)
    for (int64_t j = 0; j < n; ++j) vt[i * n + j] = conjugate(u2[j * uc + i]);
  normaliseSigns(u.data(), m, m, m, vt.data(), n, true, n);
}

/// Matrix `at` of a batch in the computing precision S (double, or std::complex<double> for
/// stored complex T), and back.
template <typename T, typename S>
std::vector<S> readMatrix(const void* p, int64_t at, int64_t elems) {
  const T* x = static_cast<const T*>(p) + at;
  return std::vector<S>(x, x + elems);
}

template <typename T, typename S>
void write(void* p, int64_t at, const std::vector<S>& v) {
  T* x = static_cast<T*>(p) + at;
  for (size_t i = 0; i < v.size(); ++i) x[i] = static_cast<T>(v[i]);
}

void writeInts(void* p, int64_t at, const std::vector<int32_t>& v) {
  std::copy(v.begin(), v.end(), static_cast<int32_t*>(p) + at);
}

/// T: the stored element (float, double, std::complex<float>, std::complex<double>); S: what
/// it computes in. The real outputs of a complex matrix (eigh's w, svd's s) are stored as T's
/// part.
template <typename T, typename S>
void runReference(const LinalgCall& c, const void* const* in, void* const* out) {
  using Part = decltype(std::abs(T()));
  for (int64_t b = 0; b < c.batch; ++b) {
    auto at = [&](int64_t elems) { return b * elems; };
    std::vector<S> a = readMatrix<T, S>(in[0], at(c.inputElems(0)), c.inputElems(0)), x, y;
    Mat values;
    if (c.op == Op::Cholesky) {
      cholesky(a, c.n, x);
    } else if (c.op == Op::TriangularSolve) {
      triangularSolve(a, readMatrix<T, S>(in[1], at(c.inputElems(1)), c.inputElems(1)), c, x);
    } else if (c.op == Op::Lu) {
      std::vector<int32_t> piv, perm;
      lu(a, c.n, x, piv, perm);
      writeInts(out[1], at(c.n), piv);
      writeInts(out[2], at(c.n), perm);
    } else if (c.op == Op::Qr) {
      qr(a, c.m, c.n, c.fullMatrices, x, y);
      write<T>(out[1], at(c.outputElems(1)), y);
    } else if (c.op == Op::Eigh) {
      eigh(a, c.n, values, y);  // outputs (w, v)
      write<Part>(out[0], at(c.outputElems(0)), values);
      write<T>(out[1], at(c.outputElems(1)), y);
      continue;
    } else {
      SCN_ASSERT(c.op == Op::Svd, "not a linalg op");
      svd(a, c.m, c.n, c.fullMatrices, x, values, y);
      write<Part>(out[1], at(c.outputElems(1)), values);
      write<T>(out[2], at(c.outputElems(2)), y);
    }
    write<T>(out[0], at(c.outputElems(0)), x);
  }
}

}  // namespace

void linalgReference(const LinalgCall& c, const void* const* in, void* const* out) {
  if (isFftOp(c.op)) return fftReference(c, in[0], out[0]);
  switch (c.dtype) {
    case DType::F32: return runReference<float, double>(c, in, out);
    case DType::F64: return runReference<double, double>(c, in, out);
    case DType::C64: return runReference<std::complex<float>, std::complex<double>>(c, in, out);
    case DType::C128: return runReference<std::complex<double>, std::complex<double>>(c, in, out);
    default: internalError(std::string("linalg on ") + dtypeName(c.dtype));
  }
}

namespace interp {

std::vector<Array> linalgOp(Op op, const std::vector<Array>& in, const Attrs& attrs, const std::vector<Type>& out) {
  std::vector<Type> types;
  std::vector<const void*> ins;
  for (const Array& a : in) {
    types.push_back(Type{a.dtype, a.shape});
    ins.push_back(a.raw());
  }
  std::vector<Array> results;
  std::vector<void*> outs;
  for (const Type& t : out) results.emplace_back(t.dtype, t.shape);
  for (Array& r : results) outs.push_back(r.raw());
  linalgReference(linalgCallOf(op, types, attrs), ins.data(), outs.data());
  return results;
}

}  // namespace interp

}  // namespace scn
