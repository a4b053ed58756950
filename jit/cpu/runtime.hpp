// The CPU runtime that JIT-compiled code calls: a persistent thread pool, the parallel-for
// entry and GEMM's entry (jit/cpu/gemm.hpp). No LLVM here.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace scn {
struct CollectiveFailure;  // jit/collectives.hpp
namespace kir {
struct CollectiveCall;  // jit/kernel/kernel_ir.hpp
}
}  // namespace scn

namespace scn::cpu {

/// A fixed set of worker threads that split a range with the calling thread.
class ThreadPool {
 public:
  /// threads: total threads including the caller (<= 1: everything runs on the caller).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  int size() const { return static_cast<int>(workers_.size()) + 1; }
  /// Runs body(begin, end) over [0, n) in contiguous chunks that the threads take as they
  /// become free (Note [Dynamic chunks]); returns when all are done.
  void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& body);

 private:
  void work(int id);
  /// Takes chunks of [0, n) from nextChunk_ until none is left (Note [Dynamic chunks]).
  void runChunks(const std::function<void(int64_t, int64_t)>& body, int64_t n);
  std::vector<std::thread> workers_;
  std::mutex callMutex_;  // one parallelFor at a time
  std::mutex m_;
  std::condition_variable start_, done_;
  const std::function<void(int64_t, int64_t)>* job_ = nullptr;
  int64_t n_ = 0;
  std::atomic<int64_t> nextChunk_{0};
  uint64_t generation_ = 0;
  int active_ = 0;      // workers that joined the current job and have not finished it
  bool closed_ = true;  // the caller ran out of chunks: late workers skip the job (Note [Late workers])
  bool stop_ = false;
};

/// What generated code receives besides the buffer table (layout is read by llvm_emit.cpp).
struct RuntimeCtx {
  ThreadPool* pool = nullptr;  // offset 0
  int64_t copiedBytes = 0;     // offset 8: loop-carry bytes copied
  /// The program's collective calls (kir::Program::collectives), for scn_collective.
  const std::vector<kir::CollectiveCall>* collectives = nullptr;
  /// The call that failed and why: compiled code returns at once (Note [Collective steps]).
  int failedCollective = -1;
  std::shared_ptr<CollectiveFailure> collectiveFailure;
};

/// A kernel entry point: kernel(bufs, hostVars, begin, end) over dims[0] in [begin, end).
using KernelFn = void (*)(void**, int64_t*, int64_t, int64_t);
/// The entry of a compiled program: (slot table, runtime context, interrupt flag or null);
/// it returns early when the flag is set (Note [Interrupting compiled code]).
using MainFn = void (*)(void**, RuntimeCtx*, const std::atomic<int32_t>*);

}  // namespace scn::cpu

extern "C" {
/// Runs fn over [0, n) of its first dimension on the context's pool.
void scn_parallel_for(scn::cpu::RuntimeCtx* ctx, scn::cpu::KernelFn fn, void** bufs,
                      int64_t* hostVars, int64_t n);
/// C[b] = op(A[b]) @ op(B[b]) for b in [0, batch), row-major; dtype 0 = f32, 1 = f64, 2 = c64, 3 = c128; on the
/// context's pool (Note [One thread pool for GEMM]); then, unless null, the kernel `epilogue`
/// over C's points (epilogueInner elements each) piece by piece (Note [GEMM epilogues]).
void scn_gemm(scn::cpu::RuntimeCtx* ctx, int32_t dtype, int32_t transA, int32_t transB, int64_t m,
              int64_t n, int64_t k, const void* a, int64_t lda, int64_t strideA, const void* b,
              int64_t ldb, int64_t strideB, void* c, int64_t ldc, int64_t strideC, int64_t batch, int32_t accumulate,
              scn::cpu::KernelFn epilogue, void** bufs, int64_t* hostVars, int64_t epilogueInner);
/// The Sort step (kir::SortRows): stable permutations of rows of keys, on the context's pool
/// (jit/cpu/sort.hpp); keyType and permType are DType values.
/// The Linalg step (kir::LinalgStep, Note [Calling LAPACK] in jit/cpu/lapack.cpp): op and dtype
/// are Op and DType values, flags linalgFlags(call); unused operands and results are null.
void scn_linalg(scn::cpu::RuntimeCtx* ctx, int32_t op, int32_t dtype, int64_t batch, int64_t m, int64_t n,
                int64_t k, int32_t flags, const void* in0, const void* in1, void* out0, void* out1, void* out2);
void scn_sort_rows(scn::cpu::RuntimeCtx* ctx, int32_t keyType, const void* keys, int32_t permType, void* perm,
                   int64_t rows, int64_t n);
/// The Collective step (kir::CollectiveStep): ctx->collectives[call] from in into out. Returns
/// 0, or 1 after a failure, which it keeps in ctx (Note [Collective steps] in
/// jit/kernel/lower_collective.cpp): the caller then returns.
int32_t scn_collective(scn::cpu::RuntimeCtx* ctx, int32_t call, const void* in, void* out);
}
