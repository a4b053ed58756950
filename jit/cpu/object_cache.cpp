// The persistent CPU object cache (Note [Object cache]).
#include "jit/cpu/object_cache.hpp"

#include <array>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

#ifndef SCN_VERSION
#define SCN_VERSION "0.0.0"
#endif

namespace scn::cpu {

// Note [Object cache]
// The key hashes the *optimised* module, not the kernel IR or the pre-optimisation module, so
// any change to the emitter or to the optimisation pipeline gives a new key without anyone
// having to remember to bump a version. What the text does not show is hashed beside it: the
// LLVM version (its code generator), the target triple, CPU and features (one machine's AVX-512
// object must not run on another's AVX2 cache dir), the opt level (codegen's own level), scn's
// version, and kFormat, to be bumped when the TargetMachine's options in llvm_jit.cpp change.
// The entry's name is derived from the kernel IR (cpu_backend.cpp), so the same function has
// the same symbol in every process. A hit skips instruction selection, register allocation and
// object emission (most of the compile time for small functions); the optimiser still runs,
// because its output is the key. A file that does not parse as an object is removed and
// counts as a miss. Nothing is ever evicted: the directory can be deleted at any time.
namespace {
constexpr const char* kFormat = "scn-cpu-object 1";
}

DiskObjectCache::DiskObjectCache(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) return;
  if (llvm::sys::fs::create_directories(dir_)) dir_.clear();  // unusable: no caching
}

std::string DiskObjectCache::path(const std::string& key) const { return dir_ + "/" + key + ".o"; }

std::unique_ptr<llvm::MemoryBuffer> DiskObjectCache::getObject(const llvm::Module* m) {
  if (dir_.empty()) return nullptr;
  std::string file = path(m->getModuleIdentifier());
  auto buf = llvm::MemoryBuffer::getFile(file, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf) return nullptr;
  // A file that is not an object (damaged on disk, or not written by us) would make the JIT
  // fail on every run: drop it, and the compile that follows writes a good one.
  auto obj = llvm::object::ObjectFile::createObjectFile((*buf)->getMemBufferRef());
  if (!obj) {
    llvm::consumeError(obj.takeError());
    llvm::sys::fs::remove(file);
    return nullptr;
  }
  ++hits_;
  return std::move(*buf);
}

void DiskObjectCache::notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef obj) {
  if (dir_.empty()) return;
  int fd = -1;
  llvm::SmallString<256> tmp;
  if (llvm::sys::fs::createUniqueFile(dir_ + "/%%%%%%%%%%%%.tmp", fd, tmp)) return;
  bool ok;
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out.write(obj.getBufferStart(), obj.getBufferSize());
    out.close();
    ok = !out.has_error();
    if (!ok) out.clear_error();
  }
  // A failed write leaves no entry: the next process compiles again.
  if (!ok || llvm::sys::fs::rename(tmp, path(m->getModuleIdentifier()))) llvm::sys::fs::remove(tmp);
}

std::string objectKey(const llvm::Module& m, const llvm::TargetMachine& tm, int optLevel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kFormat << "\nscn " << SCN_VERSION << "\nllvm " << LLVM_VERSION_STRING << "\n"
     << tm.getTargetTriple().str() << "\n" << tm.getTargetCPU() << "\n" << tm.getTargetFeatureString()
     << "\nO" << optLevel << "\n";
  m.print(os, nullptr);
  llvm::SHA256 h;
  h.update(os.str());
  std::array<uint8_t, 32> digest = h.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

}  // namespace scn::cpu
