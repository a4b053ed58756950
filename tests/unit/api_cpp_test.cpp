// The C++ embedding API: load and call with hand-checked results, diagnostics through the
// callback, argument errors, borrowing and copying of inputs, contexts in several threads, the
// persistent cache directory and interrupting a call from another thread.
#include <gtest/gtest.h>

#include "test_backends.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "scn/scn.hpp"

namespace {

/// A context whose diagnostics are collected for inspection.
struct Host {
  std::vector<scn::DiagnosticRecord> diags;
  std::string printed;
  scn::Context ctx;

  explicit Host(std::string backend = "auto") : ctx(make(std::move(backend))) {}

  scn::Context make(std::string backend) {
    scn::ContextOptions o;
    o.backend = std::move(backend);
    o.onDiagnostic = [this](const scn::DiagnosticRecord& d) { diags.push_back(d); };
    o.onPrint = [this](std::string_view s) { printed += s; };
    auto c = scn::Context::create(std::move(o));
    EXPECT_TRUE(c.ok()) << c.status().message();
    return std::move(c).value();
  }
};

template <typename T>
std::vector<T> values(const scn::HostArray& a) {
  EXPECT_EQ(a.dtype(), scn::dataTypeOf<T>());
  return std::vector<T>(a.dataAs<T>(), a.dataAs<T>() + a.size());
}

TEST(ApiCpp, LoadAndCallSaxpy) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn saxpy(a, x, y) = a * x + y", "saxpy.scn"));
  float a = 2.5f;
  std::vector<float> x = {1, -2, 3.5f, 4, 0.25f}, y = {10, 20, 30, 40, 50};
  auto f = h.ctx.function("saxpy");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->arity(), 3);
  EXPECT_EQ(f->name(), "saxpy");
  auto r = f->call({scn::ArrayView::of(&a, {}), scn::ArrayView::of(x.data(), {5}),
                    scn::ArrayView::of(y.data(), {5})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->at(0).shape(), (std::vector<int64_t>{5}));
  std::vector<float> got = values<float>(r->at(0));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(got[i], a * x[i] + y[i]) << i;
  // A second call with the same signature reuses the compiled code; new data, new results.
  x[0] = 100;
  r = f->call({scn::ArrayView::of(&a, {}), scn::ArrayView::of(x.data(), {5}),
               scn::ArrayView::of(y.data(), {5})});
  ASSERT_TRUE(r.ok());
  EXPECT_FLOAT_EQ(values<float>(r->at(0))[0], a * 100 + 10);
  EXPECT_TRUE(h.diags.empty());
  EXPECT_TRUE(h.ctx.lastError().empty());
}

// A host calls a fn that scatters: a histogram with duplicate and out-of-range bins, and a
// gather at the host's indices (negative ones wrap, too large ones clamp).
// Parameters with defaults: left out at the end, or omitted in between (the inputs after an
// omitted one go to their parameters by name); an omitted input without a default is E0220.
TEST(ApiCpp, ParametersWithDefaultsMayBeLeftOut) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn affine(x, w=2.0, b=0.5) = x * w + b", "affine.scn"));
  auto f = h.ctx.function("affine");
  ASSERT_TRUE(f.ok());
  std::vector<scn::Parameter> ps = f->parameters();
  ASSERT_EQ(ps.size(), 3u);
  EXPECT_FALSE(ps[0].hasDefault);
  EXPECT_TRUE(ps[1].hasDefault && ps[2].hasDefault);
  float x = 1, b = 10;
  auto r = f->call({scn::ArrayView::of(&x, {})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FLOAT_EQ(values<float>(r->at(0))[0], 2.5f);
  scn::ArrayView skipped;
  skipped.omitted = true;
  r = f->call({scn::ArrayView::of(&x, {}), skipped, scn::ArrayView::of(&b, {})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FLOAT_EQ(values<float>(r->at(0))[0], 12.0f);
  r = f->call({skipped});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("E0220"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("`x` has no default"), std::string::npos) << r.status().message();
}

TEST(ApiCpp, CallAFunctionThatScatters) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn hist(x) = zeros(4, dtype=i32).at[x].add(1)\n"
                         "fn pick(t, i) = t[i] * 2.0\n"));
  std::vector<int32_t> x = {0, 3, 3, 1, 9, -1, 3};
  auto r = h.ctx.call("hist", {scn::ArrayView::of(x.data(), {7})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(values<int32_t>(r->at(0)), (std::vector<int32_t>{1, 1, 0, 4}));
  std::vector<float> t = {1, 2, 3, 4};
  std::vector<int32_t> i = {-1, 7, 0};
  auto g = h.ctx.call("pick", {scn::ArrayView::of(t.data(), {4}), scn::ArrayView::of(i.data(), {3})});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(values<float>(g->at(0)), (std::vector<float>{8, 8, 2}));
  EXPECT_TRUE(h.diags.empty());
}

TEST(ApiCpp, MatrixTupleResultsAndDtypes) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn affine(w, x, b) = w @ x + b\n"
                         "fn stats(x) = (sum(x), max(x), x > 2)\n"
                         "fn nothing(x) = None\n"));
  std::vector<double> w = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, x = {0.5, -1, 2}, b = {1, 2, 3, 4};
  auto r = h.ctx.call("affine", {scn::ArrayView::of(w.data(), {4, 3}), scn::ArrayView::of(x.data(), {3}),
                                 scn::ArrayView::of(b.data(), {4})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<double> got = values<double>(r->at(0));
  ASSERT_EQ(got.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    double want = b[i];
    for (int k = 0; k < 3; ++k) want += w[i * 3 + k] * x[k];
    EXPECT_DOUBLE_EQ(got[i], want) << i;
  }

  std::vector<int32_t> xs = {3, 1, 4, 1, 5, 9, 2, 6};
  auto s = h.ctx.call("stats", {scn::ArrayView::of(xs.data(), {2, 4})});
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->size(), 3u);
  EXPECT_TRUE(s->at(0).shape().empty());
  EXPECT_EQ(values<int32_t>(s->at(0))[0], std::accumulate(xs.begin(), xs.end(), 0));
  EXPECT_EQ(values<int32_t>(s->at(1))[0], *std::max_element(xs.begin(), xs.end()));
  EXPECT_EQ(s->at(2).shape(), (std::vector<int64_t>{2, 4}));
  std::vector<bool> big;
  for (bool v : values<bool>(s->at(2))) big.push_back(v);
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(big[i], xs[i] > 2) << i;

  auto n = h.ctx.call("nothing", {scn::ArrayView::of(xs.data(), {8})});
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->empty());
}

