// Matrix products on the CPU through OpenBLAS (jit/cpu/gemm.hpp).
#include "jit/cpu/gemm.hpp"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include "base/diagnostics.hpp"
#include "jit/cpu/gemm_bf16.hpp"
#include "jit/cpu/runtime.hpp"

// OpenBLAS's own entry points, weak so that scn also links against another CBLAS (then the
// library is used as it comes). gotoblas_dynamic_* exist in DYNAMIC_ARCH builds (Debian's).
#pragma weak openblas_get_corename
#pragma weak openblas_get_config
#pragma weak openblas_set_num_threads
#pragma weak openblas_get_num_threads
extern "C" {
__attribute__((weak)) void gotoblas_dynamic_init(void);
__attribute__((weak)) void gotoblas_dynamic_quit(void);
}

namespace scn::cpu {

namespace {

// Note [Choosing OpenBLAS's kernels]
// A DYNAMIC_ARCH OpenBLAS picks its kernels when it loads, from a table of CPU models: a model
// newer than the table gets the oldest x86-64 kernels (Prescott, SSE3). Debian's 0.3.21 does
// this on Intel family 6 model 207 (AVX-512, AMX), where its SGEMM then runs at a quarter of
// the SkylakeX kernels' rate (issue 21). So before the first product scn compares the pick
// with the CPU's vector features and, where the pick is below them, makes OpenBLAS choose
// again with OPENBLAS_CORETYPE naming the kernels for those features: SkylakeX for AVX-512
// (F, BW, DQ, VL: what those kernels use), Haswell for AVX2 with FMA. The re-choice goes
// through OpenBLAS's exported gotoblas_dynamic_quit/_init (its own start-up path, which reads
// the variable), and only when the build has that core (its gotoblas_<NAME> table); a user's
// OPENBLAS_CORETYPE is left alone. docs/backend-cpu.md has the measurements behind the choice
// of OpenBLAS over BLIS and oneDNN.

/// 0: SSE only, 1: AVX, 2: AVX2+FMA, 3: AVX-512: the vector level of an OpenBLAS x86-64 core.
int coreLevel(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* n : {"skylakex", "cooperlake", "sapphirerapids"})
    if (name == n) return 3;
  for (const char* n : {"haswell", "zen"})
    if (name == n) return 2;
  for (const char* n : {"sandybridge", "bulldozer", "piledriver", "steamroller", "excavator"})
    if (name == n) return 1;
  return 0;
}

bool buildHasCore(const std::string& name) {
  std::string sym = "gotoblas_";
  for (char c : name) sym += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return dlsym(RTLD_DEFAULT, sym.c_str()) != nullptr;
}

std::string& description() {
  static std::string d;
  return d;
}

/// Makes OpenBLAS choose its kernels again as if OPENBLAS_CORETYPE=core had been set at start.
void rechooseOpenBlasCore(const std::string& core) {
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
  unsetenv("OPENBLAS_CORETYPE");
}

void prepareOnce() {
  if (openblas_set_num_threads) openblas_set_num_threads(1);  // Note [One thread pool for GEMM]
  description() = raiseOpenBlasKernels();
}

// Note [One thread pool for GEMM]
// OpenBLAS's own threads would run beside scn's pool and, on a busy machine, spin against it:
// with one other busy process on 2 cores W1 took 676 ms against 70 ms with one BLAS thread
// (issue 21). So OpenBLAS runs one thread per call, and a product is cut into independent calls
// (batch entries, and row blocks of C when the batch alone gives too few) that scn's pool takes
// in chunks (Note [Dynamic chunks]), so a core that another process holds delays only the
// pieces it took. A row block costs a repacking of B, which is why blocks keep >= kMinRows rows.
// A product with too few rows for enough such blocks (a recurrent step: m = the batch, 32) is
// also cut into column blocks of >= kMinCols columns, each repacking A: otherwise it ran on one
// core (the GRU's per-step products, issue 18).
constexpr double kParallelFlops = 1 << 21;  // below, the pool's wake-up costs more than it gains
constexpr int64_t kPiecesPerThread = 8;
constexpr int64_t kMinRows = 32;
constexpr int64_t kMinCols = 128;

}  // namespace

GemmType gemmTypeOf(DType t) {
  switch (t) {
    case DType::F64: return GemmType::F64;
    case DType::C64: return GemmType::C64;
    case DType::C128: return GemmType::C128;
    case DType::BF16: return GemmType::BF16;
    default: return GemmType::F32;
  }
}

