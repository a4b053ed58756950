// The caching device allocator (Note [Device pool]).
#include "jit/cuda/device_pool.hpp"

#include <algorithm>

namespace scn::cuda {

DevicePool::~DevicePool() { trim(); }

size_t DevicePool::sizeClass(size_t bytes) {
  if (bytes == 0) return 0;
  const size_t small = size_t{1} << 20;
  if (bytes <= small) return (bytes + 511) / 512 * 512;
  size_t pow2 = small;
  while (pow2 < bytes) pow2 <<= 1;
  size_t step = pow2 / 8;
  return (bytes + step - 1) / step * step;
}

CUdeviceptr DevicePool::alloc(size_t bytes) {
  size_t c = sizeClass(bytes);
  if (c == 0) return 0;
  auto it = free_.find(c);
  if (it != free_.end() && !it->second.empty()) {
    CUdeviceptr p = it->second.back();
    it->second.pop_back();
    cached_ -= c;
    live_ += c;
    peak_ = std::max(peak_, live_);
    return p;
  }
  CUdeviceptr p = 0;
  CUresult r = d_.memAlloc(&p, c);
  if (r == CUDA_ERROR_OUT_OF_MEMORY && cached_ > 0) {
    trim();
    r = d_.memAlloc(&p, c);
  }
  d_.check(r, "cuMemAlloc");
  ++driverAllocs_;
  live_ += c;
  peak_ = std::max(peak_, live_);
  return p;
}

void DevicePool::release(CUdeviceptr p, size_t bytes) {
  size_t c = sizeClass(bytes);
  if (c == 0 || p == 0) return;
  free_[c].push_back(p);
  live_ -= c;
  cached_ += c;
}

void DevicePool::trim() {
  for (auto& [c, blocks] : free_)
    for (CUdeviceptr p : blocks) d_.memFree(p);
  free_.clear();
  cached_ = 0;
}

}  // namespace scn::cuda
