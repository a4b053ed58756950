// The CPU backend's persistent object cache against entries it must not trust (Note [Trusting
// the object cache]): damaged, truncated, swapped and forged objects, a FIFO or a symlink in
// place of an entry, and cache directories other users could write to; its size cap (Note
// [Cache eviction]) and a directory it cannot use.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/cpu/cpu_backend.hpp"
#include "kernel_test_util.hpp"
#include "base/diagnostics.hpp"

namespace scn {
namespace {

namespace fs = std::filesystem;
using ktest::Builder;
using ktest::ty;

/// x * 2 and x + 100 over f32[4]: the same buffers, different code (and entry symbols).
FuncPtr doubled() {
  Builder b("doubled");
  int x = b.param(ty(DType::F32, {4}));
  return b.ret({b.emit1(Op::Mul, {x, b.constant(DType::F32, 2, {4})})});
}
FuncPtr shifted() {
  Builder b("shifted");
  int x = b.param(ty(DType::F32, {4}));
  return b.ret({b.emit1(Op::Add, {x, b.constant(DType::F32, 100, {4})})});
}

Array input() {
  Array a(DType::F32, {4});
  for (int i = 0; i < 4; ++i) a.setDouble(i, i + 1);
  return a;
}

std::vector<double> valuesOf(const Array& a) {
  std::vector<double> v;
  for (int64_t i = 0; i < a.size(); ++i) v.push_back(a.getDouble(i));
  return v;
}

const std::vector<double> kDoubled = {2, 4, 6, 8};

/// One compile and run with a fresh backend (a new JIT: nothing in memory) on `dir`.
struct Outcome {
  std::vector<double> result;
  CompileStats stats;
  std::vector<Diagnostic> warnings;
  std::string error;  // a diagnostic the compile or run threw
};

Outcome compileAndRun(const fs::path& dir, const FuncPtr& f, uint64_t maxBytes = kDefaultCacheMaxBytes) {
  Outcome o;
  CpuOptions opts;
  opts.cacheDir = dir.string();
  opts.cacheMaxBytes = maxBytes;
  opts.warn = [&](const Diagnostic& d) { o.warnings.push_back(d); };
  try {
    std::unique_ptr<Backend> be = makeCpuBackend(opts);
    o.result = valuesOf(be->compile(f, &o.stats)->run({input()}).at(0));
  } catch (const UserError& e) {
    o.error = render(e.diag);
  }
  return o;
}

std::string readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> v;
  if (!fs::is_directory(dir)) return v;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".o") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

/// The entry's symbol `scn_main_<32 hex digits>`, found in its bytes.
std::string entrySymbol(const std::string& bytes) {
  size_t at = bytes.find("scn_main_");
  EXPECT_NE(at, std::string::npos);
  return at == std::string::npos ? "" : bytes.substr(at, 9 + 32);
}

/// A fresh directory under the system's temporary one, removed at the end of the test.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("scn_object_cache_" + name + "_" + std::to_string(getpid()))) {
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
};

enum class Plant { Garbage, Empty, Truncated, OtherFunctionsEntry, Forgery, Fifo, SymlinkToDevZero };

const char* plantName(Plant p) {
  switch (p) {
    case Plant::Garbage: return "Garbage";
    case Plant::Empty: return "Empty";
    case Plant::Truncated: return "Truncated";
    case Plant::OtherFunctionsEntry: return "OtherFunctionsEntry";
    case Plant::Forgery: return "Forgery";
    case Plant::Fifo: return "Fifo";
    case Plant::SymlinkToDevZero: return "SymlinkToDevZero";
  }
  return "?";
}

class ObjectCacheEntry : public ::testing::TestWithParam<Plant> {};

