// The compile stages a user can look at (--emit=STAGE on a script, :STAGE CALL in the REPL):
// one list, one dispatcher, so the CLI, the REPL and the build flags cannot disagree.
#pragma once

#include <string>

#include "jit/ir.hpp"

namespace scn {

/// Whether `stage` names a stage of a compiled function: ir, kernels, llvm, asm, cuda, ptx.
bool isFuncStage(const std::string& stage);

/// The stages of a compiled function this build can show, for messages ("ir, kernels, ...").
std::string funcStageList();

/// The text of `f` at `stage`, after the optimisation pipeline. `kernels` is the CPU backend's
/// kernel IR (the CUDA backend's where this build has no CPU backend). Throws UserError E0505
/// for a stage this build cannot show. `cuda` without `cudaPrelude` is the kernels alone.
std::string emitFuncStage(const std::string& stage, const FuncPtr& f, int optLevel, bool cudaPrelude = true);
/// The prelude every CUDA translation unit starts with (the REPL's `:cuda prelude`); E0505 in a
/// build without the CUDA toolkit.
std::string emitCudaPrelude();

}  // namespace scn
