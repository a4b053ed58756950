// The Linalg step on the CPU: LAPACK (OpenBLAS's, found by CMake's FindLAPACK) for every op of
// Note [Linear algebra ops] (jit/linalg.hpp), one matrix of the batch per task of the pool; the
// FFT ops go to FFTW (jit/cpu/fftw.cpp).
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <type_traits>
#include <limits>
#include <vector>

#include "base/diagnostics.hpp"
#include "jit/cpu/fftw.hpp"
#include "jit/cpu/gemm.hpp"
#include "jit/conjugate.hpp"
#include "jit/cpu/runtime.hpp"
#include "jit/fft.hpp"
#include "jit/linalg.hpp"

// Note [Calling LAPACK]
// scn declares the Fortran entry points itself instead of including LAPACKE: they are in every
// LAPACK (Debian's reference liblapack, OpenBLAS's), need no extra package or header, and
// LAPACKE's row-major mode would transpose behind our back anyway. LAPACK is column-major, so
// each matrix is transposed into a scratch copy, factored there and transposed back: O(n^2)
// beside the O(n^3) of the routine, and it leaves the inputs untouched (the lowering may hand us
// a buffer that is still live). OpenBLAS runs with one thread (Note [One thread pool for GEMM]),
// so a batch is split over scn's pool, one matrix per task; a single large matrix runs on one
// core. Failures follow JAX: cholesky of a matrix that is not positive definite, and an eigh or
// svd that does not converge, give NaNs; a singular lu is no failure (its zero pivot stays).
// Complex matrices take the c / z routines (?heevd for eigh, ?ungqr for q); their real outputs
// (eigh's w, svd's s) are written as the parts' type.
extern "C" {
void spotrf_(const char*, const int*, float*, const int*, int*);
void dpotrf_(const char*, const int*, double*, const int*, int*);
void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void sorgqr_(const int*, const int*, const int*, float*, const int*, const float*, float*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*, const int*, int*);
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*,
             const int*, int*);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*,
             const int*, int*);
void sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*, float*,
             const int*, float*, const int*, int*, int*);
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*,
             const int*, double*, const int*, int*, int*);
void cpotrf_(const char*, const int*, std::complex<float>*, const int*, int*);
void zpotrf_(const char*, const int*, std::complex<double>*, const int*, int*);
void cgetrf_(const int*, const int*, std::complex<float>*, const int*, int*, int*);
void zgetrf_(const int*, const int*, std::complex<double>*, const int*, int*, int*);
void cgeqrf_(const int*, const int*, std::complex<float>*, const int*, std::complex<float>*, std::complex<float>*,
             const int*, int*);
void zgeqrf_(const int*, const int*, std::complex<double>*, const int*, std::complex<double>*, std::complex<double>*,
             const int*, int*);
void cungqr_(const int*, const int*, const int*, std::complex<float>*, const int*, const std::complex<float>*,
             std::complex<float>*, const int*, int*);
void zungqr_(const int*, const int*, const int*, std::complex<double>*, const int*, const std::complex<double>*,
             std::complex<double>*, const int*, int*);
void cheevd_(const char*, const char*, const int*, std::complex<float>*, const int*, float*, std::complex<float>*,
             const int*, float*, const int*, int*, const int*, int*);
void zheevd_(const char*, const char*, const int*, std::complex<double>*, const int*, double*,
             std::complex<double>*, const int*, double*, const int*, int*, const int*, int*);
void cgesdd_(const char*, const int*, const int*, std::complex<float>*, const int*, float*, std::complex<float>*,
             const int*, std::complex<float>*, const int*, std::complex<float>*, const int*, float*, int*, int*);
void zgesdd_(const char*, const int*, const int*, std::complex<double>*, const int*, double*, std::complex<double>*,
             const int*, std::complex<double>*, const int*, std::complex<double>*, const int*, double*, int*, int*);
}

