// The interface every execution engine implements: the reference interpreter, the LLVM CPU JIT
// and the CUDA backend compile an IR function once and run it many times.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/float_env.hpp"
#include "jit/ir.hpp"

namespace scn {

/// Figures of one compile / run, shown by --stats.
struct CompileStats {
  double optimiseMs = 0;  // IR passes, fusion, kernel lowering
  double codegenMs = 0;   // LLVM / NVRTC
  int kernels = 0;        // loop nests (fused kernels) generated
  /// Code generation was skipped: the code came from a cache (the backend's in-memory one, or a
  /// persistent one on disk: the CPU object cache, the CUDA PTX cache).
  bool cacheHit = false;
  /// The persistent cache held an entry for this code that failed its check (damaged, forged,
  /// not a regular file): it was removed and the code compiled afresh.
  bool cacheRejected = false;
};
struct RunStats {
  double runMs = 0;
  /// Peak bytes of the buffers the executable allocated for the run in its own memory: host
  /// temporaries and results on cpu, device blocks (arguments, temporaries, results) on cuda,
  /// the emulated device memory on cuda-emu; 0 on the interpreter, which does not measure it.
  /// Arguments the caller passed in host memory are not counted.
  size_t peakBytes = 0;
  size_t copiedBytes = 0;  // bytes copied for loop carries (the goal is 0)
  /// Updates (scatters, dynamic_update_slice) written into their dead operand's buffer instead
  /// of a copy of it: copies avoided (kir::Program::inPlaceUpdates; 0 on the interpreter).
  int64_t inPlaceUpdates = 0;
};

/// Thrown by a backend's compile for an op it cannot lower, so the caller can fall back to the
/// interpreter. (Every op of the table is lowered today; the type stays for new ops.)
struct UnsupportedOnBackend : std::runtime_error {
  std::string op;
  UnsupportedOnBackend(const std::string& backend, std::string opName)
      : std::runtime_error("the " + backend + " backend does not support " + opName), op(std::move(opName)) {}
};

/// A compiled function: call it with arrays matching the Func's parameter types.
class Executable {
 public:
  virtual ~Executable() = default;
  /// Runs with denormals flushed to zero (Note [Denormals flushed to zero] in base/float_env.hpp).
  std::vector<Array> run(const std::vector<Array>& args, RunStats* stats = nullptr) {
    FlushDenormals flush;
    return execute(args, stats);
  }

 protected:
  virtual std::vector<Array> execute(const std::vector<Array>& args, RunStats* stats) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// Compiles `f` (already verified). Errors are UserErrors (diagnostics), never aborts.
  virtual std::unique_ptr<Executable> compile(const FuncPtr& f, CompileStats* stats = nullptr) = 0;
  /// Whether associative_scan with an elementwise combiner should reach this backend as one op
  /// (lowered like cumsum: a blocked or serial scan) rather than as log-depth rounds of array
  /// ops, which suit a GPU better: the session then runs the expand-associative-scans pass
  /// (PipelineOptions::expandAssociativeScans; Note [Associative scans] in jit/combiner.cpp).
  virtual bool scansWithCombiners() const { return true; }
  /// Whether this backend's GEMM multiplies bf16 matrices itself (f32 accumulation, one rounding):
  /// the session then keeps bf16 products out of the widen-low-precision pass
  /// (PipelineOptions::keepBf16Products).
  virtual bool multipliesBf16() const { return false; }
  /// The kernel IR this backend compiles `f` (optimised) to, as --emit=kernels prints it: the
  /// output of the pipeline's `lower` stage (--print-after=lower). Empty for a backend that runs
  /// the IR itself (the interpreter).
  virtual std::string kernelIR(const FuncPtr& f) {
    (void)f;
    return "";
  }
};

/// The reference interpreter: simple, complete, obviously correct; the oracle for the JITs.
/// `interrupt` (owned by the caller; may be null) is polled once per iteration of every scan
/// and while loop: nonzero stops the run with E0507 (Note [Interrupting compiled code]).
std::unique_ptr<Backend> makeInterpreterBackend(const std::atomic<int32_t>* interrupt = nullptr);

/// Runs `f` on `args` with the reference interpreter (no compile step), polling `interrupt`
/// as above.
std::vector<Array> interpret(const Func& f, const std::vector<Array>& args,
                             const std::atomic<int32_t>* interrupt = nullptr);

/// Evaluates a single equation on concrete inputs with the reference kernels. Used by the tracer
/// to fold ops whose inputs are all static, and by the interpreter itself.
std::vector<Array> evalEqn(const Eqn& e, const std::vector<Array>& inputs);

}  // namespace scn
