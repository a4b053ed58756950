// The CUDA code generator without a GPU: every op's programs compile to PTX through NVRTC, and
// the same CUDA C++ compiled for the host under emulation matches the reference interpreter.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "cuda_scan_cases.hpp"
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
      lowered.push_back(kir::lower(*t.f, cuda::cudaLowerOptions()));
      EXPECT_EQ(kir::verifyProgram(lowered.back()), "") << t.name;  // Note [Kernel IR invariants]
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
  for (Op op : allOps()) {
    // A named collective is never compiled (Note [Named axes]); a process collective is a host
    // step without a kernel, tested in cpu_backend_test and the distributed suite.
    OpCategory cat = opInfo(op).category;
    if (cat == OpCategory::Collective || cat == OpCategory::ProcessCollective) continue;
    EXPECT_TRUE(suite().set.used.count(op)) << "no CUDA test program uses " << opName(op);
  }
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
  // Every program twice: every loop iteration issued from the host, and loops captured into
  // graphs and replayed (Note [Loops on the device]).
  cuda::StepOptions hostDriven;
  hostDriven.minReplayIterations = 0;
  hostDriven.whileChunk = 0;
  int checked = 0;
  cuda::StepCounts counts[2];
  for (size_t i = 0; i < suite().set.programs.size(); ++i) {
    const TestProgram& t = suite().set.programs[i];
    SCOPED_TRACE(t.name);
    std::vector<Array> want = interpret(*t.f, t.args);
    for (int capture = 0; capture < 2; ++capture) {
      SCOPED_TRACE(capture ? "loops captured" : "loops host-driven");
      std::vector<Array> got;
      RunStats stats;
      try {
        // A grid of at most 2 blocks: every kernel with over 512 points loops with its stride.
        got = cuda::runEmulated(suite().lowered[i], suite().sources[i], *m, t.args, t.f->resultTypes(),
                                &stats, 2, capture ? cuda::emulationStepOptions() : hostDriven,
                                &counts[capture]);
      } catch (const UserError& e) {
        ADD_FAILURE() << describe(e);
        continue;
      }
      ASSERT_EQ(got.size(), want.size());
      for (size_t j = 0; j < want.size(); ++j) EXPECT_TRUE(ktest::closeArrays(got[j], want[j])) << "result " << j;
      checked += capture;
    }
  }
  EXPECT_EQ(checked, static_cast<int>(suite().set.programs.size()));
  EXPECT_EQ(counts[0].graphs, 0);
  EXPECT_GT(counts[1].graphs, 0);
  EXPECT_GT(counts[1].replayedIterations, 0);
  EXPECT_EQ(counts[0].whileIterations, 0);
  EXPECT_GT(counts[1].whileIterations, 0);
  EXPECT_LT(counts[1].reads, counts[0].reads);
  EXPECT_LT(counts[1].hostIterations, counts[0].hostIterations);
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
  // Both carries read their parameters in place in the peeled first iteration (no copy), and the
  // new p is the old q, another carry, so it is copied once per iteration (6 x 3 f32), replayed
  // iterations included.
  EXPECT_EQ(rs.copiedBytes, 6u * 3u * 4u);
}

/// W1 in small: x = sqrt(x @ x) as a scan over a parameter (a GEMM in the body); and W3: a scan
/// of 300 steps whose ys go into a concat at offset 1.
std::vector<TestProgram> peeledScans() {
  std::vector<TestProgram> out;
  for (int64_t reps : {1, 2, 5, 40}) {
    Array in = ktest::randomArray(DType::F32, {3, 8, 8}, 21, false);
    for (int64_t i = 0; i < in.size(); ++i) in.setDouble(i, std::fabs(in.getDouble(i)) * 0.1);
    std::string name = "mat_scan" + std::to_string(reps);
    out.push_back({name, ktest::matmulSqrtScan(DType::F32, 3, 8, reps, name), {in}});
  }
  {
    ktest::Builder body("step");
    int a = body.param(ktest::ty(DType::F64)), c = body.param(ktest::ty(DType::F64));
    int nc = body.emit1(Op::Mul, {a, c});
    body.ret({nc, body.emit1(Op::Add, {nc, c})});
    ktest::Builder b("gp");
    int x0 = b.param(ktest::ty(DType::F64)), pa = b.param(ktest::ty(DType::F64));
    Attrs s;
    s.length = 300;
    s.numConsts = 1;
    s.numCarry = 1;
    std::vector<int> r = b.emit(Op::Scan, {pa, x0}, s, {body.f});
    Attrs one;
    one.shape = {1};
    int cat = b.emit1(Op::Concat, {b.emit1(Op::Reshape, {x0}, one), r[1], b.emit1(Op::Reshape, {r[0]}, one)},
                      ktest::axesAttr({0}));
    out.push_back({"gp", b.ret({cat}), {Array::scalar(DType::F64, 1.5), Array::scalar(DType::F64, 1.001)}});
  }
  return out;
}

