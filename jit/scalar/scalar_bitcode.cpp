// jit/scalar/scalar.inc for the CPU backend: compiled by clang-19 to LLVM bitcode at build time
// (CMakeLists.txt), never by the host compiler. The functions keep their C++ names
// (_Z7scn_addff is scn_add(float, float)), which the emitter computes
// (Note [Scalar bitcode] in jit/cpu/llvm_scalar.cpp).
#include <math.h>
#include <stdint.h>

typedef int32_t i32;
typedef int64_t i64;
typedef uint32_t u32;
typedef uint64_t u64;
typedef float f32;
typedef double f64;
#define SCN_FN      // external, so that every function is in the bitcode
#define SCN_FN_SPEC
#include "jit/scalar/scalar.inc"
// bf16 / f16 as their bits: passed and returned as i16 (Note [Low-precision floats]).
struct bf16 { unsigned short bits; };
struct f16 { unsigned short bits; };
static inline u32 scn_bits_of_f32(f32 x) { return __builtin_bit_cast(u32, x); }
static inline f32 scn_f32_of_bits(u32 b) { return __builtin_bit_cast(f32, b); }
#include "jit/scalar/lowp.inc"
// The complex functions over parts with out-pointers (Note [Complex numbers]): _Z8scn_cmulffffPf.
#include "jit/scalar/complex.inc"

// Every conversion, instantiated (the saturating ones are explicit specializations above).
#define SCN_CVT_FROM(To, From) template To scn_cvt<To, From>(From);
#define SCN_CVT_TO(To)                                                                       \
  SCN_CVT_FROM(To, bool) SCN_CVT_FROM(To, i32) SCN_CVT_FROM(To, i64) SCN_CVT_FROM(To, u32)   \
  SCN_CVT_FROM(To, u64) SCN_CVT_FROM(To, f32) SCN_CVT_FROM(To, f64)
SCN_CVT_TO(bool)
SCN_CVT_TO(i32)
SCN_CVT_TO(i64)
SCN_CVT_TO(u32)
SCN_CVT_TO(u64)
SCN_CVT_TO(f32)
SCN_CVT_TO(f64)
