// NVRTC compilation of generated CUDA C++ to PTX, and the on-disk PTX cache keyed by a hash.
#include "jit/cuda/nvrtc.hpp"

#include <fcntl.h>
#include <nvrtc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "jit/cuda/cuda_source.hpp"
#include "base/diagnostics.hpp"

namespace scn::cuda {

// Note [NVRTC options]
// --std=c++17 for the prelude's templates; --fmad=false so that a*b+c is never contracted into
// an fma (the interpreter rounds twice; contraction would change float results); the defaults
// keep IEEE division, square root and denormals (no --use_fast_math). The architecture is the
// virtual one (compute_XX): the PTX is JIT-compiled by the driver for the device it runs on.

namespace {

/// 64-bit FNV-1a; two of them with different offsets make the 128-bit cache key.
uint64_t fnv1a(const std::string& s, uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hexKey(const std::string& key) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx",
                static_cast<unsigned long long>(fnv1a(key, 0xcbf29ce484222325ull)),
                static_cast<unsigned long long>(fnv1a(key, 0x84222325cbf29ce4ull)));
  return buf;
}

std::string nvrtcError(nvrtcResult r) { return nvrtcGetErrorString(r); }

std::vector<std::string> nvrtcOptions(const std::string& arch, PtxOpt opt) {
  std::vector<std::string> o = {"--gpu-architecture=" + virtualArch(arch), "--std=c++17",
                                "--fmad=false",
                                "--diag-suppress=177"};  // 177: prelude functions left unused
  switch (opt) {
    case PtxOpt::Full: break;
    case PtxOpt::Fast: o.push_back("-Ofc=max"); break;
  }
  return o;
}

}  // namespace

PtxCache::PtxCache(std::string dir, uint64_t maxBytes) : dir_(std::move(dir)), maxBytes_(maxBytes) {
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) dir_.clear();  // an unusable directory: no caching
}

std::string PtxCache::defaultDir() {
  if (std::getenv("SCN_NO_CACHE")) return "";
  if (const char* d = std::getenv("SCN_CACHE_DIR"); d && *d) return std::string(d) + "/ptx";
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/scn/ptx";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/scn/ptx";
  return "";
}

std::string PtxCache::path(const std::string& key) const { return dir_ + "/" + hexKey(key) + ".ptx"; }

std::optional<std::string> PtxCache::get(const std::string& key) {
  if (dir_.empty()) return std::nullopt;
  std::ifstream in(path(key), std::ios::binary);
  if (!in) {  // also an entry another process evicted just now
    ++misses_;
    return std::nullopt;
  }
  if (int fd = ::open(path(key).c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    touchCacheEntry(fd);  // Note [Cache eviction]
    ::close(fd);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string ptx = ss.str();
  if (ptx.empty()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  return ptx;
}

void PtxCache::put(const std::string& key, const std::string& ptx) {
  if (dir_.empty()) return;
  std::string final = path(key);
  std::string tmp = final + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out << ptx;
    if (!out) return;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, final, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return;
  }
  if (int dirFd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dirFd >= 0) {
    evictLeastRecentlyUsed(dirFd, ".ptx", maxBytes_);
    ::close(dirFd);
  }
}

std::string virtualArch(const std::string& arch) {
  std::string digits;
  for (const char* prefix : {"sm_", "compute_", ""}) {
    std::string p = prefix;
    if (arch.compare(0, p.size(), p) == 0) {
      digits = arch.substr(p.size());
      break;
    }
  }
  std::string clean;
  for (char c : digits)
    if (c != '.') clean += c;
  bool ok = clean.size() >= 2 && clean.size() <= 3;
  for (char c : clean) ok = ok && c >= '0' && c <= '9';
  if (!ok)
    fail("E0422", Span{}, "unknown CUDA architecture `" + arch + "`",
         "give a compute capability such as sm_90 (H100/H200), sm_80 (A100) or sm_89");
  return "compute_" + clean;
}

std::string archForDevice(int major, int minor) {
  int want = major * 10 + minor, best = 0, n = 0;
  if (nvrtcGetNumSupportedArchs(&n) == NVRTC_SUCCESS && n > 0) {
    std::vector<int> archs(n);
    if (nvrtcGetSupportedArchs(archs.data()) == NVRTC_SUCCESS)
      for (int a : archs)
        if (a <= want && a > best) best = a;
  }
  if (best == 0) best = want;  // older than anything NVRTC lists: let NVRTC say so
  return "sm_" + std::to_string(best);
}

std::string nvrtcOptionsText(const std::string& arch, PtxOpt opt) {
  std::string s;
  for (const std::string& o : nvrtcOptions(arch, opt)) s += (s.empty() ? "" : " ") + o;
  return s;
}

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

PtxResult compilePtx(const std::string& source, const std::string& arch, PtxCache* cache,
                     const std::string& name, PtxOpt opt) {
  std::vector<std::string> opts = nvrtcOptions(arch, opt);
  std::string key = "nvrtc " + nvrtcVersionString() + "\n" + nvrtcOptionsText(arch, opt) + "\n" + source;
  PtxResult out;
  if (cache) {
    if (std::optional<std::string> hit = cache->get(key)) {
      out.ptx = std::move(*hit);
      out.cacheHit = true;
      return out;
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  nvrtcProgram prog = nullptr;
  nvrtcResult r = nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) internalError("NVRTC could not create a program: " + nvrtcError(r));
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());
  r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  std::string log;
  size_t logSize = 0;
  if (nvrtcGetProgramLogSize(prog, &logSize) == NVRTC_SUCCESS && logSize > 1) {
    log.resize(logSize);
    nvrtcGetProgramLog(prog, log.data());
    log.resize(logSize - 1);
  }
  if (r != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&prog);
    internalError("NVRTC failed to compile the generated CUDA C++ (" + nvrtcError(r) +
                  "); this is a bug in scn's CUDA code generator. NVRTC's log:\n" + log);
  }
  size_t ptxSize = 0;
  r = nvrtcGetPTXSize(prog, &ptxSize);
  if (r == NVRTC_SUCCESS) {
    out.ptx.resize(ptxSize);
    r = nvrtcGetPTX(prog, out.ptx.data());
  }
  nvrtcDestroyProgram(&prog);
  if (r != NVRTC_SUCCESS) internalError("NVRTC produced no PTX: " + nvrtcError(r));
  if (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (cache) cache->put(key, out.ptx);
  return out;
}

std::string emitPtx(const FuncPtr& f, std::string arch) {
  if (arch.empty()) arch = kDefaultArch;
  PtxCache cache(PtxCache::defaultDir());
  return compilePtx(emitCuda(f), arch, &cache).ptx;
}

}  // namespace scn::cuda
