// The CUDA backend: compile = lower + print + NVRTC + module load; run = copy in, steps on one
// stream, copy out. Device memory comes from a caching pool; GEMMs go to cuBLAS.
#include "jit/cuda/cuda_backend.hpp"

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "jit/cuda/cuda_source.hpp"
#include "jit/cuda/device_pool.hpp"
#include "jit/cuda/driver.hpp"
#include "jit/cuda/nvrtc.hpp"
#include "jit/cuda/steps.hpp"
#include "jit/kernel/kernel_ir.hpp"
#include "base/diagnostics.hpp"

namespace scn::cuda {

namespace {

/// The runner's options on the GPU. SCN_CUDA_GRAPHS=N sets StepOptions::minReplayIterations: 0
/// turns loop capture off (to compare), 2 captures nearly every loop (as the emulation does);
/// SCN_CUDA_WHILE_CHUNK=N sets StepOptions::whileChunk (0: one read per while iteration).
StepOptions stepOptions(const std::atomic<int32_t>* interrupt) {
  StepOptions o;
  o.interrupt = interrupt;
  if (const char* g = std::getenv("SCN_CUDA_GRAPHS"); g && *g) o.minReplayIterations = std::atoll(g);
  if (const char* w = std::getenv("SCN_CUDA_WHILE_CHUNK"); w && *w) o.whileChunk = std::atoll(w);
  return o;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void* asPtr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }
CUdeviceptr asDev(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }

/// The device, its primary context, the stream all work goes to, the memory pool, the PTX cache
/// and the cuBLAS handle. Shared by the backend and every executable it made.
class CudaContext {
 public:
  CudaContext(const Driver& d, DeviceInfo dev, const CudaOptions& opts)
      : d(d), dev(std::move(dev)), pool(d),
        cache(opts.cacheDir == "-" ? "" : opts.cacheDir.empty() ? PtxCache::defaultDir() : opts.cacheDir,
              opts.cacheMaxBytes) {
    arch = opts.arch.empty() ? archForDevice(this->dev.ccMajor, this->dev.ccMinor) : opts.arch;
    const char* tf = std::getenv("SCN_CUDA_TF32");
    tf32 = opts.tf32 || (tf && std::string(tf) == "1");
    interrupt = opts.interrupt;
    d.check(d.primaryCtxRetain(&ctx, this->dev.device), "cuDevicePrimaryCtxRetain");
    makeCurrent();
    d.check(d.streamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }

  ~CudaContext() {
    d.ctxSetCurrent(ctx);
    d.streamSynchronize(stream);
    pool.trim();
    if (cublasHandle && cublas) cublas->destroy(cublasHandle);
    d.streamDestroy(stream);
    d.primaryCtxRelease(dev.device);
  }

  void makeCurrent() { d.check(d.ctxSetCurrent(ctx), "cuCtxSetCurrent"); }

  /// The cuBLAS handle, created on first use (a UserError when cuBLAS cannot be loaded).
  void* blas() {
    if (cublasHandle) return cublasHandle;
    std::string why;
    cublas = loadCublas(&why);
    if (!cublas)
      fail("E0425", Span{}, "this program has a matrix product and " + why,
           "install the CUDA toolkit's cuBLAS or run with --backend=cpu");
    int st = cublas->create(&cublasHandle);
    if (st != 0) fail("E0425", Span{}, "cublasCreate failed with status " + std::to_string(st));
    cublas->setStream(cublasHandle, stream);
    cublas->setMathMode(cublasHandle, tf32 ? kCublasTf32Math : kCublasDefaultMath);
    return cublasHandle;
  }

  const Driver& d;
  DeviceInfo dev;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  DevicePool pool;
  PtxCache cache;
  std::string arch;
  bool tf32 = false;
  const std::atomic<int32_t>* interrupt = nullptr;
  const Cublas* cublas = nullptr;
  void* cublasHandle = nullptr;
};

/// Steps on the GPU: launches, cuBLAS GEMMs and copies on the context's stream; captured loops
/// become CUDA graphs (Note [Loops on the device] in steps.cpp), destroyed with the target.
class DeviceStepTarget : public StepTarget {
 public:
  DeviceStepTarget(CudaContext& c, const std::vector<CUfunction>& fns) : c_(c), fns_(fns) {}

  ~DeviceStepTarget() override {
    if (execs_.empty() && graphs_.empty()) return;
    c_.d.streamSynchronize(c_.stream);  // replays may still be running
    for (CUgraphExec e : execs_) c_.d.graphExecDestroy(e);
    for (CUgraph g : graphs_) c_.d.graphDestroy(g);
  }

  void launch(int k, const KernelSig& sig, void** args) override {
    c_.d.check(c_.d.launchKernel(fns_.at(k), gridFor(sig.points), 1, 1, blockFor(sig.points), 1, 1,
                                 0, c_.stream, args, nullptr),
               "cuLaunchKernel");
  }

