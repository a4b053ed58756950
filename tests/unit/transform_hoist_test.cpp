// hoist-scan-products (Note [Hoisted scan products]): a scan body's products of xs and consts run
// once for every step before the scan, the carry's products stay, results do not change, and
// reverse mode sees the hoisted form.
#include <gtest/gtest.h>

#include "core_test_util.hpp"
#include "jit/autodiff.hpp"
#include "jit/backend.hpp"
#include "jit/transform/passes.hpp"

namespace scn {
namespace {

using test::Builder;
using test::ty;
const DType F32 = DType::F32;

int countOps(const Func& f, Op op) {
  int n = 0;
  for (const Eqn& e : f.eqns) n += e.op == op;
  return n;
}

const Eqn& onlyScan(const Func& f) {
  const Eqn* scan = nullptr;
  for (const Eqn& e : f.eqns)
    if (e.op == Op::Scan) {
      EXPECT_EQ(scan, nullptr) << "more than one scan";
      scan = &e;
    }
  if (scan == nullptr) throw std::runtime_error("no scan");
  return *scan;
}

Attrs matmul() {
  Attrs a;
  a.lhsContract = {1};
  a.rhsContract = {0};
  return a;
}

/// An RNN over `steps` steps: h' = tanh(x @ (w * 0.5) + h @ u), ys h'. Params w (4, 3), u (3, 3),
/// h0 (2, 3), xs (steps, 2, 4); results (final h, hs). With `checkpoints`, the scan has them.
FuncPtr rnn(int64_t steps, int64_t checkpoints = 0) {
  Builder body("step");
  int w = body.param(ty(F32, {4, 3})), u = body.param(ty(F32, {3, 3}));
  int h = body.param(ty(F32, {2, 3})), x = body.param(ty(F32, {2, 4}));
  int half = body.emit1(Op::Mul, {w, body.constant(F32, 0.5, {4, 3})});
  int gx = body.emit1(Op::DotGeneral, {x, half}, matmul());
  int gh = body.emit1(Op::DotGeneral, {h, u}, matmul());
  int h1 = body.emit1(Op::Tanh, {body.emit1(Op::Add, {gx, gh})});
  FuncPtr step = body.ret({h1, h1});
  Builder top("rnn");
  int w0 = top.param(ty(F32, {4, 3})), u0 = top.param(ty(F32, {3, 3}));
  int h0 = top.param(ty(F32, {2, 3})), xs = top.param(ty(F32, {steps, 2, 4}));
  Attrs at;
  at.numConsts = 2;
  at.numCarry = 1;
  at.length = steps;
  at.checkpoints = checkpoints;
  std::vector<int> out = top.emit(Op::Scan, {w0, u0, h0, xs}, at, {step});
  return top.ret(out);
}

Array pattern(Shape shape, double scale) {
  Array a(F32, shape);
  for (int64_t i = 0; i < a.size(); ++i) a.setDouble(i, scale * static_cast<double>((i * 37) % 11 - 5));
  return a;
}

std::vector<Array> rnnInputs(int64_t steps) {
  return {pattern({4, 3}, 0.1), pattern({3, 3}, 0.05), pattern({2, 3}, 0.2), pattern({steps, 2, 4}, 0.3)};
}

void expectClose(const std::vector<Array>& a, const std::vector<Array>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size());
    for (int64_t k = 0; k < a[i].size(); ++k) EXPECT_NEAR(a[i].getDouble(k), b[i].getDouble(k), 1e-6) << i << " " << k;
  }
}

