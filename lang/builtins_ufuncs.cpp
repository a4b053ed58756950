// jnp's named operators: add, subtract, multiply, divide, ..., less, logical_and, negative, and
// fmax/fmin/float_power. Each is its operator's computation (Evaluator::arrayOperator), so that
// `add` can be passed where a function is taken (`associative_scan(add, x)`, reduce_window)
// and `jnp.add(a, b)` ports by renaming.
#include "lang/builtin_args.hpp"

namespace scn {

namespace {

const char* nameOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "subtract";
    case BinaryOp::Mul: return "multiply";
    case BinaryOp::Div: return "divide";
    case BinaryOp::FloorDiv: return "floor_divide";
    case BinaryOp::Mod: return "remainder";
    case BinaryOp::Pow: return "power";
    case BinaryOp::Eq: return "equal";
    case BinaryOp::Ne: return "not_equal";
    case BinaryOp::Lt: return "less";
    case BinaryOp::Le: return "less_equal";
    case BinaryOp::Gt: return "greater";
    case BinaryOp::Ge: return "greater_equal";
    case BinaryOp::And: return "logical_and";
    case BinaryOp::Or: return "logical_or";
    default: return "operator";
  }
}

template <BinaryOp op>
Value binaryOperator(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, nameOf(op), {"x", "y"});
  return ev.arrayOperator(op, a.array(0), a.array(1), c.span);
}

AVal truth(ArrayOps& ops, const AVal& x, Span span) {
  if (x.type.dtype == DType::Bool) return x;
  return ops.binary(Op::Ne, x, ops.convert(weakInt(0), x.type.dtype, span), span, "!=");
}

// logical_xor(x, y): whether exactly one of x and y is true (nonzero).
Value logicalXor(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "logical_xor", {"x", "y"});
  ArrayOps& ops = ev.ops();
  return arr(ops.binary(Op::Ne, truth(ops, a.array(0), c.span), truth(ops, a.array(1), c.span), c.span, "logical_xor"));
}

// logical_not(x): `!x`.
Value logicalNot(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "logical_not", {"x"});
  return arr(ev.ops().unary(Op::Not, truth(ev.ops(), a.array(0), c.span), c.span));
}

// negative(x): `-x`; positive(x): x itself.
Value negative(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "negative", {"x"});
  return arr(ev.ops().unary(Op::Neg, a.array(0), c.span));
}

Value positive(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "positive", {"x"});
  return arr(a.array(0));
}

// fmax(x, y) and fmin(x, y): maximum and minimum that ignore a NaN (the other operand wins;
// NaN only when both are), as jnp's: where(x > y | isnan(y), x, y).
template <Op cmp>
Value nanIgnoringExtreme(Evaluator& ev, CallArgs& c) {
  const char* fn = cmp == Op::Gt ? "fmax" : "fmin";
  Args a(ev, c, fn, {"x", "y"});
  ArrayOps& ops = ev.ops();
  AVal x = a.array(0), y = a.array(1);
  Shape s = ops.broadcastShapes({x, y}, c.span, fn);
  DType t = promoteTypes(x, y);
  x = ops.broadcastTo(ops.convert(x, t, c.span), s, c.span, fn);
  y = ops.broadcastTo(ops.convert(y, t, c.span), s, c.span, fn);
  AVal pickX = ops.binary(cmp, x, y, c.span, fn);
  if (isFloat(t)) pickX = ops.logical(Op::Or, pickX, ops.unary(Op::IsNan, y, c.span), c.span);
  return arr(ops.select(pickX, x, y, c.span, fn));
}

// absolute(x): abs(x).
Value absolute(Evaluator& ev, CallArgs& c) { return ev.call(Value::ofBuiltin(builtins().at("abs")), c); }

// float_power(x, y): x ** y computed in an inexact dtype (integers promote to a float first).
Value floatPower(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "float_power", {"x", "y"});
  ArrayOps& ops = ev.ops();
  AVal x = a.array(0), y = a.array(1);
  DType t = inexactDType(promoteTypes(x, y));
  return arr(ops.binary(Op::Pow, ops.convert(x, t, c.span), ops.convert(y, t, c.span), c.span, "float_power"));
}

}  // namespace

BuiltinDefs ufuncBuiltins() {
  return {{},
          {
              {"add(x, y)", "x + y, elementwise (jnp.add)", binaryOperator<BinaryOp::Add>},
              {"subtract(x, y)", "x - y, elementwise", binaryOperator<BinaryOp::Sub>},
              {"multiply(x, y)", "x * y, elementwise", binaryOperator<BinaryOp::Mul>},
              {"divide(x, y)", "x / y, elementwise (true division: integers give floats)", binaryOperator<BinaryOp::Div>},
              {"true_divide(x, y)", "x / y, elementwise (divide)", binaryOperator<BinaryOp::Div>},
              {"floor_divide(x, y)", "x // y, elementwise", binaryOperator<BinaryOp::FloorDiv>},
              {"remainder(x, y)", "x % y, elementwise (the sign of y)", binaryOperator<BinaryOp::Mod>},
              {"mod(x, y)", "x % y, elementwise (remainder)", binaryOperator<BinaryOp::Mod>},
              {"power(x, y)", "x ** y, elementwise", binaryOperator<BinaryOp::Pow>},
              {"float_power(x, y)", "x ** y in a float dtype (integers promote first)", floatPower},
              {"equal(x, y)", "x == y, elementwise (bool)", binaryOperator<BinaryOp::Eq>},
              {"not_equal(x, y)", "x != y, elementwise (bool)", binaryOperator<BinaryOp::Ne>},
              {"less(x, y)", "x < y, elementwise (bool)", binaryOperator<BinaryOp::Lt>},
              {"less_equal(x, y)", "x <= y, elementwise (bool)", binaryOperator<BinaryOp::Le>},
              {"greater(x, y)", "x > y, elementwise (bool)", binaryOperator<BinaryOp::Gt>},
              {"greater_equal(x, y)", "x >= y, elementwise (bool)", binaryOperator<BinaryOp::Ge>},
              {"logical_and(x, y)", "x && y, elementwise on truth values (bool)", binaryOperator<BinaryOp::And>},
              {"logical_or(x, y)", "x || y, elementwise on truth values (bool)", binaryOperator<BinaryOp::Or>},
              {"logical_xor(x, y)", "whether exactly one of x and y is true, elementwise (bool)", logicalXor},
              {"logical_not(x)", "!x, elementwise on truth values (bool)", logicalNot},
              {"negative(x)", "-x, elementwise", negative},
              {"positive(x)", "x", positive},
              {"absolute(x)", "abs(x), elementwise", absolute},
              {"fmax(x, y)", "the larger of x and y, elementwise, ignoring a NaN", nanIgnoringExtreme<Op::Gt>},
              {"fmin(x, y)", "the smaller of x and y, elementwise, ignoring a NaN", nanIgnoringExtreme<Op::Lt>},
          }};
}

}  // namespace scn