namespace scn::cpu {

namespace {

template <typename T> struct Lapack;
template <> struct Lapack<float> {
  static constexpr auto potrf = spotrf_;
  static constexpr auto getrf = sgetrf_;
  static constexpr auto geqrf = sgeqrf_;
  static constexpr auto orgqr = sorgqr_;
  static constexpr auto syevd = ssyevd_;
  static constexpr auto gesdd = sgesdd_;
  static void trsm(CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int n, int k, const float* a, float* b) {
    cblas_strsm(CblasRowMajor, CblasLeft, u, t, d, n, k, 1.0f, a, std::max(1, n), b, std::max(1, k));
  }
};
template <> struct Lapack<double> {
  static constexpr auto potrf = dpotrf_;
  static constexpr auto getrf = dgetrf_;
  static constexpr auto geqrf = dgeqrf_;
  static constexpr auto orgqr = dorgqr_;
  static constexpr auto syevd = dsyevd_;
  static constexpr auto gesdd = dgesdd_;
  static void trsm(CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int n, int k, const double* a, double* b) {
    cblas_dtrsm(CblasRowMajor, CblasLeft, u, t, d, n, k, 1.0, a, std::max(1, n), b, std::max(1, k));
  }
};

// Complex matrices (c64, c128): the same routines with a c / z prefix; eigh is ?heevd and svd
// ?gesdd with their real workspace (the `heevd` and `gesdd` below take it as an argument).
template <> struct Lapack<std::complex<float>> {
  static constexpr auto potrf = cpotrf_;
  static constexpr auto getrf = cgetrf_;
  static constexpr auto geqrf = cgeqrf_;
  static constexpr auto orgqr = cungqr_;
  static constexpr auto heevd = cheevd_;
  static constexpr auto gesdd = cgesdd_;
  static void trsm(CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int n, int k, const std::complex<float>* a,
                   std::complex<float>* b) {
    const std::complex<float> one(1.0f);
    cblas_ctrsm(CblasRowMajor, CblasLeft, u, t, d, n, k, &one, a, std::max(1, n), b, std::max(1, k));
  }
};
template <> struct Lapack<std::complex<double>> {
  static constexpr auto potrf = zpotrf_;
  static constexpr auto getrf = zgetrf_;
  static constexpr auto geqrf = zgeqrf_;
  static constexpr auto orgqr = zungqr_;
  static constexpr auto heevd = zheevd_;
  static constexpr auto gesdd = zgesdd_;
  static void trsm(CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int n, int k, const std::complex<double>* a,
                   std::complex<double>* b) {
    const std::complex<double> one(1.0);
    cblas_ztrsm(CblasRowMajor, CblasLeft, u, t, d, n, k, &one, a, std::max(1, n), b, std::max(1, k));
  }
};

/// The real type of T's parts (float for std::complex<float>), and a workspace size LAPACK
/// returned in a T.
template <typename T> using Part = decltype(std::abs(T()));
/// LAPACK returns it as a float, which may round a large size down: rounded up a little.
template <typename T> int workSize(T w) {
  return std::max(1, static_cast<int>(std::ceil(static_cast<double>(std::real(w)) * (1 + 1e-6))));
}

/// A [rows, cols] row-major matrix as column-major (its transpose, row-major), and back.
template <typename T>
std::vector<T> toColumnMajor(const T* a, int64_t rows, int64_t cols, int64_t ld = -1) {
  if (ld < 0) ld = cols;
  std::vector<T> c(std::max<int64_t>(1, rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) c[j * rows + i] = a[i * ld + j];
  return c;
}

template <typename T>
void fromColumnMajor(const T* c, int64_t rows, int64_t cols, T* a, int64_t ldc = -1) {
  if (ldc < 0) ldc = rows;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) a[i * cols + j] = c[j * ldc + i];
}

template <typename T>
void fillNaN(T* p, int64_t n) {
  if constexpr (kIsStdComplex<T>) {  // both parts, as JAX's
    auto nan = std::numeric_limits<typename T::value_type>::quiet_NaN();
    std::fill(p, p + n, T(nan, nan));
  } else {
    std::fill(p, p + n, std::numeric_limits<T>::quiet_NaN());
  }
}

template <typename T>
void cholesky(const LinalgCall& c, const T* a, T* l) {
  int n = static_cast<int>(c.n), info = 0;
  if (n == 0) return;  // LAPACK rejects lda = 0 (and the reference xerbla stops the process)
  std::vector<T> s(n * n);
  for (int i = 0; i < n; ++i)  // (a + a^H) / 2 as JAX, column-major: s[j * n + i] is its (i, j)
    for (int j = 0; j < n; ++j) s[j * n + i] = (a[i * n + j] + conjugate(a[j * n + i])) / T(2);
  Lapack<T>::potrf("L", &n, s.data(), &n, &info);
  if (info != 0) fillNaN(s.data(), c.n * c.n);  // JAX: NaN in the lower triangle
  fromColumnMajor(s.data(), n, n, l);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) l[i * n + j] = 0;
}

template <typename T>
void triangularSolve(const LinalgCall& c, const T* a, const T* b, T* x) {
  std::copy(b, b + c.n * c.k, x);
  if (c.n == 0 || c.k == 0) return;
  Lapack<T>::trsm(c.lower ? CblasLower : CblasUpper, c.transpose ? CblasTrans : CblasNoTrans,
                  c.unitDiagonal ? CblasUnit : CblasNonUnit, static_cast<int>(c.n), static_cast<int>(c.k), a, x);
}

template <typename T>
void lu(const LinalgCall& c, const T* a, T* f, int32_t* piv, int32_t* perm) {
  int n = static_cast<int>(c.n), info = 0;
  std::vector<T> s = toColumnMajor(a, n, n);
  std::vector<int> ipiv(std::max(1, n));
  if (n > 0) Lapack<T>::getrf(&n, &n, s.data(), &n, ipiv.data(), &info);  // info > 0: singular, no failure
  fromColumnMajor(s.data(), n, n, f);
  for (int i = 0; i < n; ++i) perm[i] = i;
  for (int i = 0; i < n; ++i) {
    piv[i] = ipiv[i] - 1;
    std::swap(perm[i], perm[piv[i]]);
  }
}

template <typename T>
void qr(const LinalgCall& c, const T* a, T* q, T* r) {
  int m = static_cast<int>(c.m), n = static_cast<int>(c.n), k = std::min(m, n), info = 0;
  int qc = c.fullMatrices ? m : k, rr = c.fullMatrices ? m : k;
  // Room for the m x qc q in the same column-major array as a's reflectors.
  std::vector<T> s(std::max(1, m * std::max(n, qc)), T(0)), tau(std::max(1, k));
  std::vector<T> colA = toColumnMajor(a, m, n);
  std::copy(colA.begin(), colA.begin() + m * n, s.begin());
  T wq;
  int query = -1, lwork;
  if (m > 0 && n > 0) {
    Lapack<T>::geqrf(&m, &n, s.data(), &m, tau.data(), &wq, &query, &info);
    lwork = workSize(wq);
    std::vector<T> work(lwork);
    Lapack<T>::geqrf(&m, &n, s.data(), &m, tau.data(), work.data(), &lwork, &info);
  }
  for (int i = 0; i < rr; ++i)
    for (int j = 0; j < n; ++j) r[i * n + j] = j >= i && i < m ? s[j * m + i] : T(0);
  if (m == 0 || qc == 0) return;
  Lapack<T>::orgqr(&m, &qc, &k, s.data(), &m, tau.data(), &wq, &query, &info);
  lwork = workSize(wq);
  std::vector<T> work(lwork);
  Lapack<T>::orgqr(&m, &qc, &k, s.data(), &m, tau.data(), work.data(), &lwork, &info);
  fromColumnMajor(s.data(), m, qc, q);
}

template <typename T>
void eigh(const LinalgCall& c, const T* a, Part<T>* w, T* v) {
  int n = static_cast<int>(c.n), info = 0;
  if (n == 0) return;
  std::vector<T> s(n * n);
  for (int i = 0; i < n; ++i)  // (a + a^H) / 2, column-major
    for (int j = 0; j < n; ++j) s[j * n + i] = (a[i * n + j] + conjugate(a[j * n + i])) / T(2);
  T wq;
  int iwq, query = -1;
  if constexpr (kIsStdComplex<T>) {
    Part<T> rwq;
    Lapack<T>::heevd("V", "L", &n, s.data(), &n, w, &wq, &query, &rwq, &query, &iwq, &query, &info);
    int lwork = workSize(wq), lrwork = workSize(rwq), liwork = std::max(1, iwq);
    std::vector<T> work(lwork);
    std::vector<Part<T>> rwork(lrwork);
    std::vector<int> iwork(liwork);
    Lapack<T>::heevd("V", "L", &n, s.data(), &n, w, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(),
                     &liwork, &info);
  } else {
    Lapack<T>::syevd("V", "L", &n, s.data(), &n, w, &wq, &query, &iwq, &query, &info);
    int lwork = workSize(wq), liwork = std::max(1, iwq);
    std::vector<T> work(lwork);
    std::vector<int> iwork(liwork);
    Lapack<T>::syevd("V", "L", &n, s.data(), &n, w, work.data(), &lwork, iwork.data(), &liwork, &info);
  }
  if (info != 0) {
    fillNaN(w, n);
    return fillNaN(v, c.n * c.n);
  }
  fromColumnMajor(s.data(), n, n, v);
  normaliseSigns(v, c.n, c.n, c.n);
}

template <typename T>
void svd(const LinalgCall& c, const T* a, T* u, Part<T>* sv, T* vt) {
  int m = static_cast<int>(c.m), n = static_cast<int>(c.n), k = std::min(m, n), info = 0;
  int uc = c.fullMatrices ? m : k, vr = c.fullMatrices ? n : k;
  if (k == 0) {  // an empty matrix: u and vt are identities
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < uc; ++j) u[i * uc + j] = i == j;
    for (int i = 0; i < vr; ++i)
      for (int j = 0; j < n; ++j) vt[i * n + j] = i == j;
    return;
  }
  std::vector<T> s = toColumnMajor(a, m, n), cu(m * uc), cvt(vr * n);
  std::vector<int> iwork(8 * k);
  const char* job = c.fullMatrices ? "A" : "S";
  T wq;
  int query = -1;
  if constexpr (kIsStdComplex<T>) {  // ?gesdd's real workspace for jobz "A" / "S": LAPACK <= 3.6's
    int64_t mx = std::max(m, n), mn = k;  // bound, which covers the later, smaller one
    std::vector<Part<T>> rwork(static_cast<size_t>(mn * std::max(5 * mn + 7, 2 * mx + 2 * mn + 1)));
    Lapack<T>::gesdd(job, &m, &n, s.data(), &m, sv, cu.data(), &m, cvt.data(), &vr, &wq, &query, rwork.data(),
                     iwork.data(), &info);
    int lwork = workSize(wq);
    std::vector<T> work(lwork);
    Lapack<T>::gesdd(job, &m, &n, s.data(), &m, sv, cu.data(), &m, cvt.data(), &vr, work.data(), &lwork,
                     rwork.data(), iwork.data(), &info);
  } else {
    Lapack<T>::gesdd(job, &m, &n, s.data(), &m, sv, cu.data(), &m, cvt.data(), &vr, &wq, &query, iwork.data(), &info);
    int lwork = workSize(wq);
    std::vector<T> work(lwork);
    Lapack<T>::gesdd(job, &m, &n, s.data(), &m, sv, cu.data(), &m, cvt.data(), &vr, work.data(), &lwork,
                     iwork.data(), &info);
  }
  if (info != 0) {
    fillNaN(u, int64_t{m} * uc);
    fillNaN(sv, k);
    return fillNaN(vt, int64_t{vr} * n);
  }
  fromColumnMajor(cu.data(), m, uc, u);
  fromColumnMajor(cvt.data(), vr, n, vt);
  normaliseSigns(u, m, k, uc, vt, n, true, n);
}

