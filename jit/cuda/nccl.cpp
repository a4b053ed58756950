// dlopen of libnccl.so.2 (Note [Loading NCCL]): symbol lookup and the version.
#include "jit/cuda/nccl.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace scn::cuda {

namespace {

template <typename Fn>
bool sym(void* lib, Fn& fn, const char* name, std::string& missing) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (fn) return true;
  missing += std::string(missing.empty() ? "" : ", ") + name;
  return false;
}

struct NcclLoad {
  Nccl nccl;
  bool ok = false;
  std::string whyNot;
};

NcclLoad doLoadNccl() {
  NcclLoad out;
  std::vector<std::string> names;
  if (const char* env = std::getenv("SCN_NCCL"); env && *env) {
    names.push_back(env);  // the host's choice, and only it
  } else {
    for (const char* n : {"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2", "/usr/local/cuda/lib/libnccl.so.2"})
      names.push_back(n);
  }
  void* lib = nullptr;
  std::string errors;
  for (const std::string& n : names) {
    lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      out.nccl.path = n;
      break;
    }
    const char* e = dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(e ? e : n + ": unknown dlopen error");
  }
  if (!lib) {
    out.whyNot = "NCCL (libnccl.so.2) was not found: " + errors;
    return out;
  }
  Nccl& c = out.nccl;
  c.lib = lib;
  std::string missing;
  bool ok = true;
  ok &= sym(lib, c.getVersion, "ncclGetVersion", missing);
  ok &= sym(lib, c.getUniqueId, "ncclGetUniqueId", missing);
  ok &= sym(lib, c.commInitRank, "ncclCommInitRank", missing);
  ok &= sym(lib, c.commDestroy, "ncclCommDestroy", missing);
  ok &= sym(lib, c.commAbort, "ncclCommAbort", missing);
  ok &= sym(lib, c.commGetAsyncError, "ncclCommGetAsyncError", missing);
  ok &= sym(lib, c.allReduce, "ncclAllReduce", missing);
  ok &= sym(lib, c.allGather, "ncclAllGather", missing);
  ok &= sym(lib, c.getErrorString, "ncclGetErrorString", missing);
  if (!ok) {
    out.whyNot = "NCCL (" + c.path + ") lacks " + missing;
    return out;
  }
  int rc = c.getVersion(&c.version);  // needs no GPU
  if (rc != 0) {
    out.whyNot = "ncclGetVersion failed: " + std::string(c.getErrorString(rc));
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace

std::string Nccl::versionText() const {
  // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9 (major * 1000 + ... before)
  int major = version >= 10000 ? version / 10000 : version / 1000;
  int minor = version >= 10000 ? version / 100 % 100 : version / 100 % 10;
  int patch = version % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

const Nccl* loadNccl(std::string* whyNot) {
  static std::once_flag once;
  static NcclLoad load;
  std::call_once(once, [] { load = doLoadNccl(); });
  if (!load.ok) {
    if (whyNot) *whyNot = load.whyNot;
    return nullptr;
  }
  return &load.nccl;
}

}  // namespace scn::cuda
