// The scn command line: run a script, evaluate -e, dump a stage (--emit), or start the REPL.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>

#include "driver/cli_output.hpp"
#include "driver/emit.hpp"
#include "driver/repl.hpp"
#include "driver/session.hpp"
#include "driver/stats.hpp"
#include "jit/disk_cache.hpp"
#include "driver/source_files.hpp"
#include "lang/syntax/ast_print.hpp"
#include "lang/syntax/parser.hpp"
#include "jit/ir.hpp"
#include "jit/transform/passes.hpp"
#ifdef SCN_HAVE_MPI
#include "dist/dist.hpp"
#endif

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
  --print-after=PASS    print the IR after a stage of the pipeline (inline-custom-calls,
                        expand-associative-scans (cuda only), scan-to-map,
                        drop-identity-reshapes, dce; lower: the
                        kernel IR of the backend in use) or after each (all); "unchanged"
                        when the pass changed nothing
  --stats               print one line per compiled-function call (traced or cached,
                        trace/optimise/codegen/run milliseconds, peak host and device buffer
                        bytes, whether the code came from a cache, the signature, and why a
                        function was traced again), then a summary per function; in the REPL
                        after each entry (also `:stats on`), the summary when it ends
  --cache-dir=DIR       keep compiled code (CPU objects, CUDA PTX) in DIR across runs; `-`
                        turns the cache off. Default: $SCN_CACHE_DIR, else $XDG_CACHE_HOME/scn,
                        else ~/.cache/scn; none when SCN_NO_CACHE is set
  --cache-max-size=SIZE
                        the most each cache keeps (1G, 512M, bytes; default 1G or
                        $SCN_CACHE_MAX_SIZE): the least recently used entries go first
  --cache-clear         remove the cached code in the cache directory (with --cache-dir=DIR:
                        in DIR) and exit
  --grad-memory-budget=SIZE
                        the most bytes the gradient of a scan without checkpoints= stores
                        (a carry per step); past it the scan is checkpointed, and --stats
                        says so (1G, 512M, bytes; default 1G or $SCN_GRAD_MEMORY_BUDGET)
  --color=WHEN          colour diagnostics and the prompt: auto (default: when stderr is a
                        terminal and NO_COLOR is unset), always, never
  -O0 | -O1 | -O2 | -O3 optimisation level of the CPU JIT (default -O2)
  --help                show this help
  --version             show the version

Every option with a value may also be written as two words: `--emit ir`.
Ctrl-C stops the running program with error E0507 (a second Ctrl-C ends it at once).

exit status: 0 success, 1 a program error (a diagnostic was printed), 2 bad usage.
)";

/// Where --help points for the documentation: the installed docs beside the binary when they are
/// there (`cmake --install`, any prefix), else the source tree this binary was built from.
std::string docsDirectory() {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  fs::path installed = (exe.parent_path() / SCN_DOC_DIR_FROM_BIN).lexically_normal();
  if (!ec && fs::exists(installed / "README.md", ec)) return installed.string();
  if (fs::exists(fs::path(SCN_SOURCE_DOC_DIR) / "README.md", ec)) return SCN_SOURCE_DOC_DIR;
  return installed.string();
}

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

/// `scn --cache-clear`: empties the cache directory's caches (only their entries).
int clearCacheCommand(const std::string& dir, bool given) {
  if (dir.empty())
    return usageError(given ? "--cache-clear with --cache-dir=- has no cache to clear"
                            : "--cache-clear: no cache directory (SCN_NO_CACHE is set, or no home directory)");
  std::string error;
  int removed = scn::clearCacheDirectory(dir, error);
  if (!error.empty()) {
    std::fprintf(stderr, "scn: error: --cache-clear: %s\n", error.c_str());
    return 1;
  }
  std::printf("removed %d cached %s from %s\n", removed, removed == 1 ? "entry" : "entries", dir.c_str());
  return 0;
}

bool gShowedAnError = false;  // a diagnostic other than a quiet stop (Note [Output errors])

void show(const scn::Diagnostic& d, bool color) {
  if (d.code == "E0513" && scn::stdoutReaderGone()) return;
  if (d.severity == scn::Severity::Error) gShowedAnError = true;
  std::fflush(stdout);
  std::fputs(scn::render(d, color).c_str(), stderr);
}

