// Runs REPL transcripts (tests/repl/*.repl) through `scn` in its piped mode: the "> " lines are
// fed to stdin and everything else must match the merged stdout+stderr exactly. Also the CLI
// surfaces a transcript cannot show: --cache-dir with --stats across processes, Ctrl-C (SIGINT)
// stopping a compiled loop, and :mem on the CUDA emulation backend.
#include <gtest/gtest.h>

#include "test_backends.hpp"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test_files.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> transcripts() {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(fs::path(SCN_SOURCE_DIR) / "tests/repl"))
    if (e.path().extension() == ".repl") v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

class Repl : public ::testing::TestWithParam<std::string> {};

TEST_P(Repl, TranscriptMatches) {
  std::istringstream in(readAll(fs::path(SCN_SOURCE_DIR) / "tests/repl" / GetParam()));
  std::string line, input, expected;
  while (std::getline(in, line)) {
    if (line.rfind("# needs backend: ", 0) == 0 && input.empty() && !scn::test::backendBuilt(line.substr(17)))
      GTEST_SKIP() << "the " << line.substr(17) << " backend is not in this build";
    if (line.rfind("# ", 0) == 0 && input.empty()) continue;  // header comments
    if (line.rfind("> ", 0) == 0) input += line.substr(2) + "\n";
    else expected += line + "\n";
  }
  fs::path tmp = fs::temp_directory_path() / ("scn_repl_" + std::to_string(getpid()));
  std::ofstream(tmp.string() + ".in") << input;
  // From tests/repl, so `import` and `:load` paths in a transcript are relative to it.
  std::string cmd = "cd '" + (fs::path(SCN_SOURCE_DIR) / "tests/repl").string() + "' && '" + std::string(SCN_BINARY) +
                    "' < '" + tmp.string() + ".in' > '" + tmp.string() + ".out' 2>&1";
  int status = std::system(cmd.c_str());
  std::string out = readAll(tmp.string() + ".out");
  fs::remove(tmp.string() + ".in");
  fs::remove(tmp.string() + ".out");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(out, expected);
}

