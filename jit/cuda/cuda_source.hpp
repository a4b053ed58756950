// Kernel IR -> CUDA C++: one extern "C" __global__ function per kernel, after the scalar prelude.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jit/ir.hpp"
#include "jit/kernel/kernel_ir.hpp"

namespace scn::cuda {

/// How a printed kernel is called: its name, then one pointer per buffer slot it touches and one
/// i64 per host loop counter it reads, in that order (the cuLaunchKernel parameter list).
struct KernelSig {
  std::string name;
  std::vector<int> buffers;   // buffer slots, ascending
  std::vector<int> hostVars;  // host variable ids, ascending
  int64_t points = 1;         // size of the parallel index space (0: never launched)
};

/// The printed kernels of one program (without the prelude) and their signatures, indexed like
/// Program::kernels.
struct CudaSource {
  std::string code;
  std::vector<KernelSig> kernels;
};

/// The scalar-semantics prelude every translation unit starts with (Note [CUDA prelude]).
const char* cudaPrelude();

/// Prints every kernel of `p` as an extern "C" __global__ function named prefix + kernel name.
/// Under SCN_EMULATION (host emulation) each kernel also gets a host entry
/// scn_emu_<name>(void** args, unsigned grid, unsigned block) that runs its grid as loops.
CudaSource printCudaKernels(const kir::Program& p, const std::string& prefix = "");

/// The whole translation unit: prelude + kernels.
std::string cudaTranslationUnit(const CudaSource& s);

/// Lowers `f` to kernel IR and prints it as one CUDA C++ translation unit (--emit=cuda).
std::string emitCuda(const FuncPtr& f);

/// Threads per block of every launch, and the grid for a kernel of `points` parallel points
/// (capped: the kernels loop with a grid stride).
constexpr unsigned kBlockSize = 256;
unsigned gridFor(int64_t points);
unsigned blockFor(int64_t points);

/// The C++ type name the prelude gives a dtype (bool, i32, i64, u32, u64, f32, f64).
const char* cudaTypeName(DType t);

}  // namespace scn::cuda
