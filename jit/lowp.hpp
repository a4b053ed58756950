// bf16 and f16 <-> f32 on the host, as 16-bit patterns: the conversions of jit/scalar/lowp.inc,
// the one definition every backend uses (Note [Low-precision floats] there).
#pragma once

#include <cstdint>

#include "jit/scalar.hpp"

namespace scn::lowp {

inline float bf16ToF32(uint16_t bits) { return ::scn_bf16_to_f32(bf16{bits}); }
inline uint16_t f32ToBf16(float value) { return ::scn_f32_to_bf16(value).bits; }
inline float f16ToF32(uint16_t bits) { return ::scn_f16_to_f32(f16{bits}); }
inline uint16_t f32ToF16(float value) { return ::scn_f32_to_f16(value).bits; }

}  // namespace scn::lowp
