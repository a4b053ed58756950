// The CUDA backend on a GPU: every test program against the interpreter, cuBLAS GEMMs, the PTX
// cache, memory reuse, loop overhead and single-pass scans (results and bandwidth). Each test skips cleanly where no GPU is usable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cuda_scan_cases.hpp"
#include "cuda_test_programs.hpp"
#include "jit/cuda/cuda_backend.hpp"

namespace scn {
namespace {

using cudatest::TestProgram;

#define SKIP_WITHOUT_GPU()                                                        \
  do {                                                                            \
    std::string why_;                                                             \
    if (!cuda::cudaUsable(&why_)) GTEST_SKIP() << "no usable CUDA GPU: " << why_; \
  } while (0)

/// A backend whose PTX cache is a fresh directory (so compile counts are this test's own).
std::unique_ptr<Backend> gpuBackend(const std::string& cacheDir = "-") {
  cuda::CudaOptions opts;
  opts.cacheDir = cacheDir;
  std::string why;
  std::unique_ptr<Backend> be = cuda::makeCudaBackend(&why, opts);
  EXPECT_NE(be, nullptr) << why;
  return be;
}

TEST(CudaBackend, WithoutAGpuTheReasonNamesTheDriverOrTheDevice) {
  std::string why;
  if (cuda::cudaUsable(&why)) GTEST_SKIP() << "a GPU is usable: " << cuda::cudaDeviceDescription();
  EXPECT_EQ(cuda::makeCudaBackend(&why), nullptr);
  bool named = why.find("libcuda") != std::string::npos || why.find("no CUDA device") != std::string::npos ||
               why.find("cuInit") != std::string::npos;
  EXPECT_TRUE(named) << why;
}

TEST(CudaBackend, EveryTestProgramMatchesTheInterpreterOnTheGpu) {
  SKIP_WITHOUT_GPU();
  std::printf("device: %s\n", cuda::cudaDeviceDescription().c_str());
  std::unique_ptr<Backend> be = gpuBackend("");
  ASSERT_NE(be, nullptr);
  cudatest::ProgramSet set = cudatest::allPrograms();
  int checked = 0;
  for (const TestProgram& t : set.programs) {
    SCOPED_TRACE(t.name);
    std::vector<Array> want = interpret(*t.f, t.args);
    try {
      std::unique_ptr<Executable> exe = be->compile(t.f);
      // Loops host-driven, then captured into CUDA graphs wherever 2 iterations are left
      // (Note [Loops on the device]), as the emulation runs them in CI.
      for (const char* graphs : {"0", "2"}) {
        SCOPED_TRACE(std::string("SCN_CUDA_GRAPHS=") + graphs);
        ::setenv("SCN_CUDA_GRAPHS", graphs, 1);
        std::vector<Array> got = exe->run(t.args);
        ASSERT_EQ(got.size(), want.size());
        for (size_t j = 0; j < want.size(); ++j)
          EXPECT_TRUE(ktest::closeArrays(got[j], want[j])) << "result " << j;
      }
      ::unsetenv("SCN_CUDA_GRAPHS");
      ++checked;
    } catch (const UserError& e) {
      ::unsetenv("SCN_CUDA_GRAPHS");
      ADD_FAILURE() << e.diag.message;
    }
  }
  EXPECT_EQ(checked, static_cast<int>(set.programs.size()));
}

TEST(CudaBackend, MatmulGoesThroughCublasInF32AndF64) {
  SKIP_WITHOUT_GPU();
  std::unique_ptr<Backend> be = gpuBackend();
  ASSERT_NE(be, nullptr);
  for (DType t : {DType::F32, DType::F64})
    for (bool transposed : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(t)) + (transposed ? " with a transposed rhs" : ""));
      // (b, m, k) @ (b, k, n), or (b, n, k) contracted on its last axis (transB).
      ktest::Builder b("mm");
      int64_t B = 3, M = 37, K = 65, N = 29;
      int x = b.param(ktest::ty(t, {B, M, K}));
      int y = b.param(ktest::ty(t, transposed ? Shape{B, N, K} : Shape{B, K, N}));
      Attrs a;
      a.lhsBatch = {0};
      a.rhsBatch = {0};
      a.lhsContract = {2};
      a.rhsContract = {transposed ? 2 : 1};
      FuncPtr f = b.ret({b.emit1(Op::DotGeneral, {x, y}, a)});
      std::vector<Array> args = {ktest::randomArray(t, {B, M, K}, 7, false),
                                 ktest::randomArray(t, transposed ? Shape{B, N, K} : Shape{B, K, N}, 8, false)};
      std::vector<Array> got = be->compile(f)->run(args);
      std::vector<Array> want = interpret(*f, args);
      // cuBLAS sums in another order: a looser tolerance than elementwise ops.
      for (int64_t i = 0; i < want[0].size(); ++i)
        ASSERT_NEAR(got[0].getDouble(i), want[0].getDouble(i), t == DType::F32 ? 1e-3 : 1e-10) << i;
    }
}

