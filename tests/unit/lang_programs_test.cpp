// Runs every .scn program under tests/programs and examples through the `scn` binary, on each
// backend, and checks its inline expectations:
//   # expect: TEXT                  the next line the program prints is TEXT
//   # expect error[CODE]: MESSAGE   a diagnostic with this code and whole message on THIS line
//   # expect error in PATH:LINE[CODE]: MESSAGE
//                                   one in another file (an imported one), PATH as printed
//   # backends: interp              (optional) only these backends
// The backends are cpu, interp and, when scn is built with the CUDA toolkit, cuda-emu (the CUDA
// backend's generated code compiled for the host: Note [Emulation compile time] in
// jit/cuda/emulation.cpp keeps that to ~0.2 s per compiled function). A program whose output
// depends on one backend opts out with a `# backends:` line and a comment saying why.
// With the CUDA toolkit, every program's compiled functions are also compiled to PTX by NVRTC
// (`--emit=ptx`, the options of the GPU backend, no PTX cache), and each kernel printed by
// `--emit=cuda` must appear as a PTX entry.
// When FILE.stderr exists, the whole stderr must equal it (carets, notes, help lines).
// Files under a `modules/` folder are imported by the programs beside it, not run on their own
// (some are broken on purpose).
// SCN_UPDATE_GOLDEN=1 rewrites those .stderr files from the actual output, for review.
#include <gtest/gtest.h>

#include "test_backends.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include "test_files.hpp"

namespace fs = std::filesystem;

namespace {

struct Expectations {
  std::vector<std::string> stdoutLines;
  std::vector<std::string> errors;  // "LINE: error[CODE]: message"
  std::vector<std::string> backends = scn::test::builtBackends({"cpu", "interp", "cuda-emu"});
};

Expectations parseExpectations(const fs::path& file) {
  Expectations e;
  std::istringstream in(readAll(file));
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    size_t at = line.find("# expect: ");
    if (at != std::string::npos) {
      e.stdoutLines.push_back(line.substr(at + 10));
      continue;
    }
    at = line.find("# expect error[");
    if (at != std::string::npos) {
      e.errors.push_back(std::to_string(lineNo) + ": " + line.substr(at + 9));
      continue;
    }
    at = line.find("# expect error in ");
    if (at != std::string::npos) {
      std::string where = line.substr(at + 18);
      size_t code = where.find('[');
      e.errors.push_back(where.substr(0, code) + ": error" + where.substr(code));
      continue;
    }
    at = line.find("# backends: ");
    if (at != std::string::npos) {
      e.backends.clear();
      std::istringstream bs(line.substr(at + 12));
      std::string b;
      while (bs >> b)
        if (scn::test::backendBuilt(b)) e.backends.push_back(b);
    }
  }
  return e;
}

struct RunResult {
  int exitCode = -1;
  std::string out, err;
};

RunResult runScn(const std::vector<std::string>& args, const fs::path& cwd, const std::string& env = "") {
  fs::path tmp = fs::temp_directory_path() / ("scn_test_" + std::to_string(getpid()));
  std::string cmd = "cd '" + cwd.string() + "' && " + env + " '" + std::string(SCN_BINARY) + "'";
  for (const std::string& a : args) cmd += " '" + a + "'";
  cmd += " > '" + tmp.string() + ".out' 2> '" + tmp.string() + ".err' < /dev/null";
  int status = std::system(cmd.c_str());
  RunResult r;
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = readAll(tmp.string() + ".out");
  r.err = readAll(tmp.string() + ".err");
  fs::remove(tmp.string() + ".out");
  fs::remove(tmp.string() + ".err");
  return r;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}

