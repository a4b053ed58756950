// bf16/f16 <-> f32 conversions (jit/lowp.hpp): every 16-bit pattern, and rounding on ties.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "jit/lowp.hpp"

namespace scn {
namespace {

float bitsToFloat(uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(Lowp, EveryBf16PatternRoundTripsThroughF32) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float wide = lowp::bf16ToF32(uint16_t(bits));
    uint16_t back = lowp::f32ToBf16(wide);
    if (std::isnan(wide)) {
      EXPECT_TRUE(std::isnan(lowp::bf16ToF32(back))) << bits;
      EXPECT_EQ(back & 0x8000u, bits & 0x8000u) << bits;
    } else {
      EXPECT_EQ(back, bits) << bits;
    }
  }
}

TEST(Lowp, EveryF16PatternRoundTripsThroughF32) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    float wide = lowp::f16ToF32(uint16_t(bits));
    uint16_t back = lowp::f32ToF16(wide);
    bool isNan = (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0;
    EXPECT_EQ(std::isnan(wide), isNan) << bits;
    if (isNan) {
      EXPECT_TRUE(std::isnan(lowp::f16ToF32(back))) << bits;
      EXPECT_EQ(back & 0x8000u, bits & 0x8000u) << bits;
    } else {
      EXPECT_EQ(back, bits) << bits;
    }
  }
}

TEST(Lowp, F16DecodesKnownValues) {
  EXPECT_EQ(lowp::f16ToF32(0x3c00), 1.0f);
  EXPECT_EQ(lowp::f16ToF32(0x7bff), 65504.0f);
  EXPECT_EQ(lowp::f16ToF32(0x0001), 0x1p-24f);
  EXPECT_EQ(lowp::f16ToF32(0x0400), 0x1p-14f);
  EXPECT_EQ(lowp::f16ToF32(0xc000), -2.0f);
  EXPECT_TRUE(std::isinf(lowp::f16ToF32(0x7c00)));
}

// Halfway between two neighbours rounds to the one with an even mantissa; just above goes up.
TEST(Lowp, Bf16RoundsTiesToEven) {
  EXPECT_EQ(lowp::f32ToBf16(bitsToFloat(0x3f808000u)), 0x3f80u);  // 1 + 2^-8: tie, down to even
  EXPECT_EQ(lowp::f32ToBf16(bitsToFloat(0x3f818000u)), 0x3f82u);  // tie above an odd: up
  EXPECT_EQ(lowp::f32ToBf16(bitsToFloat(0x3f808001u)), 0x3f81u);  // just above the tie: up
  EXPECT_EQ(lowp::f32ToBf16(bitsToFloat(0x3f807fffu)), 0x3f80u);  // just below: down
  EXPECT_EQ(lowp::f32ToBf16(bitsToFloat(0x7f7fffffu)), 0x7f80u);  // f32 max rounds to inf
  EXPECT_EQ(lowp::f32ToBf16(-INFINITY), 0xff80u);
  EXPECT_EQ(lowp::f32ToBf16(-NAN) & 0xffc0u, 0xffc0u);
}

TEST(Lowp, F16RoundsTiesToEvenAndOverflows) {
  EXPECT_EQ(lowp::f32ToF16(1.0f + 0x1p-11f), 0x3c00u);           // tie: down to even
  EXPECT_EQ(lowp::f32ToF16(1.0f + 3 * 0x1p-11f), 0x3c02u);       // tie above an odd: up
  EXPECT_EQ(lowp::f32ToF16(65519.0f), 0x7bffu);                  // below the tie: f16 max
  EXPECT_EQ(lowp::f32ToF16(65520.0f), 0x7c00u);                  // the tie: to inf (even)
  EXPECT_EQ(lowp::f32ToF16(0x1p-25f), 0x0000u);                  // tie with zero: zero
  EXPECT_EQ(lowp::f32ToF16(0x1p-25f * 1.5f), 0x0001u);           // above: smallest subnormal
  EXPECT_EQ(lowp::f32ToF16(3 * 0x1p-25f), 0x0002u);              // 1.5 units: tie up to even 2
  EXPECT_EQ(lowp::f32ToF16(0x1p-14f - 0x1p-26f), 0x0400u);       // rounds up to the min normal
  EXPECT_EQ(lowp::f32ToF16(-0.0f), 0x8000u);
  EXPECT_EQ(lowp::f32ToF16(NAN) & 0x7e00u, 0x7e00u);
}

}  // namespace
}  // namespace scn
