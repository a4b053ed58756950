// The IR passes of the pipeline (jit/transform/passes.cpp): dead scan outputs (Note [Dead scan
// outputs]) go, with the inputs only they read, sums of disjoint zero-padded blocks are joined
// (Note [Sums of disjoint blocks]), and the results stay the same.
#include <gtest/gtest.h>

#include <algorithm>

#include "core_test_util.hpp"
#include "jit/backend.hpp"
#include "jit/transform/passes.hpp"

namespace scn {
namespace {

using test::Builder;
using test::ty;
const DType F32 = DType::F32;

const Eqn* onlyScan(const Func& f) {
  const Eqn* scan = nullptr;
  for (const Eqn& e : f.eqns)
    if (e.op == Op::Scan) {
      EXPECT_EQ(scan, nullptr) << "more than one scan";
      scan = &e;
    }
  return scan;
}

/// A scan of 5 steps over carries (a, b) and xs: a' = a * 1.5 + x, b' = b + x * x (a carry whose
/// final value the caller drops), ys (a * 2, b * x). The caller keeps a and the first y, or
/// (`keepB`) the b carry too.
FuncPtr scanWithDeadOutputs(bool keepB) {
  Builder body("body");
  int a = body.param(ty(F32, {3})), b = body.param(ty(F32, {3})), x = body.param(ty(F32, {3}));
  int a2 = body.emit1(Op::Add, {body.emit1(Op::Mul, {a, body.constant(F32, 1.5, {3})}), x});
  int b2 = body.emit1(Op::Add, {b, body.emit1(Op::Mul, {x, x})});
  FuncPtr bodyF = body.ret({a2, b2, body.emit1(Op::Mul, {a, body.constant(F32, 2.0, {3})}), body.emit1(Op::Mul, {b, x})});
  Builder top("f");
  int a0 = top.param(ty(F32, {3})), b0 = top.param(ty(F32, {3})), xs = top.param(ty(F32, {5, 3}));
  Attrs at;
  at.numCarry = 2;
  at.length = 5;
  std::vector<int> out = top.emit(Op::Scan, {a0, b0, xs}, at, {bodyF});
  return top.ret(keepB ? std::vector<int>{out[0], out[1], out[2]} : std::vector<int>{out[0], out[2]});
}

std::vector<Array> someInputs() {
  Array a(F32, {3}), b(F32, {3}), xs(F32, {5, 3});
  for (int64_t i = 0; i < 3; ++i) {
    a.setDouble(i, 0.5 + static_cast<double>(i));
    b.setDouble(i, -1.0 + static_cast<double>(i));
  }
  for (int64_t i = 0; i < xs.size(); ++i) xs.setDouble(i, 0.25 * static_cast<double>(i % 7) - 0.5);
  return {a, b, xs};
}

void expectSameResults(const Func& a, const Func& b) {
  std::vector<Array> ra = interpret(a, someInputs()), rb = interpret(b, someInputs());
  ASSERT_EQ(ra.size(), rb.size());
  for (size_t i = 0; i < ra.size(); ++i)
    for (int64_t k = 0; k < ra[i].size(); ++k) EXPECT_EQ(ra[i].getDouble(k), rb[i].getDouble(k)) << i << " " << k;
}

TEST(Passes, AScanLosesTheOutputsNobodyReads) {
  FuncPtr f = scanWithDeadOutputs(false);
  FuncPtr g = runPipeline(*f, {});
  const Eqn* scan = onlyScan(*g);
  ASSERT_NE(scan, nullptr);
  // b is dropped with its y (b * x) and its update; a and a * 2 stay, and xs (read by a') too.
  EXPECT_EQ(scan->attrs.numCarry, 1);
  EXPECT_EQ(scan->outputs.size(), 2u);
  EXPECT_EQ(scan->inputs.size(), 2u);
  EXPECT_EQ(scan->subs[0]->params.size(), 2u);
  expectSameResults(*f, *g);
}

TEST(Passes, ACarryThatALiveValueReadsStays) {
  // Keeping b keeps its update; the unused y (b * x) still goes.
  FuncPtr f = scanWithDeadOutputs(true);
  FuncPtr g = runPipeline(*f, {});
  const Eqn* scan = onlyScan(*g);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->attrs.numCarry, 2);
  EXPECT_EQ(scan->outputs.size(), 3u);
  expectSameResults(*f, *g);
}

TEST(Passes, XsOnlyADeadOutputReadsAreDropped) {
  // a' = a * 1.5 and y = a * 2 are kept and read no xs; b' = b + x and b * x are dead, so the
  // scan no longer reads xs at all.
  Builder body("body");
  int a = body.param(ty(F32, {3})), b = body.param(ty(F32, {3})), x = body.param(ty(F32, {3}));
  FuncPtr bodyF = body.ret({body.emit1(Op::Mul, {a, body.constant(F32, 1.5, {3})}), body.emit1(Op::Add, {b, x}),
                            body.emit1(Op::Mul, {a, body.constant(F32, 2.0, {3})}), body.emit1(Op::Mul, {b, x})});
  Builder top("f");
  int a0 = top.param(ty(F32, {3})), b0 = top.param(ty(F32, {3})), xs = top.param(ty(F32, {5, 3}));
  Attrs at;
  at.numCarry = 2;
  at.length = 5;
  std::vector<int> out = top.emit(Op::Scan, {a0, b0, xs}, at, {bodyF});
  FuncPtr f = top.ret({out[0], out[2]});
  FuncPtr g = runPipeline(*f, {});
  const Eqn* scan = onlyScan(*g);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->attrs.numCarry, 1);
  EXPECT_EQ(scan->inputs.size(), 1u);  // the init of a; no xs
  expectSameResults(*f, *g);
}

