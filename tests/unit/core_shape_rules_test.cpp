// Shape rules: results and whole error messages; the verifier catches malformed IR.
#include <gtest/gtest.h>

#include "core_test_util.hpp"

namespace scn {
namespace {

using test::axesAttr;
using test::Builder;
using test::ty;

const DType F32 = DType::F32, I32 = DType::I32, Bool = DType::Bool;

std::string err(Op op, std::vector<Type> in, Attrs a = {}, std::vector<FuncPtr> subs = {}) {
  InferResult r = inferTypes(op, in, a, subs);
  return r.ok() ? "ok: " + typeString(r.types.at(0)) : r.error;
}

std::string out(Op op, std::vector<Type> in, Attrs a = {}, std::vector<FuncPtr> subs = {}) {
  InferResult r = inferTypes(op, in, a, subs);
  if (!r.ok()) return "error: " + r.error;
  std::string s;
  for (const Type& t : r.types) s += (s.empty() ? "" : " ") + typeString(t);
  return s;
}

TEST(CoreShapeRules, Elementwise) {
  EXPECT_EQ(out(Op::Add, {ty(F32, {3}), ty(F32, {3})}), "f32[3]");
  EXPECT_EQ(out(Op::Lt, {ty(I32, {2, 2}), ty(I32, {2, 2})}), "bool[2,2]");
  EXPECT_EQ(out(Op::IsNan, {ty(F32, {4})}), "bool[4]");
  EXPECT_EQ(err(Op::Add, {ty(F32, {3}), ty(F32, {4})}), "add needs operands of one type but got f32[3], f32[4]");
  EXPECT_EQ(err(Op::Mul, {ty(F32, {3}), ty(DType::F64, {3})}), "mul needs operands of one type but got f32[3], f64[3]");
  EXPECT_EQ(err(Op::Add, {ty(F32, {3})}), "add expects 2 operands but got 1");
  EXPECT_EQ(err(Op::Sqrt, {ty(I32, {3})}), "sqrt expects a floating-point or complex operand but got i32[3]");
  EXPECT_EQ(err(Op::Neg, {ty(Bool)}), "neg expects a numeric operand (not bool) but got bool[]");
  EXPECT_EQ(err(Op::Shl, {ty(F32), ty(F32)}), "shl expects an integer operand but got f32[]");
  EXPECT_EQ(err(Op::Shr, {ty(I32), ty(DType::U32)}), "shr needs operands of one type but got i32[], u32[]");
  EXPECT_EQ(err(Op::Not, {ty(F32)}), "not expects an integer or bool operand but got f32[]");
  EXPECT_EQ(out(Op::Select, {ty(Bool, {2}), ty(F32, {2}), ty(F32, {2})}), "f32[2]");
  EXPECT_EQ(err(Op::Select, {ty(I32, {2}), ty(F32, {2}), ty(F32, {2})}),
            "select needs a bool predicate but got i32[2]");
  EXPECT_EQ(err(Op::Select, {ty(Bool, {2}), ty(F32, {2}), ty(F32, {3})}),
            "select needs a predicate of the branches' shape and branches of one type but got bool[2], f32[2], f32[3]");
  Attrs toI64;
  toI64.dtype = DType::I64;
  EXPECT_EQ(out(Op::Convert, {ty(F32, {2})}, toI64), "i64[2]");
}

TEST(CoreShapeRules, Reductions) {
  EXPECT_EQ(out(Op::ReduceSum, {ty(F32, {2, 3, 4})}, axesAttr({0, 2})), "f32[3]");
  EXPECT_EQ(out(Op::ReduceMax, {ty(F32, {2, 3})}, axesAttr({})), "f32[2,3]");
  EXPECT_EQ(err(Op::ReduceSum, {ty(F32, {2, 3})}, axesAttr({2})), "reduce_sum axis 2 is out of range for f32[2,3]");
  EXPECT_EQ(err(Op::ReduceSum, {ty(F32, {2, 3})}, axesAttr({1, 0})), "reduce_sum axes (1, 0) are not sorted");
  EXPECT_EQ(err(Op::ReduceProd, {ty(F32, {2, 3})}, axesAttr({1, 1})), "reduce_prod axes (1, 1) repeat axis 1");
  EXPECT_EQ(err(Op::ReduceSum, {ty(Bool, {2})}, axesAttr({0})),
            "reduce_sum expects a numeric operand (not bool) but got bool[2]");
  EXPECT_EQ(out(Op::ArgMax, {ty(F32, {2, 3})}, axesAttr({1})), "i32[2]");
  EXPECT_EQ(err(Op::ArgMax, {ty(F32, {2, 3})}, axesAttr({0, 1})), "argmax needs exactly one axis but got axes=(0, 1)");
  EXPECT_EQ(err(Op::ArgMin, {ty(F32, {0, 3})}, axesAttr({0})), "argmin of f32[0,3] over the empty axis 0");
  EXPECT_EQ(out(Op::CumSum, {ty(I32, {5})}, axesAttr({0})), "i32[5]");
}

TEST(CoreShapeRules, Structural) {
  Attrs bc;
  bc.shape = {2, 3};
  bc.axes = {1};
  EXPECT_EQ(out(Op::BroadcastInDim, {ty(F32, {3})}, bc), "f32[2,3]");
  EXPECT_EQ(out(Op::BroadcastInDim, {ty(F32, {1})}, bc), "f32[2,3]");
  EXPECT_EQ(err(Op::BroadcastInDim, {ty(F32, {4})}, bc),
            "broadcast_in_dim cannot broadcast f32[4] to shape (2, 3): operand dimension 0 has size 4 but output "
            "dimension 1 has size 3");
  bc.axes = {0, 0};
  EXPECT_EQ(err(Op::BroadcastInDim, {ty(F32, {2, 2})}, bc), "broadcast_in_dim axes (0, 0) are not strictly increasing");

  Attrs rs;
  rs.shape = {4, 2};
  EXPECT_EQ(err(Op::Reshape, {ty(F32, {2, 3})}, rs),
            "reshape cannot change f32[2,3] (6 elements) to shape (4, 2) (8 elements)");
  EXPECT_EQ(out(Op::Transpose, {ty(F32, {2, 3, 4})}, axesAttr({2, 0, 1})), "f32[4,2,3]");
  EXPECT_EQ(err(Op::Transpose, {ty(F32, {2, 3})}, axesAttr({0, 0})),
            "transpose permutation (0, 0) is not a permutation of the axes of f32[2,3]");

  EXPECT_EQ(out(Op::Concat, {ty(F32, {2, 3}), ty(F32, {2, 1})}, axesAttr({1})), "f32[2,4]");
  EXPECT_EQ(err(Op::Concat, {ty(F32, {2, 3}), ty(F32, {3, 1})}, axesAttr({1})),
            "concat along axis 1 needs operands of one dtype with equal dimensions except that axis but got f32[2,3], "
            "f32[3,1]");

  Attrs sl;
  sl.starts = {1};
  sl.limits = {8};
  sl.strides = {3};
  EXPECT_EQ(out(Op::Slice, {ty(F32, {10})}, sl), "f32[3]");  // 1, 4, 7
  sl.limits = {11};
  EXPECT_EQ(err(Op::Slice, {ty(F32, {10})}, sl), "slice of f32[10] has bounds 1:11 out of range in dimension 0");
  sl.limits = {8};
  sl.strides = {0};
  EXPECT_EQ(err(Op::Slice, {ty(F32, {10})}, sl),
            "slice of f32[10] has stride 0 in dimension 0; strides must be at least 1");

  Attrs ds;
  ds.shape = {2};
  EXPECT_EQ(out(Op::DynamicSlice, {ty(F32, {5}), ty(I32)}, ds), "f32[2]");
  EXPECT_EQ(err(Op::DynamicSlice, {ty(F32, {5}), ty(F32)}, ds),
            "dynamic_slice start index 0 must be an integer scalar but has type f32[]");
  EXPECT_EQ(err(Op::DynamicSlice, {ty(F32, {5})}, ds), "dynamic_slice of f32[5] needs 1 start index but got 0");
  ds.shape = {6};
  EXPECT_EQ(err(Op::DynamicSlice, {ty(F32, {5}), ty(I32)}, ds), "dynamic_slice sizes (6) do not fit in f32[5]");
  EXPECT_EQ(out(Op::DynamicUpdateSlice, {ty(F32, {5}), ty(F32, {2}), ty(I32)}), "f32[5]");
  EXPECT_EQ(err(Op::DynamicUpdateSlice, {ty(F32, {5}), ty(I32, {2}), ty(I32)}),
            "dynamic_update_slice cannot write an update of type i32[2] into f32[5]");
}

TEST(CoreShapeRules, GatherAndScatter) {
  // gather: k index arrays of one shape B index the first k axes; out = B ++ the rest.
  EXPECT_EQ(out(Op::Gather, {ty(F32, {5, 3}), ty(I32, {2, 4})}), "f32[2,4,3]");
  EXPECT_EQ(out(Op::Gather, {ty(F32, {5, 3}), ty(DType::I64, {7}), ty(DType::U32, {7})}), "f32[7]");
  EXPECT_EQ(out(Op::Gather, {ty(Bool, {5}), ty(I32)}), "bool[]");
  EXPECT_EQ(err(Op::Gather, {ty(F32, {5})}), "gather needs an operand and index arrays");
  EXPECT_EQ(err(Op::Gather, {ty(F32, {5}), ty(I32, {2}), ty(I32, {2})}),
            "gather of f32[5] needs 1 to 1 index arrays but got 2");
  EXPECT_EQ(err(Op::Gather, {ty(F32, {5}), ty(F32, {2})}),
            "gather index 0 must be an integer array but has type f32[2]");
  EXPECT_EQ(err(Op::Gather, {ty(F32, {5, 2}), ty(I32, {2}), ty(I32, {3})}),
            "gather needs index arrays of one shape but got i32[2], i32[3]");
  EXPECT_EQ(err(Op::Gather, {ty(F32, {0, 2}), ty(I32, {2})}), "gather of f32[0,2] indexes the empty axis 0");
  // scatter: updates of shape B ++ the rest, out = the operand's type; numeric class for add.
  EXPECT_EQ(out(Op::Scatter, {ty(F32, {5, 3}), ty(F32, {2, 3}), ty(I32, {2})}), "f32[5,3]");
  EXPECT_EQ(out(Op::ScatterAdd, {ty(I32, {4}), ty(I32), ty(I32)}), "i32[4]");
  EXPECT_EQ(out(Op::ScatterMax, {ty(Bool, {4}), ty(Bool, {3}), ty(I32, {3})}), "bool[4]");
  EXPECT_EQ(err(Op::ScatterAdd, {ty(Bool, {4}), ty(Bool, {3}), ty(I32, {3})}),
            "scatter_add expects a numeric operand (not bool) but got bool[4]");
  EXPECT_EQ(err(Op::Scatter, {ty(F32, {5, 3}), ty(F32, {2}), ty(I32, {2})}),
            "scatter into f32[5,3] at indices of shape (2) needs updates of type f32[2,3] but got f32[2]");
  EXPECT_EQ(err(Op::ScatterMul, {ty(F32, {5}), ty(F32, {2}), ty(DType::F64, {2})}),
            "scatter_mul index 0 must be an integer array but has type f64[2]");
  EXPECT_EQ(err(Op::ScatterMin, {ty(F32, {5}), ty(F32, {2})}), "scatter_min needs an operand, updates and index arrays");
}

TEST(CoreShapeRules, DotGeneral) {
  Attrs mm;
  mm.lhsContract = {1};
  mm.rhsContract = {0};
  EXPECT_EQ(out(Op::DotGeneral, {ty(F32, {2, 3}), ty(F32, {3, 4})}, mm), "f32[2,4]");
  EXPECT_EQ(err(Op::DotGeneral, {ty(F32, {2, 3}), ty(F32, {4, 4})}, mm),
            "dot_general of f32[2,3] and f32[4,4] contracts lhs dimension 1 (size 3) with rhs dimension 0 (size 4)");
  Attrs bmm;
  bmm.lhsContract = {2};
  bmm.rhsContract = {1};
  bmm.lhsBatch = {0};
  bmm.rhsBatch = {0};
  EXPECT_EQ(out(Op::DotGeneral, {ty(F32, {5, 2, 3}), ty(F32, {5, 3, 4})}, bmm), "f32[5,2,4]");
  EXPECT_EQ(err(Op::DotGeneral, {ty(F32, {5, 2, 3}), ty(F32, {6, 3, 4})}, bmm),
            "dot_general of f32[5,2,3] and f32[6,3,4] has batch dimensions of different sizes: lhs dimension 0 (size "
            "5) and rhs dimension 0 (size 6)");
  // Batch dims need not lead: out = batch, lhs free, rhs free.
  Attrs odd;
  odd.lhsContract = {0};
  odd.rhsContract = {2};
  odd.lhsBatch = {2};
  odd.rhsBatch = {0};
  EXPECT_EQ(out(Op::DotGeneral, {ty(F32, {3, 7, 5}), ty(F32, {5, 9, 3})}, odd), "f32[5,7,9]");
  EXPECT_EQ(err(Op::DotGeneral, {ty(F32, {3}), ty(I32, {3})}, mm),
            "dot_general needs operands of one dtype but got f32[3] and i32[3]");
}

FuncPtr scanBody(Type carryIn, Type carryOut, Type x) {
  Builder b("step");
  int c = b.param(carryIn);
  int xi = b.param(x);
  int c2 = c;
  if (carryOut != carryIn) {
    Attrs bc;
    bc.shape = carryOut.shape;
    c2 = b.emit1(Op::BroadcastInDim, {c}, bc);
  }
  return b.ret({c2, xi});
}

TEST(CoreShapeRules, Scan) {
  Attrs a;
  a.length = 4;
  a.numCarry = 1;
  FuncPtr good = scanBody(ty(F32), ty(F32), ty(I32, {2}));
  EXPECT_EQ(out(Op::Scan, {ty(F32), ty(I32, {4, 2})}, a, {good}), "f32[] i32[4,2]");
  FuncPtr changes = scanBody(ty(F32), ty(F32, {3}), ty(I32, {2}));
  EXPECT_EQ(err(Op::Scan, {ty(F32), ty(I32, {4, 2})}, a, {changes}),
            "scan body's carry output component 0 has type f32[3] but the input carry has type f32[]");
  EXPECT_EQ(err(Op::Scan, {ty(F32), ty(I32, {5, 2})}, a, {good}),
            "scan of length 4 got xs component 0 of type i32[5,2]; its leading dimension must be the length");
  EXPECT_EQ(err(Op::Scan, {ty(DType::F64), ty(I32, {4, 2})}, a, {good}),
            "scan body's parameter 0 has type f32[] but the carry component 0 has type f64[]");
  EXPECT_EQ(err(Op::Scan, {ty(F32)}, a, {good}), "scan body takes 2 parameters but is given 1 (f32[])");
  EXPECT_EQ(err(Op::Scan, {ty(F32), ty(I32, {4, 2})}, a, {}), "scan needs exactly one body function");
}

TEST(CoreShapeRules, WhileAndCond) {
  Builder cond("cond");
  int c = cond.param(ty(I32));
  cond.ret({cond.emit1(Op::Lt, {c, c})});
  Builder body("body");
  int x = body.param(ty(I32));
  body.ret({body.emit1(Op::Add, {x, x})});
  Attrs none;
  EXPECT_EQ(out(Op::While, {ty(I32)}, none, {cond.f, body.f}), "i32[]");
  EXPECT_EQ(err(Op::While, {ty(I32)}, none, {body.f, body.f}), "while cond must return one bool[] but returns (i32[])");
  EXPECT_EQ(err(Op::While, {ty(F32)}, none, {cond.f, body.f}),
            "while cond's parameter 0 has type i32[] but the carry component 0 has type f32[]");

  Builder b0("b0"), b1("b1");
  int p0 = b0.param(ty(F32, {2}));
  b0.ret({p0});
  int p1 = b1.param(ty(F32, {2}));
  b1.ret({b1.emit1(Op::IsNan, {p1})});
  EXPECT_EQ(out(Op::Cond, {ty(I32), ty(F32, {2})}, none, {b0.f, b0.f}), "f32[2]");
  EXPECT_EQ(out(Op::Cond, {ty(Bool), ty(F32, {2})}, none, {b0.f, b0.f}), "f32[2]");
  EXPECT_EQ(err(Op::Cond, {ty(I32), ty(F32, {2})}, none, {b0.f, b1.f}),
            "cond branch 1 returns (bool[2]) but branch 0 returns (f32[2])");
  EXPECT_EQ(err(Op::Cond, {ty(F32), ty(F32, {2})}, none, {b0.f, b0.f}),
            "cond index must be i32[] (or bool[] with two branches) but has type f32[] with 2 branches");
}

TEST(CoreVerify, AcceptsWellFormedFunctions) {
  Builder b;
  int x = b.param(ty(F32, {3}));
  int y = b.emit1(Op::Exp, {x});
  b.ret({b.emit1(Op::Add, {x, y})});
  EXPECT_EQ(verify(*b.f), "");
}

TEST(CoreVerify, CatchesUseBeforeDefinition) {
  Builder b;
  int x = b.param(ty(F32, {3}));
  int y = b.emit1(Op::Exp, {x});
  int z = b.emit1(Op::Add, {x, y});
  std::swap(b.f->eqns[0], b.f->eqns[1]);
  b.ret({z});
  EXPECT_EQ(verify(*b.f), "func f: eqn 0 (add): uses %1 before it is defined");
}

TEST(CoreVerify, CatchesATypeLie) {
  Builder b;
  int x = b.param(ty(F32, {3}));
  int y = b.emit1(Op::Exp, {x});
  b.ret({y});
  b.f->types[y] = ty(F32, {4});
  EXPECT_EQ(verify(*b.f), "func f: eqn 0 (exp): output %1 is recorded as f32[4] but the shape rule gives f32[3]");
}

TEST(CoreVerify, CatchesRedefinitionUndefinedResultsAndBadSubFunctions) {
  Builder b;
  int x = b.param(ty(F32));
  int y = b.emit1(Op::Neg, {x});
  b.f->eqns.push_back(b.f->eqns[0]);
  b.ret({y});
  EXPECT_EQ(verify(*b.f), "func f: eqn 1 (neg): redefines %1");

  Builder c;
  c.param(ty(F32));
  int dangling = c.f->newVar(ty(F32));
  c.ret({dangling});
  EXPECT_EQ(verify(*c.f), "func f: result 0 (%1) is never defined");

  // A malformed scan body is reported through the eqn that owns it.
  Builder body("step");
  int p = body.param(ty(F32));
  int q = body.emit1(Op::Neg, {p});
  body.f->types[q] = ty(I32);
  body.ret({q});
  Builder outer("outer");
  int init = outer.param(ty(F32));
  Eqn e{Op::Scan, {init}, {outer.f->newVar(ty(F32))}, {}, {body.f}, Span{}};
  e.attrs.numCarry = 1;
  e.attrs.length = 2;
  outer.f->eqns.push_back(e);
  outer.ret({e.outputs[0]});
  EXPECT_EQ(verify(*outer.f),
            "func outer: eqn 0 (scan): sub-function 0: func step: eqn 0 (neg): output %1 is recorded as i32[] but "
            "the shape rule gives f32[]");
}

}  // namespace
}  // namespace scn
