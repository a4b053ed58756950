// The CPU backend object: lowering, the compile caches (in memory and on disk), LLVM code
// generation and running the native code over a table of buffer pointers.
#include "jit/cpu/cpu_backend.hpp"

#include <array>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <llvm/ADT/StringExtras.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

#include "jit/collectives.hpp"
#include "jit/cpu/host_blocks.hpp"
#include "jit/cpu/llvm_emit.hpp"
#include "jit/cpu/object_cache.hpp"
#include "jit/cpu/runtime.hpp"
#include "jit/kernel/kernel_ir.hpp"
#include "base/diagnostics.hpp"

namespace scn {

namespace cpu {
namespace {

using Clock = std::chrono::steady_clock;

/// The CPU step runner honours Step::start, so scans peel their first iteration; sorts call the
/// runtime's radix sort (jit/cpu/sort.cpp); a thread runs a row kernel's row from its cache.
kir::LowerOptions cpuLowerOptions() {
  kir::LowerOptions o;
  o.peelFirstIteration = true;
  o.sortStep = true;
  o.fuseRows = true;
  o.gemmEpilogues = true;  // runGemm runs them piece by piece (Note [GEMM epilogues])
  o.complexGemm = true;  // cblas_cgemm / cblas_zgemm
  o.keepBf16Products = true;  // oneDNN's bf16 matmul (Note [bf16 products] in gemm_bf16.cpp)
  return o;
}
double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

static_assert(sizeof(std::atomic<int32_t>) == 4 && std::atomic<int32_t>::is_always_lock_free,
              "compiled code loads the interrupt flag as an i32");

/// Native code for one kernel program, shared by every executable with the same kernel IR.
struct Compiled {
  std::shared_ptr<JitSession> jit;  // keeps the code alive
  MainFn fn = nullptr;
};

/// The flag of executables nobody can interrupt (a constant, not state).
const std::atomic<int32_t> kNeverInterrupted{0};

class CpuExecutable : public Executable {
 public:
  CpuExecutable(kir::Program prog, const Func& f, std::shared_ptr<Compiled> code,
                std::shared_ptr<ThreadPool> pool, const std::atomic<int32_t>* interrupt)
      : prog_(std::move(prog)), params_(f.paramTypes()), results_(f.resultTypes()),
        code_(std::move(code)), pool_(std::move(pool)),
        interrupt_(interrupt ? interrupt : &kNeverInterrupted) {}

  std::vector<Array> execute(const std::vector<Array>& args, RunStats* stats) override {
    auto t0 = Clock::now();
    SCN_ASSERT(args.size() == params_.size(), "wrong number of arguments to a compiled function");
    for (size_t i = 0; i < args.size(); ++i)
      SCN_ASSERT(args[i].dtype == params_[i].dtype && args[i].shape == params_[i].shape,
                 "argument " + std::to_string(i) + " does not match " + typeString(params_[i]));
    size_t n = prog_.buffers.size();
    std::vector<std::shared_ptr<Buffer>> owners(n);
    std::vector<void*> table(n);
    size_t tempBytes = 0;
    for (size_t i = 0; i < n; ++i) {
      const kir::BufferInfo& b = prog_.buffers[i];
      switch (b.kind) {
        case kir::BufferKind::Param: owners[i] = args.at(b.index).buffer; break;
        case kir::BufferKind::Const: owners[i] = prog_.consts.at(b.index).buffer; break;
        case kir::BufferKind::Temp:
          owners[i] = allocateRunBuffer(b.bytes());
          tempBytes += b.bytes();
          break;
      }
      if (!owners[i]) owners[i] = std::make_shared<Buffer>(0);
      table[i] = owners[i]->data();
    }
    RuntimeCtx ctx;
    ctx.pool = pool_.get();
    ctx.collectives = &prog_.collectives;
    code_->fn(table.data(), &ctx, interrupt_);
    for (size_t i = 0; i < n; ++i)
      SCN_ASSERT(owners[i]->guardsIntact(), "compiled code wrote outside buffer " + std::to_string(i) + " (" +
                                                std::to_string(owners[i]->bytes()) + " bytes; Note [Buffer guards])");
    // A collective that did not complete stopped the run (Note [Collective steps]).
    if (ctx.collectiveFailure) {
      const CollectiveFailure& f = *ctx.collectiveFailure;
      fail(f.code, prog_.collectives.at(ctx.failedCollective).span, f.message, f.help);
    }
    // The entry returns early when it saw the flag (Note [Interrupting compiled code]); a flag
    // set just after a complete run also stops here, as the next statement would.
    if (interrupt_->load(std::memory_order_relaxed) != 0) failInterrupted();
    std::vector<Array> out;
    for (size_t r = 0; r < prog_.results.size(); ++r) {
      // After swaps a slot may hold another slot's memory: find the owner of the pointer.
      void* p = table[prog_.results[r]];
      std::shared_ptr<Buffer> owner;
      for (size_t i = 0; i < n && !owner; ++i)
        if (owners[i]->data() == p) owner = owners[i];
      SCN_ASSERT(owner, "result buffer has no owner");
      Array a;
      a.dtype = results_[r].dtype;
      a.shape = results_[r].shape;
      a.buffer = owner;
      out.push_back(std::move(a));
    }
    if (stats) {
      stats->runMs = msSince(t0);
      stats->peakBytes = tempBytes;
      stats->copiedBytes = static_cast<size_t>(ctx.copiedBytes);
      stats->inPlaceUpdates = prog_.inPlaceUpdates;
    }
    return out;
  }

