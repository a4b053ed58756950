// The FFT ops on the CPU through FFTW (Note [Calling FFTW] in jit/cpu/fftw.cpp).
#pragma once

#include "jit/cpu/runtime.hpp"
#include "jit/linalg.hpp"

namespace scn::cpu {

/// Runs an FFT call (isFftOp(c.op), Note [FFT ops] in jit/fft.hpp) on the context's pool.
void runFftw(RuntimeCtx* ctx, const LinalgCall& c, const void* in, void* out);

}  // namespace scn::cpu
