// Fuzz target: the C embedding API (include/scn/scn.h) driven with good and bad arguments.
//
// The bytes choose a sequence of calls: contexts with odd options, loading programs (fixed
// ones and fuzzer text), looking up functions (defined, builtin, missing, null names), calling
// them with arrays of any dtype value, rank, shape (negative, zero, overflowing), null or
// misaligned data and strided layouts, and passing results back in. Findings: any crash or
// sanitizer report; SCN_ERROR_INTERNAL; a failed call on a live context whose diagnostic went
// nowhere (no callback and an empty scn_last_error).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz_util.hpp"
#include "scn/scn.h"

namespace {

const char* kProgram = R"(
fn add(a, b) = a + b
fn total(x) = sum(x)
fn mm(a, b) = a @ b
fn first(x) = x[0]
fn pair(a) = (a, a * 2)
fn nothing(a) = None
fn scaled(static n, x) = x * n
fn running(x) = scan(|c, r| (c + r, c), x[0] * 0, x)
fn positive(x) { assert(all(x > 0), "not positive"); x }
fn rows(x) = vmap(|r| sum(r))(x)
let g = 1.0
)";

const char* kNames[] = {"add", "total", "mm", "first", "pair", "nothing", "scaled", "running", "positive",
                        "rows", "g", "sum", "vmap", "zeros", "", "missing", "f32", "print", "add "};

struct Counter {
  int diagnostics = 0;
};

void onDiagnostic(const scn_diagnostic* d, void* user) {
  // Touch every field: they must all be valid strings during the callback.
  size_t n = std::strlen(d->code) + std::strlen(d->message) + std::strlen(d->file) + std::strlen(d->help) +
             std::strlen(d->rendered);
  for (size_t i = 0; i < d->num_notes; ++i) n += std::strlen(d->notes[i].message) + std::strlen(d->notes[i].file);
  (void)n;
  if (std::strcmp(d->code, "E9999") == 0) scn::fuzz::finding(std::string("internal error diagnostic:\n") + d->rendered);
  static_cast<Counter*>(user)->diagnostics++;
}

void onPrint(const char* text, size_t len, void*) { (void)text; (void)len; }

/// Storage for generated input arrays; kept alive across the call.
struct Inputs {
  std::vector<scn_array> arrays;
  std::vector<std::vector<int64_t>> shapes, strides;
  std::vector<std::vector<unsigned char>> buffers;
};

/// SCN_FUZZ_PRINT=1: each call's inputs (dtype, shape, byte strides) on stderr, to read a
/// reproducer.
void printCall(const scn_function* f, const scn_array* inputs, size_t n) {
  std::fprintf(stderr, "call %p:", static_cast<const void*>(f));
  for (size_t i = 0; i < n; ++i) {
    const scn_array& a = inputs[i];
    std::fprintf(stderr, " dtype=%d shape=(", static_cast<int>(a.dtype));
    for (size_t d = 0; a.shape && d < a.rank; ++d) std::fprintf(stderr, "%lld,", static_cast<long long>(a.shape[d]));
    std::fprintf(stderr, ") strides=(");
    for (size_t d = 0; a.strides && d < a.rank; ++d) std::fprintf(stderr, "%lld,", static_cast<long long>(a.strides[d]));
    std::fprintf(stderr, ")");
  }
  std::fprintf(stderr, "\n");
}

int64_t pickDim(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0: return -1;
    case 1: return 0;
    case 2: return int64_t{1} << 40;
    case 3: return std::numeric_limits<int64_t>::max();
    case 4: return int64_t{1} << 32;
    default: return in.ConsumeIntegralInRange<int64_t>(1, 5);
  }
}

size_t elemSize(int dtype) { return dtype >= 0 && dtype <= SCN_F64 ? scn_dtype_size(static_cast<scn_dtype>(dtype)) : 0; }

