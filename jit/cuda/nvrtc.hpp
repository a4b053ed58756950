// CUDA C++ -> PTX with NVRTC, and the persistent on-disk PTX cache.
#pragma once

#include "jit/disk_cache.hpp"
#include <cstdint>
#include <optional>
#include <string>

#include "jit/ir.hpp"

namespace scn::cuda {

/// The architecture PTX is generated for when no device says otherwise (an H100/H200).
inline constexpr const char* kDefaultArch = "sm_90";

/// How hard NVRTC optimises: Full for code that runs, Fast (-Ofc=max, about 8x quicker) for
/// code that is only checked, e.g. the test suite's every-op translation unit.
enum class PtxOpt : uint8_t { Full, Fast };

/// A directory of PTX files named by a hash of (NVRTC version, options, architecture, source).
/// Writes are atomic (temporary file + rename), so processes may share it; the files take at
/// most `maxBytes`, the least recently used going first (Note [Cache eviction] in
/// jit/disk_cache.cpp). An unusable directory only disables caching; it is never an error.
class PtxCache {
 public:
  /// dir: where the files go; "" disables the cache.
  explicit PtxCache(std::string dir, uint64_t maxBytes = kDefaultCacheMaxBytes);
  /// $SCN_CACHE_DIR, else $XDG_CACHE_HOME/scn, else ~/.cache/scn; "" when SCN_NO_CACHE is set
  /// or no home is known.
  static std::string defaultDir();
  /// The PTX stored under `key`, counting a hit or a miss.
  std::optional<std::string> get(const std::string& key);
  void put(const std::string& key, const std::string& ptx);
  const std::string& dir() const { return dir_; }
  int hits() const { return hits_; }
  int misses() const { return misses_; }

 private:
  std::string path(const std::string& key) const;
  std::string dir_;
  uint64_t maxBytes_;
  int hits_ = 0, misses_ = 0;
};

/// The result of one compile.
struct PtxResult {
  std::string ptx;
  bool cacheHit = false;
  double ms = 0;  // NVRTC time (0 on a hit)
};

/// "sm_90" (also "compute_90", "90", "9.0") -> the virtual architecture "compute_90" NVRTC
/// generates PTX for; a UserError (E0422) for anything else.
std::string virtualArch(const std::string& arch);

/// The architecture to compile for on a device of compute capability major.minor: the newest
/// one NVRTC supports that is not newer than the device (PTX runs on later devices).
std::string archForDevice(int major, int minor);

/// The NVRTC options used for every compile (see Note [NVRTC options] in nvrtc.cpp).
std::string nvrtcOptionsText(const std::string& arch, PtxOpt opt = PtxOpt::Full);

/// NVRTC's version as "13.0".
std::string nvrtcVersionString();

/// Compiles one translation unit to PTX for `arch`. Generated code that fails to compile is a
/// bug: an internal error whose text carries NVRTC's log. cache may be null.
PtxResult compilePtx(const std::string& source, const std::string& arch, PtxCache* cache,
                     const std::string& name = "scn.cu", PtxOpt opt = PtxOpt::Full);

/// Lowers, prints and compiles `f` (--emit=ptx); arch "" means kDefaultArch. Uses the default
/// cache directory. Needs no GPU.
std::string emitPtx(const FuncPtr& f, std::string arch = "");

}  // namespace scn::cuda
