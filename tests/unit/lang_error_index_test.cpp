// Keeps the error index complete and true: every code in the source has an entry, and every
// example in docs/errors/*.md still fails with the message the entry shows.
//
// - Codes are string literals of the form "E" + four digits found under lang/, jit/ and
//   include/. Each needs a `## E0xxx: title` heading (a heading may list several codes,
//   `## E0305, E0306: ...`) in some docs/errors/*.md and a table row `| [E0xxx](...) | ... |`
//   in docs/errors.md whose link leads to a file and heading that exist.
// - A fenced block of docs/errors/*.md that has a line starting with `# error[` is an example:
//   the lines above it are a program, run as `scn --backend=interp`; the first `error[...]`
//   line scn prints must equal the rest of that line (or start with it, when it ends in `...`).
//   Blocks whose info string contains `slow` run only with SCN_SLOW_DOC_TESTS=1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>
#include "test_files.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = SCN_SOURCE_DIR;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

/// Every "Exxxx" string literal in `text` (a quote, E, four digits, a quote), with the first
/// file it occurs in. A plain scan: std::regex over the whole tree is slow in debug builds.
void collectCodes(const std::string& text, const std::string& where, std::map<std::string, std::string>& codes) {
  for (size_t i = text.find("\"E"); i != std::string::npos; i = text.find("\"E", i + 1)) {
    if (i + 6 >= text.size() || text[i + 6] != '"') continue;
    bool digits = true;
    for (size_t k = i + 2; k < i + 6; ++k) digits = digits && std::isdigit(static_cast<unsigned char>(text[k]));
    if (digits) codes.emplace(text.substr(i + 1, 5), where);
  }
}

/// Codes used in the source tree: code -> a file that uses it.
std::map<std::string, std::string> sourceCodes() {
  std::map<std::string, std::string> codes;
  for (const char* dir : {"lang", "jit", "include"}) {
    if (!fs::exists(kRoot / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      if (!e.is_regular_file()) continue;
      std::string ext = e.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".re" && ext != ".def" && ext != ".inc") continue;
      collectCodes(readAll(e.path()), fs::relative(e.path(), kRoot).string(), codes);
    }
  }
  return codes;
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped,
/// spaces turned into `-`.
std::string slug(const std::string& heading) {
  std::string s;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_') s += static_cast<char>(std::tolower(c));
    else if (c == ' ') s += '-';
    else if (c >= 0x80) s += static_cast<char>(c);  // GitHub keeps non-ASCII letters
  }
  return s;
}

struct Headings {
  std::map<std::string, std::string> codeFile;  // code -> section file name that documents it
  std::map<std::string, std::set<std::string>> anchors;  // file name -> heading anchors
};