 private:
  kir::Program prog_;
  std::vector<Type> params_, results_;
  std::shared_ptr<Compiled> code_;
  std::shared_ptr<ThreadPool> pool_;
  const std::atomic<int32_t>* interrupt_;
};

/// The entry's symbol: named by a hash of the kernel IR (the in-memory cache key), so the same
/// function has the same name in every process, as the object cache needs (Note [Object cache]).
std::string entryName(const std::string& kernelKey) {
  llvm::SHA256 h;
  h.update(kernelKey);
  std::array<uint8_t, 32> d = h.final();
  return "scn_main_" + llvm::toHex(llvm::ArrayRef<uint8_t>(d.data(), 16), /*LowerCase=*/true);
}

/// Lowers and optimises `f` into a fresh module (shared by compile, emitLLVM and emitAsm).
/// An interrupt stops it with E0507 before code generation (Note [Interrupting the optimiser]).
std::unique_ptr<llvm::Module> buildModule(const kir::Program& p, llvm::LLVMContext& ctx,
                                          const std::string& mainName, llvm::TargetMachine& tm,
                                          int optLevel, const std::atomic<int32_t>* interrupt = nullptr) {
  std::unique_ptr<llvm::Module> m = emitModule(p, ctx, mainName, tm);
  linkScalarFunctions(*m);
  optimiseModule(*m, tm, optLevel, interrupt);
  if (interrupt && interrupt->load(std::memory_order_relaxed) != 0) failInterrupted();
  return m;
}

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const CpuOptions& o) : opt_(o.optLevel), interrupt_(o.interrupt) {
    unsigned hw = std::thread::hardware_concurrency();
    pool_ = std::make_shared<ThreadPool>(hw == 0 ? 1 : static_cast<int>(hw));
    if (!o.cacheDir.empty()) {
      objects_ = std::make_shared<DiskObjectCache>(o.cacheDir, o.warn, o.cacheMaxBytes);
      if (!objects_->enabled()) objects_.reset();
    }
    // The JIT (target machine, libmvec, runtime symbols) is set up once, with the backend, so
    // no function's compile time includes it.
    jit_ = std::make_shared<JitSession>(opt_, objects_, o.warn);
  }

  std::string name() const override { return "cpu"; }
  std::string kernelIR(const FuncPtr& f) override { return scn::emitKernels(f); }
  bool multipliesBf16() const override { return cpuLowerOptions().keepBf16Products; }

