// Runs REPL transcripts (tests/repl/*.repl) through `scn` in its piped mode: the "> " lines are
// fed to stdin and everything else must match the merged stdout+stderr exactly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

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
    if (line.rfind("# ", 0) == 0 && input.empty()) continue;  // header comments
    if (line.rfind("> ", 0) == 0) input += line.substr(2) + "\n";
    else expected += line + "\n";
  }
  fs::path tmp = fs::temp_directory_path() / ("scn_repl_" + std::to_string(getpid()));
  std::ofstream(tmp.string() + ".in") << input;
  std::string cmd = "'" + std::string(SCN_BINARY) + "' < '" + tmp.string() + ".in' > '" + tmp.string() + ".out' 2>&1";
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

}  // namespace
