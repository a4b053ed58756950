// The LLVM ORC CPU JIT: lowers an IR Func to kernel IR (jit/kernel), emits LLVM IR, optimises
// it for the host CPU and runs native code. No LLVM types in this header.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "jit/backend.hpp"

namespace scn {

/// Thrown by the CPU backend's compile for an op it cannot lower, so the caller can fall back
/// to the interpreter. (Every op of the table is lowered today; the type stays for new ops.)
struct UnsupportedOnBackend : std::runtime_error {
  std::string op;
  explicit UnsupportedOnBackend(std::string opName)
      : std::runtime_error("the CPU backend does not support " + opName), op(std::move(opName)) {}
};

/// The CPU JIT backend. optLevel 0..3 selects LLVM's pipeline (2 = O2). One LLJIT, one thread
/// pool and one compile cache (keyed by the printed kernel IR) per backend object.
std::unique_ptr<Backend> makeCpuBackend(int optLevel = 2);

/// Optimised LLVM IR text of `f` (--emit=llvm).
std::string emitLLVM(const FuncPtr& f, int optLevel = 2);
/// Host assembly of `f` (--emit=asm).
std::string emitAsm(const FuncPtr& f, int optLevel = 2);

}  // namespace scn