TEST(CudaCodegen, PeeledScansCopyNoParameterOnTheDevice) {
  std::unique_ptr<Backend> be = cuda::makeCudaEmulationBackend();
  for (const TestProgram& t : peeledScans()) {
    SCOPED_TRACE(t.name);
    RunStats rs;
    std::vector<Array> got = be->compile(t.f)->run(t.args, &rs);
    std::vector<Array> want = interpret(*t.f, t.args);
    ASSERT_EQ(got.size(), want.size());
    for (size_t j = 0; j < want.size(); ++j) EXPECT_TRUE(ktest::closeArrays(got[j], want[j]));
    EXPECT_EQ(rs.copiedBytes, 0u);
  }
}

TEST(CudaCodegen, CountedLoopsAreCapturedOnceAndReplayed) {
  std::vector<TestProgram> ts = peeledScans();
  const TestProgram& gp = ts.back();
  ASSERT_EQ(gp.name, "gp");
  kir::Program p = kir::lower(*gp.f, cuda::cudaLowerOptions());
  cuda::CudaSource src = cuda::printCudaKernels(p);
  ASSERT_EQ(src.runtimeKernels.size(), size_t{cuda::kRuntimeKernels});
  cuda::HostModule m(cuda::cudaTranslationUnit(src));
  std::vector<Array> want = interpret(*gp.f, gp.args);
  cuda::StepCounts counts;
  std::vector<Array> got = cuda::runEmulated(p, src, m, gp.args, gp.f->resultTypes(), nullptr, 0,
                                             cuda::emulationStepOptions(), &counts);
  EXPECT_TRUE(ktest::closeArrays(got[0], want[0]));
  // The peeled iteration 0 runs from the host; 299 are left: 9 replays of a 32-iteration graph
  // (16 swap periods of 2), then 11 from the host.
  EXPECT_EQ(counts.graphs, 1);
  EXPECT_EQ(counts.replays, 9);
  EXPECT_EQ(counts.replayedIterations, 288);
  EXPECT_EQ(counts.hostIterations, 1 + 11);
  EXPECT_EQ(counts.reads, 0);
  // A chunk that is not a whole number of swap periods would leave the carry in the wrong slot.
  cuda::StepOptions odd = cuda::emulationStepOptions();
  odd.unroll = 3;
  cuda::StepCounts oddCounts;
  got = cuda::runEmulated(p, src, m, gp.args, gp.f->resultTypes(), nullptr, 0, odd, &oddCounts);
  EXPECT_TRUE(ktest::closeArrays(got[0], want[0]));
  EXPECT_EQ(oddCounts.replayedIterations, 149 * 2);  // chunks of 2, the largest period multiple <= 3
}

/// Runs `f` under emulation with loops captured where possible; checks it against the
/// interpreter and returns what the step runner did.
cuda::StepCounts runCaptured(const FuncPtr& f, const std::vector<Array>& args,
                             const cuda::StepOptions& opts = cuda::emulationStepOptions()) {
  kir::Program p = kir::lower(*f, cuda::cudaLowerOptions());
  cuda::CudaSource src = cuda::printCudaKernels(p);
  cuda::HostModule m(cuda::cudaTranslationUnit(src));
  cuda::StepCounts counts;
  std::vector<Array> got = cuda::runEmulated(p, src, m, args, f->resultTypes(), nullptr, 0, opts, &counts);
  std::vector<Array> want = interpret(*f, args);
  EXPECT_EQ(got.size(), want.size());
  for (size_t j = 0; j < want.size() && j < got.size(); ++j) EXPECT_TRUE(ktest::closeArrays(got[j], want[j]));
  return counts;
}

