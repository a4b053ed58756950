// The CPU backend's thread pool (jit/cpu/runtime.cpp): every index of every call runs exactly
// once, whether the workers join a call, join it late or never wake for it (Note [Late workers]).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "jit/cpu/runtime.hpp"

namespace scn::cpu {
namespace {

// More threads than this machine's cores: workers often wake after the caller has taken every
// chunk, and skip that call; others join with chunks still left.
TEST(ThreadPool, EveryIndexRunsOnceInManyShortCalls) {
  ThreadPool pool(static_cast<int>(std::thread::hardware_concurrency()) + 3);
  std::vector<std::atomic<int>> counts(64);
  int64_t expected = 0;
  for (int call = 0; call < 20000; ++call) {
    int64_t n = 1 + call % 64;
    pool.parallelFor(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) counts[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed);
    });
    expected += n;
  }
  int64_t total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    int64_t callsCovering = 0;
    for (int call = 0; call < 20000; ++call) callsCovering += static_cast<int64_t>(i) < 1 + call % 64;
    EXPECT_EQ(counts[i].load(), callsCovering) << i;
    total += counts[i].load();
  }
  EXPECT_EQ(total, expected);
}

// A call returns only when the chunks the workers took are done: a slow chunk on a worker is
// waited for, and its writes are visible to the caller afterwards.
TEST(ThreadPool, ACallWaitsForTheChunksItsWorkersTook) {
  ThreadPool pool(4);
  for (int call = 0; call < 50; ++call) {
    std::vector<int> out(256, 0);
    pool.parallelFor(256, [&](int64_t b, int64_t e) {
      if (b == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
      for (int64_t i = b; i < e; ++i) out[static_cast<size_t>(i)] = call + 1;
    });
    for (int v : out) ASSERT_EQ(v, call + 1) << call;
  }
}

}  // namespace
}  // namespace scn::cpu
