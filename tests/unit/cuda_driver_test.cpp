// Loading the driver and cuBLAS without a GPU: against the toolkit's stub libcuda every entry
// point scn names must resolve, and cuInit's failure must become the reason, never a crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "jit/cuda/cuda_backend.hpp"
#include "jit/cuda/device_pool.hpp"
#include "jit/cuda/driver.hpp"
#include "jit/cuda/nccl.hpp"

namespace scn {
namespace {

const char* kStub = "/usr/local/cuda/lib64/stubs/libcuda.so";

TEST(CudaDriver, EveryEntryPointResolvesInTheStubDriverAndCuInitFailsCleanly) {
  // The driver is loaded once per process; this binary loads only the stub.
  if (!std::filesystem::exists(kStub)) GTEST_SKIP() << "no stub driver at " << kStub;
  ::setenv("SCN_CUDA_DRIVER", kStub, 1);
  std::string why;
  EXPECT_EQ(cuda::loadDriver(&why), nullptr);
  // A missing symbol would say "lacks ..."; the stub has them all, so cuInit is what fails.
  EXPECT_EQ(why.find("lacks"), std::string::npos) << why;
  EXPECT_NE(why.find("did not initialise: cuInit returned CUDA_ERROR_STUB_LIBRARY"), std::string::npos) << why;
  std::string why2;
  EXPECT_EQ(cuda::makeCudaBackend(&why2), nullptr);
  EXPECT_EQ(why, why2);
}

TEST(CudaDriver, CublasLoadsWithoutAGpu) {
  std::string why;
  const cuda::Cublas* c = cuda::loadCublas(&why);
  if (!c) GTEST_SKIP() << why;  // a toolkit without cuBLAS: the backend reports it at compile time
  EXPECT_NE(c->sgemmStridedBatched, nullptr);
  EXPECT_NE(c->dgemmStridedBatched, nullptr);
  EXPECT_NE(c->setMathMode, nullptr);
}

// Note [Loading NCCL]: NCCL loads without a GPU (it is only asked for with
// SCN_COLLECTIVES=nccl); every entry point scn names resolves and the version is read.
TEST(CudaDriver, NcclLoadsWithoutAGpu) {
  std::string why;
  const cuda::Nccl* n = cuda::loadNccl(&why);
  if (!n) {  // a machine without NCCL: the reason names what was tried, and nothing crashed
    EXPECT_NE(why.find("libnccl.so.2"), std::string::npos) << why;
    GTEST_SKIP() << why;
  }
  EXPECT_NE(n->allReduce, nullptr);
  EXPECT_NE(n->commInitRank, nullptr);
  EXPECT_GE(n->version, 20000) << n->versionText();
  EXPECT_EQ(n->versionText().rfind("2.", 0), 0u) << n->versionText();
  EXPECT_EQ(cuda::loadNccl(nullptr), n);  // once per process
}

TEST(CudaDriver, PoolSizeClassesRoundUpAndStayClose) {
  using cuda::DevicePool;
  EXPECT_EQ(DevicePool::sizeClass(0), 0u);
  EXPECT_EQ(DevicePool::sizeClass(1), 512u);
  EXPECT_EQ(DevicePool::sizeClass(512), 512u);
  EXPECT_EQ(DevicePool::sizeClass(513), 1024u);
  EXPECT_EQ(DevicePool::sizeClass(size_t{1} << 20), size_t{1} << 20);
  // Above 1 MiB: multiples of an eighth of the next power of two (at most 12.5% waste).
  EXPECT_EQ(DevicePool::sizeClass((size_t{1} << 20) + 1), (size_t{1} << 20) + (size_t{1} << 18));
  for (size_t n : {size_t{3} << 20, size_t{100} << 20, (size_t{1} << 30) + 12345}) {
    size_t c = DevicePool::sizeClass(n);
    EXPECT_GE(c, n);
    EXPECT_LE(c - n, n / 4);
  }
}

}  // namespace
}  // namespace scn
