// The compile caches' size cap and clearing (Note [Cache eviction]).
#include "jit/disk_cache.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace scn {

// Note [Cache eviction]
// Each cache directory holds at most a cap of bytes (--cache-max-size, $SCN_CACHE_MAX_SIZE,
// 1 GiB by default). A hit sets the entry's modification time to now (touchCacheEntry), so
// modification time orders entries by last use; atime is no help, as most file systems are
// mounted relatime or noatime. After a new entry is written, the writer lists the directory and
// removes the oldest entries until the rest fit. Several processes may share a directory, so
// nothing here assumes the listing stays true: an entry that vanished before its stat is
// skipped, an unlink that finds nothing is fine (another process evicted it first), and a
// reader whose file is unlinked after it opened it reads on (POSIX keeps the inode while it is
// open); a reader that comes too late sees ENOENT, which the caches treat as a miss. Entries
// appear only by rename of a complete temporary file, so an evictor never sees half an entry;
// temporary files are not counted or removed (their writers rename them away in a moment).
// Two evictors racing may each remove an entry the other also chose: at worst a little more is
// removed than needed, never a file that is being written.

namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Entry {
  std::string name;
  uint64_t bytes;
  struct timespec used;
};

bool usedBefore(const Entry& a, const Entry& b) {
  if (a.used.tv_sec != b.used.tv_sec) return a.used.tv_sec < b.used.tv_sec;
  if (a.used.tv_nsec != b.used.tv_nsec) return a.used.tv_nsec < b.used.tv_nsec;
  return a.name < b.name;
}

/// The regular files named `*suffix` in the directory, as a listing (each may vanish).
std::vector<Entry> listEntries(int dirFd, std::string_view suffix) {
  std::vector<Entry> entries;
  int fd = ::dup(dirFd);  // closedir closes it; the caller's descriptor stays open
  if (fd < 0) return entries;
  DIR* dir = ::fdopendir(fd);
  if (!dir) {
    ::close(fd);
    return entries;
  }
  ::rewinddir(dir);  // the dup shares its offset with dirFd, which a previous listing moved
  while (struct dirent* e = ::readdir(dir)) {
    std::string_view name = e->d_name;
    if (!endsWith(name, suffix)) continue;
    struct stat st;
    if (::fstatat(dirFd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    entries.push_back({std::string(name), static_cast<uint64_t>(st.st_size), st.st_mtim});
  }
  ::closedir(dir);
  return entries;
}

}  // namespace

std::optional<uint64_t> parseByteSize(std::string_view text) {
  if (text.empty() || text.size() > 40) return std::nullopt;
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  double number = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || errno != 0 || !(number >= 0)) return std::nullopt;
  std::string unit = end;
  double scale = 1;
  if (!unit.empty() && unit != "B") {
    static const char kUnits[] = "KMGT";
    const char* u = std::strchr(kUnits, std::toupper(static_cast<unsigned char>(unit[0])));
    std::string tail = unit.substr(1);
    if (!u || !*u || !(tail.empty() || tail == "B" || tail == "iB")) return std::nullopt;
    scale = std::ldexp(1.0, 10 * static_cast<int>(u - kUnits + 1));
  }
  double bytes = std::floor(number * scale);
  if (bytes >= 0x1p63) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

uint64_t cacheMaxBytesFromEnvironment() {
  if (const char* v = std::getenv("SCN_CACHE_MAX_SIZE"); v && *v)
    if (std::optional<uint64_t> n = parseByteSize(v)) return *n;
  return kDefaultCacheMaxBytes;
}

void touchCacheEntry(int fd) {
  struct timespec now[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};  // atime as it is, mtime now
  ::futimens(fd, now);  // a read-only cache: the order stays as it was
}

int evictLeastRecentlyUsed(int dirFd, std::string_view suffix, uint64_t maxBytes) {
  std::vector<Entry> entries = listEntries(dirFd, suffix);
  uint64_t total = 0;
  for (const Entry& e : entries) total += e.bytes;
  if (total <= maxBytes) return 0;
  std::sort(entries.begin(), entries.end(), usedBefore);
  int removed = 0;
  for (const Entry& e : entries) {
    if (total <= maxBytes) break;
    if (::unlinkat(dirFd, e.name.c_str(), 0) == 0) ++removed;
    total -= e.bytes;  // gone either way: removed here or by another process
  }
  return removed;
}

int clearCacheDirectory(const std::string& root, std::string& error) {
  error.clear();
  int removed = 0;
  for (auto [sub, suffix] : {std::pair{"cpu", ".o"}, std::pair{"ptx", ".ptx"}}) {
    std::string path = root + "/" + sub;
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      if (errno != ENOENT && error.empty()) error = "cannot open \"" + path + "\": " + std::strerror(errno);
      continue;
    }
    for (const Entry& e : listEntries(fd, ""))  // entries, and temporary files left by a crash
      if ((endsWith(e.name, suffix) || e.name.find(".tmp") != std::string::npos) &&
          ::unlinkat(fd, e.name.c_str(), 0) == 0)
        ++removed;
    ::close(fd);
  }
  return removed;
}

}  // namespace scn
