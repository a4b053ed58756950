// The CUDA driver API and cuBLAS, loaded at run time with dlopen: tables of function pointers.
#pragma once

#include <cuda.h>  // types only: every function is called through the tables below

#include <cstdint>
#include <string>

namespace scn::cuda {

// Note [Loading the driver]
// scn links NVRTC (a toolkit library, present wherever scn was built) but never libcuda: the
// driver comes with the GPU's kernel module, so it is dlopen'ed ("libcuda.so.1", or the path in
// $SCN_CUDA_DRIVER) the first time a CUDA backend is made. The same binary therefore runs on a
// machine without a GPU, where makeCudaBackend says what is missing instead of failing to start.
// Entry points with versioned names (cuMemAlloc_v2, ...) are looked up by those names, which is
// what cuda.h's macros call. cuBLAS is loaded the same way, only when a program has a GEMM.

/// The driver functions scn uses; filled by loadDriver.
struct Driver {
  void* lib = nullptr;
  CUresult (*init)(unsigned int) = nullptr;
  CUresult (*driverGetVersion)(int*) = nullptr;
  CUresult (*deviceGetCount)(int*) = nullptr;
  CUresult (*deviceGet)(CUdevice*, int) = nullptr;
  CUresult (*deviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*deviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*deviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*primaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*primaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*ctxSetCurrent)(CUcontext) = nullptr;
  CUresult (*moduleLoadDataEx)(CUmodule*, const void*, unsigned int, CUjit_option*, void**) = nullptr;
  CUresult (*moduleUnload)(CUmodule) = nullptr;
  CUresult (*moduleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void**, void**) = nullptr;
  CUresult (*memAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*memFree)(CUdeviceptr) = nullptr;
  CUresult (*memcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream) = nullptr;
  CUresult (*memcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*memcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*streamCreate)(CUstream*, unsigned int) = nullptr;
  CUresult (*streamDestroy)(CUstream) = nullptr;
  CUresult (*streamSynchronize)(CUstream) = nullptr;
  // CUDA graphs (Note [Loops on the device] in steps.cpp): stream capture and replay.
  CUresult (*streamBeginCapture)(CUstream, CUstreamCaptureMode) = nullptr;
  CUresult (*streamEndCapture)(CUstream, CUgraph*) = nullptr;
  CUresult (*graphInstantiate)(CUgraphExec*, CUgraph, unsigned long long) = nullptr;
  CUresult (*graphLaunch)(CUgraphExec, CUstream) = nullptr;
  CUresult (*graphExecDestroy)(CUgraphExec) = nullptr;
  CUresult (*graphDestroy)(CUgraph) = nullptr;
  CUresult (*getErrorName)(CUresult, const char**) = nullptr;
  CUresult (*getErrorString)(CUresult, const char**) = nullptr;

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string errorText(CUresult r) const;
  /// Throws a UserError (E0423) naming the call when r is not CUDA_SUCCESS.
  void check(CUresult r, const char* call) const;
};

/// Loads the driver once per process and calls cuInit. Returns null and sets *whyNot ("the CUDA
/// driver (libcuda.so.1) was not found: ...", "cuInit failed: ...") when it is unusable.
const Driver* loadDriver(std::string* whyNot);

/// The first device's identity.
struct DeviceInfo {
  CUdevice device = 0;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  size_t totalMem = 0;
  std::string arch() const { return "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor); }
};

/// Finds device 0; false with *whyNot ("no CUDA device: ...") when there is none.
bool firstDevice(const Driver& d, DeviceInfo* out, std::string* whyNot);

/// cuBLAS entry points (declared here with plain types: cublas_v2.h is not needed).
struct Cublas {
  void* lib = nullptr;
  int (*create)(void** handle) = nullptr;
  int (*destroy)(void* handle) = nullptr;
  int (*setStream)(void* handle, CUstream stream) = nullptr;
  int (*setMathMode)(void* handle, int mode) = nullptr;
  int (*sgemmStridedBatched)(void* h, int transa, int transb, int m, int n, int k,
                             const float* alpha, const float* A, int lda, long long strideA,
                             const float* B, int ldb, long long strideB, const float* beta,
                             float* C, int ldc, long long strideC, int batch) = nullptr;
  int (*dgemmStridedBatched)(void* h, int transa, int transb, int m, int n, int k,
                             const double* alpha, const double* A, int lda, long long strideA,
                             const double* B, int ldb, long long strideB, const double* beta,
                             double* C, int ldc, long long strideC, int batch) = nullptr;
};

/// cuBLAS constants used by scn (values of cublas_api.h).
inline constexpr int kCublasOpN = 0, kCublasOpT = 1;
inline constexpr int kCublasDefaultMath = 0, kCublasPedanticMath = 2, kCublasTf32Math = 3;

/// Loads libcublas.so.13 (or .12, or $SCN_CUBLAS) once per process; null with *whyNot.
const Cublas* loadCublas(std::string* whyNot);

}  // namespace scn::cuda
