// The CUDA code generator without a GPU: every op's programs compile to PTX through NVRTC, and
// the same CUDA C++ compiled for the host under emulation matches the reference interpreter.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "cuda_test_programs.hpp"
#include "jit/cuda/cuda_backend.hpp"
#include "jit/cuda/cuda_source.hpp"
#include "jit/cuda/emulation.hpp"
#include "jit/cuda/nvrtc.hpp"
#include "jit/kernel/kernel_ir.hpp"

namespace scn {
namespace {

using cudatest::ProgramSet;
using cudatest::TestProgram;

/// Every program lowered and printed once, with kernel names prefixed p<i>_, as one translation
/// unit: one NVRTC compile and one host compile for the whole suite keep the tests fast.
struct Suite {
  ProgramSet set;
  std::vector<kir::Program> lowered;
  std::vector<cuda::CudaSource> sources;
  std::string tu;

  Suite() : set(cudatest::allPrograms()) {
    std::string code;
    for (size_t i = 0; i < set.programs.size(); ++i) {
      const TestProgram& t = set.programs[i];
      EXPECT_EQ(verify(*t.f), "") << t.name;
      lowered.push_back(kir::lower(*t.f));
      sources.push_back(cuda::printCudaKernels(lowered.back(), "p" + std::to_string(i) + "_"));
      code += sources.back().code;
    }
    tu = std::string(cuda::cudaPrelude()) + code;
  }
};

const Suite& suite() {
  static const Suite s;
  return s;
}

std::string describe(const UserError& e) { return e.diag.message; }

TEST(CudaCodegen, TheProgramsCoverEveryOpOfTheTable) {
  for (Op op : allOps()) EXPECT_TRUE(suite().set.used.count(op)) << "no CUDA test program uses " << opName(op);
  EXPECT_GT(suite().set.programs.size(), 150u);
}

TEST(CudaCodegen, EveryKernelCompilesToPtxWithNvrtc) {
  cuda::PtxResult r;
  try {
    r = cuda::compilePtx(suite().tu, cuda::kDefaultArch, nullptr, "suite.cu", cuda::PtxOpt::Fast);
    if (const char* dump = std::getenv("SCN_DUMP_SUITE")) {
      std::ofstream(dump) << suite().tu;
    }
  } catch (const UserError& e) {
    FAIL() << describe(e);
  }
  EXPECT_NE(r.ptx.find(".target sm_90"), std::string::npos);
  int kernels = 0;
  for (const cuda::CudaSource& s : suite().sources)
    for (const cuda::KernelSig& k : s.kernels) {
      ++kernels;
      EXPECT_NE(r.ptx.find(".entry " + k.name + "("), std::string::npos) << k.name;
    }
  EXPECT_GT(kernels, 200);
}

TEST(CudaCodegen, EmittedTranslationUnitIsSelfContained) {
  const TestProgram& t = suite().set.programs.front();
  std::string cu = cuda::emitCuda(t.f);
  EXPECT_EQ(cu.find("#include"), std::string::npos);
  EXPECT_NE(cu.find("extern \"C\" __global__ void k0("), std::string::npos);
  EXPECT_NE(cu.find("blockDim.x * gridDim.x"), std::string::npos);  // grid-stride loop
}

TEST(CudaCodegen, EmulatedKernelsMatchTheInterpreter) {
  std::unique_ptr<cuda::HostModule> m;
  try {
    m = std::make_unique<cuda::HostModule>(suite().tu);
  } catch (const UserError& e) {
    FAIL() << describe(e);
  }
  int checked = 0;
  for (size_t i = 0; i < suite().set.programs.size(); ++i) {
    const TestProgram& t = suite().set.programs[i];
    SCOPED_TRACE(t.name);
    std::vector<Array> want = interpret(*t.f, t.args);
    std::vector<Array> got;
    RunStats stats;
    try {
      // A grid of at most 2 blocks: every kernel with over 512 points loops with its stride.
      got = cuda::runEmulated(suite().lowered[i], suite().sources[i].kernels, *m, t.args,
                              t.f->resultTypes(), &stats, 2);
    } catch (const UserError& e) {
      ADD_FAILURE() << describe(e);
      continue;
    }
    ASSERT_EQ(got.size(), want.size());
    for (size_t j = 0; j < want.size(); ++j) EXPECT_TRUE(ktest::closeArrays(got[j], want[j])) << "result " << j;
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(suite().set.programs.size()));
}

TEST(CudaCodegen, IntegerSemanticsAreBitExactUnderEmulation) {
  // Edge cases of Note [Scalar semantics] as explicit inputs (not left to the random inputs).
  const DType I32 = DType::I32;
  struct Case {
    Op op;
    std::vector<double> a, b;
  };
  std::vector<Case> cases = {
      {Op::Div, {-2147483648.0, 7, -7, 7, 5}, {-1, 0, 2, -2, 5}},
      {Op::FloorDiv, {-2147483648.0, 7, -7, 7, 0}, {-1, 0, 2, -2, 3}},
      {Op::Rem, {-2147483648.0, 7, -7, 7, -6}, {-1, 0, 2, -2, 3}},
      {Op::Pow, {2, -1, 1, 3, 7}, {31, -3, -5, -1, 12}},
      {Op::Shl, {1, 1, -1, 5, 3}, {31, 32, 1, -1, 0}},
      {Op::Shr, {-8, -8, 8, -1, 1}, {1, 40, 2, 31, -2}},
  };
  ktest::Builder b("edges");
  std::vector<Array> args;
  std::vector<int> results;
  for (const Case& c : cases) {
    int x = b.param(ktest::ty(I32, {5})), y = b.param(ktest::ty(I32, {5}));
    results.push_back(b.emit1(c.op, {x, y}));
    args.push_back(cudatest::arr(I32, c.a));
    args.push_back(cudatest::arr(I32, c.b));
  }
  FuncPtr f = b.ret(results);
  std::vector<Array> got = cuda::makeCudaEmulationBackend()->compile(f)->run(args);
  std::vector<Array> want = interpret(*f, args);
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_TRUE(ktest::closeArrays(got[i], want[i])) << opName(cases[i].op);
}

TEST(CudaCodegen, EmulationBackendReportsKernelsAndCarryCopies) {
  const TestProgram* fib = nullptr;
  for (const TestProgram& t : suite().set.programs)
    if (t.name == "scan.fibonacci") fib = &t;
  ASSERT_NE(fib, nullptr);
  std::unique_ptr<Backend> be = cuda::makeCudaEmulationBackend();
  CompileStats cs;
  std::unique_ptr<Executable> exe = be->compile(fib->f, &cs);
  EXPECT_GE(cs.kernels, 1);
  RunStats rs;
  std::vector<Array> got = exe->run(fib->args, &rs);
  std::vector<Array> want = interpret(*fib->f, fib->args);
  EXPECT_TRUE(ktest::closeArrays(got[0], want[0]));
  EXPECT_TRUE(ktest::closeArrays(got[1], want[1]));
  // Both carries start as copies of the parameters (2 x 3 f32), and the new p is the old q,
  // another carry, so it is copied once per iteration (6 x 3 f32).
  EXPECT_EQ(rs.copiedBytes, (2u + 6u) * 3u * 4u);
}

TEST(CudaCodegen, NvrtcFailureIsAnInternalErrorCarryingTheLog) {
  try {
    cuda::compilePtx("extern \"C\" __global__ void k0() { undeclared_thing(); }", "sm_90", nullptr);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code, "E9999");
    EXPECT_NE(e.diag.message.find("NVRTC failed"), std::string::npos) << e.diag.message;
    EXPECT_NE(e.diag.message.find("undeclared_thing"), std::string::npos) << e.diag.message;
    EXPECT_NE(e.diag.message.find("this is a bug"), std::string::npos) << e.diag.message;
  }
}

TEST(CudaCodegen, ArchitecturesAreCheckedAndMapped) {
  EXPECT_EQ(cuda::virtualArch("sm_90"), "compute_90");
  EXPECT_EQ(cuda::virtualArch("compute_80"), "compute_80");
  EXPECT_EQ(cuda::virtualArch("8.9"), "compute_89");
  try {
    cuda::virtualArch("sm_x");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code, "E0422");
    EXPECT_EQ(e.diag.message, "unknown CUDA architecture `sm_x`");
  }
  EXPECT_EQ(cuda::archForDevice(9, 0), "sm_90");
  EXPECT_EQ(cuda::archForDevice(9, 9), "sm_90");  // a device newer than any listed 9.x: PTX of sm_90
}