int countOps(const Func& f, Op op) {
  return static_cast<int>(std::count_if(f.eqns.begin(), f.eqns.end(), [&](const Eqn& e) { return e.op == op; }));
}

/// The sum, left to right, of sin(updates[k]) (f32 (2, cols)) each written at column starts[k] into
/// zeros of (2, width): what reverse mode makes of a value read as slices.
int paddedSum(Builder& b, const std::vector<int>& updates, const std::vector<int64_t>& starts, int64_t width,
              std::vector<int>* padded = nullptr) {
  int sum = -1;
  for (size_t k = 0; k < updates.size(); ++k) {
    int u = b.emit1(Op::Sin, {updates[k]});
    int p = b.emit1(Op::DynamicUpdateSlice, {b.constant(F32, 0.0, {2, width}), u, b.constant(DType::I32, 0),
                                             b.constant(DType::I32, static_cast<double>(starts[k]))});
    if (padded) padded->push_back(p);
    sum = sum < 0 ? p : b.emit1(Op::Add, {sum, p});
  }
  return sum;
}

/// paddedSum over parameters of (2, cols[k]); with `alsoResult`, the first padded block is a
/// result too.
FuncPtr paddedSum(const std::vector<int64_t>& cols, const std::vector<int64_t>& starts, int64_t width,
                  bool alsoResult = false) {
  Builder b("padded_sum");
  std::vector<int> updates, padded;
  for (int64_t n : cols) updates.push_back(b.param(ty(F32, {2, n})));
  int sum = paddedSum(b, updates, starts, width, &padded);
  return b.ret(alsoResult ? std::vector<int>{sum, padded[0]} : std::vector<int>{sum});
}

std::vector<Array> blockInputs(const Func& f) {
  std::vector<Array> in;
  for (int p : f.params) {
    Array a(F32, f.type(p).shape);
    for (int64_t i = 0; i < a.size(); ++i) a.setDouble(i, 0.25 * static_cast<double>(in.size() * 7 + i) - 1.0);
    in.push_back(a);
  }
  return in;
}

