// LLVM setup: target initialisation, the host TargetMachine, the O2 pipeline with libmvec,
// the ORC LLJIT session with the runtime's symbols, and the interrupt poll of compiled loops.
#include <deque>
#include <mutex>
#include <string>
#include <vector>
#include <utility>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include "jit/cpu/llvm_emit.hpp"
#include "jit/cpu/runtime.hpp"
#include "base/diagnostics.hpp"

namespace scn::cpu {

void failLLVM(const std::string& what, llvm::Error err, const std::string& reported) {
  std::string msg = llvm::toString(std::move(err));
  std::vector<DiagNote> notes;
  if (!reported.empty()) notes.push_back(DiagNote{Span{}, "LLVM's JIT reported: " + reported});
  fail("E0410", Span{}, "the CPU JIT failed to " + what + ": " + msg, {}, std::move(notes));
}

void initLLVM() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // Vector math (_ZGVdN8v_sinf, ...) resolves from libmvec; missing is fine (scalar libm).
    llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
  });
}

namespace {

// Note [More libmvec functions]
// LLVM 19's LIBMVEC_X86 table knows only sin, cos, tan, pow, exp and log, but glibc (2.35+) ships
// vector variants of most of libm: without them `erf`, `atan2`, `tanh`, `log1p`, ... stay one
// scalar call per element (erf over 2^24 f32 ran at 0.21x JAX's vectorised polynomial). The
// names follow the x86 vector function ABI: _ZGV, b (SSE) or d (AVX2), N (unmasked), the lane
// count, one v per argument. Only the f32 functions are mapped: libmvec is within 4 ulp where
// libm is within 1, which f32 users accept (XLA's own f32 erf and tanh are polynomials a few
// ulp off) but f64 users do not (gelu's 1 + erf(x) cancels and showed 3e-13 relative error
// against JAX). So f32 results of these functions on the CPU may differ from the interpreter's
// in the last bits, as f32 sin and exp already did; f64 ones stay libm's.
void addMoreLibmvecFunctions(llvm::TargetLibraryInfoImpl& tlii) {
  struct Fn {
    const char* libm;       // the double function's name in libm ("erf"; "erff" is mapped)
    const char* intrinsic;  // the LLVM intrinsic's stem ("llvm.tanh"), or null
    int arity;
  };
  static const Fn fns[] = {
      {"erf", nullptr, 1},      {"erfc", nullptr, 1},     {"log1p", nullptr, 1},
      {"expm1", nullptr, 1},    {"asinh", nullptr, 1},    {"acosh", nullptr, 1},
      {"atanh", nullptr, 1},    {"cbrt", nullptr, 1},     {"tanh", "llvm.tanh", 1},
      {"asin", "llvm.asin", 1}, {"acos", "llvm.acos", 1}, {"atan", "llvm.atan", 1},
      {"sinh", "llvm.sinh", 1}, {"cosh", "llvm.cosh", 1}, {"log2", "llvm.log2", 1},
      {"log10", "llvm.log10", 1}, {"exp2", "llvm.exp2", 1}, {"hypot", nullptr, 2},
      {"atan2", nullptr, 2},
  };
  // The strings outlive the TLI (VecDesc keeps StringRefs) and never move (a deque).
  static std::deque<std::string> names;
  static std::vector<llvm::VecDesc> descs;
  static std::once_flag once;
  std::call_once(once, [] {
    auto keep = [](std::string s) -> llvm::StringRef { return names.emplace_back(std::move(s)); };
    for (const Fn& f : fns) {
      std::string args(f.arity, 'v');
      std::string scalar = std::string(f.libm) + "f";
      for (auto [isa, lanes] : {std::pair{'b', 4}, std::pair{'d', 8}}) {
        std::string lanesArgs = std::to_string(lanes) + args;
        llvm::StringRef vector = keep("_ZGV" + std::string(1, isa) + "N" + lanesArgs + "_" + scalar);
        llvm::StringRef prefix = keep("_ZGV_LLVM_N" + lanesArgs);
        auto vf = llvm::ElementCount::getFixed(lanes);
        descs.emplace_back(keep(scalar), vector, vf, false, prefix);
        if (f.intrinsic) descs.emplace_back(keep(std::string(f.intrinsic) + ".f32"), vector, vf, false, prefix);
      }
    }
  });
  tlii.addVectorizableFunctions(descs);
}

llvm::CodeGenOptLevel codegenLevel(int opt) {
  switch (opt <= 0 ? 0 : opt >= 3 ? 3 : opt) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 2: return llvm::CodeGenOptLevel::Default;
    default: return llvm::CodeGenOptLevel::Aggressive;
  }
}

