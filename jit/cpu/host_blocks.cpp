// Large host blocks: huge pages and recycling (see host_blocks.hpp).
#include "jit/cpu/host_blocks.hpp"

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>

#include <sys/mman.h>

#include "base/diagnostics.hpp"

namespace scn::cpu {

// Note [Huge-page temporaries]
// Every run allocates its temporaries and results afresh (results escape to the caller), and on
// Linux a large block is a fresh mmap whose first touch faults every 4 KiB page: on the 2-core VM
// this was ~5 us a page, 60% of W2's time at 10^7 elements and half of W3's. Blocks of 4 MiB
// and more are therefore 2 MiB-aligned and marked MADV_HUGEPAGE, so the kernel backs them with
// 2 MiB pages (measured: first touch of 40 MiB 26 ms -> 3.5 ms). The memory is wrapped in a
// borrowing Buffer whose owner hands it back, so arrays that keep a result keep it alive as usual.
//
// Note [Recycled blocks]
// Even with huge pages, a fresh block costs the kernel's zeroing of every page on first touch:
// ~1/3 of an elementwise map over 10^7 f32 (W2), whose result is a new 40 MB block each call.
// A program that calls a function in a loop drops each result before the next call, so a freed
// block is kept (already backed by pages) and handed to the next request of the same rounded
// size, as a caching allocator does. Bounds: blocks over half the limit are never kept (W3's
// 512 MiB result is freed as before), and the blocks kept total at most the limit (256 MiB by
// default, the oldest are freed first). Kept blocks are process memory no array uses: `:mem`
// and RunStats still count a run's buffers whether they were recycled or not.
namespace {

constexpr size_t kHugePage = size_t(2) << 20;

class Recycler {
 public:
  void* take(size_t rounded) {
    std::lock_guard<std::mutex> lock(m_);
    for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {  // the newest is the warmest
      if (it->bytes != rounded) continue;
      void* p = it->data;
      held_ -= rounded;
      blocks_.erase(std::next(it).base());
      return p;
    }
    return nullptr;
  }

  void give(void* p, size_t rounded) {
    std::lock_guard<std::mutex> lock(m_);
    if (rounded > limit_ / 2) {
      std::free(p);
      return;
    }
    blocks_.push_back({p, rounded});
    held_ += rounded;
    trim();
  }

  void setLimit(size_t bytes) {
    std::lock_guard<std::mutex> lock(m_);
    limit_ = bytes;
    trim();
  }

  size_t held() {
    std::lock_guard<std::mutex> lock(m_);
    return held_;
  }

 private:
  struct Block {
    void* data;
    size_t bytes;
  };
  void trim() {
    while (held_ > limit_) {
      std::free(blocks_.front().data);
      held_ -= blocks_.front().bytes;
      blocks_.pop_front();
    }
  }
  std::mutex m_;
  std::deque<Block> blocks_;
  size_t held_ = 0;
  size_t limit_ = kDefaultRecycleLimit;
};

/// Never destroyed: a result array may be freed during static destruction.
Recycler& recycler() {
  static Recycler* r = new Recycler;
  return *r;
}

}  // namespace

std::shared_ptr<Buffer> allocateRunBuffer(size_t bytes) {
  if (bytes < 2 * kHugePage) return std::make_shared<Buffer>(bytes);
  if (bytes > SIZE_MAX - kHugePage) fail("E0401", Span{}, "cannot allocate " + std::to_string(bytes) + " bytes");
  size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = recycler().take(rounded);
  if (!p) {
    p = std::aligned_alloc(kHugePage, rounded);
    if (!p) fail("E0401", Span{}, "cannot allocate " + std::to_string(bytes) + " bytes");
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP it is a normal mapping
  }
  return std::shared_ptr<Buffer>(new Buffer(Buffer::Borrow{}, p, bytes), [p, rounded](Buffer* b) {
    delete b;
    recycler().give(p, rounded);
  });
}

void setRecycleLimit(size_t bytes) { recycler().setLimit(bytes); }

size_t recycledBytes() { return recycler().held(); }

}  // namespace scn::cpu
