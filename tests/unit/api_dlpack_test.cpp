// DLPack through the C and C++ embedding APIs: tensors taken as inputs without a copy, strided
// ones copied, each deleter run exactly once (also when the import fails), the errors
// E0527-E0530, and results handed out as tensors that own scn's buffer past the context.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <dlpack/dlpack.h>

#include "scn/scn.h"
#include "scn/scn.hpp"

namespace {

// ---------------------------------------------------------------- a producer

/// A producer's tensor over the host's memory, counting how often each deleter ran.
struct Producer {
  std::vector<int64_t> shape, strides;
  int deleted = 0;
  DLManagedTensor plain{};
  DLManagedTensorVersioned versioned{};

  Producer(DLDataType dtype, std::vector<int64_t> shape_, void* data, std::vector<int64_t> strides_ = {})
      : shape(std::move(shape_)), strides(std::move(strides_)) {
    for (DLTensor* t : {&plain.dl_tensor, &versioned.dl_tensor}) {
      t->data = data;
      t->device = DLDevice{kDLCPU, 0};
      t->ndim = static_cast<int32_t>(shape.size());
      t->dtype = dtype;
      t->shape = shape.data();
      t->strides = strides.empty() ? nullptr : strides.data();
      t->byte_offset = 0;
    }
    plain.manager_ctx = this;
    plain.deleter = [](DLManagedTensor* self) { ++static_cast<Producer*>(self->manager_ctx)->deleted; };
    versioned.version = DLPackVersion{1, 0};
    versioned.manager_ctx = this;
    versioned.deleter = [](DLManagedTensorVersioned* self) { ++static_cast<Producer*>(self->manager_ctx)->deleted; };
  }
  void setDevice(DLDeviceType type) { plain.dl_tensor.device.device_type = versioned.dl_tensor.device.device_type = type; }
};

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kF64{kDLFloat, 64, 1};

/// Counts the deleter calls of tensors scn made, and runs scn's own deleter.
template <typename Managed>
struct DeleterCounter {
  static inline int calls = 0;
  static inline void (*original)(Managed*) = nullptr;
  static void wrap(Managed* m) {
    original = m->deleter;
    m->deleter = [](Managed* self) {
      ++calls;
      original(self);
    };
  }
};

// ---------------------------------------------------------------- the C API

struct Diag {
  std::string code, message, help;
};

void collect(const scn_diagnostic* d, void* user) {
  static_cast<std::vector<Diag>*>(user)->push_back(Diag{d->code, d->message, d->help});
}

struct CHost {
  std::vector<Diag> diags;
  scn_context* ctx = nullptr;
  CHost() {
    scn_options o;
    scn_options_init(&o);
    o.on_diagnostic = collect;
    o.diagnostic_user = &diags;
    EXPECT_EQ(scn_context_new(&o, &ctx), SCN_OK);
  }
  ~CHost() { scn_context_free(ctx); }
  /// Calls `name` on n inputs; the outputs are the caller's.
  scn_array* call(const char* name, const scn_array* in, size_t n, size_t expected) {
    scn_function* f = nullptr;
    EXPECT_EQ(scn_function_get(ctx, name, &f), SCN_OK) << scn_last_error(ctx);
    scn_array* out = nullptr;
    size_t nout = 0;
    EXPECT_EQ(scn_call(f, in, n, &out, &nout), SCN_OK) << scn_last_error(ctx);
    EXPECT_EQ(nout, expected);
    scn_function_free(f);
    return out;
  }
};

TEST(ApiCDLPack, ContiguousInputIsBorrowedAndDeletedOnce) {
  CHost h;
  ASSERT_EQ(scn_load_source(h.ctx, "fn f(x) = x * 2.0 + 1.0", "f.scn"), SCN_OK);
  float x[6] = {0, 1, 2, 3, 4, 5};
  Producer p(kF32, {2, 3}, x);
  scn_array* in = nullptr;
  ASSERT_EQ(scn_array_from_dlpack(h.ctx, &p.plain, &in), SCN_OK) << scn_last_error(h.ctx);
  EXPECT_EQ(in->data, x);  // a view of the producer's memory
  EXPECT_EQ(in->dtype, SCN_F32);
  ASSERT_EQ(in->rank, 2u);
  EXPECT_EQ(in->shape[0], 2);
  EXPECT_EQ(in->shape[1], 3);
  EXPECT_EQ(in->strides, nullptr);
  for (int round = 0; round < 2; ++round) {  // the view may be passed to several calls
    scn_array* out = h.call("f", in, 1, 1);
    EXPECT_EQ(scn_last_copied_input_bytes(h.ctx), 0u);  // borrowed
    const auto* y = static_cast<const float*>(out[0].data);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], 2.0f * x[i] + 1.0f);
    scn_array_free(out, 1);
  }
  EXPECT_EQ(p.deleted, 0);
  ASSERT_EQ(scn_array_free(in, 1), SCN_OK);
  EXPECT_EQ(p.deleted, 1);
  EXPECT_TRUE(h.diags.empty());
}

