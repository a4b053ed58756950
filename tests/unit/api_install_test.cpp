// Installs scn into a temporary prefix (`cmake --install`), builds the example hosts in
// examples/embed against it with find_package(scn) and with pkg-config, runs them and checks
// their output against values computed here.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>
#include "test_files.hpp"

namespace fs = std::filesystem;

namespace {

#ifdef SCN_CMAKE_COMMAND
constexpr bool kConfigured = true;
#else
// Without cmake/install.cmake in the build there is no package to install.
constexpr bool kConfigured = false;
#define SCN_CMAKE_COMMAND "cmake"
#define SCN_BUILD_DIR ""
#define SCN_CMAKE_GENERATOR ""
#define SCN_C_COMPILER "cc"
#define SCN_CXX_COMPILER "c++"
#endif
#ifndef SCN_HOST_FLAGS
#define SCN_HOST_FLAGS ""
#endif
#ifndef SCN_HOST_LINK_FLAGS
#define SCN_HOST_LINK_FLAGS ""
#endif

struct Proc {
  int status = -1;
  std::string output;
};

/// Runs a shell command, capturing stdout and stderr together.
Proc shell(const std::string& cmd) {
  Proc r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string quote(const fs::path& p) { return "'" + p.string() + "'"; }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// The lines the hosts print for their calls, computed independently of scn.
std::string expectedSaxpy() {
  std::string s = "saxpy: f32[4]";
  float a = 2, x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  for (int i = 0; i < 4; ++i) s += fmt(" %g", a * x[i] + y[i]);
  return s;
}

class ApiInstall : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kConfigured) GTEST_SKIP() << "cmake/install.cmake is not part of this build";
    if (shell(std::string(SCN_CMAKE_COMMAND) + " --version").status != 0)
      GTEST_SKIP() << "cmake is not available to build the example hosts";
    root_ = fs::temp_directory_path() / ("scn-install-test-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    prefix_ = root_ / "prefix";
  }
  void TearDown() override {
    if (!root_.empty() && !HasFailure()) fs::remove_all(root_);
  }

  fs::path root_, prefix_;
};

