// The FFT ops on the CPU (Note [FFT ops] in jit/fft.hpp): FFTW from Debian, one transform of
// the batch after another on each task of scn's pool.
#include "jit/cpu/fftw.hpp"

#include <fftw3.h>

#include <climits>
#include <complex>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "base/diagnostics.hpp"
#include "jit/fft.hpp"

namespace scn::cpu {

// Note [Calling FFTW]
// FFTW's planner is not thread-safe but executing a plan is, also on other arrays of the same
// alignment (fftw_execute_dft and friends, the "new-array execute" interface). So plans are
// made under one mutex and kept for the life of the process, keyed by what they depend on (op,
// precision, length and the SIMD alignment of both arrays), and every transform of a batch runs
// one plan on its own row. Plans are FFTW_ESTIMATE: FFTW_MEASURE would time candidate plans on
// the first call (40 s for 2^22 points here; with fftw_set_timelimit(0.3) it found nothing
// faster), overwrite the arrays while doing so, and pick its plan by timing, so that the same
// program could round differently from one process to the next; ESTIMATE's plans are fixed. A
// batch is split over scn's pool, each transform on one thread (Note [One thread pool for
// GEMM]). A complex-to-real transform destroys its input, which may still be live, so each task
// copies its rows into a scratch row first. FFTW leaves the inverse transforms unnormalised: the
// 1/n of ifft and irfft is applied here.
//
// A single long transform (a batch of one, n >= kThreadedFrom) would leave the other cores idle,
// so it gets a plan for as many threads as scn's pool has, and FFTW's threads are scn's: FFTW
// 3.3.9's fftw_threads_set_callback replaces its own thread spawning with a parallel loop we
// give it, which runs the jobs on the pool of the context that is transforming (a thread-local,
// set around the execution; a nested or foreign call finds none and runs its jobs in turn).
// Measured on 2 cores, rfft of 2^22 f32: 33 ms on one thread, 22 ms on two.

namespace {

constexpr int64_t kThreadedFrom = int64_t{1} << 15;

thread_local ThreadPool* tTransformPool = nullptr;  // the pool FFTW's jobs run on, or none

/// FFTW's parallel loop (fftw_threads_set_callback): work(jobdata + i * elsize) for each job.
void parallelLoop(void* (*work)(char*), char* jobdata, size_t elsize, int njobs, void*) {
  ThreadPool* pool = tTransformPool;
  auto jobs = [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) work(jobdata + elsize * static_cast<size_t>(i));
  };
  if (!pool || njobs < 2) return jobs(0, njobs);
  tTransformPool = nullptr;  // a nested loop runs in turn
  pool->parallelFor(njobs, jobs);
  tTransformPool = pool;
}

template <typename R> struct Fftw;
template <> struct Fftw<float> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static constexpr auto planC2C = fftwf_plan_dft_1d;
  static constexpr auto planR2C = fftwf_plan_dft_r2c_1d;
  static constexpr auto planC2R = fftwf_plan_dft_c2r_1d;
  static constexpr auto execC2C = fftwf_execute_dft;
  static constexpr auto execR2C = fftwf_execute_dft_r2c;
  static constexpr auto execC2R = fftwf_execute_dft_c2r;
  static constexpr auto alignmentOf = fftwf_alignment_of;
  static constexpr auto alloc = fftwf_malloc;
  static constexpr auto free = fftwf_free;
  static constexpr auto initThreads = fftwf_init_threads;
  static constexpr auto planWithThreads = fftwf_plan_with_nthreads;
  static constexpr auto setCallback = fftwf_threads_set_callback;
};
template <> struct Fftw<double> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static constexpr auto planC2C = fftw_plan_dft_1d;
  static constexpr auto planR2C = fftw_plan_dft_r2c_1d;
  static constexpr auto planC2R = fftw_plan_dft_c2r_1d;
  static constexpr auto execC2C = fftw_execute_dft;
  static constexpr auto execR2C = fftw_execute_dft_r2c;
  static constexpr auto execC2R = fftw_execute_dft_c2r;
  static constexpr auto alignmentOf = fftw_alignment_of;
  static constexpr auto alloc = fftw_malloc;
  static constexpr auto free = fftw_free;
  static constexpr auto initThreads = fftw_init_threads;
  static constexpr auto planWithThreads = fftw_plan_with_nthreads;
  static constexpr auto setCallback = fftw_threads_set_callback;
};

std::mutex& plannerMutex() {
  static std::mutex m;
  return m;
}

