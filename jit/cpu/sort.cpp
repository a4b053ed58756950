// Stable sort permutations of rows of keys: a parallel LSD radix sort over orderedKey, rows spread
// over the threads (Note [Radix sort]).
#include "jit/cpu/sort.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <vector>

#include "jit/cpu/runtime.hpp"
#include "jit/sort_keys.hpp"

namespace scn::cpu {

// Note [Radix sort]
// A row is sorted as (key, index) pairs, the key being orderedKey(x) (jit/sort_keys.hpp), an
// unsigned integer in sort's order. LSD radix sort is stable by construction: one pass per byte
// of the key, least significant first, each a counting sort that keeps the order of equal bytes;
// a pass whose byte is the same for every key (the high bytes of small integers, bool) is
// skipped. With several threads a pass cuts the row into parts (4 per thread, taken dynamically
// as in Note [Dynamic chunks]): each part counts its bytes, the counts are prefix-summed digit
// by digit and part by part (part p's elements with digit d go after those of parts < p), and
// each part scatters its elements to those offsets, so the result is the serial pass's. Many
// rows (a batched sort) go one row per task instead; a short row (< kRadixSortMin) is
// std::stable_sort on the keys, where a pass over 256 counters would cost more than it sorts.

namespace {

constexpr int kDigitBits = 8;
constexpr int kDigits = 1 << kDigitBits;

template <typename K>
int digitOf(K key, int pass) {
  return static_cast<int>((key >> (pass * kDigitBits)) & (kDigits - 1));
}

/// Runs body(part) for part in [0, parts) on the pool (inline without one).
template <typename F>
void forParts(ThreadPool* pool, int64_t parts, F&& body) {
  if (!pool || parts == 1) {
    for (int64_t p = 0; p < parts; ++p) body(p);
    return;
  }
  pool->parallelFor(parts, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) body(p);
  });
}

/// The LSD radix sort of one row of n keys into perm, on `parts` parts of the pool.
template <typename T, typename P>
void radixSortRow(ThreadPool* pool, int64_t parts, const T* keys, P* perm, int64_t n) {
  using K = OrderedKey<T>;
  using I = std::make_unsigned_t<P>;
  std::unique_ptr<K[]> ka(new K[n]), kb(new K[n]);
  std::unique_ptr<I[]> ia(new I[n]), ib(new I[n]);
  auto begin = [&](int64_t p) { return n * p / parts; };
  forParts(pool, parts, [&](int64_t p) {
    for (int64_t i = begin(p); i < begin(p + 1); ++i) {
      ka[i] = orderedKey(keys[i]);
      ia[i] = static_cast<I>(i);
    }
  });
  K* srcK = ka.get(), *dstK = kb.get();
  I* srcI = ia.get(), *dstI = ib.get();
  std::vector<std::array<int64_t, kDigits>> counts(parts);
  for (int pass = 0; pass < static_cast<int>(sizeof(K)); ++pass) {
    forParts(pool, parts, [&](int64_t p) {
      std::array<int64_t, kDigits>& c = counts[p];
      c.fill(0);
      for (int64_t i = begin(p); i < begin(p + 1); ++i) ++c[digitOf(srcK[i], pass)];
    });
    int64_t offset = 0;
    bool oneDigit = false;
    for (int d = 0; d < kDigits; ++d) {
      int64_t total = 0;
      for (int64_t p = 0; p < parts; ++p) {
        int64_t c = counts[p][d];
        counts[p][d] = offset;
        offset += c;
        total += c;
      }
      oneDigit = oneDigit || total == n;
    }
    if (oneDigit) continue;  // every key has this digit: the pass would move nothing
    forParts(pool, parts, [&](int64_t p) {
      std::array<int64_t, kDigits>& at = counts[p];
      for (int64_t i = begin(p); i < begin(p + 1); ++i) {
        int64_t to = at[digitOf(srcK[i], pass)]++;
        dstK[to] = srcK[i];
        dstI[to] = srcI[i];
      }
    });
    std::swap(srcK, dstK);
    std::swap(srcI, dstI);
  }
  forParts(pool, parts, [&](int64_t p) {
    for (int64_t i = begin(p); i < begin(p + 1); ++i) perm[i] = static_cast<P>(srcI[i]);
  });
}

template <typename T, typename P>
void stableSortRow(const T* keys, P* perm, int64_t n) {
  std::iota(perm, perm + n, P(0));
  std::stable_sort(perm, perm + n, [&](P a, P b) { return orderedKey(keys[a]) < orderedKey(keys[b]); });
}

template <typename T, typename P>
void sortRowSerial(const T* keys, P* perm, int64_t n) {
  if (n < kRadixSortMin) stableSortRow(keys, perm, n);
  else radixSortRow<T, P>(nullptr, 1, keys, perm, n);
}

template <typename T, typename P>
void sortRowsT(ThreadPool* pool, const T* keys, P* perm, int64_t rows, int64_t n) {
  int threads = pool ? pool->size() : 1;
  if (rows >= threads || n < kParallelSortMin) {
    auto body = [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) sortRowSerial(keys + r * n, perm + r * n, n);
    };
    if (pool) pool->parallelFor(rows, body);
    else body(0, rows);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) radixSortRow<T, P>(pool, 4 * threads, keys + r * n, perm + r * n, n);
}

}  // namespace

void sortRows(ThreadPool* pool, DType keyType, const void* keys, DType permType, void* perm, int64_t rows,
              int64_t n) {
  if (rows <= 0 || n <= 0) return;
  dispatchDType(keyType, [&]<typename T>() {
    const T* k = static_cast<const T*>(keys);
    if (permType == DType::I64) sortRowsT(pool, k, static_cast<int64_t*>(perm), rows, n);
    else sortRowsT(pool, k, static_cast<int32_t*>(perm), rows, n);
  });
}

}  // namespace scn::cpu

extern "C" void scn_sort_rows(scn::cpu::RuntimeCtx* ctx, int32_t keyType, const void* keys, int32_t permType,
                              void* perm, int64_t rows, int64_t n) {
  scn::cpu::sortRows(ctx ? ctx->pool : nullptr, static_cast<scn::DType>(keyType), keys,
                     static_cast<scn::DType>(permType), perm, rows, n);
}
