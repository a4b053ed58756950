// scn's side of the benchmark suite: the seed workloads W1-W3 and the loop-overhead probe timed
// through the Session API, the seed programs on the interpreter and hand-written loops, and the
// reference probes. One JSON record a line; bench/report.py prints the table.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/harness.hpp"
#include "jit/cpu/gemm.hpp"
#include "jit/cpu/gemm_bf16.hpp"
#include "jit/cpu/host_blocks.hpp"
#include "driver/session.hpp"

using namespace scn;
using namespace scn::bench;

namespace {

struct Options {
  bool quick = false;
  int64_t cap = 100000000;  // W2 cells above this many elements are skipped
  int runs = 5;
  std::string only = "P,W1,W2,W3,A,M,G,L,S,X,K,D";
  std::string sourceDir = SCN_SOURCE_DIR;
  size_t recycleLimit = cpu::kDefaultRecycleLimit;  // --recycle-limit: bytes of recycled blocks kept
  bool want(const char* part) const {
    std::string s = "," + only + ",";
    return s.find("," + std::string(part) + ",") != std::string::npos;
  }
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "scn_bench: %s\n", msg.c_str());
  std::exit(1);
}

/// A session with the seed programs (examples/seeds/*.scn) and the bench's own definitions.
std::unique_ptr<Session> openSession(const Options& o, const std::string& backend) {
  SessionOptions so;
  so.backend = backend;
  so.optLevel = 2;
  so.onDiagnostic = [](const Diagnostic& d) { std::fprintf(stderr, "%s\n", render(d).c_str()); };
  auto s = std::make_unique<Session>(so);
  for (const char* seed : {"w1_matmul_loop.scn", "w2_scan_vmap.scn", "w3_geometric.scn"})
    if (!s->runFile(o.sourceDir + "/examples/seeds/" + seed)) die(std::string("seed ") + seed + " failed");
  // The loop-overhead probe: a scalar carry, nothing else per iteration.
  if (!s->run("<bench>", "fn scalar_scan(x0, static n) = scan(|c, _| (c * 1.0000001 + 1e-7, None), "
                         "x0, None, length=n).0"))
    die("bench definitions failed");
  // associative_scan with user combiners (Note [Associative scans]): a running log-sum-exp,
  // "the last nonzero value" (cheap, not commutative) and the linear recurrence h = a * h + b
  // (two operands). bench/jax_bench.py has the same three.
  if (!s->run("<bench>",
              "fn running_lse(x) = associative_scan(|a, b| maximum(a, b) + log1p(exp(-abs(a - b))), x)\n"
              "fn last_nonzero(x) = associative_scan(|a, b| where(b != 0.0, b, a), x)\n"
              "fn linear_recurrence(a, b) = associative_scan(|p, q| (p.0 * q.0, q.0 * p.1 + q.1), (a, b)).1"))
    die("bench definitions failed");
  // Elementwise maps of jnp's math (issue 17): one fused kernel each; jax_bench.py has the same.
  if (!s->run("<bench>", "fn erf_map(x) = erf(x)\nfn arctan2_map(y, x) = arctan2(y, x)"))
    die("bench definitions failed");
  // Sorting (issue 16): sort and argsort of one long f32 row; bench/jax_bench.py has the same.
  if (!s->run("<bench>", "fn sort_f32(x) = sort(x)\nfn argsort_f32(x) = argsort(x)"))
    die("bench definitions failed");
  // Contractions and linalg (issue 17): an attention block written with einsum, a layer norm
  // with keepdims, and a batched Cholesky factorisation and solves in f64; bench/jax_bench.py has
  // the same (group K).
  if (!s->run("<bench>", "fn bench_attention(q, k, v) = einsum(\"bqk,bkd->bqd\", softmax(einsum(\"bqd,bkd->bqk\", q, k) * 0.125), v)\n"
                         "fn bench_layer_norm(x) = (x - mean(x, axis=-1, keepdims=true)) / sqrt(var(x, axis=-1, keepdims=true) + 1e-5)\n"
                         "fn bench_cholesky(a) = cholesky(a)\n"
                         "fn bench_solve(a, b) = solve(a, b)\n"
                         "fn bench_cho_solve(a, b) = { let l = cholesky(a); "
                         "triangular_solve(l, triangular_solve(l, b, lower=true), lower=true, trans=1) }\n"
                         "fn bench_rfft(x) = fft.rfft(x)\n"
                         "fn bench_fft_rows(z) = fft.fft(z)\n"
                         "fn bench_conv(x, w) = lax.conv_general_dilated(x, w, (1, 1), \"SAME\", dimension_numbers=(\"NHWC\", \"HWIO\", \"NHWC\"))\n"
                         "fn bench_conv_grad(x, w) = grad(|a, b| sum(bench_conv(a, b) ** 2), argnums=(0, 1))(x, w)"))
    die("bench definitions failed");
  return s;
}

