// Element types of arrays: names, sizes and classes. Promotion lives in lang/ (it is surface semantics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace scn {

// BF16 and F16 come last so that the values of the others (the C API's scn_dtype) stay as they were.
enum class DType : uint8_t { Bool, I32, I64, U32, U64, F32, F64, C64, C128, BF16, F16 };

constexpr DType kAllDTypes[] = {DType::Bool, DType::I32,  DType::I64, DType::U32, DType::U64, DType::BF16,
                                DType::F16,  DType::F32,  DType::F64, DType::C64, DType::C128};

/// The element of a c64 / c128 array: two floats, the real part first (NumPy's and C's layout).
struct c64 {
  float re, im;
};
struct c128 {
  double re, im;
};

/// The element of a bf16 / f16 array: the bits of the 16-bit float (Note [Low-precision floats]
/// in jit/scalar/lowp.inc). No arithmetic: every op computes in f32 (jit/transform/widen.cpp).
struct bf16 {
  uint16_t bits;
};
struct f16 {
  uint16_t bits;
};

/// "bool", "i32", ... as written in scn source.
const char* dtypeName(DType t);
std::optional<DType> dtypeFromName(std::string_view name);
/// "bool, i32, ..., c128": every dtype's name (for messages).
std::string dtypeNameList();
size_t dtypeSize(DType t);
/// The real floats: bf16, f16, f32, f64.
inline bool isFloat(DType t) {
  return t == DType::F32 || t == DType::F64 || t == DType::BF16 || t == DType::F16;
}
/// bf16 and f16: storage formats that every op widens to f32 (jit/transform/widen.cpp).
inline bool isLowPrecision(DType t) { return t == DType::BF16 || t == DType::F16; }
inline bool isSignedInt(DType t) { return t == DType::I32 || t == DType::I64; }
inline bool isUnsignedInt(DType t) { return t == DType::U32 || t == DType::U64; }
inline bool isInteger(DType t) { return isSignedInt(t) || isUnsignedInt(t); }
inline bool isComplex(DType t) { return t == DType::C64 || t == DType::C128; }
/// The dtype of either part of a complex dtype (c64 -> f32, c128 -> f64); t itself otherwise.
inline DType componentType(DType t) {
  return t == DType::C64 ? DType::F32 : t == DType::C128 ? DType::F64 : t;
}
/// The complex dtype with parts of float dtype t (f64 -> c128; every other dtype -> c64).
inline DType complexOf(DType t) { return t == DType::F64 || t == DType::C128 ? DType::C128 : DType::C64; }

/// An internal error: a real-only dispatch (dispatchDType) reached a complex dtype, or one
/// without low-precision floats reached bf16 / f16.
[[noreturn]] void complexNotDispatched(DType t);
[[noreturn]] void lowPrecisionNotDispatched(DType t);

/// Calls f.template operator()<T>() with the C++ type of `t` (bool, int32_t, ..., double).
/// Real dtypes only: a complex `t` is an internal error, so that no code written for real
/// elements is instantiated on complex ones by accident (dispatchWithComplex admits them); so
/// are bf16 and f16, which have no arithmetic (dispatchWithLowPrecision admits them).
template <typename F>
decltype(auto) dispatchDType(DType t, F&& f) {
  switch (t) {
    case DType::C64: case DType::C128: complexNotDispatched(t);
    case DType::BF16: case DType::F16: lowPrecisionNotDispatched(t);
    case DType::Bool: return f.template operator()<bool>();
    case DType::I32: return f.template operator()<int32_t>();
    case DType::I64: return f.template operator()<int64_t>();
    case DType::U32: return f.template operator()<uint32_t>();
    case DType::U64: return f.template operator()<uint64_t>();
    case DType::F32: return f.template operator()<float>();
    case DType::F64: return f.template operator()<double>();
  }
  return f.template operator()<float>();
}

/// dispatchDType, and c64 / c128 for the complex dtypes: for code that handles complex
/// elements (the interpreter's elementwise ops, sums, products and matmul).
template <typename F>
decltype(auto) dispatchWithComplex(DType t, F&& f) {
  if (t == DType::C64) return f.template operator()<c64>();
  if (t == DType::C128) return f.template operator()<c128>();
  return dispatchDType(t, std::forward<F>(f));
}

/// dispatchWithComplex, and bf16 / f16 (the structs above): for the code that only converts or
/// moves elements (conversions, element access, printing).
template <typename F>
decltype(auto) dispatchWithLowPrecision(DType t, F&& f) {
  if (t == DType::BF16) return f.template operator()<bf16>();
  if (t == DType::F16) return f.template operator()<f16>();
  return dispatchWithComplex(t, std::forward<F>(f));
}

}  // namespace scn
