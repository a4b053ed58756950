// Structure checks of the lowering (Futhark-style): what fuses into how many kernels, what is
// materialised, that loop carries are not copied per iteration, and that buffers are reused.
#include <gtest/gtest.h>

#include <algorithm>

#include "jit/kernel/kernel_ir.hpp"
#include "kernel_test_util.hpp"

namespace scn {
namespace {

using ktest::axesAttr;
using ktest::Builder;
using ktest::ty;
const DType F32 = DType::F32, I32 = DType::I32;

int temps(const kir::Program& p) {
  int n = 0;
  for (const kir::BufferInfo& b : p.buffers) n += b.kind == kir::BufferKind::Temp;
  return n;
}

TEST(KernelLower, ElementwiseChainWithBroadcastIsOneKernel) {
  // sin(x * x + 1)
  Builder b;
  int x = b.param(ty(F32, {16}));
  int one = b.constant(F32, 1.0, {16});
  int y = b.emit1(Op::Sin, {b.emit1(Op::Add, {b.emit1(Op::Mul, {x, x}), one})});
  kir::Program p = kir::lower(*b.ret({y}));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(kir::countSteps(p.steps, kir::StepKind::Launch), 1);
  EXPECT_EQ(temps(p), 1);
  std::string text = kir::printKernels(p);
  EXPECT_NE(text.find("sin(add(mul(b0[i0], b0[i0]), 0x1p+0f32))"), std::string::npos) << text;
}

TEST(KernelLower, ReductionFusesWithItsProducer) {
  // sum(exp(x)) over all axes of f32[8, 4]
  Builder b;
  int x = b.param(ty(F32, {8, 4}));
  int s = b.emit1(Op::ReduceSum, {b.emit1(Op::Exp, {x})}, axesAttr({0, 1}));
  kir::Program p = kir::lower(*b.ret({s}));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_TRUE(p.kernels[0].dims.empty());
  EXPECT_NE(kir::printKernels(p).find("exp(b0["), std::string::npos);
}

TEST(KernelLower, IndexOpsFuseAsIndexArithmetic) {
  // reshape(transpose(x)) + slice(reverse(y)) is one kernel: no transposed copy is made.
  Builder b;
  int x = b.param(ty(F32, {3, 4})), y = b.param(ty(F32, {14}));
  Attrs t = axesAttr({1, 0});
  Attrs r;
  r.shape = {12};
  int xt = b.emit1(Op::Reshape, {b.emit1(Op::Transpose, {x}, t)}, r);
  Attrs sl;
  sl.starts = {1};
  sl.limits = {13};
  sl.strides = {1};
  int ys = b.emit1(Op::Slice, {b.emit1(Op::Reverse, {y}, axesAttr({0}))}, sl);
  kir::Program p = kir::lower(*b.ret({b.emit1(Op::Add, {xt, ys})}));
  EXPECT_EQ(p.kernels.size(), 1u) << kir::printKernels(p);
}

TEST(KernelLower, MultiplyUsedArithmeticIsMaterialisedButIndexOpsAreNot) {
  Builder b;
  int x = b.param(ty(F32, {8}));
  int e = b.emit1(Op::Exp, {x});
  int s = b.emit1(Op::ReduceSum, {e}, axesAttr({0}));
  int d = b.emit1(Op::Add, {e, e});
  kir::Program p = kir::lower(*b.ret({s, d}));
  EXPECT_EQ(p.kernels.size(), 3u) << kir::printKernels(p);  // exp, sum, add

  Builder c;
  int m = c.param(ty(F32, {4, 8}));
  int t = c.emit1(Op::Transpose, {m}, axesAttr({1, 0}));
  int st = c.emit1(Op::ReduceSum, {t}, axesAttr({1}));
  int nt = c.emit1(Op::Neg, {t});
  kir::Program q = kir::lower(*c.ret({st, nt}));
  EXPECT_EQ(q.kernels.size(), 2u) << kir::printKernels(q);  // the transpose is recomputed
}

TEST(KernelLower, DeadTemporariesAreReused) {
  Builder b;
  int x = b.param(ty(F32, {64}));
  int c = x;
  for (int i = 0; i < 4; ++i) c = b.emit1(Op::CumSum, {c}, axesAttr({0}));
  kir::Program p = kir::lower(*b.ret({c}));
  EXPECT_EQ(kir::countSteps(p.steps, kir::StepKind::Launch), 4);
  // b0->b1, b1->b2, b2->b1, b1->b2: the fourth kernel is the second one again (shared).
  EXPECT_EQ(p.kernels.size(), 3u) << kir::printKernels(p);
  EXPECT_EQ(temps(p), 2) << kir::printKernels(p);
}

FuncPtr elementwiseScan(int64_t n, int64_t len, bool reverse) {
  // scan(|c, x| (c * x + 1, sin(c)), c0, xs)
  Builder body("step");
  int c = body.param(ty(F32, {n})), x = body.param(ty(F32, {n}));
  int nc = body.emit1(Op::Add, {body.emit1(Op::Mul, {c, x}), body.constant(F32, 1, {n})});
  body.ret({nc, body.emit1(Op::Sin, {c})});
  Builder b("scanner");
  int c0 = b.param(ty(F32, {n})), xs = b.param(ty(F32, {len, n}));
  Attrs a;
  a.length = len;
  a.numCarry = 1;
  a.reverse = reverse;
  return b.ret(b.emit(Op::Scan, {c0, xs}, a, {body.f}));
}

const kir::Step* findLoop(const std::vector<kir::Step>& steps) {
  for (const kir::Step& s : steps)
    if (s.kind == kir::StepKind::Loop) return &s;
  return nullptr;
}

TEST(KernelLower, ElementwiseScanBodyHasNoPerIterationCopy) {
  kir::Program p = kir::lower(*elementwiseScan(8, 10, false));
  const kir::Step* loop = findLoop(p.steps);
  ASSERT_NE(loop, nullptr) << kir::printKernels(p);
  EXPECT_EQ(kir::countSteps(loop->body, kir::StepKind::Copy), 0) << kir::printKernels(p);
  EXPECT_EQ(kir::countSteps(loop->body, kir::StepKind::Swap), 1);
  EXPECT_EQ(kir::countSteps(loop->body, kir::StepKind::Launch), 2) << kir::printKernels(p);
  // xs are read at offset h*8 and ys written at offset h*8: no slice copies.
  std::string text = kir::printKernels(p);
  EXPECT_NE(text.find("(h0 * 8)"), std::string::npos) << text;
}

TEST(KernelLower, ReverseScanWritesYsAtTheMirroredOffset) {
  std::string text = kir::printKernels(kir::lower(*elementwiseScan(8, 10, true)));
  EXPECT_NE(text.find("((9 - h0) * 8)"), std::string::npos) << text;
}

TEST(KernelLower, InPlaceDynamicUpdateOfACarryNeedsNoSwap) {
  // scan(|c, x| (dynamic_update_slice(c, x[None], i), ...)): the carry is updated in place.
  Builder body("step");
  int c = body.param(ty(F32, {16})), x = body.param(ty(F32));
  int i = body.constant(I32, 3);
  Attrs r;
  r.shape = {1};
  int upd = body.emit1(Op::DynamicUpdateSlice, {c, body.emit1(Op::Reshape, {x}, r), i});
  body.ret({upd});
  Builder b;
  int c0 = b.param(ty(F32, {16})), xs = b.param(ty(F32, {5}));
  Attrs a;
  a.length = 5;
  a.numCarry = 1;
  kir::Program p = kir::lower(*b.ret(b.emit(Op::Scan, {c0, xs}, a, {body.f})));
  const kir::Step* loop = findLoop(p.steps);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(kir::countSteps(loop->body, kir::StepKind::Swap), 0) << kir::printKernels(p);
  EXPECT_EQ(kir::countSteps(loop->body, kir::StepKind::Copy), 0);
  EXPECT_EQ(kir::countSteps(loop->body, kir::StepKind::Launch), 1);
}

TEST(KernelLower, AScatterBranchesAroundADroppedUpdate) {
  // zeros(16).at[idx].add(v): one sequential loop over the updates whose store is guarded by the
  // index's range check, with no clamp (min/max) and no select (Note [Scatter kernels]).
  Builder b;
  int t = b.param(ty(F32, {16})), v = b.param(ty(F32, {8})), i = b.param(ty(I32, {8}));
  kir::Program p = kir::lower(*b.ret({b.emit1(Op::ScatterAdd, {t, v, i})}));
  std::string text = kir::printKernels(p);
  const kir::Kernel& k = p.kernels.back();
  ASSERT_EQ(k.body.size(), 1u) << text;
  ASSERT_EQ(k.body[0].kind, kir::StmtKind::Loop) << text;
  const kir::Stmt& guard = k.body[0].body.back();
  ASSERT_EQ(guard.kind, kir::StmtKind::If) << text;
  ASSERT_EQ(guard.body.size(), 1u);
  EXPECT_EQ(guard.body[0].kind, kir::StmtKind::Store);
  EXPECT_NE(text.find("if "), std::string::npos) << text;
  EXPECT_EQ(text.find("min("), std::string::npos) << text;
  EXPECT_EQ(guard.body[0].value->op, Op::Add) << text;  // not select(in range, new, old)
}

TEST(KernelLower, MatmulIsAGemmCallAndIntegerMatmulIsLoops) {
  for (DType t : {F32, I32}) {
    Builder b;
    int x = b.param(ty(t, {4, 5})), y = b.param(ty(t, {5, 6}));
    Attrs a;
    a.lhsContract = {1};
    a.rhsContract = {0};
    kir::Program p = kir::lower(*b.ret({b.emit1(Op::DotGeneral, {x, y}, a)}));
    EXPECT_EQ(kir::countSteps(p.steps, kir::StepKind::Gemm), t == F32 ? 1 : 0);
    EXPECT_EQ(p.kernels.size(), t == F32 ? 0u : 1u);
  }
}

TEST(KernelLower, SortIsASortStepOrABitonicLoopThenOneGather) {
  // Note [Sorting]: keys and a payload along axis 0 of f32[5, 3] (3 rows of 5).
  Builder b;
  int k = b.param(ty(F32, {5, 3})), v = b.param(ty(I32, {5, 3}));
  FuncPtr f = b.ret(b.emit(Op::Sort, {k, v}, axesAttr({0})));
  kir::LowerOptions step;
  step.sortStep = true;
  kir::Program cpu = kir::lowerStage(*f, step);
  ASSERT_EQ(kir::countSteps(cpu.steps, kir::StepKind::Sort), 1) << kir::printKernels(cpu);
  // The keys are not row-major along axis 0: one kernel writes them so, one gathers both outputs.
  EXPECT_EQ(cpu.kernels.size(), 2u);
  EXPECT_EQ(kir::countSteps(cpu.steps, kir::StepKind::Loop), 0);
  kir::Program gpu = kir::lowerStage(*f, {});
  EXPECT_EQ(kir::countSteps(gpu.steps, kir::StepKind::Sort), 0);
  // Pairs, the compare-exchange stage in a loop over 6 stages (P = 8), the gather.
  ASSERT_EQ(kir::countSteps(gpu.steps, kir::StepKind::Loop), 1) << kir::printKernels(gpu);
  EXPECT_EQ(gpu.kernels.size(), 3u);
  for (const kir::Step& s : gpu.steps)
    if (s.kind == kir::StepKind::Loop) EXPECT_EQ(s.count, 6);
}

FuncPtr matmulScan(DType t, int64_t b, int64_t n, int64_t reps) { return ktest::matmulSqrtScan(t, b, n, reps); }

/// Whether some kernel stores into a buffer it also reads at the same index (in place).
bool hasInPlaceKernel(const kir::Program& p) {
  for (const kir::Kernel& k : p.kernels)
    for (const kir::Stmt& s : k.body)
      if (s.kind == kir::StmtKind::Store && s.value->kind == kir::ExprKind::Op &&
          s.value->args.size() == 1 && s.value->args[0]->kind == kir::ExprKind::Load &&
          s.value->args[0]->id == s.buffer && kir::sameExpr(s.value->args[0]->args[0], s.index))
        return true;
  return false;
}

TEST(KernelLower, MatmulScanIsAGemmIntoTheNewCarryWithAnInPlaceSqrt) {
  kir::LowerOptions peel;
  peel.peelFirstIteration = true;
  kir::Program p = kir::lower(*matmulScan(F32, 4, 8, 16), peel);
  std::string text = kir::printKernels(p);
  // Two carry buffers, the GEMM writes the new carry and sqrt overwrites it: no third buffer.
  EXPECT_EQ(temps(p), 2) << text;
  EXPECT_EQ(p.kernels.size(), 1u) << text;
  EXPECT_TRUE(hasInPlaceKernel(p)) << text;
  // The parameter init is read in place by a peeled first iteration: nothing is copied.
  EXPECT_EQ(kir::countSteps(p.steps, kir::StepKind::Copy), 0) << text;
  EXPECT_NE(text.find("loop h0 in 0..1 {"), std::string::npos) << text;
  EXPECT_NE(text.find("loop h0 in 1..16 {"), std::string::npos) << text;
  EXPECT_EQ(kir::countSteps(p.steps, kir::StepKind::Gemm), 2);  // peeled copy + loop body

  // Without the option (a runner that ignores Step::start) the init is copied once, before.
  kir::Program q = kir::lower(*matmulScan(F32, 4, 8, 16));
  EXPECT_EQ(kir::countSteps(q.steps, kir::StepKind::Copy), 1) << kir::printKernels(q);
  EXPECT_EQ(kir::countSteps(findLoop(q.steps)->body, kir::StepKind::Copy), 0);
}

TEST(KernelLower, AProductAddedToADeadCarryIsOneAccumulatingGemm) {
  // Note [Accumulating products]: acc + x^T @ y in a scan body is a GEMM with beta 1 into the
  // carry's own slot: no add kernel, no temporary for the product, no swap.
  kir::LowerOptions peel;
  peel.peelFirstIteration = true;
  kir::Program p = kir::lower(*ktest::accumulatingScan(F32, 8, 16, 4, 5, false), peel);
  std::string text = kir::printKernels(p);
  const kir::Step* loop = findLoop(p.steps);
  ASSERT_NE(loop, nullptr) << text;
  EXPECT_EQ(kir::countSteps(loop->body, kir::StepKind::Gemm), 1) << text;
  EXPECT_EQ(kir::countSteps(loop->body, kir::StepKind::Launch), 0) << text;
  EXPECT_EQ(kir::countSteps(loop->body, kir::StepKind::Swap), 0) << text;
  EXPECT_NE(text.find(" += "), std::string::npos) << text;
  // The body writes the carry slot in place, so the parameter init is copied in once, not peeled.
  EXPECT_EQ(kir::countSteps(p.steps, kir::StepKind::Copy), 1) << text;

  // The old carry is also a ys: it is read after the product, which then gets its own buffer.
  kir::Program q = kir::lower(*ktest::accumulatingScan(F32, 8, 16, 4, 5, true), peel);
  std::string qt = kir::printKernels(q);
  EXPECT_EQ(qt.find(" += "), std::string::npos) << qt;
  EXPECT_GE(kir::countSteps(findLoop(q.steps)->body, kir::StepKind::Launch), 1) << qt;
}

TEST(KernelLower, UnrolledMatmulLoopUsesTwoBuffersAndSharesItsKernels) {
  Builder b("mat_loop");
  int x = b.param(ty(F32, {2, 8, 8}));
  Attrs d;
  d.lhsContract = {2};
  d.rhsContract = {1};
  d.lhsBatch = {0};
  d.rhsBatch = {0};
  for (int i = 0; i < 6; ++i) x = b.emit1(Op::Sqrt, {b.emit1(Op::DotGeneral, {x, x}, d)});
  kir::Program p = kir::lower(*b.ret({x}));
  std::string text = kir::printKernels(p);
  EXPECT_EQ(temps(p), 2) << text;
  EXPECT_EQ(kir::countSteps(p.steps, kir::StepKind::Launch), 6);
  EXPECT_EQ(p.kernels.size(), 2u) << text;  // sqrt in place in b1 or in b2
  EXPECT_TRUE(hasInPlaceKernel(p)) << text;
}

TEST(KernelLower, ConcatOfScanYsIsWrittenInPlace) {
  // W3: concat((x0[None], scan(|c, _| (a * c, a * c), x0, None, length=n).1))
  const DType F64 = DType::F64;
  int64_t n = 100;
  Builder body("step");
  int a = body.param(ty(F64)), c = body.param(ty(F64));
  body.ret({body.emit1(Op::Mul, {a, c}), body.emit1(Op::Mul, {a, c})});
  Builder b("gp");
  int x0 = b.param(ty(F64)), pa = b.param(ty(F64));
  Attrs s;
  s.length = n;
  s.numConsts = 1;
  s.numCarry = 1;
  std::vector<int> r = b.emit(Op::Scan, {pa, x0}, s, {body.f});
  Attrs one;
  one.shape = {1};
  int head = b.emit1(Op::Reshape, {x0}, one);
  int out = b.emit1(Op::Concat, {head, r[1]}, axesAttr({0}));
  kir::LowerOptions peel;
  peel.peelFirstIteration = true;
  kir::Program p = kir::lower(*b.ret({out}), peel);
  std::string text = kir::printKernels(p);
  // One buffer of n + 1 elements (the result), written at offset 1 + h by the scan; no buffer
  // of n elements for the ys and no copy.
  int big = 0;
  for (const kir::BufferInfo& bi : p.buffers) {
    EXPECT_NE(bi.elems, n) << text;
    big += bi.elems == n + 1;
  }
  EXPECT_EQ(big, 1) << text;
  EXPECT_EQ(kir::countSteps(p.steps, kir::StepKind::Copy), 0) << text;
  EXPECT_NE(text.find("(1 + h0)"), std::string::npos) << text;
}

TEST(KernelLower, BroadcastsOfBroadcastsOfAScalarStayFlat) {
  // What vmap and scan-to-map make of `x ** 2 + 1` on (100, 10, 10): the literal broadcast one
  // axis at a time. The kernel still runs over one flat index (Note [Uniform values]).
  Builder b;
  int x = b.param(ty(F32, {100, 10, 10}));
  auto lift = [&](int c) {
    Attrs a1, a2, a3;
    a1.shape = {10};
    int v = b.emit1(Op::BroadcastInDim, {c}, a1);
    a2.shape = {10, 10};
    a2.axes = {1};
    v = b.emit1(Op::BroadcastInDim, {v}, a2);
    a3.shape = {100, 10, 10};
    a3.axes = {1, 2};
    return b.emit1(Op::BroadcastInDim, {v}, a3);
  };
  int sq = b.emit1(Op::Pow, {x, lift(b.constant(F32, 2))});
  int y = b.emit1(Op::Sin, {b.emit1(Op::Add, {sq, lift(b.constant(F32, 1))})});
  kir::Program p = kir::lower(*b.ret({y}));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].dims, std::vector<int64_t>{10000}) << kir::printKernels(p);
}

