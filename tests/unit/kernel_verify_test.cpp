// The kernel-IR verifier (jit/kernel/verify_kernels.cpp): every lowering of the test programs
// holds its invariants under every strategy the options choose, and broken programs are
// rejected with a message naming the kernel or step and what is wrong.
#include <gtest/gtest.h>

#include "cuda_scan_cases.hpp"
#include "cuda_test_programs.hpp"
#include "jit/kernel/kernel_ir.hpp"

namespace scn {
namespace {

using ktest::Builder;
using ktest::ty;
const DType F32 = DType::F32, I32 = DType::I32;

/// Option sets that between them take every strategy of the lowering: the defaults, a peeled
/// first iteration with row fusion (the CPU's), and single-pass scans with short reduction
/// blocks (the shape of the CUDA options; cuda_codegen_test checks cudaLowerOptions itself).
std::vector<std::pair<std::string, kir::LowerOptions>> optionSets() {
  kir::LowerOptions cpuLike;
  cpuLike.peelFirstIteration = true;
  cpuLike.fuseRows = true;
  kir::LowerOptions gpuLike;
  gpuLike.peelFirstIteration = true;
  gpuLike.singlePassScanMin = 1024;
  gpuLike.reduceBlock = 16;
  gpuLike.reduceSerialMax = 32;
  return {{"default", {}}, {"cpu-like", cpuLike}, {"gpu-like", gpuLike}};
}

TEST(KernelVerify, EveryTestProgramLowersToVerifiedKernels) {
  cudatest::ProgramSet ps = cudatest::allPrograms();
  for (const auto& [name, opts] : optionSets())
    for (const cudatest::TestProgram& t : ps.programs)
      EXPECT_EQ(kir::verifyProgram(kir::lower(*t.f, opts)), "") << t.name << " with " << name << " options";
}

TEST(KernelVerify, LongScansAndReductionsVerify) {
  for (const auto& [name, opts] : optionSets()) {
    for (const cudatest::ScanCase& c : cudatest::tileScanCases())
      EXPECT_EQ(kir::verifyProgram(kir::lower(*c.f, opts)), "") << c.name << " with " << name << " options";
    Builder b;
    int x = b.param(ty(F32, {3, 5000}));
    FuncPtr f = b.ret({b.emit1(Op::ReduceSum, {x}, ktest::axesAttr({1}))});
    EXPECT_EQ(kir::verifyProgram(kir::lower(*f, opts)), "") << "reduce_sum with " << name << " options";
  }
}

TEST(KernelVerify, LowerStageReturnsTheVerifiedLowering) {
  cudatest::ProgramSet ps = cudatest::allPrograms();
  const cudatest::TestProgram& t = ps.programs.at(0);
  EXPECT_EQ(kir::printKernels(kir::lowerStage(*t.f, {})), kir::printKernels(kir::lower(*t.f)));
}

/// sin(x) over f32[16]: b0 the parameter, b1 the result; one kernel, one launch.
kir::Program valid() {
  Builder b;
  int x = b.param(ty(F32, {16}));
  kir::Program p = kir::lower(*b.ret({b.emit1(Op::Sin, {x})}));
  p.name = "f";
  return p;
}

kir::Stmt& theStore(kir::Program& p) { return p.kernels.at(0).body.at(0); }

TEST(KernelVerify, TheValidProgramVerifies) {
  kir::Program p = valid();
  ASSERT_EQ(p.kernels.size(), 1u);
  ASSERT_EQ(p.buffers.size(), 2u);
  ASSERT_EQ(theStore(p).kind, kir::StmtKind::Store);
  EXPECT_EQ(kir::verifyProgram(p), "");
}

TEST(KernelVerify, RejectsALoadOfAMissingBuffer) {
  kir::Program p = valid();
  theStore(p).value = kir::load(7, F32, kir::index(0));
  EXPECT_EQ(kir::verifyProgram(p), "program f: kernel k0: buffer b7 is not in the table of 2 buffers");
}

TEST(KernelVerify, RejectsAnIndexOutsideTheKernelsDims) {
  kir::Program p = valid();
  theStore(p).index = kir::index(1);
  EXPECT_EQ(kir::verifyProgram(p), "program f: kernel k0: index i1 of a kernel with 1 dims");
}

TEST(KernelVerify, RejectsALocalReadBeforeItIsAssigned) {
  kir::Program p = valid();
  p.kernels[0].locals.push_back(F32);
  theStore(p).value = kir::local(0, F32);
  EXPECT_EQ(kir::verifyProgram(p),
            "program f: kernel k0: local l0 is read before it is assigned or bound by a loop");
}

TEST(KernelVerify, RejectsALoopVariableReadAfterItsLoop) {
  kir::Program p = valid();
  kir::Kernel& k = p.kernels[0];
  k.locals.push_back(DType::I64);
  kir::Stmt loop;
  loop.kind = kir::StmtKind::Loop;
  loop.local = 0;
  loop.extent = 4;
  k.body.insert(k.body.begin(), loop);
  k.body.at(1).index = kir::local(0, DType::I64);
  EXPECT_EQ(kir::verifyProgram(p),
            "program f: kernel k0: local l0 is read before it is assigned or bound by a loop");
}

/// The valid program with its store guarded: if <cond> { store }.
kir::Program guarded(kir::ExprP cond) {
  kir::Program p = valid();
  kir::Kernel& k = p.kernels[0];
  kir::Stmt s;
  s.kind = kir::StmtKind::If;
  s.value = std::move(cond);
  s.body = {k.body.at(0)};
  k.body = {s};
  return p;
}

TEST(KernelVerify, AGuardedStoreVerifies) {
  kir::ExprP positive = kir::opExpr(Op::Gt, DType::Bool, {kir::load(0, F32, kir::index(0)), kir::constFloat(F32, 0)});
  EXPECT_EQ(kir::verifyProgram(guarded(positive)), "");
}

TEST(KernelVerify, RejectsAnIfOnANonBoolCondition) {
  EXPECT_EQ(kir::verifyProgram(guarded(kir::load(0, F32, kir::index(0)))),
            "program f: kernel k0: the condition of an if is f32, expected bool");
}

TEST(KernelVerify, RejectsALocalAssignedOnlyInsideAnIfReadAfterIt) {
  kir::Program p = guarded(kir::opExpr(Op::Gt, DType::Bool, {kir::load(0, F32, kir::index(0)), kir::constFloat(F32, 0)}));
  kir::Kernel& k = p.kernels[0];
  k.locals.push_back(F32);
  kir::Stmt& store = k.body.at(0).body.at(0);
  kir::Stmt let;
  let.kind = kir::StmtKind::Let;
  let.local = 0;
  let.value = store.value;
  k.body.at(0).body.insert(k.body.at(0).body.begin(), let);
  kir::Stmt after = k.body.at(0).body.at(1);
  after.value = kir::local(0, F32);
  k.body.push_back(after);
  EXPECT_EQ(kir::verifyProgram(p),
            "program f: kernel k0: local l0 is read before it is assigned or bound by a loop");
}

TEST(KernelVerify, RejectsAStoreOfTheWrongDtype) {
  kir::Program p = valid();
  theStore(p).value = kir::constInt(I32, 1);
  EXPECT_EQ(kir::verifyProgram(p), "program f: kernel k0: the value stored to b1 is i32, expected f32");
}

TEST(KernelVerify, RejectsAnOpOverMixedDtypes) {
  kir::Program p = valid();
  theStore(p).value = kir::opExpr(Op::Add, F32, {kir::load(0, F32, kir::index(0)), kir::constInt(I32, 1)});
  EXPECT_EQ(kir::verifyProgram(p), "program f: kernel k0: the second operand of op add is i32, expected f32");
}

TEST(KernelVerify, RejectsAConstantIndexOutOfBounds) {
  kir::Program p = valid();
  theStore(p).index = kir::idx(16);
  EXPECT_EQ(kir::verifyProgram(p), "program f: kernel k0: index 16 outside b1 of 16 elements");
}

TEST(KernelVerify, RejectsAStoreAtAParallelIndexPastItsBuffer) {
  // Row fusion once merged a kernel over an empty array into one over 24 points, storing to the
  // empty buffer once per point (docs/hardening.md, session 15).
  kir::Program p = valid();
  p.buffers[1].elems = 8;
  EXPECT_EQ(kir::verifyProgram(p), "program f: steps[0]: launch of kernel k0: a store at i0 over 16 points into b1 "
                                   "of 8 elements");
  // Launched only inside a host loop of no trips (a scan over an empty axis), it never runs.
  kir::Step loop;
  loop.kind = kir::StepKind::Loop;
  loop.hostVar = 0;
  loop.count = 0;
  loop.body = p.steps;
  p.numHostVars = 1;
  p.steps = {loop};
  EXPECT_EQ(kir::verifyProgram(p), "");
}

TEST(KernelVerify, RejectsALaunchOfAMissingKernel) {
  kir::Program p = valid();
  p.steps.at(0).kernel = 3;
  EXPECT_EQ(kir::verifyProgram(p), "program f: steps[0]: launch of kernel k3 of 1");
}

TEST(KernelVerify, RejectsAHostVariableOutsideItsLoop) {
  kir::Program p = valid();
  p.numHostVars = 1;
  theStore(p).index = kir::arith(kir::Arith::Add, kir::index(0), kir::hostVar(0));
  EXPECT_EQ(kir::verifyProgram(p), "program f: steps[0]: kernel k0 reads host variable h0 outside a loop over it");
  // Inside a loop over h0 it is fine.
  kir::Step loop;
  loop.kind = kir::StepKind::Loop;
  loop.hostVar = 0;
  loop.count = 1;
  loop.body = p.steps;
  p.steps = {loop};
  EXPECT_EQ(kir::verifyProgram(p), "");
}

TEST(KernelVerify, RejectsAResultThatIsNeverWritten) {
  kir::Program p = valid();
  p.steps.clear();
  EXPECT_EQ(kir::verifyProgram(p), "program f: results: temporary result b1 is never written");
}

TEST(KernelVerify, RejectsASwapOfDifferentBuffers) {
  kir::Program p = valid();
  kir::BufferInfo small;
  small.dtype = F32;
  small.elems = 4;
  p.buffers.push_back(small);
  kir::Step swap;
  swap.kind = kir::StepKind::Swap;
  swap.a = 1;
  swap.b = 2;
  p.steps.push_back(swap);
  EXPECT_EQ(kir::verifyProgram(p), "program f: steps[1]: swap of b1 and b2 of different types");
}

}  // namespace
}  // namespace scn
