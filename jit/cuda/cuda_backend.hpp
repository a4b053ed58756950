// The CUDA backend: kernel IR printed as CUDA C++, NVRTC to PTX, launched through the driver API.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "jit/disk_cache.hpp"
#include "jit/backend.hpp"

namespace scn::cuda {

/// Choices of the CUDA backend.
struct CudaOptions {
  /// The architecture to compile for ("sm_90"); "" = the device's own (see archForDevice).
  std::string arch;
  /// f32 GEMMs may use TF32 tensor cores (about 10 mantissa bits). Off by default: f32 matmul is
  /// computed in f32. $SCN_CUDA_TF32=1 also turns it on.
  bool tf32 = false;
  /// Directory of the PTX cache; "" = PtxCache::defaultDir(). "-" disables the cache.
  std::string cacheDir;
  /// The most bytes the PTX cache keeps (Note [Cache eviction] in jit/disk_cache.cpp).
  uint64_t cacheMaxBytes = kDefaultCacheMaxBytes;
  /// Polled by loops issued from the host (StepOptions::interrupt); owned by the caller.
  const std::atomic<int32_t>* interrupt = nullptr;
};

/// A Backend running on the first CUDA device, or null with *whyNot saying what is missing
/// ("the CUDA driver (libcuda.so.1) was not found: ...", "no CUDA device: ..."). Never throws
/// for a missing driver or device.
std::unique_ptr<Backend> makeCudaBackend(std::string* whyNot, const CudaOptions& opts = {});

/// Whether makeCudaBackend would succeed (the driver loads and sees a device).
bool cudaUsable(std::string* whyNot = nullptr);

/// "NVIDIA H200 (sm_90, 139.8 GiB, driver 13.0)", or why there is no device.
std::string cudaDeviceDescription();

}  // namespace scn::cuda