  std::unique_ptr<Executable> compile(const FuncPtr& f, CompileStats* stats) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto t0 = Clock::now();
    kir::Program prog = kir::lowerStage(*f, cpuLowerOptions());
    std::string name = prog.name;
    prog.name = "";  // the cache key does not depend on the function's name
    std::string key = kir::printKernels(prog);
    prog.name = name;
    double lowerMs = msSince(t0);
    if (stats) {
      stats->optimiseMs = lowerMs;
      stats->kernels = static_cast<int>(prog.kernels.size());
      stats->cacheHit = false;
    }
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      if (stats) stats->cacheHit = true;
      return std::make_unique<CpuExecutable>(std::move(prog), *f, it->second, pool_, interrupt_);
    }
    auto t1 = Clock::now();
    auto ctx = std::make_unique<llvm::LLVMContext>();
    std::string mainName = entryName(key);
    std::unique_ptr<llvm::Module> m = buildModule(prog, *ctx, mainName, jit_->targetMachine(), opt_, interrupt_);
    int hitsBefore = objects_ ? objects_->hits() : 0;
    int rejectedBefore = objects_ ? objects_->rejected() : 0;
    // The JIT's compiler asks the object cache by module identifier (Note [Object cache]).
    if (objects_) m->setModuleIdentifier(objectKey(*m, jit_->targetMachine(), opt_));
    auto code = std::make_shared<Compiled>();
    code->jit = jit_;
    code->fn = reinterpret_cast<MainFn>(jit_->add(std::move(m), std::move(ctx), mainName));
    if (stats) {
      stats->codegenMs = msSince(t1);
      stats->cacheHit = objects_ && objects_->hits() > hitsBefore;
      stats->cacheRejected = objects_ && objects_->rejected() > rejectedBefore;
    }
    cache_[key] = code;
    return std::make_unique<CpuExecutable>(std::move(prog), *f, code, pool_, interrupt_);
  }

 private:
  int opt_;
  const std::atomic<int32_t>* interrupt_;
  std::mutex mutex_;
  std::shared_ptr<DiskObjectCache> objects_;  // also held by jit_, whose compiler uses it
  std::shared_ptr<JitSession> jit_;
  std::shared_ptr<ThreadPool> pool_;
  std::unordered_map<std::string, std::shared_ptr<Compiled>> cache_;
};

}  // namespace
}  // namespace cpu

std::unique_ptr<Backend> makeCpuBackend(const CpuOptions& opts) {
  return std::make_unique<cpu::CpuBackend>(opts);
}

std::unique_ptr<Backend> makeCpuBackend(int optLevel) {
  CpuOptions o;
  o.optLevel = optLevel;
  return makeCpuBackend(o);
}

size_t reusableHostBytes() { return cpu::recycledBytes(); }
void setReusableHostLimit(size_t bytes) { cpu::setRecycleLimit(bytes); }

std::string emitKernels(const FuncPtr& f) { return kir::printKernels(kir::lowerStage(*f, cpu::cpuLowerOptions())); }

std::string emitLLVM(const FuncPtr& f, int optLevel) {
  kir::Program prog = kir::lowerStage(*f, cpu::cpuLowerOptions());
  auto tm = cpu::hostTargetMachine(optLevel);
  llvm::LLVMContext ctx;
  auto m = cpu::buildModule(prog, ctx, "scn_main", *tm, optLevel);
  std::string s;
  llvm::raw_string_ostream os(s);
  m->print(os, nullptr);
  return os.str();
}

std::string emitAsm(const FuncPtr& f, int optLevel) {
  kir::Program prog = kir::lowerStage(*f, cpu::cpuLowerOptions());
  auto tm = cpu::hostTargetMachine(optLevel);
  llvm::LLVMContext ctx;
  auto m = cpu::buildModule(prog, ctx, "scn_main", *tm, optLevel);
  llvm::SmallString<4096> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    fail("E0410", Span{}, "the CPU JIT cannot emit assembly for this target");
  pm.run(*m);
  return std::string(buf.str());
}

}  // namespace scn
