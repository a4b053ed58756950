// The host side of a CUDA program: runs the kernel IR's steps (launches, GEMMs, loops, while,
// switch, copies, swaps) against a target that is either the GPU or the host emulation.
#pragma once

#include <cstdint>
#include <vector>

#include "jit/backend.hpp"
#include "jit/cuda/cuda_source.hpp"
#include "jit/kernel/kernel_ir.hpp"

namespace scn::cuda {

/// What the step runner drives. Pointers are device addresses (host addresses under emulation).
/// Work is issued in order on one stream; only read() waits for it.
class StepTarget {
 public:
  virtual ~StepTarget() = default;
  /// Launches kernel `k` (never with 0 points); args as cuLaunchKernel's kernelParams: one
  /// pointer to each argument's value, in the order of sig.buffers then sig.hostVars.
  virtual void launch(int k, const KernelSig& sig, void** args) = 0;
  /// One (batched) row-major GEMM with its operands already offset.
  virtual void gemm(const kir::Gemm& g, const void* a, const void* b, void* c) = 0;
  /// Copies `bytes` from src to dst, both on the device.
  virtual void copy(void* dst, const void* src, size_t bytes) = 0;
  /// Copies `bytes` from the device to the host after all issued work has finished.
  virtual void read(void* host, const void* src, size_t bytes) = 0;
};

/// Runs the steps of `p`. `slots` holds each buffer slot's current pointer; Swap steps exchange
/// entries (so on return a result slot may hold another temporary's pointer). Counts loop-carry
/// copies in stats->copiedBytes when stats is given.
void runSteps(const kir::Program& p, const std::vector<KernelSig>& sigs, std::vector<void*>& slots,
              StepTarget& target, RunStats* stats);

/// The value of an index expression of host loop counters (step offsets, Loc::offset).
int64_t evalHostIndex(const kir::ExprP& e, const std::vector<int64_t>& hostVars);

}  // namespace scn::cuda
