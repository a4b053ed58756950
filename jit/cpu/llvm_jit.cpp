// LLVM setup: target initialisation, the host TargetMachine, the O2 pipeline with libmvec,
// and the ORC LLJIT session with the runtime's symbols.
#include <mutex>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#include "jit/cpu/llvm_emit.hpp"
#include "jit/cpu/runtime.hpp"
#include "lang/diagnostics.hpp"

namespace scn::cpu {

void failLLVM(const std::string& what, llvm::Error err) {
  std::string msg = llvm::toString(std::move(err));
  fail("E0410", Span{}, "the CPU JIT failed to " + what + ": " + msg);
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

void optimiseModule(llvm::Module& m, llvm::TargetMachine& tm, int optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = optLevel >= 2;
  pto.SLPVectorization = optLevel >= 2;
  llvm::PassBuilder pb(&tm, pto);
  llvm::Triple triple(m.getTargetTriple());
  llvm::TargetLibraryInfoImpl tlii(triple);
  tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
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

JitSession::JitSession(int optLevel) {
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(hostBuilder(optLevel)).create();
  if (!jit) failLLVM("start", jit.takeError());
  jit_ = std::move(*jit);
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
  add("scn_ipow_i32", &scn_ipow_i32);
  add("scn_ipow_i64", &scn_ipow_i64);
  add("scn_ipow_u32", &scn_ipow_u32);
  add("scn_ipow_u64", &scn_ipow_u64);
  if (llvm::Error e = jd.define(llvm::orc::absoluteSymbols(std::move(syms))))
    failLLVM("define runtime symbols", std::move(e));
}

void* JitSession::add(std::unique_ptr<llvm::Module> m, std::unique_ptr<llvm::LLVMContext> ctx,
                      const std::string& mainName) {
  if (llvm::Error e = jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))))
    failLLVM("add a module", std::move(e));
  auto sym = jit_->lookup(mainName);
  if (!sym) failLLVM("compile " + mainName, sym.takeError());
  return sym->toPtr<void*>();
}

}  // namespace scn::cpu