TEST(KernelLower, TransposesThatCancelLeaveAFlatKernel) {
  // vmap(scan(f)) after scan-to-map: transpose(sin(transpose(x))) with the same permutation
  // twice reads every element where it writes it: one flat loop, like scan(vmap(f)).
  Builder b;
  int x = b.param(ty(F32, {20, 30, 4}));
  Attrs perm = axesAttr({1, 0, 2});
  int y = b.emit1(Op::Transpose, {b.emit1(Op::Sin, {b.emit1(Op::Transpose, {x}, perm)})}, perm);
  kir::Program p = kir::lower(*b.ret({y}));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].dims, std::vector<int64_t>{2400}) << kir::printKernels(p);
  // A single transpose really moves data: it keeps its 3-d index space.
  Builder c;
  int z = c.param(ty(F32, {20, 30, 4}));
  kir::Program q = kir::lower(*c.ret({c.emit1(Op::Sin, {c.emit1(Op::Transpose, {z}, perm)})}));
  EXPECT_EQ(q.kernels[0].dims.size(), 3u) << kir::printKernels(q);
}

TEST(KernelLower, LongCumulativeIsABlockedTwoPassScan) {
  // Note [Blocked scans]: a long axis with few rows is cut into 64 blocks: their totals, a
  // serial scan of the totals per row, then the blocks' scans, four per parallel index; a
  // length 64 does not divide gets a one-row tail kernel.
  auto lowerCum = [](Shape s, int64_t axis) {
    Builder b;
    int x = b.param(ty(F32, s));
    return kir::lower(*b.ret({b.emit1(Op::CumSum, {b.emit1(Op::Exp, {x})}, axesAttr({axis}))}));
  };
  kir::Program p = lowerCum({1 << 18}, 0);
  ASSERT_EQ(p.kernels.size(), 3u) << kir::printKernels(p);
  EXPECT_EQ(p.kernels[0].dims, std::vector<int64_t>{64});
  EXPECT_TRUE(p.kernels[1].dims.empty()) << "one row: the offsets kernel runs once";
  EXPECT_EQ(p.kernels[2].dims, std::vector<int64_t>{16});
  EXPECT_EQ(temps(p), 2) << "the result and 64 block totals";
  EXPECT_EQ(p.buffers.at(p.kernels[0].body.back().buffer).elems, 64);
  p = lowerCum({3, (1 << 18) + 5}, 1);
  ASSERT_EQ(p.kernels.size(), 4u) << kir::printKernels(p);
  EXPECT_EQ(p.kernels[0].dims, (std::vector<int64_t>{64, 3}));
  EXPECT_EQ(p.kernels[1].dims, std::vector<int64_t>{3});
  EXPECT_EQ(p.kernels[2].dims, (std::vector<int64_t>{16, 3}));
  EXPECT_EQ(p.kernels[3].dims, std::vector<int64_t>{3}) << "the tail: one loop per row";
  // Short axes and many rows keep the one serial loop per row.
  EXPECT_EQ(lowerCum({4096}, 0).kernels.size(), 1u);
  p = lowerCum({16, 1 << 18}, 1);
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].dims, std::vector<int64_t>{16});
}