TEST(CudaBackend, SecondCompileOfTheSameFunctionHitsThePtxCache) {
  SKIP_WITHOUT_GPU();
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("scn-gpu-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    std::unique_ptr<Backend> be = gpuBackend(dir.string());
    ASSERT_NE(be, nullptr);
    cudatest::ProgramSet set = cudatest::allPrograms();
    const TestProgram& t = set.programs.front();
    CompileStats a, b;
    be->compile(t.f, &a);
    be->compile(t.f, &b);
    EXPECT_FALSE(a.cacheHit);
    EXPECT_TRUE(b.cacheHit);
  }
  std::filesystem::remove_all(dir);
}

/// Microseconds per iteration of a loop: the difference of a 100- and a 10000-iteration scan,
/// with loops captured into CUDA graphs or (SCN_CUDA_GRAPHS=0) every launch issued by the host.
double usPerIteration(Backend& be, const FuncPtr& body, bool xs, bool graphs) {
  ::setenv("SCN_CUDA_GRAPHS", graphs ? "8" : "0", 1);
  double runUs[2] = {0, 0};
  int64_t lengths[2] = {100, 10000};
  for (int i = 0; i < 2; ++i) {
    ktest::Builder b("loop");
    int c0 = b.param(ktest::ty(DType::F32, {1024}));
    Attrs a;
    a.length = lengths[i];
    a.numCarry = 1;
    std::vector<Array> args = {ktest::randomArray(DType::F32, {1024}, 3, false)};
    std::vector<int> ins = {c0};
    if (xs) {
      ins.push_back(b.param(ktest::ty(DType::F32, {lengths[i], 1024})));
      args.push_back(ktest::randomArray(DType::F32, {lengths[i], 1024}, 4, false));
    }
    FuncPtr f = b.ret({b.emit(Op::Scan, ins, a, {body})[0]});
    std::unique_ptr<Executable> exe = be.compile(f);
    exe->run(args);  // warm the pool
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Array> got = exe->run(args);
    runUs[i] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(ktest::closeArrays(got[0], interpret(*f, args)[0]));
  }
  ::unsetenv("SCN_CUDA_GRAPHS");
  return (runUs[1] - runUs[0]) / static_cast<double>(lengths[1] - lengths[0]);
}

