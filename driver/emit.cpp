// The compile stages: Note [Emit stages] in driver/emit.hpp.
#include "driver/emit.hpp"

#include "base/diagnostics.hpp"
#include "jit/kernel/kernel_ir.hpp"
#ifdef SCN_HAVE_LLVM
#include "jit/cpu/cpu_backend.hpp"
#endif
#ifdef SCN_HAVE_CUDA
#include "jit/cuda/cuda_source.hpp"
#include "jit/cuda/nvrtc.hpp"
#endif

namespace scn {

namespace {

bool builtIn(const std::string& stage) {
#ifndef SCN_HAVE_LLVM
  if (stage == "llvm" || stage == "asm") return false;
#endif
#ifndef SCN_HAVE_CUDA
  if (stage == "cuda" || stage == "ptx") return false;
#endif
  return true;
}

std::string kernelText(const FuncPtr& f) {
#ifdef SCN_HAVE_LLVM
  return emitKernels(f);
#elif defined(SCN_HAVE_CUDA)
  return cuda::emitKernels(f);
#else
  return kir::printKernels(*f);
#endif
}

/// "; function f(f32[8]) -> f32[8]": which function a module is, in the stage's comment syntax
/// (LLVM IR's `;`, the assembler's `#`), since the module's own names are derived hashes.
std::string moduleLabel(const Func& f, const char* comment) {
  std::string s = std::string(comment) + " function " + f.name + "(";
  std::vector<Type> params = f.paramTypes(), results = f.resultTypes();
  for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + typeString(params[i]);
  s += ") -> ";
  if (results.size() != 1) s += "(";
  for (size_t i = 0; i < results.size(); ++i) s += (i ? ", " : "") + typeString(results[i]);
  if (results.size() != 1) s += ")";
  return s + "\n";
}

}  // namespace

bool isFuncStage(const std::string& stage) {
  return stage == "ir" || stage == "kernels" || stage == "llvm" || stage == "asm" || stage == "cuda" ||
         stage == "ptx";
}

std::string funcStageList() {
  std::string list;
  for (const char* s : {"ir", "kernels", "llvm", "asm", "cuda", "ptx"})
    if (builtIn(s)) list += (list.empty() ? "" : ", ") + std::string(s);
  return list;
}

std::string emitCudaPrelude() {
#ifdef SCN_HAVE_CUDA
  return cuda::cudaPrelude();
#else
  fail("E0505", Span{}, "cannot emit the CUDA prelude (this scn was built without the CUDA toolkit)",
       "stages: " + funcStageList());
#endif
}

std::string emitFuncStage(const std::string& stage, const FuncPtr& f, int optLevel, bool cudaPrelude) {
  if (!isFuncStage(stage) || !builtIn(stage)) {
    std::string why = !isFuncStage(stage) ? "" :
                      (stage == "llvm" || stage == "asm") ? " (this scn was built without LLVM)"
                                                          : " (this scn was built without the CUDA toolkit)";
    fail("E0505", Span{}, "cannot emit `" + stage + "` for a call" + why, "stages: " + funcStageList());
  }
  if (stage == "ir") return printFunc(*f);
  if (stage == "kernels") return kernelText(f);
#ifdef SCN_HAVE_LLVM
  if (stage == "llvm") return moduleLabel(*f, ";") + emitLLVM(f, optLevel);
  if (stage == "asm") return moduleLabel(*f, "#") + emitAsm(f, optLevel);
#endif
#ifdef SCN_HAVE_CUDA
  if (stage == "cuda") return cuda::emitCuda(f, cudaPrelude);
  if (stage == "ptx") return cuda::emitPtx(f);
#endif
  internalError("emit stage `" + stage + "`");
}

}  // namespace scn