/// Depth of the deepest expression in a statement list (Note [Fused expression size]).
int depthOf(const kir::ExprP& e) {
  int d = 0;
  for (const kir::ExprP& a : e->args) d = std::max(d, depthOf(a));
  return d + 1;
}

int deepestExpr(const std::vector<kir::Stmt>& body) {
  int d = 0;
  for (const kir::Stmt& s : body) {
    if (s.value) d = std::max(d, depthOf(s.value));
    if (s.index) d = std::max(d, depthOf(s.index));
    d = std::max(d, deepestExpr(s.body));
  }
  return d;
}

int deepestExpr(const kir::Program& p) {
  int d = 0;
  for (const kir::Kernel& k : p.kernels) d = std::max(d, deepestExpr(k.body));
  return d;
}

TEST(KernelLower, ALongChainIsCutIntoIdenticalBoundedKernels) {
  // y = y + 1 100000 times (an unrolled `for`) was one expression 100000 deep: the lowering
  // overflowed the stack. Now it is segments of at most kMaxFusedNodes nodes, one shared kernel.
  Builder b("chain");
  int y = b.param(ty(F32, {}));
  const int n = 100000;
  for (int i = 0; i < n; ++i) y = b.emit1(Op::Add, {y, b.constant(F32, 1.0)});
  kir::Program p = kir::lower(*b.ret({y}));
  EXPECT_LE(deepestExpr(p), kir::kMaxFusedNodes);
  EXPECT_LE(p.kernels.size(), 3u) << "the first segment, the repeated one, the last";
  EXPECT_GE(kir::countSteps(p.steps, kir::StepKind::Launch), 2 * n / kir::kMaxFusedNodes);
  EXPECT_EQ(temps(p), 1) << "each segment overwrites the previous one in place";
}