TEST(HoistScanProducts, TheInputProductRunsOnceForEveryStepBeforeTheScan) {
  FuncPtr f = rnn(5);
  FuncPtr g = cloneFunc(*f);
  ASSERT_TRUE(hoistScanProducts(*g));
  const Eqn& scan = onlyScan(*g);
  // The body keeps the carry's product (h @ u); x @ (w * 0.5) is one product outside, over the
  // 5 steps, which the scan reads as a new xs.
  EXPECT_EQ(countOps(*scan.subs[0], Op::DotGeneral), 1);
  EXPECT_EQ(countOps(*scan.subs[0], Op::Mul), 0);
  EXPECT_EQ(countOps(*g, Op::DotGeneral), 1);
  for (const Eqn& e : g->eqns)
    if (e.op == Op::DotGeneral) {
      EXPECT_EQ(g->type(e.outputs[0]).shape, (Shape{5, 2, 3}));
    }
  // w and xs were read only by the hoisted equations: the scan no longer takes them.
  EXPECT_EQ(scan.attrs.numConsts, 1);
  EXPECT_EQ(scan.inputs.size(), 3u);  // u, h0, the stacked products
  EXPECT_EQ(g->type(scan.inputs.back()).shape, (Shape{5, 2, 3}));
  EXPECT_EQ(verify(*g), "");
  expectClose(interpret(*f, rnnInputs(5)), interpret(*g, rnnInputs(5)));
  // Nothing is left to hoist.
  EXPECT_FALSE(hoistScanProducts(*g));
}

TEST(HoistScanProducts, TheCarrysProductsAndACheckpointedScanStay) {
  FuncPtr checkpointed = rnn(5, 2);
  EXPECT_FALSE(hoistScanProducts(*checkpointed));
  // A body whose only product reads the carry has nothing to hoist.
  Builder body("step");
  int u = body.param(ty(F32, {3, 3})), h = body.param(ty(F32, {2, 3})), x = body.param(ty(F32, {2, 3}));
  FuncPtr step = body.ret({body.emit1(Op::Add, {body.emit1(Op::DotGeneral, {h, u}, matmul()), x})});
  Builder top("f");
  int u0 = top.param(ty(F32, {3, 3})), h0 = top.param(ty(F32, {2, 3})), xs = top.param(ty(F32, {4, 2, 3}));
  Attrs at;
  at.numConsts = 1;
  at.numCarry = 1;
  at.length = 4;
  FuncPtr f = top.ret(top.emit(Op::Scan, {u0, h0, xs}, at, {step}));
  EXPECT_FALSE(hoistScanProducts(*f));
}

TEST(HoistScanProducts, AScanWhoseStackedProductsWouldPassTheLimitStays) {
  // 2^20 steps of a (2, 3) f32 product: 24 MiB stacked, hoisted; 2^22 steps: 96 MiB, kept.
  FuncPtr small = rnn(int64_t{1} << 20), large = rnn(int64_t{1} << 22);
  EXPECT_TRUE(hoistScanProducts(*small));
  EXPECT_FALSE(hoistScanProducts(*large));
}

/// fori_loop's form of the RNN (Note [Counters as steps]): carries (i, h), i from `start` by
/// `step`, h' = tanh(xs[i] @ w + h @ u) with xs (steps, 2, 4) a const; results (final i, final h).
FuncPtr foriRnn(int64_t steps, int64_t start = 0, int64_t step = 1, bool reverse = false) {
  const DType I32 = DType::I32;
  Builder body("fori_loop body");
  int xs = body.param(ty(F32, {steps, 2, 4})), w = body.param(ty(F32, {4, 3})), u = body.param(ty(F32, {3, 3}));
  int i = body.param(ty(I32, {})), h = body.param(ty(F32, {2, 3}));
  Attrs rows;
  rows.shape = {1, 2, 4};
  int zero = body.constant(I32, 0);
  int x = body.emit1(Op::DynamicSlice, {xs, i, zero, zero}, rows);
  Attrs flat;
  flat.shape = {2, 4};
  int gx = body.emit1(Op::DotGeneral, {body.emit1(Op::Reshape, {x}, flat), w}, matmul());
  int gh = body.emit1(Op::DotGeneral, {h, u}, matmul());
  int h1 = body.emit1(Op::Tanh, {body.emit1(Op::Add, {gx, gh})});
  FuncPtr stepFn = body.ret({body.emit1(Op::Add, {i, body.constant(I32, static_cast<double>(step))}), h1});
  Builder top("fori");
  int xs0 = top.param(ty(F32, {steps, 2, 4})), w0 = top.param(ty(F32, {4, 3}));
  int u0 = top.param(ty(F32, {3, 3})), h0 = top.param(ty(F32, {2, 3}));
  Attrs at;
  at.numConsts = 3;
  at.numCarry = 2;
  at.length = steps;
  at.reverse = reverse;
  std::vector<int> out =
      top.emit(Op::Scan, {xs0, w0, u0, top.constant(I32, static_cast<double>(start)), h0}, at, {stepFn});
  return top.ret(out);
}