template <typename T>
void runOne(const LinalgCall& c, int64_t b, const void* in0, const void* in1, void* const* out) {
  auto at = [&](const void* p, int64_t elems) { return static_cast<const T*>(p) + b * elems; };
  auto outAt = [&](int i) { return static_cast<T*>(out[i]) + b * c.outputElems(i); };
  const T* a = at(in0, c.inputElems(0));
  if (c.op == Op::Cholesky) {
    cholesky(c, a, outAt(0));
  } else if (c.op == Op::TriangularSolve) {
    triangularSolve(c, a, at(in1, c.inputElems(1)), outAt(0));
  } else if (c.op == Op::Lu) {
    lu(c, a, outAt(0), static_cast<int32_t*>(out[1]) + b * c.n, static_cast<int32_t*>(out[2]) + b * c.n);
  } else if (c.op == Op::Qr) {
    qr(c, a, outAt(0), outAt(1));
  } else if (c.op == Op::Eigh) {  // w is real: n values per matrix
    eigh(c, a, static_cast<Part<T>*>(out[0]) + b * c.n, outAt(1));
  } else {
    SCN_ASSERT(c.op == Op::Svd, "not a linalg op");
    svd(c, a, outAt(0), static_cast<Part<T>*>(out[1]) + b * c.outputElems(1), outAt(2));
  }
}

}  // namespace

}  // namespace scn::cpu

