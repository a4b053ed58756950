// Host emulation: the emulation header, compiling a translation unit with the host compiler,
// and running a program's steps on host memory.
#include "jit/cuda/emulation.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "base/diagnostics.hpp"

namespace scn::cuda {

// Note [Host emulation]
// The translation unit that NVRTC compiles is compiled unchanged by the host compiler after
// this header. It defines the CUDA keywords away, gives threadIdx/blockIdx/blockDim/gridDim as
// file globals, the two bit-cast intrinsics the prelude uses, and SCN_EMU_GRID, which the
// printer's scn_emu_<kernel> entries use to run every (block, thread) pair of a launch in turn.
// Kernels are perfectly parallel (no shared memory, no barriers; the atomic adds of a parallel
// scatter-add are plain adds here, threads running one at a time), so any order is a valid
// schedule. The exception is a single-pass scan (Note [Single-pass scans] in
// jit/kernel/lower_scan.cpp): its entry (SCN_EMU_WHOLE_GRID) calls the kernel once for the whole
// grid and the prelude's scn_tile_scan has an emulation branch that runs the same tile-status
// protocol (counter, status words, look-back windows of 32 lanes) with the block's threads as
// loops, scheduling the grid's blocks in rounds: every block of a round takes a tile and
// publishes its aggregate, then the round's tiles look back and finish in reverse order, so look-
// backs cross aggregates (and window boundaries when a round has over 33 tiles) instead of always
// finding an inclusive predecessor. What only a GPU runs is the intra-block part (shared memory,
// barriers, shuffles), the fences and a look-back that waits for an invalid predecessor. Float results may differ from the GPU's by the last bits of libm functions
// (exp, sin, ...); integer results, indexing and control flow are exactly the GPU's.
//
// Note [Emulation compile time]
// Every compiled function is one host compile, so its cost decides whether the whole program
// suite can run on cuda-emu in CI. Measured with g++ 12 at -O0 on a 2-core machine (a 15 KB TU):
// ~1.0 s per compile, of which ~0.8 s was `#include <math.h>`, which in C++ mode pulls in
// libstdc++'s <cmath> (templates, overload sets) — more than the prelude and the kernels
// together. The header therefore declares the C functions of libm (those scalar.inc calls and
// the others an op is likely to need, so that a new op's scalar definition is all it takes) (and uses
// __builtin_memcpy), and the library is linked with -nostdlib (no libstdc++, no crt files: the
// code has no static constructors, and libm's symbols resolve against the process when the
// library is loaded): ~0.2 s per compile, most of it the compiler's start-up. A prelude calling
// a libm function missing here fails to compile in cuda_codegen_test's every-op suite.
// Identical translation units (the same function traced twice, equal bodies) share one library
// within a process (hostModuleFor).
static const char* const kEmulationHeader = R"SCN_EMU(// ---- scn host emulation of CUDA ----
#define SCN_EMULATION 1
#define __global__
#define __device__
#define __forceinline__ inline
extern "C" {
#define SCN_EMU_LIBM1(n) float n##f(float) noexcept; double n(double) noexcept;
#define SCN_EMU_LIBM2(n) float n##f(float, float) noexcept; double n(double, double) noexcept;
SCN_EMU_LIBM1(fabs) SCN_EMU_LIBM1(floor) SCN_EMU_LIBM1(ceil) SCN_EMU_LIBM1(trunc) SCN_EMU_LIBM1(round)
SCN_EMU_LIBM1(rint) SCN_EMU_LIBM1(sqrt) SCN_EMU_LIBM1(cbrt) SCN_EMU_LIBM1(exp)
SCN_EMU_LIBM1(exp2) SCN_EMU_LIBM1(expm1) SCN_EMU_LIBM1(log) SCN_EMU_LIBM1(log2)
SCN_EMU_LIBM1(log10) SCN_EMU_LIBM1(log1p) SCN_EMU_LIBM1(sin) SCN_EMU_LIBM1(cos)
SCN_EMU_LIBM1(tan) SCN_EMU_LIBM1(asin) SCN_EMU_LIBM1(acos) SCN_EMU_LIBM1(atan)
SCN_EMU_LIBM1(sinh) SCN_EMU_LIBM1(cosh) SCN_EMU_LIBM1(tanh) SCN_EMU_LIBM1(asinh)
SCN_EMU_LIBM1(acosh) SCN_EMU_LIBM1(atanh) SCN_EMU_LIBM1(erf) SCN_EMU_LIBM1(erfc)
SCN_EMU_LIBM1(lgamma) SCN_EMU_LIBM1(tgamma)
SCN_EMU_LIBM2(copysign) SCN_EMU_LIBM2(fmod) SCN_EMU_LIBM2(pow) SCN_EMU_LIBM2(atan2)
SCN_EMU_LIBM2(hypot) SCN_EMU_LIBM2(nextafter) SCN_EMU_LIBM2(fmin) SCN_EMU_LIBM2(fmax)
#undef SCN_EMU_LIBM1
#undef SCN_EMU_LIBM2
}
struct scn_uint3 { unsigned x, y, z; };
static scn_uint3 threadIdx, blockIdx, blockDim, gridDim;
static inline float __int_as_float(int i) { float f; __builtin_memcpy(&f, &i, sizeof f); return f; }
static inline double __longlong_as_double(long long i) { double d; __builtin_memcpy(&d, &i, sizeof d); return d; }
static inline int __float_as_int(float f) { int i; __builtin_memcpy(&i, &f, sizeof i); return i; }
static inline void __threadfence() {}
#define SCN_EMU_GRID(g, b)                                                     \
  gridDim.x = (g); blockDim.x = (b);                                           \
  gridDim.y = gridDim.z = blockDim.y = blockDim.z = 1;                         \
  blockIdx.y = blockIdx.z = threadIdx.y = threadIdx.z = 0;                     \
  for (blockIdx.x = 0; blockIdx.x < gridDim.x; ++blockIdx.x)                   \
    for (threadIdx.x = 0; threadIdx.x < blockDim.x; ++threadIdx.x)
#define SCN_EMU_WHOLE_GRID(g, b)                                               \
  gridDim.x = (g); blockDim.x = (b);                                           \
  gridDim.y = gridDim.z = blockDim.y = blockDim.z = 1;                         \
  blockIdx.x = blockIdx.y = blockIdx.z = threadIdx.x = threadIdx.y = threadIdx.z = 0;
)SCN_EMU";