TEST(ApiCDLPack, StridedInputIsCopied) {
  CHost h;
  ASSERT_EQ(scn_load_source(h.ctx, "fn f(x) = x + 0.5", "f.scn"), SCN_OK);
  double m[8] = {-1, 0, 1, 2, 3, 4, 5, 6};  // a (2, 3) matrix at byte offset 8, stored by columns
  Producer p(kF64, {3, 2}, m, {1, 3});     // its transpose: shape (3, 2), element strides (1, 3)
  p.versioned.dl_tensor.byte_offset = sizeof(double);
  scn_array* in = nullptr;
  ASSERT_EQ(scn_array_from_dlpack_versioned(h.ctx, &p.versioned, &in), SCN_OK) << scn_last_error(h.ctx);
  ASSERT_NE(in->strides, nullptr);
  EXPECT_EQ(in->strides[0], 8);  // byte strides, as scn_array counts them
  EXPECT_EQ(in->strides[1], 24);
  scn_array* out = h.call("f", in, 1, 1);
  EXPECT_EQ(scn_last_copied_input_bytes(h.ctx), 6 * sizeof(double));
  const auto* y = static_cast<const double*>(out[0].data);
  std::vector<double> got(y, y + 6);
  EXPECT_EQ(got, (std::vector<double>{0.5, 3.5, 1.5, 4.5, 2.5, 5.5}));
  scn_array_free(out, 1);
  scn_array_free(in, 1);
  EXPECT_EQ(p.deleted, 1);
}