/// The value of a global, after `let name = expr` when expr is given.
Value global(Session& s, const std::string& name, const std::string& expr = "") {
  if (!expr.empty() && !s.run("<bench>", "let " + name + " = " + expr)) die("cannot evaluate " + expr);
  const Value* v = s.evaluator().globals()->lookup(name);
  if (!v) die("no global " + name);
  return *v;
}

Value callFn(Session& s, const Value& fn, const std::vector<Value>& args) {
  CallArgs ca;
  ca.pos = args;
  ca.posSpans.assign(args.size(), Span{});
  try {
    return s.evaluator().call(fn, ca);
  } catch (const UserError& e) {
    die(render(e.diag));
  }
}

/// One timed variant: its record (compile figures filled in) and how to call it once.
struct Variant {
  Record r;
  std::function<void()> call;
  bool peak = false;  // also sample the resident increment of one call
  bool peakWithoutRecycling = false;  // ... with no recycled blocks kept (all it allocates counts)
};

/// Compiles fn for args (the first call) and records the compile figures of that call.
Variant prepare(Session& s, const std::string& fnName, const std::vector<Value>& args, Record r,
                bool peak = false) {
  Value fn = global(s, fnName);
  s.records().clear();
  callFn(s, fn, args);
  for (const CallRecord& c : s.records())
    if (c.traced) {
      r.compileMs = c.traceMs + c.optimiseMs + c.codegenMs;
      r.kernels = c.kernels;
      break;
    }
  if (!s.records().empty()) {
    r.planBytes = static_cast<double>(s.records().back().peakBytes);
    r.copiedBytes = static_cast<double>(s.records().back().copiedBytes);
  }
  s.records().clear();
  Session* sp = &s;
  return Variant{r, [sp, fn, args] {
                   callFn(*sp, fn, args);
                   sp->records().clear();
                 },
                 peak};
}

/// v with its large blocks fresh from the system rather than recycled (Note [Recycled blocks]):
/// what each call would pay without the recycler. The result is dropped after recycling is back
/// on, so the next variant finds a recycled block as usual.
Variant withFreshBlocks(Session& s, const Options& o, const std::string& fnName, const std::vector<Value>& args,
                        Variant v) {
  v.r.variant += " fresh blocks";
  Value fn = global(s, fnName);
  Session* sp = &s;
  size_t limit = o.recycleLimit;
  v.call = [sp, fn, args, limit] {
    cpu::setRecycleLimit(0);
    Value result = callFn(*sp, fn, args);
    cpu::setRecycleLimit(limit);
    sp->records().clear();
  };
  return v;
}

/// A hand-written baseline as a variant.
Variant plain(Record r, std::function<void()> f) { return Variant{std::move(r), std::move(f), false}; }

/// Times the variants interleaved (Timing of each), samples peaks, prints the records.
void runGroup(std::vector<Variant> vs, const Options& o, double minSeconds) {
  cpu::setRecycleLimit(o.recycleLimit);
  std::vector<std::function<void()>> fs;
  for (const Variant& v : vs) fs.push_back(v.call);
  std::vector<Timing> t = timeInterleaved(fs, o.runs, minSeconds);
  for (size_t i = 0; i < vs.size(); ++i) {
    vs[i].r.ms = t[i].medianMs;
    vs[i].r.runs = t[i].runs;
    if (vs[i].peak) {
      if (vs[i].peakWithoutRecycling) cpu::setRecycleLimit(0);  // frees the kept blocks too
      PeakSampler ps;
      vs[i].call();
      vs[i].r.peakBytes = static_cast<double>(ps.stop());
      cpu::setRecycleLimit(o.recycleLimit);
    }
    emit(vs[i].r);
  }
}

