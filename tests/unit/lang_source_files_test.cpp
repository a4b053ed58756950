// Reading program files (driver/source_files.cpp) through a Session: an interrupt stops the read,
// a FIFO is refused at once, a file whose size the system does not know is read to its end, and
// the diagnostics the session keeps still render after the program that made them is gone
// (Note [Source lifetime]).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "driver/session.hpp"

namespace scn {
namespace {

namespace fs = std::filesystem;

struct Recorded {
  std::vector<Diagnostic> diags;
  std::unique_ptr<Session> session;
  Recorded() {
    SessionOptions o;
    o.backend = "interp";
    o.onDiagnostic = [this](const Diagnostic& d) { diags.push_back(d); };
    session = std::make_unique<Session>(o);
  }
};

fs::path tempPath(const std::string& name) {
  return fs::temp_directory_path() / ("scn_" + name + "_" + std::to_string(getpid()));
}

// A read of a (slow) source file stops on an interrupt; it used to read to the end, and a
// program of only comments then ran without any error.
TEST(SourceFiles, AnInterruptStopsTheRead) {
  fs::path p = tempPath("comments.scn");
  std::ofstream(p) << std::string(3 << 20, '#');
  Recorded r;
  r.session->interrupt();
  EXPECT_FALSE(r.session->runFile(p.string()));
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0].code, "E0507");
  fs::remove(p);
}

// A FIFO is refused without waiting for a writer (it used to block forever).
TEST(SourceFiles, AFifoIsRefusedAtOnce) {
  fs::path p = tempPath("fifo");
  fs::remove(p);
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
  Recorded r;
  EXPECT_FALSE(r.session->runFile(p.string()));
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0].code, "E0502");
  EXPECT_EQ(r.diags[0].message, "cannot read \"" + p.string() + "\": it is a FIFO, not a regular file");
  fs::remove(p);
}

// /proc files report a size of 0: the size is only a hint, the file is read to its end.
TEST(SourceFiles, AFileOfUnknownSizeIsReadToItsEnd) {
  Recorded r;
  EXPECT_FALSE(r.session->runFile("/proc/self/status"));  // not scn: a syntax error in it
  ASSERT_FALSE(r.diags.empty());
  EXPECT_EQ(r.diags[0].span.file->name(), "/proc/self/status");
  EXPECT_NE(r.diags[0].span.file->text().find("VmRSS"), std::string::npos);
}

// The diagnostics a session's sink keeps point into sources that are still alive after run()
// returned, also for a program that defined nothing and a broken imported file.
TEST(SourceFiles, KeptDiagnosticsStillRender) {
  fs::path p = tempPath("broken.scn");
  std::ofstream(p) << "let a = (1 + )\n";
  Recorded r;
  EXPECT_FALSE(r.session->run("<a>", "let x = (2 + )"));
  EXPECT_FALSE(r.session->run("<b>", "import \"" + p.string() + "\""));
  EXPECT_FALSE(r.session->run("<c>", "(|v| v[5])(1)"));
  const auto& kept = r.session->diagnostics().all();
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(render(kept[0]).substr(0, 4), "<a>:");
  EXPECT_EQ(render(kept[1]).substr(0, p.string().size()), p.string());
  EXPECT_NE(render(kept[1]).find("<b>:1:1: note: in the file imported here"), std::string::npos);
  EXPECT_EQ(render(kept[2]).substr(0, 4), "<c>:");
  fs::remove(p);
}

}  // namespace
}  // namespace scn
