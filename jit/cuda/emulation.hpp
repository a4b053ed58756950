// Host emulation of the CUDA backend: the generated CUDA C++ compiled by the host C++ compiler
// under a small header (blocks and threads as loops), so CI checks GPU code without a GPU.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jit/backend.hpp"
#include "jit/cuda/cuda_source.hpp"
#include "jit/cuda/steps.hpp"
#include "jit/kernel/kernel_ir.hpp"

namespace scn::cuda {

/// The text put before a translation unit to compile it for the host (Note [Host emulation]).
const char* cudaEmulationHeader();

/// A translation unit compiled for the host into a shared library and loaded. The compiler is
/// $SCN_HOST_CXX or `c++`; a missing compiler is a UserError (E0424), generated code that does not
/// compile an internal error carrying the compiler's output.
class HostModule {
 public:
  explicit HostModule(const std::string& translationUnit);
  ~HostModule();
  HostModule(const HostModule&) = delete;
  HostModule& operator=(const HostModule&) = delete;
  /// The address of an exported symbol; an internal error when absent.
  void* symbol(const std::string& name) const;
  /// Held while a program runs on this module: its threadIdx/blockIdx are globals of the library.
  std::mutex& runLock() const { return run_; }

 private:
  std::string dir_;
  void* lib_ = nullptr;
  mutable std::mutex run_;
};

/// The module of a translation unit, compiled once per process: equal texts share one library
/// (Note [Emulation compile time]). *reused says whether it was already compiled.
std::shared_ptr<const HostModule> hostModuleFor(const std::string& translationUnit,
                                                bool* reused = nullptr);

/// How many host compiles this process has run (for tests of the sharing above).
int hostCompiles();

/// The step options of the emulation: capture every loop with at least 2 iterations to replay,
/// so the program suite exercises capture and replay (the GPU waits for 8).
StepOptions emulationStepOptions();

/// Steps on the host: kernels through their scn_emu_ entries, GEMM as loops, copies as memcpy.
/// Capture records each call as a closure (launch arguments copied by value) without running it;
/// replay runs the closures, as a CUDA graph launch would. maxGrid > 0 caps the grid (to exercise
/// the kernels' grid-stride loops in tests).
class HostStepTarget : public StepTarget {
 public:
  HostStepTarget(const HostModule& m, const CudaSource& src, unsigned maxGrid = 0);
  void launch(int k, const KernelSig& sig, void** args) override;
  void gemm(const kir::Gemm& g, const void* a, const void* b, void* c) override;
  void copy(void* dst, const void* src, size_t bytes) override;
  /// The reference implementation of jit/linalg.cpp on the host memory.
  void linalg(const LinalgCall& c, const std::vector<const void*>& in, const std::vector<void*>& out) override;
  void read(void* host, const void* src, size_t bytes) override;
  /// The collective on the host memory itself (runHostCollective).
  void collective(const kir::CollectiveCall& c, const void* in, void* out) override;
  bool beginCapture() override;
  int endCapture() override;
  void abortCapture() override;
  void replay(int g, int64_t times) override;
  int launches() const { return launches_; }

 private:
  using Entry = void (*)(void**, unsigned, unsigned);
  void issue(std::function<void()> work);
  const HostModule& m_;
  std::vector<Entry> entries_;  // scn_emu_ entry of each kernel, then the counter kernels
  unsigned maxGrid_;
  int launches_ = 0;
  bool recording_ = false;
  std::vector<std::function<void()>> recorded_;
  std::vector<std::vector<std::function<void()>>> graphs_;
};

/// Runs program `p` (printed as `src`, compiled into `m`) on the host with `args`; the results
/// get `resultTypes`. Temporaries and the counter table start filled with 0xff bytes, so a kernel
/// that reads memory before it is written shows up as NaN or -1.
std::vector<Array> runEmulated(const kir::Program& p, const CudaSource& src, const HostModule& m,
                               const std::vector<Array>& args, const std::vector<Type>& resultTypes,
                               RunStats* stats = nullptr, unsigned maxGrid = 0,
                               const StepOptions& opts = emulationStepOptions(),
                               StepCounts* counts = nullptr);

/// A Backend that compiles the CUDA C++ of each Func for the host and runs it under emulation:
/// the CUDA backend's code generator checked without a GPU (slow to compile; for tests).
/// `interrupt` (owned by the caller; may be null) as StepOptions::interrupt.
std::unique_ptr<Backend> makeCudaEmulationBackend(unsigned maxGrid = 0,
                                                  const std::atomic<int32_t>* interrupt = nullptr);

}  // namespace scn::cuda