Record rec(const std::string& sys, const std::string& w, const std::string& v, const std::string& size) {
  Record r;
  r.sys = sys;
  r.workload = w;
  r.variant = v;
  r.size = size;
  return r;
}

void probes(const Options& o) {
  size_t bytes = o.quick ? (size_t(32) << 20) : (size_t(256) << 20);
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  Record r = rec("probe", "P", "memcpy, all cores", std::to_string(bytes >> 20) + " MiB");
  r.value = probeCopyGBs(bytes, hw, o.runs);
  r.unit = "GB/s (read+write)";
  emit(r);
  r = rec("probe", "P", "memset, all cores", std::to_string(bytes >> 20) + " MiB");
  r.value = probeFillGBs(bytes, hw, o.runs);
  r.unit = "GB/s";
  emit(r);
  r = rec("probe", "P", "memcpy, one core", std::to_string(bytes >> 20) + " MiB");
  r.value = probeCopyGBs(bytes, 1, o.runs);
  r.unit = "GB/s (read+write)";
  emit(r);
  int n = o.quick ? 64 : 256, batch = o.quick ? 4 : 16;
  // The library as scn uses it (jit/cpu/gemm.hpp); the size column names the kernels.
  std::string gemmSize = std::to_string(batch) + "x" + std::to_string(n) + "^3; " +
                         cpu::gemmLibraryDescription();
  r = rec("probe", "P", "sgemm, 1 thread per call on all cores", gemmSize);
  r.value = probeSgemmGFlops(n, batch, o.runs, false);
  r.unit = "GFLOP/s";
  emit(r);
  r = rec("probe", "P", "sgemm, OpenBLAS's own threads", gemmSize);
  r.value = probeSgemmGFlops(n, batch, o.runs, true);
  r.unit = "GFLOP/s";
  emit(r);
  r = rec("probe", "P", "bf16 gemm, 1 thread per call on all cores",
          std::to_string(batch) + "x" + std::to_string(n) + "^3; " + cpu::bf16GemmDescription());
  r.value = probeBf16GemmGFlops(n, batch, o.runs);
  r.unit = "GFLOP/s";
  emit(r);
}

void w1(Session& s, const Options& o) {
  int b = o.quick ? 4 : 16, n = o.quick ? 64 : 256;
  std::string size = std::to_string(b) + "x" + std::to_string(n) + "x" + std::to_string(n);
  Value x = global(s, "bench_w1_x", "uniform(key(0), (" + std::to_string(b) + ", " +
                                        std::to_string(n) + ", " + std::to_string(n) + "))");
  std::vector<Variant> vs;
  for (auto [fn, variant] : {std::pair{"mat_loop", "unrolled"}, {"mat_scan", "scan"},
                             {"mat_scan2", "scan2"}})
    vs.push_back(prepare(s, fn, {x}, rec("scn", "W1", variant, size)));
  // Issue 21: the scan with the carry in bf16 (each step's product computed in f32, rounded).
  Value xb = global(s, "bench_w1_xb", "astype(bench_w1_x, bf16)");
  vs.push_back(prepare(s, "mat_scan", {xb}, rec("scn", "W1", "scan bf16", size)));
  // The same arithmetic by hand: OpenBLAS (one thread per call on each core) and a sqrt loop.
  auto a = std::make_shared<std::vector<float>>(static_cast<size_t>(b) * n * n);
  auto tmp = std::make_shared<std::vector<float>>(a->size());
  vs.push_back(plain(rec("c++", "W1", "unrolled", size), [=] {
    std::fill(a->begin(), a->end(), 0.01f);
    plainMatLoop(a->data(), tmp->data(), b, n, 16);
  }));
  runGroup(std::move(vs), o, 1.0);
}