  // Thread-local capture: other threads' CUDA calls are not affected by this one's recording.
  bool beginCapture() override {
    c_.d.check(c_.d.streamBeginCapture(c_.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
               "cuStreamBeginCapture");
    return true;
  }

  int endCapture() override {
    CUgraph graph = nullptr;
    c_.d.check(c_.d.streamEndCapture(c_.stream, &graph), "cuStreamEndCapture");
    graphs_.push_back(graph);
    CUgraphExec exec = nullptr;
    c_.d.check(c_.d.graphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
    execs_.push_back(exec);
    return static_cast<int>(execs_.size()) - 1;
  }

  void abortCapture() override {
    CUgraph graph = nullptr;
    if (c_.d.streamEndCapture(c_.stream, &graph) == CUDA_SUCCESS && graph) c_.d.graphDestroy(graph);
  }

  void replay(int g, int64_t times) override {
    for (int64_t t = 0; t < times; ++t) c_.d.check(c_.d.graphLaunch(execs_.at(g), c_.stream), "cuGraphLaunch");
  }

  void gemm(const kir::Gemm& g, const void* a, const void* b, void* c) override {
    for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.batch})
      if (v > INT_MAX)
        fail("E0425", Span{}, "a matrix product of " + std::to_string(g.m) + "x" + std::to_string(g.k) +
                                  " by " + std::to_string(g.k) + "x" + std::to_string(g.n) +
                                  " is too large for cuBLAS's 32-bit sizes");
    void* h = c_.blas();
    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
    int ta = g.transB ? kCublasOpT : kCublasOpN, tb = g.transA ? kCublasOpT : kCublasOpN;
    int st;
    if (g.dtype == DType::F32) {
      float one = 1, beta = g.accumulate ? 1 : 0;
      st = c_.cublas->sgemmStridedBatched(
          h, ta, tb, int(g.n), int(g.m), int(g.k), &one, static_cast<const float*>(b), int(g.ldb),
          g.strideB, static_cast<const float*>(a), int(g.lda), g.strideA, &beta,
          static_cast<float*>(c), int(g.ldc), g.strideC, int(g.batch));
    } else if (g.dtype == DType::F64) {
      double one = 1, beta = g.accumulate ? 1 : 0;
      st = c_.cublas->dgemmStridedBatched(
          h, ta, tb, int(g.n), int(g.m), int(g.k), &one, static_cast<const double*>(b), int(g.ldb),
          g.strideB, static_cast<const double*>(a), int(g.lda), g.strideA, &beta,
          static_cast<double*>(c), int(g.ldc), g.strideC, int(g.batch));
    } else {
      internalError(std::string("GEMM step of dtype ") + dtypeName(g.dtype));
    }
    if (st != 0) fail("E0425", Span{}, "a cuBLAS GEMM failed with status " + std::to_string(st));
  }

  // Note [Linalg on the GPU]: cuSOLVER and cuFFT are not wired up yet; the step copies its
  // operands to the host, runs the reference implementation (jit/linalg.cpp, jit/fft.cpp) there
  // and copies the results back.
  // Correct on every input, but slow for large matrices (docs/backend-cuda.md).
  void linalg(const LinalgCall& c, const std::vector<const void*>& in, const std::vector<void*>& out) override {
    std::vector<std::vector<unsigned char>> hin, hout;
    std::vector<const void*> ip;
    std::vector<void*> op;
    for (size_t i = 0; i < in.size(); ++i) {
      int k = static_cast<int>(i);
      hin.emplace_back(static_cast<size_t>(c.batch * c.inputElems(k)) * dtypeSize(c.inputDType(k)));
      if (!hin.back().empty()) read(hin.back().data(), in[i], hin.back().size());
      ip.push_back(hin.back().data());
    }
    for (size_t i = 0; i < out.size(); ++i) {
      int k = static_cast<int>(i);
      hout.emplace_back(static_cast<size_t>(c.batch * c.outputElems(k)) * dtypeSize(c.outputDType(k)));
      op.push_back(hout.back().data());
    }
    linalgReference(c, ip.data(), op.data());
    for (size_t i = 0; i < out.size(); ++i)
      if (!hout[i].empty())
        c_.d.check(c_.d.memcpyHtoDAsync(asDev(out[i]), hout[i].data(), hout[i].size(), c_.stream), "cuMemcpyHtoDAsync");
    c_.d.check(c_.d.streamSynchronize(c_.stream), "cuStreamSynchronize");
  }

