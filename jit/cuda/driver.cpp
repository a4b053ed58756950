// dlopen of libcuda.so.1 and libcublas: symbol lookup, cuInit, device discovery, error texts.
#include "jit/cuda/driver.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "base/diagnostics.hpp"

namespace scn::cuda {

namespace {

/// Looks up `name` into `fn`; false (and the name appended to *missing) when it is absent.
template <typename Fn>
bool sym(void* lib, Fn& fn, const char* name, std::string* missing) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (fn) return true;
  *missing += std::string(missing->empty() ? "" : ", ") + name;
  return false;
}

std::string dlerrorText() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

struct DriverLoad {
  Driver driver;
  bool ok = false;
  std::string whyNot;
};

DriverLoad doLoadDriver() {
  DriverLoad out;
  const char* env = std::getenv("SCN_CUDA_DRIVER");
  std::string libName = env && *env ? env : "libcuda.so.1";
  void* lib = dlopen(libName.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    out.whyNot = "the CUDA driver (" + libName + ") was not found: " + dlerrorText() +
                 " (is an NVIDIA GPU and its driver installed?)";
    return out;
  }
  Driver& d = out.driver;
  d.lib = lib;
  std::string missing;
  bool ok = true;
  ok &= sym(lib, d.init, "cuInit", &missing);
  ok &= sym(lib, d.driverGetVersion, "cuDriverGetVersion", &missing);
  ok &= sym(lib, d.deviceGetCount, "cuDeviceGetCount", &missing);
  ok &= sym(lib, d.deviceGet, "cuDeviceGet", &missing);
  ok &= sym(lib, d.deviceGetName, "cuDeviceGetName", &missing);
  ok &= sym(lib, d.deviceGetAttribute, "cuDeviceGetAttribute", &missing);
  ok &= sym(lib, d.deviceTotalMem, "cuDeviceTotalMem_v2", &missing);
  ok &= sym(lib, d.primaryCtxRetain, "cuDevicePrimaryCtxRetain", &missing);
  ok &= sym(lib, d.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", &missing);
  ok &= sym(lib, d.ctxSetCurrent, "cuCtxSetCurrent", &missing);
  ok &= sym(lib, d.moduleLoadDataEx, "cuModuleLoadDataEx", &missing);
  ok &= sym(lib, d.moduleUnload, "cuModuleUnload", &missing);
  ok &= sym(lib, d.moduleGetFunction, "cuModuleGetFunction", &missing);
  ok &= sym(lib, d.launchKernel, "cuLaunchKernel", &missing);
  ok &= sym(lib, d.memAlloc, "cuMemAlloc_v2", &missing);
  ok &= sym(lib, d.memFree, "cuMemFree_v2", &missing);
  ok &= sym(lib, d.memcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", &missing);
  ok &= sym(lib, d.memcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", &missing);
  ok &= sym(lib, d.memcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", &missing);
  ok &= sym(lib, d.streamCreate, "cuStreamCreate", &missing);
  ok &= sym(lib, d.streamDestroy, "cuStreamDestroy_v2", &missing);
  ok &= sym(lib, d.streamSynchronize, "cuStreamSynchronize", &missing);
  ok &= sym(lib, d.streamBeginCapture, "cuStreamBeginCapture_v2", &missing);
  ok &= sym(lib, d.streamEndCapture, "cuStreamEndCapture", &missing);
  ok &= sym(lib, d.graphInstantiate, "cuGraphInstantiateWithFlags", &missing);
  ok &= sym(lib, d.graphLaunch, "cuGraphLaunch", &missing);
  ok &= sym(lib, d.graphExecDestroy, "cuGraphExecDestroy", &missing);
  ok &= sym(lib, d.graphDestroy, "cuGraphDestroy", &missing);
  ok &= sym(lib, d.getErrorName, "cuGetErrorName", &missing);
  ok &= sym(lib, d.getErrorString, "cuGetErrorString", &missing);
  if (!ok) {
    out.whyNot = "the CUDA driver (" + libName + ") lacks " + missing + " (the driver is too old)";
    return out;
  }
  CUresult r = d.init(0);
  if (r != CUDA_SUCCESS) {
    out.whyNot = "the CUDA driver (" + libName + ") did not initialise: cuInit returned " +
                 d.errorText(r) + (r == CUDA_ERROR_NO_DEVICE ? " (no CUDA device)" : "");
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace

std::string Driver::errorText(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (getErrorName && getErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (getErrorString && getErrorString(r, &text) != CUDA_SUCCESS) text = nullptr;
  if (!name) {
    // The errors of a failed start, named even when the library cannot name them (the stub).
    const struct { CUresult r; const char* name; const char* text; } known[] = {
        {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", nullptr},
        {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", nullptr},
        {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "the toolkit's stub, not a driver"},
        {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", nullptr},
        {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", nullptr},
    };
    for (const auto& k : known)
      if (k.r == r) {
        name = k.name;
        if (!text) text = k.text;
      }
  }
  std::string s = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
  if (text) s += std::string(" (") + text + ")";
  return s;
}

void Driver::check(CUresult r, const char* call) const {
  if (r == CUDA_SUCCESS) return;
  fail("E0423", Span{}, std::string("the CUDA call ") + call + " failed: " + errorText(r),
       r == CUDA_ERROR_OUT_OF_MEMORY ? "the GPU is out of memory; use smaller arrays"
                                     : "run with --backend=cpu to compare");
}

const Driver* loadDriver(std::string* whyNot) {
  static std::once_flag once;
  static DriverLoad load;  // the driver is process-wide state by nature
  std::call_once(once, [] { load = doLoadDriver(); });
  if (!load.ok) {
    if (whyNot) *whyNot = load.whyNot;
    return nullptr;
  }
  return &load.driver;
}

bool firstDevice(const Driver& d, DeviceInfo* out, std::string* whyNot) {
  int count = 0;
  CUresult r = d.deviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    if (whyNot)
      *whyNot = "no CUDA device: " +
                (r != CUDA_SUCCESS ? "cuDeviceGetCount returned " + d.errorText(r)
                                   : std::string("the driver sees no GPU"));
    return false;
  }
  DeviceInfo info;
  d.check(d.deviceGet(&info.device, 0), "cuDeviceGet");
  char name[256] = {0};
  d.check(d.deviceGetName(name, sizeof name - 1, info.device), "cuDeviceGetName");
  info.name = name;
  d.check(d.deviceGetAttribute(&info.ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, info.device),
          "cuDeviceGetAttribute");
  d.check(d.deviceGetAttribute(&info.ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, info.device),
          "cuDeviceGetAttribute");
  d.check(d.deviceTotalMem(&info.totalMem, info.device), "cuDeviceTotalMem");
  *out = info;
  return true;
}

namespace {

struct CublasLoad {
  Cublas cublas;
  bool ok = false;
  std::string whyNot;
};

CublasLoad doLoadCublas() {
  CublasLoad out;
  std::vector<std::string> names;
  if (const char* env = std::getenv("SCN_CUBLAS"); env && *env) names.push_back(env);
  for (const char* n : {"libcublas.so.13", "libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so.13",
                        "/usr/local/cuda/lib64/libcublas.so.12"})
    names.push_back(n);
  void* lib = nullptr;
  std::string errors;
  for (const std::string& n : names) {
    lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    errors += (errors.empty() ? "" : "; ") + dlerrorText();
  }
  if (!lib) {
    out.whyNot = "cuBLAS (libcublas.so.13 or .12) was not found: " + errors;
    return out;
  }
  Cublas& c = out.cublas;
  c.lib = lib;
  std::string missing;
  bool ok = true;
  ok &= sym(lib, c.create, "cublasCreate_v2", &missing);
  ok &= sym(lib, c.destroy, "cublasDestroy_v2", &missing);
  ok &= sym(lib, c.setStream, "cublasSetStream_v2", &missing);
  ok &= sym(lib, c.setMathMode, "cublasSetMathMode", &missing);
  ok &= sym(lib, c.sgemmStridedBatched, "cublasSgemmStridedBatched", &missing);
  ok &= sym(lib, c.dgemmStridedBatched, "cublasDgemmStridedBatched", &missing);
  if (!ok) {
    out.whyNot = "cuBLAS lacks " + missing;
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace

const Cublas* loadCublas(std::string* whyNot) {
  static std::once_flag once;
  static CublasLoad load;
  std::call_once(once, [] { load = doLoadCublas(); });
  if (!load.ok) {
    if (whyNot) *whyNot = load.whyNot;
    return nullptr;
  }
  return &load.cublas;
}

}  // namespace scn::cuda