int runCommand(int argc, char** argv);

/// The options that take a value, as `--name=VALUE` or `--name VALUE`.
const char* const kValuedOptions[] = {"--backend", "--emit", "--print-after", "--cache-dir", "--cache-max-size",
                                      "--grad-memory-budget", "--color"};

/// Whether argv[i] is the valued option `name`; `value` gets its value (the next argument for
/// `--name VALUE`, and then i moves past it; runCommand checked that there is one).
bool valuedOption(char** argv, int& i, const std::string& name, std::string& value) {
  std::string a = argv[i];
  if (a.rfind(name + "=", 0) == 0) {
    value = a.substr(name.size() + 1);
    return true;
  }
  if (a != name) return false;
  value = argv[++i];
  return true;
}

/// --color=auto|always|never: whether diagnostics and the prompt are coloured. auto: when
/// stderr is a terminal and NO_COLOR (https://no-color.org) is not set.
bool colorWanted(const std::string& choice) {
  if (choice == "always") return true;
  if (choice == "never") return false;
  const char* noColor = std::getenv("NO_COLOR");
  return isatty(2) && !(noColor && *noColor);
}

}  // namespace

// Every exit goes through here: what is still buffered for stdout must reach it, or say why not.
int main(int argc, char** argv) {
  scn::prepareStandardStreams();
  int status = runCommand(argc, argv);
  if (std::optional<scn::Diagnostic> d = scn::flushStdout()) {
    show(*d, isatty(2));
    status = 1;
  }
#ifdef SCN_HAVE_MPI
  scn::dist::finishWorld();
#endif
  if (scn::stdoutReaderGone() && !gShowedAnError) return 0;  // `scn prog.scn | head -1`
  return status;
}

