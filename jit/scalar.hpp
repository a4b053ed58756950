// Scalar semantics of every elementwise op: the one definition the interpreter runs and the
// LLVM and CUDA backends mirror. See Note [Scalar semantics] for the rules.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "jit/ir.hpp"
#include "lang/diagnostics.hpp"

// Note [Scalar semantics]
// - Integer arithmetic wraps (two's complement); it is computed in the unsigned type of the
//   same width so that no C++ overflow is undefined.
// - Integer div truncates toward zero, floordiv floors, rem takes the divisor's sign (Python);
//   an integer division or remainder by zero gives 0; INT_MIN / -1 wraps to INT_MIN and
//   INT_MIN % -1 is 0.
// - Float floordiv is floor(a / b); float rem is Python's: fmod(a, b), moved by b when its
//   sign differs from b's, and a zero result takes b's sign.
// - Integer pow is by squaring and wraps; a negative exponent gives 0, except for base 1 (1)
//   and base -1 (+-1 by the parity of the exponent). Float pow is std::pow.
// - shl/shr read the count as unsigned: a count >= the bit width (including every negative
//   count) gives 0, and for shr of a negative signed value -1. shr is arithmetic on signed
//   types and logical on unsigned ones.
// - Float max/min propagate NaN and order -0 below +0 (as llvm.maximum/llvm.minimum).
//   On bool, max is "or" and min is "and".
// - sign: -1, 0 or 1 for integers; for floats 1 or -1, and x itself for zeros and NaN
//   (so sign(-0.0) = -0.0 and sign(NaN) = NaN).
// - round is half to even (NumPy); floor/ceil/round keep the sign of a zero result.
// - sigmoid(x) = 1 / (1 + exp(-x)); rsqrt(x) = 1 / sqrt(x).
// - and/or/xor/not are logical on bool and bitwise on integers.
// - Comparisons are IEEE: every comparison with NaN is false except ne.
// - convert: to bool is x != 0 (NaN is true); from bool is 0 or 1; float -> integer is NaN -> 0,
//   out of range saturates to the type's min/max, otherwise truncation toward zero;
//   integer -> integer wraps; to float rounds to nearest.
// - Math on f32 is computed in float (the float overloads of <cmath>), on f64 in double.

