// The host side of a CUDA program: runs the kernel IR's steps (launches, GEMMs, loops, while,
// switch, copies, swaps) against a target that is either the GPU or the host emulation, and
// captures counted loops into graphs that are replayed (Note [Loops on the device]).
#pragma once

#include <atomic>
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
  /// pointer to each of the sig.arity argument values. k indexes the program's kernels, then the
  /// runtime kernels (kernels.size() + RuntimeKernel).
  virtual void launch(int k, const KernelSig& sig, void** args) = 0;
  /// One (batched) row-major GEMM with its operands already offset.
  virtual void gemm(const kir::Gemm& g, const void* a, const void* b, void* c) = 0;
  /// One Linalg op (Note [Linear algebra ops] in jit/linalg.hpp) on device operands and results;
  /// never inside a capture.
  virtual void linalg(const LinalgCall& c, const std::vector<const void*>& in, const std::vector<void*>& out) = 0;
  /// One process collective (Note [Collective steps] in jit/kernel/lower_collective.cpp) from
  /// device operand `in` into device result `out`; never inside a capture. A failure is the
  /// call's diagnostic (E0440...).
  virtual void collective(const kir::CollectiveCall& c, const void* in, void* out) = 0;
  /// Copies `bytes` from src to dst, both on the device.
  virtual void copy(void* dst, const void* src, size_t bytes) = 0;
  /// Copies `bytes` from the device to the host after all issued work has finished.
  virtual void read(void* host, const void* src, size_t bytes) = 0;

  /// Starts recording: launches, GEMMs and copies issued until endCapture() are not run but
  /// become a graph (CUDA stream capture). False when the target cannot capture.
  virtual bool beginCapture() { return false; }
  /// Ends the recording; returns the graph's id for replay().
  virtual int endCapture() { return -1; }
  /// Abandons a recording after an error (no graph is made).
  virtual void abortCapture() {}
  /// Issues graph `g` `times` times in order on the stream, as if its work were issued again.
  virtual void replay(int g, int64_t times) { (void)g, (void)times; }
};

/// A collective step on host memory: runProcessCollective, its failure thrown as the call's
/// diagnostic at the op's span.
void runHostCollective(const kir::CollectiveCall& c, const void* in, void* out);

/// Choices of the step runner (Note [Loops on the device]).
struct StepOptions {
  /// Capture a counted loop when at least this many of its iterations are left to replay; 0
  /// turns capture off (every iteration is issued from the host).
  int64_t minReplayIterations = 8;
  /// Iterations captured in one graph: the swap period, repeated up to this many iterations.
  int64_t unroll = 32;
  /// A loop whose swaps need more iterations than this to return the slots to where they were
  /// is not captured.
  int64_t maxPeriod = 8;
  /// Graphs have at most this many nodes (launches, GEMMs, copies).
  int64_t maxGraphNodes = 4096;
  /// While loops run in speculative chunks of up to this many iterations (2, 4, 8, ... whole
  /// swap periods), reading the device back once per chunk; 0: one read per iteration.
  int64_t whileChunk = 32;
  /// Polled once per loop iteration issued from the host and once per while iteration or
  /// speculative chunk: nonzero stops the run with E0507 (Note [Interrupting compiled code]).
  /// Iterations already issued as graph replays run to their end first. Null: never.
  const std::atomic<int32_t>* interrupt = nullptr;
};

/// What the runner did, for tests and benchmarks.
struct StepCounts {
  int64_t graphs = 0;             // graphs captured
  int64_t replays = 0;            // graph launches
  int64_t replayedIterations = 0; // loop iterations that ran inside replayed graphs
  int64_t hostIterations = 0;     // loop iterations issued step by step from the host
  int64_t reads = 0;              // device-to-host reads (while flags, switch indices, chunks)
  int64_t whileIterations = 0;    // while bodies that ran inside speculative chunks
};

/// Runs the steps of `p` printed as `src`. `slots` holds each buffer slot's current pointer; Swap
/// steps exchange entries (so on return a result slot may hold another temporary's pointer).
/// `counters` is the device counter table (src.counterSlots i64s; null when there are none).
/// Counts loop-carry copies in stats->copiedBytes when stats is given.
void runSteps(const kir::Program& p, const CudaSource& src, std::vector<void*>& slots,
              void* counters, StepTarget& target, RunStats* stats, const StepOptions& opts = {},
              StepCounts* counts = nullptr);

/// The value of an index expression of host loop counters (step offsets, Loc::offset).
int64_t evalHostIndex(const kir::ExprP& e, const std::vector<int64_t>& hostVars);

}  // namespace scn::cuda