TEST(ApiCpp, SortArgsortAndTopKAgreeWithStableSort) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn sorted(x) = sort(x)\nfn order(x) = argsort(x, descending=true)\n"
                         "fn best(x) = top_k(x, 3)\nfn insert(a, v) = searchsorted(a, v)\n"));
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 101) - 50.0f;
  x[17] = NAN;
  auto s = h.ctx.call("sorted", {scn::ArrayView::of(x.data(), {1000})});
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::vector<float> want = x;
  std::stable_sort(want.begin(), want.end(), [](float a, float b) { return a < b || (std::isnan(b) && !std::isnan(a)); });
  std::vector<float> got = values<float>(s->at(0));
  for (size_t i = 0; i + 1 < x.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;
  EXPECT_TRUE(std::isnan(got.back()));
  // Descending and stable: the NaN first, then equal keys by index.
  auto o = h.ctx.call("order", {scn::ArrayView::of(x.data(), {1000})});
  ASSERT_TRUE(o.ok()) << o.status().message();
  std::vector<int32_t> idx = values<int32_t>(o->at(0));
  EXPECT_EQ(idx[0], 17);
  for (size_t i = 2; i < idx.size(); ++i) {
    float a = x[idx[i - 1]], b = x[idx[i]];
    EXPECT_TRUE(a > b || (a == b && idx[i - 1] < idx[i])) << i;
  }
  auto t = h.ctx.call("best", {scn::ArrayView::of(x.data(), {2, 500})});
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ(t->at(1).shape(), (std::vector<int64_t>{2, 3}));
  std::vector<int32_t> top = values<int32_t>(t->at(1));
  EXPECT_EQ(top[0], 17);  // NaN is the largest
  for (int r = 0; r < 2; ++r) EXPECT_EQ(values<float>(t->at(0))[r * 3 + 2], x[r * 500 + top[r * 3 + 2]]);
  std::vector<int32_t> a = {1, 3, 3, 7}, v = {3, 0, 8};
  auto p = h.ctx.call("insert", {scn::ArrayView::of(a.data(), {4}), scn::ArrayView::of(v.data(), {3})});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(values<int32_t>(p->at(0)), (std::vector<int32_t>{1, 0, 4}));
  EXPECT_TRUE(h.diags.empty());
}

TEST(ApiCpp, FourierTransformsFromTheHost) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn spectrum(x) = (fft.rfft(x), fft.irfft(fft.rfft(x), n=x.shape[-1]))\n"
                         "fn centred(z) = fft.fftshift(fft.ifft(z, norm=\"ortho\"))\n"));
  // Two rows of 5 points (odd: not a power of two); the DFT written out is the oracle.
  std::vector<float> x = {1, 2, 3, 4, 5, 0.5f, -1, 2, 0, 3};
  auto r = h.ctx.call("spectrum", {scn::ArrayView::of(x.data(), {2, 5})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->at(0).shape(), (std::vector<int64_t>{2, 3}));
  std::vector<std::complex<float>> X = values<std::complex<float>>(r->at(0));
  std::vector<float> back = values<float>(r->at(1));
  const double pi = 3.14159265358979323846;
  for (int row = 0; row < 2; ++row) {
    for (int k = 0; k < 3; ++k) {
      std::complex<double> want = 0;
      for (int t = 0; t < 5; ++t) want += double(x[row * 5 + t]) * std::polar(1.0, -2 * pi * k * t / 5);
      EXPECT_NEAR(X[row * 3 + k].real(), want.real(), 1e-5) << row << " " << k;
      EXPECT_NEAR(X[row * 3 + k].imag(), want.imag(), 1e-5) << row << " " << k;
    }
    for (int t = 0; t < 5; ++t) EXPECT_NEAR(back[row * 5 + t], x[row * 5 + t], 1e-5);
  }
  std::vector<std::complex<double>> z = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};  // exp(i pi t / 2): one frequency
  auto c = h.ctx.call("centred", {scn::ArrayView::of(z.data(), {4})});
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<std::complex<double>> got = values<std::complex<double>>(c->at(0));
  // ifft's kernel exp(+2 pi i k t / 4) cancels z's at k = 3 (frequency -1), 4 / sqrt(4) = 2 there;
  // fftshift moves frequency -1 to index 1 (numpy.fft agrees)
  std::vector<double> want = {0, 2, 0, 0};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(std::abs(got[i]), want[i], 1e-12) << i;
  EXPECT_TRUE(h.diags.empty());
}

TEST(ApiCpp, ComplexSolveAndGradientFromTheHost) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn solved(a, b) = solve(a, b)\n"
                         "fn energy_grad(z) = grad(|v| sum(abs(v) ** 2))(z)\n"));
  // a = [[2, i], [-i, 2]] is Hermitian with det 3; a x = b for b = a [1, 1 + i].
  std::vector<std::complex<double>> a = {{2, 0}, {0, 1}, {0, -1}, {2, 0}}, x = {{1, 0}, {1, 1}};
  std::vector<std::complex<double>> b = {a[0] * x[0] + a[1] * x[1], a[2] * x[0] + a[3] * x[1]};
  auto r = h.ctx.call("solved", {scn::ArrayView::of(a.data(), {2, 2}), scn::ArrayView::of(b.data(), {2})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<std::complex<double>> got = values<std::complex<double>>(r->at(0));
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(std::abs(got[i] - x[i]), 0.0, 1e-12) << i;
  // jax.grad's convention: the gradient of |z|^2 is 2 conj(z)
  std::vector<std::complex<float>> z = {{1, 2}, {-0.5f, 0.25f}};
  auto g = h.ctx.call("energy_grad", {scn::ArrayView::of(z.data(), {2})});
  ASSERT_TRUE(g.ok()) << g.status().message();
  std::vector<std::complex<float>> dz = values<std::complex<float>>(g->at(0));
  for (int i = 0; i < 2; ++i) EXPECT_EQ(dz[i], 2.0f * std::conj(z[i])) << i;
  EXPECT_TRUE(h.diags.empty());
}

TEST(ApiCpp, CholeskySolveAndEinsumFromTheHost) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn chol_solve(a, b) = { let l = cholesky(a); (l, solve(a, b), det(a)) }\n"
                         "fn scores(q, k) = einsum(\"bqd,bkd->bqk\", q, k)\n"));
  // A batch of two SPD matrices (f64) and right-hand sides.
  std::vector<double> a = {4, 2, 2, 3, 9, 0, 0, 1}, b = {2, 1, 9, 1};
  auto r = h.ctx.call("chol_solve", {scn::ArrayView::of(a.data(), {2, 2, 2}), scn::ArrayView::of(b.data(), {2, 2, 1})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 3u);
  std::vector<double> l = values<double>(r->at(0)), x = values<double>(r->at(1)), d = values<double>(r->at(2));
  std::vector<double> wantL = {2, 0, 1, std::sqrt(2.0), 3, 0, 0, 1}, wantX = {0.5, 0, 1, 1}, wantD = {8, 9};
  for (size_t i = 0; i < wantL.size(); ++i) EXPECT_NEAR(l[i], wantL[i], 1e-12) << i;
  for (size_t i = 0; i < wantX.size(); ++i) EXPECT_NEAR(x[i], wantX[i], 1e-12) << i;
  for (size_t i = 0; i < wantD.size(); ++i) EXPECT_NEAR(d[i], wantD[i], 1e-12) << i;
  // A matrix that is not positive definite gives NaNs, not an error (JAX's behaviour).
  std::vector<double> bad = {1, 2, 2, 1, 1, 0, 0, 1};
  auto n = h.ctx.call("chol_solve", {scn::ArrayView::of(bad.data(), {2, 2, 2}), scn::ArrayView::of(b.data(), {2, 2, 1})});
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_TRUE(std::isnan(values<double>(n->at(0))[0]));
  EXPECT_EQ(values<double>(n->at(0))[4], 1.0);  // the second matrix of the batch is fine
  std::vector<float> q(2 * 3 * 4), k(2 * 5 * 4);
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(i % 7) - 3;
  for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>(i % 5) - 2;
  auto e = h.ctx.call("scores", {scn::ArrayView::of(q.data(), {2, 3, 4}), scn::ArrayView::of(k.data(), {2, 5, 4})});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->at(0).shape(), (std::vector<int64_t>{2, 3, 5}));
  std::vector<float> got = values<float>(e->at(0));
  for (int bb = 0; bb < 2; ++bb)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        float want = 0;
        for (int t = 0; t < 4; ++t) want += q[(bb * 3 + i) * 4 + t] * k[(bb * 5 + j) * 4 + t];
        EXPECT_FLOAT_EQ(got[(bb * 3 + i) * 5 + j], want);
      }
  EXPECT_TRUE(h.diags.empty());
}

