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

std::string emitFuncStage(const std::string& stage, const FuncPtr& f, int optLevel) {
  if (!isFuncStage(stage) || !builtIn(stage)) {
    std::string why = !isFuncStage(stage) ? "" :
                      (stage == "llvm" || stage == "asm") ? " (this scn was built without LLVM)"
                                                          : " (this scn was built without the CUDA toolkit)";
    fail("E0505", Span{}, "cannot emit `" + stage + "` for a call" + why, "stages: " + funcStageList());
  }
  if (stage == "ir") return printFunc(*f);
  if (stage == "kernels") return kernelText(f);
#ifdef SCN_HAVE_LLVM
  if (stage == "llvm") return emitLLVM(f, optLevel);
  if (stage == "asm") return emitAsm(f, optLevel);
#endif
#ifdef SCN_HAVE_CUDA
  if (stage == "cuda") return cuda::emitCuda(f);
  if (stage == "ptx") return cuda::emitPtx(f);
#endif
  internalError("emit stage `" + stage + "`");
}

}  // namespace scn
