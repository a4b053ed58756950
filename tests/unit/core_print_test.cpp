// Printing: formatArray's value syntax and printFunc's stable IR text, compared as whole strings.
#include <gtest/gtest.h>

#include <cmath>

#include "core_test_util.hpp"

namespace scn {
namespace {

using test::arr;
using test::axesAttr;
using test::Builder;
using test::ty;

const DType F32 = DType::F32, F64 = DType::F64, I32 = DType::I32, Bool = DType::Bool;

TEST(CoreFormat, Scalars) {
  EXPECT_EQ(formatArray(Array::scalarInt(I32, 3)), "3");
  EXPECT_EQ(formatArray(Array::scalarInt(DType::I64, -9000000000)), "-9000000000");
  EXPECT_EQ(formatArray(Array::scalarInt(DType::U64, -1)), "18446744073709551615");
  EXPECT_EQ(formatArray(Array::scalar(F32, -1.5)), "-1.5");
  EXPECT_EQ(formatArray(Array::scalar(F32, 1.0)), "1.0");
  EXPECT_EQ(formatArray(Array::scalar(F32, 0.1)), "0.1");  // f32 prints as float
  EXPECT_EQ(formatArray(Array::scalar(F64, 0.1)), "0.1");
  EXPECT_EQ(formatArray(Array::scalar(F64, 0.1f)), "0.10000000149011612");
  EXPECT_EQ(formatArray(Array::scalar(F64, 1.0 / 3)), "0.3333333333333333");
  EXPECT_EQ(formatArray(Array::scalar(F32, 1.0 / 3)), "0.33333334");
  EXPECT_EQ(formatArray(Array::scalar(F64, 1e16)), "1e+16");
  EXPECT_EQ(formatArray(Array::scalar(F64, 1e15)), "1000000000000000.0");
  EXPECT_EQ(formatArray(Array::scalar(F32, 1e6)), "1000000.0");
  EXPECT_EQ(formatArray(Array::scalar(F64, 0.0001)), "0.0001");
  EXPECT_EQ(formatArray(Array::scalar(F64, 0.00001)), "1e-05");
  EXPECT_EQ(formatArray(Array::scalar(F64, 1.5e-300)), "1.5e-300");
  EXPECT_EQ(formatArray(Array::scalar(F64, 123.456)), "123.456");
  EXPECT_EQ(formatArray(Array::scalar(F32, 0.0)), "0.0");
  EXPECT_EQ(formatArray(Array::scalar(F32, -0.0)), "-0.0");
  EXPECT_EQ(formatArray(Array::scalar(F32, NAN)), "nan");
  EXPECT_EQ(formatArray(Array::scalar(F64, -NAN)), "nan");
  EXPECT_EQ(formatArray(Array::scalar(F32, INFINITY)), "inf");
  EXPECT_EQ(formatArray(Array::scalar(F64, -INFINITY)), "-inf");
  EXPECT_EQ(formatArray(Array::scalarInt(Bool, 1)), "true");
  EXPECT_EQ(formatArray(Array::scalarInt(Bool, 0)), "false");
}

TEST(CoreFormat, Arrays) {
  EXPECT_EQ(formatArray(arr(F32, {2}, {1, 2.5})), "[1.0, 2.5]");
  EXPECT_EQ(formatArray(arr(I32, {2, 2}, {1, 2, 3, 4})), "[[1, 2], [3, 4]]");
  EXPECT_EQ(formatArray(arr(Bool, {3}, {1, 0, 1})), "[true, false, true]");
  EXPECT_EQ(formatArray(arr(F32, {0}, {})), "[]");
  EXPECT_EQ(formatArray(arr(F32, {2, 0}, {})), "[[], []]");
  EXPECT_EQ(formatArray(arr(I32, {1, 1, 1}, {7})), "[[[7]]]");
}

TEST(CoreFormat, LargeArraysAreSummarised) {
  Array v(I32, {1001});
  for (int64_t i = 0; i < v.size(); ++i) v.setInt(i, i);
  EXPECT_EQ(formatArray(v), "[0, 1, 2, ..., 998, 999, 1000]");
  Array exactly(I32, {1000});
  for (int64_t i = 0; i < exactly.size(); ++i) exactly.setInt(i, 0);
  EXPECT_EQ(formatArray(exactly).find("..."), std::string::npos);
  Array m(I32, {100, 20});
  for (int64_t i = 0; i < m.size(); ++i) m.setInt(i, i);
  EXPECT_EQ(formatArray(m),
            "[[0, 1, 2, ..., 17, 18, 19], [20, 21, 22, ..., 37, 38, 39], [40, 41, 42, ..., 57, 58, 59], ..., [1940, 1941, 1942, ..., 1957, 1958, 1959], [1960, 1961, 1962, ..., 1977, 1978, 1979], [1980, 1981, 1982, ..., 1997, 1998, 1999]]");
}

TEST(CoreFormat, ShapeStringsAndElementCounts) {
  EXPECT_EQ(shapeString({}), "()");
  EXPECT_EQ(shapeString({3}), "(3,)");
  EXPECT_EQ(shapeString({3, 4}), "(3, 4)");
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({3, 0}), 0);
  try {
    numElements({1LL << 40, 1LL << 40});
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code, "E0402");
    EXPECT_EQ(e.diag.message, "shape (1099511627776, 1099511627776) has too many elements");
  }
  try {
    Array huge(F64, {1LL << 61});
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code, "E0401");
    EXPECT_EQ(e.diag.message, "cannot allocate an array of type f64[2305843009213693952]");
  }
}