namespace scn::scalar {

template <typename T> inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T> inline constexpr bool kIsFloat = std::is_floating_point_v<T>;
template <typename T> inline constexpr bool kIsInt = std::is_integral_v<T> && !kIsBool<T>;
template <typename T> inline constexpr bool kIsSigned = kIsInt<T> && std::is_signed_v<T>;

/// Reached only when a shape rule was bypassed (e.g. add on bool): a bug, never a user error.
template <typename T>
[[noreturn]] T wrongType(const char* op) {
  internalError(std::string("scalar op ") + op + " instantiated for an unsupported dtype");
}

// ---- integer helpers: arithmetic through the unsigned type of the same width ----

template <typename T> T wrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T> T wrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename T> T wrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

// ---- unary ----

template <typename T> T neg(T x) {
  if constexpr (kIsInt<T>) return wrapSub<T>(0, x);
  else if constexpr (kIsFloat<T>) return -x;
  else return wrongType<T>("neg");
}

template <typename T> T logicalNot(T x) {
  if constexpr (kIsBool<T>) return !x;
  else if constexpr (kIsInt<T>) return static_cast<T>(~x);
  else return wrongType<T>("not");
}

template <typename T> T abs(T x) {
  if constexpr (kIsSigned<T>) return x < 0 ? wrapSub<T>(0, x) : x;  // abs(INT_MIN) = INT_MIN
  else if constexpr (kIsInt<T>) return x;
  else if constexpr (kIsFloat<T>) return std::fabs(x);
  else return wrongType<T>("abs");
}

template <typename T> T sign(T x) {
  if constexpr (kIsSigned<T>) return static_cast<T>((x > 0) - (x < 0));
  else if constexpr (kIsInt<T>) return static_cast<T>(x > 0);
  else if constexpr (kIsFloat<T>) return x > 0 ? T(1) : x < 0 ? T(-1) : x;
  else return wrongType<T>("sign");
}

/// Half to even, keeping the sign of a zero result (round(-0.4) = -0.0).
template <typename T> T roundHalfEven(T x) {
  if constexpr (kIsFloat<T>) {
    T r = std::floor(x);
    T d = x - r;
    if (d > T(0.5) || (d == T(0.5) && std::fmod(r, T(2)) != 0)) r += 1;
    return std::isnan(r) || std::isinf(x) ? x : std::copysign(r, x);
  } else {
    return wrongType<T>("round");
  }
}

#define SCN_FLOAT_UNARY(NAME, EXPR)                        \
  template <typename T> T NAME(T x) {                      \
    if constexpr (kIsFloat<T>) return EXPR;                \
    else return wrongType<T>(#NAME);                       \
  }
SCN_FLOAT_UNARY(floor, std::floor(x))
SCN_FLOAT_UNARY(ceil, std::ceil(x))
SCN_FLOAT_UNARY(sqrt, std::sqrt(x))
SCN_FLOAT_UNARY(rsqrt, T(1) / std::sqrt(x))
SCN_FLOAT_UNARY(exp, std::exp(x))
SCN_FLOAT_UNARY(log, std::log(x))
SCN_FLOAT_UNARY(log1p, std::log1p(x))
SCN_FLOAT_UNARY(expm1, std::expm1(x))
SCN_FLOAT_UNARY(sin, std::sin(x))
SCN_FLOAT_UNARY(cos, std::cos(x))
SCN_FLOAT_UNARY(tan, std::tan(x))
SCN_FLOAT_UNARY(tanh, std::tanh(x))
SCN_FLOAT_UNARY(sigmoid, T(1) / (T(1) + std::exp(-x)))
#undef SCN_FLOAT_UNARY

template <typename T> bool isNan(T x) {
  if constexpr (kIsFloat<T>) return std::isnan(x);
  else return false;
}

// ---- binary ----

template <typename T> T add(T a, T b) {
  if constexpr (kIsInt<T>) return wrapAdd(a, b);
  else if constexpr (kIsFloat<T>) return a + b;
  else return wrongType<T>("add");
}
template <typename T> T sub(T a, T b) {
  if constexpr (kIsInt<T>) return wrapSub(a, b);
  else if constexpr (kIsFloat<T>) return a - b;
  else return wrongType<T>("sub");
}
template <typename T> T mul(T a, T b) {
  if constexpr (kIsInt<T>) return wrapMul(a, b);
  else if constexpr (kIsFloat<T>) return a * b;
  else return wrongType<T>("mul");
}

/// Truncating division; integer x / 0 = 0; INT_MIN / -1 = INT_MIN.
template <typename T> T div(T a, T b) {
  if constexpr (kIsInt<T>) {
    if (b == 0) return 0;
    if constexpr (kIsSigned<T>)
      if (b == -1) return wrapSub<T>(0, a);
    return static_cast<T>(a / b);
  } else if constexpr (kIsFloat<T>) {
    return a / b;
  } else {
    return wrongType<T>("div");
  }
}

/// Python's //: floor of the quotient; integer x // 0 = 0.
template <typename T> T floorDiv(T a, T b) {
  if constexpr (kIsInt<T>) {
    if (b == 0) return 0;
    if constexpr (kIsSigned<T>) {
      if (b == -1) return wrapSub<T>(0, a);
      T q = static_cast<T>(a / b);
      if (a % b != 0 && ((a < 0) != (b < 0))) --q;
      return q;
    } else {
      return static_cast<T>(a / b);
    }
  } else if constexpr (kIsFloat<T>) {
    return std::floor(a / b);
  } else {
    return wrongType<T>("floordiv");
  }
}

/// Python's %: the result has the sign of b; integer x % 0 = 0.
template <typename T> T rem(T a, T b) {
  if constexpr (kIsInt<T>) {
    if (b == 0) return 0;
    if constexpr (kIsSigned<T>) {
      if (b == -1) return 0;
      T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    } else {
      return static_cast<T>(a % b);
    }
  } else if constexpr (kIsFloat<T>) {
    T r = std::fmod(a, b);
    if (r != 0) {
      if ((r < 0) != (b < 0)) r += b;
    } else {
      r = std::copysign(T(0), b);
    }
    return r;
  } else {
    return wrongType<T>("rem");
  }
}

template <typename T> T pow(T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = std::make_unsigned_t<T>;
    if constexpr (kIsSigned<T>) {
      if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b & 1) ? T(-1) : T(1);
        return 0;
      }
    }
    U result = 1, base = static_cast<U>(a), e = static_cast<U>(b);
    while (e != 0) {
      if (e & 1u) result = static_cast<U>(result * base);
      base = static_cast<U>(base * base);
      e >>= 1;
    }
    return static_cast<T>(result);
  } else if constexpr (kIsFloat<T>) {
    return std::pow(a, b);
  } else {
    return wrongType<T>("pow");
  }
}

template <typename T> T max(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    if (a == b) return std::signbit(a) ? b : a;  // max(-0, +0) = +0
  }
  return a > b ? a : b;
}
template <typename T> T min(T a, T b) {
  if constexpr (kIsFloat<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    if (a == b) return std::signbit(a) ? a : b;  // min(-0, +0) = -0
  }
  return a < b ? a : b;
}