TEST(KernelLower, AChainReadingEachValueTwiceDoesNotGrowExponentially) {
  // y = y * y 60 times: fused, each level generates its operand twice (2^60 nodes).
  Builder b("squares");
  int y = b.param(ty(F32, {8}));
  for (int i = 0; i < 60; ++i) y = b.emit1(Op::Mul, {y, y});
  kir::Program p = kir::lower(*b.ret({y}));
  EXPECT_LE(deepestExpr(p), kir::kMaxFusedNodes);
  EXPECT_LE(kir::countSteps(p.steps, kir::StepKind::Launch), 60 / 6 + 1) << kir::printKernels(p);
}

TEST(KernelLower, AWideConcatIsABalancedSelectTree) {
  // stack of 65536 scalars: one kernel whose selects are 16 deep, not 65536.
  Builder b("stack");
  int x = b.param(ty(F32, {}));
  Attrs r;
  r.shape = {1};
  std::vector<int> rows;
  for (int i = 0; i < (1 << 16); ++i) rows.push_back(b.emit1(Op::Reshape, {x}, r));
  kir::Program p = kir::lower(*b.ret({b.emit1(Op::Concat, rows, axesAttr({0}))}));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_LE(deepestExpr(p), 2 * 16 + 8);
}

TEST(KernelLower, AConcatOfAFewOperandsIsWrittenOneBlockAtATime) {
  // Note [Concat blocks]: concat((tanh(x), exp(y), z * 2), axis=1) of (4, 16), (4, 8), (4, 8):
  // three kernels, each over its operand's shape, storing at its columns; no selects.
  Builder b("blocks");
  int x = b.param(ty(F32, {4, 16})), y = b.param(ty(F32, {4, 8})), z = b.param(ty(F32, {4, 8}));
  int parts[] = {b.emit1(Op::Tanh, {x}), b.emit1(Op::Exp, {y}), b.emit1(Op::Mul, {z, b.constant(F32, 2.0, {4, 8})})};
  FuncPtr f = b.ret({b.emit1(Op::Concat, {parts[0], parts[1], parts[2]}, axesAttr({1}))});
  kir::Program p = kir::lower(*f);
  std::string text = kir::printKernels(p);
  ASSERT_EQ(p.kernels.size(), 3u) << text;
  EXPECT_EQ(p.kernels[0].dims, (std::vector<int64_t>{4, 16})) << text;
  EXPECT_EQ(p.kernels[1].dims, (std::vector<int64_t>{4, 8})) << text;
  EXPECT_EQ(text.find("select"), std::string::npos) << text;
  EXPECT_NE(text.find("(i1 + 16)"), std::string::npos) << text;  // the second block's columns
  EXPECT_NE(text.find("(i1 + 24)"), std::string::npos) << text;
}

