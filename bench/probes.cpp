// Reference probes measured in the same run as the workloads: memory copy and fill bandwidth on
// both cores, and OpenBLAS SGEMM throughput at W1's matrix size.
#include <cblas.h>

#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "bench/harness.hpp"
#include "jit/cpu/gemm_bf16.hpp"
#include "jit/lowp.hpp"

namespace scn::bench {

namespace {

/// Runs body(begin, end) over [0, n) split across `threads` threads.
template <typename F>
void split(size_t n, int threads, F&& body) {
  std::vector<std::thread> ts;
  for (int t = 1; t < threads; ++t)
    ts.emplace_back([&, t] { body(n * t / threads, n * (t + 1) / threads); });
  body(0, n / threads);
  for (std::thread& t : ts) t.join();
}

}  // namespace

double probeCopyGBs(size_t bytes, int threads, int runs) {
  std::unique_ptr<char[]> a(new char[bytes]), b(new char[bytes]);
  std::memset(a.get(), 1, bytes);
  std::memset(b.get(), 2, bytes);
  Timing t = timeRuns([&] {
    split(bytes, threads, [&](size_t lo, size_t hi) { std::memcpy(b.get() + lo, a.get() + lo, hi - lo); });
  }, runs);
  return 2.0 * static_cast<double>(bytes) / (t.medianMs * 1e6);
}

double probeFillGBs(size_t bytes, int threads, int runs) {
  std::unique_ptr<char[]> a(new char[bytes]);
  std::memset(a.get(), 1, bytes);
  int v = 0;
  Timing t = timeRuns([&] {
    ++v;
    split(bytes, threads, [&](size_t lo, size_t hi) { std::memset(a.get() + lo, v, hi - lo); });
  }, runs);
  return static_cast<double>(bytes) / (t.medianMs * 1e6);
}

// OpenBLAS as scn has set it up (jit/cpu/gemm.cpp: kernels for the CPU's features, one thread
// per call); the probes measure it both ways, so the report can take the better one as "the best
// standalone library rate".
double probeSgemmGFlops(int n, int batch, int runs, bool libraryThreads) {
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  size_t per = static_cast<size_t>(n) * n;
  std::vector<float> a(per * batch, 0.5f), c(per * batch);
  auto one = [&](size_t b) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data() + b * per, n,
                a.data() + b * per, n, 0.0f, c.data() + b * per, n);
  };
  if (libraryThreads) openblas_set_num_threads(hw);
  Timing t = timeRuns([&] {
    if (libraryThreads) {
      for (int b = 0; b < batch; ++b) one(b);
    } else {
      split(batch, hw, [&](size_t lo, size_t hi) { for (size_t b = lo; b < hi; ++b) one(b); });
    }
  }, runs, 0.5);
  openblas_set_num_threads(1);
  return 2.0 * n * n * static_cast<double>(n) * batch / (t.medianMs * 1e6);
}

double probeBf16GemmGFlops(int n, int batch, int runs) {
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  int64_t per = static_cast<int64_t>(n) * n;
  std::vector<uint16_t> a(per * batch, lowp::f32ToBf16(0.5f)), c(per * batch);
  cpu::GemmCall g{cpu::GemmType::BF16, false, false, n, n, n, a.data(), n, per, a.data(), n, per, c.data(), n, per, batch};
  Timing t = timeRuns([&] {
    split(batch, hw, [&](size_t lo, size_t hi) {
      for (size_t b = lo; b < hi; ++b) cpu::bf16GemmRows(g, static_cast<int64_t>(b), 0, n);
    });
  }, runs, 0.5);
  return 2.0 * n * n * static_cast<double>(n) * batch / (t.medianMs * 1e6);
}

void plainMatLoop(float* x, float* tmp, int batch, int n, int reps) {
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  size_t per = static_cast<size_t>(n) * n;
  for (int r = 0; r < reps; ++r) {
    split(batch, hw, [&](size_t lo, size_t hi) {  // one thread per call, as scn calls OpenBLAS
      for (size_t b = lo; b < hi; ++b)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, x + b * per, n,
                    x + b * per, n, 0.0f, tmp + b * per, n);
    });
    plainSqrt(tmp, x, per * batch);
  }
}

}  // namespace scn::bench
