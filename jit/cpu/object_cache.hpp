// The persistent CPU object cache: compiled objects on disk, named by a hash of everything that
// decides their bytes, so a later process (or context) skips LLVM's code generation.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "jit/disk_cache.hpp"

#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace scn {
struct Diagnostic;
}

namespace scn::cpu {

/// An llvm::ObjectCache over a private directory of `<key>.o` files, where a module's key is
/// its identifier (set to objectKey() before the module is handed to the JIT). Every entry
/// carries a keyed hash of its key and bytes, checked before LLVM sees them (Note [Trusting
/// the object cache]); an entry that fails the check is removed and compiled afresh. Writes
/// are atomic (a unique temporary file, then a rename), so processes and threads may share the
/// directory. The entries take at most `maxBytes`, the least recently used going first (Note
/// [Cache eviction] in jit/disk_cache.cpp). An unusable directory only disables the cache,
/// with a warning; it is never an error.
class DiskObjectCache : public llvm::ObjectCache {
 public:
  /// Opens `dir`, creating it (and missing parents) private to the user. A directory that
  /// another user could write to is refused with a warning (E0411) to `warn`, one that cannot
  /// be made or used with E0430.
  DiskObjectCache(std::string dir, const std::function<void(const Diagnostic&)>& warn,
                  uint64_t maxBytes = kDefaultCacheMaxBytes);
  ~DiskObjectCache() override;
  DiskObjectCache(const DiskObjectCache&) = delete;
  DiskObjectCache& operator=(const DiskObjectCache&) = delete;

  bool enabled() const { return dirFd_ >= 0; }
  const std::string& dir() const { return dir_; }

  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module* m) override;
  void notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef obj) override;

  /// Objects found on disk so far (each one a code generation skipped).
  int hits() const { return hits_.load(); }
  /// Entries refused so far (damaged, forged, for another key, not a regular file) and removed.
  int rejected() const { return rejected_.load(); }
  /// Entries this cache evicted so far to stay under its cap.
  int evicted() const { return evicted_.load(); }

  using Tag = std::array<uint8_t, 32>;

 private:
  Tag tagOf(llvm::StringRef key, llvm::StringRef object) const;
  std::unique_ptr<llvm::MemoryBuffer> readVerified(int fd, const std::string& key) const;
  void reject(const std::string& file);

  std::string dir_;
  int dirFd_ = -1;  // the checked directory itself: later renames of its path cannot redirect us
  Tag secret_{};    // the per-user key of the tags (the file `key` in the directory)
  uint64_t maxBytes_;
  std::atomic<int> hits_{0}, rejected_{0}, evicted_{0};
};

/// The cache key of an optimised module: a hex SHA-256 of the cache format, scn's and LLVM's
/// versions, the target triple, CPU name and features, the opt level and the module's text.
std::string objectKey(const llvm::Module& m, const llvm::TargetMachine& tm, int optLevel);

}  // namespace scn::cpu