TEST(ApiCpp, DeepTupleResultsComeBackFlatOrAsADiagnostic) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  // Note [Deep values]: a result nested as deep as tuples may nest comes back as its one leaf;
  // a function that nests deeper is E0108 where the tuple is built, not a stack overflow.
  Host h("cpu");
  ASSERT_TRUE(h.ctx.load("fn deep(x) {\n  let t = x\n  for i in 0..1000 { t = (t,) }\n  t\n}\n"
                         "fn deeper(x) {\n  let t = x\n  for i in 0..100000 { t = (t,) }\n  t\n}\n",
                         "deep.scn"));
  float x = 2.5f;
  auto r = h.ctx.call("deep", {scn::ArrayView::of(&x, {})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(values<float>(r->at(0)), std::vector<float>{2.5f});
  auto d = h.ctx.call("deeper", {scn::ArrayView::of(&x, {})});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), scn::StatusCode::ProgramError);
  ASSERT_EQ(h.diags.size(), 1u);
  EXPECT_EQ(h.diags[0].code, "E0108");
  EXPECT_EQ(h.diags[0].message, "this tuple nests more than 1000 levels deep");
  EXPECT_EQ(h.diags[0].line, 8);
  // The context survives: the first function still runs.
  EXPECT_TRUE(h.ctx.call("deep", {scn::ArrayView::of(&x, {})}).ok());
}

TEST(ApiCpp, StridedInputsAreCopiedAndMatchContiguous) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn weighted(x) = sum(x * arange(x.shape[0]))"));
  // Column 1 of a 5x3 row-major matrix: stride of 3 floats.
  std::vector<float> m(15);
  for (int i = 0; i < 15; ++i) m[i] = static_cast<float>(i * i % 7);
  scn::ArrayView col(scn::DataType::F32, {5}, m.data() + 1, {3 * sizeof(float)});
  auto r = h.ctx.call("weighted", {col});
  ASSERT_TRUE(r.ok()) << r.status().message();
  float want = 0;
  for (int i = 0; i < 5; ++i) want += m[i * 3 + 1] * i;
  EXPECT_FLOAT_EQ(values<float>(r->at(0))[0], want);
  // A transposed view (negative-free, column-major strides) of a 2x3 matrix.
  std::vector<double> t = {1, 2, 3, 4, 5, 6};  // column-major storage of [[1,3,5],[2,4,6]]
  ASSERT_TRUE(h.ctx.load("fn rows(x) = sum(x, axis=1)"));
  auto rows = h.ctx.call("rows", {scn::ArrayView(scn::DataType::F64, {2, 3}, t.data(), {8, 16})});
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(values<double>(rows->at(0)), (std::vector<double>{1 + 3 + 5, 2 + 4 + 6}));
}

TEST(ApiCpp, ResultsNeverAliasHostMemory) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn id(x) = x\nfn flat(x) = reshape(x, (6,))"));
  std::vector<int64_t> x = {1, 2, 3, 4, 5, 6};
  auto r = h.ctx.call("id", {scn::ArrayView::of(x.data(), {6})});
  auto f = h.ctx.call("flat", {scn::ArrayView::of(x.data(), {2, 3})});
  ASSERT_TRUE(r.ok() && f.ok());
  EXPECT_NE(r->at(0).data(), static_cast<const void*>(x.data()));
  EXPECT_NE(f->at(0).data(), static_cast<const void*>(x.data()));
  std::vector<int64_t> before = x;
  for (int64_t& v : x) v = -1;  // the host reuses its buffer: results keep their values
  EXPECT_EQ(values<int64_t>(r->at(0)), before);
  EXPECT_EQ(values<int64_t>(f->at(0)), before);
}

TEST(ApiCpp, CopiedInputBytesSayWhatWasBorrowed) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn add(x, y) = x + y"));
  std::vector<float> x(6, 1.0f);
  auto r = h.ctx.call("add", {scn::ArrayView::of(x.data(), {6}), scn::ArrayView::of(x.data(), {6})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(h.ctx.lastCopiedInputBytes(), 0u);
  scn::ArrayView everyOther(scn::DataType::F32, {3}, x.data(), {2 * sizeof(float)});
  r = h.ctx.call("add", {everyOther, scn::ArrayView::of(x.data(), {3})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(h.ctx.lastCopiedInputBytes(), 3 * sizeof(float));
}

TEST(ApiCpp, WeakScalarsTakeTheDtypeTheyMeet) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn scale(x, k) = x * k\nfn alone(k) = k * 1"));
  std::vector<float> x = {1, 2};
  double k = 2.5;
  scn::ArrayView weakK(scn::DataType::F64, {}, &k);
  weakK.weak = true;
  auto r = h.ctx.call("scale", {scn::ArrayView::of(x.data(), {2}), weakK});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(values<float>(r->at(0)), (std::vector<float>{2.5f, 5.0f}));  // f32, as `x * 2.5`
  auto strong = h.ctx.call("scale", {scn::ArrayView::of(x.data(), {2}), scn::ArrayView::of(&k, {})});
  ASSERT_TRUE(strong.ok());
  EXPECT_EQ(strong->at(0).dtype(), scn::DataType::F64);
  int64_t three = 3;
  scn::ArrayView weak3(scn::DataType::I64, {}, &three);
  weak3.weak = true;
  auto alone = h.ctx.call("alone", {weak3});
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  EXPECT_EQ(values<int32_t>(alone->at(0)), (std::vector<int32_t>{3}));  // the default i32
  scn::ArrayView badWeak = scn::ArrayView::of(x.data(), {2});
  badWeak.weak = true;
  auto bad = h.ctx.call("alone", {badWeak});
  EXPECT_EQ(bad.status().code(), scn::StatusCode::InvalidArgument);
  ASSERT_FALSE(h.diags.empty());
  EXPECT_EQ(h.diags.back().message, "input 0 is marked weak but has dtype f32 and shape (2,)");
}

TEST(ApiCpp, ParametersAndNames) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn head(static n, x, _) = x[0:n]\nlet scale = 2.0"));
  auto f = h.ctx.function("head");
  ASSERT_TRUE(f.ok());
  std::vector<scn::Parameter> p = f->parameters();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_TRUE(p[0].name == "n" && p[0].isStatic);
  EXPECT_TRUE(p[1].name == "x" && !p[1].isStatic);
  EXPECT_EQ(p[2].name, "_");
  EXPECT_TRUE(h.ctx.function("sum")->parameters().empty());
  std::vector<std::string> names = h.ctx.names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "head"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "scale"), names.end());
}

