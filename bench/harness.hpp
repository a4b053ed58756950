// The benchmark harness's shared pieces: median timing after a warm-up, a resident-memory peak
// sampler, and the JSON records that bench/report.py joins with the JAX side into one table.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace scn::bench {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// The median of `runs` (or more, until minSeconds have passed) calls of f after one warm-up.
struct Timing {
  double medianMs = 0;
  double minMs = 0;
  int runs = 0;
};

template <typename F>
Timing timeRuns(F&& f, int runs, double minSeconds = 0.0, int maxRuns = 200) {
  f();  // warm-up (the first call compiles; caches and pages are hot afterwards)
  std::vector<double> ms;
  auto start = Clock::now();
  while (static_cast<int>(ms.size()) < runs ||
         (msSince(start) < minSeconds * 1e3 && static_cast<int>(ms.size()) < maxRuns)) {
    auto t0 = Clock::now();
    f();
    ms.push_back(msSince(t0));
  }
  std::sort(ms.begin(), ms.end());
  return Timing{ms[ms.size() / 2], ms.front(), static_cast<int>(ms.size())};
}

/// Interleaved timing of several variants (one call of each per round, after a warm-up call of
/// each), so that a load change on a shared machine hits all of them alike: the ratios of the
/// medians stay meaningful when the absolute times drift.
template <typename F>
std::vector<Timing> timeInterleaved(const std::vector<F>& fs, int runs, double minSeconds = 0.0,
                                    int maxRuns = 200) {
  for (const F& f : fs) f();
  std::vector<std::vector<double>> ms(fs.size());
  auto start = Clock::now();
  while (static_cast<int>(ms[0].size()) < runs ||
         (msSince(start) < minSeconds * 1e3 && static_cast<int>(ms[0].size()) < maxRuns)) {
    for (size_t i = 0; i < fs.size(); ++i) {
      auto t0 = Clock::now();
      fs[i]();
      ms[i].push_back(msSince(t0));
    }
  }
  std::vector<Timing> out;
  for (std::vector<double>& m : ms) {
    std::sort(m.begin(), m.end());
    out.push_back(Timing{m[m.size() / 2], m.front(), static_cast<int>(m.size())});
  }
  return out;
}

/// Resident set size of this process, in bytes.
inline size_t residentBytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<size_t>(resident) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

/// The peak increase of resident memory while it is alive (a thread polls every 0.2 ms):
/// what %memit calls the increment.
class PeakSampler {
 public:
  PeakSampler() : base_(residentBytes()), peak_(base_) {
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        size_t r = residentBytes();
        if (r > peak_.load()) peak_.store(r);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  ~PeakSampler() { stop(); }
  /// Stops sampling; returns the increment in bytes.
  size_t stop() {
    if (thread_.joinable()) {
      size_t r = residentBytes();
      if (r > peak_.load()) peak_.store(r);
      stop_.store(true);
      thread_.join();
    }
    return peak_.load() - base_;
  }

 private:
  size_t base_;
  std::atomic<size_t> peak_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// One measurement, printed as a JSON line (fields < 0 are left out).
struct Record {
  std::string sys = "scn";  // scn, interp, c++, probe
  std::string workload, variant, size;
  double ms = -1;
  int runs = 0;
  double compileMs = -1;
  double peakBytes = -1;    // resident increment during one call
  double planBytes = -1;    // scn's static buffer plan (RunStats::peakBytes)
  double copiedBytes = -1;  // loop-carry bytes copied per call
  int kernels = -1;
  double value = -1;        // probes: GB/s or GFLOP/s
  std::string unit;
  std::optional<double> check;  // group D: a scalar of the result that JAX's side also prints
};

inline std::string jsonEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

inline void emit(const Record& r) {
  std::string s = "{\"sys\": \"" + jsonEscape(r.sys) + "\", \"workload\": \"" +
                  jsonEscape(r.workload) + "\", \"variant\": \"" + jsonEscape(r.variant) +
                  "\", \"size\": \"" + jsonEscape(r.size) + "\"";
  char buf[128];
  auto num = [&](const char* k, double v) {
    if (v < 0) return;
    std::snprintf(buf, sizeof buf, ", \"%s\": %.6g", k, v);
    s += buf;
  };
  num("ms", r.ms);
  if (r.runs > 0) num("runs", r.runs);
  num("compile_ms", r.compileMs);
  num("peak_bytes", r.peakBytes);
  num("plan_bytes", r.planBytes);
  num("copied_bytes", r.copiedBytes);
  if (r.kernels >= 0) num("kernels", r.kernels);
  num("value", r.value);
  if (!r.unit.empty()) s += ", \"unit\": \"" + jsonEscape(r.unit) + "\"";
  if (r.check) {
    std::snprintf(buf, sizeof buf, ", \"check\": %.17g", *r.check);
    s += buf;
  }
  s += "}\n";
  std::fputs(s.c_str(), stdout);
  std::fflush(stdout);
}

// ---- reference probes (probes.cpp) and hand-written loops (plain_loops.cpp) ----

/// Copy bandwidth in GB/s (bytes read + written) over `bytes`, on `threads` threads.
double probeCopyGBs(size_t bytes, int threads, int runs);
/// Fill bandwidth in GB/s (bytes written).
double probeFillGBs(size_t bytes, int threads, int runs);
/// OpenBLAS SGEMM rate in GFLOP/s for `batch` row-major (n x n) @ (n x n) products.
double probeSgemmGFlops(int n, int batch, int runs, bool libraryThreads);
/// The same products in bf16 as scn runs them (jit/cpu/gemm_bf16.hpp), one thread per call.
double probeBf16GemmGFlops(int n, int batch, int runs);

/// y[i] = sin(x[i] * x[i] + 1), one thread, compiled with -O3 -march=native (libm sinf).
void plainSinLoop(const float* x, float* y, int64_t n);
/// The same loop with -ffast-math, which lets GCC call libmvec's vector sinf.
void plainSinLoopFastMath(const float* x, float* y, int64_t n);
/// y[i] = sqrt(x[i]) (one thread, vectorised).
void plainSqrt(const float* x, float* y, int64_t n);
/// out[0] = x0, out[i] = out[i-1] * a (one thread).
void plainGeometric(double* out, int64_t n, double x0, double a);
/// x = sqrt(x @ x) `reps` times for a (batch, n, n) f32 array: OpenBLAS plus a sqrt loop.
void plainMatLoop(float* x, float* tmp, int batch, int n, int reps);

}  // namespace scn::bench
