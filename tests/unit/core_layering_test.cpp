// The layers the folders show (docs/design.md, "The pipeline"): each folder includes only what
// is below it, LLVM only in jit/cpu/ and CUDA only in jit/cuda/; and files stay one concept long. Read from the source tree, so a
// stray include fails here with the file and the line, not later as a link error on a machine
// without LLVM.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Include {
  std::string file;  // relative to the source root
  int line;
  std::string target;  // what is between the quotes or brackets
};

std::vector<fs::path> librarySources() {
  std::vector<fs::path> files;
  for (const char* dir : {"base", "jit", "lang", "driver"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(SCN_SOURCE_DIR) / dir)) {
      std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".cpp" || ext == ".hpp" || ext == ".inc" || ext == ".re" || ext == ".def"))
        files.push_back(e.path());
    }
  return files;
}

std::vector<Include> includesOf(const fs::path& path) {
  std::vector<Include> out;
  std::ifstream in(path);
  std::string text;
  int line = 0;
  std::string rel = fs::relative(path, SCN_SOURCE_DIR).string();
  while (std::getline(in, text)) {
    ++line;
    size_t p = text.find_first_not_of(" \t");
    if (p == std::string::npos || text.compare(p, 8, "#include") != 0) continue;
    size_t open = text.find_first_of("\"<", p + 8);
    if (open == std::string::npos) continue;
    size_t close = text.find(text[open] == '"' ? '"' : '>', open + 1);
    if (close == std::string::npos) continue;
    out.push_back({rel, line, text.substr(open + 1, close - open - 1)});
  }
  return out;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

bool isLlvmHeader(const std::string& t) { return startsWith(t, "llvm/") || startsWith(t, "llvm-c/"); }
bool isCudaHeader(const std::string& t) {
  return t == "cuda.h" || t == "nvrtc.h" || t == "cublas_v2.h" || t == "cufft.h" || startsWith(t, "cuda_") ||
         startsWith(t, "cusolver");
}

/// Why `inc` breaks the layering, or "" when it is allowed.
std::string violation(const Include& inc) {
  const std::string& f = inc.file;
  const std::string& t = inc.target;
  bool inCpu = startsWith(f, "jit/cpu/"), inCuda = startsWith(f, "jit/cuda/");
  if (isLlvmHeader(t) && !inCpu) return "only jit/cpu/ includes LLVM";
  if (isCudaHeader(t) && !inCuda) return "only jit/cuda/ includes CUDA";
  if (startsWith(f, "base/") && (startsWith(t, "jit/") || startsWith(t, "lang/") || startsWith(t, "driver/")))
    return "base/ is the bottom layer";
  if (startsWith(f, "jit/") && (startsWith(t, "lang/") || startsWith(t, "driver/")))
    return "jit/ is below lang/ and driver/";
  if (startsWith(f, "lang/") &&
      (startsWith(t, "driver/") || startsWith(t, "jit/cpu/") || startsWith(t, "jit/cuda/")))
    return "lang/ reaches backends only through jit/backend.hpp";
  if (startsWith(f, "jit/") && !inCpu && !inCuda && (startsWith(t, "jit/cpu/") || startsWith(t, "jit/cuda/")))
    return "the backend-neutral jit/ names no backend";
  if (inCpu && startsWith(t, "jit/cuda/")) return "the backends do not include each other";
  if (inCuda && startsWith(t, "jit/cpu/")) return "the backends do not include each other";
  return "";
}

TEST(Layering, EveryIncludeRespectsTheLayers) {
  std::vector<fs::path> files = librarySources();
  ASSERT_GT(files.size(), 50u) << "the source tree was not found at " << SCN_SOURCE_DIR;
  for (const fs::path& p : files)
    for (const Include& inc : includesOf(p)) {
      std::string why = violation(inc);
      EXPECT_EQ(why, "") << inc.file << ":" << inc.line << ": includes " << inc.target;
    }
}

// One concept per file (issue 15): a library file past 600 lines holds more than one; split it.
TEST(Layering, NoLibrarySourceFileIsOver600Lines) {
  for (const fs::path& p : librarySources()) {
    std::ifstream in(p);
    int lines = 0;
    for (std::string text; std::getline(in, text);) ++lines;
    EXPECT_LE(lines, 600) << fs::relative(p, SCN_SOURCE_DIR).string() << " has " << lines << " lines";
  }
}

TEST(Layering, TheRulesCatchAStrayInclude) {
  EXPECT_EQ(violation({"jit/kernel/lower.cpp", 1, "base/diagnostics.hpp"}), "");
  EXPECT_NE(violation({"jit/kernel/lower.cpp", 1, "lang/eval.hpp"}), "");
  EXPECT_NE(violation({"lang/eval.cpp", 1, "jit/cpu/cpu_backend.hpp"}), "");
  EXPECT_NE(violation({"lang/eval.cpp", 1, "driver/session.hpp"}), "");
  EXPECT_NE(violation({"base/diagnostics.cpp", 1, "jit/ir.hpp"}), "");
  EXPECT_NE(violation({"driver/session.cpp", 1, "llvm/IR/Module.h"}), "");
  EXPECT_NE(violation({"jit/cpu/llvm_jit.cpp", 1, "cuda.h"}), "");
  EXPECT_EQ(violation({"jit/cpu/llvm_jit.cpp", 1, "llvm/IR/Module.h"}), "");
  EXPECT_EQ(violation({"driver/session.cpp", 1, "jit/cpu/cpu_backend.hpp"}), "");
}

}  // namespace
