// The persistent CPU object cache (Note [Object cache], Note [Trusting the object cache]).
#include "jit/cpu/object_cache.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

#include "base/diagnostics.hpp"

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
// version, and kFormat, to be bumped when the entry's layout or the TargetMachine's options in
// llvm_jit.cpp change. The entry's name is derived from the kernel IR (cpu_backend.cpp), so the
// same function has the same symbol in every process. A hit skips instruction selection,
// register allocation and object emission (most of the compile time for small functions); the
// optimiser still runs, because its output is the key. The directory stays under a size cap,
// the least recently used entries going first (Note [Cache eviction] in jit/disk_cache.cpp),
// and can be deleted at any time (`scn --cache-clear`).
//
// Note [Trusting the object cache]
// An entry is machine code that the JIT links and runs, so the directory is as sensitive as
// the scn binary itself. Three rules keep a planted or damaged entry from running:
// - The directory must be private: owned by the user and not writable by group or others, and
//   so must its parent be (whoever can write there can swap the directory). One that is not is
//   refused with warning E0411 and the cache is off; a missing one is created 0700. The check is
//   made on the opened directory, and every later access goes through that descriptor (openat,
//   renameat), so renaming paths afterwards cannot redirect reads or writes.
// - Each entry starts with a tag: HMAC-SHA256, under a per-user secret (the file `key`: 32
//   random bytes from getrandom, 0600), of the entry's key and its object bytes. The reader
//   checks the tag before LLVM sees a byte. A mismatch (damage, a torn write, an entry made by
//   someone without the secret, a correct object of another key renamed to this one) is a miss:
//   the entry is removed, counted (--stats: cache=rejected), and the compile that follows writes
//   a good one. Whoever can read the secret runs code as the user already.
// - Only a regular file of at most kMaxEntryBytes is read, opened with O_NOFOLLOW and
//   O_NONBLOCK: a symlink (to /dev/zero, to another user's file), a FIFO or a device is
//   rejected without a read that could block or never end.
namespace {

constexpr const char* kFormat = "scn-cpu-object 2";
constexpr const char* kSecretFile = "key";
constexpr size_t kTagBytes = sizeof(DiskObjectCache::Tag);
/// Far above any kernel's object (kilobytes); bounds what a bad entry can make us read.
constexpr off_t kMaxEntryBytes = off_t(256) << 20;

bool fillRandom(uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t got = getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool writeAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t put = ::write(fd, p, n);
    if (put < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

bool readAll(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;  // an error, or the file shrank under us
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

int openEntry(int dirFd, const std::string& name) {
  return ::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

/// Writes `parts` to a new private temporary file in the directory and renames it to `name`
/// (or links it, when `replace` is false, so an existing file wins). False on any failure;
/// the temporary file never stays behind.
bool publish(int dirFd, const std::string& name, std::initializer_list<llvm::StringRef> parts, bool replace) {
  uint8_t r[8];
  if (!fillRandom(r, sizeof r)) return false;
  std::string tmp = llvm::toHex(llvm::ArrayRef<uint8_t>(r, sizeof r), /*LowerCase=*/true) + ".tmp";
  int fd = ::openat(dirFd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = true;
  for (llvm::StringRef p : parts) ok = ok && writeAll(fd, p.data(), p.size());
  ok = ::close(fd) == 0 && ok;
  if (ok) {
    if (replace) ok = ::renameat(dirFd, tmp.c_str(), dirFd, name.c_str()) == 0;
    else ok = ::linkat(dirFd, tmp.c_str(), dirFd, name.c_str(), 0) == 0 || errno == EEXIST;
  }
  if (!ok || !replace) ::unlinkat(dirFd, tmp.c_str(), 0);
  return ok;
}

enum class SecretFile { Good, Missing, Bad };

/// Reads the secret: a regular file of the user's, readable by nobody else, of exactly one tag.
SecretFile readSecret(int dirFd, DiskObjectCache::Tag& secret) {
  int fd = openEntry(dirFd, kSecretFile);
  if (fd < 0) return errno == ENOENT ? SecretFile::Missing : SecretFile::Bad;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
            (st.st_mode & 077) == 0 && st.st_size == static_cast<off_t>(kTagBytes) &&
            readAll(fd, reinterpret_cast<char*>(secret.data()), kTagBytes);
  ::close(fd);
  return ok ? SecretFile::Good : SecretFile::Bad;
}

/// The directory's secret, made on first use. Two processes making it at once agree on the
/// first one linked into place; a bad file (wrong size or owner, readable by others) is
/// replaced, which only turns the entries made under it into misses.
bool loadSecret(int dirFd, DiskObjectCache::Tag& secret) {
  SecretFile state = readSecret(dirFd, secret);
  if (state == SecretFile::Good) return true;
  DiskObjectCache::Tag fresh;
  if (!fillRandom(fresh.data(), fresh.size())) return false;
  llvm::StringRef bytes(reinterpret_cast<const char*>(fresh.data()), fresh.size());
  if (!publish(dirFd, kSecretFile, {bytes}, /*replace=*/state == SecretFile::Bad)) return false;
  return readSecret(dirFd, secret) == SecretFile::Good;
}

/// Why the directory open as `fd` (`subject`: "it" or "its parent") is not private, or "".
std::string whyNotPrivate(int fd, const std::string& subject) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return subject + " cannot be examined";
  if (st.st_uid != ::geteuid()) return subject + " belongs to another user (uid " + std::to_string(st.st_uid) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return subject + " is writable by other users (mode " + mode + ")";
  }
  return "";
}

void warnRefused(const std::function<void(const Diagnostic&)>& warn, const std::string& dir,
                 const std::string& why) {
  if (!warn) return;
  Diagnostic d = makeDiagnostic("E0411", Span{}, "not using the compile cache directory \"" + dir + "\": " + why,
                                "others could put code there that scn would run as you; make the directory "
                                "and its parent yours and private (chmod 700), or use another cache directory");
  d.severity = Severity::Warning;
  warn(d);
}

void warnUnusable(const std::function<void(const Diagnostic&)>& warn, const std::string& dir,
                  const std::string& why) {
  if (!warn) return;
  Diagnostic d = makeDiagnostic("E0430", Span{}, "compile cache off: cannot use \"" + dir + "\": " + why);
  d.severity = Severity::Warning;
  warn(d);
}

}  // namespace

DiskObjectCache::DiskObjectCache(std::string dir, const std::function<void(const Diagnostic&)>& warn,
                                 uint64_t maxBytes)
    : dir_(std::move(dir)), maxBytes_(maxBytes) {
  if (dir_.empty()) return;
  if (std::error_code ec = llvm::sys::fs::create_directories(dir_, /*IgnoreExisting=*/true, llvm::sys::fs::owner_all)) {
    warnUnusable(warn, dir_, ec.message());
    return;
  }
  int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    warnUnusable(warn, dir_, std::strerror(errno));
    return;
  }
  std::string why = whyNotPrivate(fd, "it");
  if (why.empty()) {
    int parent = ::openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    why = parent < 0 ? "its parent cannot be opened" : whyNotPrivate(parent, "its parent");
    if (parent >= 0) ::close(parent);
  }
  if (!why.empty()) {
    warnRefused(warn, dir_, why);
    ::close(fd);
    return;
  }
  errno = 0;
  if (!loadSecret(fd, secret_)) {  // a read-only directory, say
    warnUnusable(warn, dir_, errno != 0 ? std::strerror(errno) : "its key file cannot be made");
    ::close(fd);
    return;
  }
  dirFd_ = fd;
}

DiskObjectCache::~DiskObjectCache() {
  if (dirFd_ >= 0) ::close(dirFd_);
}

DiskObjectCache::Tag DiskObjectCache::tagOf(llvm::StringRef key, llvm::StringRef object) const {
  // HMAC-SHA256 (RFC 2104) of "key\0object" under the directory's secret.
  std::array<uint8_t, 64> inner{}, outer{};
  for (size_t i = 0; i < inner.size(); ++i) {
    uint8_t k = i < secret_.size() ? secret_[i] : 0;
    inner[i] = k ^ 0x36;
    outer[i] = k ^ 0x5c;
  }
  llvm::SHA256 h;
  h.update(inner);
  h.update(key);
  h.update(llvm::StringRef("\0", 1));
  h.update(object);
  std::array<uint8_t, 32> innerDigest = h.final();
  llvm::SHA256 o;
  o.update(outer);
  o.update(innerDigest);
  return o.final();
}

std::unique_ptr<llvm::MemoryBuffer> DiskObjectCache::readVerified(int fd, const std::string& key) const {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= static_cast<off_t>(kTagBytes) ||
      st.st_size > kMaxEntryBytes)
    return nullptr;
  Tag stored;
  if (!readAll(fd, reinterpret_cast<char*>(stored.data()), kTagBytes)) return nullptr;
  size_t n = static_cast<size_t>(st.st_size) - kTagBytes;
  auto buf = llvm::WritableMemoryBuffer::getNewUninitMemBuffer(n, key);
  if (!buf || !readAll(fd, buf->getBufferStart(), n)) return nullptr;
  Tag want = tagOf(key, llvm::StringRef(buf->getBufferStart(), n));
  uint8_t diff = 0;  // compared in full: the time taken says nothing about the tag
  for (size_t i = 0; i < kTagBytes; ++i) diff |= stored[i] ^ want[i];
  if (diff != 0) return nullptr;
  return buf;
}

void DiskObjectCache::reject(const std::string& file) {
  ++rejected_;
  ::unlinkat(dirFd_, file.c_str(), 0);  // a directory of that name stays: every run then misses
}

std::unique_ptr<llvm::MemoryBuffer> DiskObjectCache::getObject(const llvm::Module* m) {
  if (!enabled()) return nullptr;
  const std::string& key = m->getModuleIdentifier();
  std::string file = key + ".o";
  int fd = openEntry(dirFd_, file);
  if (fd < 0) {
    if (errno != ENOENT) reject(file);  // a symlink (ELOOP), an unreadable file, ...
    return nullptr;
  }
  std::unique_ptr<llvm::MemoryBuffer> obj = readVerified(fd, key);
  if (obj) touchCacheEntry(fd);  // Note [Cache eviction]
  ::close(fd);
  if (!obj) {
    reject(file);
    return nullptr;
  }
  ++hits_;
  return obj;
}

void DiskObjectCache::notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef obj) {
  if (!enabled()) return;
  const std::string& key = m->getModuleIdentifier();
  Tag tag = tagOf(key, obj.getBuffer());
  llvm::StringRef tagBytes(reinterpret_cast<const char*>(tag.data()), tag.size());
  // A failed write leaves no entry: the next process compiles again.
  if (publish(dirFd_, key + ".o", {tagBytes, obj.getBuffer()}, /*replace=*/true))
    evicted_ += evictLeastRecentlyUsed(dirFd_, ".o", maxBytes_);
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
