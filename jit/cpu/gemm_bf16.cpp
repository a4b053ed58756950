// bf16 matrix products on the CPU: oneDNN's matmul where the CPU multiplies bf16 natively, an
// f32 SGEMM of the widened operands elsewhere (jit/cpu/gemm_bf16.hpp).
#include "jit/cpu/gemm_bf16.hpp"

#include <cblas.h>
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "jit/lowp.hpp"

namespace scn::cpu {

// Note [bf16 products]
// ~~~~~~~~~~~~~~~~~~~~
// A bf16 matmul means, in JAX as in scn, a product accumulated in f32 and rounded once to bf16
// (Note [Low-precision floats]). Widened (convert, SGEMM, convert) it runs at about the f32
// product's rate; where the CPU multiplies bf16 pairs faster than f32 FMAs, a native kernel wins.
// OpenBLAS's sbgemm is missing from Debian's build, so the CPU backend keeps bf16 dot_generals out
// of the widen pass (LowerOptions::keepBf16Products) and the Gemm step lands here:
// - oneDNN's matmul primitive (Debian's libdnnl, a JIT that picks kernels by CPUID features) when
//   its choice for the layout is a native-bf16 kernel (its implementation name says
//   avx512_core_bf16 or amx) that beats the widened SGEMM on this CPU: with AMX-BF16, or on an AMD
//   core with AVX512-BF16, whose 512-bit FMAs are double-pumped while vdpbf16ps is not. On a Zen 4,
//   16 products of 256^3: 217 GFLOP/s on one core, 2.3x OpenBLAS's SGEMM. On an Intel core
//   without AMX, vdpbf16ps has the FMAs' rate and oneDNN's avx512_core_bf16 kernel ran at
//   0.66-0.75x SGEMM's (Xeon family 6 model 207: W1's bf16 scan 58.6-59.2 ms native, 44.8-51.3
//   widened, f32 37-47). Accumulation is f32 and the result is rounded to nearest even: the
//   widened form's semantics, with the library's order of summation.
// - Otherwise the operands are widened into per-thread scratch (contiguous rows, vectorised:
//   this file is compiled with -O3) and OpenBLAS multiplies them, exactly the widened form.
// Like OpenBLAS (Note [One thread pool for GEMM]) oneDNN runs one thread per call: its OpenMP
// threads are limited to 1 around each call, on the calling thread only, and restored after, so
// a host's own OpenMP setting is left as it was. Primitives are created once per layout and shared;
// each call brings its own scratchpad (user scratchpad mode), which makes concurrent calls safe.
// The cache keeps the kPrimitiveCacheSize layouts used last (a REPL session that multiplies ever new
// shapes would otherwise grow it for ever); a call holds its primitive by shared_ptr, so an
// eviction never destroys one in use. Each thread's stream dies with the thread.

namespace {

using OmpGetMaxThreads = int (*)();
using OmpSetNumThreads = void (*)(int);

/// One primitive per layout of a row block (rows, n, k, leading dimensions, transposes).
using LayoutKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool, bool>;

constexpr size_t kPrimitiveCacheSize = 256;

struct Primitive {
  Primitive() = default;
  Primitive(const Primitive&) = delete;
  Primitive& operator=(const Primitive&) = delete;
  ~Primitive() {
    if (prim) dnnl_primitive_destroy(prim);
  }
  dnnl_primitive_t prim = nullptr;  // null: no native-bf16 kernel for this layout
  std::string impl = "none";        // oneDNN's implementation for the layout
  dnnl_memory_desc_t a{}, b{}, c{}, scratch{};
  size_t scratchBytes = 0;
};

/// A thread's oneDNN stream, created on its first product and destroyed when the thread ends.
struct ThreadStream {
  ThreadStream() = default;
  ThreadStream(const ThreadStream&) = delete;
  ThreadStream& operator=(const ThreadStream&) = delete;
  ~ThreadStream() {
    if (stream) dnnl_stream_destroy(stream);
  }
  dnnl_stream_t stream = nullptr;
};

class OneDnn {
 public:
  OneDnn() {
    ompGet_ = reinterpret_cast<OmpGetMaxThreads>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
    ompSet_ = reinterpret_cast<OmpSetNumThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    if (dnnl_engine_create(&engine_, dnnl_cpu, 0) != dnnl_success) engine_ = nullptr;
    const dnnl_version_t* v = dnnl_version();
    version_ = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
  }

  /// The primitive for g's rows [r0, r1) (its prim null where oneDNN has no native kernel).
  std::shared_ptr<const Primitive> primitive(const GemmCall& g, int64_t rows) {
    LayoutKey key{rows, g.n, g.k, g.lda, g.ldb, g.ldc, g.transA, g.transB};
    std::lock_guard<std::mutex> lock(m_);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      if (cache_.size() >= kPrimitiveCacheSize) evictLeastRecent();
      it = cache_.emplace(key, Cached{create(g, rows), 0}).first;
    }
    it->second.lastUse = ++uses_;
    return it->second.primitive;
  }