TEST(KernelLower, PrintingIsStable) {
  FuncPtr f = elementwiseScan(4, 3, false);
  EXPECT_EQ(kir::printKernels(kir::lower(*f)), kir::printKernels(kir::lower(*f)));
}

/// A softmax over the last axis of f32[rows, 64]; with `reverseRows`, the row max is subtracted
/// from the rows in reverse order (row r reads the max of row rows-1-r).
FuncPtr rowSoftmax(int64_t rows, bool reverseRows = false) {
  Builder b;
  int x = b.param(ty(F32, {rows, 64}));
  auto spread = [&](int v) {
    Attrs bc;
    bc.shape = {rows, 64};
    bc.axes = {0};
    return b.emit1(Op::BroadcastInDim, {v}, bc);
  };
  int m = b.emit1(Op::ReduceMax, {x}, axesAttr({1}));
  if (reverseRows) m = b.emit1(Op::Reverse, {m}, axesAttr({0}));
  int e = b.emit1(Op::Exp, {b.emit1(Op::Sub, {x, spread(m)})});
  int s = b.emit1(Op::ReduceSum, {e}, axesAttr({1}));
  return b.ret({b.emit1(Op::Div, {e, spread(s)})});
}

kir::LowerOptions rowFusion() {
  kir::LowerOptions o;
  o.fuseRows = true;
  return o;
}