  // Note [Collective steps] in jit/kernel/lower_collective.cpp: the operand goes to the host,
  // MPI combines it there, the result comes back. NCCL on the device buffers (issue 23) is to come.
  void collective(const kir::CollectiveCall& c, const void* in, void* out) override {
    std::vector<unsigned char> hin(static_cast<size_t>(numElements(c.in.shape)) * dtypeSize(c.in.dtype));
    std::vector<unsigned char> hout(static_cast<size_t>(numElements(c.out.shape)) * dtypeSize(c.out.dtype));
    if (!hin.empty()) read(hin.data(), in, hin.size());
    runHostCollective(c, hin.data(), hout.data());
    if (!hout.empty()) {
      c_.d.check(c_.d.memcpyHtoDAsync(asDev(out), hout.data(), hout.size(), c_.stream), "cuMemcpyHtoDAsync");
      c_.d.check(c_.d.streamSynchronize(c_.stream), "cuStreamSynchronize");
    }
  }

  void copy(void* dst, const void* src, size_t bytes) override {
    c_.d.check(c_.d.memcpyDtoDAsync(asDev(dst), asDev(src), bytes, c_.stream), "cuMemcpyDtoDAsync");
  }

  void read(void* host, const void* src, size_t bytes) override {
    c_.d.check(c_.d.memcpyDtoHAsync(host, asDev(src), bytes, c_.stream), "cuMemcpyDtoHAsync");
    c_.d.check(c_.d.streamSynchronize(c_.stream), "cuStreamSynchronize");
  }

 private:
  CudaContext& c_;
  const std::vector<CUfunction>& fns_;
  std::vector<CUgraph> graphs_;
  std::vector<CUgraphExec> execs_;  // by graph id
};

/// Blocks taken from the pool for one run, given back however the run ends.
struct RunBlocks {
  CudaContext& c;
  std::vector<std::pair<CUdeviceptr, size_t>> blocks;
  size_t bytes = 0;
  CUdeviceptr take(size_t n) {
    CUdeviceptr p = c.pool.alloc(n);
    blocks.emplace_back(p, n);
    bytes += n;
    return p;
  }
  ~RunBlocks() {
    for (auto& [p, n] : blocks) c.pool.release(p, n);
  }
};

class CudaExecutable : public Executable {
 public:
  CudaExecutable(std::shared_ptr<CudaContext> c, kir::Program p, CudaSource src,
                 std::vector<Type> resultTypes, const std::string& ptx)
      : c_(std::move(c)), p_(std::move(p)), src_(std::move(src)), resultTypes_(std::move(resultTypes)) {
    const Driver& d = c_->d;
    c_->makeCurrent();
    char log[8192] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof log - 1))};
    CUresult r = d.moduleLoadDataEx(&module_, ptx.c_str(), 2, opts, vals);
    if (r != CUDA_SUCCESS)
      internalError("the CUDA driver rejected scn's PTX for " + c_->arch + " (" + d.errorText(r) +
                    "); this is a bug. Log:\n" + log);
    for (const std::vector<KernelSig>* list : {&src_.kernels, &src_.runtimeKernels})
      for (const KernelSig& s : *list) {
        CUfunction fn = nullptr;
        d.check(d.moduleGetFunction(&fn, module_, s.name.c_str()), "cuModuleGetFunction");
        fns_.push_back(fn);
      }
    // Constants live on the device for the executable's lifetime.
    consts_.assign(p_.buffers.size(), 0);
    for (size_t i = 0; i < p_.buffers.size(); ++i) {
      const kir::BufferInfo& b = p_.buffers[i];
      if (b.kind != kir::BufferKind::Const || b.bytes() == 0) continue;
      consts_[i] = c_->pool.alloc(b.bytes());
      d.check(d.memcpyHtoDAsync(consts_[i], p_.consts.at(b.index).raw(), b.bytes(), c_->stream),
              "cuMemcpyHtoDAsync");
    }
    if (kir::countSteps(p_.steps, kir::StepKind::Gemm) > 0) c_->blas();
  }

  ~CudaExecutable() override {
    c_->d.ctxSetCurrent(c_->ctx);
    c_->d.streamSynchronize(c_->stream);
    for (size_t i = 0; i < consts_.size(); ++i)
      if (consts_[i]) c_->pool.release(consts_[i], p_.buffers[i].bytes());
    if (module_) c_->d.moduleUnload(module_);
  }