INSTANTIATE_TEST_SUITE_P(Scn, Repl, ::testing::ValuesIn(transcripts()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

/// Runs a shell command line; returns the exit status (-1 if it did not exit) and fills the
/// command's stdout and stderr.
int runCli(const std::string& args, std::string& out, std::string& err, const std::string& input = "",
           const std::string& env = "") {
  fs::path tmp = fs::temp_directory_path() / ("scn_cli_" + std::to_string(getpid()));
  std::ofstream(tmp.string() + ".in") << input;
  std::string cmd = env + " '" + std::string(SCN_BINARY) + "' " + args + " < '" + tmp.string() + ".in' > '" +
                    tmp.string() + ".out' 2> '" + tmp.string() + ".err'";
  int status = std::system(cmd.c_str());
  out = readAll(tmp.string() + ".out");
  err = readAll(tmp.string() + ".err");
  for (const char* ext : {".in", ".out", ".err"}) fs::remove(tmp.string() + ext);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Cli, CacheDirServesASecondProcess) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  fs::path dir = fs::temp_directory_path() / ("scn_cli_cache_" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::string prog = "-e 'fn f(x) = sin(x) * 3.0 + x; f(arange(5.0))'";
  std::string out1, err1, out2, err2, out3, err3;
  std::string common = "--backend=cpu --stats --cache-dir='" + dir.string() + "' ";
  ASSERT_EQ(runCli(common + prog, out1, err1), 0) << err1;
  ASSERT_EQ(runCli(common + prog, out2, err2), 0) << err2;
  EXPECT_EQ(out1, out2);
  EXPECT_NE(err1.find("stats: f traced backend=cpu"), std::string::npos) << err1;
  EXPECT_NE(err1.find("cache=miss"), std::string::npos) << err1;
  EXPECT_NE(err2.find("cache=hit"), std::string::npos) << err2;
  EXPECT_NE(err2.find("device=none"), std::string::npos) << err2;
  EXPECT_TRUE(fs::is_directory(dir / "cpu"));
  // `-` turns the cache off: a miss again, whatever the directory holds.
  ASSERT_EQ(runCli("--backend=cpu --stats --cache-dir=- " + prog, out3, err3), 0) << err3;
  EXPECT_EQ(out3, out1);
  EXPECT_NE(err3.find("cache=miss"), std::string::npos) << err3;
  ASSERT_EQ(runCli("--cache-dir= -e 1", out3, err3), 2);
  EXPECT_NE(err3.find("--cache-dir needs a directory"), std::string::npos) << err3;
  fs::remove_all(dir);
}

TEST(Cli, DefaultCacheDirFollowsTheEnvironment) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  fs::path xdg = fs::temp_directory_path() / ("scn_cli_xdg_" + std::to_string(getpid()));
  fs::remove_all(xdg);
  std::string prog = "--backend=cpu --stats -e 'fn g(x) = x * x - 2.0; g(arange(3.0))'";
  std::string base = "env -u SCN_CACHE_DIR -u SCN_NO_CACHE XDG_CACHE_HOME='" + xdg.string() + "'";
  std::string out, err;
  // SCN_NO_CACHE turns the default off: nothing is written.
  ASSERT_EQ(runCli(prog, out, err, "", base + " SCN_NO_CACHE=1"), 0) << err;
  EXPECT_FALSE(fs::exists(xdg / "scn")) << err;
  // Else $XDG_CACHE_HOME/scn (no SCN_CACHE_DIR): the second process hits.
  ASSERT_EQ(runCli(prog, out, err, "", base), 0) << err;
  EXPECT_TRUE(fs::is_directory(xdg / "scn" / "cpu"));
  ASSERT_EQ(runCli(prog, out, err, "", base), 0) << err;
  EXPECT_NE(err.find("cache=hit"), std::string::npos) << err;
  // $SCN_CACHE_DIR comes first.
  ASSERT_EQ(runCli(prog, out, err, "", base + " SCN_CACHE_DIR='" + (xdg / "own").string() + "'"), 0) << err;
  EXPECT_TRUE(fs::is_directory(xdg / "own" / "cpu"));
  EXPECT_NE(err.find("cache=miss"), std::string::npos) << err;
  fs::remove_all(xdg);
}

/// A running `scn` with pipes to its stdin, stdout and stderr.
struct Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;

  explicit Child(const std::vector<std::string>& args) {
    int i[2], o[2], e[2];
    if (pipe(i) != 0 || pipe(o) != 0 || pipe(e) != 0) return;
    pid = fork();
    if (pid == 0) {
      dup2(i[0], 0);
      dup2(o[1], 1);
      dup2(e[1], 2);
      for (int fd : {i[0], i[1], o[0], o[1], e[0], e[1]}) close(fd);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(SCN_BINARY));
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(SCN_BINARY, argv.data());
      _exit(127);
    }
    close(i[0]);
    close(o[1]);
    close(e[1]);
    in = i[1];
    out = o[0];
    err = e[0];
  }
  ~Child() {
    for (int fd : {in, out, err})
      if (fd >= 0) close(fd);
    if (pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  void write(const std::string& text) const { ASSERT_EQ(::write(in, text.data(), text.size()), (ssize_t)text.size()); }
  void closeInput() {
    close(in);
    in = -1;
  }
  /// Reads stdout until it contains `marker` (or the stream ends); returns all read.
  std::string readUntil(const std::string& marker) const {
    std::string got;
    char buf[256];
    while (got.find(marker) == std::string::npos) {
      ssize_t n = read(out, buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
    return got;
  }
  static std::string drain(int fd) {
    std::string got;
    char buf[256];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
    return got;
  }
  /// Waits for the exit, polling with a generous limit; -1 when it did not exit by itself.
  int wait() {
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) return -1;  // the destructor kills it
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

// The loop never ends on its own: c == c holds for every float the carry reaches.
const char* kEndless = "while_loop(|c| c == c, |c| c + 1.0, 0.0)";

TEST(Cli, SigintStopsACompiledLoop) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  Child c({"--backend=cpu", "--cache-dir=-", "-e", std::string("print(\"spinning\"); ") + kEndless});
  ASSERT_GT(c.pid, 0);
  // Wait for the program to start (its print comes before the loop), then press Ctrl-C once.
  std::string out = c.readUntil("spinning");
  ASSERT_NE(out.find("spinning"), std::string::npos) << out;
  kill(c.pid, SIGINT);
  int code = c.wait();
  std::string err = Child::drain(c.err);
  EXPECT_EQ(code, 1) << "scn did not exit with status 1 within two minutes of SIGINT";
  EXPECT_NE(err.find("<-e>:1:20: error[E0507]: interrupted"), std::string::npos) << err;
}

TEST(Cli, ReplCtrlCStopsAnEntryAndTheSessionGoesOn) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  Child c({"--backend=cpu", "--cache-dir=-"});
  ASSERT_GT(c.pid, 0);
  c.write("let kept = 41\nfn spin(x) = while_loop(|c| c == c, |c| c + 1.0, x)\n");
  c.write("print(\"spinning\"); spin(0.0)\n");
  std::string out = c.readUntil("spinning");
  ASSERT_NE(out.find("spinning"), std::string::npos) << out;
  kill(c.pid, SIGINT);
  c.write("kept + 1\n");  // the next entry runs in the same session
  c.closeInput();
  int code = c.wait();
  out += Child::drain(c.out);
  std::string err = Child::drain(c.err);
  EXPECT_EQ(code, 0);
  EXPECT_NE(err.find("<repl:3>:1:20: error[E0507]: interrupted"), std::string::npos) << err;
  EXPECT_NE(out.find("\n42\n"), std::string::npos) << out;
}

#ifdef SCN_HAVE_CUDA
// The CUDA emulation backend keeps its buffers in emulated device memory: :mem reports both.
TEST(Cli, MemReportsDeviceBytesOnCudaEmulation) {
  std::string out, err;
  ASSERT_EQ(runCli("--backend=cuda-emu --cache-dir=-", out, err,
                   "fn f(x) = x * 2.0 + 1.0\n:mem f(arange(4.0))\n"), 0) << err;
  // The argument and the result on the device (16 bytes each), the result on the host.
  EXPECT_EQ(out, "f: host peak 16 bytes, device peak 32 bytes, 0 bytes copied for loop carries\n") << err;
}

// :cuda shows the kernels of a call, not the prelude every translation unit repeats; `:cuda
// prelude` shows that, and --emit=cuda both (what nvcc compiles).
TEST(Cli, CudaShowsTheKernelsAndThePreludeOnRequest) {
  std::string out, err;
  ASSERT_EQ(runCli("--cache-dir=-", out, err, "fn f(x) = sin(x) + 1.0\n:cuda f(ones(4))\n"), 0) << err;
  EXPECT_EQ(out.rfind("// the CUDA prelude is left out (`:cuda prelude` prints it; --emit=cuda prints both)\n"
                      "// program f: 1 kernels\n"
                      "extern \"C\" __global__ void k0(", 0), 0u) << out;
  EXPECT_EQ(out.find("scn CUDA prelude"), std::string::npos) << out;
  std::string prelude;
  ASSERT_EQ(runCli("--cache-dir=-", prelude, err, ":cuda prelude\n"), 0) << err;
  EXPECT_EQ(prelude.rfind("// ---- scn CUDA prelude (jit/cuda/prelude.cpp) ----\n", 0), 0u) << prelude;
  EXPECT_NE(prelude.find("// ---- end of prelude ----"), std::string::npos);
}
#endif

}  // namespace