std::vector<Array> foriInputs(int64_t steps) {
  return {pattern({steps, 2, 4}, 0.3), pattern({4, 3}, 0.1), pattern({3, 3}, 0.05), pattern({2, 3}, 0.2)};
}

TEST(HoistScanProducts, AForiLoopsCounterIndexedProductIsHoistedLikeAnXs) {
  // xs[i] @ w for every step is one gather of rows and one product before the scan; the body
  // keeps h @ u. Starting at 1 the last i is past xs' rows, starting at -2 the first two are
  // before them: dynamic_slice clamps both, and so must the gather.
  for (int64_t start : {0, 1, -2}) {
    FuncPtr f = foriRnn(5, start);
    FuncPtr g = cloneFunc(*f);
    ASSERT_TRUE(hoistScanProducts(*g)) << start;
    const Eqn& scan = onlyScan(*g);
    EXPECT_EQ(countOps(*scan.subs[0], Op::DotGeneral), 1) << start;
    EXPECT_EQ(countOps(*scan.subs[0], Op::DynamicSlice), 0) << start;
    EXPECT_EQ(countOps(*g, Op::Gather), 1) << start;
    EXPECT_EQ(countOps(*g, Op::DotGeneral), 1) << start;
    EXPECT_EQ(verify(*g), "");
    expectClose(interpret(*f, foriInputs(5)), interpret(*g, foriInputs(5)));
  }
}

TEST(HoistScanProducts, OnlyACounterOfAForwardScanCountsAsASteppedInput) {
  // A carry growing by 2, or a reverse scan (whose step t reads xs position n - 1 - t): kept.
  EXPECT_FALSE(hoistScanProducts(*foriRnn(5, 0, 2)));
  EXPECT_FALSE(hoistScanProducts(*foriRnn(5, 0, 1, true)));
}

TEST(HoistScanProducts, ReverseModeTransposesTheHoistedProductAfterTheBackwardScan) {
  // The gradient with respect to w: its cotangent is x^T @ (the stacked cotangents of gx), one
  // product outside every scan; inside the scans only the carry's products remain.
  FuncPtr f = rnn(5);
  FuncPtr g = vjpFunc(*f, {true, true, true, false});
  int inScans = 0, outside = countOps(*g, Op::DotGeneral);
  for (const Eqn& e : g->eqns)
    if (e.op == Op::Scan) inScans += countOps(*e.subs[0], Op::DotGeneral);
  EXPECT_EQ(outside, 2);  // the forward product and the transpose for w
  // Forward: h @ u. Backward: the cotangents of h (ct @ u^T) and of u (h^T @ ct).
  EXPECT_EQ(inScans, 3);
  // The backward scan carries the cotangents of h and u, not one of zeros for w, which the
  // hoisted scan no longer takes.
  for (const Eqn& e : g->eqns)
    if (e.op == Op::Scan && e.attrs.reverse) {
      EXPECT_EQ(e.attrs.numCarry, 2);
      for (int k = 0; k < e.attrs.numCarry; ++k)
        EXPECT_NE(g->type(e.outputs[static_cast<size_t>(k)]).shape, (Shape{4, 3}));
    }
  EXPECT_EQ(verify(*g), "");
}

}  // namespace
}  // namespace scn