void expectSameBlockResults(const Func& a, const Func& b) {
  std::vector<Array> ra = interpret(a, blockInputs(a)), rb = interpret(b, blockInputs(b));
  ASSERT_EQ(ra.size(), rb.size());
  for (size_t i = 0; i < ra.size(); ++i)
    for (int64_t k = 0; k < ra[i].size(); ++k) EXPECT_EQ(ra[i].getDouble(k), rb[i].getDouble(k)) << i << " " << k;
}

TEST(Passes, PaddedBlocksThatTileAnAxisAreTheirConcat) {
  // Columns [0, 3), [5, 6) and [3, 5), added in that order: one concat in column order.
  FuncPtr f = paddedSum({3, 1, 2}, {0, 5, 3}, 6);
  FuncPtr g = runPipeline(*f, {});
  EXPECT_EQ(countOps(*g, Op::Add), 0) << printFunc(*g);
  EXPECT_EQ(countOps(*g, Op::DynamicUpdateSlice), 0) << printFunc(*g);
  ASSERT_EQ(countOps(*g, Op::Concat), 1) << printFunc(*g);
  expectSameBlockResults(*f, *g);
}

TEST(Passes, ClampedStartsCountAsDynamicUpdateSliceClampsThem) {
  // A block of 2 columns at start 9 of 6 lands at 4: with [0, 4) it tiles the array.
  FuncPtr f = paddedSum({4, 2}, {0, 9}, 6);
  FuncPtr g = runPipeline(*f, {});
  EXPECT_EQ(countOps(*g, Op::Concat), 1) << printFunc(*g);
  expectSameBlockResults(*f, *g);
}

TEST(Passes, PaddedBlocksWithGapsAreWrittenIntoOneZeroArray) {
  // Columns [0, 2) and [3, 4) of 6: one zero array and two updates, no add.
  FuncPtr f = paddedSum({2, 1}, {0, 3}, 6);
  FuncPtr g = runPipeline(*f, {});
  EXPECT_EQ(countOps(*g, Op::Add), 0) << printFunc(*g);
  EXPECT_EQ(countOps(*g, Op::BroadcastInDim), 1) << printFunc(*g);
  EXPECT_EQ(countOps(*g, Op::DynamicUpdateSlice), 2) << printFunc(*g);
  expectSameBlockResults(*f, *g);
}

TEST(Passes, OverlappingOrSharedBlocksAreStillAdded) {
  FuncPtr overlapping = paddedSum({3, 2}, {0, 2}, 6);  // column 2 in both
  EXPECT_EQ(countOps(*runPipeline(*overlapping, {}), Op::Add), 1);
  FuncPtr shared = paddedSum({3, 3}, {0, 3}, 6, true);  // the first padded block is a result too
  FuncPtr g = runPipeline(*shared, {});
  EXPECT_EQ(countOps(*g, Op::Add), 1) << printFunc(*g);
  expectSameBlockResults(*shared, *g);
}

TEST(Passes, BlocksInAScanBodyAreJoined) {
  // c' = c + (a gate's three slice cotangents): the sum in the body becomes a concat.
  Builder body("step");
  int c = body.param(ty(F32, {2, 6}));
  std::vector<int> xs;
  for (int k = 0; k < 3; ++k) xs.push_back(body.param(ty(F32, {2, 2})));
  FuncPtr step = body.ret({body.emit1(Op::Add, {c, paddedSum(body, xs, {0, 2, 4}, 6)})});
  Builder top("f");
  int c0 = top.param(ty(F32, {2, 6}));
  std::vector<int> in{c0};
  for (int k = 0; k < 3; ++k) in.push_back(top.param(ty(F32, {5, 2, 2})));
  Attrs at;
  at.numCarry = 1;
  at.length = 5;
  FuncPtr f = top.ret(top.emit(Op::Scan, in, at, {step}));
  FuncPtr g = runPipeline(*f, {});
  const Eqn* scan = onlyScan(*g);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(countOps(*scan->subs[0], Op::Concat), 1) << printFunc(*g);
  EXPECT_EQ(countOps(*scan->subs[0], Op::DynamicUpdateSlice), 0) << printFunc(*g);
  expectSameBlockResults(*f, *g);
}

}  // namespace
}  // namespace scn