void w2(Session& s, const Options& o) {
  int64_t cap = o.quick ? 1000000 : o.cap;
  for (int b1 : {100, 1000, 5000})
    for (int b2 : {100, 1000, 5000})
      for (int len : {1, 10, 100}) {
        if (int64_t(b1) * b2 * len > cap) continue;
        std::string size = std::to_string(b1) + "x" + std::to_string(b2) + "x" + std::to_string(len);
        Value xs = global(s, "bench_w2_xs", "normal(key(0), (" + std::to_string(b1) + ", " +
                                                std::to_string(b2) + ", " + std::to_string(len) + "))");
        std::vector<Variant> vs;
        for (auto [fn, variant] : {std::pair{"scan_vmap_f", "scan(vmap)"}, {"vmap_scan_f", "vmap(scan)"}})
          vs.push_back(prepare(s, fn, {xs}, rec("scn", "W2", variant, size)));
        if (int64_t(b1) * b2 * len >= 10000000) vs.push_back(withFreshBlocks(s, o, "scan_vmap_f", {xs}, vs[0]));
        runGroup(std::move(vs), o, 0.3);
        global(s, "bench_w2_xs", "0");  // free the input
      }
}

void w3(Session& s, const Options& o) {
  int lg = o.quick ? 16 : 26;
  std::string size = "2^" + std::to_string(lg);
  Value n = global(s, "bench_w3_n", "2**" + std::to_string(lg));
  Value x0 = global(s, "bench_w3_x0", "1.0f64");
  Value a = global(s, "bench_w3_a", "1.00000001f64");
  Value steps = global(s, "bench_w3_steps", "arange(1, bench_w3_n, dtype=u64)");
  std::vector<Variant> vs;
  vs.push_back(prepare(s, "gp", {n, x0, a}, rec("scn", "W3", "xs=None", size), true));
  vs.push_back(prepare(s, "gp_xs", {steps, x0, a}, rec("scn", "W3", "xs array", size), true));
  vs.push_back(prepare(s, "gp_cumprod", {n, x0, a}, rec("scn", "W3", "cumprod", size), true));
  int64_t elems = int64_t(1) << lg;
  auto out = std::make_shared<std::vector<double>>(static_cast<size_t>(elems));
  vs.push_back(plain(rec("c++", "W3", "serial loop", size),
                     [=] { plainGeometric(out->data(), elems, 1.0, 1.00000001); }));
  // As a function returning a new array must: into fresh memory (its page faults included).
  vs.push_back(plain(rec("c++", "W3", "serial loop, new buffer", size), [=] {
    void* p = std::aligned_alloc(64, static_cast<size_t>(elems) * sizeof(double));
    plainGeometric(static_cast<double*>(p), elems, 1.0, 1.00000001);
    std::free(p);
  }));
  runGroup(std::move(vs), o, 0);
}

/// associative_scan over 2^22 f32 with two user combiners (not a seed workload; issue 7 asks for
/// associative_scan as a parallel scan).
void assocScans(Session& s, const Options& o) {
  int lg = o.quick ? 16 : 22;
  std::string size = "2^" + std::to_string(lg);
  Value x = global(s, "bench_a_x", "where(uniform(key(7), (2**" + std::to_string(lg) +
                                       ",)) < 0.5, uniform(key(8), (2**" + std::to_string(lg) + ",)), 0.0)");
  std::vector<Variant> vs;
  vs.push_back(prepare(s, "running_lse", {x}, rec("scn", "A", "logaddexp", size)));
  vs.push_back(prepare(s, "last_nonzero", {x}, rec("scn", "A", "last nonzero", size)));
  Value decay = global(s, "bench_a_decay", "uniform(key(9), (2**" + std::to_string(lg) + ",)) * 0.1 + 0.9");
  vs.push_back(prepare(s, "linear_recurrence", {decay, x}, rec("scn", "A", "linear recurrence", size)));
  runGroup(std::move(vs), o, 0.3);
  global(s, "bench_a_x", "0");  // free the inputs
  global(s, "bench_a_decay", "0");
}

/// erf and arctan2 maps over 2^24 f32 (issue 17's benchmark rows).
void mathMaps(Session& s, const Options& o) {
  int lg = o.quick ? 16 : 24;
  std::string size = "2^" + std::to_string(lg), n = "(2**" + std::to_string(lg) + ",)";
  Value x = global(s, "bench_m_x", "normal(key(11), " + n + ") * 2.0");
  Value y = global(s, "bench_m_y", "normal(key(12), " + n + ")");
  runGroup({prepare(s, "erf_map", {x}, rec("scn", "M", "erf", size)),
            prepare(s, "arctan2_map", {y, x}, rec("scn", "M", "arctan2", size))},
           o, 0.3);
  global(s, "bench_m_x", "0");
  global(s, "bench_m_y", "0");
}

