// bf16 and f16 storage formats: bit-exact conversions to and from f32 (issue 21).
// Rounding is round-to-nearest-even, NaN stays NaN (a canonical quiet NaN with the sign kept) and
// infinities stay infinities, as ml_dtypes (JAX's bfloat16/float16) converts. Values are computed in
// f32 and stored in 16 bits, so these are the only two conversions the backends need.
#pragma once

#include <bit>
#include <cstdint>

namespace scn::lowp {

// bf16 is the top half of an f32: widening is exact.
inline float bf16ToF32(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

inline uint16_t f32ToBf16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return uint16_t(((bits >> 16) & 0x8000u) | 0x7fc0u);
  // Adding 0x7fff plus the kept lowest bit rounds the dropped half to nearest, ties to even;
  // a carry out of the mantissa correctly bumps the exponent (up to infinity).
  uint32_t keptLowBit = (bits >> 16) & 1u;
  return uint16_t((bits + 0x7fffu + keptLowBit) >> 16);
}

// IEEE binary16: 5 exponent bits (bias 15), 10 mantissa bits. Every f16 is exact in f32.
inline float f16ToF32(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in f32
    float magnitude = float(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline uint16_t f32ToF16(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;      // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;     // >= 65520 (ties to even) -> inf
  if (magnitude >= 0x38800000u) {                          // normal f16 (>= 2^-14)
    uint32_t rebased = magnitude - 0x38000000u;            // exponent bias 127 -> 15
    uint32_t keptLowBit = (rebased >> 13) & 1u;
    return sign | uint16_t((rebased + 0xfffu + keptLowBit) >> 13);
  }
  if (magnitude < 0x33000000u) return sign;                // below 2^-25: rounds to zero
  // Subnormal f16: units of 2^-24. The f32 value is fullMantissa * 2^(exponent - 150).
  uint32_t exponent = magnitude >> 23;
  uint32_t fullMantissa = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exponent;  // 14..24
  uint32_t result = fullMantissa >> shift;
  uint32_t dropped = fullMantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (dropped > half || (dropped == half && (result & 1u))) ++result;  // may reach 2^-14: fine
  return sign | uint16_t(result);
}

}  // namespace scn::lowp
