// Kernel IR -> CUDA C++: one extern "C" __global__ function per kernel, after the scalar prelude.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jit/ir.hpp"
#include "jit/kernel/kernel_ir.hpp"

namespace scn::cuda {

/// How a printed kernel is called: its name, then one pointer per buffer slot it touches and,
/// when it reads loop counters or is guarded, one pointer to the device counter table (Note
/// [Loops on the device] in steps.cpp), in that order (the cuLaunchKernel parameter list).
struct KernelSig {
  std::string name;
  std::vector<int> buffers;   // buffer slots, ascending
  std::vector<int> hostVars;  // host variable ids it reads, ascending (from the counter table)
  int64_t points = 1;         // size of the parallel index space (0: never launched)
  int arity = 0;              // launch arguments (each a pointer or an i64: 8 bytes)
  bool guarded = false;       // launched inside a while loop: returns at once when the table's
                              // while-active entry is 0 (a speculative iteration past the end)
};

/// The printed kernels of one program (without the prelude) and their signatures, indexed like
/// Program::kernels. A program with loop counters or while loops also has a device counter
/// table and the runtime kernels that drive it (Note [Loops on the device]).
struct CudaSource {
  std::string code;
  std::vector<KernelSig> kernels;
  /// kRuntimeKernels of them, in the order of RuntimeKernel, when counterSlots > 0; else none.
  std::vector<KernelSig> runtimeKernels;
  /// i64 entries of the counter table: one per loop counter, then (with while loops) the
  /// while-active flag and the count of bodies a speculative chunk ran.
  int counterSlots = 0;
  int whileActive = -1;  // the table entry of the while-active flag; -1 without while loops
};

/// The runtime kernels, one thread each except the copy (grid-stride over bytes):
///   SetCounter(i64* hv, i64 h, i64 v)             hv[h] = v
///   StepCounter(i64* hv, i64 h)                   hv[h] += 1
///   WhileFlag(i64* hv, i64 a, const bool* flag)   if hv[a]: flag ? ++hv[a + 1] : hv[a] = 0
///   GuardedCopy(const i64* hv, i64 a, u8* dst, const u8* src, i64 n)   if hv[a]: copy n bytes
enum class RuntimeKernel : int { SetCounter, StepCounter, WhileFlag, GuardedCopy };
inline constexpr int kRuntimeKernels = 4;

/// The scalar-semantics prelude every translation unit starts with (Note [CUDA prelude]).
const char* cudaPrelude();

/// Prints every kernel of `p` as an extern "C" __global__ function named prefix + kernel name.
/// Under SCN_EMULATION (host emulation) each kernel also gets a host entry
/// scn_emu_<name>(void** args, unsigned grid, unsigned block) that runs its grid as loops.
CudaSource printCudaKernels(const kir::Program& p, const std::string& prefix = "");

/// The whole translation unit: prelude + kernels.
std::string cudaTranslationUnit(const CudaSource& s);

/// The kernel-IR lowering options of every CUDA path (backend, emulation, --emit=cuda|ptx): the
/// scan's first iteration is peeled (Step::start), so a parameter's carry is never copied, and
/// long cumulative axes are single-pass scans (kSinglePassScanMin).
kir::LowerOptions cudaLowerOptions();

/// The shortest cumulative axis the CUDA backend scans with a single-pass scan kernel (Note
/// [Single-pass scans] in jit/kernel/lower_scan.cpp); shorter ones are a loop per row.
inline constexpr int64_t kSinglePassScanMin = 1024;

/// A scatter-add whose updates are narrower than this many elements runs a thread per update
/// element with atomic adds (LowerOptions::atomicScatterBelow, Note [Scatter kernels]).
inline constexpr int64_t kAtomicScatterBelow = 4096;

/// Lowers `f` to kernel IR and prints it as one CUDA C++ translation unit (--emit=cuda); without
/// the prelude (the REPL's `:cuda`, where the same few hundred lines would hide the kernels),
/// only the kernels.
std::string emitCuda(const FuncPtr& f, bool withPrelude = true);
/// The kernel IR the CUDA backend compiles for `f` (--emit=kernels in a build without LLVM).
std::string emitKernels(const FuncPtr& f);

/// Threads per block of every launch, and the grid for a kernel of `points` parallel points
/// (capped: the kernels loop with a grid stride).
constexpr unsigned kBlockSize = 256;
unsigned gridFor(int64_t points);
unsigned blockFor(int64_t points);

/// The C++ type name the prelude gives a dtype (bool, i32, i64, u32, u64, f32, f64).
const char* cudaTypeName(DType t);

}  // namespace scn::cuda