// Each bad entry in place of `doubled`'s is a miss: the right answer, code compiled afresh, the
// entry counted as rejected and replaced, so the next process hits again.
TEST_P(ObjectCacheEntry, BadEntryIsAMissThenReplaced) {
  TempDir tmp(plantName(GetParam()));
  fs::path dir = tmp.path / "cpu";  // a private parent: /tmp itself is not
  Outcome first = compileAndRun(dir, doubled());
  ASSERT_EQ(first.error, "");
  ASSERT_EQ(first.result, kDoubled);
  ASSERT_EQ(entries(dir).size(), 1u);
  fs::path entry = entries(dir)[0];
  std::string good = readBytes(entry);
  // `shifted`'s entry, made under the same directory (same secret), for the swaps and forgery.
  Outcome other = compileAndRun(dir, shifted());
  ASSERT_EQ(other.error, "");
  ASSERT_EQ(entries(dir).size(), 2u);
  fs::path otherEntry = entries(dir)[0] == entry ? entries(dir)[1] : entries(dir)[0];
  std::string otherBytes = readBytes(otherEntry);

  fs::remove(entry);
  switch (GetParam()) {
    case Plant::Garbage: std::ofstream(entry, std::ios::binary) << "not an object file"; break;
    case Plant::Empty: std::ofstream(entry, std::ios::binary).flush(); break;
    case Plant::Truncated: std::ofstream(entry, std::ios::binary) << good.substr(0, good.size() / 2); break;
    case Plant::OtherFunctionsEntry: std::ofstream(entry, std::ios::binary) << otherBytes; break;
    case Plant::Forgery: {
      // `shifted`'s code under `doubled`'s symbol: a valid object that links and runs the
      // wrong code (or any code) if nothing checks where it came from.
      std::string forged = otherBytes, want = entrySymbol(good), have = entrySymbol(otherBytes);
      ASSERT_NE(want, have);
      for (size_t at = forged.find(have); at != std::string::npos; at = forged.find(have, at))
        forged.replace(at, have.size(), want);
      std::ofstream(entry, std::ios::binary) << forged;
      break;
    }
    case Plant::Fifo: ASSERT_EQ(mkfifo(entry.c_str(), 0600), 0); break;
    case Plant::SymlinkToDevZero: fs::create_symlink("/dev/zero", entry); break;
  }
  // A reader that blocks on the FIFO is released after a while (then the test fails).
  auto pending = std::async(std::launch::async, [&] { return compileAndRun(dir, doubled()); });
  if (pending.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    ADD_FAILURE() << "reading the planted entry hung";
    int fd = open(entry.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) close(fd);
  }
  Outcome planted = pending.get();
  EXPECT_EQ(planted.error, "");
  EXPECT_EQ(planted.result, kDoubled);
  EXPECT_FALSE(planted.stats.cacheHit);
  EXPECT_TRUE(planted.stats.cacheRejected);
  EXPECT_TRUE(planted.warnings.empty());
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry)));
  Outcome after = compileAndRun(dir, doubled());
  EXPECT_EQ(after.result, kDoubled);
  EXPECT_TRUE(after.stats.cacheHit);
  EXPECT_FALSE(after.stats.cacheRejected);
  EXPECT_EQ(readBytes(entry), good);  // the same bytes as the first compile wrote
}

INSTANTIATE_TEST_SUITE_P(Planted, ObjectCacheEntry,
                         ::testing::Values(Plant::Garbage, Plant::Empty, Plant::Truncated,
                                           Plant::OtherFunctionsEntry, Plant::Forgery, Plant::Fifo,
                                           Plant::SymlinkToDevZero),
                         [](const ::testing::TestParamInfo<Plant>& info) { return plantName(info.param); });

fs::perms permsOf(const fs::path& p) { return fs::symlink_status(p).permissions() & fs::perms::all; }

