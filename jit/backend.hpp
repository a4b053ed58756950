// The interface every execution engine implements: the reference interpreter, the LLVM CPU JIT
// and the CUDA backend compile an IR function once and run it many times.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "jit/ir.hpp"

namespace scn {

/// Figures of one compile / run, shown by --stats.
struct CompileStats {
  double optimiseMs = 0;  // IR passes, fusion, kernel lowering
  double codegenMs = 0;   // LLVM / NVRTC
  int kernels = 0;        // loop nests (fused kernels) generated
  bool cacheHit = false;
};
struct RunStats {
  double runMs = 0;
  size_t peakBytes = 0;    // peak bytes of buffers live at once during the run
  size_t copiedBytes = 0;  // bytes copied for loop carries (the goal is 0)
};

/// A compiled function: call it with arrays matching the Func's parameter types.
class Executable {
 public:
  virtual ~Executable() = default;
  virtual std::vector<Array> run(const std::vector<Array>& args, RunStats* stats = nullptr) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  /// Compiles `f` (already verified). Errors are UserErrors (diagnostics), never aborts.
  virtual std::unique_ptr<Executable> compile(const FuncPtr& f, CompileStats* stats = nullptr) = 0;
};

/// The reference interpreter: simple, complete, obviously correct; the oracle for the JITs.
std::unique_ptr<Backend> makeInterpreterBackend();

/// Runs `f` on `args` with the reference interpreter (no compile step).
std::vector<Array> interpret(const Func& f, const std::vector<Array>& args);

/// Evaluates a single equation on concrete inputs with the reference kernels. Used by the tracer
/// to fold ops whose inputs are all static, and by the interpreter itself.
std::vector<Array> evalEqn(const Eqn& e, const std::vector<Array>& inputs);

}  // namespace scn