TEST(KernelLower, RowFusionMakesASoftmaxOneKernelPerRow) {
  FuncPtr f = rowSoftmax(32);
  kir::Program plain = kir::lower(*f);
  EXPECT_GE(kir::countSteps(plain.steps, kir::StepKind::Launch), 4);
  kir::Program fused = kir::lower(*f, rowFusion());
  EXPECT_EQ(kir::verifyProgram(fused), "");
  ASSERT_EQ(fused.kernels.size(), 1u) << kir::printKernels(fused);
  EXPECT_EQ(kir::countSteps(fused.steps, kir::StepKind::Launch), 1);
  EXPECT_EQ(fused.kernels[0].dims, (std::vector<int64_t>{32})) << kir::printKernels(fused);
}

TEST(KernelLower, RowFusionFlattensTheRowDims) {
  // Row max and x - max over f32[4, 8, 64]: one kernel over the 32 rows; the rows' indices
  // (r / 8, r % 8) linearise back to r, so no division is left in the kernel.
  Builder b;
  int x = b.param(ty(F32, {4, 8, 64}));
  Attrs bc;
  bc.shape = {4, 8, 64};
  bc.axes = {0, 1};
  int m = b.emit1(Op::BroadcastInDim, {b.emit1(Op::ReduceMax, {x}, axesAttr({2}))}, bc);
  kir::Program p = kir::lower(*b.ret({b.emit1(Op::Sub, {x, m})}), rowFusion());
  EXPECT_EQ(kir::verifyProgram(p), "");
  ASSERT_EQ(p.kernels.size(), 1u) << kir::printKernels(p);
  EXPECT_EQ(p.kernels[0].dims, (std::vector<int64_t>{32}));
  std::string text = kir::printKernels(p);
  EXPECT_EQ(text.find(" / "), std::string::npos) << text;
  EXPECT_EQ(text.find(" % "), std::string::npos) << text;
  EXPECT_NE(text.find("((i0 * 64) + l"), std::string::npos) << text;
}