const char* cudaEmulationHeader() { return kEmulationHeader; }

namespace {

std::mutex gModulesLock;       // hostModuleFor's table
std::atomic<int> gCompiles{0};  // host compiles run by this process

std::string runCommand(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    *status = -1;
    return "popen failed";
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *status = pclose(p);
  return out;
}

}  // namespace

HostModule::HostModule(const std::string& translationUnit) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/scn-emu-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) internalError("cannot create a temporary directory for the CUDA emulation");
  dir_ = buf.data();
  std::string src = dir_ + "/kernels.cpp", lib = dir_ + "/kernels.so";
  {
    std::ofstream out(src);
    out << kEmulationHeader << translationUnit;
    if (!out) internalError("cannot write " + src);
  }
  const char* cxxEnv = std::getenv("SCN_HOST_CXX");
  std::string cxx = cxxEnv && *cxxEnv ? cxxEnv : "c++";
  // -ffp-contract=off: no fma contraction, as NVRTC's --fmad=false. -O0 compiles a large suite
  // three times faster than -O1, and the emulation is for checking, not for speed. -nostdlib:
  // Note [Emulation compile time].
  std::string cmd = cxx + " -std=c++17 -O0 -fPIC -shared -nostdlib -w -ffp-contract=off -fno-fast-math -o '" +
                    lib + "' '" + src + "' -lm";
  int status = 0;
  ++gCompiles;
  std::string log = runCommand(cmd, &status);
  if (status != 0) {
    if (log.find("not found") != std::string::npos && log.find(src) == std::string::npos)
      fail("E0424", Span{}, "the host C++ compiler `" + cxx + "` for the CUDA emulation was not found",
           "install a C++ compiler or set SCN_HOST_CXX");
    internalError("the host compiler rejected the generated CUDA C++ under emulation; this is a "
                  "bug in scn's CUDA code generator (source kept in " + src + "):\n" + log);
  }
  lib_ = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib_) internalError(std::string("cannot load the emulated kernels: ") + dlerror());
}

std::shared_ptr<const HostModule> hostModuleFor(const std::string& translationUnit, bool* reused) {
  // Keyed by the whole text: no hash to collide. Modules die with their last executable.
  static std::unordered_map<std::string, std::weak_ptr<const HostModule>> modules;
  std::lock_guard<std::mutex> lock(gModulesLock);
  if (reused) *reused = false;
  if (std::shared_ptr<const HostModule> m = modules[translationUnit].lock()) {
    if (reused) *reused = true;
    return m;
  }
  for (auto it = modules.begin(); it != modules.end();)  // forget the texts of dead modules
    it = it->second.expired() && it->first != translationUnit ? modules.erase(it) : std::next(it);
  auto m = std::make_shared<const HostModule>(translationUnit);
  modules[translationUnit] = m;
  return m;
}

int hostCompiles() { return gCompiles.load(); }

