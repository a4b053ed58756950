// The scalar-semantics prelude of generated CUDA C++: jit/scalar.hpp's rules as device functions.
#include "jit/cuda/cuda_source.hpp"

namespace scn::cuda {

// Note [CUDA prelude]
// Every generated translation unit starts with this text. It includes no header, so NVRTC
// compiles it with nothing but its built-in device math (sqrtf, expf, ...), and the host
// emulation (emulation.cpp) compiles the same text after defining __global__, __device__ and the
// few intrinsics used here. Each function mirrors one function of jit/scalar.hpp
// (Note [Scalar semantics]) and must stay bit-identical for integers; float formulas are the same
// (f32 in float, f64 in double; NVRTC runs with -fmad=false so a*b+c is never contracted).
// Ops are overloads on the operand type: the printer writes scn_add(a, b) and every operand has
// an exact C++ type (typed locals, loads and constants), so overload resolution never converts.
// Comparisons and select are printed as C++ operators (IEEE comparisons are what scalar.hpp does).
static const char* const kPrelude = R"SCN_PRELUDE(// ---- scn CUDA prelude (jit/cuda/prelude.cpp) ----
typedef int i32;
typedef long long i64;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef float f32;
typedef double f64;
#define SCN_FN static __device__ __forceinline__

// ---- index arithmetic (i64, never negative operands for / and %) ----
SCN_FN i64 scn_imin(i64 a, i64 b) { return a < b ? a : b; }
SCN_FN i64 scn_imax(i64 a, i64 b) { return a > b ? a : b; }

// ---- integer pow by squaring, wrapping (the unsigned type of each width) ----
#define SCN_UPOW(U, BITS)                                                                    \
  SCN_FN U scn_upow_##BITS(U base, U e) {                                                    \
    U r = 1;                                                                                 \
    while (e != 0) {                                                                         \
      if (e & 1u) r = (U)(r * base);                                                         \
      base = (U)(base * base);                                                               \
      e >>= 1;                                                                               \
    }                                                                                        \
    return r;                                                                                \
  }
SCN_UPOW(u32, 32)
SCN_UPOW(u64, 64)

// ---- integers: wrapping arithmetic through the unsigned type U of the same width ----
#define SCN_INT_COMMON(T, U, BITS)                                                           \
  SCN_FN T scn_neg(T x) { return (T)((U)0 - (U)x); }                                         \
  SCN_FN T scn_not(T x) { return (T)~x; }                                                    \
  SCN_FN T scn_add(T a, T b) { return (T)((U)a + (U)b); }                                    \
  SCN_FN T scn_sub(T a, T b) { return (T)((U)a - (U)b); }                                    \
  SCN_FN T scn_mul(T a, T b) { return (T)((U)a * (U)b); }                                    \
  SCN_FN T scn_max(T a, T b) { return a > b ? a : b; }                                       \
  SCN_FN T scn_min(T a, T b) { return a < b ? a : b; }                                       \
  SCN_FN T scn_and(T a, T b) { return (T)(a & b); }                                          \
  SCN_FN T scn_or(T a, T b) { return (T)(a | b); }                                           \
  SCN_FN T scn_xor(T a, T b) { return (T)(a ^ b); }                                          \
  SCN_FN T scn_shl(T a, T b) {                                                               \
    U c = (U)b;                                                                              \
    return c >= (U)BITS ? (T)0 : (T)((U)a << c);                                             \
  }