TEST(CudaBackend, ScanOverheadPerIteration) {
  SKIP_WITHOUT_GPU();
  std::unique_ptr<Backend> be = gpuBackend();
  ASSERT_NE(be, nullptr);
  // c' = c * 0.5 + 1 on f32[1024]: one small kernel per iteration.
  ktest::Builder body("step");
  int c = body.param(ktest::ty(DType::F32, {1024}));
  int half = body.constant(DType::F32, 0.5, {1024}), one = body.constant(DType::F32, 1, {1024});
  body.ret({body.emit1(Op::Add, {body.emit1(Op::Mul, {c, half}), one})});
  // c' = c * 0.5 + x[i]: the kernel reads the loop counter from the device counter table.
  ktest::Builder bodyX("step_xs");
  int cx = bodyX.param(ktest::ty(DType::F32, {1024})), x = bodyX.param(ktest::ty(DType::F32, {1024}));
  int halfX = bodyX.constant(DType::F32, 0.5, {1024});
  int nx = bodyX.emit1(Op::Add, {bodyX.emit1(Op::Mul, {cx, halfX}), x});
  bodyX.ret({nx, bodyX.emit1(Op::Neg, {nx})});
  for (bool xs : {false, true}) {
    double host = usPerIteration(*be, xs ? bodyX.f : body.f, xs, false);
    double graph = usPerIteration(*be, xs ? bodyX.f : body.f, xs, true);
    const char* what = xs ? "scan over xs" : "scan";
    std::printf("%s: %.2f us per iteration (host-issued launches)\n", what, host);
    std::printf("%s: %.2f us per iteration (CUDA graphs, 32 iterations per replay)\n", what, graph);
    RecordProperty(std::string(xs ? "scan_xs" : "scan") + "_us_per_iteration_host", std::to_string(host));
    RecordProperty(std::string(xs ? "scan_xs" : "scan") + "_us_per_iteration_graphs", std::to_string(graph));
    EXPECT_LT(host, 50.0);   // sanity bounds; the goal for graphs is <= 1 us
    EXPECT_LT(graph, 50.0);
  }
}

TEST(CudaBackend, WhileOverheadPerIteration) {
  SKIP_WITHOUT_GPU();
  std::unique_ptr<Backend> be = gpuBackend();
  ASSERT_NE(be, nullptr);
  // while i < n: (i + 1, x * 0.5 + 1) on f32[1024]; n = 100 and 10000.
  ktest::Builder cond("cond");
  int n = cond.param(ktest::ty(DType::I32)), ci = cond.param(ktest::ty(DType::I32));
  cond.param(ktest::ty(DType::F32, {1024}));
  cond.ret({cond.emit1(Op::Lt, {ci, n})});
  ktest::Builder body("body");
  int bi = body.param(ktest::ty(DType::I32)), bx = body.param(ktest::ty(DType::F32, {1024}));
  int half = body.constant(DType::F32, 0.5, {1024}), one = body.constant(DType::F32, 1, {1024});
  body.ret({body.emit1(Op::Add, {bi, body.constant(DType::I32, 1)}),
            body.emit1(Op::Add, {body.emit1(Op::Mul, {bx, half}), one})});
  ktest::Builder b("while");
  int nn = b.param(ktest::ty(DType::I32)), i0 = b.param(ktest::ty(DType::I32));
  int x0 = b.param(ktest::ty(DType::F32, {1024}));
  Attrs a;
  a.numConsts = 1;
  FuncPtr f = b.ret(b.emit(Op::While, {nn, i0, x0}, a, {cond.f, body.f}));
  std::unique_ptr<Executable> exe = be->compile(f);
  for (const char* chunk : {"0", "32"}) {
    ::setenv("SCN_CUDA_WHILE_CHUNK", chunk, 1);
    double runUs[2] = {0, 0};
    int64_t trips[2] = {100, 10000};
    for (int i = 0; i < 2; ++i) {
      std::vector<Array> args = {cudatest::scalarI32(trips[i]), cudatest::scalarI32(0),
                                 ktest::randomArray(DType::F32, {1024}, 3, false)};
      exe->run(args);  // warm the pool
      auto t0 = std::chrono::steady_clock::now();
      std::vector<Array> got = exe->run(args);
      runUs[i] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      std::vector<Array> want = interpret(*f, args);
      for (size_t j = 0; j < want.size(); ++j) EXPECT_TRUE(ktest::closeArrays(got[j], want[j]));
    }
    double us = (runUs[1] - runUs[0]) / static_cast<double>(trips[1] - trips[0]);
    std::printf("while: %.2f us per iteration (%s)\n", us,
                std::string(chunk) == "0" ? "a flag read per iteration" : "speculative chunks of up to 32");
    RecordProperty(std::string("while_us_per_iteration_chunk") + chunk, std::to_string(us));
    EXPECT_LT(us, 100.0);  // a sanity bound
  }
  ::unsetenv("SCN_CUDA_WHILE_CHUNK");
}