HostModule::~HostModule() {
  if (lib_) dlclose(lib_);
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

void* HostModule::symbol(const std::string& name) const {
  void* s = dlsym(lib_, name.c_str());
  if (!s) internalError("the emulated module has no symbol " + name);
  return s;
}

StepOptions emulationStepOptions() {
  StepOptions o;
  o.minReplayIterations = 2;
  return o;
}

HostStepTarget::HostStepTarget(const HostModule& m, const CudaSource& src, unsigned maxGrid)
    : m_(m), maxGrid_(maxGrid) {
  for (const std::vector<KernelSig>* list : {&src.kernels, &src.runtimeKernels})
    for (const KernelSig& k : *list) entries_.push_back(reinterpret_cast<Entry>(m.symbol("scn_emu_" + k.name)));
}

void HostStepTarget::issue(std::function<void()> work) {
  if (recording_) recorded_.push_back(std::move(work));
  else work();
}

void HostStepTarget::launch(int k, const KernelSig& sig, void** args) {
  Entry fn = entries_.at(k);
  unsigned grid = gridFor(sig.points);
  if (maxGrid_ > 0 && grid > maxGrid_) grid = maxGrid_;
  unsigned block = blockFor(sig.points);
  // Every argument is 8 bytes (a pointer or an i64); copied now, as cuLaunchKernel does.
  std::vector<uint64_t> values(sig.arity);
  for (int i = 0; i < sig.arity; ++i) std::memcpy(&values[i], args[i], sizeof(uint64_t));
  issue([this, fn, grid, block, values]() mutable {
    std::vector<void*> a;
    for (uint64_t& v : values) a.push_back(&v);
    fn(a.data(), grid, block);
    ++launches_;
  });
}

bool HostStepTarget::beginCapture() {
  SCN_ASSERT(!recording_, "a capture inside a capture");
  recording_ = true;
  recorded_.clear();
  return true;
}

int HostStepTarget::endCapture() {
  SCN_ASSERT(recording_, "endCapture without beginCapture");
  recording_ = false;
  graphs_.push_back(std::move(recorded_));
  recorded_.clear();
  return static_cast<int>(graphs_.size()) - 1;
}

void HostStepTarget::abortCapture() {
  recording_ = false;
  recorded_.clear();
}

void HostStepTarget::replay(int g, int64_t times) {
  SCN_ASSERT(!recording_, "a replay while capturing");
  const std::vector<std::function<void()>>& work = graphs_.at(g);
  for (int64_t t = 0; t < times; ++t)
    for (const std::function<void()>& w : work) w();
}

namespace {
template <typename T>
void hostGemm(const kir::Gemm& g, const T* a, const T* b, T* c) {
  for (int64_t bi = 0; bi < g.batch; ++bi) {
    const T* A = a + bi * g.strideA;
    const T* B = b + bi * g.strideB;
    T* C = c + bi * g.strideC;
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        T acc = 0;
        for (int64_t l = 0; l < g.k; ++l) {
          T x = g.transA ? A[l * g.lda + i] : A[i * g.lda + l];
          T y = g.transB ? B[j * g.ldb + l] : B[l * g.ldb + j];
          acc += x * y;
        }
        C[i * g.ldc + j] = g.accumulate ? C[i * g.ldc + j] + acc : acc;
      }
  }
}
}  // namespace

void HostStepTarget::gemm(const kir::Gemm& g, const void* a, const void* b, void* c) {
  if (g.dtype != DType::F32 && g.dtype != DType::F64)
    internalError(std::string("GEMM step of dtype ") + dtypeName(g.dtype));
  issue([g, a, b, c] {
    if (g.dtype == DType::F32)
      hostGemm(g, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(c));
    else
      hostGemm(g, static_cast<const double*>(a), static_cast<const double*>(b), static_cast<double*>(c));
  });
}

void HostStepTarget::linalg(const LinalgCall& c, const std::vector<const void*>& in, const std::vector<void*>& out) {
  issue([c, in, out] { linalgReference(c, in.data(), out.data()); });
}

void HostStepTarget::copy(void* dst, const void* src, size_t bytes) {
  issue([dst, src, bytes] { std::memmove(dst, src, bytes); });
}

void HostStepTarget::collective(const kir::CollectiveCall& c, const void* in, void* out) {
  SCN_ASSERT(!recording_, "a collective step inside a captured loop");
  runHostCollective(c, in, out);
}

void HostStepTarget::read(void* host, const void* src, size_t bytes) {
  SCN_ASSERT(!recording_, "a device-to-host read while capturing");
  std::memcpy(host, src, bytes);
}