TEST(CudaCodegen, LoopsThatNeedTheHostAreNotCaptured) {
  const DType F32 = DType::F32, I32 = DType::I32;
  {
    // A scan whose body multiplies by its slice of xs: the GEMM's operand offset is a pointer
    // computed from the loop's own counter on the host.
    ktest::Builder body("step");
    int c = body.param(ktest::ty(F32, {4, 4})), x = body.param(ktest::ty(F32, {4, 4}));
    Attrs d;
    d.lhsContract = {1};
    d.rhsContract = {0};
    int nc = body.emit1(Op::DotGeneral, {c, x}, d);
    body.ret({nc, body.emit1(Op::ReduceSum, {nc}, ktest::axesAttr({0, 1}))});
    ktest::Builder b("scan_gemm_xs");
    int c0 = b.param(ktest::ty(F32, {4, 4})), xs = b.param(ktest::ty(F32, {6, 4, 4}));
    Attrs a;
    a.length = 6;
    a.numCarry = 1;
    FuncPtr f = b.ret(b.emit(Op::Scan, {c0, xs}, a, {body.f}));
    cuda::StepCounts n = runCaptured(f, {ktest::randomArray(F32, {4, 4}, 1, false),
                                         ktest::randomArray(F32, {6, 4, 4}, 2, false)});
    EXPECT_EQ(n.graphs, 0);
    EXPECT_EQ(n.hostIterations, 6);
    // The control: c @ c + x has its GEMM on the carry (offset 0) and reads x in a kernel.
    ktest::Builder body2("step2");
    int c2 = body2.param(ktest::ty(F32, {4, 4})), x2 = body2.param(ktest::ty(F32, {4, 4}));
    int nc2 = body2.emit1(Op::Add, {body2.emit1(Op::DotGeneral, {c2, c2}, d), x2});
    body2.ret({nc2, body2.emit1(Op::ReduceSum, {nc2}, ktest::axesAttr({0, 1}))});
    ktest::Builder b2("scan_gemm_carry");
    int c02 = b2.param(ktest::ty(F32, {4, 4})), xs2 = b2.param(ktest::ty(F32, {6, 4, 4}));
    FuncPtr f2 = b2.ret(b2.emit(Op::Scan, {c02, xs2}, a, {body2.f}));
    cuda::StepCounts n2 = runCaptured(f2, {ktest::randomArray(F32, {4, 4}, 1, false),
                                           ktest::randomArray(F32, {6, 4, 4}, 2, false)});
    EXPECT_EQ(n2.graphs, 1);
    EXPECT_EQ(n2.replayedIterations, 4);  // after the peeled iteration: 5 left, 2 periods of 2
  }
  {
    // A scan whose body is a while loop: not captured, but the while runs in speculative chunks.
    ktest::Builder cond("cond");
    int ci = cond.param(ktest::ty(I32));
    cond.ret({cond.emit1(Op::Lt, {ci, cond.constant(I32, 3)})});
    ktest::Builder wbody("wbody");
    int wi = wbody.param(ktest::ty(I32));
    wbody.ret({wbody.emit1(Op::Add, {wi, wbody.constant(I32, 1)})});
    ktest::Builder body("step");
    int c = body.param(ktest::ty(I32));
    Attrs wa;
    int w = body.emit1(Op::While, {c}, wa, {cond.f, wbody.f});
    int nc = body.emit1(Op::Sub, {w, body.constant(I32, 2)});
    body.ret({nc, w});
    ktest::Builder b("scan_while");
    int c0 = b.param(ktest::ty(I32));
    Attrs a;
    a.length = 5;
    a.numCarry = 1;
    FuncPtr f = b.ret(b.emit(Op::Scan, {c0}, a, {body.f}));
    cuda::StepCounts n = runCaptured(f, {Array::scalarInt(I32, -4)});
    EXPECT_EQ(n.hostIterations, 5);  // the peeled iteration and 4 more
    // The while runs 7 bodies from -4, then 2 from 1 in each later step: 15 bodies. Chunks of
    // 2, 4, 8 iterations: 3 reads for the first (2 + 4 + 1 bodies), 2 for each later one (2, 0).
    EXPECT_EQ(n.whileIterations, 15);
    EXPECT_EQ(n.reads, 3 + 4 * 2);
    cuda::StepOptions perIteration = cuda::emulationStepOptions();
    perIteration.whileChunk = 0;
    cuda::StepCounts h = runCaptured(f, {Array::scalarInt(I32, -4)}, perIteration);
    EXPECT_EQ(h.whileIterations, 0);
    EXPECT_EQ(h.reads, 8 + 4 * 3);  // one read per condition
  }
}

