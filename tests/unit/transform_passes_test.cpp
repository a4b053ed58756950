// The IR passes of the pipeline (jit/transform/passes.cpp): dead scan outputs (Note [Dead scan
// outputs]) go, with the inputs only they read, and the results stay the same.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace scn