llvm::orc::JITTargetMachineBuilder hostBuilder(int optLevel) {
  initLLVM();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) failLLVM("detect the host CPU", jtmb.takeError());
  jtmb->setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  for (const auto& f : llvm::sys::getHostCPUFeatures()) features.AddFeature(f.first(), f.second);
  jtmb->getFeatures() = features;
  jtmb->setCodeGenOptLevel(codegenLevel(optLevel));
  return std::move(*jtmb);
}

}  // namespace

std::unique_ptr<llvm::TargetMachine> hostTargetMachine(int optLevel) {
  auto tm = hostBuilder(optLevel).createTargetMachine();
  if (!tm) failLLVM("create a target machine", tm.takeError());
  return std::move(*tm);
}

// Note [Interrupting the optimiser]
// LLVM's passes cannot be stopped midway, but the pass manager asks before each optional pass
// whether to run it. Once the session's interrupt flag is set, the answer is no: the rest of
// the pipeline (hundreds of passes for a large module) is skipped in moments, and the caller
// raises E0507 instead of running code generation on the half-optimised module. So Ctrl-C
// during a long compile stops it within one pass, and the REPL goes on.
void optimiseModule(llvm::Module& m, llvm::TargetMachine& tm, int optLevel,
                    const std::atomic<int32_t>* interrupt) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = optLevel >= 2;
  pto.SLPVectorization = optLevel >= 2;
  llvm::PassInstrumentationCallbacks pic;
  if (interrupt)
    pic.registerShouldRunOptionalPassCallback([interrupt](llvm::StringRef, llvm::Any) {
      return interrupt->load(std::memory_order_relaxed) == 0;
    });
  llvm::PassBuilder pb(&tm, pto, std::nullopt, &pic);
  llvm::Triple triple(m.getTargetTriple());
  llvm::TargetLibraryInfoImpl tlii(triple);
  tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
  addMoreLibmvecFunctions(tlii);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (optLevel <= 0) {
    mpm = pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
  } else {
    llvm::OptimizationLevel lvl = optLevel == 1   ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
    mpm = pb.buildPerModuleDefaultPipeline(lvl);
  }
  mpm.run(m, mam);
}

// Note [Interrupting compiled code]
// Ctrl-C in the REPL, and Context::interrupt / scn_interrupt from another thread, set a flag
// that belongs to the session. The evaluator polls it between statements; compiled code polls
// it once per iteration of every step-level loop (Loop and While in the kernel IR's host
// program; a Loop of small kernels once per chunk of iterations, Note [Polling small loop
// bodies] in llvm_emit.cpp), at the end of the iteration, after the iteration's buffer swaps: a monotonic atomic
// load of an i32, compared with zero, and a branch marked unlikely to a `ret void`. The entry
// takes a pointer to the flag as its third argument, so there is no global. The load is
// volatile so that LLVM neither hoists it out of the loop nor merges polls; LLVM counts such a
// load as a possible write, so the loop's slot swaps stay in memory (as they mostly were
// anyway) and the host loop is not unrolled (measured: a 2*10^6-iteration fori_loop and a
// 2*10^5-step scan run as fast as before, within the noise). The executable sees the flag set
// after the entry returned and raises E0507; the half-updated buffers are temporaries and are
// dropped. Kernels themselves (one parallel loop nest) do not poll: a single kernel that takes
// minutes cannot be stopped, but a loop of kernels stops within one iteration. The interpreter
// polls the same flag once per scan and while iteration (jit/interp.cpp), and the CUDA step
// runner once per loop iteration it issues and per while chunk (StepOptions::interrupt).
//
// Note [Polling small loop bodies]
// The poll is a volatile load that LLVM must keep in order, so it also keeps a loop from being
// unrolled and costs a few instructions of a body that is itself a few instructions (a scan
// writing one carry element: bench group G's in-place scan). When a Loop's body is only small
// kernels, copies and swaps, llvm_emit.cpp runs it in chunks of up to kMaxPollStride (1024)
// iterations with one poll after each chunk, sized to about kParallelWork units of the body's
// work (pollStride), so an interrupt still stops it within microseconds. A body with a product,
// a sort, a collective or a nested loop polls every iteration.
void emitInterruptPoll(llvm::IRBuilder<>& b, llvm::Value* flag) {
  llvm::LLVMContext& c = b.getContext();
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  auto* stop = llvm::BasicBlock::Create(c, "interrupted", fn);
  auto* go = llvm::BasicBlock::Create(c, "not_interrupted", fn);
  llvm::LoadInst* v = b.CreateLoad(b.getInt32Ty(), flag, /*isVolatile=*/true, "interrupt");
  v->setAlignment(llvm::Align(4));
  v->setAtomic(llvm::AtomicOrdering::Monotonic);
  b.CreateCondBr(b.CreateICmpNE(v, b.getInt32(0)), stop, go,
                 llvm::MDBuilder(c).createBranchWeights(1, 1u << 20));
  b.SetInsertPoint(stop);
  b.CreateRetVoid();
  b.SetInsertPoint(go);
}