extern "C" void scn_linalg(scn::cpu::RuntimeCtx* ctx, int32_t op, int32_t dtype, int64_t batch, int64_t m,
                           int64_t n, int64_t k, int32_t flags, const void* in0, const void* in1, void* out0,
                           void* out1, void* out2) {
  using namespace scn;
  cpu::prepareGemmLibrary();  // one OpenBLAS thread (Note [Calling LAPACK])
  LinalgCall c = linalgCallFromFlags(static_cast<Op>(op), static_cast<DType>(dtype), batch, m, n, k, flags);
  if (isFftOp(c.op)) return cpu::runFftw(ctx, c, in0, out0);
  void* out[3] = {out0, out1, out2};
  auto run = [&](int64_t lo, int64_t hi) {
    for (int64_t b = lo; b < hi; ++b) {
      switch (c.dtype) {
        case DType::F32: cpu::runOne<float>(c, b, in0, in1, out); break;
        case DType::F64: cpu::runOne<double>(c, b, in0, in1, out); break;
        case DType::C64: cpu::runOne<std::complex<float>>(c, b, in0, in1, out); break;
        default: cpu::runOne<std::complex<double>>(c, b, in0, in1, out); break;
      }
    }
  };
  if (ctx && ctx->pool && batch > 1) ctx->pool->parallelFor(batch, run);
  else run(0, batch);
}
