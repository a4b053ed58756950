// Runs every .scn program under tests/programs and examples through the `scn` binary, on each
// backend, and checks its inline expectations:
//   # expect: TEXT                  the next line the program prints is TEXT
//   # expect error[CODE]: MESSAGE   a diagnostic with this code and whole message on THIS line
//   # backends: interp              (optional) only these backends
// The backends are cpu, interp and, when scn is built with the CUDA toolkit, cuda-emu (the CUDA
// backend's generated code compiled for the host: Note [Emulation compile time] in
// jit/cuda/emulation.cpp keeps that to ~0.2 s per compiled function). A program whose output
// depends on one backend opts out with a `# backends:` line and a comment saying why.
// With the CUDA toolkit, every program's compiled functions are also compiled to PTX by NVRTC
// (`--emit=ptx`, the options of the GPU backend, no PTX cache), and each kernel printed by
// `--emit=cuda` must appear as a PTX entry.
// When FILE.stderr exists, the whole stderr must equal it (carets, notes, help lines).
// SCN_UPDATE_GOLDEN=1 rewrites those .stderr files from the actual output, for review.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

struct Expectations {
  std::vector<std::string> stdoutLines;
  std::vector<std::string> errors;  // "LINE: error[CODE]: message"
#ifdef SCN_HAVE_CUDA
  std::vector<std::string> backends = {"cpu", "interp", "cuda-emu"};
#else
  std::vector<std::string> backends = {"cpu", "interp"};
#endif
};

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

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
    at = line.find("# backends: ");
    if (at != std::string::npos) {
      e.backends.clear();
      std::istringstream bs(line.substr(at + 12));
      std::string b;
      while (bs >> b) {
#ifndef SCN_HAVE_CUDA
        if (b == "cuda-emu") continue;  // not built
#endif
        e.backends.push_back(b);
      }
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
      if (entry.path().extension() == ".scn")
        files.push_back(fs::relative(entry.path(), SCN_SOURCE_DIR).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Program : public ::testing::TestWithParam<std::string> {};

TEST_P(Program, MeetsItsExpectations) {
  fs::path file = fs::path(SCN_SOURCE_DIR) / GetParam();
  Expectations e = parseExpectations(file);
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
      // Each expected error appears as a header line "name.scn:LINE:COL: error[CODE]: message".
      std::vector<std::string> got;
      std::regex header("^" + std::regex_replace(file.filename().string(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                        R"(:(\d+):\d+: (error\[E\d+\]: .*)$)");
      for (const std::string& l : lines(r.err)) {
        std::smatch m;
        if (std::regex_match(l, m, header)) got.push_back(m[1].str() + ": " + m[2].str());
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

INSTANTIATE_TEST_SUITE_P(Scn, Program, ::testing::ValuesIn(programFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