/// The codes of a `## E0305, E0306: title` heading; none for other headings.
std::vector<std::string> headingCodes(const std::string& heading) {
  static const std::regex kHead("^((E[0-9]{4})(, E[0-9]{4})*): .*");
  static const std::regex kCode("E[0-9]{4}");
  std::vector<std::string> out;
  std::smatch m;
  if (!std::regex_match(heading, m, kHead)) return out;
  std::string list = m[1].str();
  for (auto it = std::sregex_iterator(list.begin(), list.end(), kCode); it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  return out;
}

std::vector<fs::path> sectionFiles() {
  std::vector<fs::path> files;
  if (!fs::exists(kRoot / "docs/errors")) return files;
  for (const auto& e : fs::directory_iterator(kRoot / "docs/errors"))
    if (e.is_regular_file() && e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

Headings sectionHeadings() {
  Headings h;
  for (const fs::path& f : sectionFiles()) {
    std::string name = f.filename().string();
    for (const std::string& l : lines(readAll(f))) {
      if (l.rfind("## ", 0) != 0) continue;
      std::string heading = l.substr(3);
      h.anchors[name].insert(slug(heading));
      for (const std::string& code : headingCodes(heading)) h.codeFile.emplace(code, name);
    }
  }
  return h;
}

struct IndexRow {
  std::string file;    // the section file the row links to ("tracing.md"); empty without a link
  std::string anchor;  // the heading anchor after '#'; may be empty
};

/// Rows of docs/errors.md: `| [E0101](errors/tracing.md#anchor) | meaning |`, by code.
std::map<std::string, IndexRow> indexRows() {
  static const std::regex kRow(R"(^\|\s*\[?(E[0-9]{4})\]?(\(errors/([^)#]+)(#([^)]*))?\))?\s*\|.*)");
  std::map<std::string, IndexRow> rows;
  for (const std::string& l : lines(readAll(kRoot / "docs/errors.md"))) {
    std::smatch m;
    if (std::regex_match(l, m, kRow)) rows.emplace(m[1].str(), IndexRow{m[3].str(), m[5].str()});
  }
  return rows;
}

/// What is wrong with the documentation of `codes`: one line per problem.
std::vector<std::string> problems(const std::map<std::string, std::string>& codes, const Headings& h,
                                  const std::map<std::string, IndexRow>& rows) {
  std::vector<std::string> out;
  for (const auto& [code, where] : codes) {
    if (!h.codeFile.count(code))
      out.push_back(code + " (used in " + where + ") has no `## " + code + ": ...` heading in docs/errors/*.md");
    auto r = rows.find(code);
    if (r == rows.end()) {
      out.push_back(code + " (used in " + where + ") has no row `| [" + code + "](errors/...) | ... |` in docs/errors.md");
      continue;
    }
    if (r->second.file.empty()) continue;
    auto a = h.anchors.find(r->second.file);
    if (a == h.anchors.end())
      out.push_back(code + ": docs/errors.md links to errors/" + r->second.file + ", which does not exist");
    else if (!r->second.anchor.empty() && !a->second.count(r->second.anchor))
      out.push_back(code + ": docs/errors.md links to errors/" + r->second.file + "#" + r->second.anchor +
                    ", which is no heading of that file");
  }
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += "  " + x + "\n";
  return s;
}

TEST(ErrorIndex, SourceScanFindsTheCodes) {
  auto codes = sourceCodes();
  // The scan itself must work, or the other tests would pass vacuously.
  EXPECT_GT(codes.size(), 50u);
  for (const char* known : {"E0101", "E0203", "E0501", "E9999"}) EXPECT_TRUE(codes.count(known)) << known;
}

TEST(ErrorIndex, EveryCodeIsDocumented) {
  auto codes = sourceCodes();
  auto p = problems(codes, sectionHeadings(), indexRows());
  EXPECT_TRUE(p.empty()) << "error codes without documentation (add an entry to a docs/errors/*.md "
                            "file and a row to docs/errors.md):\n"
                         << join(p);
}

TEST(ErrorIndex, CheckerReportsMissingAndBrokenEntries) {
  Headings h;
  h.codeFile["E0101"] = "tracing.md";
  h.anchors["tracing.md"] = {"e0101-concretization"};
  std::map<std::string, IndexRow> rows = {{"E0101", {"tracing.md", "e0101-concretization"}},
                                          {"E0203", {"tracing.md", "e0203-gone"}},
                                          {"E0401", {"nowhere.md", ""}}};
  std::map<std::string, std::string> codes = {{"E0101", "a.cpp"}, {"E0203", "b.cpp"}, {"E0401", "c.cpp"},
                                              {"E0999", "d.cpp"}};
  auto p = problems(codes, h, rows);
  std::string all = join(p);
  EXPECT_EQ(all.find("E0101"), std::string::npos) << all;
  EXPECT_NE(all.find("E0203 (used in b.cpp) has no `## E0203"), std::string::npos) << all;
  EXPECT_NE(all.find("errors/tracing.md#e0203-gone, which is no heading"), std::string::npos) << all;
  EXPECT_NE(all.find("errors/nowhere.md, which does not exist"), std::string::npos) << all;
  EXPECT_NE(all.find("E0999 (used in d.cpp) has no row"), std::string::npos) << all;
  EXPECT_EQ(headingCodes("E0305, E0306: an axis"), (std::vector<std::string>{"E0305", "E0306"}));
  EXPECT_TRUE(headingCodes("How vmap batches ops").empty());
  EXPECT_EQ(slug("E0504: `:ir`, `:llvm` or `:asm` without a call"), "e0504-ir-llvm-or-asm-without-a-call");
  EXPECT_EQ(slug("E0301: out_axes=None for a result"), "e0301-out_axesnone-for-a-result");
}

// ---------------------------------------------------------------- the examples

struct Example {
  std::string where;     // "tracing.md:42"
  std::string program;
  std::string expected;  // "error[E0101]: ..." (a trailing "..." means a prefix)
};

std::vector<Example> examples(bool withSlow) {
  std::vector<Example> out;
  for (const fs::path& f : sectionFiles()) {
    std::vector<std::string> ls = lines(readAll(f));
    for (size_t i = 0; i < ls.size(); ++i) {
      if (ls[i].rfind("```", 0) != 0) continue;
      std::string info = ls[i].substr(3);
      size_t start = i + 1, end = start;
      while (end < ls.size() && ls[end].rfind("```", 0) != 0) ++end;
      for (size_t j = start; j < end; ++j) {
        if (ls[j].rfind("# error[", 0) != 0) continue;
        if (withSlow || info.find("slow") == std::string::npos) {
          Example e;
          e.where = f.filename().string() + ":" + std::to_string(j + 1);
          for (size_t k = start; k < j; ++k) e.program += ls[k] + "\n";
          e.expected = ls[j].substr(2);
          out.push_back(std::move(e));
        }
        break;  // the lines after the first error never run
      }
      i = end;
    }
  }
  return out;
}

/// The first "error[...]" line scn prints for `program`, from "error[" on.
std::string firstError(const Example& ex, const fs::path& dir) {
  fs::path file = dir / "example.scn";
  std::ofstream(file, std::ios::binary) << ex.program;
  std::string cmd = "cd '" + dir.string() + "' && '" + std::string(SCN_BINARY) +
                    "' --backend=interp example.scn 2>&1 >/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "(cannot run scn)";
  std::string err;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) err.append(buf, n);
  int status = pclose(p);
  for (const std::string& l : lines(err)) {
    size_t at = l.find("error[");
    if (at != std::string::npos) return l.substr(at);
  }
  return "(no error; exit status " + std::to_string(status) + "; stderr: " + err.substr(0, 300) + ")";
}

bool matches(const std::string& got, const std::string& expected) {
  if (expected.size() >= 3 && expected.compare(expected.size() - 3, 3, "...") == 0)
    return got.rfind(expected.substr(0, expected.size() - 3), 0) == 0;
  return got == expected;
}

TEST(ErrorIndex, ExamplesFailWithTheDocumentedMessage) {
  const char* slow = std::getenv("SCN_SLOW_DOC_TESTS");
  std::vector<Example> exs = examples(slow && *slow && std::string(slow) != "0");
  ASSERT_GT(exs.size(), 40u) << "the example scan found too few examples";
  fs::path base = fs::temp_directory_path() / ("scn_error_index_" + std::to_string(getpid()));
  size_t workers = std::max(2u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::string> got(exs.size());
  std::vector<std::future<void>> jobs;
  for (size_t w = 0; w < workers; ++w) {
    jobs.push_back(std::async(std::launch::async, [&, w] {
      fs::path dir = base / std::to_string(w);
      fs::create_directories(dir);
      for (size_t i = w; i < exs.size(); i += workers) got[i] = firstError(exs[i], dir);
    }));
  }
  for (auto& j : jobs) j.get();
  std::error_code ec;
  fs::remove_all(base, ec);
  for (size_t i = 0; i < exs.size(); ++i)
    EXPECT_TRUE(matches(got[i], exs[i].expected))
        << "docs/errors/" << exs[i].where << ": the example\n"
        << exs[i].program << "documents  " << exs[i].expected << "\nbut scn says " << got[i];
}

}  // namespace