std::vector<std::string> programFiles() {
  std::vector<std::string> files;
  for (const char* dir : {"tests/programs", "examples"}) {
    fs::path root = fs::path(SCN_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root))
      if (entry.path().extension() == ".scn" && entry.path().parent_path().filename() != "modules")
        files.push_back(fs::relative(entry.path(), SCN_SOURCE_DIR).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Program : public ::testing::TestWithParam<std::string> {};

TEST_P(Program, MeetsItsExpectations) {
  fs::path file = fs::path(SCN_SOURCE_DIR) / GetParam();
  Expectations e = parseExpectations(file);
  if (e.backends.empty()) GTEST_SKIP() << "none of the program's backends is in this build";
  for (const std::string& backend : e.backends) {
    SCOPED_TRACE("backend " + backend);
    // Run from the file's directory with a relative name, so messages say "name.scn:L:C".
    RunResult r = runScn({"--backend=" + backend, file.filename().string()}, file.parent_path());
    EXPECT_EQ(lines(r.out), e.stdoutLines) << "stderr:\n" << r.err;
    if (e.errors.empty()) {
      EXPECT_EQ(r.exitCode, 0) << r.err;
      EXPECT_EQ(r.err, "");
    } else {
      EXPECT_EQ(r.exitCode, 1) << r.err;
      // Each expected error appears as a header line "name.scn:LINE:COL: error[CODE]: message"
      // (or "PATH:LINE:COL: ..." in an imported file; the stdlib's "<stdlib>/..." are not counted).
      std::vector<std::string> got;
      std::regex header(R"(^([^<\s][^:\s]*):(\d+):\d+: (error\[E\d+\]: .*)$)");
      for (const std::string& l : lines(r.err)) {
        std::smatch m;
        if (!std::regex_match(l, m, header)) continue;
        std::string where = m[1].str() == file.filename().string() ? "" : m[1].str() + ":";
        got.push_back(where + m[2].str() + ": " + m[3].str());
      }
      EXPECT_EQ(got, e.errors) << "stderr:\n" << r.err;
    }
    fs::path golden = file;
    golden += ".stderr";
    if (std::getenv("SCN_UPDATE_GOLDEN") && !r.err.empty()) {
      std::ofstream(golden) << r.err;
    } else if (fs::exists(golden)) {
      EXPECT_EQ(r.err, readAll(golden)) << "golden file " << golden;
    }
  }
}

#ifdef SCN_HAVE_CUDA
/// The names of `marker NAME(` occurrences in text, sorted.
std::vector<std::string> namesAfter(const std::string& text, const std::string& marker) {
  std::vector<std::string> names;
  for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    size_t start = at + marker.size(), end = text.find('(', start);
    if (end != std::string::npos) names.push_back(text.substr(start, end - start));
  }
  std::sort(names.begin(), names.end());
  return names;
}

size_t countOf(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_P(Program, KernelsCompileToPtx) {
  fs::path file = fs::path(SCN_SOURCE_DIR) / GetParam();
  Expectations e = parseExpectations(file);
  // The program runs on the interpreter (or the cpu when it opts out of the interpreter) while
  // every function it compiles is printed as CUDA C++, or compiled to PTX by NVRTC.
  std::string runner =
      std::find(e.backends.begin(), e.backends.end(), "interp") != e.backends.end() ? "interp" : "cpu";
  if (!scn::test::backendBuilt(runner)) GTEST_SKIP() << "the " << runner << " backend is not in this build";
  RunResult cu = runScn({"--backend=" + runner, "--emit=cuda", file.filename().string()}, file.parent_path());
  RunResult ptx = runScn({"--backend=" + runner, "--emit=ptx", file.filename().string()},
                         file.parent_path(), "SCN_NO_CACHE=1");
  int wantExit = e.errors.empty() ? 0 : 1;
  EXPECT_EQ(cu.exitCode, wantExit) << cu.err;
  EXPECT_EQ(ptx.exitCode, wantExit) << ptx.err;
  // A function that fails to print or to compile is a diagnostic on stdout, in place of its code.
  EXPECT_EQ(countOf(cu.out, "error["), 0u) << cu.out;
  EXPECT_EQ(countOf(ptx.out, "error["), 0u) << ptx.out;
  size_t modules = countOf(cu.out, "// ---- scn CUDA prelude");
  EXPECT_EQ(countOf(ptx.out, "// Generated by NVIDIA NVVM Compiler"), modules);
  EXPECT_EQ(namesAfter(ptx.out, ".entry "), namesAfter(cu.out, "extern \"C\" __global__ void "));
  RecordProperty("ptx_modules", static_cast<int>(modules));
}
#endif

// Note [Associative scans]: an elementwise combiner is one op whose kernel count does not grow
// with the length; `a + b` is cumsum itself; other combiners keep the log-depth rounds.
TEST(Cli, AssociativeScanOfAnElementwiseCombinerIsOneOp) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  auto run = [](const std::string& combiner, const std::string& x, const std::string& flag) {
    std::string program = "fn f(x) = associative_scan(" + combiner + ", x)\nf(" + x + ")[0]";
    return runScn({flag, "-e", program}, SCN_SOURCE_DIR);
  };
  const std::string lastNonzero = "|a, b| where(b != 0, b, a)";
  RunResult ir = run(lastNonzero, "ones((100,))", "--emit=ir");
  EXPECT_NE(ir.out.find("associative_scan[axis=0, reverse=false]"), std::string::npos) << ir.out;
  EXPECT_NE(ir.out.find("func associative_scan function(%0: f32[], %1: f32[])"), std::string::npos) << ir.out;
  EXPECT_EQ(ir.out.find("concat"), std::string::npos) << ir.out;
  RunResult sum = run("|a, b| b + a", "ones((100,))", "--emit=ir");
  EXPECT_NE(sum.out.find("cumsum[axis=0, reverse=false]"), std::string::npos) << sum.out;
  EXPECT_EQ(sum.out.find("associative_scan["), std::string::npos) << sum.out;
  RunResult mats = run("|a, b| a @ b", "ones((8, 2, 2))", "--emit=ir");
  EXPECT_EQ(mats.out.find("associative_scan["), std::string::npos) << mats.out;
  EXPECT_NE(mats.out.find("dot_general"), std::string::npos) << mats.out;
  // 2^20 elements: three kernels (block totals, their prefixes, the blocks), not 40 rounds.
  RunResult stats = run(lastNonzero, "ones((1048576,))", "--stats");
  EXPECT_EQ(stats.exitCode, 0) << stats.err;
  EXPECT_NE(stats.err.find(" kernels=3 "), std::string::npos) << stats.err;
#ifdef SCN_HAVE_CUDA
  RunResult gpu = runScn({"--backend=cuda-emu", "--emit=ir", "-e",
                          "fn f(x) = associative_scan(" + lastNonzero + ", x)\nf(ones((100,)))[0]"},
                         SCN_SOURCE_DIR);
  EXPECT_EQ(gpu.out.find("associative_scan["), std::string::npos) << gpu.out;  // the rounds
  EXPECT_NE(gpu.out.find("concat"), std::string::npos) << gpu.out;
  // A function traced for the cpu is traced again after the REPL switches to a CUDA backend.
  fs::path tmp = fs::temp_directory_path() / ("scn_assoc_" + std::to_string(getpid()));
  std::ofstream(tmp.string() + ".in") << "fn lnz(x) = associative_scan(" << lastNonzero << ", x)\n"
                                      << "lnz(stack((0, 4, 0)))\n:backend cuda-emu\n:ir lnz(stack((0, 4, 0)))\n";
  std::string cmd = "'" + std::string(SCN_BINARY) + "' < '" + tmp.string() + ".in' > '" + tmp.string() + ".out' 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::string repl = readAll(tmp.string() + ".out");
  fs::remove(tmp.string() + ".in");
  fs::remove(tmp.string() + ".out");
  EXPECT_NE(repl.find("[0, 4, 4]"), std::string::npos) << repl;
  EXPECT_EQ(repl.find("associative_scan["), std::string::npos) << repl;
  EXPECT_NE(repl.find("concat"), std::string::npos) << repl;
#endif
}

/// A fresh, empty temporary directory for one test, removed at the end.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("scn_" + name + "_" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& file, const std::string& text) const { std::ofstream(path / file) << text; }
};

