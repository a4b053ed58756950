// The discrete Fourier transform ops (fft, ifft, rfft, irfft of jit/ops.def): their plain
// reference implementation, which the interpreter and the CUDA host step run and the CPU's FFTW
// path (jit/cpu/fftw.cpp) is tested against.
#pragma once

#include <cstdint>

#include "jit/linalg.hpp"

namespace scn {

// Note [FFT ops]
// Each op transforms the last axis of its operand and is batched over the leading ones, like
// the matrix ops of Note [Linear algebra ops], whose category (Linalg: a host routine of the
// backend's runner) and step it shares. With n the transform length (LinalgCall::n):
//   fft    c[.., n] -> c[.., n]        X[k] = sum_t x[t] exp(-2 pi i k t / n)
//   ifft   c[.., n] -> c[.., n]        x[t] = (1/n) sum_k X[k] exp(+2 pi i k t / n)
//   rfft   f[.., n] -> c[.., n/2+1]    the first n/2+1 outputs of fft of the real input
//   irfft  c[.., n/2+1] -> f[.., n]    ifft of the Hermitian extension (X[n-k] = conj X[k]),
//                                      real part; the imaginary parts of X[0] and (n even) of
//                                      X[n/2] are ignored, as numpy's and JAX's
// (c64 pairs with f32, c128 with f64). jax.numpy.fft's n=, axes, norm= and the 2-d and n-d
// transforms are built on these by the tracer (lang/builtins_fft.cpp); n >= 1 always.
// The reference is textbook radix-2 Cooley-Tukey for powers of two and Bluestein's chirp-z
// convolution otherwise, in double precision with each twiddle computed directly (no
// recurrence): O(n log n) for every n, so the CUDA host step stays usable on large inputs.

inline bool isFftOp(Op op) { return op == Op::Fft || op == Op::Ifft || op == Op::Rfft || op == Op::Irfft; }

/// Runs an FFT call (isFftOp(c.op)) with the reference implementation.
void fftReference(const LinalgCall& c, const void* in, void* out);

}  // namespace scn