TEST_F(ApiInstall, InstallThenBuildAndRunTheExampleHosts) {
  const std::string cmake = quote(SCN_CMAKE_COMMAND);
  Proc inst = shell(cmake + " --install " + quote(SCN_BUILD_DIR) + " --prefix " + quote(prefix_));
  ASSERT_EQ(inst.status, 0) << inst.output;
  for (const char* f : {"include/scn/scn.h", "include/scn/scn.hpp", "lib/cmake/scn/scnConfig.cmake",
                        "lib/cmake/scn/scnConfigVersion.cmake", "lib/cmake/scn/scnTargets.cmake",
                        "lib/pkgconfig/scn.pc", "bin/scn", "share/doc/scn/README.md",
                        "share/doc/scn/tutorial.md", "share/doc/scn/errors/syntax.md"})
    EXPECT_TRUE(fs::exists(prefix_ / f)) << f << "\n" << inst.output;
#ifdef SCN_HAVE_MAN_PAGE
  // The man page is generated from --help: every option is in it.
  std::string man = readAll(prefix_ / "share/man/man1/scn.1");
  for (const char* option : {"backend", "emit", "print\\-after", "stats", "cache\\-clear", "color"})
    EXPECT_NE(man.find(std::string("\\fB\\-\\-") + option), std::string::npos) << option << "\n" << man;
  EXPECT_NE(man.find(".SH \"SEE ALSO\""), std::string::npos) << man;
#endif
  // The installed binary's --help points at the installed docs.
  Proc help = shell(quote(prefix_ / "bin/scn") + " --help");
  EXPECT_EQ(help.status, 0) << help.output;
  EXPECT_NE(help.output.find("docs: " + (prefix_ / "share/doc/scn").string() + "/README.md"), std::string::npos)
      << help.output;
  bool haveLib = false;
  for (const auto& e : fs::directory_iterator(prefix_ / "lib"))
    if (e.path().filename().string().rfind("libscn.so", 0) == 0) haveLib = true;
  EXPECT_TRUE(haveLib);

  // find_package(scn) from a fresh project: examples/embed.
  fs::path build = root_ / "build";
  std::string gen = std::string(SCN_CMAKE_GENERATOR).empty() ? "" : " -G " + quote(SCN_CMAKE_GENERATOR);
  Proc conf = shell(cmake + " -S " + quote(fs::path(SCN_SOURCE_DIR) / "examples/embed") + " -B " + quote(build) +
                 gen + " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + quote(prefix_) +
                 " -DCMAKE_C_COMPILER=" + quote(SCN_C_COMPILER) + " -DCMAKE_CXX_COMPILER=" + quote(SCN_CXX_COMPILER) +
                 " -DCMAKE_C_FLAGS=" + quote(SCN_HOST_FLAGS) + " -DCMAKE_CXX_FLAGS=" + quote(SCN_HOST_FLAGS) +
                 " -DCMAKE_EXE_LINKER_FLAGS=" + quote(std::string(SCN_HOST_FLAGS) + " " + SCN_HOST_LINK_FLAGS));
  ASSERT_EQ(conf.status, 0) << conf.output;
  Proc bld = shell(cmake + " --build " + quote(build) + " -j 2");
  ASSERT_EQ(bld.status, 0) << bld.output;

  Proc c = shell(quote(build / "host_c"));
  EXPECT_EQ(c.status, 0) << c.output;
  EXPECT_NE(c.output.find(expectedSaxpy() + "\n"), std::string::npos) << c.output;
  {
    // affine: [[1,2,3],[4,5,6]] @ [1,0,-1] + [0.5,-0.5]
    std::string want = "affine: f64[2]" + fmt(" %g", 1 - 3 + 0.5) + fmt(" %g", 4 - 6 - 0.5);
    EXPECT_NE(c.output.find(want + "\n"), std::string::npos) << c.output;
    EXPECT_NE(c.output.find("stats: i32[] 14\nstats: i32[] 5\n"), std::string::npos) << c.output;
    EXPECT_NE(c.output.find("diagnostic E0203 at embed.scn:2:"), std::string::npos) << c.output;
    EXPECT_NE(c.output.find("saxpy failed (program error): embed.scn:2:"), std::string::npos) << c.output;
    EXPECT_NE(c.output.find("diagnostics: 1\n"), std::string::npos) << c.output;
  }

  Proc cpp = shell(quote(build / "host_cpp"));
  EXPECT_EQ(cpp.status, 0) << cpp.output;
  EXPECT_NE(cpp.output.find("program says: hello from scn\n"), std::string::npos) << cpp.output;
  EXPECT_NE(cpp.output.find(expectedSaxpy() + "\n"), std::string::npos) << cpp.output;
  {
    double m[6] = {3, 4, 0, 1, 2, 2};
    double n0 = std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    double n1 = std::sqrt(m[3] * m[3] + m[4] * m[4] + m[5] * m[5]);
    EXPECT_NE(cpp.output.find("norms: f64[2]" + fmt(" %g", n0) + fmt(" %g", n1) + "\n"), std::string::npos)
        << cpp.output;
    EXPECT_NE(cpp.output.find("running: f64[2]" + fmt(" %g", n0) + fmt(" %g", n0 + n1) + "\n"), std::string::npos)
        << cpp.output;
    double logits[4] = {1, 2, 3, 0.5}, total = 0;
    for (double l : logits) total += std::exp(l - 3);
    std::string softmax = "softmax: f64[4]";
    for (double l : logits) softmax += fmt(" %g", std::exp(l - 3) / total);
    EXPECT_NE(cpp.output.find(softmax + "\n"), std::string::npos) << cpp.output;
    EXPECT_NE(cpp.output.find("threads: " + fmt("%g", 14) + " " + fmt("%g", 114) + "\n"), std::string::npos)
        << cpp.output;
    EXPECT_NE(cpp.output.find("diagnostic E0203 at embed.scn:2:"), std::string::npos) << cpp.output;
    EXPECT_NE(cpp.output.find("diagnostics: 1\n"), std::string::npos) << cpp.output;
  }

  // pkg-config: the C host built by hand from the installed scn.pc.
  if (shell("pkg-config --version").status != 0) {
    std::printf("pkg-config is not available: skipping the pkg-config build\n");
    return;
  }
  std::string pc = "PKG_CONFIG_PATH=" + quote(prefix_ / "lib/pkgconfig") + " pkg-config";
  Proc flags = shell(pc + " --cflags --libs scn");
  ASSERT_EQ(flags.status, 0) << flags.output;
  Proc version = shell(pc + " --modversion scn");
  EXPECT_EQ(version.output, "0.1.0\n");
  fs::path exe = root_ / "host_c_pc";
  std::string f = flags.output.substr(0, flags.output.find('\n'));
  Proc cc = shell(quote(SCN_C_COMPILER) + " -std=c99 " + SCN_HOST_FLAGS + " -o " + quote(exe) + " " +
               quote(fs::path(SCN_SOURCE_DIR) / "examples/embed/host.c") + " " + f + " -Wl,-rpath," +
               quote(prefix_ / "lib") + " " + SCN_HOST_LINK_FLAGS);
  ASSERT_EQ(cc.status, 0) << cc.output;
  Proc pcRun = shell(quote(exe));
  EXPECT_EQ(pcRun.status, 0) << pcRun.output;
  EXPECT_EQ(pcRun.output, c.output);
}

}  // namespace
