// A C++ host embedding scn: define functions in scn source, call them on host arrays, print the
// results, and show a diagnostic arriving through the callback (the library never prints).
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <scn/scn.hpp>

namespace {

const char* kProgram = R"(# compiled once per signature (dtype and shape), then reused
fn saxpy(a, x, y) = a * x + y
fn norms(m) = sqrt(sum(m * m, axis=1))
fn running(x) = cumsum(x)
fn softmax(x) {
  let e = exp(x - max(x))
  e / sum(e)
}
)";

void print(const std::string& label, const scn::HostArray& a) {
  std::cout << label << ": " << scn::dataTypeName(a.dtype()) << "[";
  for (size_t d = 0; d < a.rank(); ++d) std::cout << (d ? "," : "") << a.shape()[d];
  std::cout << "]";
  for (int64_t i = 0; i < a.size(); ++i) {
    char buf[32];
    switch (a.dtype()) {
      case scn::DataType::F32: std::snprintf(buf, sizeof buf, " %g", a.dataAs<float>()[i]); break;
      case scn::DataType::F64: std::snprintf(buf, sizeof buf, " %g", a.dataAs<double>()[i]); break;
      case scn::DataType::I32: std::snprintf(buf, sizeof buf, " %d", a.dataAs<int32_t>()[i]); break;
      default: std::snprintf(buf, sizeof buf, " ?"); break;
    }
    std::cout << buf;
  }
  std::cout << "\n";
}

}  // namespace

int main() {
  int diagnostics = 0;
  scn::ContextOptions opts;
  opts.onDiagnostic = [&](const scn::DiagnosticRecord& d) {
    ++diagnostics;
    std::cout << "diagnostic " << d.code << " at " << d.file << ":" << d.line << ":" << d.column
              << ": " << d.message << "\n";
    std::cerr << d.rendered;
  };
  opts.onPrint = [](std::string_view text) { std::cout << "program says: " << text; };

  scn::Result<scn::Context> made = scn::Context::create(opts);
  if (!made) return 1;
  scn::Context& ctx = *made;
  if (!ctx.load(kProgram, "embed.scn")) return 1;
  if (!ctx.load("print(\"hello from scn\")", "hello.scn")) return 1;
  int failures = 0;

  // saxpy on host vectors: contiguous inputs are passed without a copy.
  float a = 2.0f;
  std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  scn::Result<scn::Function> saxpy = ctx.function("saxpy");
  if (!saxpy) return 1;
  auto r = saxpy->call({scn::ArrayView::of(&a, {}), scn::ArrayView::of(x.data(), {4}),
                        scn::ArrayView::of(y.data(), {4})});
  if (r) print("saxpy", r->at(0));
  else ++failures;

  // Row norms of a 2x3 f64 matrix, then a result fed back into another call without a copy.
  std::vector<double> m = {3, 4, 0, 1, 2, 2};
  auto norms = ctx.call("norms", {scn::ArrayView::of(m.data(), {2, 3})});
  if (norms) {
    print("norms", norms->at(0));
    auto run = ctx.call("running", {norms->at(0).view()});
    if (run) print("running", run->at(0));
    else ++failures;
  } else {
    ++failures;
  }

  // Calls into the C math library from compiled code.
  std::vector<double> logits = {1, 2, 3, 0.5};
  auto sm = ctx.call("softmax", {scn::ArrayView::of(logits.data(), {4})});
  if (sm) print("softmax", sm->at(0));
  else ++failures;

  // Two contexts, one per thread, at the same time: nothing is shared between them.
  std::vector<float> fromThread(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([t, &fromThread] {
      auto c = scn::Context::create();
      if (!c || !c->load("fn f(x) = sum(x * x) + " + std::to_string(t * 100) + ".0")) return;
      std::vector<float> v = {1, 2, 3};
      auto out = c->call("f", {scn::ArrayView::of(v.data(), {3})});
      if (out) fromThread[t] = out->at(0).dataAs<float>()[0];
    });
  }
  for (std::thread& th : threads) th.join();
  std::cout << "threads: " << fromThread[0] << " " << fromThread[1] << "\n";

  // An error: shapes (4,) and (3,) do not broadcast. The diagnostic reaches the callback with
  // its code, file, line and column; the call returns a ProgramError status.
  auto bad = saxpy->call({scn::ArrayView::of(&a, {}), scn::ArrayView::of(x.data(), {4}),
                          scn::ArrayView::of(y.data(), {3})});
  if (!bad) std::cout << "saxpy failed: " << bad.status().message() << "\n";

  std::cout << "diagnostics: " << diagnostics << "\n";
  return failures == 0 && !bad && diagnostics == 1 ? 0 : 1;
}
