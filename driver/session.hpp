// A session: one evaluator with its globals, backend, compile cache and diagnostics. The CLI,
// the REPL and the embedding API each hold one (or several); there is no global state.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "driver/compile_notice.hpp"
#include "jit/autodiff.hpp"
#include "jit/backend.hpp"
#include "jit/disk_cache.hpp"
#include "base/diagnostics.hpp"
#include "lang/eval.hpp"

namespace scn {

struct SessionOptions {
  /// "auto", "cpu" (LLVM JIT), "interp" (the reference interpreter) or "cuda".
  std::string backend = "auto";
  int optLevel = 2;
  /// Where printed program output goes (stdout for the CLI).
  std::function<void(const std::string&)> out;
  /// Receives every diagnostic as a record; the library never prints them.
  DiagnosticSink::Callback onDiagnostic;
  /// Script arguments, visible to programs as `args` (a tuple of strings).
  std::vector<std::string> scriptArgs;
  /// Called once for every function compiled (for --emit=ir|llvm|asm on a whole script).
  std::function<void(const FuncPtr&)> onCompile;
  /// Root of the persistent compile caches: `<dir>/cpu` (objects, Note [Object cache]) and
  /// `<dir>/ptx` (the CUDA backend's PTX). "" = none: compiled code lives with the session.
  std::string cacheDir;
  /// The most bytes each of those caches keeps (Note [Cache eviction] in jit/disk_cache.cpp).
  uint64_t cacheMaxBytes = kDefaultCacheMaxBytes;
  /// Told while a compile takes longer than slowCompileMs (Note [Slow compiles]); may be empty.
  SlowCompileFn onSlowCompile;
  double slowCompileMs = 1000;
  /// --print-after=<pass>|all: the IR after that pass of the optimisation pipeline.
  std::string printAfter;
  /// The processes of the run, which pmap splits its axis over (dist/, an embedding host's
  /// communicator); null: this process alone.
  std::shared_ptr<Collectives> processes;
  /// How process collectives travel (the CLI's SCN_COLLECTIVES): "mpi" or "" (host buffers over
  /// `processes`, the default) or "nccl" (device buffers over NCCL: checked when the session
  /// starts, E0445-E0447; Note [Choosing NCCL] in driver/session.cpp).
  std::string collectives;
  /// The most bytes reverse mode stores for a scan without `checkpoints=` before it checkpoints
  /// it (Note [Grad memory budget] in jit/transform/grad_budget.cpp).
  uint64_t gradMemoryBudget = kDefaultGradMemoryBudget;
};

/// The processes of an embedding host's MPI communicator (a pointer to its MPI_Comm; Note [A
/// host's communicator] in dist/mpi_group.cpp), or null with `why` (for E0444).
std::shared_ptr<Collectives> processesOverCommunicator(const void* communicator, std::string& why);

class Session {
 public:
  explicit Session(SessionOptions opts);
  ~Session();

  /// Parses and runs a whole program (a script, a REPL entry). False when a diagnostic was
  /// reported; the session stays usable. `result` receives a final expression's value.
  bool run(const std::string& name, const std::string& text, Value* result = nullptr);
  /// The source name of the REPL's next entry, "<repl:1>", "<repl:2>", ... (a call chain
  /// names the entry a call was made in).
  std::string nextReplEntryName() { return "<repl:" + std::to_string(++replEntries_) + ">"; }
  /// Runs a file from disk (readProgramFile: a regular file of at most kMaxSourceBytes).
  bool runFile(const std::string& path);

  /// Selects the backend ("auto", "cpu", "interp", "cuda"); false (with a diagnostic) if unusable.
  bool setBackend(const std::string& name);
  std::string backendName() const;

  /// The IR / kernel / LLVM text of the function call `callText` (e.g. "f(x)"); stage is
  /// "ir", "llvm", "asm", "kernels", "cuda" or "ptx" (`cuda` without `cudaPrelude`: the kernels
  /// alone). False with a diagnostic on error.
  bool emitForCall(const std::string& stage, const std::string& name, const std::string& text,
                   std::string& out, bool cudaPrelude = true);
  /// Traces a whole script and returns the IR of every compiled function call it makes.
  std::string formatValue(const Value& v) { return eval_->format(v); }
  /// As the REPL shows a value (Evaluator::display).
  std::string displayValue(const Value& v) { return eval_->display(v); }

  Evaluator& evaluator() { return *eval_; }
  DiagnosticSink& diagnostics() { return sink_; }
  /// Empties the sink, and lets go of the sources its diagnostics pointed into.
  void clearDiagnostics();
  std::vector<CallRecord>& records() { return eval_->records(); }
  /// Asks the running entry or call to stop with E0507: the evaluator polls between statements
  /// and loop iterations, the cpu and interp backends once per compiled loop iteration. Safe from another thread
  /// and from a signal handler (one lock-free atomic store). The request stays until
  /// clearInterrupt(), which the REPL and the API call before each entry.
  void interrupt() { interrupt_.store(1, std::memory_order_relaxed); }
  void clearInterrupt() { interrupt_.store(0, std::memory_order_relaxed); }
  /// The flag itself, for a signal handler that must not call into the session.
  std::atomic<int32_t>& interruptFlag() { return interrupt_; }
  /// Forgets all definitions and compiled code.
  void reset();
  /// How many compiled functions the session holds (for tests of what it keeps).
  size_t compiledFunctions() const { return executables_.size(); }

 private:
  std::vector<Array> runFunc(const FuncPtr& f, const std::vector<Array>& args, CallRecord* rec);
  void dropUnreachableCode();
  void report(const Diagnostic& d) { sink_.report(d); }
  std::function<bool()> interrupted() {
    return [this] { return interrupt_.load(std::memory_order_relaxed) != 0; };
  }

  SessionOptions opts_;
  int replEntries_ = 0;
  std::atomic<int32_t> interrupt_{0};  // before the backends, which point to it
  DiagnosticSink sink_;
  std::unique_ptr<Evaluator> eval_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Backend> interpreter_;
  std::string backendName_;
  struct Compiled {
    std::unique_ptr<Executable> exe;
    std::string backend;  // as --stats shows it, with any fallback
    bool device = false;  // peakBytes of its runs count device memory
    CheckpointCounts checkpoints;  // of each run (--stats)
  };
  std::map<const Func*, Compiled> executables_;
  std::map<const Func*, FuncPtr> keepFuncs_;
  size_t sweepAt_ = kFirstSweep;  // runFunc drops unreachable code when executables_ reaches it
  static constexpr size_t kFirstSweep = 64;
  /// The cache warnings shown: each once per session, however often the backend is made.
  std::set<std::string> cacheWarnings_;
  /// What the diagnostics in sink_ point into (Note [Source lifetime] in eval.cpp).
  std::vector<std::shared_ptr<const Program>> diagnosticSources_;
};

/// The embedded stdlib files (generated at build time from stdlib/*.scn).
const std::vector<std::pair<std::string_view, std::string_view>>& stdlibFiles();

}  // namespace scn