TEST(ApiCpp, StaticParametersAndResultsFedBack) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn head(static n, x) = x[0:n] * 2.0"));
  std::vector<float> x = {1, 2, 3, 4, 5};
  for (int32_t n : {2, 4}) {
    auto r = h.ctx.call("head", {scn::ArrayView::of(&n, {}), scn::ArrayView::of(x.data(), {5})});
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->at(0).shape(), (std::vector<int64_t>{n}));
    for (int i = 0; i < n; ++i) EXPECT_FLOAT_EQ(values<float>(r->at(0))[i], 2 * x[i]);
    // A result goes back in without a copy on the host side.
    int32_t one = 1;
    auto again = h.ctx.call("head", {scn::ArrayView::of(&one, {}), r->at(0).view()});
    ASSERT_TRUE(again.ok());
    EXPECT_FLOAT_EQ(values<float>(again->at(0))[0], 4 * x[0]);
  }
}

TEST(ApiCpp, TraceErrorReachesCallbackWithLocation) {
  Host h;
  ASSERT_TRUE(h.ctx.load("# adds two vectors\nfn add(x, y) =\n  x + y\n", "prog.scn"));
  std::vector<float> a(4, 1.0f), b(3, 1.0f);
  auto r = h.ctx.call("add", {scn::ArrayView::of(a.data(), {4}), scn::ArrayView::of(b.data(), {3})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), scn::StatusCode::ProgramError);
  ASSERT_EQ(h.diags.size(), 1u);
  const scn::DiagnosticRecord& d = h.diags[0];
  EXPECT_EQ(d.severity, scn::DiagnosticSeverity::Error);
  EXPECT_EQ(d.code, "E0203");
  EXPECT_EQ(d.file, "prog.scn");
  EXPECT_EQ(d.line, 3);
  EXPECT_EQ(d.column, 3);
  EXPECT_NE(d.message.find("(4,), (3,)"), std::string::npos) << d.message;
  EXPECT_EQ(d.rendered.rfind("prog.scn:3:3: error[E0203]: ", 0), 0u) << d.rendered;
  EXPECT_NE(d.rendered.find("  x + y"), std::string::npos) << d.rendered;
  EXPECT_EQ(r.status().message(), d.rendered.substr(0, d.rendered.find('\n')));
  EXPECT_EQ(h.ctx.lastError(), r.status().message());
  // The context goes on: the same function works with matching shapes, and the error clears.
  auto ok = h.ctx.call("add", {scn::ArrayView::of(a.data(), {4}), scn::ArrayView::of(a.data(), {4})});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(values<float>(ok->at(0)), std::vector<float>(4, 2.0f));
  EXPECT_TRUE(h.ctx.lastError().empty());
}

// Note [Call chains]: the notes of an error name each call down to the failing op; the last
// one is the host's call, with the signature it was traced for.
TEST(ApiCpp, CallChainEndsWithTheHostsCall) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn inner(a, b) = a + b\nfn outer(x, y) = inner(x, y * 2.0)\n", "chain.scn"));
  std::vector<float> a(4, 1.0f), b(3, 1.0f);
  auto r = h.ctx.call("outer", {scn::ArrayView::of(a.data(), {4}), scn::ArrayView::of(b.data(), {3})});
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(h.diags.size(), 1u);
  const scn::DiagnosticRecord& d = h.diags[0];
  EXPECT_EQ(d.code, "E0203");
  EXPECT_EQ(d.line, 1);
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[0].message, "in a call of inner(f32[4], f32[3]) at chain.scn:2:18");
  EXPECT_EQ(d.notes[1].message, "called from outer(f32[4], f32[3]), called by the host");
  EXPECT_NE(d.rendered.find("\nnote: in a call of inner(f32[4], f32[3]) at chain.scn:2:18\n"
                            "note: called from outer(f32[4], f32[3]), called by the host\n"),
            std::string::npos)
      << d.rendered;
}

TEST(ApiCpp, HostCallOfTheFailingFunctionItself) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn add(x, y) = x + y\n", "add.scn"));
  std::vector<float> a(4, 1.0f), b(3, 1.0f);
  auto r = h.ctx.call("add", {scn::ArrayView::of(a.data(), {4}), scn::ArrayView::of(b.data(), {3})});
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(h.diags.size(), 1u);
  ASSERT_EQ(h.diags[0].notes.size(), 1u);
  EXPECT_EQ(h.diags[0].notes[0].message, "in a call of add(f32[4], f32[3]) from the host");
}

TEST(ApiCpp, SyntaxErrorOnLoad) {
  Host h;
  scn::Status s = h.ctx.load("let a = 1\nlet b = (a +\n", "broken.scn");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), scn::StatusCode::ProgramError);
  ASSERT_FALSE(h.diags.empty());
  EXPECT_EQ(h.diags[0].file, "broken.scn");
  EXPECT_GE(h.diags[0].line, 2);
  EXPECT_GT(h.diags[0].column, 0);
  EXPECT_EQ(h.diags[0].code.substr(0, 3), "E00");
  // Definitions loaded before the failure survive.
  ASSERT_TRUE(h.ctx.load("fn one() = 1.0"));
  auto r = h.ctx.call("one", {});
  ASSERT_TRUE(r.ok());
  EXPECT_FLOAT_EQ(values<float>(r->at(0))[0], 1.0f);
}

TEST(ApiCpp, PrintGoesToTheCallback) {
  Host h;
  ASSERT_TRUE(h.ctx.load("print(1 + 2)\nfn show(x) = x"));
  EXPECT_EQ(h.printed, "3\n");
  scn::Status s = h.ctx.loadFile("/nonexistent/dir/file.scn");
  EXPECT_EQ(s.code(), scn::StatusCode::ProgramError);
  ASSERT_EQ(h.diags.size(), 1u);
  EXPECT_EQ(h.diags[0].code, "E0502");
}