TEST(CoreArray, BuffersAreAlignedAndClonesIndependent) {
  Array a = arr(F32, {3}, {1, 2, 3});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.raw()) % 64, 0u);
  Array shared = a;
  Array copy = a.clone();
  a.setDouble(0, 9);
  EXPECT_EQ(shared.getDouble(0), 9);
  EXPECT_EQ(copy.getDouble(0), 1);
  EXPECT_EQ(Array::scalar(I32, 1e20).getInt(0), 2147483647);  // saturating, not UB
  EXPECT_EQ(Array::scalar(DType::U32, -5).getUInt(0), 0u);
}

TEST(CorePrint, SmallFunction) {
  Builder b("f");
  int x = b.param(ty(F32, {3}));
  int s = b.param(ty(F32));
  Attrs bc;
  bc.shape = {3};
  int sb = b.emit1(Op::BroadcastInDim, {s}, bc);
  int m = b.emit1(Op::Mul, {x, sb});
  int r = b.emit1(Op::ReduceSum, {m}, axesAttr({0}));
  Attrs cv;
  cv.dtype = F64;
  int d = b.emit1(Op::Convert, {r}, cv);
  FuncPtr f = b.ret({m, d});
  EXPECT_EQ(printFunc(*f),
            "func f(%0: f32[3], %1: f32[]) -> (f32[3], f64[]) {\n"
            "  %2 = broadcast_in_dim[shape=(3), axes=()] %1 : f32[3]\n"
            "  %3 = mul %0, %2 : f32[3]\n"
            "  %4 = reduce_sum[axes=(0)] %3 : f32[]\n"
            "  %5 = convert[dtype=f64] %4 : f64[]\n"
            "  return %3, %5\n"
            "}\n");
}

TEST(CorePrint, ConstantsAndNestedBodies) {
  Builder body("");
  int c = body.param(ty(F32)), x = body.param(ty(F32));
  int y = body.emit1(Op::Add, {c, x});
  body.ret({y, y});
  Builder b("g");
  int xs = b.param(ty(F32, {2}));
  Attrs k;
  k.value = std::make_shared<Array>(Array::scalar(F32, 0.5));
  int c0 = b.emit1(Op::Constant, {}, k);
  Attrs sc;
  sc.length = 2;
  sc.numCarry = 1;
  std::vector<int> outs = b.emit(Op::Scan, {c0, xs}, sc, {body.f});
  FuncPtr f = b.ret(outs);
  EXPECT_EQ(printFunc(*f),
            "func g(%0: f32[2]) -> (f32[], f32[2]) {\n"
            "  %1 = constant[value=0.5] : f32[]\n"
            "  %2, %3 = scan[length=2, reverse=false, unroll=1, num_consts=0, num_carry=1] %1, %0 : f32[], f32[2]\n"
            "    func body(%0: f32[], %1: f32[]) -> (f32[], f32[]) {\n"
            "      %2 = add %0, %1 : f32[]\n"
            "      return %2, %2\n"
            "    }\n"
            "  return %2, %3\n"
            "}\n");
  EXPECT_EQ(printFunc(*f), printFunc(*f));  // deterministic
}

}  // namespace
}  // namespace scn
