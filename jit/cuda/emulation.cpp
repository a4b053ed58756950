// Host emulation: the emulation header, compiling a translation unit with the host compiler,
// and running a program's steps on host memory.
#include "jit/cuda/emulation.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "lang/diagnostics.hpp"

namespace scn::cuda {

// Note [Host emulation]
// The translation unit that NVRTC compiles is compiled unchanged by the host compiler after
// this header. It defines the CUDA keywords away, gives threadIdx/blockIdx/blockDim/gridDim as
// file globals, the two bit-cast intrinsics the prelude uses, and SCN_EMU_GRID, which the
// printer's scn_emu_<kernel> entries use to run every (block, thread) pair of a launch in turn.
// Kernels are perfectly parallel (no shared memory, no barriers, no atomics), so any order is
// a valid schedule. Float results may differ from the GPU's by the last bits of libm functions
// (exp, sin, ...); integer results, indexing and control flow are exactly the GPU's.
static const char* const kEmulationHeader = R"SCN_EMU(// ---- scn host emulation of CUDA ----
#define SCN_EMULATION 1
#include <math.h>
#include <string.h>
#define __global__
#define __device__
#define __forceinline__ inline
struct scn_uint3 { unsigned x, y, z; };
static scn_uint3 threadIdx, blockIdx, blockDim, gridDim;
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, sizeof f); return f; }
static inline double __longlong_as_double(long long i) { double d; memcpy(&d, &i, sizeof d); return d; }
#define SCN_EMU_GRID(g, b)                                                     \
  gridDim.x = (g); blockDim.x = (b);                                           \
  gridDim.y = gridDim.z = blockDim.y = blockDim.z = 1;                         \
  blockIdx.y = blockIdx.z = threadIdx.y = threadIdx.z = 0;                     \
  for (blockIdx.x = 0; blockIdx.x < gridDim.x; ++blockIdx.x)                   \
    for (threadIdx.x = 0; threadIdx.x < blockDim.x; ++threadIdx.x)
)SCN_EMU";

const char* cudaEmulationHeader() { return kEmulationHeader; }

namespace {

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
  // three times faster than -O1, and the emulation is for checking, not for speed.
  std::string cmd = cxx + " -std=c++17 -O0 -fPIC -shared -w -ffp-contract=off -fno-fast-math -o '" +
                    lib + "' '" + src + "'";
  int status = 0;
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

void HostStepTarget::launch(int k, const KernelSig& sig, void** args) {
  using Entry = void (*)(void**, unsigned, unsigned);
  auto fn = reinterpret_cast<Entry>(m_.symbol("scn_emu_" + sig.name));
  unsigned grid = gridFor(sig.points);
  if (maxGrid_ > 0 && grid > maxGrid_) grid = maxGrid_;
  fn(args, grid, blockFor(sig.points));
  ++launches_;
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
        C[i * g.ldc + j] = acc;
      }
  }
}
}  // namespace

void HostStepTarget::gemm(const kir::Gemm& g, const void* a, const void* b, void* c) {
  if (g.dtype == DType::F32)
    hostGemm(g, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(c));
  else if (g.dtype == DType::F64)
    hostGemm(g, static_cast<const double*>(a), static_cast<const double*>(b), static_cast<double*>(c));
  else
    internalError(std::string("GEMM step of dtype ") + dtypeName(g.dtype));
}

void HostStepTarget::copy(void* dst, const void* src, size_t bytes) { std::memmove(dst, src, bytes); }

void HostStepTarget::read(void* host, const void* src, size_t bytes) { std::memcpy(host, src, bytes); }

std::vector<Array> runEmulated(const kir::Program& p, const std::vector<KernelSig>& sigs,
                               const HostModule& m, const std::vector<Array>& args,
                               const std::vector<Type>& resultTypes, RunStats* stats,
                               unsigned maxGrid) {
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
  HostStepTarget target(m, maxGrid);
  runSteps(p, sigs, slots, target, stats);
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
  }
  return out;
}

namespace {

class EmulatedExecutable : public Executable {
 public:
  EmulatedExecutable(kir::Program p, CudaSource src, std::vector<Type> resultTypes, unsigned maxGrid)
      : p_(std::move(p)), src_(std::move(src)), resultTypes_(std::move(resultTypes)),
        module_(cudaTranslationUnit(src_)), maxGrid_(maxGrid) {}

  std::vector<Array> run(const std::vector<Array>& args, RunStats* stats) override {
    return runEmulated(p_, src_.kernels, module_, args, resultTypes_, stats, maxGrid_);
  }

 private:
  kir::Program p_;
  CudaSource src_;
  std::vector<Type> resultTypes_;
  HostModule module_;
  unsigned maxGrid_;
};

class EmulationBackend : public Backend {
 public:
  explicit EmulationBackend(unsigned maxGrid) : maxGrid_(maxGrid) {}
  std::string name() const override { return "cuda-emulation"; }
  std::unique_ptr<Executable> compile(const FuncPtr& f, CompileStats* stats) override {
    auto t0 = std::chrono::steady_clock::now();
    kir::Program p = kir::lower(*f);
    CudaSource src = printCudaKernels(p);
    auto t1 = std::chrono::steady_clock::now();
    int kernels = static_cast<int>(p.kernels.size());
    auto exe = std::make_unique<EmulatedExecutable>(std::move(p), std::move(src), f->resultTypes(),
                                                    maxGrid_);
    auto t2 = std::chrono::steady_clock::now();
    if (stats) {
      stats->optimiseMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
      stats->codegenMs = std::chrono::duration<double, std::milli>(t2 - t1).count();
      stats->kernels = kernels;
    }
    return exe;
  }

 private:
  unsigned maxGrid_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaEmulationBackend(unsigned maxGrid) {
  return std::make_unique<EmulationBackend>(maxGrid);
}

}  // namespace scn::cuda