TEST(ApiCpp, BadArgumentsGiveErrorStatuses) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn two(a, b) = a + b\nlet k = 3", "two.scn"));
  std::vector<float> x = {1, 2};
  // Wrong number of arguments: located at the function's definition.
  auto r = h.ctx.call("two", {scn::ArrayView::of(x.data(), {2})});
  EXPECT_EQ(r.status().code(), scn::StatusCode::InvalidArgument);
  ASSERT_EQ(h.diags.size(), 1u);
  EXPECT_EQ(h.diags[0].code, "E0220");
  EXPECT_EQ(h.diags[0].message, "`two` takes 2 arguments but 1 was given");
  EXPECT_EQ(h.diags[0].file, "two.scn");
  EXPECT_EQ(h.diags[0].line, 1);
  EXPECT_EQ(h.diags[0].column, 4);  // the name in `fn two(a, b)`
  EXPECT_EQ(h.ctx.lastError(), "two.scn:1:4: error[E0220]: `two` takes 2 arguments but 1 was given");
  // Unknown names and non-functions.
  auto g = h.ctx.function("missing");
  EXPECT_EQ(g.status().code(), scn::StatusCode::NotFound);
  EXPECT_EQ(h.diags.back().code, "E0602");
  EXPECT_EQ(h.diags.back().message, "no function named `missing` is defined");
  EXPECT_EQ(h.ctx.lastError(), "scn: error[E0602]: no function named `missing` is defined");
  g = h.ctx.function("k");
  EXPECT_EQ(g.status().code(), scn::StatusCode::InvalidArgument);
  EXPECT_EQ(h.diags.back().code, "E0603");
  EXPECT_EQ(h.diags.back().message.rfind("`k` is ", 0), 0u) << h.diags.back().message;
  EXPECT_NE(h.diags.back().message.find("[], not a function"), std::string::npos) << h.diags.back().message;
  ASSERT_TRUE(h.ctx.load("let greeting = \"hello\""));
  EXPECT_EQ(h.ctx.function("greeting").status().code(), scn::StatusCode::InvalidArgument);
  EXPECT_EQ(h.diags.back().message, "`greeting` is a string, not a function");
  // Bad arrays: null data, a bad dtype, a negative dimension, strides of the wrong rank.
  auto f = h.ctx.function("two");
  ASSERT_TRUE(f.ok());
  std::vector<scn::ArrayView> bad = {scn::ArrayView(scn::DataType::F32, {2}, nullptr),
                                     scn::ArrayView(static_cast<scn::DataType>(42), {2}, x.data()),
                                     scn::ArrayView(scn::DataType::F32, {-2}, x.data()),
                                     scn::ArrayView(scn::DataType::F32, {2}, x.data(), {4, 4})};
  for (const scn::ArrayView& v : bad) {
    size_t before = h.diags.size();
    auto out = f->call({scn::ArrayView::of(x.data(), {2}), v});
    EXPECT_EQ(out.status().code(), scn::StatusCode::InvalidArgument);
    ASSERT_EQ(h.diags.size(), before + 1);
    EXPECT_EQ(h.diags.back().code, "E0601") << h.diags.back().message;
    EXPECT_EQ(h.diags.back().message.rfind("input 1 ", 0), 0u) << h.diags.back().message;
  }
  EXPECT_EQ(h.diags[h.diags.size() - 4].message, "input 1 has a null data pointer but 2 elements");
  auto nul = f->call(nullptr, 2);
  EXPECT_EQ(nul.status().code(), scn::StatusCode::InvalidArgument);
  // An empty handle and an empty array with a null pointer (allowed: no elements).
  EXPECT_EQ(scn::Function().call({}).status().code(), scn::StatusCode::InvalidArgument);
  auto empty = f->call({scn::ArrayView(scn::DataType::F32, {0}, nullptr),
                        scn::ArrayView(scn::DataType::F32, {0}, nullptr)});
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->at(0).size(), 0);
}

TEST(ApiCpp, ContextOptionsAreChecked) {
  std::vector<scn::DiagnosticRecord> diags;
  scn::ContextOptions o;
  o.onDiagnostic = [&](const scn::DiagnosticRecord& d) { diags.push_back(d); };
  o.backend = "tpu";
  auto c = scn::Context::create(o);
  EXPECT_EQ(c.status().code(), scn::StatusCode::InvalidArgument);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "E0421");
  o.backend = "cpu";
  o.optLevel = 9;
  EXPECT_EQ(scn::Context::create(o).status().code(), scn::StatusCode::InvalidArgument);
  EXPECT_EQ(diags.back().code, "E0601");
}

// A host's MPI communicator (docs/distributed.md, "Embedding"; the mpirun test is
// tests/distributed/embed_host.c): here MPI was never initialised, so the communicator is not
// touched and the context is refused with E0444 (or, in a build without MPI, E0444 says so).
TEST(ApiCpp, AnMpiCommunicatorWithoutMpiInitIsE0444) {
  std::vector<scn::DiagnosticRecord> diags;
  scn::ContextOptions o;
  o.backend = "interp";
  o.onDiagnostic = [&](const scn::DiagnosticRecord& d) { diags.push_back(d); };
  const void* notACommunicator = nullptr;  // never read: MPI is checked first
  o.mpiCommunicator = &notACommunicator;
  auto c = scn::Context::create(o);
  EXPECT_EQ(c.status().code(), scn::StatusCode::InvalidArgument);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "E0444");
  EXPECT_EQ(diags[0].message.rfind("the MPI communicator given to the context cannot be used: ", 0), 0u)
      << diags[0].message;
  EXPECT_NE(c.status().message().find("error[E0444]"), std::string::npos) << c.status().message();
  // Without a communicator the context is this process alone.
  o.mpiCommunicator = nullptr;
  auto alone = scn::Context::create(o);
  ASSERT_TRUE(alone) << alone.status().message();
  auto r = alone->call("process_count", {});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(*(*r)[0].dataAs<int32_t>(), 1);
}

TEST(ApiCpp, BackendsAgree) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  const char* prog = "fn f(x) = sum(tanh(x) * exp(-x * x), axis=0)";
  std::vector<double> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.1 * static_cast<double>(i) - 1.0;
  std::vector<std::vector<double>> got;
  for (const char* backend : {"interp", "cpu", "cuda-emu"}) {
    scn::ContextOptions o;
    o.backend = backend;
    auto c = scn::Context::create(o);
    if (!c && std::string(backend) == "cuda-emu") {
      std::printf("no cuda-emu backend in this build: %s\n", c.status().message().c_str());
      continue;
    }
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->backend(), backend);
    ASSERT_TRUE(c->load(prog));
    auto r = c->call("f", {scn::ArrayView::of(x.data(), {4, 6})});
    ASSERT_TRUE(r.ok()) << backend << ": " << r.status().message();
    got.push_back(values<double>(r->at(0)));
  }
  ASSERT_GE(got.size(), 2u);
  for (const std::vector<double>& g : got) {
    ASSERT_EQ(g.size(), 6u);
    for (size_t j = 0; j < 6; ++j) {
      double want = 0;
      for (int i = 0; i < 4; ++i) want += std::tanh(x[i * 6 + j]) * std::exp(-x[i * 6 + j] * x[i * 6 + j]);
      EXPECT_NEAR(g[j], want, 1e-12);
    }
  }
}