// A directory, or a path that cannot be checked, is an error naming it; it used to run as an
// empty program (exit 0), or be an internal error without a location (E9999).
TEST(Cli, ScriptsAndImportsThatAreNotFiles) {
  TempDir dir("notfiles");
  fs::create_directory(dir.path / "sub");
  fs::create_symlink("loop_b", dir.path / "loop_a");
  fs::create_symlink("loop_a", dir.path / "loop_b");
  dir.write("imports_loop.scn", "import \"loop_a\"\n");
  RunResult d = runScn({"sub"}, dir.path);
  EXPECT_EQ(d.exitCode, 1);
  EXPECT_EQ(d.err, "scn: error[E0502]: cannot read \"sub\": it is a directory, not a source file\n"
                   "help: give the path of a .scn file\n");
  RunResult loop = runScn({"loop_a"}, dir.path);
  EXPECT_EQ(loop.exitCode, 1);
  EXPECT_EQ(loop.err, "scn: error[E0502]: cannot read \"loop_a\": too many levels of symbolic links\n"
                      "help: check the path and its permissions\n");
  RunResult imp = runScn({"imports_loop.scn"}, dir.path);
  EXPECT_EQ(imp.exitCode, 1);
  EXPECT_EQ(imp.err, "imports_loop.scn:1:1: error[E0502]: cannot read \"loop_a\": too many levels of symbolic links\n"
                     " 1 | import \"loop_a\"\n"
                     "   | ^~~~~~~~~~~~~~~\n"
                     "help: check the path and its permissions\n");
}