TEST(CudaCodegen, WhileLoopsRunInSpeculativeChunks) {
  // while i < n: (i, p, q) = (i + 1, q, p + q): the new p is the old q, a carry copied each
  // iteration, so the chunk holds guarded copies as well as guarded kernels.
  const DType F32 = DType::F32, I32 = DType::I32;
  ktest::Builder cond("cond");
  int n = cond.param(ktest::ty(I32)), ci = cond.param(ktest::ty(I32));
  cond.param(ktest::ty(F32, {3}));
  cond.param(ktest::ty(F32, {3}));
  cond.ret({cond.emit1(Op::Lt, {ci, n})});
  ktest::Builder body("body");
  int bi = body.param(ktest::ty(I32)), bp = body.param(ktest::ty(F32, {3})), bq = body.param(ktest::ty(F32, {3}));
  body.ret({body.emit1(Op::Add, {bi, body.constant(I32, 1)}), bq, body.emit1(Op::Add, {bp, bq})});
  for (int64_t trips : {0, 1, 2, 3, 13, 40}) {
    SCOPED_TRACE(trips);
    ktest::Builder b("fib_while");
    int nn = b.param(ktest::ty(I32)), i0 = b.param(ktest::ty(I32));
    int p0 = b.param(ktest::ty(F32, {3})), q0 = b.param(ktest::ty(F32, {3}));
    Attrs a;
    a.numConsts = 1;
    FuncPtr f = b.ret(b.emit(Op::While, {nn, i0, p0, q0}, a, {cond.f, body.f}));
    std::vector<Array> args = {cudatest::scalarI32(trips), cudatest::scalarI32(0),
                               ktest::randomArray(F32, {3}, 5, false), ktest::randomArray(F32, {3}, 6, false)};
    kir::Program p = kir::lower(*f, cuda::cudaLowerOptions());
    ASSERT_GT(kir::countSteps(p.steps, kir::StepKind::Copy), 0) << kir::printKernels(p);
    cuda::CudaSource src = cuda::printCudaKernels(p);
    cuda::HostModule m(cuda::cudaTranslationUnit(src));
    std::vector<Array> want = interpret(*f, args);
    cuda::StepOptions perIteration = cuda::emulationStepOptions();
    perIteration.whileChunk = 0;
    RunStats rs[2];
    cuda::StepCounts counts[2];
    for (int chunks = 0; chunks < 2; ++chunks) {
      std::vector<Array> got = cuda::runEmulated(p, src, m, args, f->resultTypes(), &rs[chunks], 2,
                                                 chunks ? cuda::emulationStepOptions() : perIteration,
                                                 &counts[chunks]);
      ASSERT_EQ(got.size(), want.size());
      for (size_t j = 0; j < want.size(); ++j) EXPECT_TRUE(ktest::closeArrays(got[j], want[j])) << j;
    }
    EXPECT_EQ(counts[1].whileIterations, trips);
    EXPECT_EQ(rs[1].copiedBytes, rs[0].copiedBytes);
    EXPECT_EQ(counts[0].reads, trips + 1);
    EXPECT_LE(counts[1].reads, trips <= 2 ? 2 : trips / 2 + 1);
  }
}

/// The single-pass scan cases (cuda_scan_cases.hpp) lowered with every cumulative axis a tile
/// scan (singlePassScanMin = 1, so that sizes 1 and tile - 1 take the path too), printed into
/// one translation unit.
struct ScanSuite {
  std::vector<cudatest::ScanCase> cases = cudatest::tileScanCases();
  std::vector<kir::Program> lowered;
  std::vector<cuda::CudaSource> sources;
  std::string tu;

