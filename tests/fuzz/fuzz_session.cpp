// Fuzz target: the whole pipeline (parse, evaluate, trace, optimise, interpret) on arbitrary text,
// and on programs of several files that import each other.
//
// Properties: Session::run never lets an exception out and never crashes; no diagnostic is an
// internal error (E9999); every diagnostic the session keeps still renders after the run (its
// source is alive, Note [Source lifetime] in lang/eval.cpp); the session stays usable afterwards
// (a second, fixed program runs). Inputs are capped at 2 KiB. A program still running after a
// few seconds is interrupted, as a host would (a scan of 2**40 empty steps or an endless
// while_loop is legitimate); one that ignores the interrupt hits libFuzzer's -timeout.
//
// Multi-file programs run from a private temporary directory that also holds a subdirectory
// `dir`, a symlink loop `loop` and no `missing.scn`:
// - text that mentions `import` is split into files at lines `#file`: main.scn, m1.scn, m2.scn,
//   m3.scn (so the fuzzer's own text imports files that exist, fail, or import it back);
// - an input starting with byte 0xFF is a choice of lines (importScenario below): imports of the
//   other files (cycles, self-imports, another spelling of the same path), of missing files,
//   the directory, the loop and /dev/null, definitions and uses of names across files, syntax
//   and runtime errors.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "fuzz_util.hpp"
#include "driver/session.hpp"

using namespace scn;
namespace fs = std::filesystem;

namespace {

constexpr int kFiles = 4;
const char* const kFileNames[kFiles] = {"main.scn", "m1.scn", "m2.scn", "m3.scn"};

/// The per-process directory the files are written to, with its fixed strange entries.
const fs::path& scratchDir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("scn_fuzz_session_" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d / "dir");
    std::error_code ec;
    fs::create_symlink("loop", d / "loop", ec);
    return d;
  }();
  return dir;
}

/// The fuzzer's text cut into files at lines "#file".
std::vector<std::string> splitFiles(const std::string& text) {
  std::vector<std::string> files(1);
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at + 1);
    if (line.rfind("#file", 0) == 0 && files.size() < kFiles) files.emplace_back();
    else files.back() += line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return files;
}

/// A multi-file program chosen by the bytes: each byte pair is one line of one file.
std::vector<std::string> importScenario(const uint8_t* data, size_t size) {
  std::vector<std::string> files(kFiles);
  for (size_t i = 0; i + 1 < size; i += 2) {
    int file = data[i] % kFiles, k = (data[i] / kFiles) % kFiles, n = data[i + 1] % 16;
    std::string other = kFileNames[k], v = "v" + std::to_string(k), f = "f" + std::to_string(k);
    std::string line;
    switch (data[i + 1] / 16) {
      case 0: line = "import \"" + other + "\""; break;                  // cycles, self-imports
      case 1: line = "import \"./" + other + "\""; break;                // the same file, respelled
      case 2: line = "import \"missing.scn\""; break;
      case 3: line = "import \"dir\""; break;
      case 4: line = "import \"loop\""; break;
      case 5: line = "import \"/dev/null\""; break;
      case 6: line = "import \"../" + scratchDir().filename().string() + "/" + other + "\""; break;
      case 7: line = "let " + v + " = " + std::to_string(n); break;
      case 8: line = "fn " + f + "(x) = x + " + v; break;
      case 9: line = "print(" + f + "(" + std::to_string(n) + "))"; break;
      case 10: line = "print(" + v + ")"; break;
      case 11: line = "let = (" + std::to_string(n); break;             // a syntax error
      case 12: line = "let e = (1, 2)[" + std::to_string(n) + "]"; break;  // a runtime error
      case 13: line = "let g = |x| " + f + "(x)"; break;
      case 14: line = "fn " + f + "(x) = x * " + std::to_string(n); break;  // redefined
      default: line = "g(" + std::to_string(n) + ")"; break;
    }
    files[static_cast<size_t>(file)] += line + "\n";
  }
  return files;
}

/// Writes the files (missing ones empty) and returns the path of the first.
std::string writeFiles(const std::vector<std::string>& files) {
  for (int i = 0; i < kFiles; ++i)
    std::ofstream(scratchDir() / kFileNames[i], std::ios::trunc) << (i < static_cast<int>(files.size()) ? files[i] : "");
  return (scratchDir() / kFileNames[0]).string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 2048) return -1;
  std::string text = fuzz::textOf(data, size);
  std::string script;  // a file to run, for the multi-file programs
  std::vector<std::string> files;
  if (size > 0 && data[0] == 0xFF) files = importScenario(data + 1, size - 1);
  else if (text.find("import") != std::string::npos) files = splitFiles(text);
  if (!files.empty()) {
    script = writeFiles(files);
    // A finding shows the files as one text that splitFiles cuts the same way.
    text.clear();
    for (size_t i = 0; i < files.size(); ++i) text += (i ? "#file\n" : "") + files[i];
  }
  SessionOptions opts;
  std::string messages;
  opts.onDiagnostic = [&](const Diagnostic& d) {
    fuzz::checkDiagnostic(d, text);
    messages += render(d) + "\n";
  };
  opts.backend = fuzz::envFlag("SCN_FUZZ_CPU") ? "cpu" : "interp";
  Session session(opts);
  static fuzz::Watchdog watchdog;
  watchdog.begin([&session] { session.interrupt(); });
  try {
    (void)(script.empty() ? session.run("fuzz.scn", text) : session.runFile(script));
  } catch (const std::exception& e) {
    fuzz::finding(std::string("Session::run threw: ") + e.what(), text);
  }
  watchdog.end();
  session.clearInterrupt();  // as the REPL does before each entry (a request may land late)
  // The sources of the diagnostics the session kept are alive (ASan reports a use after free).
  fuzz::checkDiagnostics(session.diagnostics(), text);
  // The session goes on after any error.
  messages.clear();
  Value v;
  if (!session.run("after.scn", "let zz_after = 40 + 2\nzz_after", &v) || !v.isArray() ||
      !v.array->concrete || v.array->concrete->getInt(0) != 42) {
    fuzz::finding("the session is unusable after the program:\n" + messages, text);
  }
  return 0;
}
