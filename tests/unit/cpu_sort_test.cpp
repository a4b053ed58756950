// The CPU runtime's radix sort (jit/cpu/sort.cpp) against std::stable_sort on orderedKey, on random
// keys of every dtype with many ties, NaNs and signed zeros, at lengths around its thresholds
// (the std::stable_sort cut-off, the parallel cut-off) and for one row, a few and many rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "jit/cpu/runtime.hpp"
#include "jit/cpu/sort.hpp"
#include "jit/sort_keys.hpp"

namespace scn::cpu {
namespace {

template <typename T>
DType dispatchKeyType() {
  if constexpr (std::is_same_v<T, float>) return DType::F32;
  else if constexpr (std::is_same_v<T, double>) return DType::F64;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::I64;
  else if constexpr (std::is_same_v<T, uint32_t>) return DType::U32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DType::U64;
  else return DType::Bool;
}

/// Keys are stored as T, bool as one byte (std::vector<bool> packs bits).
template <typename T>
using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <typename T>
std::vector<Stored<T>> randomKeys(int64_t count, std::mt19937_64& rng) {
  std::vector<Stored<T>> v(count);
  std::uniform_int_distribution<int> pick(0, 15);
  for (Stored<T>& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      int c = pick(rng);
      x = c == 0 ? T(NAN) : c == 1 ? -T(NAN) : c == 2 ? T(-0.0) : c == 3 ? T(0.0) : c == 4 ? T(INFINITY)
          : c == 5 ? T(-INFINITY) : static_cast<T>(std::uniform_int_distribution<int>(-50, 50)(rng)) / 4;
    } else if constexpr (std::is_same_v<T, bool>) {
      x = pick(rng) & 1;
    } else {  // small values (skipped passes) and the whole range
      x = pick(rng) < 8 ? static_cast<T>(pick(rng)) : static_cast<T>(rng());
    }
  }
  return v;
}

template <typename T, typename P>
void expectStablePermutations(ThreadPool* pool, int64_t rows, int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Stored<T>> keys = randomKeys<T>(rows * n, rng);
  std::vector<P> perm(rows * n, P(-1));
  DType kt = dispatchKeyType<T>(), pt = sizeof(P) == 8 ? DType::I64 : DType::I32;
  sortRows(pool, kt, keys.data(), pt, perm.data(), rows, n);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<P> want(n);
    std::iota(want.begin(), want.end(), P(0));
    const Stored<T>* row = keys.data() + r * n;
    std::stable_sort(want.begin(), want.end(),
                     [&](P a, P b) { return orderedKey(static_cast<T>(row[a])) < orderedKey(static_cast<T>(row[b])); });
    ASSERT_TRUE(std::equal(want.begin(), want.end(), perm.begin() + r * n))
        << dtypeName(kt) << " rows=" << rows << " n=" << n << " row " << r;
  }
}

}  // namespace

TEST(CpuSort, OrderedKeyIsJaxsTotalOrder) {
  EXPECT_EQ(orderedKey(-0.0f), orderedKey(0.0f));
  EXPECT_EQ(orderedKey(NAN), orderedKey(-NAN));
  EXPECT_LT(orderedKey(INFINITY), orderedKey(NAN));
  EXPECT_LT(orderedKey(-INFINITY), orderedKey(-1e30f));
  EXPECT_LT(orderedKey(-1.0), orderedKey(-0.5));
  EXPECT_LT(orderedKey(int32_t{-1}), orderedKey(int32_t{0}));
  EXPECT_LT(orderedKey(INT64_MIN), orderedKey(INT64_MAX));
  EXPECT_LT(orderedKey(uint32_t{7}), orderedKey(UINT32_MAX));
  EXPECT_LT(orderedKey(false), orderedKey(true));
}

TEST(CpuSort, RadixSortMatchesStableSortAtEverySizeAndRowCount) {
  ThreadPool pool(2);
  uint64_t seed = 1;
  for (int64_t n : {int64_t{1}, int64_t{2}, kRadixSortMin - 1, kRadixSortMin, kRadixSortMin + 1, kParallelSortMin - 1,
                    kParallelSortMin, kParallelSortMin + 7, int64_t{100003}})
    for (int64_t rows : {int64_t{1}, int64_t{3}})
      for (ThreadPool* p : {&pool, static_cast<ThreadPool*>(nullptr)}) {
        expectStablePermutations<float, int32_t>(p, rows, n, seed++);
        expectStablePermutations<double, int32_t>(p, rows, n, seed++);
        expectStablePermutations<int32_t, int32_t>(p, rows, n, seed++);
        expectStablePermutations<int64_t, int64_t>(p, rows, n, seed++);
        expectStablePermutations<uint32_t, int32_t>(p, rows, n, seed++);
        expectStablePermutations<uint64_t, int32_t>(p, rows, n, seed++);
        expectStablePermutations<bool, int32_t>(p, rows, n, seed++);
      }
}

TEST(CpuSort, ManyShortRowsAndEmptyShapes) {
  ThreadPool pool(2);
  expectStablePermutations<float, int32_t>(&pool, 1000, 5, 7);
  expectStablePermutations<int32_t, int32_t>(&pool, 64, 300, 8);
  std::vector<int32_t> perm(1, 42);
  float key = 1;
  sortRows(&pool, DType::F32, &key, DType::I32, perm.data(), 0, 1);  // no rows: nothing written
  sortRows(&pool, DType::F32, &key, DType::I32, perm.data(), 1, 0);
  EXPECT_EQ(perm[0], 42);
}

}  // namespace scn::cpu
