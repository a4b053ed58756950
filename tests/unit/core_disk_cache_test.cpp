// The compile caches' size cap (Note [Cache eviction]): least recently used entries go first,
// a listing that goes stale under another process is harmless, two processes writing and
// evicting at once keep the cap and never leave half an entry; parsing --cache-max-size.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit/disk_cache.hpp"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  int fd = -1;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
    fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY);
  }
  ~TempDir() {
    ::close(fd);
    fs::remove_all(path);
  }
};

/// Writes an entry of `bytes` bytes last used `secondsAgo` seconds ago.
void writeEntry(const fs::path& p, size_t bytes, int secondsAgo) {
  std::ofstream(p, std::ios::binary) << std::string(bytes, 'x');
  struct timespec t[2];
  clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= secondsAgo;
  t[1] = t[0];
  utimensat(AT_FDCWD, p.c_str(), t, 0);
}

std::set<std::string> names(const fs::path& dir) {
  std::set<std::string> s;
  for (const auto& e : fs::directory_iterator(dir)) s.insert(e.path().filename().string());
  return s;
}

uint64_t totalBytes(const fs::path& dir, const std::string& suffix) {
  uint64_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == suffix) n += fs::file_size(e.path());
  return n;
}

TEST(DiskCache, EvictsTheLeastRecentlyUsedFirst) {
  TempDir d("scn_evict_lru");
  writeEntry(d.path / "old.o", 400, 300);
  writeEntry(d.path / "middle.o", 400, 200);
  writeEntry(d.path / "new.o", 400, 100);
  writeEntry(d.path / "key", 32, 1000);          // not an entry: never counted or removed
  writeEntry(d.path / "ab12.tmp", 5000, 1000);  // a write in progress: left to its writer
  EXPECT_EQ(scn::evictLeastRecentlyUsed(d.fd, ".o", 1000), 1);
  EXPECT_EQ(names(d.path), (std::set<std::string>{"ab12.tmp", "key", "middle.o", "new.o"}));
  // Using an entry makes it the newest: `middle` outlives `new` now.
  int fd = ::open((d.path / "middle.o").c_str(), O_RDONLY);
  scn::touchCacheEntry(fd);
  ::close(fd);
  EXPECT_EQ(scn::evictLeastRecentlyUsed(d.fd, ".o", 500), 1);
  EXPECT_EQ(names(d.path), (std::set<std::string>{"ab12.tmp", "key", "middle.o"}));
  // Under the cap nothing goes; a cap of 0 empties the cache.
  EXPECT_EQ(scn::evictLeastRecentlyUsed(d.fd, ".o", 400), 0);
  EXPECT_EQ(scn::evictLeastRecentlyUsed(d.fd, ".o", 0), 1);
  EXPECT_EQ(names(d.path), (std::set<std::string>{"ab12.tmp", "key"}));
}

TEST(DiskCache, AFileThatVanishesIsNoError) {
  TempDir d("scn_evict_vanish");
  for (int i = 0; i < 50; ++i) writeEntry(d.path / (std::to_string(i) + ".o"), 100, 1000 - i);
  // A reader that opened an entry before it is evicted reads it to the end.
  int reader = ::open((d.path / "0.o").c_str(), O_RDONLY);
  ASSERT_GE(reader, 0);
  // Another process empties the directory while this one evicts: whatever it finds gone is
  // skipped, and the count is of what this one removed.
  std::thread other([&] {
    for (int i = 49; i >= 0; --i) fs::remove(d.path / (std::to_string(i) + ".o"));
  });
  int removed = scn::evictLeastRecentlyUsed(d.fd, ".o", 0);
  other.join();
  EXPECT_LE(removed, 50);
  EXPECT_TRUE(names(d.path).empty());
  char buf[200];
  EXPECT_EQ(::read(reader, buf, sizeof buf), 100);
  ::close(reader);
  // An entry that is gone is gone for every later reader: a miss, not an error.
  EXPECT_LT(::open((d.path / "0.o").c_str(), O_RDONLY), 0);
  EXPECT_EQ(errno, ENOENT);
}

