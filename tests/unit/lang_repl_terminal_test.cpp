// The REPL on a terminal: tab completion (Note [Completion] in driver/repl_complete.cpp), both
// as a function of the line and through editline under a pseudo-terminal, Ctrl-C at the prompt
// and while an entry runs, `exit()`, and the coloured prompt.
#include <gtest/gtest.h>

#include "test_backends.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/repl_internal.hpp"

namespace fs = std::filesystem;

namespace {

bool has(const std::vector<std::string>& v, const std::string& w) {
  return std::find(v.begin(), v.end(), w) != v.end();
}

scn::SessionOptions interpOptions() {
  scn::SessionOptions o;
  o.backend = "interp";
  return o;
}

TEST(Completion, CommandsNamesDtypesAndKeywords) {
  scn::Session s(interpOptions());
  ASSERT_TRUE(s.run("<test>", "fn scale_by(x, factor, static axis_count) = x * factor\nlet scaled_value = 1.0"));
  EXPECT_EQ(scn::completionsAt(s, ":he", 3), std::vector<std::string>{":help"});
  EXPECT_EQ(scn::completionsAt(s, "  :st", 5), std::vector<std::string>{":stats"});
  EXPECT_EQ(scn::completionsAt(s, "cums", 4), std::vector<std::string>{"cumsum"});
  EXPECT_EQ(scn::completionsAt(s, "1 + scale", 9), (std::vector<std::string>{"scale_by", "scaled_value"}));
  EXPECT_EQ(scn::completionsAt(s, "zeros(3, dtype=f6", 17), std::vector<std::string>{"f64"});
  // Keyword arguments of the call the cursor is in: a builtin's, then a fn's.
  EXPECT_EQ(scn::completionsAt(s, "sum(x, keepd", 12), std::vector<std::string>{"keepdims="});
  EXPECT_TRUE(has(scn::completionsAt(s, "sum(x, ax", 9), "axis="));  // and names: axis_index
  EXPECT_TRUE(has(scn::completionsAt(s, "scale_by(1.0, fa", 16), "factor="));
  EXPECT_TRUE(has(scn::completionsAt(s, "scale_by(sum(x), a", 18), "axis_count="));
  EXPECT_FALSE(has(scn::completionsAt(s, "scale_by(sum(x), a", 18), "axis="));  // sum's call is closed
  // Only up to the cursor counts.
  EXPECT_EQ(scn::completionsAt(s, "cums(x)", 4), std::vector<std::string>{"cumsum"});
}

TEST(Completion, FilePathsAfterLoadAndInImports) {
  fs::path dir = fs::temp_directory_path() / ("scn_complete_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "lib");
  std::ofstream(dir / "lib" / "model.scn") << "1\n";
  std::ofstream(dir / "lib" / "notes.txt") << "not scn\n";
  scn::Session s(interpOptions());
  std::string d = dir.string();
  EXPECT_EQ(scn::completionsAt(s, ":load " + d + "/l", 8 + d.size()), std::vector<std::string>{d + "/lib/"});
  EXPECT_EQ(scn::completionsAt(s, ":load " + d + "/lib/", 11 + d.size()), std::vector<std::string>{d + "/lib/model.scn"});
  std::string imp = "import \"" + d + "/lib/m";
  EXPECT_EQ(scn::completionsAt(s, imp, imp.size()), std::vector<std::string>{d + "/lib/model.scn"});
  std::string closed = "import \"" + d + "/lib/model.scn\" as m";
  EXPECT_FALSE(has(scn::completionsAt(s, closed, closed.size()), d + "/lib/model.scn"));
  fs::remove_all(dir);
}

/// scn's REPL on a pseudo-terminal: write keys, wait for text to appear on the screen.
class Terminal {
 public:
  explicit Terminal(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    home_ = fs::temp_directory_path() / ("scn_pty_home_" + std::to_string(getpid()));
    fs::create_directories(home_);
    master_ = posix_openpt(O_RDWR | O_NOCTTY);
    if (master_ < 0 || grantpt(master_) != 0 || unlockpt(master_) != 0) return;
    std::string slave = ptsname(master_);
    pid_ = fork();
    if (pid_ == 0) {
      setsid();
      int fd = open(slave.c_str(), O_RDWR);  // becomes the controlling terminal
      dup2(fd, 0);
      dup2(fd, 1);
      dup2(fd, 2);
      if (fd > 2) close(fd);
      setenv("HOME", home_.c_str(), 1);
      setenv("TERM", "vt100", 1);
      for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
      std::vector<char*> argv{const_cast<char*>(SCN_BINARY)};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(SCN_BINARY, argv.data());
      _exit(127);
    }
  }
  ~Terminal() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
    fs::remove_all(home_);
  }
  void type(const std::string& keys) { ASSERT_EQ(write(master_, keys.data(), keys.size()), (ssize_t)keys.size()); }
  /// Reads until `text` has appeared since the last wait (true), or 20 s passed (false).
  bool waitFor(const std::string& text) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (screen_.find(text, seen_) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      struct pollfd p {master_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      ssize_t n = read(master_, buf, sizeof buf);
      if (n <= 0) return false;
      screen_.append(buf, static_cast<size_t>(n));
    }
    seen_ = screen_.find(text, seen_) + text.size();
    return true;
  }
  /// The exit status once scn ended within 20 s, else -1.
  int exitStatus() {
    for (int i = 0; i < 200; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      char buf[4096];
      struct pollfd p {master_, POLLIN, 0};
      if (poll(&p, 1, 100) > 0 && read(master_, buf, sizeof buf) > 0) continue;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // hung up: scn is ending
    }
    return -1;
  }
  const std::string& screen() const { return screen_; }
  bool started() const { return pid_ > 0; }

 private:
  fs::path home_;
  int master_ = -1;
  pid_t pid_ = -1;
  bool exited_ = false;
  std::string screen_;
  size_t seen_ = 0;
};

TEST(Terminal, TabCompletesCommandsAndKeywordArguments) {
  Terminal t({"--backend=interp", "--color=never"});
  ASSERT_TRUE(t.started());
  ASSERT_TRUE(t.waitFor("scn> ")) << t.screen();
  // editline redraws the line with cursor movements, so what the completions did shows in
  // what the entries then do: `:help cumsum` and a sum with `keepdims=false`.
  t.type(":he\t");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  t.type(" cums\t");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  t.type("\r");
  ASSERT_TRUE(t.waitFor("cumsum(x, axis=None")) << t.screen();
  t.type("sum(ones((2, 3)), axis=0, keepd\t");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  t.type("false)\r");
  ASSERT_TRUE(t.waitFor("[2.0, 2.0, 2.0]")) << t.screen();
  t.type("exit()\r");
  EXPECT_EQ(t.exitStatus(), 0) << t.screen();
}

TEST(Terminal, CtrlCDropsTheLineOrStopsTheEntry) {
  Terminal t({"--backend=interp", "--color=never"});
  ASSERT_TRUE(t.started());
  ASSERT_TRUE(t.waitFor("scn> ")) << t.screen();
  t.type("1 + ");
  ASSERT_TRUE(t.waitFor("1 + ")) << t.screen();
  t.type("\x03");  // Ctrl-C at the prompt: the line goes, the REPL stays
  ASSERT_TRUE(t.waitFor("scn> ")) << t.screen();
  t.type("40 + 2\r");
  ASSERT_TRUE(t.waitFor("42")) << t.screen();
  t.type("while_loop(|c| c >= 0, |c| c + 1, 0)\r");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  t.type("\x03");  // while it runs: the entry stops with E0507
  ASSERT_TRUE(t.waitFor("E0507")) << t.screen();
  ASSERT_TRUE(t.waitFor("scn> ")) << t.screen();
  t.type("6 * 7\r");
  ASSERT_TRUE(t.waitFor("42")) << t.screen();
  t.type("quit\r");
  EXPECT_EQ(t.exitStatus(), 0) << t.screen();
}

TEST(Terminal, ThePromptIsColouredWhenAsked) {
  Terminal t({"--backend=interp", "--color=always"});
  ASSERT_TRUE(t.started());
  ASSERT_TRUE(t.waitFor("\033[1;34mscn> ")) << t.screen();
  t.type("y\r");  // and the diagnostic too
  ASSERT_TRUE(t.waitFor("\033[")) << t.screen();
  ASSERT_TRUE(t.waitFor("unknown name")) << t.screen();
  t.type(":quit\r");
  EXPECT_EQ(t.exitStatus(), 0) << t.screen();
}

// A function whose LLVM compile takes seconds: 400 unrolled steps of a scan and a sine.
const char* kSlowFunction =
    "fn big(x) { let y = x; for i in 0..400 { y = cumsum(sin(y) * 1.0001) / 10.0 }; y }\r";

// A slow compile says so while it runs (Note [Slow compiles]; the threshold made short here),
// and Ctrl-C stops it in the optimiser (Note [Interrupting the optimiser]) with E0507, long
// before the compile would have ended; the REPL goes on.
TEST(Terminal, ASlowCompileSaysSoAndCtrlCStopsIt) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  Terminal t({"--backend=cpu", "--cache-dir=-", "--color=never"}, {"SCN_COMPILE_NOTICE_MS=300"});
  ASSERT_TRUE(t.started());
  ASSERT_TRUE(t.waitFor("scn> ")) << t.screen();
  t.type(kSlowFunction);
  ASSERT_TRUE(t.waitFor("scn> ")) << t.screen();
  t.type("big(arange(8.0))[0]\r");
  ASSERT_TRUE(t.waitFor("compiling big(f32[8]) ...")) << t.screen();
  auto start = std::chrono::steady_clock::now();
  t.type("\x03");
  ASSERT_TRUE(t.waitFor("error[E0507]: interrupted")) << t.screen();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 3.0) << t.screen();
  ASSERT_TRUE(t.waitFor("scn> ")) << t.screen();
  t.type("1 + 1\r");
  ASSERT_TRUE(t.waitFor("2")) << t.screen();
  t.type(":quit\r");
  EXPECT_EQ(t.exitStatus(), 0) << t.screen();
}

}  // namespace
