// Fuzz target: the CPU backend's persistent object cache (Note [Trusting the object cache]).
//
// The bytes choose a function and what to put in place of its cache entry: the bytes
// themselves, an edit of the real entry (bytes flipped, cut short or extended, spliced with
// another function's entry, another function's entry under this one's symbol), the real entry
// intact, a FIFO, or a symlink (to /dev/zero, to another entry). Then a fresh session (a new
// JIT, nothing in memory) compiles and runs the function with that cache directory. Findings:
// any crash, hang or sanitizer report; a wrong result; any diagnostic (a bad entry is a miss,
// never an error); an intact entry that does not hit; an edited one that does.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz_util.hpp"
#include "driver/session.hpp"

namespace scn {
namespace {

namespace fs = std::filesystem;

/// Functions of different shapes and control flow; each prints its result once.
const char* kPrograms[] = {
    "fn f(x) = x * 2.0\nprint(f(arange(4.0)))",
    "fn g(x) = x + 100.0\nprint(g(arange(4.0)))",
    "fn h(x) = cumsum(x * x)\nprint(h(arange(6.0)))",
    "fn w(x) = fori_loop(0, 5, |i, c| c * 1.5 + x, x)\nprint(w(arange(3.0)))",
};
constexpr int kCount = sizeof(kPrograms) / sizeof(kPrograms[0]);

struct Run {
  std::string out, diagnostics;
  bool hit = false, rejected = false;
};

/// One program in a fresh session on the cache root `dir`.
Run runProgram(const fs::path& dir, int p) {
  Run r;
  SessionOptions opts;
  opts.backend = "cpu";
  opts.cacheDir = dir.string();
  opts.out = [&](const std::string& s) { r.out += s; };
  opts.onDiagnostic = [&](const Diagnostic& d) { r.diagnostics += render(d); };
  Session session(opts);
  session.run("<cache>", kPrograms[p]);
  for (const CallRecord& rec : session.records()) {
    r.hit = r.hit || rec.cacheHit;
    r.rejected = r.rejected || rec.cacheRejected;
  }
  return r;
}

std::string readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::set<fs::path> entriesIn(const fs::path& dir) {
  std::set<fs::path> v;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".o") v.insert(e.path());
  return v;
}

/// The entry's symbol `scn_main_<32 hex digits>`, or "".
std::string symbolOf(const std::string& bytes) {
  size_t at = bytes.find("scn_main_");
  return at == std::string::npos || at + 41 > bytes.size() ? "" : bytes.substr(at, 41);
}

/// A private cache directory holding a good entry of every program, with its expected output.
struct Fixture {
  fs::path root = fs::temp_directory_path() / ("scn_fuzz_cache_" + std::to_string(getpid()));
  fs::path entry[kCount];
  std::string good[kCount], expected[kCount];

  Fixture() {
    fs::remove_all(root);
    for (int p = 0; p < kCount; ++p) {
      std::set<fs::path> before = fs::exists(root / "cpu") ? entriesIn(root / "cpu") : std::set<fs::path>{};
      Run r = runProgram(root, p);
      if (!r.diagnostics.empty()) fuzz::finding("the fixture's program failed:\n" + r.diagnostics);
      std::set<fs::path> after = entriesIn(root / "cpu");
      for (const fs::path& e : after)
        if (!before.count(e)) entry[p] = e;
      if (entry[p].empty() || after.size() != before.size() + 1)
        fuzz::finding("program " + std::to_string(p) + " did not write exactly one cache entry");
      good[p] = readBytes(entry[p]);
      expected[p] = r.out;
    }
  }
  ~Fixture() { fs::remove_all(root); }
};

/// Puts the input's choice in place of program p's entry; returns the bytes of the regular file
/// it wrote ("" with `special` true for a FIFO or a symlink).
std::string plant(const Fixture& fx, int p, FuzzedDataProvider& in, bool& special) {
  const fs::path& at = fx.entry[p];
  const std::string& good = fx.good[p];
  int other = (p + 1 + in.ConsumeIntegralInRange<int>(0, kCount - 2)) % kCount;
  std::string bytes;
  special = false;
  switch (in.ConsumeIntegralInRange<int>(0, 8)) {
    case 0: bytes = in.ConsumeRemainingBytesAsString(); break;
    case 1:  // flip some bytes
      bytes = good;
      while (in.remaining_bytes() >= 3) {
        size_t pos = in.ConsumeIntegralInRange<size_t>(0, bytes.size() - 1);
        bytes[pos] = static_cast<char>(bytes[pos] ^ in.ConsumeIntegral<uint8_t>());
      }
      break;
    case 2:  // cut short, then maybe extend
      bytes = good.substr(0, in.ConsumeIntegralInRange<size_t>(0, good.size()));
      bytes += in.ConsumeRemainingBytesAsString();
      break;
    case 3: {  // the head of one entry and the tail of the other
      size_t cut = in.ConsumeIntegralInRange<size_t>(0, std::min(good.size(), fx.good[other].size()));
      bytes = in.ConsumeBool() ? fx.good[other].substr(0, cut) + good.substr(cut)
                               : good.substr(0, cut) + fx.good[other].substr(cut);
      break;
    }
    case 4: {  // another function's entry, under this one's symbol: it links, and computes wrongly
      bytes = fx.good[other];
      std::string want = symbolOf(good), have = symbolOf(bytes);
      for (size_t pos = bytes.find(have); !have.empty() && pos != std::string::npos; pos = bytes.find(have, pos))
        bytes.replace(pos, have.size(), want);
      break;
    }
    case 5: bytes = good; break;  // intact: must hit
    case 6:
      special = true;
      if (mkfifo(at.c_str(), 0600) != 0) fuzz::finding("mkfifo failed");
      return "";
    case 7:
      special = true;
      fs::create_symlink("/dev/zero", at);
      return "";
    default:
      special = true;
      fs::create_symlink(fx.entry[other], at);
      return "";
  }
  std::ofstream(at, std::ios::binary | std::ios::trunc) << bytes;
  return bytes;
}

}  // namespace
}  // namespace scn

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace scn;
  static Fixture fx;
  if (size > 4096) return -1;
  FuzzedDataProvider in(data, size);
  int p = in.ConsumeIntegralInRange<int>(0, kCount - 1);
  std::error_code ec;
  fs::remove(fx.entry[p], ec);
  bool special = false;
  std::string planted = plant(fx, p, in, special);
  bool intact = !special && planted == fx.good[p];
  Run r = runProgram(fx.root, p);
  std::string what = "program " + std::to_string(p) + (special ? " (a FIFO or symlink)" : "") + ": ";
  if (!r.diagnostics.empty()) fuzz::finding(what + "a planted cache entry gave a diagnostic:\n" + r.diagnostics);
  if (r.out != fx.expected[p]) fuzz::finding(what + "wrong output:\n" + r.out + "instead of\n" + fx.expected[p]);
  if (intact && !r.hit) fuzz::finding(what + "an intact entry did not hit");
  if (!intact && r.hit) fuzz::finding(what + "an edited entry was used");
  if (!intact && !r.rejected) fuzz::finding(what + "an edited entry was not counted as rejected");
  // The compile replaced the entry with a good one; make sure, for the next input.
  if (!fs::is_regular_file(fs::symlink_status(fx.entry[p])) || readBytes(fx.entry[p]) != fx.good[p])
    fuzz::finding(what + "the bad entry was not replaced by a good one");
  return 0;
}