TEST(DiskCache, TwoWritersKeepTheCap) {
  TempDir d("scn_evict_two");
  constexpr uint64_t kCap = 20000;
  constexpr size_t kEntry = 1000;
  // Two processes, each publishing entries as the caches do (a temporary file renamed into
  // place) and evicting after each, as two scn processes sharing a cache directory.
  auto writer = [&](char tag) {
    for (int i = 0; i < 200; ++i) {
      std::string name = std::string(1, tag) + std::to_string(i);
      fs::path tmp = d.path / (name + ".tmp");
      std::ofstream(tmp, std::ios::binary) << std::string(kEntry, tag);
      fs::rename(tmp, d.path / (name + ".o"));
      scn::evictLeastRecentlyUsed(d.fd, ".o", kCap);
    }
  };
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    writer('b');
    _exit(0);
  }
  writer('a');
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  scn::evictLeastRecentlyUsed(d.fd, ".o", kCap);  // the last write of either may be over it
  EXPECT_LE(totalBytes(d.path, ".o"), kCap);
  EXPECT_GE(totalBytes(d.path, ".o"), kCap / 2);  // eviction went no further than it had to
  // Every entry left is whole: no torn file, no temporary file left over.
  for (const auto& e : fs::directory_iterator(d.path)) {
    EXPECT_EQ(e.path().extension(), ".o") << e.path();
    EXPECT_EQ(fs::file_size(e.path()), kEntry) << e.path();
  }
}

TEST(DiskCache, ClearRemovesOnlyCacheEntries) {
  TempDir d("scn_cache_clear");
  fs::create_directories(d.path / "cpu");
  fs::create_directories(d.path / "ptx");
  writeEntry(d.path / "cpu" / "a.o", 10, 0);
  writeEntry(d.path / "cpu" / "b.o", 10, 0);
  writeEntry(d.path / "cpu" / "c1.tmp", 10, 0);
  writeEntry(d.path / "cpu" / "key", 32, 0);
  writeEntry(d.path / "ptx" / "k.ptx", 10, 0);
  writeEntry(d.path / "ptx" / "k.ptx.tmp42", 10, 0);
  writeEntry(d.path / "notes.txt", 10, 0);  // a user's file in a directory they named: kept
  std::string error;
  EXPECT_EQ(scn::clearCacheDirectory(d.path.string(), error), 5);
  EXPECT_EQ(error, "");
  EXPECT_EQ(names(d.path / "cpu"), (std::set<std::string>{"key"}));
  EXPECT_TRUE(names(d.path / "ptx").empty());
  EXPECT_TRUE(fs::exists(d.path / "notes.txt"));
  // A directory that does not exist has nothing to clear.
  EXPECT_EQ(scn::clearCacheDirectory((d.path / "none").string(), error), 0);
  EXPECT_EQ(error, "");
}

TEST(DiskCache, ParsesSizes) {
  EXPECT_EQ(scn::parseByteSize("1048576"), 1048576u);
  EXPECT_EQ(scn::parseByteSize("512K"), 512u << 10);
  EXPECT_EQ(scn::parseByteSize("64M"), 64u << 20);
  EXPECT_EQ(scn::parseByteSize("1G"), uint64_t{1} << 30);
  EXPECT_EQ(scn::parseByteSize("2GiB"), uint64_t{2} << 30);
  EXPECT_EQ(scn::parseByteSize("1.5g"), uint64_t{3} << 29);
  EXPECT_EQ(scn::parseByteSize("0"), 0u);
  for (const char* bad : {"", "G", "-1", "1X", "1GG", "nan", "1e30T"})
    EXPECT_EQ(scn::parseByteSize(bad), std::nullopt) << bad;
}

}  // namespace
