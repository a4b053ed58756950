// Walks the op table: every op has a shape rule, an interpreter case, verifies and prints.
#include <gtest/gtest.h>

#include "core_test_util.hpp"
#include "jit/backend.hpp"
#include "jit/collectives.hpp"

namespace scn {
namespace {

using test::arr;
using test::Builder;
using test::ty;

DType exampleDType(TypeClass tc) {
  switch (tc) {
    case TypeClass::Any: case TypeClass::Real: case TypeClass::Num: case TypeClass::NumC:
    case TypeClass::Float: case TypeClass::FloatC: return DType::F32;
    case TypeClass::Complex: return DType::C64;
    case TypeClass::Int: case TypeClass::IntBool: return DType::I32;
  }
  return DType::F32;
}

// Arrays with distinct, positive, small values (valid for every op: log, sqrt, shifts, ...).
Array sample(DType d, Shape s, double start = 1) {
  Array a(d, std::move(s));
  for (int64_t i = 0; i < a.size(); ++i) a.setDouble(i, d == DType::Bool ? (i % 2) : start + i);
  return a;
}

FuncPtr unaryBody(const std::string& name, Type t) {
  Builder b(name);
  int x = b.param(t);
  return b.ret({b.emit1(Op::Neg, {x})});
}

struct Example {
  Eqn eqn;
  std::vector<Array> inputs;
};

// A valid use of `op`, built from its category so that a new op in an existing category is
// covered automatically, and a new category fails to compile here (-Werror=switch).
Example exampleFor(Op op) {
  const OpInfo& info = opInfo(op);
  DType d = exampleDType(info.typeClass);
  Example ex;
  ex.eqn.op = op;
  Attrs& a = ex.eqn.attrs;
  std::vector<Array>& in = ex.inputs;
  switch (info.category) {
    case OpCategory::Unary: case OpCategory::Predicate:
      in = {sample(d, {2, 3})};
      break;
    case OpCategory::Binary: case OpCategory::Compare:
      in = {sample(d, {2, 3}), sample(d, {2, 3}, 0)};
      break;
    case OpCategory::ComplexPart:
      in = {sample(d, {2, 3})};
      if (op == Op::Complex) in.push_back(sample(d, {2, 3}, 0));
      break;
    case OpCategory::Select:
      in = {sample(DType::Bool, {2, 3}), sample(d, {2, 3}), sample(d, {2, 3}, 10)};
      break;
    case OpCategory::Convert:
      in = {sample(d, {2, 3})};
      a.dtype = DType::I64;
      break;
    case OpCategory::Constant:
      a.value = std::make_shared<Array>(sample(d, {2}));
      break;
    case OpCategory::Iota:
      a.dtype = DType::I32;
      a.shape = {2, 3};
      a.axes = {1};
      break;
    case OpCategory::Reduce: case OpCategory::ArgReduce: case OpCategory::Cumulative: case OpCategory::AssocScan:
      in = {sample(d, {2, 3})};
      a.axes = {1};
      ex.eqn.subs = test::opSubs(op, d);
      break;
    case OpCategory::BroadcastInDim:
      in = {sample(d, {3})};
      a.shape = {2, 3};
      a.axes = {1};
      break;
    case OpCategory::Reshape:
      in = {sample(d, {2, 3})};
      a.shape = {3, 2};
      break;
    case OpCategory::Transpose:
      in = {sample(d, {2, 3})};
      a.axes = {1, 0};
      break;
    case OpCategory::Concat:
      in = {sample(d, {2, 3}), sample(d, {1, 3})};
      a.axes = {0};
      break;
    case OpCategory::Slice:
      in = {sample(d, {2, 3})};
      a.starts = {0, 1};
      a.limits = {2, 3};
      a.strides = {1, 2};
      break;
    case OpCategory::Reverse:
      in = {sample(d, {2, 3})};
      a.axes = {0};
      break;
    case OpCategory::DynamicSlice:
      in = {sample(d, {2, 3}), Array::scalarInt(DType::I32, 1), Array::scalarInt(DType::I64, 1)};
      a.shape = {1, 2};
      break;
    case OpCategory::DynamicUpdateSlice:
      in = {sample(d, {2, 3}), sample(d, {1, 2}), Array::scalarInt(DType::I32, 1), Array::scalarInt(DType::I32, 1)};
      break;
    case OpCategory::Gather: case OpCategory::Scatter: {
      // Indices with a negative one, one out of range and a duplicate.
      Array idx(DType::I32, {2, 2});
      for (int64_t i = 0; i < 4; ++i) idx.setInt(i, std::vector<int64_t>{1, -1, 9, 1}[i]);
      if (info.category == OpCategory::Gather) in = {sample(d, {4, 3}), idx};
      else in = {sample(d, {4, 3}), sample(d, {2, 2, 3}, 20), idx};
      break;
    }
    case OpCategory::DotGeneral:
      in = {sample(d, {2, 3}), sample(d, {3, 4})};
      a.lhsContract = {1};
      a.rhsContract = {0};
      break;
    case OpCategory::Scan: {
      // carry f32[], xs f32[3]: body(c, x) -> (c + x, c)
      Builder b("step");
      int c = b.param(ty(DType::F32)), x = b.param(ty(DType::F32));
      ex.eqn.subs = {b.ret({b.emit1(Op::Add, {c, x}), c})};
      in = {sample(DType::F32, {}), sample(DType::F32, {3})};
      a.length = 3;
      a.numCarry = 1;
      break;
    }
    case OpCategory::While: {
      Builder cond("cond");
      int lim = cond.param(ty(DType::I32)), ci = cond.param(ty(DType::I32));
      cond.ret({cond.emit1(Op::Lt, {ci, lim})});
      Builder body("body");
      int one = body.param(ty(DType::I32)), bi = body.param(ty(DType::I32));
      body.ret({body.emit1(Op::Add, {bi, one})});
      ex.eqn.subs = {cond.f, body.f};
      in = {Array::scalarInt(DType::I32, 5), Array::scalarInt(DType::I32, 1), Array::scalarInt(DType::I32, 0)};
      a.numConsts = 1;
      a.numBodyConsts = 1;
      break;
    }
    case OpCategory::Cond:
      ex.eqn.subs = {unaryBody("no", ty(DType::F32, {2})), unaryBody("yes", ty(DType::F32, {2}))};
      in = {Array::scalarInt(DType::I32, 1), sample(DType::F32, {2})};
      break;
    case OpCategory::Sort:  // keys and a payload sorted together
      in = {sample(d, {2, 3}), sample(DType::I32, {2, 3}, 10)};
      a.axes = {1};
      break;
    case OpCategory::Linalg:
      in = test::linalgExample(op, d, 2, &a);
      break;
    case OpCategory::Collective:  // consumed by batching: tested in transform_batch_test
      a.axisName = "i";
      a.length = 2;
      if (op != Op::AxisIndex) in = {sample(d, {2, 3})};
      break;
    case OpCategory::ProcessCollective:  // over this process alone
      a.group = singleProcessGroup();
      if (op == Op::ProcessPermute) a.axes = {0, 1};
      in = {sample(d, {2, 3})};
      break;
  }
  return ex;
}

TEST(CoreOps, EveryOpHasAShapeRuleAndAnInterpreterCase) {
  for (Op op : allOps()) {
    SCOPED_TRACE(opName(op));
    Example ex = exampleFor(op);
    std::vector<Type> types;
    for (const Array& x : ex.inputs) types.push_back(Type{x.dtype, x.shape});
    InferResult r = inferTypes(op, types, ex.eqn.attrs, ex.eqn.subs);
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(static_cast<int>(r.types.size()) == opInfo(op).numOutputs || opInfo(op).numOutputs < 0, true);
    // A named collective never reaches the interpreter (Note [Named axes]).
    if (opInfo(op).category == OpCategory::Collective) continue;

    std::vector<Array> out = evalEqn(ex.eqn, ex.inputs);
    ASSERT_EQ(out.size(), r.types.size());
    for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(typeString(Type{out[i].dtype, out[i].shape}), typeString(r.types[i]));

    // The same eqn inside a function verifies, prints and interprets to the same values.
    Builder b(opName(op));
    std::vector<int> params;
    for (const Type& t : types) params.push_back(b.param(t));
    std::vector<int> outs = b.emit(op, params, ex.eqn.attrs, ex.eqn.subs);
    FuncPtr f = b.ret(outs);
    EXPECT_EQ(verify(*f), "");
    EXPECT_NE(printFunc(*f).find(opName(op)), std::string::npos);
    std::vector<Array> again = interpret(*f, ex.inputs);
    ASSERT_EQ(again.size(), out.size());
    for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(formatArray(again[i]), formatArray(out[i]));
  }
}

TEST(CoreOps, WrongOperandCountsAreRejectedForEveryFixedArityOp) {
  for (Op op : allOps()) {
    const OpInfo& info = opInfo(op);
    if (info.numInputs < 0) continue;
    std::vector<Type> tooMany(info.numInputs + 1, ty(exampleDType(info.typeClass), {2}));
    InferResult r = inferTypes(op, tooMany, Attrs{}, {});
    EXPECT_FALSE(r.ok()) << opName(op);
    EXPECT_EQ(r.error.rfind(std::string(info.name) + " expects", 0), 0u) << r.error;
  }
}

TEST(CoreOps, TypeClassesAreEnforcedOnTheFirstOperand) {
  for (Op op : allOps()) {
    const OpInfo& info = opInfo(op);
    if (info.numInputs < 1 || info.typeClass == TypeClass::Any) continue;
    DType bad = info.typeClass == TypeClass::Int || info.typeClass == TypeClass::IntBool ? DType::F32
                : info.typeClass == TypeClass::Real ? DType::C64 : DType::Bool;
    std::vector<Type> in(info.numInputs, ty(bad, {2}));
    InferResult r = inferTypes(op, in, test::axesAttr({0}), {});
    EXPECT_FALSE(r.ok()) << opName(op);
  }
}

}  // namespace
}  // namespace scn
