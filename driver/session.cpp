// Sessions: parse, evaluate, pick a backend, compile and cache, report diagnostics.
#include "driver/session.hpp"

#include <chrono>
#include <limits>

#include "base/float_env.hpp"
#include "driver/emit.hpp"
#include "driver/source_files.hpp"
#include "jit/transform/passes.hpp"
#ifdef SCN_HAVE_LLVM
#include "jit/cpu/cpu_backend.hpp"
#endif
#ifdef SCN_HAVE_CUDA
#include "jit/cuda/cuda_backend.hpp"
#include "jit/cuda/emulation.hpp"
#include "jit/cuda/nccl.hpp"
#endif
#include "lang/syntax/parser.hpp"
#ifdef SCN_HAVE_MPI
#include "dist/dist.hpp"
#endif

namespace scn {

namespace {

/// Thrown by runFunc to stop a call once its function was captured for --emit / :ir.
struct EmitCaptured {};

// Note [Choosing NCCL]
// SCN_COLLECTIVES=nccl asks for collectives between GPUs over NCCL (Note [Loading NCCL]). The
// session checks, in this order, what that needs and reports the first thing missing: the name
// itself and NCCL's library (E0445: an unknown transport, a build without the CUDA backend,
// libnccl.so.2 absent or incomplete), a GPU the run computes on (E0446: the backend is not
// `cuda`), and then says that scn does not run its collectives on NCCL yet (E0447): the
// compiled Collective steps copy device buffers through the host to MPI (Note [Collective
// steps]). So the request fails loudly before any code runs instead of silently taking MPI.
std::optional<Diagnostic> collectivesProblem(const std::string& transport, const std::string& backend) {
  auto problem = [](const char* code, std::string message, std::string help) {
    return Diagnostic{Severity::Error, code, std::move(message), {}, {}, std::move(help)};
  };
  if (transport.empty() || transport == "mpi") return std::nullopt;
  if (transport != "nccl")
    return problem("E0445", "unknown collectives transport `" + transport + "`",
                   "set SCN_COLLECTIVES to mpi (the default) or nccl");
#ifdef SCN_HAVE_CUDA
  std::string why;
  const cuda::Nccl* nccl = cuda::loadNccl(&why);
  if (!nccl)
    return problem("E0445", "NCCL collectives cannot be used: " + why,
                   "install NCCL (it comes with the CUDA toolkit) or point SCN_NCCL at libnccl.so.2; "
                   "without SCN_COLLECTIVES=nccl collectives go over MPI");
  if (backend != "cuda")
    return problem("E0446", "NCCL collectives need the cuda backend on a GPU, but this run's backend is " + backend,
                   "run with --backend=cuda on a machine with an NVIDIA GPU, or without SCN_COLLECTIVES=nccl");
  return problem("E0447",
                 "NCCL collectives are not supported yet (NCCL " + nccl->versionText() + " was found at " +
                     nccl->path + ")",
                 "run without SCN_COLLECTIVES=nccl: the cuda backend's collectives copy their buffers through "
                 "the host and go over MPI");
#else
  (void)backend;
  return problem("E0445", "NCCL collectives cannot be used: this scn was built without the CUDA backend",
                 "rebuild with the CUDA toolkit, or run without SCN_COLLECTIVES=nccl");
#endif
}

}  // namespace

std::shared_ptr<Collectives> processesOverCommunicator(const void* communicator, std::string& why) {
#ifdef SCN_HAVE_MPI
  return dist::groupOverCommunicator(communicator, why);
#else
  (void)communicator;
  why = "this scn was built without MPI (CMake found no MPI; SCN_WITH_MPI)";
  return nullptr;
#endif
}

Session::Session(SessionOptions opts) : opts_(std::move(opts)), sink_(opts_.onDiagnostic) {
  if (!opts_.out) opts_.out = [](const std::string&) {};
  EvalHost host;
  host.out = [this](const std::string& s) { opts_.out(s); };
  host.run = [this](const FuncPtr& f, const std::vector<Array>& args, CallRecord* rec) {
    return runFunc(f, args, rec);
  };
  host.readFile = [this](const std::string& path) { return readSourceFile(path, interrupted()); };
  host.stdlib = stdlibFiles();
  host.interrupted = interrupted();
  host.processes = opts_.processes;
  host.vjp.gradMemoryBudget = opts_.gradMemoryBudget;
  eval_ = std::make_unique<Evaluator>(std::move(host));
  interpreter_ = makeInterpreterBackend(&interrupt_);
  if (setBackend(opts_.backend))
    if (std::optional<Diagnostic> d = collectivesProblem(opts_.collectives, backendName_)) report(*d);
  reset();
}

Session::~Session() = default;

void Session::reset() {
  executables_.clear();
  keepFuncs_.clear();
  EvalHost host = eval_->host();
  eval_ = std::make_unique<Evaluator>(std::move(host));
  std::vector<Value> argv;
  for (const std::string& a : opts_.scriptArgs) argv.push_back(Value::ofString(a));
  eval_->globals()->define("args", Value::ofTuple(argv));
  // A stdlib file that fails to load is a bug in scn; its diagnostics say where, and the
  // session goes on without the rest of that file.
  for (const auto& [name, text] : stdlibFiles()) run("<stdlib>/" + std::string(name), std::string(text));
}

bool Session::setBackend(const std::string& name) {
  std::string chosen = name;
  if (name == "auto") {
#ifdef SCN_HAVE_LLVM
    chosen = "cpu";
#else
    chosen = "interp";
#endif
#ifdef SCN_HAVE_CUDA
    if (cuda::cudaUsable()) chosen = "cuda";  // a usable GPU, else the CPU
#endif
  }
  try {
    if (chosen == "cpu") {
#ifdef SCN_HAVE_LLVM
      CpuOptions co;
      co.optLevel = opts_.optLevel;
      if (!opts_.cacheDir.empty()) co.cacheDir = opts_.cacheDir + "/cpu";
      co.cacheMaxBytes = opts_.cacheMaxBytes;
      co.interrupt = &interrupt_;
      co.warn = [this](const Diagnostic& d) {
        bool cacheWarning = d.code == "E0411" || d.code == "E0430";
        if (!cacheWarning || cacheWarnings_.insert(d.message).second) report(d);
      };
      backend_ = makeCpuBackend(co);
#else
      fail("E0420", Span{}, "the CPU backend is not available in this build (built with SCN_WITH_LLVM=OFF)",
           "use --backend=interp, or rebuild with LLVM");
#endif
    } else if (chosen == "interp") {
      backend_ = makeInterpreterBackend(&interrupt_);
    } else if (chosen == "cuda-emu") {
      // The CUDA backend's generated code compiled for the host (blocks and threads as loops):
      // how tests check the GPU code's arithmetic and indexing on machines without a GPU.
#ifdef SCN_HAVE_CUDA
      backend_ = cuda::makeCudaEmulationBackend(0, &interrupt_);
#else
      fail("E0420", Span{}, "the CUDA emulation backend needs the CUDA toolkit at build time");
#endif
    } else if (chosen == "cuda") {
#ifdef SCN_HAVE_CUDA
      std::string why;
      cuda::CudaOptions co;
      co.cacheDir = opts_.cacheDir.empty() ? "-" : opts_.cacheDir + "/ptx";  // "-": no cache
      co.cacheMaxBytes = opts_.cacheMaxBytes;
      co.interrupt = &interrupt_;
      backend_ = cuda::makeCudaBackend(&why, co);
      if (!backend_)
        fail("E0420", Span{}, "the CUDA backend cannot run here: " + why,
             "use --backend=cpu, or run on a machine with an NVIDIA GPU and its driver");
#else
      fail("E0420", Span{}, "the CUDA backend is not available in this build (no CUDA toolkit at build time)",
           "use --backend=cpu, or rebuild with the CUDA toolkit installed");
#endif
    } else {
      fail("E0421", Span{}, "unknown backend `" + name + "`", "choose cpu, interp, cuda, cuda-emu or auto");
    }
  } catch (const UserError& e) {
    report(e.diag);
    return false;
  }
  backendName_ = chosen;
  // Compiled code is the old backend's; the evaluator's traces do not depend on the backend.
  executables_.clear();
  return true;
}

std::string Session::backendName() const { return backendName_; }

namespace {
// Every buffer a function may need must have a byte size that fits in memory addresses; checked
// once, before any backend plans buffers with that arithmetic (E0401 as for an eager array).
void checkBufferSizes(const Func& f) {
  for (const Type& t : f.types) {
    int64_t n = numElements(t.shape);
    if (static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / dtypeSize(t.dtype) ||
        static_cast<uint64_t>(n) * dtypeSize(t.dtype) > (uint64_t{1} << 62))
      fail("E0401", Span{}, "cannot allocate an array of type " + typeString(t),
           "its size in bytes does not fit in memory addresses");
  }
  for (const Eqn& e : f.eqns)
    for (const FuncPtr& s : e.subs) checkBufferSizes(*s);
}

/// The pipeline options the backend asks for (which passes suit it); callers add the printing.
PipelineOptions pipelineOptionsFor(const Backend& backend) {
  PipelineOptions popts;
  popts.expandAssociativeScans = !backend.scansWithCombiners();
  popts.keepBf16Products = backend.multipliesBf16();
  return popts;
}
}  // namespace

std::vector<Array> Session::runFunc(const FuncPtr& f, const std::vector<Array>& args, CallRecord* rec) {
  auto it = executables_.find(f.get());
  if (it == executables_.end()) {
    // A top-level loop that calls grad or vmap traces a new function each iteration: without a
    // sweep here its code would pile up until the program ends. Doubling keeps the sweeps cheap.
    if (executables_.size() >= sweepAt_) {
      dropUnreachableCode();
      sweepAt_ = std::max(kFirstSweep, 2 * executables_.size());
    }
    Compiled c;
    checkBufferSizes(*f);
    auto t0 = std::chrono::steady_clock::now();
    PipelineOptions popts = pipelineOptionsFor(*backend_);
    popts.printAfter = opts_.printAfter;
    popts.print = opts_.out;
    popts.label = rec && !rec->signature.empty() ? rec->signature : f->name;
    FuncPtr optimised = runPipeline(*f, popts);
    if (opts_.out && (opts_.printAfter == kLowerStage || opts_.printAfter == "all")) {
      // The pipeline's last stage runs in the backend (Note [The lower stage]).
      std::string kernels = backend_->kernelIR(optimised);
      opts_.out(printAfterHeading(kLowerStage, popts.label) +
                (kernels.empty() ? ": not run (the " + backendName_ + " backend runs the IR)\n" : "\n" + kernels));
    }
    double passMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (opts_.onCompile) opts_.onCompile(optimised);
    CompileStats cs;
    c.backend = backendName_;
    c.checkpoints = checkpointCounts(*f);
    // The CUDA backends keep their buffers in (emulated) device memory: RunStats::peakBytes.
    c.device = backendName_ == "cuda" || backendName_ == "cuda-emu";
    try {
      CompileNotice notice(opts_.onSlowCompile, popts.label, opts_.slowCompileMs);
      c.exe = backend_->compile(optimised, &cs);
    } catch (const UnsupportedOnBackend& u) {
      // Honest fallback: the op is not lowered yet on this backend; --stats says so.
      c.exe = interpreter_->compile(optimised, &cs);
      c.backend = "interp (fallback: " + std::string(u.what()) + ")";
      c.device = false;
    }
    if (rec) {
      rec->optimiseMs = passMs + cs.optimiseMs;
      rec->codegenMs = cs.codegenMs;
      rec->kernels = cs.kernels;
      rec->cacheHit = cs.cacheHit;
      rec->cacheRejected = cs.cacheRejected;
    }
    keepFuncs_[f.get()] = f;
    it = executables_.emplace(f.get(), std::move(c)).first;
  }
  RunStats rs;
  std::vector<Array> out = it->second.exe->run(args, &rs);
  if (rec) {
    const Compiled& c = it->second;
    rec->backend = c.backend;
    rec->runMs = rs.runMs;
    rec->copiedBytes = rs.copiedBytes;
    rec->inPlaceUpdates = rs.inPlaceUpdates;
    rec->checkpointedCarries = c.checkpoints.storedCarries;
    rec->recomputedSteps = c.checkpoints.recomputedSteps;
    rec->autoCheckpointedScans = c.checkpoints.automaticScans;
    rec->uncheckpointedBytes = c.checkpoints.residualBytes;
    rec->gradMemoryBudget = c.checkpoints.budgetBytes;
    rec->device = c.device;
    rec->measured = c.backend.rfind("interp", 0) != 0;  // the interpreter does not measure
    if (c.device) {
      // Device blocks are the backend's figure; on the host the run allocated its results.
      rec->devicePeakBytes = rs.peakBytes;
      rec->peakBytes = 0;
      for (const Array& a : out) rec->peakBytes += a.bytes();
    } else {
      rec->peakBytes = rs.peakBytes;
    }
  }
  return out;
}

bool Session::run(const std::string& name, const std::string& text, Value* result) {
  // Note [Source lifetime]: the program lives while it runs and while a function it defined
  // does; the sink's diagnostics keep what they point into.
  auto src = std::make_shared<SourceFile>(name, text);
  size_t before = sink_.all().size();
  int errorsBefore = sink_.errorCount();
  auto prog = std::make_shared<const Program>(parseProgram(src, sink_));
  if (sink_.all().size() > before) diagnosticSources_.push_back(prog);
  if (sink_.errorCount() > errorsBefore) return false;
  struct Sweep {
    Session& session;
    ~Sweep() { session.dropUnreachableCode(); }
  } sweep{*this};
  FlushDenormals flush;  // Note [Denormals flushed to zero]
  try {
    Value v = eval_->runProgram(prog, eval_->globals());
    if (result) *result = v;
    return true;
  } catch (const UserError& e) {
    diagnosticSources_.push_back(prog);
    for (auto& p : eval_->takeErrorSources()) diagnosticSources_.push_back(std::move(p));
    report(e.diag);
  } catch (const std::bad_alloc&) {
    Diagnostic d;
    d.code = "E0401";
    d.message = "out of memory";
    report(d);
  } catch (const std::exception& e) {
    Diagnostic d;
    d.code = "E9999";
    d.message = std::string("internal compiler error: ") + e.what();
    d.help = "this is a bug in scn; please report it with the program that triggered it";
    report(d);
  }
  return false;
}

// The compiled code of a function that only keepFuncs_ still holds cannot run again: the trace
// of a redefined `fn`, the one-equation function of a top-level loop. Dropped after each program
// and when runFunc's table has doubled, so a session that loads or loops for a long time does
// not keep them all. A function that is running is held by its caller too, so it stays.
void Session::dropUnreachableCode() {
  for (auto it = keepFuncs_.begin(); it != keepFuncs_.end();) {
    if (it->second.use_count() > 1) {
      ++it;
      continue;
    }
    executables_.erase(it->first);
    it = keepFuncs_.erase(it);
  }
}

bool Session::runFile(const std::string& path) {
  std::string text;
  try {
    text = readProgramFile(path, interrupted());
  } catch (const UserError& e) {
    report(e.diag);
    return false;
  }
  if (text.rfind("#!", 0) == 0) text[0] = '#';  // a shebang line is a comment
  eval_->noteFileRun(path, true);  // Note [Import cycles]
  bool ok = run(path, text);
  if (!ok) eval_->noteFileRun(path, false);
  return ok;
}

void Session::clearDiagnostics() {
  sink_.clear();
  diagnosticSources_.clear();
  eval_->takeErrorSources();
}

bool Session::emitForCall(const std::string& stage, const std::string& name, const std::string& text,
                          std::string& out, bool cudaPrelude) {
  // Evaluate the call with a runner that captures the first compiled function instead of
  // running it.
  EvalHost saved = eval_->host();
  FuncPtr captured;
  eval_->host().run = [&](const FuncPtr& f, const std::vector<Array>&, CallRecord*) -> std::vector<Array> {
    captured = f;
    throw EmitCaptured{};
  };
  int errorsBefore = sink_.errorCount();
  try {
    run(name, text);
  } catch (const EmitCaptured&) {
  }
  eval_->host() = saved;
  if (!captured) {
    if (sink_.errorCount() == errorsBefore) {
      Diagnostic d;
      d.code = "E0504";
      d.message = "`" + text + "` does not call a compiled function";
      d.help = "give a call of a `fn`, e.g. `:ir f(x)`";
      report(d);
    }
    return false;
  }
  try {
    out = emitFuncStage(stage, runPipeline(*captured, pipelineOptionsFor(*backend_)), opts_.optLevel, cudaPrelude);
  } catch (const UserError& e) {
    report(e.diag);
    return false;
  }
  return true;
}

}  // namespace scn