TEST(CudaBackend, SinglePassScansMatchTheInterpreterOnTheGpu) {
  SKIP_WITHOUT_GPU();
  std::unique_ptr<Backend> be = gpuBackend();
  ASSERT_NE(be, nullptr);
  // Axes of at least cuda::kSinglePassScanMin elements are tile scans (Note [Single-pass scans]);
  // each case runs 3 times (fresh tile status every launch, blocks scheduled differently).
  for (const cudatest::ScanCase& c : cudatest::tileScanCases()) {
    SCOPED_TRACE(c.name);
    std::vector<Array> want = interpret(*c.f, c.args);
    std::unique_ptr<Executable> exe = be->compile(c.f);
    for (int run = 0; run < 3; ++run) {
      std::vector<Array> got = exe->run(c.args);
      ASSERT_EQ(got.size(), 1u);
      EXPECT_TRUE(cudatest::checkScan(c, got[0], want[0])) << "run " << run;
    }
  }
}

/// Device GB/s (bytes read + written) of `op` over n elements of t, from the difference of a
/// 10- and a 110-iteration cudatest::bandwidthProgram: the carry never leaves the device and the
/// result is one element, so host copies cancel out. op is CumSum, or Neg for the copy
/// bandwidth a generated elementwise kernel reaches (the baseline of the 0.7 goal).
double deviceGBs(Backend& be, Op op, DType t, int64_t n) {
  double ms[2] = {0, 0};
  int64_t lengths[2] = {10, 110};
  for (int i = 0; i < 2; ++i) {
    FuncPtr f = cudatest::bandwidthProgram(op, t, n, lengths[i]);
    std::unique_ptr<Executable> exe = be.compile(f);
    std::vector<Array> args = {Array::scalar(t, 1.0)};
    exe->run(args);  // warm the pool
    auto t0 = std::chrono::steady_clock::now();
    exe->run(args);
    ms[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  double perIteration = (ms[1] - ms[0]) / static_cast<double>(lengths[1] - lengths[0]) / 1e3;  // s
  return 2.0 * static_cast<double>(n) * static_cast<double>(dtypeSize(t)) / perIteration / 1e9;
}

TEST(CudaBackend, SinglePassScanBandwidth) {
  SKIP_WITHOUT_GPU();
  std::unique_ptr<Backend> be = gpuBackend();
  ASSERT_NE(be, nullptr);
  const int64_t n = int64_t{1} << 26;
  for (DType t : {DType::F32, DType::F64}) {
    double copy = deviceGBs(*be, Op::Neg, t, n);
    double scan = deviceGBs(*be, Op::CumSum, t, n);
    double ratio = scan / copy;
    std::printf("cumsum %s 2^26: %.0f GB/s, copy kernel %.0f GB/s (read + write): %.2f of copy (goal >= 0.7%s)\n",
                dtypeName(t), scan, copy, ratio, ratio >= 0.7 ? ", met" : ", NOT met");
    RecordProperty(std::string("cumsum_") + dtypeName(t) + "_GBs", std::to_string(scan));
    RecordProperty(std::string("copy_") + dtypeName(t) + "_GBs", std::to_string(copy));
    EXPECT_GT(ratio, 0.2);  // a sanity bound; the goal (0.7) is read from the line above
  }
}

TEST(CudaBackend, RepeatedRunsReuseDeviceMemory) {
  SKIP_WITHOUT_GPU();
  std::unique_ptr<Backend> be = gpuBackend();
  ASSERT_NE(be, nullptr);
  ktest::Builder b("big");
  int x = b.param(ktest::ty(DType::F32, {1 << 20}));
  FuncPtr f = b.ret({b.emit1(Op::Exp, {b.emit1(Op::Neg, {x})})});
  std::unique_ptr<Executable> exe = be->compile(f);
  std::vector<Array> args = {ktest::randomArray(DType::F32, {1 << 20}, 5, false)};
  RunStats first;
  exe->run(args, &first);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) exe->run(args);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 20;
  std::printf("exp(-x) on 4 MiB, copies included: %.3f ms per run\n", ms);
  EXPECT_GE(first.peakBytes, size_t{8} << 20);  // the parameter and the result
}

}  // namespace
}  // namespace scn
