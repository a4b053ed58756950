// Matrix products on the CPU: OpenBLAS with its kernels chosen from the CPU's features
// (Note [Choosing OpenBLAS's kernels]), one library thread per call, the calls spread over scn's
// pool (Note [One thread pool for GEMM]). No LLVM here.
#pragma once

#include <cstdint>
#include <string>

#include "jit/dtype.hpp"

namespace scn::cpu {

class ThreadPool;

/// A kernel entry point as compiled code passes it (runtime.hpp's KernelFn).
using EpilogueFn = void (*)(void**, int64_t*, int64_t, int64_t);

/// A kernel over C's elements run after the product, piece by piece while the piece is in
/// cache (Note [GEMM epilogues] in jit/kernel/gemm_epilogue.cpp): fn(bufs, hostVars, lo, hi)
/// over points [lo, hi) of its first dim, each point `inner` consecutive elements of C.
struct GemmEpilogue {
  EpilogueFn fn = nullptr;
  void** bufs = nullptr;
  int64_t* hostVars = nullptr;
  int64_t inner = 1;
};

/// The element type of a product, as compiled code passes it to scn_gemm (an i32): which
/// library routine runs it.
enum class GemmType : int32_t {
  F32 = 0,   // cblas_sgemm
  F64 = 1,   // cblas_dgemm
  C64 = 2,   // cblas_cgemm
  C128 = 3,  // cblas_zgemm
  BF16 = 4,  // oneDNN or widened (gemm_bf16.hpp)
};

/// The routine for products of t (f32's for the types without their own).
GemmType gemmTypeOf(DType t);

/// C[b] = op(A[b]) @ op(B[b]) for b in [0, batch), row-major (alpha 1, beta 0); with accumulate
/// (f32 and f64), C[b] += op(A[b]) @ op(B[b]) (beta 1).
struct GemmCall {
  GemmType dtype;
  bool transA, transB;
  int64_t m, n, k;
  const void* a;
  int64_t lda, strideA;
  const void* b;
  int64_t ldb, strideB;
  void* c;
  int64_t ldc, strideC, batch;
  bool accumulate = false;
  GemmEpilogue epilogue = {};  // none when fn is null
};

/// Runs g (and its epilogue) on pool (null: on the caller), each library call single-threaded.
void runGemm(ThreadPool* pool, const GemmCall& g);

/// Sets the library up once (kernels, one thread); runGemm calls it, a benchmark may call it
/// first to measure the library as scn uses it.
void prepareGemmLibrary();

/// The kernels prepareGemmLibrary left in use, e.g. "OpenBLAS 0.3.21, core Haswell (chosen by scn
/// from the CPU's features; OpenBLAS picked Prescott)".
std::string gemmLibraryDescription();

/// The OpenBLAS core (its OPENBLAS_CORETYPE name) that a CPU with these features deserves when
/// OpenBLAS picked `picked`, or "" when the pick is already at the CPU's level.
struct CpuVectorFeatures {
  bool avx2Fma = false;  // AVX2 and FMA3
  bool avx512 = false;   // AVX-512 F, BW, DQ and VL (OpenBLAS's SkylakeX kernels need these)
};
std::string betterOpenBlasCore(const std::string& picked, CpuVectorFeatures cpu);
CpuVectorFeatures hostVectorFeatures();
/// Note [Choosing OpenBLAS's kernels]: makes OpenBLAS choose again where its pick is below the
/// CPU's features; returns what runs ("OpenBLAS 0.3.21, core Haswell (...)"). Not thread-safe
/// against products in flight: prepareGemmLibrary calls it once, before the first.
std::string raiseOpenBlasKernels();
/// OpenBLAS's core name and thread count now ("" and 0 when the CBLAS is another library).
std::string openBlasCore();
int openBlasThreads();

}  // namespace scn::cpu