/// Issue 16: a gather of 2^22 random indices from a 2^24 table, a scatter-add histogram of 2^22
/// values into 2^12 bins, and a 2^16-step scan writing its 2^16 carry table with `.at[k].set`
/// (in place: no copy per step). bench/jax_bench.py has the same three (group G).
void gatherScatter(Session& s, const Options& o) {
  int table = o.quick ? 18 : 24, points = o.quick ? 16 : 22, steps = o.quick ? 12 : 16;
  auto p2 = [](int k) { return "2**" + std::to_string(k); };
  if (!s.run("<bench>", "fn bench_gather(t, i) = t[i]\n"
                        "fn bench_hist(v) = zeros(4096, dtype=i32).at[v].add(1)\n"
                        "fn bench_fill(t, xs) = scan(|t, k| (t.at[k].set(k % 7), ()), t, xs=xs).0\n"))
    die("bench definitions failed");
  Value t = global(s, "bench_g_t", "normal(key(3), (" + p2(table) + ",))");
  Value i = global(s, "bench_g_i", "astype(uniform(key(4), (" + p2(points) + ",), maxval=" + p2(table) + " * 1.0), i32)");
  Value v = global(s, "bench_g_v", "astype(uniform(key(5), (" + p2(points) + ",), maxval=4096.0), i32)");
  Value t0 = global(s, "bench_g_t0", "zeros(" + p2(steps) + ", dtype=i32)");
  Value xs = global(s, "bench_g_xs", "arange(" + p2(steps) + ")");
  std::vector<Variant> vs;
  vs.push_back(prepare(s, "bench_gather", {t, i}, rec("scn", "G", "gather", "2^" + std::to_string(points) + " of 2^" + std::to_string(table))));
  vs.push_back(prepare(s, "bench_hist", {v}, rec("scn", "G", "scatter-add histogram", "2^" + std::to_string(points) + " into 2^12")));
  vs.push_back(prepare(s, "bench_fill", {t0, xs}, rec("scn", "G", "scan .at[k].set", "2^" + std::to_string(steps) + " steps")));
  runGroup(std::move(vs), o, 0.3);
  for (const char* g : {"bench_g_t", "bench_g_i", "bench_g_v", "bench_g_t0", "bench_g_xs"}) global(s, g, "0");
}

/// sort and argsort of 2^22 uniform f32 (issue 16's rows; goal JAX/scn >= 2).
void sorts(Session& s, const Options& o) {
  int lg = o.quick ? 16 : 22;
  std::string size = "2^" + std::to_string(lg);
  Value x = global(s, "bench_x_x", "uniform(key(11), (2**" + std::to_string(lg) + ",))");
  std::vector<Variant> vs;
  vs.push_back(prepare(s, "sort_f32", {x}, rec("scn", "X", "sort f32", size)));
  vs.push_back(prepare(s, "argsort_f32", {x}, rec("scn", "X", "argsort f32", size)));
  runGroup(std::move(vs), o, 0.3);
  global(s, "bench_x_x", "0");
}