// Note [Denormals flushed to zero]: scn's arithmetic flushes denormal results (on the calling
// thread and on the CPU pool's workers alike: 2^16 elements are split over both), and the host's
// own arithmetic keeps IEEE denormals after the call.
TEST(ApiCpp, DenormalResultsAreFlushedAndTheHostsModeIsRestored) {
  for (const std::string& backend : scn::test::builtBackends({"interp", "cpu"})) {
    Host h(backend);
    ASSERT_TRUE(h.ctx.load("fn scale(x, s) = x * s"));
    std::vector<float> x(1 << 16, 1e-38f);
    float s = 0.01f;
    auto r = h.ctx.call("scale", {scn::ArrayView::of(x.data(), {static_cast<int64_t>(x.size())}),
                                  scn::ArrayView::of(&s, {})});
    ASSERT_TRUE(r.ok()) << backend << ": " << r.status().message();
    std::vector<float> got = values<float>(r->at(0));
    EXPECT_EQ(std::count(got.begin(), got.end(), 0.0f), static_cast<long>(got.size())) << backend;
    volatile float a = 1e-38f, b = 0.01f;
    EXPECT_GT(a * b, 0.0f) << backend << ": the host's denormals are gone after a call";
  }
}

TEST(ApiCpp, AssociativeScanOfAUserCombinerAgreesOnEveryBackend) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  // Note [Associative scans]: "the last nonzero value" over 40000 elements is a blocked scan on
  // the cpu (64 blocks, most of them without a nonzero), a serial fold on interp and the
  // odd-even rounds on cuda-emu; all equal a loop written here.
  const char* prog = "fn lnz(x) = associative_scan(|a, b| where(b != 0, b, a), x)";
  std::vector<int32_t> x(40000, 0);
  for (size_t i = 7; i < x.size(); i += 3001) x[i] = static_cast<int32_t>(i % 97) + 1;
  std::vector<int32_t> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] != 0 || i == 0 ? x[i] : want[i - 1];
  int ran = 0;
  for (const char* backend : {"interp", "cpu", "cuda-emu"}) {
    scn::ContextOptions o;
    o.backend = backend;
    auto c = scn::Context::create(o);
    if (!c && std::string(backend) == "cuda-emu") continue;  // not in this build
    ASSERT_TRUE(c.ok()) << c.status().message();
    ASSERT_TRUE(c->load(prog));
    auto r = c->call("lnz", {scn::ArrayView::of(x.data(), {static_cast<int64_t>(x.size())})});
    ASSERT_TRUE(r.ok()) << backend << ": " << r.status().message();
    EXPECT_EQ(values<int32_t>(r->at(0)), want) << backend;
    ++ran;
  }
  EXPECT_GE(ran, 2);
}

TEST(ApiCpp, ResultsAndFunctionsOutliveTheContext) {
  scn::HostArray kept;
  scn::Function fn;
  {
    auto c = scn::Context::create();
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE(c->load("fn sq(x) = x * x"));
    std::vector<int32_t> x = {1, 2, 3};
    auto r = c->call("sq", {scn::ArrayView::of(x.data(), {3})});
    ASSERT_TRUE(r.ok());
    kept = r->at(0);
    fn = c->function("sq").value();
  }
  EXPECT_EQ(values<int32_t>(kept), (std::vector<int32_t>{1, 4, 9}));
  int32_t five = 5;
  auto r = fn.call({scn::ArrayView::of(&five, {})});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(values<int32_t>(r->at(0))[0], 25);
}

TEST(ApiCpp, TwoContextsInTwoThreads) {
  // Each thread has its own context with its own meaning of `f`; they run at the same time.
  constexpr int kCalls = 25;
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([t, &errors] {
      auto c = scn::Context::create();
      if (!c) {
        errors[t] = c.status().message();
        return;
      }
      std::string src = t == 0 ? "fn f(x) = x * 2.0 + 1.0" : "fn f(x) = cumsum(x) - 3.0";
      if (!c->load(src)) {
        errors[t] = c->lastError();
        return;
      }
      for (int i = 0; i < kCalls; ++i) {
        // Varying lengths: some calls compile a new signature, some reuse one.
        std::vector<double> x(static_cast<size_t>(3 + i % 4));
        for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<double>(i) + 0.5 * static_cast<double>(k);
        auto r = c->call("f", {scn::ArrayView::of(x.data(), {static_cast<int64_t>(x.size())})});
        if (!r) {
          errors[t] = r.status().message();
          return;
        }
        const double* y = r->at(0).dataAs<double>();
        double run = 0;
        for (size_t k = 0; k < x.size(); ++k) {
          run += x[k];
          double want = t == 0 ? x[k] * 2 + 1 : run - 3;
          if (std::abs(y[k] - want) > 1e-9) {
            errors[t] = "thread " + std::to_string(t) + " call " + std::to_string(i) + " element " +
                        std::to_string(k) + ": " + std::to_string(y[k]) + " != " + std::to_string(want);
            return;
          }
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
}

// bf16 and f16 cross the API as their 16-bit patterns (the host keeps them as uint16_t); the
// expected patterns are NumPy's float16 and ml_dtypes' bfloat16 products, overflow to inf included.
TEST(ApiCpp, HalfPrecisionArraysAreTheirBits) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn triple(x) = x * 3\n"));
  struct Case {
    scn::DataType dtype;
    std::vector<uint16_t> in, want;
  };
  for (const Case& c : {Case{scn::DataType::F16, {0x3c00, 0x2e66, 0xc000, 0x7bff}, {0x4200, 0x34cc, 0xc600, 0x7c00}},
                        Case{scn::DataType::BF16, {0x3f80, 0x4020, 0xbdcd, 0x7f62}, {0x4040, 0x40f0, 0xbe9a, 0x7f80}}}) {
    auto r = h.ctx.call("triple", {scn::ArrayView(c.dtype, {4}, c.in.data())});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->at(0).dtype(), c.dtype);
    const auto* bits = static_cast<const uint16_t*>(r->at(0).data());
    EXPECT_EQ(std::vector<uint16_t>(bits, bits + 4), c.want) << scn::dataTypeName(c.dtype);
  }
  EXPECT_STREQ(scn::dataTypeName(scn::DataType::BF16), "bf16");
  EXPECT_EQ(scn::dataTypeSize(scn::DataType::F16), 2u);
}

TEST(ApiCpp, NamesOfDataTypes) {
  EXPECT_STREQ(scn::dataTypeName(scn::DataType::F64), "f64");
  EXPECT_EQ(scn::dataTypeSize(scn::DataType::Bool), 1u);
  EXPECT_EQ(scn::dataTypeSize(scn::DataType::U64), 8u);
  EXPECT_STREQ(scn::dataTypeName(static_cast<scn::DataType>(99)), "?");
  EXPECT_STREQ(scn::version(), "0.1.0");
}

/// Files under `dir` whose name ends with `suffix`.
int countFiles(const std::filesystem::path& dir, const std::string& suffix) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) ++n;
  }
  return n;
}

