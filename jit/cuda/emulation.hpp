// Host emulation of the CUDA backend: the generated CUDA C++ compiled by the host C++ compiler
// under a small header (blocks and threads as loops), so CI checks GPU code without a GPU.
#pragma once

#include <memory>
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

 private:
  std::string dir_;
  void* lib_ = nullptr;
};

/// Steps on the host: kernels through their scn_emu_ entries, GEMM as loops, copies as memcpy.
/// maxGrid > 0 caps the grid (to exercise the kernels' grid-stride loops in tests).
class HostStepTarget : public StepTarget {
 public:
  explicit HostStepTarget(const HostModule& m, unsigned maxGrid = 0) : m_(m), maxGrid_(maxGrid) {}
  void launch(int k, const KernelSig& sig, void** args) override;
  void gemm(const kir::Gemm& g, const void* a, const void* b, void* c) override;
  void copy(void* dst, const void* src, size_t bytes) override;
  void read(void* host, const void* src, size_t bytes) override;
  int launches() const { return launches_; }

 private:
  const HostModule& m_;
  unsigned maxGrid_;
  int launches_ = 0;
};

/// Runs program `p` (printed as `sigs`, compiled into `m`) on the host with `args`; the results
/// get `resultTypes`. Temporaries start filled with 0xff bytes, so a kernel that reads memory
/// before it is written shows up as NaN or -1.
std::vector<Array> runEmulated(const kir::Program& p, const std::vector<KernelSig>& sigs,
                               const HostModule& m, const std::vector<Array>& args,
                               const std::vector<Type>& resultTypes, RunStats* stats = nullptr,
                               unsigned maxGrid = 0);

/// A Backend that compiles the CUDA C++ of each Func for the host and runs it under emulation:
/// the CUDA backend's code generator checked without a GPU (slow to compile; for tests).
std::unique_ptr<Backend> makeCudaEmulationBackend(unsigned maxGrid = 0);

}  // namespace scn::cuda
