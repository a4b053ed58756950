// The backends this build has, for tests that run on each or need one: a build with
// SCN_WITH_LLVM=OFF has no cpu backend, one without the CUDA toolkit no cuda-emu.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace scn::test {

#ifdef SCN_HAVE_LLVM
inline constexpr bool kHaveCpuBackend = true;
#else
inline constexpr bool kHaveCpuBackend = false;
#endif

/// Whether `backend` (cpu, interp, cuda-emu, ...) is in this build.
inline bool backendBuilt(const std::string& backend) {
#ifndef SCN_HAVE_CUDA
  if (backend == "cuda-emu" || backend == "cuda") return false;
#endif
  return backend != "cpu" || kHaveCpuBackend;
}

/// The backends of `wanted` this build has, in order.
inline std::vector<std::string> builtBackends(std::vector<std::string> wanted) {
  wanted.erase(std::remove_if(wanted.begin(), wanted.end(), [](const std::string& b) { return !backendBuilt(b); }),
               wanted.end());
  return wanted;
}

}  // namespace scn::test

/// Skips a test that exercises the CPU backend (its cache, its compiled loops) in a build without it.
#define SCN_SKIP_WITHOUT_CPU_BACKEND()                                                          \
  do {                                                                                        \
    if (!::scn::test::kHaveCpuBackend)                                                        \
      GTEST_SKIP() << "the CPU backend is not in this build (configured with SCN_WITH_LLVM=OFF)"; \
  } while (0)