TEST(ApiCpp, ReusableMemoryIsBoundedAndCanBeGivenBack) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  Host h("cpu");
  ASSERT_TRUE(h.ctx.load("fn big(a) = a + 1.0", "big.scn"));
  auto f = h.ctx.function("big");
  ASSERT_TRUE(f.ok());
  std::vector<double> x(size_t(1) << 21, 2.0);  // 16 MiB
  scn::setReusableMemoryLimit(size_t(256) << 20);
  size_t before = scn::reusableMemoryBytes();
  {
    auto r = f->call({scn::ArrayView::of(x.data(), {int64_t(1) << 21})});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(values<double>(r.value().at(0))[7], 3.0);
  }
  EXPECT_GE(scn::reusableMemoryBytes(), before + (size_t(16) << 20));
  scn::setReusableMemoryLimit(size_t(8) << 20);  // below what is kept: the oldest blocks go
  EXPECT_LE(scn::reusableMemoryBytes(), size_t(8) << 20);
  scn::setReusableMemoryLimit(size_t(256) << 20);
}

TEST(ApiCpp, CacheDirSkipsCodegenInASecondContext) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("scn_api_cache_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const char* program = "fn poly(x) = fori_loop(0, 3, |i, c| c * x + 1.5, x)";
  std::vector<float> x = {0.5f, -1, 2, 3};
  auto run = [&](const std::string& cacheDir, scn::CallStats& stats, std::vector<float>& out) {
    scn::ContextOptions o;
    o.backend = "cpu";
    o.cacheDir = cacheDir;
    auto ctx = scn::Context::create(o);
    ASSERT_TRUE(ctx.ok()) << ctx.status().message();
    ASSERT_TRUE(ctx->load(program, "poly.scn"));
    auto r = ctx->call("poly", {scn::ArrayView::of(x.data(), {4})});
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(ctx->lastStats().size(), 1u);
    stats = ctx->lastStats()[0];
    out = values<float>(r->at(0));
  };
  scn::CallStats first, second, uncached;
  std::vector<float> a, b, c;
  run(dir.string(), first, a);
  EXPECT_EQ(first.function, "poly");
  EXPECT_TRUE(first.compiled);
  EXPECT_FALSE(first.cacheHit);  // a fresh directory
  EXPECT_GE(countFiles(dir / "cpu", ".o"), 1);
  // A second context (a new JIT, nothing in memory) finds the object on disk.
  run(dir.string(), second, b);
  EXPECT_TRUE(second.compiled);
  EXPECT_TRUE(second.cacheHit);
  EXPECT_EQ(a, b);
  for (size_t i = 0; i < x.size(); ++i) {
    float want = x[i];
    for (int k = 0; k < 3; ++k) want = want * x[i] + 1.5f;
    EXPECT_FLOAT_EQ(a[i], want) << i;
  }
  EXPECT_EQ(countFiles(dir, ".tmp"), 0);  // writes are renamed into place
  // A damaged object is a miss (and is replaced), never an error.
  for (const auto& e : fs::directory_iterator(dir / "cpu"))
    std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << "not an object file";
  scn::CallStats damaged, repaired;
  std::vector<float> d, e;
  run(dir.string(), damaged, d);
  EXPECT_FALSE(damaged.cacheHit);
  EXPECT_EQ(a, d);
  run(dir.string(), repaired, e);
  EXPECT_TRUE(repaired.cacheHit);
  EXPECT_EQ(a, e);
  // Without a cache directory nothing comes from (or goes to) disk.
  int files = countFiles(dir, "");
  run("", uncached, c);
  EXPECT_FALSE(uncached.cacheHit);
  EXPECT_EQ(a, c);
  EXPECT_EQ(countFiles(dir, ""), files);
  fs::remove_all(dir);
}

TEST(ApiCpp, ContextsInThreadsShareACacheDir) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("scn_api_shared_cache_" + std::to_string(getpid()));
  fs::remove_all(dir);
  constexpr int kThreads = 4;
  std::vector<std::string> errors(kThreads);
  std::vector<std::vector<double>> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      scn::ContextOptions o;
      o.backend = "cpu";
      o.cacheDir = dir.string();
      auto ctx = scn::Context::create(o);
      if (!ctx) {
        errors[t] = ctx.status().message();
        return;
      }
      std::vector<double> x = {1, 2, 3, 4, 5, 6};
      for (int round = 0; round < 3 && errors[t].empty(); ++round) {
        // Each round a new function (new code, new file) that every thread compiles at once.
        std::string name = "f" + std::to_string(round);
        if (!ctx->load("fn " + name + "(x) = cumsum(x * " + std::to_string(round + 2) + ".0)")) {
          errors[t] = ctx->lastError();
          break;
        }
        auto r = ctx->call(name, {scn::ArrayView::of(x.data(), {6})});
        if (!r) errors[t] = r.status().message();
        else results[t].push_back(r->at(0).dataAs<double>()[5]);
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << t;
    EXPECT_EQ(results[t], (std::vector<double>{42, 63, 84})) << t;
  }
  EXPECT_EQ(countFiles(dir, ".tmp"), 0);
  EXPECT_GE(countFiles(dir / "cpu", ".o"), 3);
  fs::remove_all(dir);
}

