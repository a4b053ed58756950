// The expand-associative-scans pass (Note [Odd-even associative scan]): the rounds it writes
// compute what the associative_scan op computes, for every length, axis and direction, for a
// combiner of two arrays with a constant in it, and inside a scan body.
#include <gtest/gtest.h>

#include "core_test_util.hpp"
#include "jit/transform/expand_assoc_scan.hpp"
#include "jit/transform/passes.hpp"

namespace scn {
namespace {

using test::Builder;
using test::ty;

/// The affine-map composition (a1, b1), (a2, b2) -> (a1 * a2, a2 * b1 + b2 - 0 * a1) on i32:
/// associative, not commutative, exact; the `0 *` puts a constant into the combiner.
FuncPtr affineCombiner() {
  Builder b("affine");
  int a1 = b.param(ty(DType::I32)), b1 = b.param(ty(DType::I32));
  int a2 = b.param(ty(DType::I32)), b2 = b.param(ty(DType::I32));
  int zero = b.constant(DType::I32, 0);
  int bias = b.emit1(Op::Sub, {b.emit1(Op::Add, {b.emit1(Op::Mul, {a2, b1}), b2}), b.emit1(Op::Mul, {zero, a1})});
  return b.ret({b.emit1(Op::Mul, {a1, a2}), bias});
}

/// associative_scan of two i32 arrays of `shape` along `axis`.
FuncPtr scanFunc(const Shape& shape, int64_t axis, bool reverse) {
  Builder b("scan");
  int x = b.param(ty(DType::I32, shape)), y = b.param(ty(DType::I32, shape));
  Attrs at;
  at.axes = {axis};
  at.reverse = reverse;
  return b.ret(b.emit(Op::AssocScan, {x, y}, at, {affineCombiner()}));
}

std::vector<Array> inputs(const Shape& shape) {
  Array x(DType::I32, shape), y(DType::I32, shape);
  for (int64_t i = 0; i < x.size(); ++i) {
    x.setDouble(i, 1 + i % 3 - (i % 5 == 0 ? 2 : 0));
    y.setDouble(i, (i * 7) % 11 - 5);
  }
  return {x, y};
}

bool hasAssocScan(const Func& f) {
  for (const Eqn& e : f.eqns) {
    if (e.op == Op::AssocScan) return true;
    for (const FuncPtr& s : e.subs)
      if (hasAssocScan(*s)) return true;
  }
  return false;
}

void expectSameResults(const Func& a, const Func& b, const std::vector<Array>& args, const std::string& what) {
  std::vector<Array> ra = interpret(a, args), rb = interpret(b, args);
  ASSERT_EQ(ra.size(), rb.size()) << what;
  for (size_t i = 0; i < ra.size(); ++i) EXPECT_EQ(test::values(ra[i]), test::values(rb[i])) << what << " result " << i;
}

TEST(ExpandAssocScan, RoundsEqualTheOpForEveryLengthAxisAndDirection) {
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 13, 32})
    for (int64_t axis : {0, 1})
      for (bool reverse : {false, true}) {
        Shape shape = axis == 0 ? Shape{n, 3} : Shape{2, n};
        FuncPtr op = scanFunc(shape, axis, reverse);
        FuncPtr rounds = cloneFunc(*op);
        std::string what = "n=" + std::to_string(n) + " axis=" + std::to_string(axis) + (reverse ? " reverse" : "");
        EXPECT_TRUE(expandAssociativeScans(*rounds)) << what;
        EXPECT_EQ(verify(*rounds), "") << what;
        EXPECT_FALSE(hasAssocScan(*rounds)) << what;
        expectSameResults(*op, *rounds, inputs(shape), what);
      }
}

TEST(ExpandAssocScan, ReachesScanBodiesAndRunsOnlyWhenAsked) {
  // scan over xs (4, 5): each body scans its x slice of 5 with a carry that adds it up.
  Builder body("body");
  int c = body.param(ty(DType::I32, {5})), x = body.param(ty(DType::I32, {5}));
  int scanned = body.emit(Op::AssocScan, {x, x}, test::axesAttr({0}), {affineCombiner()})[1];
  FuncPtr bodyF = body.ret({body.emit1(Op::Add, {c, scanned}), scanned});
  Builder top("top");
  int init = top.param(ty(DType::I32, {5})), xs = top.param(ty(DType::I32, {4, 5}));
  Attrs at;
  at.numCarry = 1;
  at.length = 4;
  FuncPtr f = top.ret(top.emit(Op::Scan, {init, xs}, at, {bodyF}));
  ASSERT_TRUE(hasAssocScan(*f));

  PipelineOptions off;
  EXPECT_TRUE(hasAssocScan(*runPipeline(*f, off)));  // the cpu and interp backends keep the op
  PipelineOptions on;
  on.expandAssociativeScans = true;
  FuncPtr expanded = runPipeline(*f, on);
  EXPECT_FALSE(hasAssocScan(*expanded));
  std::vector<Array> args = {inputs({5})[0], inputs({4, 5})[1]};
  expectSameResults(*f, *expanded, args, "scan body");
}

}  // namespace
}  // namespace scn
