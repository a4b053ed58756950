// The persistent CPU object cache: compiled objects on disk, named by a hash of everything that
// decides their bytes, so a later process (or context) skips LLVM's code generation.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace scn::cpu {

/// An llvm::ObjectCache over a directory of `<key>.o` files, where a module's key is its
/// identifier (set to objectKey() before the module is handed to the JIT). Writes are atomic
/// (a unique temporary file, then a rename), so processes and threads may share the directory.
/// An unusable directory only disables the cache; it is never an error.
class DiskObjectCache : public llvm::ObjectCache {
 public:
  explicit DiskObjectCache(std::string dir);
  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module* m) override;
  void notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef obj) override;

  /// Objects found on disk so far (each one a code generation skipped).
  int hits() const { return hits_.load(); }

 private:
  std::string path(const std::string& key) const;
  std::string dir_;
  std::atomic<int> hits_{0};
};

/// The cache key of an optimised module: a hex SHA-256 of the cache format, scn's and LLVM's
/// versions, the target triple, CPU name and features, the opt level and the module's text.
std::string objectKey(const llvm::Module& m, const llvm::TargetMachine& tm, int optLevel);

}  // namespace scn::cpu