TEST(KernelLower, RowFusionSharesTheRowsOfAFlatKernel) {
  // The GRU's gates: x + bias over f32[32, 48] (a [32, 48] kernel), materialised, read in
  // column blocks of 16 by an elementwise kernel over f32[32, 16] that is flat (i0 / 16 and
  // i0 % 16 index the blocks). The two share the 32 rows: one launch, each row reading the
  // blocks of its own row.
  Builder b;
  int x = b.param(ty(F32, {32, 48})), bias = b.param(ty(F32, {48}));
  Attrs bc;
  bc.shape = {32, 48};
  bc.axes = {1};
  int e = b.emit1(Op::Add, {x, b.emit1(Op::BroadcastInDim, {bias}, bc)});
  auto block = [&](int64_t c) {
    Attrs sl;
    sl.starts = {0, c};
    sl.limits = {32, c + 16};
    sl.strides = {1, 1};
    return b.emit1(Op::Slice, {e}, sl);
  };
  int gate = b.emit1(Op::Sigmoid, {block(0)});
  int y = b.emit1(Op::Mul, {gate, block(16)});
  int z = b.emit1(Op::Add, {gate, block(32)});
  FuncPtr f = b.ret({y, z, e});
  kir::Program plain = kir::lower(*f);
  EXPECT_GE(kir::countSteps(plain.steps, kir::StepKind::Launch), 2) << kir::printKernels(plain);
  kir::Program p = kir::lower(*f, rowFusion());
  EXPECT_EQ(kir::verifyProgram(p), "");
  ASSERT_EQ(kir::countSteps(p.steps, kir::StepKind::Launch), 1) << kir::printKernels(plain) << kir::printKernels(p);
  EXPECT_EQ(p.kernels[0].dims, (std::vector<int64_t>{32})) << kir::printKernels(p);
  std::string text = kir::printKernels(p);
  EXPECT_EQ(text.find(" / "), std::string::npos) << text;
}