namespace {

int runCommand(int argc, char** argv) {
  std::string backend = "auto", emit, expr, file, printAfter, colorChoice = "auto", value;
  bool haveExpr = false, stats = false, haveCacheDir = false, clearCache = false;
  std::string cacheDir;
  uint64_t cacheMaxBytes = scn::cacheMaxBytesFromEnvironment();
  uint64_t gradMemoryBudget = scn::gradMemoryBudgetFromEnvironment();
  int optLevel = 2;
  std::vector<std::string> scriptArgs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!file.empty()) {
      scriptArgs.push_back(a);
      continue;
    }
    for (const char* name : kValuedOptions)
      if (a == name && i + 1 >= argc) return usageError(a + " needs a value (" + a + "=VALUE or " + a + " VALUE)");
    auto valued = [&](const char* name) { return valuedOption(argv, i, name, value); };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::printf("docs: %s/README.md (tutorial for JAX users, language reference, CLI and REPL,\n"
                  "      error index); `man scn`\n", docsDirectory().c_str());
      return 0;
    } else if (a == "--version") {
      std::printf("scn %s\n", SCN_VERSION);
      return 0;
    } else if (valued("--backend")) {
      backend = value;
    } else if (valued("--emit")) {
      emit = value;
      if (emit != "tokens" && emit != "ast" && !scn::isFuncStage(emit))
        return usageError("unknown stage `" + emit + "` for --emit (tokens, ast, " + scn::funcStageList() + ")");
      if (scn::isFuncStage(emit) && scn::funcStageList().find(emit) == std::string::npos)
        return usageError("--emit=" + emit + " is not available: this scn was built without " +
                          (emit == "llvm" || emit == "asm" ? "LLVM" : "the CUDA toolkit"));
    } else if (valued("--print-after")) {
      printAfter = value;
      bool known = printAfter == "all";
      for (const scn::Pass& p : scn::pipelinePasses()) known = known || printAfter == p.name;
      if (!known) {
        std::string names = "all";
        for (const scn::Pass& p : scn::pipelinePasses()) names += std::string(", ") + p.name;
        return usageError("unknown pass `" + printAfter + "` for --print-after (" + names + ")");
      }
    } else if (valued("--cache-dir")) {
      cacheDir = value;
      if (cacheDir.empty()) return usageError("--cache-dir needs a directory (or `-` for no cache)");
      if (cacheDir == "-") cacheDir.clear();
      haveCacheDir = true;
    } else if (valued("--cache-max-size")) {
      std::optional<uint64_t> n = scn::parseByteSize(value);
      if (!n)
        return usageError("--cache-max-size needs a size such as 1G, 512M or 1048576, not `" + value + "`");
      cacheMaxBytes = *n;
    } else if (valued("--grad-memory-budget")) {
      std::optional<uint64_t> n = scn::parseByteSize(value);
      if (!n)
        return usageError("--grad-memory-budget needs a size such as 1G, 512M or 1048576, not `" + value + "`");
      gradMemoryBudget = *n;
    } else if (valued("--color")) {
      colorChoice = value;
      if ((value != "auto" && value != "always" && value != "never"))
        return usageError("--color takes auto, always or never, not `" + value + "`");
    } else if (a == "--cache-clear") {
      clearCache = true;
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
  if (clearCache) return clearCacheCommand(haveCacheDir ? cacheDir : defaultCacheDir(), haveCacheDir);

  bool color = colorWanted(colorChoice);
  scn::SessionOptions opts;
  opts.backend = backend;
  opts.optLevel = optLevel;
  opts.scriptArgs = scriptArgs;
  opts.printAfter = printAfter;
  opts.cacheDir = haveCacheDir ? cacheDir : defaultCacheDir();
  opts.cacheMaxBytes = cacheMaxBytes;
  opts.gradMemoryBudget = gradMemoryBudget;
  opts.out = [](const std::string& s) { scn::writeStdout(s); };
  if (isatty(2)) {  // Note [Slow compiles]: on a terminal only, rewritten in place
    opts.onSlowCompile = [](const std::string& what, double seconds, bool done) {
      std::fprintf(stderr, done ? "\rcompiling %s ... done in %.1fs\n" : "\rcompiling %s ... %.1fs", what.c_str(),
                   seconds);
    };
    // How long a compile may take before it is reported (1000 ms); tests make it shorter.
    if (const char* ms = std::getenv("SCN_COMPILE_NOTICE_MS"); ms && *ms) opts.slowCompileMs = std::atof(ms);
  }
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

  // Note [Distributed runs]: under mpirun every process runs the script; rank 0 prints.
  bool collectiveFailed = false;
#ifdef SCN_HAVE_MPI
  scn::dist::World world = scn::dist::startWorld(&argc, &argv);
  if (!world.error.empty()) {
    opts.onDiagnostic(scn::Diagnostic{scn::Severity::Error, "E0443", "cannot start the distributed run: " + world.error,
                                      {}, {}, "check the mpirun command line, or run without mpirun (one process)"});
    return 1;
  }
  opts.processes = world.group;
  if (world.group && world.group->processIndex() != 0 && !std::getenv("SCN_PRINT_ALL_RANKS"))
    opts.out = [](const std::string&) {};
  opts.onDiagnostic = [color, &collectiveFailed](const scn::Diagnostic& d) {
    show(d, color);
    collectiveFailed = collectiveFailed || d.code == "E0440" || d.code == "E0441";
  };
#endif
  if (const char* c = std::getenv("SCN_COLLECTIVES")) opts.collectives = c;  // Note [Choosing NCCL]
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
    scn::ReplState repl;
    repl.stats = stats;
    repl.color = color;
    return scn::runRepl(session, repl) ? 0 : 1;  // the REPL installs its Ctrl-C handler
  }
  if (stats) {
    std::string lines;
    for (const scn::CallRecord& r : session.records()) lines += scn::formatCallStats(r);
    std::fputs((lines + scn::formatStatsSummary(session.records())).c_str(), stderr);
  }
  if (opts.processes && (stats || std::getenv("SCN_DIST_STATS")))
    std::fputs(scn::formatCollectiveStats(*opts.processes).c_str(), stderr);
  if (collectiveFailed) {  // the other processes may wait in that collective for ever
    scn::flushStdout();
#ifdef SCN_HAVE_MPI
    scn::dist::abortWorld(1);
#endif
  }
  return ok ? 0 : 1;
}

}  // namespace