TEST(ApiCDLPack, TensorsScnCannotReadAreDiagnosedAndDeleted) {
  CHost h;
  float x[4] = {1, 2, 3, 4};
  int64_t bad[2] = {2, -2};
  struct Case {
    const char* code;
    const char* message;
    void (*spoil)(Producer&, int64_t*);
  };
  const Case cases[] = {
      {"E0527", "the DLPack tensor has dtype int16; scn takes bool, int32, int64, uint32, uint64, bfloat16, float16, float32, float64, complex64 or complex128",
       [](Producer& p, int64_t*) { p.plain.dl_tensor.dtype = DLDataType{kDLInt, 16, 1}; }},
      {"E0527", "the DLPack tensor has dtype float32x4; scn takes bool, int32, int64, uint32, uint64, bfloat16, float16, float32, float64, complex64 or complex128",
       [](Producer& p, int64_t*) { p.plain.dl_tensor.dtype.lanes = 4; }},
      {"E0528", "the DLPack tensor is in cuda memory (device type 2, device 0); scn takes host memory",
       [](Producer& p, int64_t*) { p.setDevice(kDLCUDA); }},
      {"E0529", "the DLPack tensor has a negative dimension in its shape (2, -2)",
       [](Producer& p, int64_t* s) { p.plain.dl_tensor.shape = s; }},
      {"E0529", "the DLPack tensor has a null data pointer but 4 elements",
       [](Producer& p, int64_t*) { p.plain.dl_tensor.data = nullptr; }},
      {"E0529", "the DLPack tensor has ndim 2 but a null shape",
       [](Producer& p, int64_t*) { p.plain.dl_tensor.shape = nullptr; }},
  };
  for (const Case& c : cases) {
    Producer p(kF32, {2, 2}, x);
    c.spoil(p, bad);
    scn_array* in = reinterpret_cast<scn_array*>(0x1);
    h.diags.clear();
    EXPECT_EQ(scn_array_from_dlpack(h.ctx, &p.plain, &in), SCN_ERROR_INVALID_ARGUMENT) << c.message;
    EXPECT_EQ(in, nullptr);
    EXPECT_EQ(p.deleted, 1) << c.message;  // taken, also when refused
    ASSERT_EQ(h.diags.size(), 1u) << c.message;
    EXPECT_EQ(h.diags[0].code, c.code);
    EXPECT_EQ(h.diags[0].message, c.message);
    EXPECT_EQ(scn_last_error(h.ctx), "scn: error[" + std::string(c.code) + "]: " + c.message);
  }
  // A later major version: only its deleter may be touched.
  Producer p(kF32, {4}, x);
  p.versioned.version = DLPackVersion{2, 3};
  scn_array* in = nullptr;
  h.diags.clear();
  EXPECT_EQ(scn_array_from_dlpack_versioned(h.ctx, &p.versioned, &in), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(p.deleted, 1);
  ASSERT_EQ(h.diags.size(), 1u);
  EXPECT_EQ(h.diags[0].code, "E0530");
  EXPECT_EQ(h.diags[0].message, "the DLPack tensor has version 2.3; scn reads DLPack 1.x tensors");
  // Null arguments.
  h.diags.clear();
  EXPECT_EQ(scn_array_from_dlpack(h.ctx, nullptr, &in), SCN_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(h.diags.size(), 1u);
  EXPECT_EQ(h.diags[0].message, "the DLPack tensor is a null pointer");
  Producer q(kF32, {4}, x);
  EXPECT_EQ(scn_array_from_dlpack(nullptr, &q.plain, &in), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scn_array_from_dlpack(h.ctx, &q.plain, nullptr), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(q.deleted, 2);
  // Pinned host memory is host memory.
  Producer pinned(kF32, {4}, x);
  pinned.setDevice(kDLCUDAHost);
  ASSERT_EQ(scn_array_from_dlpack(h.ctx, &pinned.plain, &in), SCN_OK);
  scn_array_free(in, 1);
  EXPECT_EQ(pinned.deleted, 1);
}

TEST(ApiCDLPack, ResultsOutliveTheContextAsTensors) {
  using Counter = DeleterCounter<DLManagedTensor>;
  Counter::calls = 0;
  DLManagedTensor* t = nullptr;
  const void* resultData = nullptr;
  {
    CHost h;
    ASSERT_EQ(scn_load_source(h.ctx, "fn f(static n) = reshape(arange(n) * 3, (2, n // 2))", "f.scn"), SCN_OK);
    int64_t n = 6;
    scn_array in = {SCN_I64, 0, nullptr, nullptr, &n, nullptr};
    scn_array* out = h.call("f", &in, 1, 1);
    resultData = out[0].data;
    ASSERT_EQ(scn_array_to_dlpack(&out[0], &t), SCN_OK);
    EXPECT_EQ(out[0].data, nullptr);  // emptied: the tensor has it now
    EXPECT_EQ(out[0].rank, 0u);
    DLManagedTensor* again = nullptr;
    EXPECT_EQ(scn_array_to_dlpack(&out[0], &again), SCN_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(scn_array_to_dlpack(&in, &again), SCN_ERROR_INVALID_ARGUMENT);  // not a result
    EXPECT_EQ(again, nullptr);
    scn_array_free(out, 1);
  }  // the context is gone
  ASSERT_NE(t, nullptr);
  Counter::wrap(t);
  const DLTensor& d = t->dl_tensor;
  EXPECT_EQ(d.data, resultData);  // scn's buffer, not a copy
  EXPECT_EQ(d.device.device_type, kDLCPU);
  EXPECT_EQ(d.dtype.code, kDLInt);
  EXPECT_EQ(d.dtype.bits, 32);  // arange's default dtype, as in JAX
  EXPECT_EQ(d.dtype.lanes, 1);
  ASSERT_EQ(d.ndim, 2);
  EXPECT_EQ(d.shape[0], 2);
  EXPECT_EQ(d.shape[1], 3);
  EXPECT_EQ(d.strides[0], 3);
  EXPECT_EQ(d.strides[1], 1);
  const auto* v = static_cast<const int32_t*>(d.data);
  EXPECT_EQ(std::vector<int32_t>(v, v + 6), (std::vector<int32_t>{0, 3, 6, 9, 12, 15}));

  // Back into another context, without a copy: scn takes its own tensor, and frees it once.
  CHost h2;
  ASSERT_EQ(scn_load_source(h2.ctx, "fn total(x) = sum(x)", "t.scn"), SCN_OK);
  scn_array* in = nullptr;
  ASSERT_EQ(scn_array_from_dlpack(h2.ctx, t, &in), SCN_OK);
  EXPECT_EQ(in->data, resultData);
  scn_array* out = h2.call("total", in, 1, 1);
  EXPECT_EQ(scn_last_copied_input_bytes(h2.ctx), 0u);
  EXPECT_EQ(out[0].dtype, SCN_I32);
  EXPECT_EQ(*static_cast<const int32_t*>(out[0].data), 45);
  scn_array_free(out, 1);
  EXPECT_EQ(Counter::calls, 0);
  scn_array_free(in, 1);
  EXPECT_EQ(Counter::calls, 1);
}

TEST(ApiCDLPack, VersionedResultsSayWhenTheyAreShared) {
  CHost h;
  ASSERT_EQ(scn_load_source(h.ctx, "let g = arange(3) > 0\nfn fresh(x) = x > 1\nfn global_g(x) = g", "g.scn"),
            SCN_OK);
  int32_t x[3] = {0, 1, 2};
  int64_t shape[1] = {3};
  scn_array in = {SCN_I32, 1, shape, nullptr, x, nullptr};
  for (const char* name : {"fresh", "global_g"}) {
    scn_array* out = h.call(name, &in, 1, 1);
    DLManagedTensorVersioned* t = nullptr;
    ASSERT_EQ(scn_array_to_dlpack_versioned(&out[0], &t), SCN_OK);
    scn_array_free(out, 1);
    EXPECT_EQ(t->version.major, 1u);
    EXPECT_EQ(t->version.minor, 1u);
    EXPECT_EQ(t->dl_tensor.dtype.code, kDLBool);
    EXPECT_EQ(t->dl_tensor.dtype.bits, 8);
    bool shared = std::string(name) == "global_g";
    EXPECT_EQ(t->flags & DLPACK_FLAG_BITMASK_READ_ONLY, shared ? DLPACK_FLAG_BITMASK_READ_ONLY : 0u) << name;
    const auto* b = static_cast<const uint8_t*>(t->dl_tensor.data);
    EXPECT_EQ(std::vector<uint8_t>(b, b + 3), shared ? (std::vector<uint8_t>{0, 1, 1}) : (std::vector<uint8_t>{0, 0, 1}));
    t->deleter(t);
  }
}

// ---------------------------------------------------------------- the C++ API

scn::Context makeContext(std::vector<scn::DiagnosticRecord>* records = nullptr) {
  scn::ContextOptions o;
  if (records) o.onDiagnostic = [records](const scn::DiagnosticRecord& r) { records->push_back(r); };
  scn::Result<scn::Context> cx = scn::Context::create(std::move(o));
  EXPECT_TRUE(cx.ok()) << cx.status().message();
  return std::move(cx).value();
}

TEST(ApiCppDLPack, InputsAreBorrowedUntilTheLastHandleGoes) {
  scn::Context cx = makeContext();
  ASSERT_TRUE(cx.load("fn f(x) = x * x", "f.scn"));
  float x[3] = {1, 2, 3};
  Producer p(kF32, {3}, x);
  {
    scn::Result<scn::DLPackInput> in = cx.fromDLPack(&p.plain);
    ASSERT_TRUE(in.ok()) << in.status().message();
    EXPECT_EQ(in->view().data, x);
    scn::DLPackInput copy = *in;
    auto r = cx.call("f", {copy.view()});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(cx.lastCopiedInputBytes(), 0u);
    EXPECT_EQ((*r)[0].dataAs<float>()[2], 9.0f);
    EXPECT_EQ(p.deleted, 0);
  }
  EXPECT_EQ(p.deleted, 1);
}

TEST(ApiCppDLPack, ErrorsComeAsStatusAndRecord) {
  std::vector<scn::DiagnosticRecord> records;
  scn::Context cx = makeContext(&records);
  uint8_t x[2] = {1, 2};
  Producer p(DLDataType{kDLUInt, 8, 1}, {2}, x);
  scn::Result<scn::DLPackInput> in = cx.fromDLPack(&p.versioned);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().code(), scn::StatusCode::InvalidArgument);
  EXPECT_EQ(in.status().message(),
            "scn: error[E0527]: the DLPack tensor has dtype uint8; scn takes bool, int32, int64, uint32, uint64, "
            "bfloat16, float16, float32, float64, complex64 or complex128");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].help,
            "convert it before handing it over (NumPy: `.astype(np.float32)`, PyTorch: `.to(torch.float32)`)");
  EXPECT_EQ(p.deleted, 1);
}

TEST(ApiCppDLPack, ATensorOfAContextInUseIsStillTaken) {
  std::atomic<bool> inside{false};
  scn::ContextOptions o;
  o.backend = "interp";
  o.onPrint = [&](std::string_view) { inside = true; };  // the spin call has started
  auto made = scn::Context::create(o);
  ASSERT_TRUE(made.ok()) << made.status().message();
  scn::Context& cx = *made;
  ASSERT_TRUE(cx.load("fn spin(x) { print(\"spinning\"); while_loop(|c| c == c, |c| c + 1.0, x) }", "s.scn"));
  float zero = 0;
  std::atomic<bool> done{false};
  std::thread worker([&] {
    cx.call("spin", {scn::ArrayView::of(&zero, {})});
    done = true;
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!inside && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(inside.load());
  float x[1] = {1};
  Producer p(kF32, {1}, x);
  scn::Result<scn::DLPackInput> in = cx.fromDLPack(&p.plain);
  EXPECT_EQ(in.status().message(), "scn: error[E0601]: the context is in use by another thread");
  EXPECT_EQ(p.deleted, 1);  // handed over, so deleted
  while (!done && std::chrono::steady_clock::now() < deadline) {
    cx.interrupt();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!done) std::_Exit(1);  // the spin call did not stop: joining would hang
  worker.join();
}

TEST(ApiCppDLPack, ResultsAsTensors) {
  using Counter = DeleterCounter<DLManagedTensorVersioned>;
  Counter::calls = 0;
  DLManagedTensorVersioned* shared = nullptr;
  DLManagedTensorVersioned* unique = nullptr;
  DLManagedTensor* plain = nullptr;
  {
    scn::Context cx = makeContext();
    ASSERT_TRUE(cx.load("fn f(x) = x - 1.0", "f.scn"));
    double x[2] = {5, 7};
    auto r = cx.call("f", {scn::ArrayView::of(x, {2})});
    ASSERT_TRUE(r.ok());
    shared = scn::toDLPackVersioned((*r)[0]);  // the HostArray still has it: read-only
    plain = scn::toDLPack(std::move((*r)[0]));
    EXPECT_EQ(shared->dl_tensor.data, plain->dl_tensor.data);
    auto r2 = cx.call("f", {scn::ArrayView::of(x, {2})});
    ASSERT_TRUE(r2.ok());
    unique = scn::toDLPackVersioned(std::move((*r2)[0]));  // the only owner: writable
  }
  EXPECT_EQ(shared->flags, DLPACK_FLAG_BITMASK_READ_ONLY);
  EXPECT_EQ(unique->flags, 0u);
  const auto* v = static_cast<const double*>(shared->dl_tensor.data);
  EXPECT_EQ(v[0], 4.0);
  EXPECT_EQ(v[1], 6.0);
  Counter::wrap(shared);
  shared->deleter(shared);
  EXPECT_EQ(v[1], 6.0);  // still alive: `plain` holds it
  plain->deleter(plain);
  static_cast<double*>(unique->dl_tensor.data)[0] = 1.5;  // the consumer may write
  Counter::wrap(unique);
  unique->deleter(unique);
  EXPECT_EQ(Counter::calls, 2);
}

}  // namespace