  size_t cached() {
    std::lock_guard<std::mutex> lock(m_);
    return cache_.size();
  }

  /// Runs p on one thread; false when a oneDNN call failed (the caller then widens).
  bool run(const Primitive& p, const void* a, const void* b, void* c) {
    thread_local std::vector<unsigned char> scratch;
    thread_local ThreadStream own;
    dnnl_stream_t& stream = own.stream;
    if (!stream && dnnl_stream_create(&stream, engine_, dnnl_stream_default_flags) != dnnl_success) return false;
    if (scratch.size() < p.scratchBytes) scratch.resize(p.scratchBytes);
    dnnl_memory_t mem[4] = {};
    bool ok = dnnl_memory_create(&mem[0], &p.a, engine_, const_cast<void*>(a)) == dnnl_success &&
              dnnl_memory_create(&mem[1], &p.b, engine_, const_cast<void*>(b)) == dnnl_success &&
              dnnl_memory_create(&mem[2], &p.c, engine_, c) == dnnl_success &&
              dnnl_memory_create(&mem[3], &p.scratch, engine_, scratch.data()) == dnnl_success;
    if (ok) {
      dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, mem[0]}, {DNNL_ARG_WEIGHTS, mem[1]}, {DNNL_ARG_DST, mem[2]},
                                 {DNNL_ARG_SCRATCHPAD, mem[3]}};
      int threads = ompGet_ && ompSet_ ? ompGet_() : 1;
      if (threads != 1) ompSet_(1);
      ok = dnnl_primitive_execute(p.prim, stream, 4, args) == dnnl_success && dnnl_stream_wait(stream) == dnnl_success;
      if (threads != 1) ompSet_(threads);
    }
    for (dnnl_memory_t m : mem)
      if (m) dnnl_memory_destroy(m);
    return ok;
  }

  /// "oneDNN 2.6.3, brg:avx512_core_bf16" for a 256^3 product, or why it is not used.
  std::string describe() {
    if (!engine_) return "f32 SGEMM of widened operands (oneDNN has no CPU engine)";
    GemmCall g{GemmType::BF16, false, false, 256, 256, 256, nullptr, 256, 0, nullptr, 256, 0, nullptr, 256, 0, 1};
    std::shared_ptr<const Primitive> p = primitive(g, 256);
    if (!p->prim && nativeBf16(p->impl))
      return "f32 SGEMM of widened operands (" + version_ + "'s " + p->impl + " is slower on this CPU)";
    if (!p->prim) return "f32 SGEMM of widened operands (" + version_ + " has no native bf16 kernel here: " + p->impl + ")";
    return version_ + ", " + p->impl;
  }

 private:
  static bool nativeBf16(const std::string& impl) {
    return impl.find("bf16") != std::string::npos || impl.find("amx") != std::string::npos;
  }

  /// Whether oneDNN's native kernel `impl` beats the widened SGEMM here (Note [bf16 products]).
  static bool nativeIsFaster(const std::string& impl) {
    return impl.find("amx") != std::string::npos || __builtin_cpu_is("amd");
  }

  struct Cached {
    std::shared_ptr<const Primitive> primitive;
    uint64_t lastUse;
  };

  void evictLeastRecent() {
    auto oldest = cache_.begin();
    for (auto it = cache_.begin(); it != cache_.end(); ++it)
      if (it->second.lastUse < oldest->second.lastUse) oldest = it;
    cache_.erase(oldest);
  }

  std::shared_ptr<const Primitive> create(const GemmCall& g, int64_t rows) {
    auto made = std::make_shared<Primitive>();
    Primitive& p = *made;
    if (!engine_) return made;
    dnnl_dims_t aDims = {rows, g.k}, aStrides = {g.transA ? 1 : g.lda, g.transA ? g.lda : 1};
    dnnl_dims_t bDims = {g.k, g.n}, bStrides = {g.transB ? 1 : g.ldb, g.transB ? g.ldb : 1};
    dnnl_dims_t cDims = {rows, g.n}, cStrides = {g.ldc, 1};
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_matmul_desc_t desc;
    bool ok = dnnl_memory_desc_init_by_strides(&p.a, 2, aDims, dnnl_bf16, aStrides) == dnnl_success &&
              dnnl_memory_desc_init_by_strides(&p.b, 2, bDims, dnnl_bf16, bStrides) == dnnl_success &&
              dnnl_memory_desc_init_by_strides(&p.c, 2, cDims, dnnl_bf16, cStrides) == dnnl_success &&
              dnnl_matmul_desc_init(&desc, &p.a, &p.b, nullptr, &p.c) == dnnl_success &&
              dnnl_primitive_attr_create(&attr) == dnnl_success &&
              dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) == dnnl_success &&
              dnnl_primitive_desc_create(&pd, &desc, attr, engine_, nullptr) == dnnl_success;
    if (ok) {
      const char* impl = nullptr;
      dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
      p.impl = impl ? impl : "?";
      const dnnl_memory_desc_t* s = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
      if (s) p.scratch = *s;
      p.scratchBytes = s ? dnnl_memory_desc_get_size(s) : 0;
      if (nativeBf16(p.impl) && nativeIsFaster(p.impl) && dnnl_primitive_create(&p.prim, pd) != dnnl_success)
        p.prim = nullptr;
    }
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (attr) dnnl_primitive_attr_destroy(attr);
    return made;
  }

  dnnl_engine_t engine_ = nullptr;
  OmpGetMaxThreads ompGet_ = nullptr;
  OmpSetNumThreads ompSet_ = nullptr;
  std::string version_;
  std::mutex m_;
  std::map<LayoutKey, Cached> cache_;
  uint64_t uses_ = 0;
};

