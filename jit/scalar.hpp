// Scalar semantics of every elementwise op for the interpreter: jit/scalar/scalar.inc, the one
// definition all three backends compile (Note [Scalar semantics] there), and dispatch by op.
#pragma once

#include <math.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "jit/ir.hpp"
#include "base/diagnostics.hpp"

// ---- the scalar functions, as C++ (global scope: every name starts with scn_) ----
namespace scn::scalar {
using i32 = int32_t;
using i64 = int64_t;
using u32 = uint32_t;
using u64 = uint64_t;
using f32 = float;
using f64 = double;
}  // namespace scn::scalar
using scn::scalar::i32, scn::scalar::i64, scn::scalar::u32, scn::scalar::u64, scn::scalar::f32,
    scn::scalar::f64;
#define SCN_FN inline
#define SCN_FN_SPEC inline
#include "jit/scalar/scalar.inc"
using scn::bf16, scn::f16;
inline u32 scn_bits_of_f32(f32 x) { return std::bit_cast<u32>(x); }
inline f32 scn_f32_of_bits(u32 b) { return std::bit_cast<f32>(b); }
#include "jit/scalar/lowp.inc"
using scn::c64, scn::c128;
#include "jit/scalar/complex.inc"
#include "jit/scalar/complex_ops.inc"
#undef SCN_FN
#undef SCN_FN_SPEC

// Every op's name as an overload set that no type matches (declared, never defined), so that
// SCN_SCALAR_HAS can ask about any op.
namespace scn::scalar { struct NotScalar {}; }
#define OP(Enum, name, ...) \
  void scn_##name(scn::scalar::NotScalar); void scn_##name(scn::scalar::NotScalar, scn::scalar::NotScalar);
#include "jit/ops.def"
#undef OP

namespace scn::scalar {

template <typename T> inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T> inline constexpr bool kIsFloat = std::is_floating_point_v<T>;
template <typename T> inline constexpr bool kIsInt = std::is_integral_v<T> && !kIsBool<T>;
template <typename T> inline constexpr bool kIsComplex = std::is_same_v<T, c64> || std::is_same_v<T, c128>;
/// The type of either part of a complex T.
template <typename T> using PartOf = decltype(T{}.re);

/// Whether scalar.inc defines scn_<name> with exactly the type R(Args...) (no conversions).
#define SCN_SCALAR_HAS(name, R, ...) requires { static_cast<R (*)(__VA_ARGS__)>(&::scn_##name); }

/// Reached only when a shape rule was bypassed (e.g. add on bool): a bug, never a user error.
template <typename T>
[[noreturn]] T wrongType(const char* what, Op op) {
  internalError(std::string("scalar::") + what + " called with " + opName(op) +
                " on an unsupported dtype");
}

// ---- dispatch by op: one case per row of ops.def, the function scalar.inc names after it ----

/// out = op(x), same dtype (the Unary category).
template <typename T> T unary(Op op, T x) {
  switch (op) {
#define OP(Enum, name, ...) \
  case Op::Enum: if constexpr (SCN_SCALAR_HAS(name, T, T)) return ::scn_##name(x); break;
#include "jit/ops.def"
#undef OP
  }
  return wrongType<T>("unary", op);
}

/// out = op(x) as bool (the Predicate category).
template <typename T> bool predicate(Op op, T x) {
  switch (op) {
#define OP(Enum, name, ...) \
  case Op::Enum: if constexpr (SCN_SCALAR_HAS(name, bool, T)) return ::scn_##name(x); break;
#include "jit/ops.def"
#undef OP
  }
  return wrongType<bool>("predicate", op);
}

/// out = op(a, b), same dtype (the Binary category).
template <typename T> T binary(Op op, T a, T b) {
  switch (op) {
#define OP(Enum, name, ...) \
  case Op::Enum: if constexpr (SCN_SCALAR_HAS(name, T, T, T)) return ::scn_##name(a, b); break;
#include "jit/ops.def"
#undef OP
  }
  return wrongType<T>("binary", op);
}

/// out = a op b as bool (the Compare category; IEEE: NaN compares false except ne).
template <typename T> bool compare(Op op, T a, T b) {
  switch (op) {
#define OP(Enum, name, ...) \
  case Op::Enum: if constexpr (SCN_SCALAR_HAS(name, bool, T, T)) return ::scn_##name(a, b); break;
#include "jit/ops.def"
#undef OP
  }
  return wrongType<bool>("compare", op);
}

template <typename T> bool isNan(T x) { return ::scn_isnan(x); }

/// Converts one value between element types by the rules of Note [Scalar semantics] (and of
/// Note [Complex numbers] for complex ones: from complex to real drops the imaginary part, to
/// bool is x != 0; from real to complex the imaginary part is 0).
template <typename To, typename From> To convert(From x) {
  if constexpr (kIsComplex<From> && kIsComplex<To>) return To{static_cast<PartOf<To>>(x.re), static_cast<PartOf<To>>(x.im)};
  else if constexpr (kIsComplex<From> && kIsBool<To>) return x.re != 0 || x.im != 0;
  else if constexpr (kIsComplex<From>) return ::scn_cvt<To, PartOf<From>>(x.re);
  else if constexpr (kIsComplex<To>) return To{::scn_cvt<PartOf<To>, From>(x), PartOf<To>(0)};
  else return ::scn_cvt<To, From>(x);
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
  if constexpr (kIsComplex<T>) {
    if (combiner == Op::Add) return T{0, 0};
    if (combiner == Op::Mul) return T{1, 0};
    return wrongType<T>("identityOf", combiner);
  } else {
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
    else return wrongType<T>("identityOf", combiner);
  }
  internalError(std::string("no identity for ") + opName(combiner));
  }
}

}  // namespace scn::scalar
