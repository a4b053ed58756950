// The reference interpreter on small hand-built programs with hand-computed results.
#include <gtest/gtest.h>

#include <cmath>

#include "core_test_util.hpp"
#include "jit/backend.hpp"

namespace scn {
namespace {

using test::arr;
using test::axesAttr;
using test::Builder;
using test::ty;
using test::values;
using V = std::vector<double>;

const DType F32 = DType::F32, I32 = DType::I32, Bool = DType::Bool;

Array run1(Op op, std::vector<Array> in, Attrs a = {}, std::vector<FuncPtr> subs = {}) {
  Eqn e{op, {}, {}, std::move(a), std::move(subs), Span{}};
  std::vector<Array> out = evalEqn(e, in);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

// scan(|c, x| (c + x, c + x), 0, xs): carry = total, ys = running sums.
FuncPtr cumsumScan(int64_t n, bool reverse) {
  Builder body("step");
  int c = body.param(ty(F32)), x = body.param(ty(F32));
  int s = body.emit1(Op::Add, {c, x});
  body.ret({s, s});
  Builder b("cumsum_by_scan");
  int init = b.param(ty(F32)), xs = b.param(ty(F32, {n}));
  Attrs a;
  a.length = n;
  a.numCarry = 1;
  a.reverse = reverse;
  std::vector<int> outs = b.emit(Op::Scan, {init, xs}, a, {body.f});
  return b.ret(outs);
}

TEST(CoreInterp, ScanComputingCumsumEqualsCumSum) {
  Array xs = arr(F32, {5}, {1, 2, 3, 4, 5});
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    FuncPtr f = cumsumScan(5, reverse);
    ASSERT_EQ(verify(*f), "");
    std::vector<Array> out = interpret(*f, {Array::scalar(F32, 0), xs});
    Attrs a = axesAttr({0});
    a.reverse = reverse;
    Array expected = run1(Op::CumSum, {xs}, a);
    EXPECT_EQ(values(out[0]), V{15});
    EXPECT_EQ(values(out[1]), values(expected));
    EXPECT_EQ(values(out[1]), reverse ? V({15, 14, 12, 9, 5}) : V({1, 3, 6, 10, 15}));
  }
}

TEST(CoreInterp, ReverseScanStacksYsAtTheirXsPositions) {
  // body(one, c) -> (c + one, c): ys record the iteration number; a const, no xs.
  // With reverse, iteration i writes position length-1-i (JAX), so ys read backwards.
  Builder body("step");
  int one = body.param(ty(I32)), c = body.param(ty(I32));
  body.ret({body.emit1(Op::Add, {c, one}), c});
  Builder b("count");
  int k = b.param(ty(I32)), c0 = b.param(ty(I32));
  Attrs a;
  a.length = 4;
  a.numConsts = 1;
  a.numCarry = 1;
  a.reverse = true;
  FuncPtr f = b.ret(b.emit(Op::Scan, {k, c0}, a, {body.f}));
  ASSERT_EQ(verify(*f), "");
  std::vector<Array> out = interpret(*f, {Array::scalarInt(I32, 1), Array::scalarInt(I32, 0)});
  EXPECT_EQ(values(out[0]), V{4});
  EXPECT_EQ(values(out[1]), V({3, 2, 1, 0}));
  f->eqns[0].attrs.reverse = false;
  out = interpret(*f, {Array::scalarInt(I32, 1), Array::scalarInt(I32, 0)});
  EXPECT_EQ(values(out[1]), V({0, 1, 2, 3}));
}

TEST(CoreInterp, ScanWithNoXsAndSeveralCarries) {
  // Fibonacci: (a, b) -> (b, a + b), ys = a; length 6.
  Builder body("fib");
  int x = body.param(ty(I32)), y = body.param(ty(I32));
  body.ret({y, body.emit1(Op::Add, {x, y}), x});
  Builder b("main");
  int a0 = b.param(ty(I32)), b0 = b.param(ty(I32));
  Attrs a;
  a.length = 6;
  a.numCarry = 2;
  FuncPtr f = b.ret(b.emit(Op::Scan, {a0, b0}, a, {body.f}));
  std::vector<Array> out = interpret(*f, {Array::scalarInt(I32, 0), Array::scalarInt(I32, 1)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(values(out[0]), V{8});
  EXPECT_EQ(values(out[1]), V{13});
  EXPECT_EQ(values(out[2]), V({0, 1, 1, 2, 3, 5}));
}

TEST(CoreInterp, WhileLoop) {
  // while i < n: (i, s) = (i + 1, s * 2)
  Builder cond("cond");
  int n = cond.param(ty(I32)), ci = cond.param(ty(I32));
  cond.param(ty(F32));
  cond.ret({cond.emit1(Op::Lt, {ci, n})});
  Builder body("body");
  int one = body.param(ty(I32)), bi = body.param(ty(I32)), bs = body.param(ty(F32));
  body.ret({body.emit1(Op::Add, {bi, one}), body.emit1(Op::Add, {bs, bs})});
  Builder b("main");
  int pn = b.param(ty(I32)), pone = b.param(ty(I32)), pi = b.param(ty(I32)), ps = b.param(ty(F32));
  Attrs a;
  a.numConsts = 1;
  a.numBodyConsts = 1;
  FuncPtr f = b.ret(b.emit(Op::While, {pn, pone, pi, ps}, a, {cond.f, body.f}));
  ASSERT_EQ(verify(*f), "");
  auto go = [&](int limit) {
    return interpret(*f, {Array::scalarInt(I32, limit), Array::scalarInt(I32, 1), Array::scalarInt(I32, 0),
                          Array::scalar(F32, 1.5)});
  };
  std::vector<Array> out = go(5);
  EXPECT_EQ(values(out[0]), V{5});
  EXPECT_EQ(values(out[1]), V{48});
  out = go(-1);  // the body never runs
  EXPECT_EQ(values(out[0]), V{0});
  EXPECT_EQ(values(out[1]), V{1.5});
}

TEST(CoreInterp, CondPicksAndClampsItsBranch) {
  auto branch = [](const char* name, Op op) {
    Builder b(name);
    int x = b.param(ty(F32, {2}));
    return b.ret({b.emit1(op, {x})});
  };
  FuncPtr neg = branch("neg", Op::Neg), ab = branch("abs", Op::Abs), fl = branch("floor", Op::Floor);
  Array x = arr(F32, {2}, {-1.5, 2.5});
  Eqn e{Op::Cond, {}, {}, {}, {neg, ab, fl}, Span{}};
  auto pick = [&](int64_t i) { return values(evalEqn(e, {Array::scalarInt(I32, i), x})[0]); };
  EXPECT_EQ(pick(0), V({1.5, -2.5}));
  EXPECT_EQ(pick(1), V({1.5, 2.5}));
  EXPECT_EQ(pick(2), V({-2, 2}));
  EXPECT_EQ(pick(7), V({-2, 2}));    // clamped to the last
  EXPECT_EQ(pick(-3), V({1.5, -2.5}));  // clamped to the first
  Eqn two{Op::Cond, {}, {}, {}, {neg, ab}, Span{}};
  Array t = Array::scalarInt(Bool, 1);
  EXPECT_EQ(values(evalEqn(two, {t, x})[0]), V({1.5, 2.5}));  // true picks branch 1
}

TEST(CoreInterp, DotGeneralAsMatmulAndBatchedMatmul) {
  Attrs mm;
  mm.lhsContract = {1};
  mm.rhsContract = {0};
  Array a = arr(F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Array b = arr(F32, {3, 2}, {7, 8, 9, 10, 11, 12});
  EXPECT_EQ(values(run1(Op::DotGeneral, {a, b}, mm)), V({58, 64, 139, 154}));

  Attrs bmm;
  bmm.lhsContract = {2};
  bmm.rhsContract = {1};
  bmm.lhsBatch = {0};
  bmm.rhsBatch = {0};
  Array la = arr(I32, {2, 1, 2}, {1, 2, 3, 4});
  Array rb = arr(I32, {2, 2, 2}, {1, 0, 0, 1, 2, 1, 1, 2});
  Array c = run1(Op::DotGeneral, {la, rb}, bmm);
  EXPECT_EQ(c.shape, Shape({2, 1, 2}));
  // batch 0: [1 2] @ I = [1 2]; batch 1: [3 4] @ [[2 1] [1 2]] = [10 11]
  EXPECT_EQ(values(c), V({1, 2, 10, 11}));

  Attrs dot;  // vector dot product: contract the only axis
  dot.lhsContract = {0};
  dot.rhsContract = {0};
  EXPECT_EQ(values(run1(Op::DotGeneral, {arr(F32, {3}, {1, 2, 3}), arr(F32, {3}, {4, 5, 6})}, dot)), V{32});
  Attrs outer;  // nothing contracted: an outer product
  EXPECT_EQ(values(run1(Op::DotGeneral, {arr(F32, {2}, {1, 2}), arr(F32, {2}, {3, 4})}, outer)), V({3, 4, 6, 8}));
}

TEST(CoreInterp, Reductions) {
  Array x = arr(F32, {2, 3}, {1, 5, 3, 4, 2, 6});
  EXPECT_EQ(values(run1(Op::ReduceSum, {x}, axesAttr({0}))), V({5, 7, 9}));
  EXPECT_EQ(values(run1(Op::ReduceSum, {x}, axesAttr({0, 1}))), V{21});
  EXPECT_EQ(values(run1(Op::ReduceMax, {x}, axesAttr({1}))), V({5, 6}));
  EXPECT_EQ(values(run1(Op::ReduceProd, {x}, axesAttr({1}))), V({15, 48}));
  EXPECT_EQ(values(run1(Op::ArgMax, {x}, axesAttr({1}))), V({1, 2}));
  EXPECT_EQ(values(run1(Op::ArgMin, {x}, axesAttr({0}))), V({0, 1, 0}));
  EXPECT_EQ(values(run1(Op::ReduceMin, {arr(F32, {0}, {})}, axesAttr({0}))), V{INFINITY});
  Array nan = arr(F32, {4}, {1, NAN, 7, NAN});
  EXPECT_TRUE(std::isnan(values(run1(Op::ReduceMax, {nan}, axesAttr({0})))[0]));
  EXPECT_EQ(values(run1(Op::ArgMax, {nan}, axesAttr({0}))), V{1});
  EXPECT_EQ(values(run1(Op::ArgMax, {arr(I32, {4}, {3, 9, 9, 1})}, axesAttr({0}))), V{1});  // first max wins
  Array big = arr(I32, {2}, {2147483647, 1});
  EXPECT_EQ(values(run1(Op::ReduceSum, {big}, axesAttr({0}))), V{-2147483648.0});  // wraps
  Array flags = arr(Bool, {2, 2}, {1, 0, 1, 1});
  EXPECT_EQ(values(run1(Op::ReduceAnd, {flags}, axesAttr({1}))), V({0, 1}));
  EXPECT_EQ(values(run1(Op::ReduceOr, {flags}, axesAttr({0}))), V({1, 1}));
}

TEST(CoreInterp, CumulativeOps) {
  Array x = arr(I32, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values(run1(Op::CumSum, {x}, axesAttr({1}))), V({1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values(run1(Op::CumProd, {x}, axesAttr({0}))), V({1, 2, 3, 4, 10, 18}));
  Attrs rev = axesAttr({1});
  rev.reverse = true;
  EXPECT_EQ(values(run1(Op::CumMax, {arr(F32, {4}, {1, 3, 2, 0})}, axesAttr({0}))), V({1, 3, 3, 3}));
  rev.axes = {0};
  EXPECT_EQ(values(run1(Op::CumMin, {arr(F32, {4}, {1, 3, 2, 0})}, rev)), V({0, 0, 0, 0}));
  EXPECT_EQ(values(run1(Op::CumSum, {arr(F32, {3}, {1, 2, 3})}, rev)), V({6, 5, 3}));
}

TEST(CoreInterp, StructuralOps) {
  Array x = arr(I32, {2, 3}, {0, 1, 2, 3, 4, 5});
  Attrs bc;
  bc.shape = {2, 3};
  bc.axes = {0};
  EXPECT_EQ(values(run1(Op::BroadcastInDim, {arr(I32, {2}, {7, 8})}, bc)), V({7, 7, 7, 8, 8, 8}));
  bc.shape = {2, 2};
  bc.axes = {};
  EXPECT_EQ(values(run1(Op::BroadcastInDim, {Array::scalarInt(I32, 4)}, bc)), V({4, 4, 4, 4}));
  EXPECT_EQ(values(run1(Op::Transpose, {x}, axesAttr({1, 0}))), V({0, 3, 1, 4, 2, 5}));
  Attrs rs;
  rs.shape = {3, 2};
  Array r = run1(Op::Reshape, {x}, rs);
  EXPECT_EQ(r.shape, Shape({3, 2}));
  EXPECT_EQ(values(r), values(x));
  EXPECT_EQ(values(run1(Op::Concat, {x, arr(I32, {2, 1}, {9, 9})}, axesAttr({1}))), V({0, 1, 2, 9, 3, 4, 5, 9}));
  EXPECT_EQ(values(run1(Op::Concat, {x, x}, axesAttr({0}))), V({0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  Attrs sl;
  sl.starts = {0, 0};
  sl.limits = {2, 3};
  sl.strides = {1, 2};
  EXPECT_EQ(values(run1(Op::Slice, {x}, sl)), V({0, 2, 3, 5}));
  EXPECT_EQ(values(run1(Op::Reverse, {x}, axesAttr({1}))), V({2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(values(run1(Op::Reverse, {x}, axesAttr({0, 1}))), V({5, 4, 3, 2, 1, 0}));
  Attrs io;
  io.dtype = F32;
  io.shape = {2, 3};
  io.axes = {0};
  EXPECT_EQ(values(run1(Op::Iota, {}, io)), V({0, 0, 0, 1, 1, 1}));
}

TEST(CoreInterp, DynamicSlicesClampTheirStarts) {
  Array x = arr(F32, {5}, {0, 1, 2, 3, 4});
  Attrs ds;
  ds.shape = {2};
  auto slice = [&](int64_t s) { return values(run1(Op::DynamicSlice, {x, Array::scalarInt(I32, s)}, ds)); };
  EXPECT_EQ(slice(1), V({1, 2}));
  EXPECT_EQ(slice(4), V({3, 4}));   // clamped to 3
  EXPECT_EQ(slice(-2), V({0, 1}));  // clamped to 0
  Array u = arr(F32, {2}, {9, 8});
  auto update = [&](int64_t s) { return values(run1(Op::DynamicUpdateSlice, {x, u, Array::scalarInt(DType::I64, s)})); };
  EXPECT_EQ(update(0), V({9, 8, 2, 3, 4}));
  EXPECT_EQ(update(10), V({0, 1, 2, 9, 8}));
  EXPECT_EQ(values(x), V({0, 1, 2, 3, 4}));  // the operand is not modified
  Array m = arr(I32, {3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  Attrs ds2;
  ds2.shape = {2, 2};
  EXPECT_EQ(values(run1(Op::DynamicSlice, {m, Array::scalarInt(I32, 1), Array::scalarInt(DType::U32, 5)}, ds2)),
            V({4, 5, 7, 8}));
}

TEST(CoreInterp, ElementwiseAndConvert) {
  Array a = arr(I32, {4}, {7, -7, 7, -7});
  Array b = arr(I32, {4}, {2, 2, -2, 0});
  EXPECT_EQ(values(run1(Op::FloorDiv, {a, b})), V({3, -4, -4, 0}));
  EXPECT_EQ(values(run1(Op::Rem, {a, b})), V({1, 1, -1, 0}));
  EXPECT_EQ(values(run1(Op::Div, {a, b})), V({3, -3, -3, 0}));
  Attrs toI32;
  toI32.dtype = I32;
  EXPECT_EQ(values(run1(Op::Convert, {arr(F32, {4}, {NAN, 1e20, -2.7, 2.7})}, toI32)), V({0, 2147483647, -2, 2}));
  Attrs toBool;
  toBool.dtype = Bool;
  EXPECT_EQ(values(run1(Op::Convert, {arr(F32, {3}, {0, -0.5, NAN})}, toBool)), V({0, 1, 1}));
  EXPECT_EQ(values(run1(Op::Select, {arr(Bool, {2}, {1, 0}), arr(F32, {2}, {1, 2}), arr(F32, {2}, {3, 4})})), V({1, 4}));
  EXPECT_EQ(values(run1(Op::Lt, {arr(F32, {2}, {1, NAN}), arr(F32, {2}, {2, 2})})), V({1, 0}));
  EXPECT_EQ(values(run1(Op::Round, {arr(F32, {4}, {0.5, 1.5, 2.5, -0.5})})), V({0, 2, 2, -0.0}));
}

// Oracles between kernels: each identity below holds exactly for integer data.
TEST(CoreInterp, KernelsAgreeWithEachOther) {
  Array x(I32, {3, 4, 5});
  for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, (i * 7919) % 23 - 11);
  // Reducing axes (0, 2) at once equals reducing axis 2 and then axis 0.
  Array both = run1(Op::ReduceSum, {x}, axesAttr({0, 2}));
  Array steps = run1(Op::ReduceSum, {run1(Op::ReduceSum, {x}, axesAttr({2}))}, axesAttr({0}));
  EXPECT_EQ(values(both), values(steps));
  // A transpose and its inverse permutation give back the input.
  Array t = run1(Op::Transpose, {x}, axesAttr({2, 0, 1}));
  EXPECT_EQ(t.shape, Shape({5, 3, 4}));
  EXPECT_EQ(values(run1(Op::Transpose, {t}, axesAttr({1, 2, 0}))), values(x));
  // A reverse cumsum equals reverse(cumsum(reverse(x))).
  Attrs rev = axesAttr({1});
  rev.reverse = true;
  Array flipped = run1(Op::Reverse, {x}, axesAttr({1}));
  EXPECT_EQ(values(run1(Op::CumSum, {x}, rev)),
            values(run1(Op::Reverse, {run1(Op::CumSum, {flipped}, axesAttr({1}))}, axesAttr({1}))));
  // dot_general with the batch axis last equals transposing it to the front first.
  Array y(I32, {5, 6, 4});  // contract x's axis 1 (size 4) with y's axis 2; batch x axis 2 with y axis 0
  for (int64_t i = 0; i < y.size(); ++i) y.setInt(i, (i * 104729) % 19 - 9);
  Attrs odd;
  odd.lhsContract = {1};
  odd.rhsContract = {2};
  odd.lhsBatch = {2};
  odd.rhsBatch = {0};
  Array direct = run1(Op::DotGeneral, {x, y}, odd);
  EXPECT_EQ(direct.shape, Shape({5, 3, 6}));
  Attrs bmm;  // x' = transpose(x, (2, 0, 1)): [5, 3, 4]; y' = transpose(y, (0, 2, 1)): [5, 4, 6]
  bmm.lhsContract = {2};
  bmm.rhsContract = {1};
  bmm.lhsBatch = {0};
  bmm.rhsBatch = {0};
  Array viaT = run1(Op::DotGeneral, {t, run1(Op::Transpose, {y}, axesAttr({0, 2, 1}))}, bmm);
  EXPECT_EQ(values(direct), values(viaT));
  // ... and each batch of it is a plain matmul written out by hand.
  for (int64_t b = 0; b < 5; ++b)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 6; ++j) {
        int64_t acc = 0;
        for (int64_t k = 0; k < 4; ++k) acc += x.getInt((i * 4 + k) * 5 + b) * y.getInt((b * 6 + j) * 4 + k);
        EXPECT_EQ(direct.getInt((b * 3 + i) * 6 + j), acc);
      }
  // A dynamic_slice at an in-range start equals the static slice.
  Attrs ds;
  ds.shape = {2, 2, 3};
  Attrs sl;
  sl.starts = {1, 1, 2};
  sl.limits = {3, 3, 5};
  EXPECT_EQ(values(run1(Op::DynamicSlice, {x, Array::scalarInt(I32, 1), Array::scalarInt(I32, 1),
                                            Array::scalarInt(I32, 2)}, ds)),
            values(run1(Op::Slice, {x}, sl)));
}

TEST(CoreInterp, BadInputsAreInternalErrors) {
  Builder b;
  int x = b.param(ty(F32, {2}));
  FuncPtr f = b.ret({b.emit1(Op::Neg, {x})});
  EXPECT_THROW(interpret(*f, {}), UserError);
  EXPECT_THROW(interpret(*f, {arr(F32, {3}, {1, 2, 3})}), UserError);
  try {
    interpret(*f, {arr(I32, {2}, {1, 2})});
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code, "E9999");
    EXPECT_NE(e.diag.message.find("argument 0 of f has type i32[2] but the parameter has type f32[2]"), std::string::npos)
        << e.diag.message;
  }
  Eqn bad{Op::Add, {}, {}, {}, {}, Span{}};
  EXPECT_THROW(evalEqn(bad, {arr(F32, {2}, {1, 2}), arr(F32, {3}, {1, 2, 3})}), UserError);
}

TEST(CoreInterp, BackendCompilesAndRuns) {
  FuncPtr f = cumsumScan(3, false);
  std::unique_ptr<Backend> be = makeInterpreterBackend();
  EXPECT_EQ(be->name(), "interp");
  CompileStats cs;
  std::unique_ptr<Executable> exe = be->compile(f, &cs);
  RunStats rs;
  std::vector<Array> out = exe->run({Array::scalar(F32, 10), arr(F32, {3}, {1, 2, 3})}, &rs);
  EXPECT_EQ(values(out[0]), V{16});
  EXPECT_EQ(values(out[1]), V({11, 13, 16}));
  EXPECT_GE(rs.runMs, 0.0);
}

}  // namespace
}  // namespace scn