void makeArray(FuzzedDataProvider& in, Inputs& io, size_t slot) {
  scn_array a{};
  // Out-of-range dtype values are legal C but undefined when the C++ side loads them as the
  // enum (finding 2 in docs/hardening.md): only with SCN_FUZZ_BAD_ENUMS=1.
  static const bool badEnums = scn::fuzz::envFlag("SCN_FUZZ_BAD_ENUMS");
  int dtype = !badEnums || in.ConsumeIntegralInRange<int>(0, 99) < 90 ? in.ConsumeIntegralInRange<int>(0, 6)
                                                                      : in.ConsumeIntegralInRange<int>(-2, 40);
  a.dtype = static_cast<scn_dtype>(dtype);
  a.rank = in.ConsumeIntegralInRange<size_t>(0, 4);
  std::vector<int64_t>& shape = io.shapes[slot];
  shape.clear();
  bool negative = false, overflow = false;
  __int128 count = 1;
  for (size_t i = 0; i < a.rank; ++i) {
    int64_t d = in.ConsumeIntegralInRange<int>(0, 99) < 85 ? in.ConsumeIntegralInRange<int64_t>(0, 4) : pickDim(in);
    shape.push_back(d);
    if (d < 0) negative = true;
    else if (!overflow) count *= d;
    if (count > (__int128{1} << 62)) overflow = true;
  }
  a.shape = (a.rank > 0 && in.ConsumeIntegralInRange<int>(0, 99) < 5) ? nullptr : shape.data();
  size_t es = elemSize(dtype);
  std::vector<unsigned char>& buf = io.buffers[slot];
  buf.clear();
  a.data = nullptr;
  a.strides = nullptr;
  if (negative || overflow || es == 0 || !a.shape) {
    // The library must reject this before reading: give it a few bytes only.
    buf.assign(16, 0);
    a.data = buf.data();
  } else if (count <= 4096) {
    size_t n = static_cast<size_t>(count);
    size_t extent = n * es;
    std::vector<int64_t>& st = io.strides[slot];
    st.clear();
    bool smallDims = std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d <= 64; });
    if (a.rank > 0 && smallDims && in.ConsumeIntegralInRange<int>(0, 99) < 25) {
      // Strided: contiguous strides times a factor, some zero (broadcast), maybe not a multiple
      // of the element size; the buffer covers the furthest element.
      int64_t s = static_cast<int64_t>(es) * in.ConsumeIntegralInRange<int64_t>(1, 3);
      size_t furthest = 0;
      st.resize(a.rank);
      for (size_t i = a.rank; i-- > 0;) {
        int kind = in.ConsumeIntegralInRange<int>(0, 9);
        st[i] = kind == 0 ? 0 : kind == 1 ? s + 1 : s;
        if (shape[i] > 0) furthest += static_cast<size_t>(shape[i] - 1) * static_cast<size_t>(st[i]);
        s *= std::max<int64_t>(shape[i], 1);
      }
      extent = n == 0 ? 0 : furthest + es;
      a.strides = st.data();
    }
    bool misaligned = in.ConsumeIntegralInRange<int>(0, 99) < 15;
    buf.resize(extent + 8);
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = in.ConsumeIntegral<unsigned char>();
    if (dtype == SCN_BOOL)
      for (unsigned char& b : buf) b &= 1;
    a.data = buf.data() + (misaligned ? 1 : 0);
    if (in.ConsumeIntegralInRange<int>(0, 99) < 5) a.data = nullptr;
  }
  // else: a valid but huge shape; no host could pass that much data, so pass none.
  io.arrays[slot] = a;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return -1;
  FuzzedDataProvider in(data, size);
  Counter counter;
  scn_options opts;
  if (in.ConsumeBool()) (void)scn_options_init(nullptr);
  scn_options_init(&opts);
  static const char* backends[] = {"interp", "interp", "interp", "cpu", nullptr, "bogus", "cuda", ""};
  opts.backend = backends[in.ConsumeIntegralInRange<int>(0, 7)];
  static const int levels[] = {2, 0, 3, -7, 99};
  opts.opt_level = levels[in.ConsumeIntegralInRange<int>(0, 4)];
  opts.on_diagnostic = in.ConsumeIntegralInRange<int>(0, 9) ? onDiagnostic : nullptr;
  opts.diagnostic_user = &counter;
  opts.on_print = in.ConsumeBool() ? onPrint : nullptr;
  if (in.ConsumeIntegralInRange<int>(0, 20) == 0) (void)scn_context_new(&opts, nullptr);
  scn_context* ctx = nullptr;
  scn_status st = scn_context_new(in.ConsumeIntegralInRange<int>(0, 20) == 0 ? nullptr : &opts, &ctx);
  if (st == SCN_ERROR_INTERNAL) scn::fuzz::finding("scn_context_new: internal error");
  if (st != SCN_OK && ctx) scn::fuzz::finding("scn_context_new failed but set *out");
  if (st == SCN_OK && !ctx) scn::fuzz::finding("scn_context_new succeeded with a null context");
  bool ctxAlive = ctx != nullptr;
  if (ctx && in.ConsumeIntegralInRange<int>(0, 9) > 0) {
    // The fixed program is valid: it loads on every backend a context accepted.
    scn_status s = scn_load_source(ctx, kProgram, "api.scn");
    if (s != SCN_OK) scn::fuzz::finding(std::string("the fixed program did not load: ") + scn_last_error(ctx));
  }

  std::vector<scn_function*> fns;
  std::vector<std::pair<scn_array*, size_t>> results;
  Inputs io;
  io.arrays.resize(5);
  io.shapes.resize(5);
  io.strides.resize(5);
  io.buffers.resize(5);

  // A status check: an error on a live context must have been reported somewhere.
  auto checkReported = [&](scn_status s, const char* what, int before, bool onCtx) {
    if (s == SCN_ERROR_INTERNAL) scn::fuzz::finding(std::string(what) + ": SCN_ERROR_INTERNAL: " + (ctxAlive ? scn_last_error(ctx) : ""));
    if (s == SCN_OK || !ctxAlive || !onCtx) return;
    bool viaCallback = counter.diagnostics > before;
    bool viaLast = *scn_last_error(ctx) != '\0';
    if (!viaCallback && !viaLast && opts.on_diagnostic)
      scn::fuzz::finding(std::string(what) + " failed with status " + scn_status_string(s) + " but reported no diagnostic");
  };

  int steps = in.ConsumeIntegralInRange<int>(1, 12);
  for (int step = 0; step < steps && in.remaining_bytes() > 0; ++step) {
    int before = counter.diagnostics;
    switch (in.ConsumeIntegralInRange<int>(0, 9)) {
      case 0: case 1: {  // look up a function
        const char* name = in.ConsumeIntegralInRange<int>(0, 30) == 0 ? nullptr : kNames[in.ConsumeIntegralInRange<int>(0, 18)];
        scn_function* f = nullptr;
        bool nullOut = in.ConsumeIntegralInRange<int>(0, 30) == 0;
        scn_context* target = ctxAlive && in.ConsumeIntegralInRange<int>(0, 30) ? ctx : nullptr;
        scn_status s = scn_function_get(target, name, nullOut ? nullptr : &f);
        checkReported(s, "scn_function_get", before, target != nullptr);
        if (s == SCN_OK && !nullOut) {
          if (!f) scn::fuzz::finding("scn_function_get succeeded with a null function");
          fns.push_back(f);
          if (scn::fuzz::envFlag("SCN_FUZZ_PRINT")) std::fprintf(stderr, "get %s: %p\n", name, static_cast<void*>(f));
        }
        break;
      }
      case 2: case 3: case 4: {  // call a function
        scn_function* f = fns.empty() || in.ConsumeIntegralInRange<int>(0, 30) == 0 ? nullptr : fns[in.ConsumeIntegralInRange<size_t>(0, fns.size() - 1)];
        size_t n = in.ConsumeIntegralInRange<size_t>(0, 4);
        for (size_t i = 0; i < n; ++i) {
          if (!results.empty() && in.ConsumeIntegralInRange<int>(0, 3) == 0) {
            auto& r = results[in.ConsumeIntegralInRange<size_t>(0, results.size() - 1)];
            if (r.second > 0) {
              io.arrays[i] = r.first[in.ConsumeIntegralInRange<size_t>(0, r.second - 1)];
              continue;
            }
          }
          makeArray(in, io, i);
        }
        const scn_array* inputs = (n > 0 && in.ConsumeIntegralInRange<int>(0, 30) == 0) ? nullptr : io.arrays.data();
        scn_array* outs = reinterpret_cast<scn_array*>(uintptr_t{0x1});  // must be overwritten
        size_t nout = 12345;
        int nullKind = in.ConsumeIntegralInRange<int>(0, 40);
        static const bool print = scn::fuzz::envFlag("SCN_FUZZ_PRINT");
        if (print && inputs) printCall(f, inputs, n);
        static scn::fuzz::Watchdog watchdog;
        if (ctxAlive) watchdog.begin([ctx] { scn_interrupt(ctx); });  // a freed context's function has none
        scn_status s = scn_call(f, inputs, n, nullKind == 0 ? nullptr : &outs, nullKind == 1 ? nullptr : &nout);
        watchdog.end();
        checkReported(s, "scn_call", before, f != nullptr);
        if (s == SCN_OK && nullKind > 1) {
          if (nout > 0 && !outs) scn::fuzz::finding("scn_call returned results in a null array");
          for (size_t i = 0; i < nout; ++i) {
            const scn_array& o = outs[i];
            size_t count = 1;
            for (size_t d = 0; d < o.rank; ++d) count *= static_cast<size_t>(o.shape[d]);
            volatile unsigned char sink = 0;
            const unsigned char* p = static_cast<const unsigned char*>(o.data);
            for (size_t b = 0; b < count * scn_dtype_size(o.dtype); ++b) sink = sink + p[b];  // readable
          }
          results.push_back({outs, nout});
        } else if (s != SCN_OK && nullKind > 1 && (outs != nullptr || nout != 0) && f) {
          scn::fuzz::finding("scn_call failed but left *outputs / *nout unset");
        }
        break;
      }
      case 5: {  // load fuzzer text
        std::string text = in.ConsumeRandomLengthString(256);
        if (text.find("import") != std::string::npos || text.find("while_loop") != std::string::npos) break;
        scn_context* target = ctxAlive && in.ConsumeIntegralInRange<int>(0, 20) ? ctx : nullptr;
        scn_status s = scn_load_source(target, in.ConsumeIntegralInRange<int>(0, 20) == 0 ? nullptr : text.c_str(),
                                       in.ConsumeBool() ? nullptr : "fuzz.scn");
        checkReported(s, "scn_load_source", before, target != nullptr);
        break;
      }
      case 6: {  // arity and the pure helpers
        int arity = 0;
        scn_function* f = fns.empty() ? nullptr : fns[in.ConsumeIntegralInRange<size_t>(0, fns.size() - 1)];
        (void)scn_function_arity(f, in.ConsumeBool() ? &arity : nullptr);
        static const bool badEnums = scn::fuzz::envFlag("SCN_FUZZ_BAD_ENUMS");
        int v = badEnums ? in.ConsumeIntegralInRange<int>(-3, 12) : in.ConsumeIntegralInRange<int>(0, 5);
        if (!scn_status_string(static_cast<scn_status>(v)) || !scn_dtype_name(static_cast<scn_dtype>(v)))
          scn::fuzz::finding("a string helper returned NULL");
        (void)scn_dtype_size(static_cast<scn_dtype>(v));
        (void)scn_last_error(nullptr);
        (void)scn_version();
        break;
      }
      case 7: {  // load a file (paths that exist, do not, are directories or empty)
        static const char* paths[] = {nullptr, "", "/nonexistent/x.scn", "/tmp", "/dev/null", "/proc/self/status"};
        if (!ctxAlive) break;
        scn_status s = scn_load_file(ctx, paths[in.ConsumeIntegralInRange<int>(0, 5)]);
        checkReported(s, "scn_load_file", before, true);
        break;
      }
      case 8: {  // free a function or a result early
        if (!fns.empty() && in.ConsumeBool()) {
          size_t i = in.ConsumeIntegralInRange<size_t>(0, fns.size() - 1);
          scn_function_free(fns[i]);
          fns.erase(fns.begin() + static_cast<long>(i));
        } else if (!results.empty()) {
          scn_array_free(results.back().first, results.back().second);
          results.pop_back();
        }
        break;
      }
      default:  // free the context; functions and results must stay usable
        if (ctxAlive && in.ConsumeIntegralInRange<int>(0, 3) == 0) {
          scn_context_free(ctx);
          ctx = nullptr;
          ctxAlive = false;
        }
        break;
    }
  }
  for (auto& r : results) scn_array_free(r.first, r.second);
  for (scn_function* f : fns) scn_function_free(f);
  scn_context_free(ctx);
  (void)scn_array_free(nullptr, 3);
  (void)scn_function_free(nullptr);
  return 0;
}