/// The plan of one transform of `op` on n points between arrays aligned like in and out, for
/// `threads` threads.
template <typename R>
typename Fftw<R>::Plan planFor(Op op, int n, void* in, void* out, int threads) {
  using F = Fftw<R>;
  using Key = std::tuple<Op, int, int, int, int>;
  static std::map<Key, typename F::Plan> plans;  // under plannerMutex()
  Key key{op, n, F::alignmentOf(static_cast<R*>(in)), F::alignmentOf(static_cast<R*>(out)), threads};
  std::lock_guard<std::mutex> lock(plannerMutex());
  auto it = plans.find(key);
  if (it != plans.end()) return it->second;
  static const bool threadsReady = [] {
    if (!F::initThreads()) return false;
    F::setCallback(parallelLoop, nullptr);
    return true;
  }();
  F::planWithThreads(threadsReady ? threads : 1);
  auto* ci = static_cast<typename F::Complex*>(in);
  auto* co = static_cast<typename F::Complex*>(out);
  typename F::Plan p;
  if (op == Op::Rfft) p = F::planR2C(n, static_cast<R*>(in), co, FFTW_ESTIMATE);
  else if (op == Op::Irfft) p = F::planC2R(n, ci, static_cast<R*>(out), FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  else p = F::planC2C(n, ci, co, op == Op::Fft ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
  if (!p) internalError(std::string("FFTW made no plan for ") + opName(op) + " of " + std::to_string(n) + " points");
  plans.emplace(key, p);
  return p;
}

/// Transforms rows [lo, hi) of the batch, each with plans for `threads` threads.
template <typename R>
void runRows(const LinalgCall& c, const void* in, void* out, int64_t lo, int64_t hi, int threads) {
  using F = Fftw<R>;
  const int n = static_cast<int>(c.n);
  const int64_t inLen = c.inputElems(0), outLen = c.outputElems(0);
  const bool complexIn = c.op != Op::Rfft, complexOut = c.op != Op::Irfft;
  const size_t inBytes = sizeof(R) * (complexIn ? 2 : 1), outBytes = sizeof(R) * (complexOut ? 2 : 1);
  auto* scratch = c.op == Op::Irfft ? static_cast<R*>(F::alloc(inBytes * inLen)) : nullptr;
  for (int64_t b = lo; b < hi; ++b) {
    auto* src = const_cast<char*>(static_cast<const char*>(in)) + b * inLen * inBytes;
    auto* dst = static_cast<char*>(out) + b * outLen * outBytes;
    if (scratch) src = static_cast<char*>(std::memcpy(scratch, src, inBytes * inLen));
    typename F::Plan p = planFor<R>(c.op, n, src, dst, threads);
    auto* ci = reinterpret_cast<typename F::Complex*>(src);
    auto* co = reinterpret_cast<typename F::Complex*>(dst);
    if (c.op == Op::Rfft) F::execR2C(p, reinterpret_cast<R*>(src), co);
    else if (c.op == Op::Irfft) F::execC2R(p, ci, reinterpret_cast<R*>(dst));
    else F::execC2C(p, ci, co);
    if (c.op == Op::Ifft || c.op == Op::Irfft) {
      R scale = R(1) / static_cast<R>(n);
      R* d = reinterpret_cast<R*>(dst);
      for (int64_t i = 0, e = outLen * (complexOut ? 2 : 1); i < e; ++i) d[i] *= scale;
    }
  }
  if (scratch) F::free(scratch);
}

}  // namespace

void runFftw(RuntimeCtx* ctx, const LinalgCall& c, const void* in, void* out) {
  SCN_ASSERT(isFftOp(c.op), "not an FFT op");
  if (c.n > INT_MAX) return fftReference(c, in, out);  // beyond FFTW's int lengths
  bool single = componentType(c.dtype) == DType::F32;
  ThreadPool* pool = ctx ? ctx->pool : nullptr;
  bool threaded = pool && pool->size() > 1 && c.batch == 1 && c.n >= kThreadedFrom;
  auto rows = [&](int64_t lo, int64_t hi) {
    int threads = threaded ? pool->size() : 1;
    if (single) runRows<float>(c, in, out, lo, hi, threads);
    else runRows<double>(c, in, out, lo, hi, threads);
  };
  if (threaded) {
    tTransformPool = pool;
    rows(0, 1);
    tTransformPool = nullptr;
  } else if (pool && c.batch > 1) {
    pool->parallelFor(c.batch, rows);
  } else {
    rows(0, c.batch);
  }
}

}  // namespace scn::cpu