std::vector<Array> runEmulated(const kir::Program& p, const CudaSource& src, const HostModule& m,
                               const std::vector<Array>& args, const std::vector<Type>& resultTypes,
                               RunStats* stats, unsigned maxGrid, const StepOptions& opts,
                               StepCounts* counts) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<unsigned char>> memory;  // "device" memory of every slot
  std::vector<void*> slots(p.buffers.size(), nullptr);
  size_t bytes = 0;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const kir::BufferInfo& b = p.buffers[i];
    memory.emplace_back(b.bytes(), static_cast<unsigned char>(0xff));
    std::vector<unsigned char>& mem = memory.back();
    switch (b.kind) {
      case kir::BufferKind::Param: {
        const Array& a = args.at(b.index);
        SCN_ASSERT(a.bytes() == b.bytes(), "argument size does not match its buffer");
        if (!mem.empty()) std::memcpy(mem.data(), a.raw(), mem.size());
        break;
      }
      case kir::BufferKind::Const: {
        const Array& a = p.consts.at(b.index);
        if (!mem.empty()) std::memcpy(mem.data(), a.raw(), mem.size());
        break;
      }
      case kir::BufferKind::Temp: break;
    }
    bytes += mem.size();
    slots[i] = mem.empty() ? nullptr : mem.data();
  }
  std::vector<int64_t> counters(src.counterSlots, -1);  // the device counter table
  {
    std::lock_guard<std::mutex> lock(m.runLock());
    HostStepTarget target(m, src, maxGrid);
    runSteps(p, src, slots, counters.empty() ? nullptr : counters.data(), target, stats, opts, counts);
  }
  SCN_ASSERT(resultTypes.size() == p.results.size(), "result types do not match the program");
  std::vector<Array> out;
  for (size_t j = 0; j < p.results.size(); ++j) {
    Array a(resultTypes[j].dtype, resultTypes[j].shape);
    SCN_ASSERT(a.bytes() == p.buffers.at(p.results[j]).bytes(), "result size does not match its buffer");
    if (a.bytes() > 0) std::memcpy(a.raw(), slots.at(p.results[j]), a.bytes());
    out.push_back(std::move(a));
  }
  if (stats) {
    stats->peakBytes = std::max(stats->peakBytes, bytes);
    stats->runMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    stats->inPlaceUpdates = p.inPlaceUpdates;
  }
  return out;
}

namespace {

class EmulatedExecutable : public Executable {
 public:
  EmulatedExecutable(kir::Program p, CudaSource src, std::vector<Type> resultTypes, unsigned maxGrid,
                     const std::atomic<int32_t>* interrupt, bool* reused)
      : p_(std::move(p)), src_(std::move(src)), resultTypes_(std::move(resultTypes)),
        module_(hostModuleFor(cudaTranslationUnit(src_), reused)), maxGrid_(maxGrid) {
    opts_.interrupt = interrupt;
  }

  std::vector<Array> execute(const std::vector<Array>& args, RunStats* stats) override {
    return runEmulated(p_, src_, *module_, args, resultTypes_, stats, maxGrid_, opts_);
  }

 private:
  kir::Program p_;
  CudaSource src_;
  std::vector<Type> resultTypes_;
  std::shared_ptr<const HostModule> module_;
  unsigned maxGrid_;
  StepOptions opts_ = emulationStepOptions();
};

class EmulationBackend : public Backend {
 public:
  EmulationBackend(unsigned maxGrid, const std::atomic<int32_t>* interrupt)
      : maxGrid_(maxGrid), interrupt_(interrupt) {}
  std::string name() const override { return "cuda-emulation"; }
  bool scansWithCombiners() const override { return false; }  // as the CUDA backend
  std::string kernelIR(const FuncPtr& f) override { return emitKernels(f); }
  std::unique_ptr<Executable> compile(const FuncPtr& f, CompileStats* stats) override {
    auto t0 = std::chrono::steady_clock::now();
    kir::Program p = kir::lowerStage(*f, cudaLowerOptions());
    CudaSource src = printCudaKernels(p);
    auto t1 = std::chrono::steady_clock::now();
    int kernels = static_cast<int>(p.kernels.size());
    bool reused = false;
    auto exe = std::make_unique<EmulatedExecutable>(std::move(p), std::move(src), f->resultTypes(),
                                                    maxGrid_, interrupt_, &reused);
    auto t2 = std::chrono::steady_clock::now();
    if (stats) {
      stats->optimiseMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
      stats->codegenMs = std::chrono::duration<double, std::milli>(t2 - t1).count();
      stats->kernels = kernels;
      stats->cacheHit = reused;  // the library of an equal translation unit, already compiled
    }
    return exe;
  }

 private:
  unsigned maxGrid_;
  const std::atomic<int32_t>* interrupt_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaEmulationBackend(unsigned maxGrid, const std::atomic<int32_t>* interrupt) {
  return std::make_unique<EmulationBackend>(maxGrid, interrupt);
}

}  // namespace scn::cuda