  ScanSuite() {
    kir::LowerOptions opts = cuda::cudaLowerOptions();
    opts.singlePassScanMin = 1;
    std::string code;
    for (size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(verify(*cases[i].f), "") << cases[i].name;
      lowered.push_back(kir::lower(*cases[i].f, opts));
      sources.push_back(cuda::printCudaKernels(lowered.back(), "s" + std::to_string(i) + "_"));
      code += sources.back().code;
    }
    tu = std::string(cuda::cudaPrelude()) + code;
  }
};

const ScanSuite& scanSuite() {
  static const ScanSuite s;
  return s;
}

int tileScanKernels(const kir::Program& p) {
  int n = 0;
  for (const kir::Kernel& k : p.kernels) n += k.scan.has_value();
  return n;
}

TEST(CudaCodegen, CumulativeOpsAreOneSinglePassScanOnTheGpuOnly) {
  const ScanSuite& s = scanSuite();
  for (size_t i = 0; i < s.cases.size(); ++i) {
    SCOPED_TRACE(s.cases[i].name);
    const kir::Program& p = s.lowered[i];
    // The status buffer's zeroing kernel, then the scan; nothing else.
    ASSERT_EQ(p.kernels.size(), 2u);
    ASSERT_EQ(tileScanKernels(p), 1);
    const kir::Kernel& k = p.kernels[1];
    EXPECT_EQ(k.scan->tileElems(), cudatest::scanTile(p.buffers.at(p.results[0]).dtype));
    EXPECT_EQ(p.buffers.at(k.scan->status).dtype, DType::U64);
    EXPECT_EQ(p.buffers.at(k.scan->status).elems, kir::tileScanStatusWords(k.scan->tiles(k.dims)));
    EXPECT_EQ(k.dims.back(), s.cases[i].shape[s.cases[i].axis]);
    EXPECT_NE(kir::printKernels(p).find("tile-scan"), std::string::npos);
  }
  // The backend's threshold: a short axis stays a loop per row, a long one is a tile scan; the
  // CPU's lowering (default options) keeps its blocked scan.
  for (const cudatest::ScanCase& c : s.cases) {
    SCOPED_TRACE(c.name);
    int64_t n = c.shape[c.axis];
    EXPECT_EQ(tileScanKernels(kir::lower(*c.f, cuda::cudaLowerOptions())), n >= cuda::kSinglePassScanMin ? 1 : 0);
    kir::Program cpu = kir::lower(*c.f);
    EXPECT_EQ(tileScanKernels(cpu), 0);
    if (n >= 16 * 4096 && c.shape.size() == 1) EXPECT_GE(cpu.kernels.size(), 3u);  // Note [Blocked scans]
  }
  // More than 15 rows: one thread per row, as before.
  ktest::Builder b("rows");
  int x = b.param(ktest::ty(DType::F32, {16, 5000}));
  EXPECT_EQ(tileScanKernels(kir::lower(*b.ret({b.emit1(Op::CumSum, {x}, ktest::axesAttr({1}))}),
                                       cuda::cudaLowerOptions())), 0);
}

int countStmts(const std::vector<kir::Stmt>& body, kir::StmtKind kind) {
  int n = 0;
  for (const kir::Stmt& s : body) n += (s.kind == kind) + countStmts(s.body, kind);
  return n;
}

