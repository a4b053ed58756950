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
// ---- single-pass scans (Note [Single-pass scans] in jit/kernel/lower_ops.cpp) ----
// scn_tile_scan<T, ITEMS>(value, store, comb, identity, rows, n, status): rows independent
// inclusive scans of n elements; value(row, p) gives element p, store(row, p, prefix) writes
// its prefix. Tiles of SCN_TILE_THREADS x ITEMS elements; status: the tile counter (word 0),
// then 3 words per tile (scn_tile_state), all zero at the launch.
#define SCN_TILE_THREADS 256
#define SCN_TILE_INVALID 0u
#define SCN_TILE_AGGREGATE 1u
#define SCN_TILE_INCLUSIVE 2u

// Values of at most 4 bytes as the low half of a packed status word.
SCN_FN u32 scn_bits32(bool v) { return v ? 1u : 0u; }
SCN_FN u32 scn_bits32(i32 v) { return (u32)v; }
SCN_FN u32 scn_bits32(u32 v) { return v; }
SCN_FN u32 scn_bits32(f32 v) { return (u32)__float_as_int(v); }
SCN_FN void scn_unbits32(u32 b, bool& v) { v = b != 0; }
SCN_FN void scn_unbits32(u32 b, i32& v) { v = (i32)b; }
SCN_FN void scn_unbits32(u32 b, u32& v) { v = b; }
SCN_FN void scn_unbits32(u32 b, f32& v) { v = __int_as_float((i32)b); }

// The status of tile t: word 1 + 3t. Up to 4 bytes: flag << 32 | value bits, one 64-bit access.
// 8 bytes: the flag word, then the aggregate (word + 1) and the inclusive prefix (word + 2), each
// written before its flag with a fence between (release) and read after it with a fence between
// (acquire); two slots so that a reader that saw "aggregate" never reads the inclusive value.
// Volatile accesses go to L2 (L1 is not coherent between SMs).
template <class T> struct scn_tile_state {
  u64* s;
  __device__ __forceinline__ void put(i64 t, u32 flag, T v) const {
    volatile u64* w = (volatile u64*)(s + 1 + 3 * t);
    if constexpr (sizeof(T) <= 4) {
      *w = ((u64)flag << 32) | (u64)scn_bits32(v);
    } else {
      *(volatile T*)(w + flag) = v;
      __threadfence();
      *w = (u64)flag;
    }
  }
  /// The flag of tile t and, when it is not SCN_TILE_INVALID, its value in v.
  __device__ __forceinline__ u32 get(i64 t, T& v) const {
    volatile u64* w = (volatile u64*)(s + 1 + 3 * t);
    const u64 x = *w;
    if constexpr (sizeof(T) <= 4) {
      scn_unbits32((u32)x, v);
      return (u32)(x >> 32);
    } else {
      const u32 flag = (u32)x;
      if (flag != SCN_TILE_INVALID) {
        __threadfence();
        v = *(volatile T*)(w + flag);
      }
      return flag;
    }
  }
};