#define SCN_SIGNED(T, U, BITS)                                                               \
  SCN_INT_COMMON(T, U, BITS)                                                                 \
  SCN_FN T scn_abs(T x) { return x < 0 ? scn_neg(x) : x; }                                   \
  SCN_FN T scn_sign(T x) { return (T)((x > 0) - (x < 0)); }                                  \
  SCN_FN T scn_div(T a, T b) {                                                               \
    if (b == 0) return 0;                                                                    \
    if (b == -1) return scn_neg(a);                                                          \
    return (T)(a / b);                                                                       \
  }                                                                                          \
  SCN_FN T scn_floordiv(T a, T b) {                                                          \
    if (b == 0) return 0;                                                                    \
    if (b == -1) return scn_neg(a);                                                          \
    T q = (T)(a / b);                                                                        \
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;                                             \
    return q;                                                                                \
  }                                                                                          \
  SCN_FN T scn_rem(T a, T b) {                                                               \
    if (b == 0 || b == -1) return 0;                                                         \
    T r = (T)(a % b);                                                                        \
    if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b);                                      \
    return r;                                                                                \
  }                                                                                          \
  SCN_FN T scn_pow(T a, T b) {                                                               \
    if (b < 0) {                                                                             \
      if (a == 1) return 1;                                                                  \
      if (a == -1) return (b & 1) ? (T)-1 : (T)1;                                            \
      return 0;                                                                              \
    }                                                                                        \
    return (T)scn_upow_##BITS((U)a, (U)b);                                                   \
  }                                                                                          \
  SCN_FN T scn_shr(T a, T b) {                                                               \
    U c = (U)b;                                                                              \
    if (c >= (U)BITS) return a < 0 ? (T)-1 : (T)0;                                           \
    return (T)(a >> c);                                                                      \
  }