TEST(CudaCodegen, NarrowScatterAddsAreAThreadPerUpdateWithAtomicAddsOnTheGpuOnly) {
  // A histogram (scalar updates) and a scatter of short rows: on the GPU one thread per update
  // element adds atomically (Note [Scatter kernels]); the CPU keeps one ordered loop, as does a
  // scatter-set on the GPU.
  for (DType t : {DType::I32, DType::F32, DType::I64, DType::F64}) {
    SCOPED_TRACE(dtypeName(t));
    ktest::Builder b("hist");
    int bins = b.param(ktest::ty(t, {16, 3})), u = b.param(ktest::ty(t, {1000, 3})),
        i = b.param(ktest::ty(DType::I32, {1000}));
    FuncPtr add = b.ret({b.emit1(Op::ScatterAdd, {bins, u, i})});
    kir::Program gpu = kir::lower(*add, cuda::cudaLowerOptions());
    const kir::Kernel& k = gpu.kernels.back();
    EXPECT_EQ(k.dims, (std::vector<int64_t>{1000, 3})) << kir::printKernels(gpu);
    EXPECT_EQ(countStmts(k.body, kir::StmtKind::AtomicAdd), 1);
    EXPECT_EQ(countStmts(k.body, kir::StmtKind::Loop), 0);
    EXPECT_EQ(countStmts(kir::lower(*add).kernels.back().body, kir::StmtKind::AtomicAdd), 0);
    // The PTX adds with an atomic (or its no-result form, red).
    cuda::PtxResult r;
    try {
      r = cuda::compilePtx(cuda::cudaTranslationUnit(cuda::printCudaKernels(gpu, "h_")), cuda::kDefaultArch,
                           nullptr, "hist.cu");
    } catch (const UserError& e) {
      FAIL() << describe(e);
    }
    EXPECT_TRUE(r.ptx.find("red.global.add") != std::string::npos ||
                r.ptx.find("atom.global.add") != std::string::npos);
    // Under emulation, with every bin hit many times and some indices dropped, the interpreter's
    // ordered sums (integers exactly; floats to rounding).
    Array idx(DType::I32, {1000}), rows(t, {1000, 3}), zero(t, {16, 3});
    for (int64_t j = 0; j < 1000; ++j) idx.setInt(j, (j * 7) % 21 - 2);
    for (int64_t j = 0; j < 3000; ++j) rows.setDouble(j, double(j % 13) - 4.5 * isFloat(t));
    for (int64_t j = 0; j < 48; ++j) zero.setDouble(j, 0);
    cuda::CudaSource src = cuda::printCudaKernels(gpu, "h_");
    cuda::HostModule m(cuda::cudaTranslationUnit(src));
    std::vector<Array> got = cuda::runEmulated(gpu, src, m, {zero, rows, idx}, add->resultTypes(), nullptr, 2);
    std::vector<Array> want = interpret(*add, {zero, rows, idx});
    EXPECT_TRUE(ktest::closeArrays(got.at(0), want.at(0)));
  }
  ktest::Builder b("set");
  int x = b.param(ktest::ty(DType::F32, {16})), u = b.param(ktest::ty(DType::F32, {100})),
      i = b.param(ktest::ty(DType::I32, {100}));
  kir::Program set = kir::lower(*b.ret({b.emit1(Op::Scatter, {x, u, i})}), cuda::cudaLowerOptions());
  EXPECT_EQ(countStmts(set.kernels.back().body, kir::StmtKind::AtomicAdd), 0);
  EXPECT_EQ(countStmts(set.kernels.back().body, kir::StmtKind::Loop), 1);
}

TEST(CudaCodegen, SinglePassScansCompileToPtx) {
  cuda::PtxResult r;
  try {
    // The backend's options (full optimisation), whose PTX the checks below read.
    r = cuda::compilePtx(scanSuite().tu, cuda::kDefaultArch, nullptr, "scans.cu");
  } catch (const UserError& e) {
    FAIL() << describe(e);
  }
  for (const cuda::CudaSource& s : scanSuite().sources)
    for (const cuda::KernelSig& k : s.kernels) EXPECT_NE(r.ptx.find(".entry " + k.name + "("), std::string::npos) << k.name;
  // The tile counter, the warp scans and look-back, the 8-byte status protocol's fences.
  for (const char* want : {"atom.global.add.u64", "shfl.sync.up", "shfl.sync.down", "vote.sync.ballot",
                           "ld.volatile.global.u64", "st.volatile.global.u64", "membar.gl", "bar.sync"})
    EXPECT_NE(r.ptx.find(want), std::string::npos) << want;
}