namespace {

size_t elementBytes(GemmType t) {
  switch (t) {
    case GemmType::F64: case GemmType::C64: return 8;
    case GemmType::C128: return 16;
    case GemmType::BF16: return 2;
    default: return 4;
  }
}

/// Rows [r0, r1) of C for batch entry b, with one single-threaded library call.
void gemmRows(const GemmCall& g, int64_t b, int64_t r0, int64_t r1) {
  SCN_ASSERT(!g.accumulate || g.dtype == GemmType::F32 || g.dtype == GemmType::F64,
             "an accumulating product of a type without one");
  if (g.dtype == GemmType::BF16) return bf16GemmRows(g, b, r0, r1);
  CBLAS_TRANSPOSE ta = g.transA ? CblasTrans : CblasNoTrans;
  CBLAS_TRANSPOSE tb = g.transB ? CblasTrans : CblasNoTrans;
  int64_t aOff = b * g.strideA + (g.transA ? r0 : r0 * g.lda);  // op(A) = A^T: rows are columns
  int64_t bOff = b * g.strideB, cOff = b * g.strideC + r0 * g.ldc;
  int m = static_cast<int>(r1 - r0), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  int lda = static_cast<int>(g.lda), ldb = static_cast<int>(g.ldb), ldc = static_cast<int>(g.ldc);
  if (g.dtype == GemmType::C64 || g.dtype == GemmType::C128) {  // complex: alpha 1, beta 0 as (re, im) pairs
    const double one64[2] = {1, 0}, zero64[2] = {0, 0};
    const float one32[2] = {1, 0}, zero32[2] = {0, 0};
    size_t es = elementBytes(g.dtype);  // offsets are in elements
    const char* a = static_cast<const char*>(g.a) + aOff * es;
    const char* bp = static_cast<const char*>(g.b) + bOff * es;
    char* c = static_cast<char*>(g.c) + cOff * es;
    if (g.dtype == GemmType::C64) cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, one32, a, lda, bp, ldb, zero32, c, ldc);
    else cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, one64, a, lda, bp, ldb, zero64, c, ldc);
  } else if (g.dtype == GemmType::F64)
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, static_cast<const double*>(g.a) + aOff, lda,
                static_cast<const double*>(g.b) + bOff, ldb, g.accumulate ? 1.0 : 0.0,
                static_cast<double*>(g.c) + cOff, ldc);
  else
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, static_cast<const float*>(g.a) + aOff, lda,
                static_cast<const float*>(g.b) + bOff, ldb, g.accumulate ? 1.0f : 0.0f,
                static_cast<float*>(g.c) + cOff, ldc);
}

/// Columns [c0, c1) of g's product: the same call on those columns of op(B) and C.
GemmCall columns(const GemmCall& g, int64_t c0, int64_t c1) {
  GemmCall s = g;
  size_t es = elementBytes(g.dtype);
  s.b = static_cast<const char*>(g.b) + static_cast<size_t>(g.transB ? c0 * g.ldb : c0) * es;
  s.c = static_cast<char*>(g.c) + static_cast<size_t>(c0) * es;
  s.n = c1 - c0;
  return s;
}

}  // namespace

CpuVectorFeatures hostVectorFeatures() {
  CpuVectorFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  f.avx2Fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
  return f;
}

std::string betterOpenBlasCore(const std::string& picked, CpuVectorFeatures cpu) {
  int have = coreLevel(picked);
  if (cpu.avx512 && have < 3) return "SkylakeX";
  if (cpu.avx2Fma && have < 2) return "Haswell";
  return "";
}

std::string raiseOpenBlasKernels() {
  if (!openblas_get_corename) return "CBLAS (not OpenBLAS: its own kernel choice)";
  std::string picked = openblas_get_corename();
  std::string better = betterOpenBlasCore(picked, hostVectorFeatures());
  std::string note = " (OpenBLAS's pick)";
  if (std::getenv("OPENBLAS_CORETYPE")) {
    note = " (OPENBLAS_CORETYPE set by the user)";
  } else if (!better.empty() && gotoblas_dynamic_init && gotoblas_dynamic_quit && buildHasCore(better)) {
    rechooseOpenBlasCore(better);
    note = " (chosen by scn from the CPU's features; OpenBLAS picked " + picked + ")";
  }
  std::string config = openblas_get_config ? openblas_get_config() : "OpenBLAS";
  return config.substr(0, config.find(' ', config.find(' ') + 1)) + ", core " +
         openblas_get_corename() + note;
}

