// A caching allocator of device memory: freed blocks are kept by size and reused.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "jit/cuda/driver.hpp"

namespace scn::cuda {

// Note [Device pool]
// cuMemAlloc and cuMemFree synchronise the device and cost tens of microseconds, so a run never
// calls them once the pool is warm: blocks are rounded up to a size class (multiples of 512
// bytes up to 1 MiB, then of 1/8 of the next power of two) and a released block waits in its
// class's free list for the next request of that class. All work is ordered on one stream, so a
// block released after the launches that use it were *issued* can be handed to work issued
// later without a synchronisation. trim() returns the cached blocks to the driver (also done
// when an allocation fails, before retrying once).
class DevicePool {
 public:
  explicit DevicePool(const Driver& d) : d_(d) {}
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  /// A block of at least `bytes` (0 for bytes == 0); a UserError (E0423) when the GPU is full.
  CUdeviceptr alloc(size_t bytes);
  /// Returns a block from alloc(bytes) to its free list.
  void release(CUdeviceptr p, size_t bytes);
  /// Frees every cached block.
  void trim();

  /// The size class a request of `bytes` is served from.
  static size_t sizeClass(size_t bytes);
  size_t liveBytes() const { return live_; }
  size_t cachedBytes() const { return cached_; }
  size_t peakBytes() const { return peak_; }
  int driverAllocs() const { return driverAllocs_; }

 private:
  const Driver& d_;
  std::map<size_t, std::vector<CUdeviceptr>> free_;
  size_t live_ = 0, cached_ = 0, peak_ = 0;
  int driverAllocs_ = 0;
};

}  // namespace scn::cuda