#ifndef SCN_EMULATION
template <class T> SCN_FN T scn_shfl_up(T v, int d) { return __shfl_up_sync(0xffffffffu, v, d); }
SCN_FN bool scn_shfl_up(bool v, int d) { return __shfl_up_sync(0xffffffffu, (int)v, d) != 0; }
template <class T> SCN_FN T scn_shfl_down(T v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
SCN_FN bool scn_shfl_down(bool v, int d) { return __shfl_down_sync(0xffffffffu, (int)v, d) != 0; }
template <class T> SCN_FN T scn_shfl(T v, int l) { return __shfl_sync(0xffffffffu, v, l); }
SCN_FN bool scn_shfl(bool v, int l) { return __shfl_sync(0xffffffffu, (int)v, l) != 0; }

// Warp 0 of tile t (the k-th of its row, k > 0): the combination of every earlier tile of the
// row. Lane l reads tile w - l of the window ending at w; the warp waits until no lane of the
// window is invalid, combines the lanes up to the nearest inclusive prefix and stops there, or
// combines all 32 aggregates and moves the window back.
template <class T, class Comb>
SCN_FN T scn_look_back(const scn_tile_state<T>& st, i64 t, i64 k, const Comb& comb, T identity) {
  const int lane = threadIdx.x & 31;
  const i64 first = t - k;  // the row's first tile: published inclusive at once
  T prefix = identity;      // the tiles after the current window
  for (i64 w = t - 1;; w -= 32) {
    const i64 p = w - lane;
    u32 f = SCN_TILE_INCLUSIVE;  // lanes before the row: (inclusive, identity)
    T v = identity;
    for (;;) {
      if (p >= first) f = st.get(p, v);
      if (!__any_sync(0xffffffffu, f == SCN_TILE_INVALID)) break;
    }
    const unsigned incl = __ballot_sync(0xffffffffu, f == SCN_TILE_INCLUSIVE);
    const int last = incl ? __ffs(incl) - 1 : 31;
    if (lane > last) v = identity;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {  // lane 0 ends with the window, earlier tiles on the left
      const T earlier = scn_shfl_down(v, d);
      if (lane + d < 32) v = comb(earlier, v);
    }
    prefix = comb(scn_shfl(v, 0), prefix);
    if (incl) return prefix;
  }
}
#endif

template <class T, int ITEMS, class Value, class Store, class Comb>
SCN_FN void scn_tile_scan(const Value& value, const Store& store, const Comb& comb, T identity,
                          i64 rows, i64 n, u64* status) {
  constexpr int TILE = SCN_TILE_THREADS * ITEMS;
  const i64 perRow = (n + TILE - 1) / TILE, tiles = rows * perRow;
  const scn_tile_state<T> st{status};
#ifndef SCN_EMULATION
  __shared__ T sm[TILE + TILE / 32];  // a tile, padded against bank conflicts
  __shared__ T warpTotal[SCN_TILE_THREADS / 32];
  __shared__ T tilePrefix;
  __shared__ i64 tileId;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  for (;;) {
    if (tid == 0) tileId = (i64)atomicAdd((unsigned long long*)status, 1ull);
    __syncthreads();
    const i64 t = tileId;
    if (t >= tiles) return;
    const i64 row = t / perRow, k = t - row * perRow, base = k * TILE;
    const i64 count = n - base < TILE ? n - base : TILE;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {  // coalesced: consecutive threads, consecutive elements
      const int q = j * SCN_TILE_THREADS + tid;
      sm[q + q / 32] = q < count ? value(row, base + q) : identity;
    }
    __syncthreads();
    T x[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {  // each thread's ITEMS consecutive elements, scanned
      const int q = tid * ITEMS + j;
      x[j] = sm[q + q / 32];
      if (j > 0) x[j] = comb(x[j - 1], x[j]);
    }
    T inc = x[ITEMS - 1];  // the warp's inclusive scan of thread totals
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const T y = scn_shfl_up(inc, d);
      if (lane >= d) inc = comb(y, inc);
    }
    T exc = scn_shfl_up(inc, 1);
    if (lane == 0) exc = identity;
    if (lane == 31) warpTotal[warp] = inc;
    __syncthreads();
    T before = identity;  // the warps before this one
    for (int w = 0; w < warp; ++w) before = comb(before, warpTotal[w]);
    if (warp == 0) {
      T aggregate = warpTotal[0];
      for (int w = 1; w < SCN_TILE_THREADS / 32; ++w) aggregate = comb(aggregate, warpTotal[w]);
      T prefix = identity;
      if (k == 0) {
        if (lane == 0) st.put(t, SCN_TILE_INCLUSIVE, aggregate);
      } else {
        if (lane == 0) st.put(t, SCN_TILE_AGGREGATE, aggregate);
        prefix = scn_look_back(st, t, k, comb, identity);
        if (lane == 0) st.put(t, SCN_TILE_INCLUSIVE, comb(prefix, aggregate));
      }
      if (lane == 0) tilePrefix = prefix;
    }
    __syncthreads();
    const T pre = comb(comb(tilePrefix, before), exc);
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {  // back through shared memory for coalesced stores
      const int q = tid * ITEMS + j;
      sm[q + q / 32] = comb(pre, x[j]);
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const int q = j * SCN_TILE_THREADS + tid;
      if (q < count) store(row, base + q, sm[q + q / 32]);
    }
    __syncthreads();  // before the next tile reuses the shared memory
  }
#else
  // Note [Host emulation]: the whole grid in one call. Rounds of up to 64 virtual blocks: each
  // takes a tile and publishes its aggregate, then they look back and finish in reverse order,
  // so every look-back but the first of a round crosses aggregates (and windows, past 33).
  const i64 round = gridDim.x < 64 ? (i64)gridDim.x : 64;
  for (;;) {
    i64 ids[64];
    T aggs[64];
    i64 taken = 0;
    for (; taken < round; ++taken) {
      const i64 t = (i64)(*status)++;
      if (t >= tiles) break;
      const i64 row = t / perRow, k = t - row * perRow, base = k * TILE;
      const i64 count = n - base < TILE ? n - base : TILE;
      T a = identity;
      for (i64 q = 0; q < count; ++q) a = comb(a, value(row, base + q));
      st.put(t, k == 0 ? SCN_TILE_INCLUSIVE : SCN_TILE_AGGREGATE, a);
      ids[taken] = t;
      aggs[taken] = a;
    }
    for (i64 b = taken; b-- > 0;) {
      const i64 t = ids[b], row = t / perRow, k = t - row * perRow, base = k * TILE;
      const i64 count = n - base < TILE ? n - base : TILE;
      T prefix = identity;
      if (k > 0) {  // scn_look_back with the 32 lanes as a loop
        for (i64 w = t - 1;; w -= 32) {
          T v[32];
          unsigned incl = 0;
          for (int lane = 0; lane < 32; ++lane) {
            v[lane] = identity;
            u32 f = SCN_TILE_INCLUSIVE;
            if (w - lane >= t - k) f = st.get(w - lane, v[lane]);
            if (f == SCN_TILE_INVALID) __builtin_trap();  // this schedule never waits
            if (f == SCN_TILE_INCLUSIVE) incl |= 1u << lane;
          }
          const int last = incl ? __builtin_ctz(incl) : 31;
          T win = v[last];
          for (int lane = last; lane-- > 0;) win = comb(win, v[lane]);
          prefix = comb(win, prefix);
          if (incl) break;
        }
        st.put(t, SCN_TILE_INCLUSIVE, comb(prefix, aggs[b]));
      }
      T acc = prefix;
      for (i64 q = 0; q < count; ++q) {
        acc = comb(acc, value(row, base + q));
        store(row, base + q, acc);
      }
    }
    if (taken < round) return;
  }
#endif
}
// ---- end of prelude ----
)SCN_PRELUDE";

const char* cudaPrelude() { return kPrelude; }

}  // namespace scn::cuda