JitSession::JitSession(int optLevel, std::shared_ptr<llvm::ObjectCache> cache,
                       std::function<void(const Diagnostic&)> warn)
    : cache_(std::move(cache)), warn_(std::move(warn)) {
  llvm::orc::LLJITBuilder builder;
  builder.setJITTargetMachineBuilder(hostBuilder(optLevel));
  if (llvm::ObjectCache* c = cache_.get())
    builder.setCompileFunctionCreator(
        [c](llvm::orc::JITTargetMachineBuilder jtmb)
            -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
          return std::make_unique<llvm::orc::ConcurrentIRCompiler>(std::move(jtmb), c);
        });
  auto jit = builder.create();
  if (!jit) failLLVM("start", jit.takeError());
  jit_ = std::move(*jit);
  // ORC's default reporter prints "JIT session error: ..." to stderr; the library never prints,
  // so the text is kept for the diagnostic of the compile it belongs to.
  jit_->getExecutionSession().setErrorReporter([this](llvm::Error e) {
    std::string text = llvm::toString(std::move(e));
    std::lock_guard<std::mutex> lock(errorsMutex_);
    sessionErrors_ += (sessionErrors_.empty() ? "" : "; ") + text;
  });
  tm_ = hostTargetMachine(optLevel);
  llvm::orc::JITDylib& jd = jit_->getMainJITDylib();
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit_->getDataLayout().getGlobalPrefix());
  if (!gen) failLLVM("search the process for symbols", gen.takeError());
  jd.addGenerator(std::move(*gen));
  llvm::orc::SymbolMap syms;
  auto add = [&](const char* name, auto* fn) {
    syms[jit_->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                                         llvm::JITSymbolFlags::Exported |
                                             llvm::JITSymbolFlags::Callable};
  };
  add("scn_parallel_for", &scn_parallel_for);
  add("scn_gemm", &scn_gemm);
  add("scn_sort_rows", &scn_sort_rows);
  add("scn_linalg", &scn_linalg);
  add("scn_collective", &scn_collective);
  if (llvm::Error e = jd.define(llvm::orc::absoluteSymbols(std::move(syms))))
    failLLVM("define runtime symbols", std::move(e));
}

void* JitSession::add(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                      const std::string& mainName) {
  if (llvm::Error e = jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    failLLVM("add a module", std::move(e), takeSessionErrors());
  auto sym = jit_->lookup(mainName);
  if (!sym) failLLVM("compile " + mainName, sym.takeError(), takeSessionErrors());
  if (std::string reported = takeSessionErrors(); !reported.empty() && warn_) {
    Diagnostic d = makeDiagnostic("E0412", Span{}, "LLVM's JIT reported an error while compiling " + mainName +
                                                       ": " + reported);
    d.severity = Severity::Warning;
    warn_(d);
  }
  return sym->toPtr<void*>();
}

std::string JitSession::takeSessionErrors() {
  std::lock_guard<std::mutex> lock(errorsMutex_);
  return std::exchange(sessionErrors_, std::string());
}

}  // namespace scn::cpu