template <typename T> T bitAnd(T a, T b) {
  if constexpr (kIsBool<T>) return a && b;
  else if constexpr (kIsInt<T>) return static_cast<T>(a & b);
  else return wrongType<T>("and");
}
template <typename T> T bitOr(T a, T b) {
  if constexpr (kIsBool<T>) return a || b;
  else if constexpr (kIsInt<T>) return static_cast<T>(a | b);
  else return wrongType<T>("or");
}
template <typename T> T bitXor(T a, T b) {
  if constexpr (kIsBool<T>) return a != b;
  else if constexpr (kIsInt<T>) return static_cast<T>(a ^ b);
  else return wrongType<T>("xor");
}

/// a << b; a count >= the bit width (or negative) gives 0.
template <typename T> T shl(T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = std::make_unsigned_t<T>;
    U count = static_cast<U>(b);
    if (count >= sizeof(T) * 8) return 0;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) << count));
  } else {
    return wrongType<T>("shl");
  }
}

/// a >> b: arithmetic for signed, logical for unsigned; a count >= the width gives 0 (-1 for a
/// negative signed a).
template <typename T> T shr(T a, T b) {
  if constexpr (kIsInt<T>) {
    using U = std::make_unsigned_t<T>;
    U count = static_cast<U>(b);
    if (count >= sizeof(T) * 8) {
      if constexpr (kIsSigned<T>) return a < 0 ? T(-1) : T(0);
      return 0;
    }
    return static_cast<T>(a >> count);  // C++20: arithmetic shift for signed values
  } else {
    return wrongType<T>("shr");
  }
}

// ---- conversion ----

/// Converts one value between element types by the rules of Note [Scalar semantics].
template <typename To, typename From> To convert(From x) {
  if constexpr (kIsBool<To>) {
    return x != From(0);
  } else if constexpr (kIsBool<From>) {
    return x ? To(1) : To(0);
  } else if constexpr (kIsFloat<From> && kIsInt<To>) {
    if (std::isnan(x)) return 0;
    // Both bounds are powers of two (or 0), exactly representable in From.
    constexpr From lo = static_cast<From>(std::numeric_limits<To>::min());
    constexpr From hi = From(2) * static_cast<From>(std::numeric_limits<To>::max() / 2 + 1);
    if (x < lo) return std::numeric_limits<To>::min();
    if (x >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);  // integer wrap (C++20), int -> float, float -> float
  }
}

// ---- dispatch by op (one switch per category family; every op is listed) ----

/// The Unary category: out = op(x), same dtype.
template <typename T> T unary(Op op, T x) {
  switch (op) {
    case Op::Neg: return neg(x);
    case Op::Not: return logicalNot(x);
    case Op::Abs: return abs(x);
    case Op::Sign: return sign(x);
    case Op::Floor: return floor(x);
    case Op::Ceil: return ceil(x);
    case Op::Round: return roundHalfEven(x);
    case Op::Sqrt: return sqrt(x);
    case Op::Rsqrt: return rsqrt(x);
    case Op::Exp: return exp(x);
    case Op::Log: return log(x);
    case Op::Log1p: return log1p(x);
    case Op::Expm1: return expm1(x);
    case Op::Sin: return sin(x);
    case Op::Cos: return cos(x);
    case Op::Tan: return tan(x);
    case Op::Tanh: return tanh(x);
    case Op::Sigmoid: return sigmoid(x);
    case Op::IsNan: case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::FloorDiv:
    case Op::Rem: case Op::Pow: case Op::Max: case Op::Min: case Op::And: case Op::Or:
    case Op::Xor: case Op::Shl: case Op::Shr: case Op::Eq: case Op::Ne: case Op::Lt:
    case Op::Le: case Op::Gt: case Op::Ge: case Op::Select: case Op::Convert:
    case Op::Constant: case Op::Iota: case Op::ReduceSum: case Op::ReduceProd:
    case Op::ReduceMax: case Op::ReduceMin: case Op::ReduceAnd: case Op::ReduceOr:
    case Op::ArgMax: case Op::ArgMin: case Op::CumSum: case Op::CumProd: case Op::CumMax:
    case Op::CumMin: case Op::AssocScan: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose:
    case Op::Concat: case Op::Slice: case Op::Reverse: case Op::DynamicSlice:
    case Op::DynamicUpdateSlice: case Op::DotGeneral: case Op::Scan: case Op::While:
    case Op::Cond:
      break;
  }
  internalError(std::string("scalar::unary called with ") + opName(op));
}

/// The Predicate category: out = op(x) as bool.
template <typename T> bool predicate(Op op, T x) {
  if (op == Op::IsNan) return isNan(x);
  internalError(std::string("scalar::predicate called with ") + opName(op));
}

