// What the on-disk compile caches share: a size cap with least-recently-used eviction, and
// clearing a cache directory (Note [Cache eviction] in disk_cache.cpp). POSIX only, no LLVM.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace scn {

/// The default cap on each compile cache (the CPU objects, the CUDA PTX): 1 GiB.
constexpr uint64_t kDefaultCacheMaxBytes = uint64_t{1} << 30;

/// "1073741824", "512K", "64M", "1G", "2GiB", "1.5G" (K, M, G, T are powers of 1024); nullopt
/// when malformed or out of range.
std::optional<uint64_t> parseByteSize(std::string_view text);

/// The cap when no option gives one: $SCN_CACHE_MAX_SIZE if it parses, else the default.
uint64_t cacheMaxBytesFromEnvironment();

/// Marks the entry open as `fd` as just used (its modification time: the eviction order).
void touchCacheEntry(int fd);

/// Removes the least recently used files named `*<suffix>` in the directory open as `dirFd`
/// until they take at most `maxBytes`. Safe while other processes read, write and evict there:
/// a file that vanishes meanwhile is skipped, and a reader that had it open keeps reading it.
/// Returns how many files it removed.
int evictLeastRecentlyUsed(int dirFd, std::string_view suffix, uint64_t maxBytes);

/// `scn --cache-clear`: removes the entries of the caches under `root` (`cpu/*.o`, `ptx/*.ptx`
/// and their temporary files), nothing else. Returns the number removed; `error` gets why the
/// directory could not be read ("" when it does not exist: nothing to clear).
int clearCacheDirectory(const std::string& root, std::string& error);

}  // namespace scn
