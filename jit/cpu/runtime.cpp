// The CPU runtime: thread pool, parallel-for, the GEMM entry (jit/cpu/gemm.cpp does the work).
#include "jit/cpu/runtime.hpp"

#include "base/float_env.hpp"
#include "jit/cpu/gemm.hpp"

namespace scn::cpu {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

// Note [Late workers]
// A worker that another process keeps off its core may wake for a job only milliseconds after
// it was posted. The caller takes chunks too, and when it has taken the last one it waits only
// for the workers that joined the job (and hold chunks), not for those that have not woken
// yet: it closes the job, and a worker that wakes to a closed job goes back to sleep. Waiting
// for every worker's wake-up cost a scheduler time slice per parallel call under one busy core
// (W1 makes 32 of them a call), and on an idle machine a small kernel no longer waits for the
// worker's wake-up when the caller has already done all of it.
void ThreadPool::work(int id) {
  FlushDenormals::forThisThread();  // Note [Denormals flushed to zero]
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int64_t, int64_t)>* job;
    int64_t n;
    {
      std::unique_lock<std::mutex> lock(m_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (closed_) continue;
      ++active_;
      job = job_;
      n = n_;
    }
    runChunks(*job, n);
    {
      std::lock_guard<std::mutex> lock(m_);
      if (--active_ == 0) done_.notify_one();
    }
  }
}

// Note [Dynamic chunks]
// [0, n) is cut into up to kChunksPerThread chunks per thread, which the threads take from an
// atomic counter as they finish the previous one. With one fixed slice per thread, a call lasts
// as long as its slowest thread, and on a shared machine a thread often waits for a core that
// another process holds; with chunks the running threads take over its share. Chunks stay
// contiguous and large (a kernel's first dimension in ~16 pieces on 2 cores), so the counter
// costs nothing measurable.
constexpr int64_t kChunksPerThread = 8;

void ThreadPool::runChunks(const std::function<void(int64_t, int64_t)>& body, int64_t n) {
  int64_t chunks = std::min<int64_t>(n, kChunksPerThread * size());
  for (int64_t c = nextChunk_.fetch_add(1); c < chunks; c = nextChunk_.fetch_add(1))
    body(n * c / chunks, n * (c + 1) / chunks);
}

void ThreadPool::parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& body) {
  if (workers_.empty() || n < 2) {
    if (n > 0) body(0, n);
    return;
  }
  std::lock_guard<std::mutex> call(callMutex_);
  {
    std::lock_guard<std::mutex> lock(m_);
    job_ = &body;
    n_ = n;
    nextChunk_.store(0);
    active_ = 0;
    closed_ = false;
    ++generation_;
  }
  start_.notify_all();
  runChunks(body, n);
  std::unique_lock<std::mutex> lock(m_);
  closed_ = true;  // Note [Late workers]
  done_.wait(lock, [&] { return active_ == 0; });
  job_ = nullptr;
}

}  // namespace scn::cpu

using scn::cpu::KernelFn;
using scn::cpu::RuntimeCtx;

extern "C" void scn_parallel_for(RuntimeCtx* ctx, KernelFn fn, void** bufs, int64_t* hostVars,
                                 int64_t n) {
  if (!ctx->pool) {
    fn(bufs, hostVars, 0, n);
    return;
  }
  ctx->pool->parallelFor(n, [&](int64_t b, int64_t e) { fn(bufs, hostVars, b, e); });
}

extern "C" void scn_gemm(RuntimeCtx* ctx, int32_t dtype, int32_t transA, int32_t transB, int64_t m,
                         int64_t n, int64_t k, const void* a, int64_t lda, int64_t strideA,
                         const void* b, int64_t ldb, int64_t strideB, void* c, int64_t ldc,
                         int64_t strideC, int64_t batch, int32_t accumulate, scn::cpu::KernelFn epilogue,
                         void** bufs, int64_t* hostVars, int64_t epilogueInner) {
  scn::cpu::GemmCall g{static_cast<scn::cpu::GemmType>(dtype), transA != 0, transB != 0, m, n, k, a, lda, strideA, b, ldb,
                       strideB, c, ldc, strideC, batch, accumulate != 0, {epilogue, bufs, hostVars, epilogueInner}};
  scn::cpu::runGemm(ctx ? ctx->pool : nullptr, g);
}