TEST(CudaCodegen, PtxCacheHitsOnTheSameKeyOnly) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("scn-ptx-cache-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    cuda::PtxCache cache(dir.string());
    const TestProgram& t = suite().set.programs.front();
    std::string cu = cuda::emitCuda(t.f);
    cuda::PtxResult a = cuda::compilePtx(cu, "sm_90", &cache);
    cuda::PtxResult b = cuda::compilePtx(cu, "sm_90", &cache);
    cuda::PtxResult c = cuda::compilePtx(cu, "sm_80", &cache);
    EXPECT_FALSE(a.cacheHit);
    EXPECT_TRUE(b.cacheHit);
    EXPECT_FALSE(c.cacheHit);
    EXPECT_EQ(a.ptx, b.ptx);
    EXPECT_NE(c.ptx.find(".target sm_80"), std::string::npos);
    EXPECT_EQ(cache.hits(), 1);
    EXPECT_EQ(cache.misses(), 2);
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path().extension() == ".ptx";
    EXPECT_EQ(files, 2);
  }
  std::filesystem::remove_all(dir);
}

TEST(CudaCodegen, WithoutADriverTheBackendSaysWhatIsMissing) {
  // The driver is loaded once per process and no other test of this file loads it, so pointing
  // SCN_CUDA_DRIVER at a missing file makes this test mean the same on a machine with a GPU.
  ::setenv("SCN_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  std::string why;
  std::unique_ptr<Backend> be = cuda::makeCudaBackend(&why);
  EXPECT_EQ(be, nullptr);
  EXPECT_NE(why.find("the CUDA driver (/nonexistent/libcuda.so.1) was not found"), std::string::npos) << why;
  std::string why2;
  EXPECT_FALSE(cuda::cudaUsable(&why2));
  EXPECT_EQ(why, why2);
  EXPECT_EQ(cuda::cudaDeviceDescription(), why);
}

}  // namespace
}  // namespace scn
