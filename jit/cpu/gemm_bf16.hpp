// bf16 matrix products on the CPU (Note [bf16 products] in gemm_bf16.cpp): oneDNN's native-bf16
// kernels where the CPU has them, a widened SGEMM elsewhere. No LLVM here.
#pragma once

#include <cstdint>
#include <string>

#include "jit/cpu/gemm.hpp"

namespace scn::cpu {

/// Rows [r0, r1) of C[b] = op(A[b]) @ op(B[b]) for a bf16 GemmCall, on the calling thread:
/// accumulated in f32, rounded once to bf16.
void bf16GemmRows(const GemmCall& g, int64_t b, int64_t r0, int64_t r1);

/// The same rows computed the widen pass's way: operands widened into per-thread f32 scratch,
/// OpenBLAS's SGEMM, the result rounded to bf16 (the fallback, and the tests' reference).
void bf16GemmRowsWidened(const GemmCall& g, int64_t b, int64_t r0, int64_t r1);

/// How many layouts' oneDNN primitives are cached now (at most a fixed bound; for tests).
size_t bf16PrimitivesCached();

/// What multiplies bf16 here: "oneDNN 2.6.3, brg:avx512_core_bf16", or the widened SGEMM and why.
std::string bf16GemmDescription();

}  // namespace scn::cpu