/// The Binary category: out = op(a, b), same dtype.
template <typename T> T binary(Op op, T a, T b) {
  switch (op) {
    case Op::Add: return add(a, b);
    case Op::Sub: return sub(a, b);
    case Op::Mul: return mul(a, b);
    case Op::Div: return div(a, b);
    case Op::FloorDiv: return floorDiv(a, b);
    case Op::Rem: return rem(a, b);
    case Op::Pow: return pow(a, b);
    case Op::Max: return max(a, b);
    case Op::Min: return min(a, b);
    case Op::And: return bitAnd(a, b);
    case Op::Or: return bitOr(a, b);
    case Op::Xor: return bitXor(a, b);
    case Op::Shl: return shl(a, b);
    case Op::Shr: return shr(a, b);
    case Op::Neg: case Op::Not: case Op::Abs: case Op::Sign: case Op::Floor: case Op::Ceil:
    case Op::Round: case Op::Sqrt: case Op::Rsqrt: case Op::Exp: case Op::Log: case Op::Log1p:
    case Op::Expm1: case Op::Sin: case Op::Cos: case Op::Tan: case Op::Tanh: case Op::Sigmoid:
    case Op::IsNan: case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt:
    case Op::Ge: case Op::Select: case Op::Convert: case Op::Constant: case Op::Iota:
    case Op::ReduceSum: case Op::ReduceProd: case Op::ReduceMax: case Op::ReduceMin:
    case Op::ReduceAnd: case Op::ReduceOr: case Op::ArgMax: case Op::ArgMin: case Op::CumSum:
    case Op::CumProd: case Op::CumMax: case Op::CumMin: case Op::AssocScan: case Op::BroadcastInDim:
    case Op::Reshape: case Op::Transpose: case Op::Concat: case Op::Slice: case Op::Reverse:
    case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::DotGeneral: case Op::Scan:
    case Op::While: case Op::Cond:
      break;
  }
  internalError(std::string("scalar::binary called with ") + opName(op));
}

/// The Compare category: out = a op b as bool (IEEE: NaN compares false except ne).
template <typename T> bool compare(Op op, T a, T b) {
  switch (op) {
    case Op::Eq: return a == b;
    case Op::Ne: return a != b;
    case Op::Lt: return a < b;
    case Op::Le: return a <= b;
    case Op::Gt: return a > b;
    case Op::Ge: return a >= b;
    case Op::Neg: case Op::Not: case Op::Abs: case Op::Sign: case Op::Floor: case Op::Ceil:
    case Op::Round: case Op::Sqrt: case Op::Rsqrt: case Op::Exp: case Op::Log: case Op::Log1p:
    case Op::Expm1: case Op::Sin: case Op::Cos: case Op::Tan: case Op::Tanh: case Op::Sigmoid:
    case Op::IsNan: case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::FloorDiv:
    case Op::Rem: case Op::Pow: case Op::Max: case Op::Min: case Op::And: case Op::Or:
    case Op::Xor: case Op::Shl: case Op::Shr: case Op::Select: case Op::Convert:
    case Op::Constant: case Op::Iota: case Op::ReduceSum: case Op::ReduceProd:
    case Op::ReduceMax: case Op::ReduceMin: case Op::ReduceAnd: case Op::ReduceOr:
    case Op::ArgMax: case Op::ArgMin: case Op::CumSum: case Op::CumProd: case Op::CumMax:
    case Op::CumMin: case Op::AssocScan: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose:
    case Op::Concat: case Op::Slice: case Op::Reverse: case Op::DynamicSlice:
    case Op::DynamicUpdateSlice: case Op::DotGeneral: case Op::Scan: case Op::While:
    case Op::Cond:
      break;
  }
  internalError(std::string("scalar::compare called with ") + opName(op));
}

// ---- reductions and cumulative ops: a binary combiner and its identity ----

/// The binary op a reduction or cumulative op folds with (the Combiner column of ops.def).
inline Op combinerOf(Op op) {
  if (std::optional<Op> c = opInfo(op).combiner) return *c;
  internalError(std::string("no combiner for ") + opName(op));
}

/// The identity of a combiner: add 0, mul 1, max -inf (lowest integer, false), min +inf
/// (highest integer, true), and all ones, or 0. A reduction over an empty axis gives it.
template <typename T> T identityOf(Op combiner) {
  using L = std::numeric_limits<T>;
  if (combiner == Op::Add || combiner == Op::Or || combiner == Op::Xor) return T(0);
  if (combiner == Op::Mul) return T(1);
  if (combiner == Op::Max) {
    if constexpr (kIsFloat<T>) return -L::infinity();
    else return L::lowest();
  }
  if (combiner == Op::Min) {
    if constexpr (kIsFloat<T>) return L::infinity();
    else return L::max();
  }
  if (combiner == Op::And) {
    if constexpr (kIsBool<T>) return true;
    else if constexpr (kIsInt<T>) return static_cast<T>(~T(0));
    else return wrongType<T>("and");
  }
  internalError(std::string("no identity for ") + opName(combiner));
}

}  // namespace scn::scalar
