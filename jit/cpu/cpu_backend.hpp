// The LLVM ORC CPU JIT: lowers an IR Func to kernel IR (jit/kernel), emits LLVM IR, optimises
// it for the host CPU and runs native code. No LLVM types in this header.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "jit/disk_cache.hpp"
#include "jit/backend.hpp"

namespace scn {

struct Diagnostic;

/// Choices of the CPU backend.
struct CpuOptions {
  /// LLVM's pipeline, 0..3 (2 = O2).
  int optLevel = 2;
  /// Directory of the persistent object cache (Note [Object cache]); "" = none.
  std::string cacheDir;
  /// The most bytes the object cache keeps (Note [Cache eviction] in jit/disk_cache.cpp).
  uint64_t cacheMaxBytes = kDefaultCacheMaxBytes;
  /// Polled once per iteration of every compiled loop (Note [Interrupting compiled code]): a
  /// nonzero value stops the run with E0507. Owned by the caller (a session) and outliving the
  /// backend; null = never interrupted.
  const std::atomic<int32_t>* interrupt = nullptr;
  /// Receives the backend's warnings (a refused cache directory, E0411, or an unusable one,
  /// E0430; an error LLVM's JIT
  /// reported on the side, E0412), on the thread that creates the backend or compiles; may be
  /// empty. The backend never prints.
  std::function<void(const Diagnostic&)> warn;
};

/// The CPU JIT backend. One LLJIT, one thread pool and one in-memory compile cache (keyed by the
/// printed kernel IR) per backend object, and optionally a persistent object cache on disk.
std::unique_ptr<Backend> makeCpuBackend(const CpuOptions& opts);
std::unique_ptr<Backend> makeCpuBackend(int optLevel = 2);

/// Bytes of host memory the CPU backend keeps for reuse between runs, no array using them
/// (Note [Recycled blocks] in host_blocks.cpp), and the most it may keep (0: none). Process-wide.
size_t reusableHostBytes();
void setReusableHostLimit(size_t bytes);

/// The kernel IR the CPU backend compiles for `f` (--emit=kernels).
std::string emitKernels(const FuncPtr& f);
/// Optimised LLVM IR text of `f` (--emit=llvm).
std::string emitLLVM(const FuncPtr& f, int optLevel = 2);
/// Host assembly of `f` (--emit=asm).
std::string emitAsm(const FuncPtr& f, int optLevel = 2);

}  // namespace scn
