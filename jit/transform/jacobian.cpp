// Jacobians as batched JVPs (forward: one per input element) or batched VJPs (reverse: one per
// output element), through vmap's batchFunc, as JAX's jacfwd and jacrev.
#include "base/diagnostics.hpp"
#include "jit/batch.hpp"
#include "jit/transform/ad.hpp"
#include "jit/transform/batch_rules.hpp"

namespace scn {

namespace {

// Columns [from, from + count) of the n x n identity, as an array of shape (n, *shape).
Array basis(DType dtype, int64_t n, int64_t from, const Shape& shape) {
  Shape s{n};
  s.insert(s.end(), shape.begin(), shape.end());
  Array a(dtype, s);
  int64_t count = numElements(shape);
  for (int64_t i = 0; i < n * count; ++i) a.setDouble(i, 0);
  for (int64_t k = 0; k < count; ++k) a.setDouble((from + k) * count + k, 1);
  return a;
}

// f with only its results from `first` on.
FuncPtr dropResults(const Func& f, size_t first) {
  auto g = std::make_shared<Func>(f);
  g->results.erase(g->results.begin(), g->results.begin() + static_cast<std::ptrdiff_t>(first));
  return g;
}

}  // namespace

FuncPtr jacobianFunc(const Func& f, const std::vector<bool>& wrt, bool forward, const VjpOptions& options) {
  using namespace ad;
  std::vector<size_t> in;  // the differentiated parameters
  for (size_t i = 0; i < wrt.size(); ++i)
    if (wrt[i]) in.push_back(i);
  // The basis runs over the elements of the inputs (forward) or of the results (reverse).
  std::vector<Type> basisTypes;
  if (forward)
    for (size_t i : in) basisTypes.push_back(f.type(f.params[i]));
  else
    for (int r : f.results) basisTypes.push_back(f.type(r));
  std::vector<int64_t> offset;
  int64_t n = 0;
  for (const Type& t : basisTypes) {
    offset.push_back(n);
    n += numElements(t.shape);
  }
  FuncPtr lin = forward ? jvpFunc(f, wrt) : vjpFunc(f, wrt, options);
  FuncPtr linOnly = dropResults(*lin, f.results.size());
  std::vector<std::optional<int>> inAxes(f.params.size(), std::nullopt), outAxes(linOnly->results.size(), 0);
  inAxes.resize(lin->params.size(), 0);
  FuncPtr batched = batchFunc(*linOnly, inAxes, n, outAxes, Span{});

  auto g = std::make_shared<Func>();
  g->name = std::string(forward ? "jacfwd" : "jacrev") + (f.name.empty() ? "" : "_" + f.name);
  std::vector<int> args;
  for (int p : f.params) {
    g->params.push_back(g->newVar(f.type(p)));
    args.push_back(g->params.back());
  }
  Builder b{*g, Span{}};
  for (size_t k = 0; k < basisTypes.size(); ++k) {
    Attrs a;
    a.dtype = basisTypes[k].dtype;
    a.value = std::make_shared<Array>(basis(basisTypes[k].dtype, n, offset[k], basisTypes[k].shape));
    args.push_back(b.emit1(Op::Constant, {}, std::move(a)));
  }
  std::vector<int> stacked = batching::inlineFunc(*g, *batched, args);
  for (size_t o = 0; o < f.results.size(); ++o) {
    const Type& out = f.type(f.results[o]);
    for (size_t k = 0; k < in.size(); ++k) {
      const Type& x = f.type(f.params[in[k]]);
      int64_t outCount = numElements(out.shape), inCount = numElements(x.shape);
      Shape js = out.shape;
      js.insert(js.end(), x.shape.begin(), x.shape.end());
      // forward: stacked[o] is (n, *out) over the input elements; reverse: stacked[k] is
      // (n, *x) over the output elements.
      int rows = forward ? stacked[o] : stacked[k];
      int64_t from = forward ? offset[k] : offset[o], count = forward ? inCount : outCount;
      int part = b.sliceAxis(rows, 0, from, from + count);
      if (forward) {
        part = b.reshape(part, {inCount, outCount});
        part = b.transpose(part, {1, 0});
      }
      int j = b.reshape(part, js);
      // The output's dtype, but a real output's rows for a complex input stay complex (the
      // gradient of |z| is conj(z) / |z|, as jax.jacrev's).
      bool complexRows = !forward && isComplex(x.dtype) && !isComplex(out.dtype);
      g->results.push_back(b.convert(j, complexRows ? x.dtype : out.dtype));
    }
  }
  return g;
}

}  // namespace scn