TEST(ObjectCache, DirectoryKeyAndEntriesArePrivate) {
  TempDir dir("private");
  fs::path cpu = dir.path / "cache" / "cpu";
  Outcome o = compileAndRun(cpu, doubled());
  ASSERT_EQ(o.error, "");
  EXPECT_TRUE(o.warnings.empty());
  EXPECT_EQ(permsOf(dir.path), fs::perms::owner_all);  // every directory it created
  EXPECT_EQ(permsOf(dir.path / "cache"), fs::perms::owner_all);
  EXPECT_EQ(permsOf(cpu), fs::perms::owner_all);
  EXPECT_EQ(permsOf(cpu / "key"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(fs::file_size(cpu / "key"), 32u);
  ASSERT_EQ(entries(cpu).size(), 1u);
  EXPECT_EQ(permsOf(entries(cpu)[0]), fs::perms::owner_read | fs::perms::owner_write);
  // A key others can read is replaced: the entries made under it become misses, then hits.
  fs::permissions(cpu / "key", fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
  Outcome rekeyed = compileAndRun(cpu, doubled());
  EXPECT_EQ(rekeyed.result, kDoubled);
  EXPECT_TRUE(rekeyed.stats.cacheRejected);
  EXPECT_EQ(permsOf(cpu / "key"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_TRUE(compileAndRun(cpu, doubled()).stats.cacheHit);
}

/// The E0411 warning for `dir`, or "" when there was none; checks there was at most one.
std::string refusal(const Outcome& o) {
  EXPECT_LE(o.warnings.size(), 1u);
  if (o.warnings.empty()) return "";
  EXPECT_EQ(o.warnings[0].severity, Severity::Warning);
  EXPECT_EQ(o.warnings[0].code, "E0411");
  return o.warnings[0].message;
}

TEST(ObjectCache, RefusesADirectoryOthersCanWrite) {
  TempDir dir("shared");
  fs::path cpu = dir.path / "cpu";
  ASSERT_EQ(compileAndRun(cpu, doubled()).error, "");
  ASSERT_EQ(entries(cpu).size(), 1u);
  fs::path entry = entries(cpu)[0];
  std::string planted = "planted by someone else";
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << planted;
  fs::permissions(cpu, fs::perms::all);  // 0777
  Outcome o = compileAndRun(cpu, doubled());
  EXPECT_EQ(refusal(o), "not using the compile cache directory \"" + cpu.string() +
                            "\": it is writable by other users (mode 0777)");
  EXPECT_EQ(o.warnings.at(0).help,
            "others could put code there that scn would run as you; make the directory and its parent "
            "yours and private (chmod 700), or use another cache directory");
  EXPECT_EQ(o.result, kDoubled);
  EXPECT_FALSE(o.stats.cacheHit);
  EXPECT_FALSE(o.stats.cacheRejected);  // not even looked at
  EXPECT_EQ(readBytes(entry), planted);
  EXPECT_EQ(entries(cpu).size(), 1u);  // and nothing written
  // Group-writable counts too, and so does a parent others can write to.
  fs::permissions(cpu, fs::perms::owner_all | fs::perms::group_all);
  EXPECT_EQ(refusal(compileAndRun(cpu, doubled())),
            "not using the compile cache directory \"" + cpu.string() +
                "\": it is writable by other users (mode 0770)");
  fs::permissions(cpu, fs::perms::owner_all);
  fs::permissions(dir.path, fs::perms::all | fs::perms::sticky_bit);
  EXPECT_EQ(refusal(compileAndRun(cpu, doubled())),
            "not using the compile cache directory \"" + cpu.string() +
                "\": its parent is writable by other users (mode 1777)");
  fs::permissions(dir.path, fs::perms::owner_all);
  Outcome fine = compileAndRun(cpu, doubled());
  EXPECT_EQ(refusal(fine), "");
  EXPECT_TRUE(fine.stats.cacheRejected);  // the planted entry, now read, fails its check
  EXPECT_EQ(fine.result, kDoubled);
}

TEST(ObjectCache, RefusesADirectoryOfAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a directory away";
  TempDir dir("foreign");
  fs::create_directories(dir.path / "cpu");
  ASSERT_EQ(chown((dir.path / "cpu").c_str(), 12345, 12345), 0);
  Outcome o = compileAndRun(dir.path / "cpu", doubled());
  EXPECT_EQ(refusal(o), "not using the compile cache directory \"" + (dir.path / "cpu").string() +
                            "\": it belongs to another user (uid 12345)");
  EXPECT_EQ(o.result, kDoubled);
  EXPECT_TRUE(entries(dir.path / "cpu").empty());
}

// The cap: a new entry evicts the least recently used ones until the rest fit; an evicted
// entry is a plain miss (not a rejection) and is written again.
TEST(ObjectCache, StaysUnderItsSizeCap) {
  TempDir dir("cap");
  fs::path cpu = dir.path / "cpu";
  ASSERT_EQ(compileAndRun(cpu, doubled()).error, "");
  ASSERT_EQ(entries(cpu).size(), 1u);
  uint64_t cap = fs::file_size(entries(cpu)[0]) * 3 / 2;  // room for one entry, not two
  fs::path doubledEntry = entries(cpu)[0];
  Outcome second = compileAndRun(cpu, shifted(), cap);
  ASSERT_EQ(second.error, "");
  ASSERT_EQ(entries(cpu).size(), 1u);
  EXPECT_NE(entries(cpu)[0], doubledEntry);  // the older entry went
  Outcome again = compileAndRun(cpu, doubled(), cap);
  EXPECT_EQ(again.result, kDoubled);
  EXPECT_FALSE(again.stats.cacheHit);
  EXPECT_FALSE(again.stats.cacheRejected);
  EXPECT_EQ(entries(cpu), std::vector<fs::path>{doubledEntry});
  // A hit makes an entry the most recently used: it survives the next eviction.
  ASSERT_EQ(compileAndRun(cpu, shifted()).error, "");  // no cap: both again
  ASSERT_EQ(entries(cpu).size(), 2u);
  struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
  for (const fs::path& e : entries(cpu)) utimensat(AT_FDCWD, e.c_str(), old, 0);
  EXPECT_TRUE(compileAndRun(cpu, doubled()).stats.cacheHit);  // touches doubled's entry
  Builder b("halved");
  int x = b.param(ty(DType::F32, {4}));
  FuncPtr halved = b.ret({b.emit1(Op::Div, {x, b.constant(DType::F32, 2, {4})})});
  ASSERT_EQ(compileAndRun(cpu, halved, cap * 5 / 3).error, "");  // room for two of three
  std::vector<fs::path> left = entries(cpu);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_TRUE(left[0] == doubledEntry || left[1] == doubledEntry);  // shifted's went
}

// A directory that cannot be made is a warning (E0430), and the program runs without a cache.
TEST(ObjectCache, AnUnusableDirectoryIsAWarning) {
  TempDir dir("unusable");
  fs::create_directories(dir.path);
  std::ofstream(dir.path / "file") << "not a directory";
  fs::path cpu = dir.path / "file" / "cpu";
  Outcome o = compileAndRun(cpu, doubled());
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.result, kDoubled);
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_EQ(o.warnings[0].code, "E0430");
  EXPECT_EQ(o.warnings[0].severity, Severity::Warning);
  EXPECT_EQ(o.warnings[0].message,
            "compile cache off: cannot use \"" + cpu.string() + "\": Not a directory");
}

}  // namespace
}  // namespace scn