// Source files are bounded (kMaxSourceBytes): a bigger one is refused before it is read.
TEST(Cli, SourceFileSizeLimit) {
  TempDir dir("bigsource");
  fs::resize_file((dir.write("big.scn", ""), dir.path / "big.scn"), (size_t{64} << 20) + 1);  // sparse
  dir.write("main.scn", "import \"big.scn\"\n");
  RunResult big = runScn({"big.scn"}, dir.path);
  EXPECT_EQ(big.exitCode, 1);
  EXPECT_EQ(big.err, "scn: error[E0508]: \"big.scn\" is larger than 64 MiB, the limit for a source file\n"
                     "help: split the program into files that `import` each other\n");
  RunResult imp = runScn({"main.scn"}, dir.path);
  EXPECT_EQ(imp.exitCode, 1);
  EXPECT_EQ(imp.err.substr(0, imp.err.find('\n')),
            "main.scn:1:1: error[E0508]: \"big.scn\" is larger than 64 MiB, the limit for a source file");
}

// An import chain deeper than the limit is one diagnostic at the import past it, naming the
// limit and where the chain starts; a chain of 20000 files used to overflow the stack.
TEST(Cli, ImportDepthLimit) {
  TempDir dir("importchain");
  const int kFiles = 100;
  for (int i = 0; i < kFiles; ++i)
    dir.write("c" + std::to_string(i) + ".scn", "import \"c" + std::to_string(i + 1) + ".scn\"\n");
  dir.write("c" + std::to_string(kFiles) + ".scn", "print(1)\n");
  RunResult r = runScn({"c0.scn"}, dir.path);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "c64.scn:1:1: error[E0509]: imports nest deeper than 64 files\n"
                   " 1 | import \"c65.scn\"\n"
                   "   | ^~~~~~~~~~~~~~~~\n"
                   "c0.scn:1:1: note: the chain of imports starts here\n"
                   " 1 | import \"c1.scn\"\n"
                   "   | ^~~~~~~~~~~~~~~\n"
                   "c63.scn:1:1: note: in the file imported here\n"
                   " 1 | import \"c64.scn\"\n"
                   "   | ^~~~~~~~~~~~~~~~\n"
                   "help: import the files side by side from one file, not each from the one before\n");
}

INSTANTIATE_TEST_SUITE_P(Scn, Program, ::testing::ValuesIn(programFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