/// einsum attention over (8, 512, 64) f32; a layer norm over (4096, 1024) f32; cholesky, solve
/// and cholesky + 2 triangular solves of (16, 256, 256) f64 (issue 17's rows).
void linalgRows(Session& s, const Options& o) {
  int64_t n = o.quick ? 64 : 256, t = o.quick ? 128 : 512;
  std::string ts = std::to_string(t), ns = std::to_string(n);
  Value q = global(s, "bench_k_q", "normal(key(21), (8, " + ts + ", 64))");
  Value k = global(s, "bench_k_k", "normal(key(22), (8, " + ts + ", 64))");
  Value v = global(s, "bench_k_v", "normal(key(23), (8, " + ts + ", 64))");
  global(s, "bench_k_m", "normal(key(24), (16, " + ns + ", " + ns + "), dtype=f64)");
  Value a = global(s, "bench_k_a", "bench_k_m @ swapaxes(bench_k_m, 1, 2) + " + ns + ".0 * eye(" + ns + ", dtype=f64)");
  Value b = global(s, "bench_k_b", "normal(key(25), (16, " + ns + ", 16), dtype=f64)");
  std::string rows = o.quick ? "512" : "4096";
  Value x = global(s, "bench_k_x", "normal(key(26), (" + rows + ", 1024))");
  std::string mats = "16x" + ns + "x" + ns + " f64";
  // FFTs: rfft of one long f32 signal, and a batch of c64 rows (one row per task of the pool)
  int64_t points = o.quick ? 16 : 22, fftRows = o.quick ? 16 : 256;
  Value signal = global(s, "bench_k_signal", "normal(key(27), (" + std::to_string(int64_t{1} << points) + ",))");
  Value rowsC = global(s, "bench_k_rows", "complex(normal(key(28), (" + std::to_string(fftRows) + ", 4096)), "
                                          "normal(key(29), (" + std::to_string(fftRows) + ", 4096)))");
  // Each row alone, as jax_bench.py times every row: these are different workloads, and
  // interleaved the ones that stream tens of MB (the rfft, cholesky's batch) evict the inputs of
  // the next (the batch of FFT rows, the layer norm), which JAX's isolated rows keep in cache.
  runGroup({prepare(s, "bench_attention", {q, k, v}, rec("scn", "K", "einsum attention", "8x" + ts + "x64"))}, o, 0.3);
  runGroup({prepare(s, "bench_layer_norm", {x}, rec("scn", "K", "layer norm", rows + "x1024"))}, o, 0.3);
  runGroup({prepare(s, "bench_cholesky", {a}, rec("scn", "K", "cholesky", mats))}, o, 0.3);
  runGroup({prepare(s, "bench_solve", {a, b}, rec("scn", "K", "solve (16 rhs)", mats))}, o, 0.3);
  runGroup({prepare(s, "bench_cho_solve", {a, b}, rec("scn", "K", "cholesky + triangular solves", mats))}, o, 0.3);
  runGroup({prepare(s, "bench_rfft", {signal}, rec("scn", "K", "rfft f32", "2^" + std::to_string(points)))}, o, 0.3);
  runGroup({prepare(s, "bench_fft_rows", {rowsC}, rec("scn", "K", "fft c64 rows", std::to_string(fftRows) + "x4096"))}, o, 0.3);
  // A 3x3 convolution layer, NHWC, SAME: forward, and the gradient of sum(y^2) in both operands.
  std::string img = o.quick ? "8" : "32";
  Value cx = global(s, "bench_k_cx", "normal(key(30), (" + img + ", 28, 28, 32))");
  Value cw = global(s, "bench_k_cw", "0.1 * normal(key(31), (3, 3, 32, 64))");
  std::string convSize = img + "x28x28x32 -> 64";
  runGroup({prepare(s, "bench_conv", {cx, cw}, rec("scn", "K", "conv 3x3", convSize))}, o, 0.3);
  runGroup({prepare(s, "bench_conv_grad", {cx, cw}, rec("scn", "K", "conv 3x3 grad", convSize))}, o, 0.3);
  for (const char* g : {"bench_k_q", "bench_k_k", "bench_k_v", "bench_k_x", "bench_k_m", "bench_k_a", "bench_k_b",
                        "bench_k_signal", "bench_k_rows", "bench_k_cx", "bench_k_cw"})
    global(s, g, "0");
}

/// A variant of group D: its peak is every byte the call allocates (no recycled blocks kept).
Variant prepareD(Session& s, const std::string& fnName, const std::vector<Value>& args,
                 const std::string& variant, const std::string& size) {
  Variant v = prepare(s, fnName, args, rec("scn", "D", variant, size), true);
  v.peakWithoutRecycling = true;
  return v;
}

/// The scalar `<row>_check` of bench/autodiff.scn computes from the gradient (JAX prints the same).
double checkValue(Session& s, const std::string& fnName, const std::vector<Value>& args) {
  Value v = callFn(s, global(s, fnName), args);
  return std::strtod(s.evaluator().format(v).c_str(), nullptr);
}