/// Never destroyed: products may run during static destruction of a host.
OneDnn& oneDnn() {
  static OneDnn* d = new OneDnn;
  return *d;
}

const uint16_t* bits(const void* p, int64_t offset) { return static_cast<const uint16_t*>(p) + offset; }

// Contiguous rows, so that the compiler vectorises each loop: the widened product is only worth
// taking where these passes cost little next to the SGEMM (Note [bf16 products]).

/// rows x cols bf16 values at src (row stride ld) as dense f32 rows at dst (exact).
void widenBlock(const uint16_t* src, int64_t ld, int64_t rows, int64_t cols, float* dst) {
  for (int64_t i = 0; i < rows; ++i, src += ld, dst += cols)
    for (int64_t j = 0; j < cols; ++j) dst[j] = lowp::bf16ToF32(src[j]);
}

/// rows x cols f32 values at src (dense) rounded to bf16 at dst (row stride ld).
void roundBlock(const float* src, int64_t rows, int64_t cols, uint16_t* dst, int64_t ld) {
  for (int64_t i = 0; i < rows; ++i, src += cols, dst += ld)
    for (int64_t j = 0; j < cols; ++j) dst[j] = lowp::f32ToBf16(src[j]);
}

}  // namespace

void bf16GemmRowsWidened(const GemmCall& g, int64_t b, int64_t r0, int64_t r1) {
  thread_local std::vector<float> a32, b32, c32;
  int64_t rows = r1 - r0;
  a32.resize(static_cast<size_t>(rows * g.k));
  b32.resize(static_cast<size_t>(g.k * g.n));
  c32.resize(static_cast<size_t>(rows * g.n));
  // op(A)'s rows r0..r1 keep A's layout: rows of A, or (transposed) columns r0..r1 of its k rows.
  widenBlock(bits(g.a, b * g.strideA + (g.transA ? r0 : r0 * g.lda)), g.lda, g.transA ? g.k : rows,
             g.transA ? rows : g.k, a32.data());
  widenBlock(bits(g.b, b * g.strideB), g.ldb, g.transB ? g.n : g.k, g.transB ? g.k : g.n, b32.data());
  int lda = static_cast<int>(g.transA ? rows : g.k), ldb = static_cast<int>(g.transB ? g.k : g.n);
  cblas_sgemm(CblasRowMajor, g.transA ? CblasTrans : CblasNoTrans, g.transB ? CblasTrans : CblasNoTrans,
              static_cast<int>(rows), static_cast<int>(g.n), static_cast<int>(g.k), 1.0f, a32.data(), lda,
              b32.data(), ldb, 0.0f, c32.data(), static_cast<int>(g.n));
  roundBlock(c32.data(), rows, g.n, static_cast<uint16_t*>(g.c) + b * g.strideC + r0 * g.ldc, g.ldc);
}

void bf16GemmRows(const GemmCall& g, int64_t b, int64_t r0, int64_t r1) {
  std::shared_ptr<const Primitive> p = oneDnn().primitive(g, r1 - r0);
  if (p->prim) {
    int64_t aOff = b * g.strideA + (g.transA ? r0 : r0 * g.lda);
    if (oneDnn().run(*p, bits(g.a, aOff), bits(g.b, b * g.strideB),
                     static_cast<uint16_t*>(g.c) + b * g.strideC + r0 * g.ldc))
      return;
  }
  bf16GemmRowsWidened(g, b, r0, r1);
}

std::string bf16GemmDescription() { return oneDnn().describe(); }

size_t bf16PrimitivesCached() { return oneDnn().cached(); }

}  // namespace scn::cpu