// Note [One thread per context]: while one thread is inside a context, every other entry point
// from another thread fails with E0601 instead of racing on the context's state; interrupt()
// still works, and afterwards the context is as usable as before.
TEST(ApiCpp, ASecondThreadIsRefusedWhileACallRuns) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  std::atomic<bool> inside{false};
  std::vector<scn::DiagnosticRecord> diags;  // touched by the worker only, until it is joined
  scn::ContextOptions o;
  o.backend = "cpu";
  o.onDiagnostic = [&](const scn::DiagnosticRecord& d) { diags.push_back(d); };
  o.onPrint = [&](std::string_view) { inside = true; };  // the spin call is tracing
  auto made = scn::Context::create(o);
  ASSERT_TRUE(made.ok()) << made.status().message();
  scn::Context& ctx = *made;
  ASSERT_TRUE(ctx.load("fn spin(x) { print(\"spinning\"); while_loop(|c| c == c, |c| c + 1.0, x) }\n"
                       "fn twice(x) = x * 2.0",
                       "spin.scn"));
  auto twice = ctx.function("twice");
  ASSERT_TRUE(twice.ok());
  float x = 0, three = 3;
  std::optional<scn::Result<std::vector<scn::HostArray>>> spun;
  std::atomic<bool> done{false};
  std::thread worker([&] {
    spun.emplace(ctx.call("spin", {scn::ArrayView::of(&x, {})}));
    done = true;
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!inside && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(inside.load());
  const std::string inUse = "scn: error[E0601]: the context is in use by another thread";
  scn::Status loaded = ctx.load("let y = 1");
  EXPECT_EQ(loaded.code(), scn::StatusCode::InvalidArgument);
  EXPECT_EQ(loaded.message(), inUse);
  auto looked = ctx.function("twice");
  EXPECT_EQ(looked.status().code(), scn::StatusCode::InvalidArgument);
  EXPECT_EQ(looked.status().message(), inUse);
  auto called = twice->call({scn::ArrayView::of(&three, {})});
  EXPECT_EQ(called.status().code(), scn::StatusCode::InvalidArgument);
  EXPECT_EQ(called.status().message(), inUse);
  EXPECT_EQ(ctx.call("twice", {scn::ArrayView::of(&three, {})}).status().message(), inUse);
  EXPECT_EQ(ctx.loadFile("/nonexistent.scn").message(), inUse);
  EXPECT_EQ(ctx.lastError(), inUse);
  EXPECT_TRUE(ctx.lastStats().empty());
  EXPECT_FALSE(done.load());  // the spin call was not disturbed
  while (!done && std::chrono::steady_clock::now() < deadline) {
    ctx.interrupt();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!done) {
    std::fprintf(stderr, "FAIL: the spinning call did not stop after two minutes of interrupts\n");
    std::_Exit(1);
  }
  worker.join();
  ASSERT_TRUE(spun.has_value());
  EXPECT_EQ(spun->status().code(), scn::StatusCode::Interrupted);
  // The refused calls reported nothing to the callback: it belongs to the running call.
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "E0507");
  // Free again: every entry point works.
  EXPECT_NE(ctx.lastError().find("error[E0507]: interrupted"), std::string::npos) << ctx.lastError();
  ASSERT_TRUE(ctx.load("let y = 1"));
  auto r = twice->call({scn::ArrayView::of(&three, {})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FLOAT_EQ(*r->at(0).dataAs<float>(), 6.0f);
}

class ApiInterrupt : public ::testing::TestWithParam<std::string> {};

// Compiled loops (CPU code, the CUDA step runner) and the interpreter's loops poll the
// context's interrupt flag.
TEST_P(ApiInterrupt, StopsAnEndlessCompiledLoop) {
  Host h(GetParam());
  // An expression body: nothing for the evaluator to poll, only the compiled while loop.
  // spin_for's 2*10^9 tiny iterations poll once per chunk (Note [Polling small loop bodies]):
  // uninterrupted, it would return a value after seconds.
  ASSERT_TRUE(h.ctx.load("fn spin(x) = while_loop(|c| c == c, |c| c + 1.0, x)\n"
                         "fn spin_for(x) = fori_loop(0, 2000000000, |i, c| c + 1.0, x)\n"
                         "fn twice(x) = x * 2.0",
                         "spin.scn"));
  float x = 0, three = 3;
  // A request made while no call runs is dropped: the next call completes.
  h.ctx.interrupt();
  auto r = h.ctx.call("twice", {scn::ArrayView::of(&three, {})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FLOAT_EQ(*r->at(0).dataAs<float>(), 6.0f);
  for (int round = 0; round < 4; ++round) {  // rounds 2 and 3 reuse the compiled code
    std::optional<scn::Result<std::vector<scn::HostArray>>> spun;
    std::atomic<bool> done{false};
    std::thread worker([&] {
      spun.emplace(h.ctx.call(round % 2 ? "spin_for" : "spin", {scn::ArrayView::of(&x, {})}));
      done = true;
    });
    // Keep asking until the call returns (a request that lands before the call starts is
    // dropped); a loop that never polls would hang here, so give up loudly after two minutes.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (!done) {
      h.ctx.interrupt();
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "FAIL: the compiled loop did not stop after two minutes of interrupts\n");
        std::_Exit(1);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    worker.join();
    ASSERT_TRUE(spun.has_value());
    ASSERT_FALSE(spun->ok());
    EXPECT_EQ(spun->status().code(), scn::StatusCode::Interrupted);
    EXPECT_NE(spun->status().message().find("error[E0507]: interrupted"), std::string::npos)
        << spun->status().message();
    ASSERT_FALSE(h.diags.empty());
    EXPECT_EQ(h.diags.back().code, "E0507");
    h.diags.clear();
    // The context goes on.
    r = h.ctx.call("twice", {scn::ArrayView::of(&three, {})});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_FLOAT_EQ(*r->at(0).dataAs<float>(), 6.0f);
  }
}

#ifdef SCN_HAVE_CUDA
// cuda-emu: the CUDA step runner polls between while chunks (the emulated kernels do not).
INSTANTIATE_TEST_SUITE_P(Backends, ApiInterrupt, ::testing::ValuesIn(scn::test::builtBackends({"cpu", "interp", "cuda-emu"})));
#else
INSTANTIATE_TEST_SUITE_P(Backends, ApiInterrupt, ::testing::ValuesIn(scn::test::builtBackends({"cpu", "interp"})));
#endif

}  // namespace

// A host calls a gradient function a loaded program binds with `let df = grad(f)`, and a fn
// that uses it (a gradient step, compiled and reused like any fn).
TEST(ApiCpp, CallAGradientOfALoadedProgram) {
  Host h;
  ASSERT_TRUE(h.ctx.load("fn f(x) = sum(x * sin(x))\n"
                         "let df = grad(f)\n"
                         "fn step(x) = x - 0.5 * df(x)\n",
                         "grad.scn"));
  std::vector<float> x = {0.5f, -1.0f, 2.0f};
  auto df = h.ctx.function("df");
  ASSERT_TRUE(df.ok()) << df.status().message();
  auto r = df->call({scn::ArrayView::of(x.data(), {3})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<float> g = values<float>(r->at(0));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(g[i], std::sin(x[i]) + x[i] * std::cos(x[i]), 1e-6) << i;
  auto step = h.ctx.function("step");
  ASSERT_TRUE(step.ok());
  for (int k = 0; k < 2; ++k) {
    auto s = step->call({scn::ArrayView::of(x.data(), {3})});
    ASSERT_TRUE(s.ok()) << s.status().message();
    std::vector<float> got = values<float>(s->at(0));
    for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(got[i], x[i] - 0.5f * g[i], 1e-6) << i;
  }
  EXPECT_TRUE(h.diags.empty());
}

TEST(ApiCpp, TheGradMemoryBudgetCheckpointsALongScan) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  // 1000 steps of an f32[100] carry store 400 KB for the gradient; a budget of 40 KB makes
  // reverse mode checkpoint the scan (32 carries), which lowers the peak and keeps the values.
  const char* program =
      "fn g(w) = grad(|a| sum(scan(|c, x| (tanh(c * a + x), 0.0), ones(100), linspace(-1.0, 1.0, 1000)).0))(w)";
  auto run = [&](uint64_t budget, scn::CallStats& stats, std::vector<float>& out) {
    scn::ContextOptions o;
    o.backend = "cpu";
    o.gradMemoryBudget = budget;
    auto ctx = scn::Context::create(o);
    ASSERT_TRUE(ctx.ok()) << ctx.status().message();
    ASSERT_TRUE(ctx->load(program, "g.scn"));
    float w = 0.9f;
    auto r = ctx->call("g", {scn::ArrayView::of(&w, {})});
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(ctx->lastStats().size(), 1u);
    stats = ctx->lastStats()[0];
    out = values<float>(r->at(0));
  };
  scn::CallStats stored, checkpointed;
  std::vector<float> a, b;
  run(0, stored, a);  // the default: 1 GiB
  run(40000, checkpointed, b);
  EXPECT_EQ(a, b);
  EXPECT_GT(stored.hostPeakBytes, 400000u);
  EXPECT_LT(checkpointed.hostPeakBytes, 100000u);
}