/// Issue 18's rows: reverse mode through scans (bench/autodiff.scn; bench/jax_bench.py group D).
/// Each row times the forward function and its gradient interleaved, with their peaks.
void autodiffRows(Session& s, const Options& o) {
  if (!s.runFile(o.sourceDir + "/bench/autodiff.scn")) die("bench/autodiff.scn failed");
  auto n = [](int64_t k) { return std::to_string(k); };
  auto row = [&](const std::string& name, const std::string& size, const std::vector<Value>& args,
                 const std::vector<std::pair<std::string, std::string>>& variants,
                 const std::vector<std::string>& checks) {
    std::vector<Variant> vs;
    for (const auto& [fn, variant] : variants) vs.push_back(prepareD(s, fn, args, name + ": " + variant, size));
    for (size_t i = 0; i < checks.size(); ++i) vs[i + 1].r.check = checkValue(s, checks[i], args);
    runGroup(std::move(vs), o, 0.3);
  };
  {  // 1: W1's scan, 16 steps of sqrt(c @ c)
    int64_t b = o.quick ? 4 : 16, m = o.quick ? 64 : 256;
    Value x = global(s, "bench_d_x", "d_pattern((" + n(b) + ", " + n(m) + ", " + n(m) + "), 0.0, 1.0)");
    row("W1 scan", n(b) + "x" + n(m) + "x" + n(m) + " f32", {x},
        {{"d_w1_forward", "forward"}, {"d_w1_grad", "grad"}}, {"d_w1_check"});
    global(s, "bench_d_x", "0");
  }
  {  // 2: a GRU language model's training step
    int64_t t = o.quick ? 16 : 128, b = o.quick ? 4 : 32, h = o.quick ? 32 : 256, v = o.quick ? 64 : 256;
    Value p = global(s, "bench_d_p", "d_gru_params(" + n(v) + ", " + n(h) + ")");
    Value tk = global(s, "bench_d_tk", "d_gru_tokens(" + n(t) + ", " + n(b) + ", " + n(v) + ")");
    row("GRU LM", "T=" + n(t) + " B=" + n(b) + " H=" + n(h) + " V=" + n(v), {p, tk},
        {{"d_gru_forward", "loss"}, {"d_gru_grad", "training step"}}, {"d_gru_check"});
    global(s, "bench_d_p", "0");
    global(s, "bench_d_tk", "0");
  }
  {  // 3: W3's geometric progression, d sum / d a
    int lg = o.quick ? 12 : 20;
    Value x0 = global(s, "bench_d_x0", "1.0f64");
    Value a = global(s, "bench_d_a", "1.00000001f64");
    Value len = global(s, "bench_d_n", "2**" + std::to_string(lg));
    row("W3 gp", "2^" + std::to_string(lg) + " f64", {x0, a, len},
        {{"d_gp_forward", "forward"}, {"d_gp_grad", "grad wrt a"}}, {"d_gp_check"});
  }
  {  // 4: a carry of 64 scalars
    int64_t steps = o.quick ? 100 : 10000;
    Value w = global(s, "bench_d_w", "0.7");
    Value c0 = global(s, "bench_d_c0", "d_tuple_init()");
    Value xs = global(s, "bench_d_txs", "d_pattern((" + n(steps) + ",), -0.5, 0.5)");
    row("64-scalar carry", n(steps) + " steps f32", {w, c0, xs},
        {{"d_tuple_forward", "forward"}, {"d_tuple_grad", "grad"}}, {"d_tuple_check"});
    global(s, "bench_d_txs", "0");
  }
  {  // 5: a long scan over a large carry, stored residuals and checkpoints="sqrt"
    int64_t steps = o.quick ? 100 : 1000, m = o.quick ? 100 : 1000;
    Value c0 = global(s, "bench_d_lc", "d_pattern((" + n(m) + ", " + n(m) + "), -1.0, 1.0)");
    Value xs = global(s, "bench_d_lxs", "d_pattern((" + n(steps) + ",), -0.1, 0.1)");
    row("long scan", n(steps) + " steps of " + n(m) + "x" + n(m) + " f32", {c0, xs},
        {{"d_long_forward", "forward"}, {"d_long_grad", "grad stored"}, {"d_long_sqrt_grad", "grad sqrt"}},
        {"d_long_check", "d_long_sqrt_check"});
    global(s, "bench_d_lc", "0");
    global(s, "bench_d_lxs", "0");
  }
}

void loopOverhead(Session& s, const Options& o) {
  int64_t n = 1000000;
  Value x0 = global(s, "bench_l_x0", "1.0");
  Value len = global(s, "bench_l_n", std::to_string(n));
  runGroup({prepare(s, "scalar_scan", {x0, len}, rec("scn", "L", "scalar scan", std::to_string(n)))},
           o, 0);
  // Compile time must not grow with a scan's static length (issue 7: <= 1.2x from 10 to 1000).
  for (int64_t k : {10, 1000}) {
    Value kv = global(s, "bench_l_k", std::to_string(k));
    runGroup({prepare(s, "scalar_scan", {x0, kv}, rec("scn", "L", "compile len " + std::to_string(k),
                                                      std::to_string(k)))},
             o, 0);
  }
}

