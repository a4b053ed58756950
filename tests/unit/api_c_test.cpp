// The C embedding API: status codes, records through the C callback, null and bad arguments,
// output ownership, two contexts in two threads, the cache directory and scn_interrupt.
#include <gtest/gtest.h>

#include "test_backends.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <malloc.h>
#include <unistd.h>

#include "scn/scn.h"

namespace {

struct Diag {
  std::string code, message, file, help, rendered;
  int line = 0, column = 0;
  size_t notes = 0;
};

void collect(const scn_diagnostic* d, void* user) {
  auto* out = static_cast<std::vector<Diag>*>(user);
  out->push_back(Diag{d->code, d->message, d->file, d->help, d->rendered, d->line, d->column, d->num_notes});
}

/// A C context that collects its diagnostics; freed at the end of the test.
struct CHost {
  std::vector<Diag> diags;
  scn_context* ctx = nullptr;
  explicit CHost(const char* backend = nullptr) {
    scn_options o;
    EXPECT_EQ(scn_options_init(&o), SCN_OK);
    o.backend = backend;
    o.on_diagnostic = collect;
    o.diagnostic_user = &diags;
    EXPECT_EQ(scn_context_new(&o, &ctx), SCN_OK);
  }
  ~CHost() { scn_context_free(ctx); }
  scn_function* fn(const char* name) {
    scn_function* f = nullptr;
    EXPECT_EQ(scn_function_get(ctx, name, &f), SCN_OK) << scn_last_error(ctx);
    return f;
  }
};

scn_array view(scn_dtype t, size_t rank, const int64_t* shape, const void* data) {
  return scn_array{t, rank, shape, nullptr, data, nullptr};
}

/// Stores any int in the dtype field, as a C host may (C++ cannot even hold such an enum value).
void setRawDType(scn_array& a, int v) {
  static_assert(sizeof a.dtype == sizeof v);
  std::memcpy(&a.dtype, &v, sizeof v);
}

TEST(ApiC, LoadCallAndFree) {
  CHost h;
  ASSERT_EQ(scn_load_source(h.ctx, "fn poly(x, c) = c * x * x - x\nfn both(x) = (x, -x)", "poly.scn"), SCN_OK);
  scn_function* f = h.fn("poly");
  int arity = 0;
  ASSERT_EQ(scn_function_arity(f, &arity), SCN_OK);
  EXPECT_EQ(arity, 2);
  double x[6] = {0, 1, -1.5, 2, 3.25, -4};
  double c = 0.5;
  int64_t shape[2] = {2, 3};
  scn_array in[2] = {view(SCN_F64, 2, shape, x), view(SCN_F64, 0, nullptr, &c)};
  scn_array* out = nullptr;
  size_t nout = 0;
  ASSERT_EQ(scn_call(f, in, 2, &out, &nout), SCN_OK) << scn_last_error(h.ctx);
  ASSERT_EQ(nout, 1u);
  EXPECT_EQ(out[0].dtype, SCN_F64);
  ASSERT_EQ(out[0].rank, 2u);
  EXPECT_EQ(out[0].shape[0], 2);
  EXPECT_EQ(out[0].shape[1], 3);
  EXPECT_EQ(out[0].strides, nullptr);
  const double* y = static_cast<const double*>(out[0].data);
  for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(y[i], c * x[i] * x[i] - x[i]) << i;
  EXPECT_EQ(scn_last_copied_input_bytes(h.ctx), 0u);  // both inputs were borrowed
  EXPECT_EQ(scn_last_copied_input_bytes(nullptr), 0u);

  // An output goes straight back in as an input (its owner field is ignored there).
  scn_function* both = h.fn("both");
  scn_array* out2 = nullptr;
  size_t nout2 = 0;
  ASSERT_EQ(scn_call(both, out, 1, &out2, &nout2), SCN_OK);
  ASSERT_EQ(nout2, 2u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_DOUBLE_EQ(static_cast<const double*>(out2[0].data)[i], y[i]);
    EXPECT_DOUBLE_EQ(static_cast<const double*>(out2[1].data)[i], -y[i]);
  }
  EXPECT_EQ(scn_array_free(out, nout), SCN_OK);
  EXPECT_EQ(scn_array_free(out2, nout2), SCN_OK);
  EXPECT_EQ(scn_function_free(f), SCN_OK);
  EXPECT_EQ(scn_function_free(both), SCN_OK);
  EXPECT_TRUE(h.diags.empty());
  EXPECT_STREQ(scn_last_error(h.ctx), "");
}

TEST(ApiC, ErrorThroughTheCallback) {
  CHost h;
  ASSERT_EQ(scn_load_source(h.ctx, "fn dot3(a, b) {\n  let p = a * b\n  sum(p)\n}\n", "dot.scn"), SCN_OK);
  scn_function* f = h.fn("dot3");
  float a[3] = {1, 2, 3}, b[2] = {4, 5};
  int64_t s3[1] = {3}, s2[1] = {2};
  scn_array in[2] = {view(SCN_F32, 1, s3, a), view(SCN_F32, 1, s2, b)};
  scn_array* out = reinterpret_cast<scn_array*>(0x1);  // overwritten with NULL on failure
  size_t nout = 99;
  EXPECT_EQ(scn_call(f, in, 2, &out, &nout), SCN_ERROR_PROGRAM);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(nout, 0u);
  ASSERT_EQ(h.diags.size(), 1u);
  EXPECT_EQ(h.diags[0].code, "E0203");
  EXPECT_EQ(h.diags[0].file, "dot.scn");
  EXPECT_EQ(h.diags[0].line, 2);
  EXPECT_EQ(h.diags[0].column, 11);
  EXPECT_NE(h.diags[0].message.find("broadcasting"), std::string::npos) << h.diags[0].message;
  EXPECT_EQ(std::string(scn_last_error(h.ctx)), "dot.scn:2:11: error[E0203]: " + h.diags[0].message);
  // Then a good call on the same handle.
  float b3[3] = {4, 5, 6};
  in[1] = view(SCN_F32, 1, s3, b3);
  ASSERT_EQ(scn_call(f, in, 2, &out, &nout), SCN_OK);
  EXPECT_FLOAT_EQ(*static_cast<const float*>(out[0].data), 1 * 4 + 2 * 5 + 3 * 6);
  scn_array_free(out, nout);
  scn_function_free(f);
}

TEST(ApiC, NullAndBadArguments) {
  CHost h;
  ASSERT_EQ(scn_load_source(h.ctx, "fn add(a, b) = a + b", nullptr), SCN_OK);
  scn_function* f = h.fn("add");
  scn_array* out = nullptr;
  size_t nout = 0;
  float x[2] = {1, 2};
  int64_t s2[1] = {2};
  scn_array in[2] = {view(SCN_F32, 1, s2, x), view(SCN_F32, 1, s2, x)};

  // Nothing to report to: plain statuses.
  EXPECT_EQ(scn_context_new(nullptr, nullptr), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scn_load_source(nullptr, "let a = 1", "x"), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scn_load_file(nullptr, "x.scn"), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scn_function_get(nullptr, "add", &f), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scn_call(nullptr, in, 2, &out, &nout), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scn_function_arity(nullptr, nullptr), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scn_options_init(nullptr), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(scn_last_error(nullptr), "");
  EXPECT_EQ(scn_context_free(nullptr), SCN_OK);
  EXPECT_EQ(scn_function_free(nullptr), SCN_OK);
  EXPECT_EQ(scn_array_free(nullptr, 3), SCN_OK);
  EXPECT_TRUE(h.diags.empty());

  // With a context: an error status and an E0601 diagnostic each.
  struct Case {
    const char* what;
    scn_status status;
  };
  std::vector<Case> cases;
  cases.push_back({"null source", scn_load_source(h.ctx, nullptr, "x")});
  cases.push_back({"null path", scn_load_file(h.ctx, nullptr)});
  scn_function* g = nullptr;
  cases.push_back({"null name", scn_function_get(h.ctx, nullptr, &g)});
  cases.push_back({"null result", scn_function_get(h.ctx, "add", nullptr)});
  cases.push_back({"null inputs", scn_call(f, nullptr, 2, &out, &nout)});
  cases.push_back({"null outputs", scn_call(f, in, 2, nullptr, &nout)});
  cases.push_back({"null nout", scn_call(f, in, 2, &out, nullptr)});
  scn_array noShape[2] = {in[0], view(SCN_F32, 1, nullptr, x)};
  cases.push_back({"null shape", scn_call(f, noShape, 2, &out, &nout)});
  scn_array noData[2] = {in[0], view(SCN_F32, 1, s2, nullptr)};
  cases.push_back({"null data", scn_call(f, noData, 2, &out, &nout)});
  scn_array badType[2] = {in[0], in[1]};
  setRawDType(badType[1], 1000);
  cases.push_back({"bad dtype", scn_call(f, badType, 2, &out, &nout)});
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(cases[i].status, SCN_ERROR_INVALID_ARGUMENT) << cases[i].what;
    ASSERT_GT(h.diags.size(), i) << cases[i].what;
    EXPECT_EQ(h.diags[i].code, "E0601") << cases[i].what << ": " << h.diags[i].message;
  }
  EXPECT_EQ(h.diags.size(), cases.size());
  EXPECT_NE(std::string(scn_last_error(h.ctx)).find("error[E0601]"), std::string::npos);

  // The wrong number of arguments: E0220, located at the definition.
  size_t before = h.diags.size();
  EXPECT_EQ(scn_call(f, in, 1, &out, &nout), SCN_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(h.diags.size(), before + 1);
  EXPECT_EQ(h.diags.back().code, "E0220");
  EXPECT_EQ(h.diags.back().file, "<source>");
  EXPECT_EQ(h.diags.back().line, 1);
  // Unknown function.
  EXPECT_EQ(scn_function_get(h.ctx, "sub", &g), SCN_ERROR_NOT_FOUND);
  EXPECT_EQ(g, nullptr);
  EXPECT_EQ(h.diags.back().code, "E0602");
  // A bad backend: no context, a diagnostic through the callback.
  std::vector<Diag> diags;
  scn_options o;
  scn_options_init(&o);
  o.backend = "abacus";
  o.on_diagnostic = collect;
  o.diagnostic_user = &diags;
  scn_context* bad = reinterpret_cast<scn_context*>(0x1);
  EXPECT_EQ(scn_context_new(&o, &bad), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(bad, nullptr);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "E0421");
  scn_function_free(f);
}

TEST(ApiC, PrintCallbackAndFunctionOutlivesContext) {
  std::string printed;
  scn_options o;
  scn_options_init(&o);
  o.backend = "interp";
  o.on_print = [](const char* text, size_t len, void* user) {
    static_cast<std::string*>(user)->append(text, len);
  };
  o.print_user = &printed;
  scn_context* ctx = nullptr;
  ASSERT_EQ(scn_context_new(&o, &ctx), SCN_OK);
  ASSERT_EQ(scn_load_source(ctx, "print(6 * 7)\nfn inc(x) = x + 1u32", "p.scn"), SCN_OK);
  EXPECT_EQ(printed, "42\n");
  scn_function* f = nullptr;
  ASSERT_EQ(scn_function_get(ctx, "inc", &f), SCN_OK);
  ASSERT_EQ(scn_context_free(ctx), SCN_OK);
  uint32_t x[3] = {0, 41, 4294967295u};
  int64_t s3[1] = {3};
  scn_array in = view(SCN_U32, 1, s3, x);
  scn_array* out = nullptr;
  size_t nout = 0;
  ASSERT_EQ(scn_call(f, &in, 1, &out, &nout), SCN_OK);
  const auto* y = static_cast<const uint32_t*>(out[0].data);
  EXPECT_EQ(out[0].dtype, SCN_U32);
  EXPECT_EQ(y[0], 1u);
  EXPECT_EQ(y[1], 42u);
  EXPECT_EQ(y[2], 0u);  // unsigned wrap-around
  scn_array_free(out, nout);
  scn_function_free(f);
}

TEST(ApiC, TwoContextsInTwoThreads) {
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([t, &errors] {
      scn_context* ctx = nullptr;
      if (scn_context_new(nullptr, &ctx) != SCN_OK) {
        errors[t] = "context";
        return;
      }
      const char* src = t == 0 ? "fn g(x) = sum(x * x)" : "fn g(x) = max(x) - min(x)";
      scn_function* g = nullptr;
      if (scn_load_source(ctx, src, "g.scn") != SCN_OK || scn_function_get(ctx, "g", &g) != SCN_OK) {
        errors[t] = scn_last_error(ctx);
        scn_context_free(ctx);
        return;
      }
      for (int i = 0; i < 25 && errors[t].empty(); ++i) {
        std::vector<int64_t> x(static_cast<size_t>(4 + i % 3));
        for (size_t k = 0; k < x.size(); ++k) x[k] = (i * 7 + static_cast<int64_t>(k) * 13) % 11 - 5;
        int64_t shape[1] = {static_cast<int64_t>(x.size())};
        scn_array in = view(SCN_I64, 1, shape, x.data());
        scn_array* out = nullptr;
        size_t nout = 0;
        if (scn_call(g, &in, 1, &out, &nout) != SCN_OK) {
          errors[t] = scn_last_error(ctx);
          break;
        }
        int64_t want = 0, lo = x[0], hi = x[0];
        for (int64_t v : x) {
          want += v * v;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        if (t == 1) want = hi - lo;
        int64_t got = *static_cast<const int64_t*>(out[0].data);
        if (got != want) errors[t] = "call " + std::to_string(i) + ": " + std::to_string(got) + " != " + std::to_string(want);
        scn_array_free(out, nout);
      }
      scn_function_free(g);
      scn_context_free(ctx);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
}

TEST(ApiC, NamesAndStrings) {
  EXPECT_STREQ(scn_dtype_name(SCN_U64), "u64");
  EXPECT_EQ(scn_dtype_size(SCN_F32), 4u);
  EXPECT_STREQ(scn_status_string(SCN_ERROR_NOT_FOUND), "not found");
  EXPECT_STREQ(scn_status_string(SCN_ERROR_INTERRUPTED), "interrupted");
  EXPECT_STREQ(scn_version(), "0.1.0");
}

// Note [One thread per context], through the C API: a second thread is refused with
// SCN_ERROR_INVALID_ARGUMENT while a call runs (scn_last_error says why), scn_interrupt still
// works, scn_context_free refuses a context in use, and the context goes on afterwards.
TEST(ApiC, ASecondThreadIsRefusedWhileACallRuns) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  std::atomic<bool> inside{false};
  std::vector<Diag> diags;  // touched by the worker only, until it is joined
  scn_options o;
  ASSERT_EQ(scn_options_init(&o), SCN_OK);
  o.backend = "cpu";
  o.on_diagnostic = collect;
  o.diagnostic_user = &diags;
  o.on_print = [](const char*, size_t, void* user) { static_cast<std::atomic<bool>*>(user)->store(true); };
  o.print_user = &inside;
  scn_context* ctx = nullptr;
  ASSERT_EQ(scn_context_new(&o, &ctx), SCN_OK);
  ASSERT_EQ(scn_load_source(ctx,
                            "fn spin(x) { print(\"spinning\"); while_loop(|c| c == c, |c| c + 1.0, x) }\n"
                            "fn twice(x) = x * 2.0",
                            "spin.scn"),
            SCN_OK);
  scn_function *spin = nullptr, *twice = nullptr;
  ASSERT_EQ(scn_function_get(ctx, "spin", &spin), SCN_OK);
  ASSERT_EQ(scn_function_get(ctx, "twice", &twice), SCN_OK);
  float x = 0, three = 3;
  scn_array spinIn[1] = {view(SCN_F32, 0, nullptr, &x)}, twiceIn[1] = {view(SCN_F32, 0, nullptr, &three)};
  std::atomic<bool> done{false};
  scn_status got = SCN_OK;
  std::thread worker([&] {
    scn_array* out = nullptr;
    size_t nout = 0;
    got = scn_call(spin, spinIn, 1, &out, &nout);
    scn_array_free(out, nout);
    done = true;
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!inside && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(inside.load());
  const std::string inUse = "scn: error[E0601]: the context is in use by another thread";
  scn_array* out = nullptr;
  size_t nout = 0;
  EXPECT_EQ(scn_call(twice, twiceIn, 1, &out, &nout), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(scn_last_error(ctx), inUse);
  EXPECT_EQ(scn_call(twice, twiceIn, 1, nullptr, &nout), SCN_ERROR_INVALID_ARGUMENT);  // an argument error too
  EXPECT_EQ(scn_load_source(ctx, "let y = 1", "y.scn"), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(scn_load_file(ctx, "/nonexistent.scn"), SCN_ERROR_INVALID_ARGUMENT);
  scn_function* looked = nullptr;
  EXPECT_EQ(scn_function_get(ctx, "twice", &looked), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(looked, nullptr);
  const scn_call_stats* stats = nullptr;
  size_t count = 1;
  EXPECT_EQ(scn_last_stats(ctx, &stats, &count), SCN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(scn_context_free(ctx), SCN_ERROR_INVALID_ARGUMENT);  // not freed under the call
  EXPECT_FALSE(done.load());
  while (!done && std::chrono::steady_clock::now() < deadline) {
    EXPECT_EQ(scn_interrupt(ctx), SCN_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!done) {
    std::fprintf(stderr, "FAIL: the spinning call did not stop after two minutes of interrupts\n");
    std::_Exit(1);
  }
  worker.join();
  EXPECT_EQ(got, SCN_ERROR_INTERRUPTED);
  ASSERT_EQ(diags.size(), 1u);  // the refused calls reported nothing to the running call's callback
  EXPECT_EQ(diags[0].code, "E0507");
  ASSERT_EQ(scn_call(twice, twiceIn, 1, &out, &nout), SCN_OK) << scn_last_error(ctx);
  ASSERT_EQ(nout, 1u);
  EXPECT_FLOAT_EQ(*static_cast<const float*>(out[0].data), 6.0f);
  scn_array_free(out, nout);
  EXPECT_EQ(scn_last_stats(ctx, &stats, &count), SCN_OK);
  scn_function_free(spin);
  scn_function_free(twice);
  EXPECT_EQ(scn_context_free(ctx), SCN_OK);
}

TEST(ApiC, CacheDirAndInterrupt) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("scn_api_c_cache_" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::string dirText = dir.string();
  std::vector<Diag> diags;
  scn_options o;
  ASSERT_EQ(scn_options_init(&o), SCN_OK);
  EXPECT_EQ(o.cache_dir, nullptr);  // no cache unless the host asks
  o.backend = "cpu";
  o.cache_dir = dirText.c_str();
  o.on_diagnostic = collect;
  o.diagnostic_user = &diags;
  scn_context* ctx = nullptr;
  ASSERT_EQ(scn_context_new(&o, &ctx), SCN_OK);
  EXPECT_EQ(scn_interrupt(nullptr), SCN_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(scn_load_source(ctx, "fn spin(x) = while_loop(|c| c == c, |c| c + 1.0, x)", "spin.scn"), SCN_OK);
  scn_function* f = nullptr;
  ASSERT_EQ(scn_function_get(ctx, "spin", &f), SCN_OK);
  float x = 0;
  scn_array in[1] = {view(SCN_F32, 0, nullptr, &x)};
  std::atomic<bool> done{false};
  scn_status got = SCN_OK;
  std::thread worker([&] {
    scn_array* out = nullptr;
    size_t nout = 0;
    got = scn_call(f, in, 1, &out, &nout);
    scn_array_free(out, nout);
    done = true;
  });
  // Requests before the call starts are dropped, so keep asking until it returns.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!done) {
    EXPECT_EQ(scn_interrupt(ctx), SCN_OK);
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "FAIL: scn_interrupt did not stop the compiled loop in two minutes\n");
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  worker.join();
  EXPECT_EQ(got, SCN_ERROR_INTERRUPTED);
  EXPECT_NE(std::string(scn_last_error(ctx)).find("error[E0507]: interrupted"), std::string::npos)
      << scn_last_error(ctx);
  ASSERT_FALSE(diags.empty());
  EXPECT_EQ(diags.back().code, "E0507");
  scn_function_free(f);
  // A second context with the same directory: the call's stats show the object came from disk.
  scn_context* again = nullptr;
  ASSERT_EQ(scn_context_new(&o, &again), SCN_OK);
  ASSERT_EQ(scn_load_source(again, "fn twice(x) = x * 2.0 - 1.0", "twice.scn"), SCN_OK);
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {  // a new context: nothing in memory
      scn_context_free(again);
      ASSERT_EQ(scn_context_new(&o, &again), SCN_OK);
      ASSERT_EQ(scn_load_source(again, "fn twice(x) = x * 2.0 - 1.0", "twice.scn"), SCN_OK);
    }
    scn_function* t = nullptr;
    ASSERT_EQ(scn_function_get(again, "twice", &t), SCN_OK);
    float four = 4;
    scn_array tin[1] = {view(SCN_F32, 0, nullptr, &four)};
    scn_array* out = nullptr;
    size_t nout = 0;
    ASSERT_EQ(scn_call(t, tin, 1, &out, &nout), SCN_OK) << scn_last_error(again);
    EXPECT_FLOAT_EQ(*static_cast<const float*>(out[0].data), 7.0f);
    scn_array_free(out, nout);
    const scn_call_stats* st = nullptr;
    size_t n = 99;
    ASSERT_EQ(scn_last_stats(again, &st, &n), SCN_OK);
    ASSERT_EQ(n, 1u);
    EXPECT_STREQ(st[0].function, "twice");
    EXPECT_STREQ(st[0].backend, "cpu");
    EXPECT_EQ(st[0].compiled, 1);
    EXPECT_EQ(st[0].cache_hit, round == 1) << round;
    EXPECT_EQ(st[0].host_peak_bytes, sizeof(float));  // the result
    EXPECT_EQ(st[0].device_peak_bytes, 0u);
    scn_function_free(t);
  }
  EXPECT_EQ(scn_last_stats(again, nullptr, nullptr), SCN_ERROR_INVALID_ARGUMENT);
  scn_context_free(again);
  scn_context_free(ctx);
  // The compiled loop's object went to the directory the host named.
  int objects = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / "cpu", ec)) objects += e.path().extension() == ".o";
  EXPECT_GE(objects, 1);
  fs::remove_all(dir);
}

}  // namespace

// Shapes whose byte size does not fit in 64 bits (a fuzz_capi finding: the byte strides of an
// empty array with a huge dimension overflowed). Empty arrays are fine whatever their other
// dimensions; a non-empty one that no address space can hold is E0402.
TEST(ApiC, ReusableMemory) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  // A 16 MiB result, freed: kept for the next call of the same size, then given back.
  CHost h("cpu");
  ASSERT_EQ(scn_load_source(h.ctx, "fn big(a) = a * 2.0", nullptr), SCN_OK);
  scn_function* f = h.fn("big");
  std::vector<float> x(size_t(1) << 22, 1.5f);
  int64_t shape[1] = {int64_t(1) << 22};
  scn_array in = view(SCN_F32, 1, shape, x.data());
  scn_array* out = nullptr;
  size_t nout = 0;
  size_t before = scn_reusable_memory_bytes();
  ASSERT_EQ(scn_call(f, &in, 1, &out, &nout), SCN_OK) << scn_last_error(h.ctx);
  EXPECT_EQ(static_cast<const float*>(out[0].data)[12345], 3.0f);
  scn_array_free(out, nout);
  EXPECT_GE(scn_reusable_memory_bytes(), before + (size_t(16) << 20));
  scn_set_reusable_memory_limit(0);
  EXPECT_EQ(scn_reusable_memory_bytes(), 0u);
  ASSERT_EQ(scn_call(f, &in, 1, &out, &nout), SCN_OK) << scn_last_error(h.ctx);
  scn_array_free(out, nout);
  EXPECT_EQ(scn_reusable_memory_bytes(), 0u) << "nothing is kept with the limit at 0";
  scn_set_reusable_memory_limit(size_t(256) << 20);
  scn_function_free(f);
}

TEST(ApiC, HugeShapes) {
  CHost h;
  ASSERT_EQ(scn_load_source(h.ctx, "fn total(a) = sum(a)", nullptr), SCN_OK);
  scn_function* f = h.fn("total");
  scn_array* out = nullptr;
  size_t nout = 0;

  int64_t emptyHuge[2] = {0, INT64_MAX};
  scn_array empty = view(SCN_F64, 2, emptyHuge, nullptr);
  ASSERT_EQ(scn_call(f, &empty, 1, &out, &nout), SCN_OK) << scn_last_error(h.ctx);
  ASSERT_EQ(nout, 1u);
  EXPECT_EQ(out[0].rank, 0u);
  EXPECT_EQ(*static_cast<const double*>(out[0].data), 0.0);
  scn_array_free(out, nout);

  double x = 1;
  int64_t tooManyBytes[1] = {INT64_MAX / 4};
  scn_array huge = view(SCN_F64, 1, tooManyBytes, &x);
  EXPECT_NE(scn_call(f, &huge, 1, &out, &nout), SCN_OK);
  ASSERT_FALSE(h.diags.empty());
  EXPECT_EQ(h.diags.back().code, "E0402") << h.diags.back().message;
  scn_function_free(f);
}

// A syntax error in an imported file reaches the host as a record pointing into that file, with
// a note at the import, and the context goes on; a directory is an error naming it. This used
// to crash the host (the record pointed into freed text) and to load a directory as an empty
// program.
TEST(ApiC, BrokenImportsAndDirectories) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("scn_capi_imports_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  { std::FILE* f = std::fopen((dir / "typo.scn").c_str(), "w"); std::fputs("let t = 1\nlet u = (t + )\n", f); std::fclose(f); }
  CHost h;
  std::string program = "import \"" + (dir / "typo.scn").string() + "\"\n";
  EXPECT_EQ(scn_load_source(h.ctx, program.c_str(), "main.scn"), SCN_ERROR_PROGRAM);
  ASSERT_EQ(h.diags.size(), 1u);
  EXPECT_EQ(h.diags[0].code, "E0010");
  EXPECT_EQ(h.diags[0].file, (dir / "typo.scn").string());
  EXPECT_EQ(h.diags[0].line, 2);
  EXPECT_EQ(h.diags[0].column, 14);
  EXPECT_EQ(h.diags[0].notes, 1u);
  EXPECT_NE(h.diags[0].rendered.find("main.scn:1:1: note: in the file imported here"), std::string::npos)
      << h.diags[0].rendered;
  EXPECT_EQ(scn_load_source(h.ctx, "fn ok() = 1", "ok.scn"), SCN_OK);
  h.diags.clear();
  EXPECT_EQ(scn_load_file(h.ctx, (dir / "sub").c_str()), SCN_ERROR_PROGRAM);
  ASSERT_EQ(h.diags.size(), 1u);
  EXPECT_EQ(h.diags[0].code, "E0502");
  EXPECT_EQ(h.diags[0].message, "cannot read \"" + (dir / "sub").string() + "\": it is a directory, not a source file");
  fs::remove_all(dir);
}

#ifdef __GLIBC__
// Note [Source lifetime]: a context keeps a loaded program only while a function it defined
// lives. Loading a ~100 KB program again and again (each load redefines the same functions), or
// failing to load one, does not grow the context: it used to keep every program's text and AST
// (+90 KB a load).
TEST(ApiC, LoadedProgramsAreNotKeptForever) {
  std::string program;
  for (int i = 0; program.size() < 100000; ++i)
    program += "fn keep_" + std::to_string(i) + "(x) = x * " + std::to_string(i) + " + 1\n";
  std::string broken = program + "let oops = (1 + )\n";
  CHost h("interp");
  auto heapBytes = [] {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;  // small blocks and mmapped ones
  };
  ASSERT_EQ(scn_load_source(h.ctx, program.c_str(), "big.scn"), SCN_OK);
  EXPECT_EQ(scn_load_source(h.ctx, broken.c_str(), "broken.scn"), SCN_ERROR_PROGRAM);
  size_t before = heapBytes();
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(scn_load_source(h.ctx, program.c_str(), "big.scn"), SCN_OK);
    ASSERT_EQ(scn_load_source(h.ctx, broken.c_str(), "broken.scn"), SCN_ERROR_PROGRAM);
  }
  size_t after = heapBytes();
  EXPECT_LT(after, before + (size_t{2} << 20)) << "the context grew by " << (after - before) << " bytes";
  scn_function* f = h.fn("keep_3");  // the definitions of the last good load are all there
  scn_function_free(f);
}
#endif
