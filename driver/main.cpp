// The scn command line: run a script, evaluate -e, dump a stage (--emit), or start the REPL.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>

#include "driver/cli_output.hpp"
#include "driver/emit.hpp"
#include "driver/repl.hpp"
#include "driver/session.hpp"
#include "driver/source_files.hpp"
#include "lang/syntax/ast_print.hpp"
#include "lang/syntax/parser.hpp"
#include "jit/ir.hpp"
#include "jit/transform/passes.hpp"

namespace {

const char* kUsage = R"(usage: scn [options] [FILE.scn [args...]]
       scn [options] -e 'expression'
       scn                     (no file: the interactive REPL)

Runs scn programs: top-level code runs eagerly; every `fn` is traced and JIT-compiled once per
signature (shapes, dtypes, static values) and cached.

options:
  -e EXPR               evaluate EXPR (statements allowed) and print the last value
  --backend=NAME        cpu (LLVM JIT), interp (reference interpreter), cuda (NVRTC, a GPU),
                        cuda-emu (the CUDA code compiled for the host: for testing), or auto
                        (default: a usable GPU, else cpu)
  --emit=STAGE          print a stage instead of (tokens, ast) or while (ir, kernels,
                        llvm, asm, cuda, ptx) running: tokens | ast | ir | kernels | llvm |
                        asm | cuda | ptx (ir, kernels, ... print each compiled function after
                        optimisation; cuda and ptx need only NVRTC, not a GPU)
  --print-after=PASS    print the IR after a stage of the pipeline (expand-associative-scans
                        (cuda only), scan-to-map, drop-identity-reshapes, dce; lower: the
                        kernel IR of the backend in use) or after each (all); "unchanged"
                        when the pass changed nothing
  --stats               after the run, print one line per compiled-function call: traced or
                        cached, trace/optimise/codegen/run milliseconds, peak host and device
                        buffer bytes, and for a compile whether the code came from a cache
  --cache-dir=DIR       keep compiled code (CPU objects, CUDA PTX) in DIR across runs; `-`
                        turns the cache off. Default: $SCN_CACHE_DIR, else $XDG_CACHE_HOME/scn,
                        else ~/.cache/scn; none when SCN_NO_CACHE is set
  -O0 | -O1 | -O2 | -O3 optimisation level of the CPU JIT (default -O2)
  --help                show this help
  --version             show the version

Ctrl-C stops the running program with error E0507 (a second Ctrl-C ends it at once).

exit status: 0 success, 1 a program error (a diagnostic was printed), 2 bad usage.
docs: docs/README.md (language reference, CLI and REPL, error index)
)";

int usageError(const std::string& msg) {
  std::fprintf(stderr, "scn: error: %s\n(run `scn --help` for usage)\n", msg.c_str());
  return 2;
}

