// Tables of the scalar semantics (jit/scalar/scalar.inc) the interpreter and both JITs share.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "jit/scalar.hpp"

namespace scn {
namespace {

// The ops by name, through the interpreter's dispatch (scalar.inc's functions by op).
namespace s {
using scalar::binary, scalar::unary, scalar::compare, scalar::convert, scalar::combinerOf,
    scalar::identityOf, scalar::isNan;
#define SCN_TEST_BINARY(fn, op) \
  template <typename T> T fn(T a, T b) { return binary<T>(Op::op, a, b); }
#define SCN_TEST_UNARY(fn, op) \
  template <typename T> T fn(T x) { return unary<T>(Op::op, x); }
SCN_TEST_BINARY(add, Add) SCN_TEST_BINARY(sub, Sub) SCN_TEST_BINARY(mul, Mul)
SCN_TEST_BINARY(div, Div) SCN_TEST_BINARY(floorDiv, FloorDiv) SCN_TEST_BINARY(rem, Rem)
SCN_TEST_BINARY(pow, Pow) SCN_TEST_BINARY(max, Max) SCN_TEST_BINARY(min, Min)
SCN_TEST_BINARY(bitAnd, And) SCN_TEST_BINARY(bitXor, Xor) SCN_TEST_BINARY(shl, Shl)
SCN_TEST_BINARY(shr, Shr)
SCN_TEST_UNARY(neg, Neg) SCN_TEST_UNARY(abs, Abs) SCN_TEST_UNARY(logicalNot, Not)
SCN_TEST_UNARY(roundHalfEven, Round) SCN_TEST_UNARY(rsqrt, Rsqrt) SCN_TEST_UNARY(sigmoid, Sigmoid)
SCN_TEST_UNARY(sign, Sign) SCN_TEST_UNARY(erfinv, ErfInv) SCN_TEST_UNARY(digamma, Digamma)
SCN_TEST_UNARY(lgamma, Lgamma) SCN_TEST_BINARY(logaddexp, LogAddExp) SCN_TEST_BINARY(fmod, Fmod)
template <typename T> bool isInf(T x) { return scalar::predicate<T>(Op::IsInf, x); }
template <typename T> bool isFinite(T x) { return scalar::predicate<T>(Op::IsFinite, x); }
#undef SCN_TEST_BINARY
#undef SCN_TEST_UNARY
}  // namespace s
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(CoreScalar, IntegerArithmeticWraps) {
  EXPECT_EQ(s::add<int32_t>(kMax32, 1), kMin32);
  EXPECT_EQ(s::sub<int32_t>(kMin32, 1), kMax32);
  EXPECT_EQ(s::mul<int32_t>(65536, 65536), 0);
  EXPECT_EQ(s::mul<int32_t>(kMax32, 2), -2);
  EXPECT_EQ(s::neg<int32_t>(kMin32), kMin32);
  EXPECT_EQ(s::abs<int32_t>(kMin32), kMin32);
  EXPECT_EQ(s::add<uint32_t>(0xFFFFFFFFu, 2), 1u);
  EXPECT_EQ(s::sub<uint64_t>(0, 1), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(s::neg<uint32_t>(1), 0xFFFFFFFFu);
  EXPECT_EQ(s::add<int64_t>(std::numeric_limits<int64_t>::max(), 1), kMin64);
}

struct DivCase {
  int32_t a, b, div, floordiv, rem;
};

TEST(CoreScalar, IntegerDivisionSignsAndZero) {
  const DivCase cases[] = {
      {7, 2, 3, 3, 1},     {-7, 2, -3, -4, 1},  {7, -2, -3, -4, -1}, {-7, -2, 3, 3, -1},
      {6, 3, 2, 2, 0},     {-6, 3, -2, -2, 0},  {5, 0, 0, 0, 0},     {-5, 0, 0, 0, 0},
      {0, 0, 0, 0, 0},     {kMin32, -1, kMin32, kMin32, 0},          {1, kMin32, 0, -1, kMin32 + 1},
  };
  for (const DivCase& c : cases) {
    SCOPED_TRACE(std::to_string(c.a) + " op " + std::to_string(c.b));
    EXPECT_EQ(s::div(c.a, c.b), c.div);
    EXPECT_EQ(s::floorDiv(c.a, c.b), c.floordiv);
    EXPECT_EQ(s::rem(c.a, c.b), c.rem);
    if (c.b != 0 && !(c.a == kMin32 && c.b == -1)) {
      EXPECT_EQ(s::add(s::mul(s::floorDiv(c.a, c.b), c.b), s::rem(c.a, c.b)), c.a);  // a == (a//b)*b + a%b
    }
  }
  EXPECT_EQ(s::div<uint32_t>(7, 0), 0u);
  EXPECT_EQ(s::rem<uint32_t>(7, 0), 0u);
  EXPECT_EQ(s::floorDiv<uint64_t>(7, 2), 3u);
}

TEST(CoreScalar, FloatFloorDivAndRemFollowJnp) {
  EXPECT_EQ(s::floorDiv(7.0, 2.0), 3.0);
  EXPECT_EQ(s::floorDiv(-7.0, 2.0), -4.0);
  EXPECT_EQ(s::rem(-7.0, 2.0), 1.0);
  EXPECT_EQ(s::rem(7.0, -2.0), -1.0);
  EXPECT_EQ(s::rem(5.5, 2.0), 1.5);
  EXPECT_EQ(s::rem(-5.5, 2.0), 0.5);
  EXPECT_FALSE(std::signbit(s::rem(4.0, -2.0)));  // a zero keeps fmod's sign, as jnp.remainder
  EXPECT_TRUE(std::signbit(s::rem(-4.0, 2.0)));
  EXPECT_EQ(s::floorDiv(-5.0, kInf), -1.0);  // jnp.floor_divide; floor(-5 / inf) would be -0.0
  EXPECT_EQ(s::rem(-5.0, kInf), kInf);
  EXPECT_TRUE(std::isnan(s::rem(1.0, 0.0)));
  EXPECT_EQ(s::floorDiv(1.0, 0.0), kInf);
  EXPECT_EQ(s::div(1.0f, 4.0f), 0.25f);
}

TEST(CoreScalar, IntegerPow) {
  EXPECT_EQ(s::pow<int32_t>(3, 4), 81);
  EXPECT_EQ(s::pow<int32_t>(-2, 3), -8);
  EXPECT_EQ(s::pow<int32_t>(5, 0), 1);
  EXPECT_EQ(s::pow<int32_t>(0, 0), 1);
  EXPECT_EQ(s::pow<int32_t>(2, 31), kMin32);  // wraps
  EXPECT_EQ(s::pow<int32_t>(2, 32), 0);
  EXPECT_EQ(s::pow<int32_t>(2, -1), 0);
  EXPECT_EQ(s::pow<int32_t>(1, -5), 1);
  EXPECT_EQ(s::pow<int32_t>(-1, -5), -1);
  EXPECT_EQ(s::pow<int32_t>(-1, -4), 1);
  EXPECT_EQ(s::pow<int32_t>(0, -1), 0);
  EXPECT_EQ(s::pow<uint64_t>(10, 19), 10000000000000000000ull);
  EXPECT_EQ(s::pow(2.0, 0.5), std::sqrt(2.0));
}

TEST(CoreScalar, Shifts) {
  EXPECT_EQ(s::shl<int32_t>(1, 31), kMin32);
  EXPECT_EQ(s::shl<int32_t>(1, 32), 0);
  EXPECT_EQ(s::shl<int32_t>(1, -1), 0);
  EXPECT_EQ(s::shl<uint32_t>(3, 1), 6u);
  EXPECT_EQ(s::shr<int32_t>(-8, 1), -4);  // arithmetic
  EXPECT_EQ(s::shr<int32_t>(-8, 40), -1);
  EXPECT_EQ(s::shr<int32_t>(8, 40), 0);
  EXPECT_EQ(s::shr<uint32_t>(0x80000000u, 31), 1u);  // logical
  EXPECT_EQ(s::shr<uint32_t>(0x80000000u, 32), 0u);
  EXPECT_EQ(s::shr<int64_t>(kMin64, 63), -1);
}

TEST(CoreScalar, MaxMinPropagateNaN) {
  EXPECT_TRUE(std::isnan(s::max(kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(s::max(1.0, kNaN)));
  EXPECT_TRUE(std::isnan(s::min(kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(s::min(1.0f, std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(s::max(1.0, 2.0), 2.0);
  EXPECT_EQ(s::min(-kInf, 2.0), -kInf);
  EXPECT_FALSE(std::signbit(s::max(-0.0, 0.0)));
  EXPECT_FALSE(std::signbit(s::max(0.0, -0.0)));
  EXPECT_TRUE(std::signbit(s::min(0.0, -0.0)));
  EXPECT_EQ(s::max<int32_t>(-3, 2), 2);
  EXPECT_EQ(s::max<bool>(false, true), true);
  EXPECT_EQ(s::min<bool>(false, true), false);
}

TEST(CoreScalar, UnaryRules) {
  EXPECT_EQ(s::sign(-2.5), -1.0);
  EXPECT_EQ(s::sign(0.0), 0.0);
  EXPECT_TRUE(std::signbit(s::sign(-0.0)));
  EXPECT_TRUE(std::isnan(s::sign(kNaN)));
  EXPECT_EQ(s::sign<int32_t>(-7), -1);
  EXPECT_EQ(s::sign<int32_t>(0), 0);
  EXPECT_EQ(s::sign<uint32_t>(9), 1u);
  const double halves[][2] = {{0.5, 0.0}, {1.5, 2.0}, {2.5, 2.0}, {-0.5, -0.0}, {-1.5, -2.0},
                              {-2.5, -2.0}, {2.4, 2.0}, {2.6, 3.0}, {-2.6, -3.0}, {1e300, 1e300}};
  for (auto& h : halves) {
    EXPECT_EQ(s::roundHalfEven(h[0]), h[1]) << h[0];
    EXPECT_EQ(std::signbit(s::roundHalfEven(h[0])), std::signbit(h[1])) << h[0];
  }
  EXPECT_EQ(s::roundHalfEven(2.5f), 2.0f);
  EXPECT_TRUE(std::isnan(s::roundHalfEven(kNaN)));
  EXPECT_EQ(s::roundHalfEven(-kInf), -kInf);
  EXPECT_EQ(s::sigmoid(0.0), 0.5);
  EXPECT_NEAR(s::sigmoid(2.0), 1.0 / (1.0 + std::exp(-2.0)), 1e-15);
  EXPECT_EQ(s::rsqrt(4.0f), 0.5f);
  EXPECT_EQ(s::logicalNot<bool>(true), false);
  EXPECT_EQ(s::logicalNot<int32_t>(0), -1);
  EXPECT_EQ(s::logicalNot<uint32_t>(0), 0xFFFFFFFFu);
  EXPECT_EQ(s::bitXor<bool>(true, true), false);
  EXPECT_EQ(s::bitAnd<int32_t>(6, 3), 2);
  EXPECT_TRUE(s::isNan(kNaN));
  EXPECT_FALSE(s::isNan(1.0f));
}

TEST(CoreScalar, Conversions) {
  EXPECT_EQ((s::convert<int32_t, double>(kNaN)), 0);
  EXPECT_EQ((s::convert<int32_t, double>(1e10)), kMax32);
  EXPECT_EQ((s::convert<int32_t, double>(-1e10)), kMin32);
  EXPECT_EQ((s::convert<int32_t, double>(kInf)), kMax32);
  EXPECT_EQ((s::convert<int32_t, double>(-2.9)), -2);
  EXPECT_EQ((s::convert<int32_t, double>(2.9)), 2);
  EXPECT_EQ((s::convert<int32_t, float>(2147483648.0f)), kMax32);
  EXPECT_EQ((s::convert<int32_t, double>(2147483647.0)), kMax32);
  EXPECT_EQ((s::convert<int64_t, double>(9.3e18)), std::numeric_limits<int64_t>::max());
  EXPECT_EQ((s::convert<int64_t, float>(-9.3e18f)), kMin64);
  EXPECT_EQ((s::convert<uint32_t, double>(-1.0)), 0u);
  EXPECT_EQ((s::convert<uint32_t, double>(-0.5)), 0u);
  EXPECT_EQ((s::convert<uint32_t, double>(5e9)), 0xFFFFFFFFu);
  EXPECT_EQ((s::convert<uint64_t, double>(1.8e19)), 18000000000000000000ull);
  EXPECT_EQ((s::convert<uint64_t, double>(2e19)), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ((s::convert<bool, double>(0.0)), false);
  EXPECT_EQ((s::convert<bool, double>(-0.0)), false);
  EXPECT_EQ((s::convert<bool, double>(0.25)), true);
  EXPECT_EQ((s::convert<bool, double>(kNaN)), true);
  EXPECT_EQ((s::convert<bool, int32_t>(256)), true);
  EXPECT_EQ((s::convert<float, bool>(true)), 1.0f);
  EXPECT_EQ((s::convert<int32_t, int64_t>(0x100000001ll)), 1);   // wraps
  EXPECT_EQ((s::convert<int32_t, uint32_t>(0xFFFFFFFFu)), -1);
  EXPECT_EQ((s::convert<uint32_t, int32_t>(-1)), 0xFFFFFFFFu);
  EXPECT_EQ((s::convert<float, double>(0.1)), 0.1f);
}

TEST(CoreScalar, CompareFollowsIeee) {
  EXPECT_FALSE(s::compare(Op::Eq, kNaN, kNaN));
  EXPECT_TRUE(s::compare(Op::Ne, kNaN, kNaN));
  EXPECT_FALSE(s::compare(Op::Lt, kNaN, 1.0));
  EXPECT_FALSE(s::compare(Op::Ge, kNaN, 1.0));
  EXPECT_TRUE(s::compare(Op::Eq, 0.0, -0.0));
  EXPECT_TRUE(s::compare<int32_t>(Op::Le, -1, -1));
  EXPECT_TRUE(s::compare<uint32_t>(Op::Gt, 0xFFFFFFFFu, 0u));
}

TEST(CoreScalar, ReductionIdentities) {
  EXPECT_EQ(s::identityOf<float>(s::combinerOf(Op::ReduceMax)), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(s::identityOf<int32_t>(s::combinerOf(Op::ReduceMin)), kMax32);
  EXPECT_EQ(s::identityOf<bool>(s::combinerOf(Op::ReduceAnd)), true);
  EXPECT_EQ(s::identityOf<int32_t>(s::combinerOf(Op::ReduceAnd)), -1);
  EXPECT_EQ(s::identityOf<double>(s::combinerOf(Op::CumProd)), 1.0);
  EXPECT_EQ(s::identityOf<uint64_t>(s::combinerOf(Op::ReduceSum)), 0u);
}

TEST(CoreScalar, MisuseIsAnInternalError) {
  EXPECT_THROW(s::binary<bool>(Op::Add, true, true), UserError);
  EXPECT_THROW(s::unary<float>(Op::Add, 1.0f), UserError);
}

// Note [erfinv] in scalar.inc: f64 values from SciPy (special.erfinv, within an ulp of the exact
// value; the relative bound is 4 ulps), including the tails where erf(x) is within 2^-53 of 1.
TEST(CoreScalar, ErfInvF64) {
  const std::pair<double, double> cases[] = {
      {0.5, 0.4769362762044699},         {-0.3, -0.2724627147267544},
      {0.9, 1.1630871536766743},         {0.999999, 3.458910737275499},
      {1e-300, 8.86226925452758e-301},   {1 - 1e-12, 5.042031898572696},
      {1 - 0x1p-52, 5.805018683193453},  {-1 + 0x1p-53, -5.8635847487551676},
  };
  for (auto [y, x] : cases) EXPECT_NEAR(s::erfinv<double>(y), x, 4 * std::abs(x) * 0x1p-52) << y;
  EXPECT_EQ(s::erfinv<double>(1.0), kInf);
  EXPECT_EQ(s::erfinv<double>(-1.0), -kInf);
  EXPECT_TRUE(std::isnan(s::erfinv<double>(1.0000001)));
  EXPECT_TRUE(std::isnan(s::erfinv<double>(kNaN)));
  EXPECT_TRUE(std::signbit(s::erfinv<double>(-0.0)));
}

// f32 is Giles' polynomial as XLA's: the values jax.scipy.special.erfinv gives, to an ulp (in
// the tail a few ulps from the exact -2.32675633 of f32(-0.999), as JAX's are).
TEST(CoreScalar, ErfInvF32) {
  EXPECT_NEAR(s::erfinv<float>(0.5f), 0.47693628f, 0x1p-24f);
  EXPECT_NEAR(s::erfinv<float>(-0.999f), -2.3267577f, 0x1p-22f);
  EXPECT_EQ(s::erfinv<float>(1.0f), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(s::erfinv<float>(-1.5f)));
  EXPECT_TRUE(std::signbit(s::erfinv<float>(-0.0f)));
}

// Note [digamma]: values from mpmath; NaN at zeros and the negative integers, as JAX.
TEST(CoreScalar, Digamma) {
  const std::pair<double, double> cases[] = {
      {1.0, -0.5772156649015329},  {0.5, -1.9635100260214235}, {-0.5, 0.03648997397857652},
      {-100.5, 4.6151246013380645}, {10.0, 2.251752589066721},  {1e6, 13.815510057964191},
      {1e-30, -1e30},               {1e300, 690.7755278982137}, {-1e10 + 0.5, 23.025850929940457},
      {-1e-30, 1e30},               {-2.5, 1.1031566406452432},
  };
  for (auto [x, psi] : cases) EXPECT_NEAR(s::digamma<double>(x), psi, 1e-14 * std::abs(psi)) << x;
  EXPECT_NEAR(s::digamma<double>(1.4616321449683622), 0.0, 1e-15);  // the positive root
  for (double x : {0.0, -0.0, -1.0, -7.0, -1e20, kNaN, -kInf}) EXPECT_TRUE(std::isnan(s::digamma<double>(x))) << x;
  EXPECT_EQ(s::digamma<double>(kInf), kInf);
  EXPECT_NEAR(s::digamma<float>(0.5f), -1.9635100f, 2e-7f);
}

// lgamma is libm's: log|Gamma|, +inf at the poles.
TEST(CoreScalar, Lgamma) {
  EXPECT_NEAR(s::lgamma<double>(0.5), 0.5723649429247001, 1e-15);
  EXPECT_NEAR(s::lgamma<double>(-0.5), 1.2655121234846454, 1e-15);
  EXPECT_EQ(s::lgamma<double>(1.0), 0.0);
  EXPECT_EQ(s::lgamma<double>(0.0), kInf);
  EXPECT_EQ(s::lgamma<double>(-3.0), kInf);
  EXPECT_EQ(s::lgamma<double>(-kInf), kInf);
}

TEST(CoreScalar, LogAddExpFmodAndInfinities) {
  EXPECT_EQ(s::logaddexp<double>(kInf, kInf), kInf);
  EXPECT_EQ(s::logaddexp<double>(-kInf, -kInf), -kInf);
  EXPECT_EQ(s::logaddexp<double>(kInf, -kInf), kInf);
  EXPECT_TRUE(std::isnan(s::logaddexp<double>(kNaN, 1.0)));
  EXPECT_NEAR(s::logaddexp<double>(1000.0, 1000.0), 1000.0 + std::log(2.0), 1e-12);
  EXPECT_EQ(s::fmod<double>(-7.0, 3.0), -1.0);
  EXPECT_TRUE(std::signbit(s::fmod<double>(-6.0, 3.0)));
  EXPECT_EQ(s::fmod<int32_t>(-7, 3), -1);
  EXPECT_EQ(s::fmod<int32_t>(7, 0), 0);
  EXPECT_EQ(s::fmod<int32_t>(kMin32, -1), 0);
  EXPECT_EQ(s::fmod<uint32_t>(7, 0), 0u);
  EXPECT_TRUE(s::isInf<float>(std::numeric_limits<float>::infinity()));
  EXPECT_FALSE(s::isInf<float>(std::numeric_limits<float>::max()));
  EXPECT_FALSE(s::isInf<double>(kNaN));
  EXPECT_FALSE(s::isFinite<double>(kNaN));
  EXPECT_TRUE(s::isFinite<double>(-std::numeric_limits<double>::max()));
}

}  // namespace
}  // namespace scn