std::string openBlasCore() { return openblas_get_corename ? openblas_get_corename() : ""; }

int openBlasThreads() { return openblas_get_num_threads ? openblas_get_num_threads() : 0; }

void prepareGemmLibrary() {
  static std::once_flag once;
  std::call_once(once, prepareOnce);
}

std::string gemmLibraryDescription() {
  prepareGemmLibrary();
  return description();
}

namespace {
/// The epilogue's points over C[b]'s rows [r0, r1): whole points only (false otherwise).
bool epiloguePoints(const GemmCall& g, int64_t b, int64_t r0, int64_t r1, int64_t* lo, int64_t* hi) {
  int64_t first = b * g.strideC + r0 * g.ldc, end = b * g.strideC + r1 * g.ldc, inner = g.epilogue.inner;
  *lo = first / inner;
  *hi = end / inner;
  return first % inner == 0 && end % inner == 0;
}

/// Rows [r0, r1) of C[b], then the epilogue over them while they are in cache.
void gemmRowsThenEpilogue(const GemmCall& g, int64_t b, int64_t r0, int64_t r1) {
  gemmRows(g, b, r0, r1);
  int64_t lo, hi;
  if (g.epilogue.fn && epiloguePoints(g, b, r0, r1, &lo, &hi)) g.epilogue.fn(g.epilogue.bufs, g.epilogue.hostVars, lo, hi);
}
}  // namespace

// Note [GEMM epilogues]: the lowering hands over a kernel whose points each touch only their own
// window of C (`inner` elements), so the kernel may run on a piece of C as soon as that piece is
// computed, by the thread that computed it, while the piece is in its cache. Pieces are whole rows of a batch
// entry; when they are not whole points of the kernel (a point spans rows of two pieces) or the
// product is cut into column blocks, the epilogue runs after the whole product instead, as the
// separate launch it replaced.
void runGemm(ThreadPool* pool, const GemmCall& g) {
  prepareGemmLibrary();
  if (g.batch <= 0 || g.m <= 0 || g.n <= 0) return;
  int threads = pool ? pool->size() : 1;
  double flops = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) *
                 static_cast<double>(g.k) * static_cast<double>(g.batch);
  int64_t rows = 1, cols = 1;
  if (threads > 1 && flops >= kParallelFlops) {
    int64_t want = kPiecesPerThread * threads;
    int64_t perEntry = g.batch >= want ? 1 : (want + g.batch - 1) / g.batch;
    rows = std::clamp<int64_t>(perEntry, 1, std::max<int64_t>(1, g.m / kMinRows));
    cols = g.dtype == GemmType::BF16  // bf16: a oneDNN primitive per width; rows only
               ? 1
               : std::clamp<int64_t>((perEntry + rows - 1) / rows, 1, std::max<int64_t>(1, g.n / kMinCols));
  }
  bool epilogueByPiece = g.epilogue.fn && cols == 1;
  for (int64_t b = 0; epilogueByPiece && b < g.batch; ++b)
    for (int64_t r = 0; epilogueByPiece && r < rows; ++r) {
      int64_t lo, hi;
      epilogueByPiece = epiloguePoints(g, b, g.m * r / rows, g.m * (r + 1) / rows, &lo, &hi);
    }
  GemmCall product = g;
  if (!epilogueByPiece) product.epilogue.fn = nullptr;
  int64_t blocks = rows * cols;
  auto piece = [&](int64_t i) {
    int64_t b = i / blocks, r = i % blocks / cols, c = i % cols;
    GemmCall part = cols == 1 ? product : columns(product, g.n * c / cols, g.n * (c + 1) / cols);
    gemmRowsThenEpilogue(part, b, g.m * r / rows, g.m * (r + 1) / rows);
  };
  if (blocks == 1 && (threads == 1 || flops < kParallelFlops)) {
    for (int64_t b = 0; b < g.batch; ++b) piece(b);
  } else {
    pool->parallelFor(g.batch * blocks, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) piece(i);
    });
  }
  if (g.epilogue.fn && !epilogueByPiece) {
    const GemmEpilogue& e = g.epilogue;
    int64_t points = g.batch * g.m * g.n / e.inner;
    if (pool) pool->parallelFor(points, [&](int64_t lo, int64_t hi) { e.fn(e.bufs, e.hostVars, lo, hi); });
    else e.fn(e.bufs, e.hostVars, 0, points);
  }
}

}  // namespace scn::cpu
