// The prelude of generated CUDA C++: the scalar functions of jit/scalar/scalar.inc as device
// functions, then constants and the single-pass scan.
#include <string>

#include "jit/cuda/cuda_source.hpp"
#include "jit/scalar/scalar_text.hpp"

namespace scn::cuda {

// Note [CUDA prelude]
// Every generated translation unit starts with this text. It includes no header, so NVRTC
// compiles it with nothing but its built-in device math (sqrtf, expf, ...), and the host
// emulation (emulation.cpp) compiles the same text after defining __global__, __device__ and the
// few intrinsics used here. The scalar functions are jit/scalar/scalar.inc itself, the one
// definition the interpreter and the CPU backend use too (Note [Scalar semantics]), so integers
// are bit-identical and float formulas the same (NVRTC runs with -fmad=false).
// Ops are overloads on the operand type: the printer writes scn_add(a, b) and every operand has
// an exact C++ type (typed locals, loads and constants), so overload resolution never converts.
// Comparisons are scn_eq, scn_lt, ... too (the IEEE comparisons of scalar.inc); select is the
// C++ conditional.
static const char* const kPreludeHead = R"SCN_PRELUDE(// ---- scn CUDA prelude (jit/cuda/prelude.cpp) ----
typedef int i32;
typedef long long i64;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef float f32;
typedef double f64;
#define SCN_FN static __device__ __forceinline__
#define SCN_FN_SPEC __device__ __forceinline__
)SCN_PRELUDE";

// After the scalar functions (jit/scalar/scalar.inc): constants, and the single-pass scans.
static const char* const kPreludeTail = R"SCN_PRELUDE(
// ---- float constants that have no literal (inf, nan): from their bits ----
SCN_FN f32 scn_f32_bits(u32 b) { return __int_as_float((i32)b); }
SCN_FN f64 scn_f64_bits(u64 b) { return __longlong_as_double((i64)b); }
// ---- the atomic adds of a parallel scatter-add (Note [Scatter kernels], lower_gather.cpp) ----
#ifdef SCN_EMULATION
template <class T> SCN_FN void scn_atomic_add(T* p, T v) { *p = scn_add(*p, v); }  // one thread at a time
#else
SCN_FN void scn_atomic_add(i32* p, i32 v) { atomicAdd(p, v); }
SCN_FN void scn_atomic_add(u32* p, u32 v) { atomicAdd(p, v); }
SCN_FN void scn_atomic_add(i64* p, i64 v) { atomicAdd((u64*)p, (u64)v); }  // two's complement
SCN_FN void scn_atomic_add(u64* p, u64 v) { atomicAdd(p, v); }
SCN_FN void scn_atomic_add(f32* p, f32 v) { atomicAdd(p, v); }
SCN_FN void scn_atomic_add(f64* p, f64 v) { atomicAdd(p, v); }
#endif
// ---- single-pass scans (Note [Single-pass scans] in jit/kernel/lower_scan.cpp) ----
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

// Complex elements (Note [Complex numbers] in jit/scalar/complex.inc): the structs of the
// interpreter's layout, aligned as float2 / double2 so that a load is one vector access, then
// complex.inc and complex_ops.inc, then the conversions the printer writes for a Convert with a
// complex side: scn_to_c64(x) / scn_to_c128(x) to complex, scn_nonzero(z) to bool, and
// scn_cvt<To>(scn_real(z)) to the other real dtypes.
static const char* const kComplexHead = R"SCN_PRELUDE(
struct alignas(8) c64 { f32 re, im; };
struct alignas(16) c128 { f64 re, im; };
)SCN_PRELUDE";
static const char* const kComplexTail = R"SCN_PRELUDE(
template <class From> SCN_FN c64 scn_to_c64(From x) { return scn_make_c64(scn_cvt<f32>(x), 0.0f); }
SCN_FN c64 scn_to_c64(c64 x) { return x; }
SCN_FN c64 scn_to_c64(c128 x) { return scn_make_c64((f32)x.re, (f32)x.im); }
template <class From> SCN_FN c128 scn_to_c128(From x) { return scn_make_c128(scn_cvt<f64>(x), 0.0); }
SCN_FN c128 scn_to_c128(c64 x) { return scn_make_c128((f64)x.re, (f64)x.im); }
SCN_FN c128 scn_to_c128(c128 x) { return x; }
SCN_FN bool scn_nonzero(c64 x) { return x.re != 0.0f || x.im != 0.0f; }
SCN_FN bool scn_nonzero(c128 x) { return x.re != 0.0 || x.im != 0.0; }
)SCN_PRELUDE";

// bf16 / f16 elements (Note [Low-precision floats] in jit/scalar/lowp.inc): structs of their bits
// (a load is one 16-bit access), the bit casts lowp.inc needs, then its conversions.
static const char* const kLowPrecisionHead = R"SCN_PRELUDE(
struct alignas(2) bf16 { unsigned short bits; };
struct alignas(2) f16 { unsigned short bits; };
SCN_FN u32 scn_bits_of_f32(f32 x) { return (u32)__float_as_int(x); }
SCN_FN f32 scn_f32_of_bits(u32 b) { return __int_as_float((i32)b); }
)SCN_PRELUDE";

const char* cudaPrelude() {
  static const std::string prelude = std::string(kPreludeHead) + scalarSourceText() + kLowPrecisionHead +
                                     lowPrecisionSourceText() + kComplexHead +
                                     complexSourceText() + complexOpsSourceText() + kComplexTail + kPreludeTail;
  return prelude.c_str();
}

}  // namespace scn::cuda
