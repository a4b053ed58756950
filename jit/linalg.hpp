// The linear-algebra ops (the Linalg category of jit/ops.def): what one call computes, its
// output types, and the plain reference implementation the interpreter and the CUDA host
// emulation run. The CPU backend runs the same calls through LAPACK (jit/cpu/lapack.cpp).
#pragma once

#include <cmath>
#include <complex>
#include <type_traits>
#include <cstdint>
#include <string>
#include <vector>

#include "jit/ir.hpp"

namespace scn {

// Note [Linear algebra ops]
// Each Linalg op works on the last two axes of its operands (the matrices, row-major) and is
// batched over the leading axes, which all operands share (the tracer broadcasts them). The
// semantics are jax.numpy.linalg's:
//   cholesky(a) -> l           lower l with l l^T = (a + a^T) / 2 (JAX symmetrises the input);
//                              a matrix that is not positive definite gives NaN in l's lower
//                              triangle (the upper stays 0), as JAX.
//   triangular_solve(a, b) -> x  a x = b (a^T x = b when transpose) with a lower or upper
//                              (attrs.lower) triangular [n, n], b [n, k]; only a's triangle is
//                              read; unit_diagonal takes a's diagonal as ones. A zero on the
//                              diagonal gives inf/NaN by the arithmetic (no check, as LAPACK).
//   lu(a) -> (lu, pivots, perm)  partial pivoting, P a = L U with L unit lower and U upper packed
//                              into lu; pivots (i32, LAPACK's getrf, 0-based): row i was swapped
//                              with row pivots[i]; perm (i32): row i of P a is row perm[i] of a.
//                              A singular matrix is no error (a zero pivot stays in U).
//   qr(a) -> (q, r)            Householder, LAPACK's sign convention (r's diagonal is -sign of
//                              the pivot column's head times its norm); full_matrices: q [m, m],
//                              r [m, n]; else q [m, k], r [k, n], k = min(m, n).
//   eigh(a) -> (w, v)          of the symmetrised a: eigenvalues ascending, eigenvectors the
//                              columns of v, each with its largest-magnitude entry positive (the
//                              first such entry when several tie): JAX's signs are not unique.
//   svd(a) -> (u, s, vt)       singular values descending; the pairs of singular vectors signed
//                              as eigh signs u's columns; full_matrices: u [m, m], vt [n, n], else
//                              u [m, k], vt [k, n]. Under full_matrices the extra columns of u (rows
//                              of vt) are any orthonormal completion (not unique).
// Empty matrices (n = 0) give empty results; a batch of 0 matrices does nothing. Every op also
// takes complex matrices (c64, c128), with the conjugate transpose where the real case has the
// transpose: cholesky factors the Hermitian part (a + a^H) / 2 as l l^H (NaN in both parts where
// it fails), eigh the same part (w real), svd gives a = u s vt with vt the conjugate transpose of
// v (s real), qr keeps LAPACK's real diagonal of r. triangular_solve transposes without
// conjugating (the language conjugates first for trans="C"), and lu pivots on |re| + |im| as
// LAPACK's izamax. Complex eigenvectors and singular vectors are turned by a phase rather than a
// sign (normaliseSigns). The reference computes in std::complex<double>.

/// One call of a Linalg op on `batch` matrices (FFT ops: vectors, Note [FFT ops] in jit/fft.hpp):
/// the sizes and flags of its eqn.
struct LinalgCall {
  Op op = Op::Cholesky;
  DType dtype = DType::F64;  // of the first operand: f32, f64, c64 or c128
  int64_t batch = 1;         // product of the leading axes
  int64_t m = 0, n = 0;      // the (first) operand is [m, n] (square ops: m == n); FFT ops: n is
                             // the transform length, m == n
  int64_t k = 0;             // TriangularSolve: columns of b
  bool lower = true, transpose = false, unitDiagonal = false, fullMatrices = true;

  /// Elements of input i / output i per matrix of the batch.
  int64_t inputElems(int i) const;
  int64_t outputElems(int i) const;
  int numInputs() const;
  int numOutputs() const;
  /// The dtype of input i / output i (lu's pivots are i32; rfft's result complex, irfft's real).
  DType inputDType(int i) const;
  DType outputDType(int i) const;
};

/// The call of a Linalg eqn with these input types (checked by inferTypes first).
LinalgCall linalgCallOf(Op op, const std::vector<Type>& in, const Attrs& attrs);

/// The call's flags (lower, transpose, unitDiagonal, fullMatrices) as bits 0-3, for the CPU
/// runtime's C entry point, and the call made from them again.
int32_t linalgFlags(const LinalgCall& c);
LinalgCall linalgCallFromFlags(Op op, DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k, int32_t flags);

/// The output types of a Linalg op, or an error message (jit/shape_rules.cpp calls it).
std::string inferLinalg(Op op, const std::vector<Type>& in, const Attrs& attrs, std::vector<Type>* out);

/// Runs the call with the reference implementation: in/out point at each operand's and result's
/// first element (row-major, batch after batch).
void linalgReference(const LinalgCall& c, const void* const* in, void* const* out);

/// Sign-normalises vectors as Note [Linear algebra ops] says: column j of the [n, cols]
/// row-major v (stride ld) is negated when its largest-magnitude entry is negative; the same
/// column of `partner` (or row, when partnerRows) is negated with it. Complex vectors are turned
/// by the phase of that entry instead, so that it is real and positive, and the partner by the
/// inverse turn (u's column times e^-it, vt's row times e^it: u s vt unchanged). Shared with
/// the LAPACK path.
template <typename T>
void normaliseSigns(T* v, int64_t n, int64_t cols, int64_t ld, T* partner = nullptr, int64_t partnerLen = 0,
                    bool partnerRows = false, int64_t partnerLd = 0) {
  for (int64_t j = 0; j < cols; ++j) {
    int64_t best = 0;
    for (int64_t i = 1; i < n; ++i)
      if (std::abs(v[i * ld + j]) > std::abs(v[best * ld + j])) best = i;
    if (n == 0) continue;
    T head = v[best * ld + j], turn = T(-1);  // v's column times turn, partner's times 1/turn
    if constexpr (std::is_arithmetic_v<T>) {
      if (!(head < 0)) continue;
    } else {
      auto mag = std::abs(head);
      if (mag == 0 || (head.imag() == 0 && head.real() > 0)) continue;
      turn = std::conj(head) / mag;
    }
    for (int64_t i = 0; i < n; ++i) v[i * ld + j] *= turn;
    if (!partner) continue;
    T back = T(1) / turn;
    for (int64_t i = 0; i < partnerLen; ++i) (partnerRows ? partner[j * partnerLd + i] : partner[i * partnerLd + j]) *= back;
  }
}

}  // namespace scn