#define SCN_UNSIGNED(T, BITS)                                                                \
  SCN_FN T scn_abs(T x) { return x; }                                                        \
  SCN_FN T scn_sign(T x) { return (T)(x > 0); }                                              \
  SCN_FN T scn_div(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }                          \
  SCN_FN T scn_floordiv(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }                     \
  SCN_FN T scn_rem(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }                          \
  SCN_FN T scn_pow(T a, T b) { return scn_upow_##BITS(a, b); }                               \
  SCN_FN T scn_shr(T a, T b) { return b >= (T)BITS ? (T)0 : (T)(a >> b); }

SCN_INT_COMMON(u32, u32, 32)
SCN_UNSIGNED(u32, 32)
SCN_INT_COMMON(u64, u64, 64)
SCN_UNSIGNED(u64, 64)
SCN_SIGNED(i32, u32, 32)
SCN_SIGNED(i64, u64, 64)

// ---- bool: logical ops; max is or, min is and ----
SCN_FN bool scn_not(bool x) { return !x; }
SCN_FN bool scn_and(bool a, bool b) { return a && b; }
SCN_FN bool scn_or(bool a, bool b) { return a || b; }
SCN_FN bool scn_xor(bool a, bool b) { return a != b; }
SCN_FN bool scn_max(bool a, bool b) { return a || b; }
SCN_FN bool scn_min(bool a, bool b) { return a && b; }

// ---- floats: F is the libm suffix (f for float, empty for double); MAXV the largest finite ----
#define SCN_FLOAT(T, F, MAXV)                                                                \
  SCN_FN bool scn_signbit(T x) { return copysign##F((T)1, x) < 0; }                          \
  SCN_FN bool scn_isnan(T x) { return x != x; }                                              \
  SCN_FN T scn_neg(T x) { return -x; }                                                       \
  SCN_FN T scn_abs(T x) { return fabs##F(x); }                                               \
  SCN_FN T scn_sign(T x) { return x > 0 ? (T)1 : x < 0 ? (T)-1 : x; }                        \
  SCN_FN T scn_floor(T x) { return floor##F(x); }                                            \
  SCN_FN T scn_ceil(T x) { return ceil##F(x); }                                              \
  SCN_FN T scn_round(T x) {                                                                  \
    T r = floor##F(x);                                                                       \
    T d = x - r;                                                                             \
    if (d > (T)0.5 || (d == (T)0.5 && fmod##F(r, (T)2) != 0)) r += 1;                       \
    return (r != r || fabs##F(x) > MAXV) ? x : copysign##F(r, x);                            \
  }                                                                                          \
  SCN_FN T scn_sqrt(T x) { return sqrt##F(x); }                                              \
  SCN_FN T scn_rsqrt(T x) { return (T)1 / sqrt##F(x); }                                      \
  SCN_FN T scn_exp(T x) { return exp##F(x); }                                                \
  SCN_FN T scn_log(T x) { return log##F(x); }                                                \
  SCN_FN T scn_log1p(T x) { return log1p##F(x); }                                            \
  SCN_FN T scn_expm1(T x) { return expm1##F(x); }                                            \
  SCN_FN T scn_sin(T x) { return sin##F(x); }                                                \
  SCN_FN T scn_cos(T x) { return cos##F(x); }                                                \
  SCN_FN T scn_tan(T x) { return tan##F(x); }                                                \
  SCN_FN T scn_tanh(T x) { return tanh##F(x); }                                              \
  SCN_FN T scn_sigmoid(T x) { return (T)1 / ((T)1 + exp##F(-x)); }                           \
  SCN_FN T scn_add(T a, T b) { return a + b; }                                               \
  SCN_FN T scn_sub(T a, T b) { return a - b; }                                               \
  SCN_FN T scn_mul(T a, T b) { return a * b; }                                               \
  SCN_FN T scn_div(T a, T b) { return a / b; }                                               \
  SCN_FN T scn_floordiv(T a, T b) { return floor##F(a / b); }                                \
  SCN_FN T scn_rem(T a, T b) {                                                               \
    T r = fmod##F(a, b);                                                                     \
    if (r != 0) {                                                                            \
      if ((r < 0) != (b < 0)) r += b;                                                        \
    } else {                                                                                 \
      r = copysign##F((T)0, b);                                                              \
    }                                                                                        \
    return r;                                                                                \
  }                                                                                          \
  SCN_FN T scn_pow(T a, T b) { return pow##F(a, b); }                                        \
  SCN_FN T scn_max(T a, T b) {                                                               \
    if (a != a) return a;                                                                    \
    if (b != b) return b;                                                                    \
    if (a == b) return scn_signbit(a) ? b : a;                                               \
    return a > b ? a : b;                                                                    \
  }                                                                                          \
  SCN_FN T scn_min(T a, T b) {                                                               \
    if (a != a) return a;                                                                    \
    if (b != b) return b;                                                                    \
    if (a == b) return scn_signbit(a) ? a : b;                                               \
    return a < b ? a : b;                                                                    \
  }

SCN_FLOAT(f32, f, 0x1.fffffep+127f)
SCN_FLOAT(f64, , 0x1.fffffffffffffp+1023)

// ---- convert<To>(x): C++ conversion (integer wrap, to/from bool, rounding to float), except
// float -> integer: NaN -> 0, out of range saturates, else truncation ----
template <class To, class From> SCN_FN To scn_cvt(From x) { return (To)x; }
#define SCN_CVT_SAT(To, From, LO, HI, MINV, MAXV) /* explicit specialization: no static */    \
  template <> __device__ __forceinline__ To scn_cvt<To, From>(From x) {                                          \
    if (x != x) return 0;                                                                    \
    if (x < (From)(LO)) return MINV;                                                         \
    if (x >= (From)(HI)) return MAXV;                                                        \
    return (To)x;                                                                            \
  }
#define SCN_CVT_SAT_FROM(From)                                                               \
  SCN_CVT_SAT(i32, From, -2147483648.0, 2147483648.0, (i32)(-2147483647 - 1), 2147483647)    \
  SCN_CVT_SAT(u32, From, 0.0, 4294967296.0, 0u, 4294967295u)                                 \
  SCN_CVT_SAT(i64, From, -9223372036854775808.0, 9223372036854775808.0,                      \
              (i64)(-9223372036854775807LL - 1), 9223372036854775807LL)                      \
  SCN_CVT_SAT(u64, From, 0.0, 18446744073709551616.0, 0ull, 18446744073709551615ull)
SCN_CVT_SAT_FROM(f32)
SCN_CVT_SAT_FROM(f64)

// ---- float constants that have no literal (inf, nan): from their bits ----
SCN_FN f32 scn_f32_bits(u32 b) { return __int_as_float((i32)b); }
SCN_FN f64 scn_f64_bits(u64 b) { return __longlong_as_double((i64)b); }
// ---- end of prelude ----
)SCN_PRELUDE";

const char* cudaPrelude() { return kPrelude; }

}  // namespace scn::cuda