/// The CLI's cache directory when --cache-dir is not given (the PTX cache's rule, one level up).
std::string defaultCacheDir() {
  if (std::getenv("SCN_NO_CACHE")) return "";
  if (const char* d = std::getenv("SCN_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/scn";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/scn";
  return "";
}

/// --stats' cache field of a traced call: where its code came from.
const char* cacheState(const scn::CallRecord& r) {
  if (!r.traced) return "";
  if (r.cacheHit) return " cache=hit";
  return r.cacheRejected ? " cache=rejected" : " cache=miss";
}

bool gShowedAnError = false;  // a diagnostic other than a quiet stop (Note [Output errors])

void show(const scn::Diagnostic& d, bool color) {
  if (d.code == "E0513" && scn::stdoutReaderGone()) return;
  if (d.severity == scn::Severity::Error) gShowedAnError = true;
  std::fflush(stdout);
  std::fputs(scn::render(d, color).c_str(), stderr);
}

int runCommand(int argc, char** argv);

}  // namespace

// Every exit goes through here: what is still buffered for stdout must reach it, or say why not.
int main(int argc, char** argv) {
  scn::prepareStandardStreams();
  int status = runCommand(argc, argv);
  if (std::optional<scn::Diagnostic> d = scn::flushStdout()) {
    show(*d, isatty(2));
    status = 1;
  }
  if (scn::stdoutReaderGone() && !gShowedAnError) return 0;  // `scn prog.scn | head -1`
  return status;
}

namespace {

int runCommand(int argc, char** argv) {
  std::string backend = "auto", emit, expr, file, printAfter;
  bool haveExpr = false, stats = false, haveCacheDir = false;
  std::string cacheDir;
  int optLevel = 2;
  std::vector<std::string> scriptArgs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!file.empty()) {
      scriptArgs.push_back(a);
      continue;
    }
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--version") {
      std::printf("scn %s\n", SCN_VERSION);
      return 0;
    } else if (a.rfind("--backend=", 0) == 0) {
      backend = a.substr(10);
    } else if (a.rfind("--emit=", 0) == 0) {
      emit = a.substr(7);
      if (emit != "tokens" && emit != "ast" && !scn::isFuncStage(emit))
        return usageError("unknown stage `" + emit + "` for --emit (tokens, ast, " + scn::funcStageList() + ")");
      if (scn::isFuncStage(emit) && scn::funcStageList().find(emit) == std::string::npos)
        return usageError("--emit=" + emit + " is not available: this scn was built without " +
                          (emit == "llvm" || emit == "asm" ? "LLVM" : "the CUDA toolkit"));
    } else if (a.rfind("--print-after=", 0) == 0) {
      printAfter = a.substr(14);
      bool known = printAfter == "all";
      for (const scn::Pass& p : scn::pipelinePasses()) known = known || printAfter == p.name;
      if (!known) {
        std::string names = "all";
        for (const scn::Pass& p : scn::pipelinePasses()) names += std::string(", ") + p.name;
        return usageError("unknown pass `" + printAfter + "` for --print-after (" + names + ")");
      }
    } else if (a.rfind("--cache-dir=", 0) == 0) {
      cacheDir = a.substr(12);
      if (cacheDir.empty()) return usageError("--cache-dir needs a directory (or `-` for no cache)");
      if (cacheDir == "-") cacheDir.clear();
      haveCacheDir = true;
    } else if (a == "--stats") {
      stats = true;
    } else if (a.size() == 3 && a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3') {
      optLevel = a[2] - '0';
    } else if (a == "-e") {
      if (i + 1 >= argc) return usageError("-e needs an expression");
      expr = argv[++i];
      haveExpr = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option `" + a + "`");
    } else {
      file = a;
    }
  }
  if (backend != "auto" && backend != "cpu" && backend != "interp" && backend != "cuda" && backend != "cuda-emu")
    return usageError("unknown backend `" + backend + "` (cpu, interp, cuda, cuda-emu, auto)");
  if (haveExpr && !file.empty()) return usageError("give either FILE or -e, not both");

  bool color = isatty(2);
  scn::SessionOptions opts;
  opts.backend = backend;
  opts.optLevel = optLevel;
  opts.scriptArgs = scriptArgs;
  opts.printAfter = printAfter;
  opts.cacheDir = haveCacheDir ? cacheDir : defaultCacheDir();
  opts.out = [](const std::string& s) { scn::writeStdout(s); };
  opts.onDiagnostic = [color](const scn::Diagnostic& d) { show(d, color); };
  if (scn::isFuncStage(emit)) {
    opts.onCompile = [emit, optLevel](const scn::FuncPtr& f) {
      std::string text;
      try {
        text = scn::emitFuncStage(emit, f, optLevel);
      } catch (const scn::UserError& e) {
        text = scn::render(e.diag);
      }
      std::fputs(text.c_str(), stdout);
      if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
    };
  }

  if (emit == "tokens" || emit == "ast") {
    std::string name = haveExpr ? "<-e>" : file, text = expr;
    if (!haveExpr) {
      if (file.empty()) return usageError("--emit=" + emit + " needs a FILE or -e");
      try {
        text = scn::readProgramFile(file, {});
      } catch (const scn::UserError& e) {
        opts.onDiagnostic(e.diag);
        return 1;
      }
    }
    auto src = std::make_shared<scn::SourceFile>(name, text);
    if (emit == "tokens") {
      std::fputs(scn::printTokens(*src).c_str(), stdout);
      return 0;
    }
    scn::DiagnosticSink sink(opts.onDiagnostic);
    scn::Program p = scn::parseProgram(src, sink);
    if (sink.errorCount() > 0) return 1;
    std::fputs(scn::printAst(p).c_str(), stdout);
    return 0;
  }

  scn::Session session(opts);
  if (session.diagnostics().errorCount() > 0) return 1;  // e.g. --backend=cuda without a GPU
  bool ok;
  if (haveExpr || !file.empty()) scn::installInterruptHandler(session);
  if (haveExpr) {
    scn::Value v;
    ok = session.run("<-e>", expr, &v);
    if (ok && !v.isNone()) std::fputs((session.formatValue(v) + "\n").c_str(), stdout);  // main flushes
  } else if (!file.empty()) {
    ok = session.runFile(file);
  } else {
    return scn::runRepl(session, opts) ? 0 : 1;  // the REPL installs its Ctrl-C handler
  }
  if (stats) {
    for (const scn::CallRecord& r : session.records()) {
      std::string peak = r.measured ? std::to_string(r.peakBytes) + "B" : "-";
      std::string device = r.device ? std::to_string(r.devicePeakBytes) + "B" : "none";
      std::fprintf(stderr,
                   "stats: %s %s backend=%s trace=%.2fms optimise=%.2fms codegen=%.2fms run=%.3fms "
                   "kernels=%d peak=%s device=%s copied=%zuB in-place=%lld%s\n",
                   r.fn.c_str(), r.traced ? "traced" : "cached", r.backend.c_str(), r.traceMs,
                   r.optimiseMs, r.codegenMs, r.runMs, r.kernels, peak.c_str(), device.c_str(),
                   r.copiedBytes, static_cast<long long>(r.inPlaceUpdates), cacheState(r));
    }
  }
  return ok ? 0 : 1;
}

}  // namespace