/// Issue 4: the seed arithmetic on the CPU JIT, the interpreter and hand-written C++ loops.
void seeds(Session& cpu, const Options& o) {
  auto interp = openSession(o, "interp");
  int64_t n = o.quick ? 1000000 : 10000000;
  std::string size = std::to_string(n);
  std::vector<Variant> vs;
  for (Session* s : {&cpu, interp.get()}) {
    std::string sys = s == &cpu ? "scn" : "interp";
    Value x = global(*s, "bench_s_x", "normal(key(1), (" + std::to_string(n) + ",))");
    vs.push_back(prepare(*s, "f", {x}, rec(sys, "S", "sin(x**2+1)", size)));
  }
  auto x = std::make_shared<std::vector<float>>(static_cast<size_t>(n));
  auto y = std::make_shared<std::vector<float>>(x->size());
  for (size_t i = 0; i < x->size(); ++i) (*x)[i] = std::sin(static_cast<float>(i)) * 2.0f;
  vs.push_back(plain(rec("c++", "S", "sin(x**2+1)", size), [=] { plainSinLoop(x->data(), y->data(), n); }));
  vs.push_back(plain(rec("c++ fast-math", "S", "sin(x**2+1)", size),
                     [=] { plainSinLoopFastMath(x->data(), y->data(), n); }));
  runGroup(std::move(vs), o, 0.3);
  // The seed programs at their own sizes (the examples' checks included): whole-file run time.
  for (const char* seed : {"w1_matmul_loop.scn", "w2_scan_vmap.scn", "w3_geometric.scn"}) {
    for (const char* backend : {"cpu", "interp"}) {
      std::string path = o.sourceDir + "/examples/seeds/" + seed;
      double compileMs = 0;
      auto run = [&] {
        SessionOptions so;
        so.backend = backend;
        so.onDiagnostic = [](const Diagnostic& d) { std::fprintf(stderr, "%s\n", render(d).c_str()); };
        Session fresh(so);
        if (!fresh.runFile(path)) die(std::string("seed ") + seed + " failed");
        compileMs = 0;
        for (const CallRecord& c : fresh.records())
          if (c.traced) compileMs += c.traceMs + c.optimiseMs + c.codegenMs;
      };
      Record q = rec(std::string(backend) == "cpu" ? "scn" : "interp", "S", seed, "seed file");
      Timing tt = timeRuns(run, o.quick ? 1 : 3);
      q.ms = tt.medianMs;
      q.runs = tt.runs;
      q.compileMs = compileMs;
      emit(q);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--quick") o.quick = true;
    else if (a == "--cap") o.cap = static_cast<int64_t>(std::stod(next()));
    else if (a == "--runs") o.runs = std::max(5, std::stoi(next()));
    else if (a == "--only") o.only = next();
    else if (a == "--source-dir") o.sourceDir = next();
    else if (a == "--recycle-limit") o.recycleLimit = static_cast<size_t>(std::stod(next()));
    else die("usage: scn_bench [--quick] [--cap N] [--runs N>=5] [--only P,W1,W2,W3,A,M,G,L,S,X,K,D] [--source-dir DIR] [--recycle-limit BYTES]");
  }
  cpu::prepareGemmLibrary();  // the baselines call OpenBLAS as scn has set it up
  if (o.want("P")) probes(o);
  auto s = openSession(o, "cpu");
  if (o.want("W1")) w1(*s, o);
  if (o.want("W2")) w2(*s, o);
  if (o.want("W3")) w3(*s, o);
  if (o.want("A")) assocScans(*s, o);
  if (o.want("M")) mathMaps(*s, o);
  if (o.want("G")) gatherScatter(*s, o);
  if (o.want("L")) loopOverhead(*s, o);
  if (o.want("S")) seeds(*s, o);
  if (o.want("X")) sorts(*s, o);
  if (o.want("K")) linalgRows(*s, o);
  if (o.want("D")) autodiffRows(*s, o);
  return 0;
}
