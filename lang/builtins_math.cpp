// Builtins of elementwise math that are not one op: round with decimals, clip with optional
// bounds, nan_to_num, isclose / allclose, trunc, angle units, xlogy, and the named forms of the
// bitwise operators.
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

// isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=false), as jnp.isclose: |a - b| <= atol +
// rtol * |b| for floats, where an infinity is close only to itself and NaN to nothing (to NaN
// with equal_nan); a == b for integers and bools.
AVal isClose(Evaluator& ev, Args& a, Span span, const char* what) {
  ArrayOps& ops = ev.ops();
  AVal x = a.array(0), y = a.array(1);
  DType t = promoteTypes(x, y);
  if (!isFloat(t) && !isComplex(t)) return ops.binary(Op::Eq, x, y, span, what);
  AVal rtol = a.has(2) ? a.array(2) : weakFloat(1e-05), atol = a.has(3) ? a.array(3) : weakFloat(1e-08);
  AVal distance = ops.unary(Op::Abs, ops.binary(Op::Sub, x, y, span, what), span);
  AVal bound = ops.binary(Op::Add, atol, ops.binary(Op::Mul, rtol, ops.unary(Op::Abs, y, span), span, what), span, what);
  AVal close = ops.binary(Op::Le, distance, bound, span, what);
  auto both = [&](Op test, Op join) {
    return ops.bitwise(join, ops.unary(test, x, span), ops.unary(test, y, span), span, what);
  };
  AVal sameInfinity = ops.bitwise(Op::And, both(Op::IsInf, Op::And), ops.binary(Op::Eq, x, y, span, what), span, what);
  close = ops.bitwise(Op::And, close, ops.invert(both(Op::IsInf, Op::Or), span, what), span, what);
  close = ops.bitwise(Op::Or, close, sameInfinity, span, what);
  close = ops.bitwise(Op::And, close, ops.invert(both(Op::IsNan, Op::Or), span, what), span, what);
  if (a.has(4) && a.boolean(4, false)) close = ops.bitwise(Op::Or, close, both(Op::IsNan, Op::And), span, what);
  return close;
}

Value isclose(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "isclose", {"a", "b", "rtol=", "atol=", "equal_nan="});
  return arr(isClose(ev, a, c.span, "isclose"));
}

// allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=false): every element isclose.
Value allclose(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "allclose", {"a", "b", "rtol=", "atol=", "equal_nan="});
  AVal close = isClose(ev, a, c.span, "allclose");
  std::vector<int64_t> all;
  for (size_t d = 0; d < close.type.shape.size(); ++d) all.push_back(static_cast<int64_t>(d));
  return arr(ev.ops().reduce(Op::ReduceAnd, close, all, c.span, "allclose"));
}

// trunc(x): x rounded toward zero (jnp.trunc; integers unchanged).
Value trunc(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "trunc", {"x"});
  AVal x = a.array(0);
  if (!isFloat(x.type.dtype)) return arr(x);
  ArrayOps& ops = ev.ops();
  AVal negative = ops.binary(Op::Lt, x, weakFloat(0.0), c.span, "trunc");
  return arr(ops.select(negative, ops.unary(Op::Ceil, x, c.span), ops.unary(Op::Floor, x, c.span), c.span, "trunc"));
}

// deg2rad(x) and rad2deg(x) (also radians / degrees): x times pi / 180 or 180 / pi.
template <bool ToRadians>
Value angleUnits(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, ToRadians ? "deg2rad" : "rad2deg", {"x"});
  AVal x = a.array(0);
  if (!isFloat(x.type.dtype) && !isComplex(x.type.dtype)) x = ev.ops().convert(x, DType::F32, c.span);
  double factor = ToRadians ? M_PI / 180 : 180 / M_PI;
  return arr(ev.ops().binary(Op::Mul, x, weakFloat(factor), c.span, ToRadians ? "deg2rad" : "rad2deg"));
}

// xlogy(x, y): x * log(y), 0 where x is 0 (jax.scipy.special.xlogy; NaN y still gives NaN). Where
// x is 0 the product takes log(y) with its infinities and NaN replaced by 0, so the value is 0
// and the derivative in x is still log(y), as JAX's rule.
Value xlogy(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "xlogy", {"x", "y"});
  ArrayOps& ops = ev.ops();
  AVal x = a.array(0), y = a.array(1);
  AVal log = ops.unary(Op::Log, y, c.span);
  AVal finiteLog = ops.select(ops.unary(Op::IsFinite, log, c.span), log, weakFloat(0.0), c.span, "xlogy");
  AVal zero = ops.binary(Op::Eq, x, weakFloat(0.0), c.span, "xlogy");
  AVal safe = ops.bitwise(Op::And, zero, ops.invert(ops.unary(Op::IsNan, y, c.span), c.span, "xlogy"), c.span, "xlogy");
  // + 0.0 turns the -0.0 of 0 * a negative log into JAX's 0.0.
  AVal atZero = ops.binary(Op::Add, ops.binary(Op::Mul, x, finiteLog, c.span, "xlogy"), weakFloat(0.0), c.span, "xlogy");
  return arr(ops.select(safe, atZero, ops.binary(Op::Mul, x, log, c.span, "xlogy"), c.span, "xlogy"));
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
              {"isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=false)",
               "|a - b| <= atol + rtol * |b| elementwise (infinities close only to themselves, NaN to nothing unless equal_nan)",
               isclose},
              {"allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=false)", "whether every element of a and b isclose", allclose},
              {"trunc(x)", "x rounded toward zero, elementwise", trunc},
              {"deg2rad(x)", "x in degrees as radians, elementwise", angleUnits<true>},
              {"radians(x)", "the same as deg2rad", angleUnits<true>},
              {"rad2deg(x)", "x in radians as degrees, elementwise", angleUnits<false>},
              {"degrees(x)", "the same as rad2deg", angleUnits<false>},
              {"xlogy(x, y)", "x * log(y), and 0 where x is 0 (unless y is NaN), elementwise", xlogy},
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