  std::vector<Array> execute(const std::vector<Array>& args, RunStats* stats) override {
    auto t0 = std::chrono::steady_clock::now();
    const Driver& d = c_->d;
    c_->makeCurrent();
    RunBlocks blocks{*c_, {}};
    std::vector<void*> slots(p_.buffers.size(), nullptr);
    for (size_t i = 0; i < p_.buffers.size(); ++i) {
      const kir::BufferInfo& b = p_.buffers[i];
      switch (b.kind) {
        case kir::BufferKind::Param: {
          const Array& a = args.at(b.index);
          SCN_ASSERT(a.bytes() == b.bytes(), "argument size does not match its buffer");
          CUdeviceptr p = blocks.take(b.bytes());
          if (b.bytes())
            d.check(d.memcpyHtoDAsync(p, a.raw(), b.bytes(), c_->stream), "cuMemcpyHtoDAsync");
          slots[i] = asPtr(p);
          break;
        }
        case kir::BufferKind::Const: slots[i] = asPtr(consts_[i]); break;
        case kir::BufferKind::Temp: slots[i] = asPtr(blocks.take(b.bytes())); break;
      }
    }
    // The loop counter table (Note [Loops on the device]): set by the counter kernels before
    // any kernel reads it.
    void* counters = src_.counterSlots > 0 ? asPtr(blocks.take(static_cast<size_t>(src_.counterSlots) * 8)) : nullptr;
    DeviceStepTarget target(*c_, fns_);  // its graphs outlive the final synchronisation
    runSteps(p_, src_, slots, counters, target, stats, stepOptions(c_->interrupt));
    std::vector<Array> out;
    for (size_t j = 0; j < p_.results.size(); ++j) {
      Array a(resultTypes_[j].dtype, resultTypes_[j].shape);
      if (a.bytes())
        d.check(d.memcpyDtoHAsync(a.raw(), asDev(slots.at(p_.results[j])), a.bytes(), c_->stream),
                "cuMemcpyDtoHAsync");
      out.push_back(std::move(a));
    }
    d.check(d.streamSynchronize(c_->stream), "cuStreamSynchronize");
    if (stats) {
      stats->peakBytes = std::max(stats->peakBytes, blocks.bytes);
      stats->runMs = msSince(t0);
      stats->inPlaceUpdates = p_.inPlaceUpdates;
    }
    return out;
  }

 private:
  std::shared_ptr<CudaContext> c_;
  kir::Program p_;
  CudaSource src_;
  std::vector<Type> resultTypes_;
  CUmodule module_ = nullptr;
  std::vector<CUfunction> fns_;
  std::vector<CUdeviceptr> consts_;
};

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(std::shared_ptr<CudaContext> c) : c_(std::move(c)) {}
  std::string name() const override { return "cuda"; }
  bool scansWithCombiners() const override { return false; }  // log-depth rounds parallelise
  std::string kernelIR(const FuncPtr& f) override { return emitKernels(f); }

  std::unique_ptr<Executable> compile(const FuncPtr& f, CompileStats* stats) override {
    auto t0 = std::chrono::steady_clock::now();
    kir::Program p = kir::lowerStage(*f, cudaLowerOptions());
    CudaSource src = printCudaKernels(p);
    double optMs = msSince(t0);
    auto t1 = std::chrono::steady_clock::now();
    PtxResult ptx = compilePtx(cudaTranslationUnit(src), c_->arch, &c_->cache, f->name + ".cu");
    int kernels = static_cast<int>(p.kernels.size());
    auto exe = std::make_unique<CudaExecutable>(c_, std::move(p), std::move(src), f->resultTypes(),
                                                ptx.ptx);
    if (stats) {
      stats->optimiseMs = optMs;
      stats->codegenMs = msSince(t1);
      stats->kernels = kernels;
      stats->cacheHit = ptx.cacheHit;
    }
    return exe;
  }

 private:
  std::shared_ptr<CudaContext> c_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(std::string* whyNot, const CudaOptions& opts) {
  std::string why;
  const Driver* d = loadDriver(&why);
  DeviceInfo dev;
  try {
    if (d && firstDevice(*d, &dev, &why))
      return std::make_unique<CudaBackend>(std::make_shared<CudaContext>(*d, dev, opts));
  } catch (const UserError& e) {
    why = e.diag.message;
  }
  if (whyNot) *whyNot = why;
  return nullptr;
}

bool cudaUsable(std::string* whyNot) {
  std::string why;
  const Driver* d = loadDriver(&why);
  DeviceInfo dev;
  bool ok = false;
  try {
    ok = d && firstDevice(*d, &dev, &why);
  } catch (const UserError& e) {
    why = e.diag.message;
  }
  if (!ok && whyNot) *whyNot = why;
  return ok;
}

std::string cudaDeviceDescription() {
  std::string why;
  const Driver* d = loadDriver(&why);
  DeviceInfo dev;
  try {
    if (!d || !firstDevice(*d, &dev, &why)) return why;
  } catch (const UserError& e) {
    return e.diag.message;
  }
  int version = 0;
  d->driverGetVersion(&version);
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s (%s, %.1f GiB, driver %d.%d)", dev.name.c_str(),
                dev.arch().c_str(), static_cast<double>(dev.totalMem) / (1024.0 * 1024 * 1024),
                version / 1000, (version % 1000) / 10);
  return buf;
}

}  // namespace scn::cuda