/// A GRU forward step: gx + b, the product h @ wh (of exp(h) when expOfH: computed by a kernel
/// before the product), and the gates over both.
FuncPtr gruGates(bool expOfH) {
  Builder b;
  int x = b.param(ty(F32, {32, 48})), bias = b.param(ty(F32, {48}));
  int h = b.param(ty(F32, {32, 16})), w = b.param(ty(F32, {16, 48}));
  Attrs bc;
  bc.shape = {32, 48};
  bc.axes = {1};
  int gx = b.emit1(Op::Add, {x, b.emit1(Op::BroadcastInDim, {bias}, bc)});
  Attrs d;
  d.lhsContract = {1};
  d.rhsContract = {0};
  int gh = b.emit1(Op::DotGeneral, {expOfH ? b.emit1(Op::Exp, {h}) : h, w}, d);
  auto block = [&](int v, int64_t c) {
    Attrs sl;
    sl.starts = {0, c};
    sl.limits = {32, c + 16};
    sl.strides = {1, 1};
    return b.emit1(Op::Slice, {v}, sl);
  };
  int z = b.emit1(Op::Sigmoid, {b.emit1(Op::Add, {block(gx, 0), block(gh, 0)})});
  int n = b.emit1(Op::Tanh, {b.emit1(Op::Add, {block(gx, 16), block(gh, 16)})});
  int m = b.emit1(Op::Mul, {block(gx, 32), block(gh, 32)});
  return b.ret({b.emit1(Op::Add, {b.emit1(Op::Mul, {z, n}), m})});
}

TEST(KernelLower, RowFusionGoesOnPastAProductThatSharesNoBuffer) {
  // gx + b is lowered before the product; it runs after it, in one kernel with the gates.
  kir::Program plain = kir::lower(*gruGates(false));
  EXPECT_EQ(kir::countSteps(plain.steps, kir::StepKind::Launch), 2) << kir::printKernels(plain);
  kir::Program p = kir::lower(*gruGates(false), rowFusion());
  EXPECT_EQ(kir::verifyProgram(p), "");
  std::string text = kir::printKernels(p);
  ASSERT_EQ(p.steps.size(), 2u) << text;
  EXPECT_EQ(p.steps[0].kind, kir::StepKind::Gemm) << text;
  ASSERT_EQ(p.steps[1].kind, kir::StepKind::Launch) << text;
  EXPECT_EQ(p.kernels[p.steps[1].kernel].dims, (std::vector<int64_t>{32})) << text;
  // A kernel that writes the product's operand (exp(h), merged with gx + b) stays before it.
  kir::Program q = kir::lower(*gruGates(true), rowFusion());
  EXPECT_EQ(kir::verifyProgram(q), "");
  text = kir::printKernels(q);
  ASSERT_EQ(q.steps.size(), 3u) << text;
  EXPECT_EQ(q.steps[0].kind, kir::StepKind::Launch) << text;
  EXPECT_EQ(q.steps[1].kind, kir::StepKind::Gemm) << text;
}

TEST(KernelLower, RowFusionKeepsKernelsWhereARowReadsAnotherRowsWrites) {
  // The max of row 31 - r is written by another row's part of a merged kernel: not legal.
  kir::Program p = kir::lower(*rowSoftmax(32, true), rowFusion());
  EXPECT_EQ(kir::verifyProgram(p), "");
  EXPECT_GE(kir::countSteps(p.steps, kir::StepKind::Launch), 2) << kir::printKernels(p);
}

TEST(KernelLower, RowFusionLeavesFewRowsAlone) {
  // Fewer rows than threads want: the kernels stay as they are.
  FuncPtr f = rowSoftmax(4);
  EXPECT_EQ(kir::printKernels(kir::lower(*f, rowFusion())), kir::printKernels(kir::lower(*f)));
}

}  // namespace
}  // namespace scn