TEST(CudaCodegen, SinglePassScansMatchTheInterpreterUnderEmulation) {
  std::unique_ptr<cuda::HostModule> m;
  try {
    m = std::make_unique<cuda::HostModule>(scanSuite().tu);
  } catch (const UserError& e) {
    FAIL() << describe(e);
  }
  const ScanSuite& s = scanSuite();
  for (size_t i = 0; i < s.cases.size(); ++i) {
    const cudatest::ScanCase& c = s.cases[i];
    SCOPED_TRACE(c.name);
    std::vector<Array> want = interpret(*c.f, c.args);
    // Grids of every tile (rounds of up to 64 tiles: look-backs cross up to 63 aggregates and
    // window boundaries), of 2 blocks (every other look-back crosses one aggregate) and of 1
    // block (every predecessor is inclusive): Note [Host emulation].
    for (unsigned grid : {0u, 2u, 1u}) {
      SCOPED_TRACE("grid capped at " + std::to_string(grid));
      std::vector<Array> got = cuda::runEmulated(s.lowered[i], s.sources[i], *m, c.args, c.f->resultTypes(), nullptr, grid);
      ASSERT_EQ(got.size(), 1u);
      EXPECT_TRUE(cudatest::checkScan(c, got[0], want[0]));
    }
  }
}

TEST(CudaCodegen, SinglePassScansInCapturedLoopsZeroTheirStatusEachIteration) {
  // c' = cumsum(c) (i32, wrapping: exact) for 6 iterations over 3 tiles + 1: the captured graph
  // replays the zeroing kernel with the scan, so every iteration starts with fresh tile status.
  int64_t n = 3 * cudatest::scanTile(DType::I32) + 1;
  ktest::Builder body("step");
  int c = body.param(ktest::ty(DType::I32, {n}));
  body.ret({body.emit1(Op::CumSum, {c}, ktest::axesAttr({0}))});
  ktest::Builder b("loop");
  int x = b.param(ktest::ty(DType::I32, {n}));
  Attrs a;
  a.length = 6;
  a.numCarry = 1;
  FuncPtr f = b.ret(b.emit(Op::Scan, {x}, a, {body.f}));
  std::vector<Array> args = {ktest::randomArray(DType::I32, {n}, 77, false)};
  kir::Program p = kir::lower(*f, cuda::cudaLowerOptions());
  ASSERT_EQ(tileScanKernels(p), 1);
  cuda::CudaSource src = cuda::printCudaKernels(p);
  cuda::HostModule m(cuda::cudaTranslationUnit(src));
  cuda::StepCounts counts;
  std::vector<Array> got = cuda::runEmulated(p, src, m, args, f->resultTypes(), nullptr, 0,
                                             cuda::emulationStepOptions(), &counts);
  EXPECT_GT(counts.replayedIterations, 0);
  EXPECT_TRUE(ktest::closeArrays(got[0], interpret(*f, args)[0]));
}

TEST(CudaCodegen, TheScanBandwidthBenchRunsUnderEmulation) {
  // cuda_backend_test's SinglePassScanBandwidth on 2^26 elements, here small: the same programs
  // verify, lower to one tile scan per iteration and match the interpreter.
  std::unique_ptr<Backend> be = cuda::makeCudaEmulationBackend();
  for (Op op : {Op::CumSum, Op::Neg})
    for (DType t : {DType::F32, DType::F64}) {
      SCOPED_TRACE(std::string(opName(op)) + "." + dtypeName(t));
      FuncPtr f = cudatest::bandwidthProgram(op, t, 3 * cudatest::scanTile(t) + 1, 3);
      ASSERT_EQ(verify(*f), "");
      EXPECT_EQ(tileScanKernels(kir::lower(*f, cuda::cudaLowerOptions())), op == Op::CumSum ? 1 : 0);
      std::vector<Array> args = {Array::scalar(t, 1.0)};
      EXPECT_TRUE(ktest::closeArrays(be->compile(f)->run(args)[0], interpret(*f, args)[0]));
    }
}

TEST(CudaCodegen, EqualTranslationUnitsShareOneHostCompile) {
  const TestProgram& t = suite().set.programs.front();
  std::unique_ptr<Backend> be = cuda::makeCudaEmulationBackend();
  int before = cuda::hostCompiles();
  CompileStats first, second;
  std::unique_ptr<Executable> a = be->compile(t.f, &first);
  std::unique_ptr<Executable> b = be->compile(t.f, &second);
  EXPECT_EQ(cuda::hostCompiles(), before + 1);
  EXPECT_FALSE(first.cacheHit);
  EXPECT_TRUE(second.cacheHit);
  EXPECT_TRUE(ktest::closeArrays(a->run(t.args)[0], b->run(t.args)[0]));
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
