// Builtins of elementwise math that are not one op: round with decimals, clip with optional
// bounds, nan_to_num, and the named forms of the bitwise operators.
#include <cfloat>
#include <cmath>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

/// Argument i as an array, or nullopt when it is absent or None.
std::optional<AVal> optionalArray(const Args& a, size_t i) {
  if (!a.has(i) || a.get(i).isNone()) return std::nullopt;
  return a.array(i);
}

// round(x, decimals=0), as jnp.round: halves to even; with decimals d, round(x * 10^d) / 10^d in
// x's dtype. Integers are whole already (d >= 0 keeps them; jnp refuses d < 0 and so does scn).
Value round(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "round", {"x", "decimals="});
  AVal x = a.array(0);
  int64_t decimals = a.integer(1, 0);
  if (!isFloat(x.type.dtype) && !isComplex(x.type.dtype)) {
    if (decimals < 0)
      fail("E0263", a.span(1),
           "round of an integer array (" + surfaceTypeString(x) + ") with decimals=" +
               std::to_string(decimals) + " is not supported, as in jnp",
           "convert it first: `round(f64(x), decimals=" + std::to_string(decimals) + ")`");
    return arr(x);
  }
  if (decimals == 0) return arr(ev.ops().unary(Op::Round, x, c.span));
  AVal factor = ev.ops().convert(weakFloat(std::pow(10.0, static_cast<double>(decimals))), x.type.dtype, c.span);
  AVal scaled = ev.ops().unary(Op::Round, ev.ops().binary(Op::Mul, x, factor, c.span, "round"), c.span);
  return arr(ev.ops().binary(Op::Div, scaled, factor, c.span, "round"));
}

// clip(x, min=None, max=None), as jnp.clip: maximum(x, min), then minimum(., max); a None bound
// is not applied.
Value clip(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "clip", {"x", "min=", "max="});
  AVal x = a.array(0);
  if (std::optional<AVal> lo = optionalArray(a, 1)) x = ev.ops().binary(Op::Max, x, *lo, c.span, "clip");
  if (std::optional<AVal> hi = optionalArray(a, 2)) x = ev.ops().binary(Op::Min, x, *hi, c.span, "clip");
  return arr(x);
}

// nan_to_num(x, nan=0.0, posinf=None, neginf=None), as jnp: NaN, +inf and -inf replaced; the
// infinities by the largest finite values of x's dtype unless given. Integers are unchanged.
Value nanToNum(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "nan_to_num", {"x", "nan=", "posinf=", "neginf="});
  AVal x = a.array(0);
  if (!isFloat(x.type.dtype) && !isComplex(x.type.dtype)) return arr(x);
  if (isComplex(x.type.dtype))
    fail("E0373", c.span, "`nan_to_num` does not support complex operands, got " + surfaceTypeString(x),
         "replace the parts: `complex(nan_to_num(real(z)), nan_to_num(imag(z)))`");
  ArrayOps& ops = ev.ops();
  double biggest = x.type.dtype == DType::F32 ? double(FLT_MAX) : DBL_MAX;
  AVal nan = optionalArray(a, 1).value_or(weakFloat(0.0));
  AVal posinf = optionalArray(a, 2).value_or(weakFloat(biggest));
  AVal neginf = optionalArray(a, 3).value_or(weakFloat(-biggest));
  AVal r = ops.select(ops.unary(Op::IsNan, x, c.span), nan, x, c.span, "nan_to_num");
  r = ops.select(ops.binary(Op::Eq, x, weakFloat(INFINITY), c.span, "nan_to_num"), posinf, r, c.span, "nan_to_num");
  r = ops.select(ops.binary(Op::Eq, x, weakFloat(-INFINITY), c.span, "nan_to_num"), neginf, r, c.span, "nan_to_num");
  return arr(r);
}

// ---- the bitwise operators by name (jnp.bitwise_and, ...) ----

template <Op op>
Value bitwiseBinary(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::And ? "bitwise_and" : op == Op::Or ? "bitwise_or" : op == Op::Xor ? "bitwise_xor"
                     : op == Op::Shl ? "left_shift" : "right_shift";
  Args a(ev, c, name, {"x", "y"});
  return arr(ev.ops().bitwise(op, a.array(0), a.array(1), c.span, name));
}

Value bitwiseNot(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "bitwise_not", {"x"});
  return arr(ev.ops().invert(a.array(0), c.span, "bitwise_not"));
}

Value invert(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "invert", {"x"});
  return arr(ev.ops().invert(a.array(0), c.span, "invert"));
}

}  // namespace

BuiltinDefs elementwiseMathBuiltins() {
  return {{},
          {
              {"round(x, decimals=0)", "x rounded to the given number of decimals, halves to even, elementwise", round},
              {"clip(x, min=None, max=None)", "x limited to [min, max], elementwise (a None bound is not applied)", clip},
              {"nan_to_num(x, nan=0.0, posinf=None, neginf=None)",
               "x with NaN and the infinities replaced (by the largest finite values of x's dtype unless given)",
               nanToNum},
              {"bitwise_and(x, y)", "x & y: bitwise and of integers, logical and of bools, elementwise", bitwiseBinary<Op::And>},
              {"bitwise_or(x, y)", "x | y: bitwise or of integers, logical or of bools, elementwise", bitwiseBinary<Op::Or>},
              {"bitwise_xor(x, y)", "x ^ y: bitwise xor of integers, logical xor of bools, elementwise", bitwiseBinary<Op::Xor>},
              {"left_shift(x, y)", "x << y: the bits of x shifted left by y (0 when y >= the bit width), elementwise", bitwiseBinary<Op::Shl>},
              {"right_shift(x, y)", "x >> y: the bits of x shifted right by y (arithmetic for signed x), elementwise", bitwiseBinary<Op::Shr>},
              {"bitwise_not(x)", "~x: bitwise not of integers, logical not of bools, elementwise", bitwiseNot},
              {"invert(x)", "~x: the same as bitwise_not", invert},
          }};
}

}  // namespace scn
