// The CPU's sort routine: stable permutations of rows of keys by a parallel LSD radix sort
// (Note [Radix sort] in sort.cpp); the Sort step of the kernel IR calls it through scn_sort_rows.
#pragma once

#include <cstdint>

#include "jit/dtype.hpp"

namespace scn::cpu {

class ThreadPool;

/// For each of `rows` rows of n keys (row-major, dtype keyType), writes perm[r * n + j] = the
/// index within row r of its j-th key in sort's order (jit/sort_keys.hpp; stable). permType is
/// i32 or i64. Runs on the pool's threads (all on the caller when pool is null).
void sortRows(ThreadPool* pool, DType keyType, const void* keys, DType permType, void* perm, int64_t rows,
              int64_t n);

/// Rows at least this long are radix sorted (shorter ones by std::stable_sort).
inline constexpr int64_t kRadixSortMin = 256;
/// A single row at least this long is sorted by all threads together (shorter ones by one).
inline constexpr int64_t kParallelSortMin = 1 << 15;

}  // namespace scn::cpu
