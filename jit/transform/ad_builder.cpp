// The IR builder of the autodiff rules: typed emission and the few composite helpers the JVP
// and transpose rules share (constants, broadcasts, take/scatter along an axis).
#include <string>

#include "base/diagnostics.hpp"
#include "jit/transform/ad.hpp"

namespace scn::ad {

bool differentiable(DType d) { return isFloat(d) || isComplex(d); }

std::vector<int> Builder::emit(Op op, std::vector<int> inputs, Attrs attrs, std::vector<FuncPtr> subs) {
  std::vector<Type> in;
  in.reserve(inputs.size());
  for (int v : inputs) in.push_back(dst.type(v));
  InferResult r = inferTypes(op, in, attrs, subs);
  if (!r.ok()) internalError("autodiff built an ill-typed " + std::string(opName(op)) + ": " + r.error);
  Eqn e{op, std::move(inputs), {}, std::move(attrs), std::move(subs), span};
  for (Type& t : r.types) e.outputs.push_back(dst.newVar(std::move(t)));
  dst.eqns.push_back(std::move(e));
  return dst.eqns.back().outputs;
}

int Builder::emit1(Op op, std::vector<int> inputs, Attrs attrs) {
  std::vector<int> out = emit(op, std::move(inputs), std::move(attrs));
  SCN_ASSERT(out.size() == 1, "one output");
  return out[0];
}

int Builder::full(Type t, double v) {
  Attrs a;
  a.dtype = t.dtype;
  a.value = std::make_shared<Array>(isFloat(t.dtype) || isComplex(t.dtype) ? Array::scalar(t.dtype, v)
                                                     : Array::scalarInt(t.dtype, static_cast<int64_t>(v)));
  int c = emit1(Op::Constant, {}, std::move(a));
  return t.shape.empty() ? c : broadcast(c, t.shape, {});
}

int Builder::convert(int a, DType to) {
  if (type(a).dtype == to) return a;
  Attrs at;
  at.dtype = to;
  return emit1(Op::Convert, {a}, std::move(at));
}

int Builder::reshape(int a, const Shape& shape) {
  if (type(a).shape == shape) return a;
  Attrs at;
  at.shape = shape;
  return emit1(Op::Reshape, {a}, std::move(at));
}

int Builder::sliceAxis(int a, int64_t axis, int64_t lo, int64_t hi) {
  const Shape shape = type(a).shape;
  Attrs at;
  at.starts.assign(shape.size(), 0);
  at.limits = shape;
  at.strides.assign(shape.size(), 1);
  at.starts[axis] = lo;
  at.limits[axis] = hi;
  return emit1(Op::Slice, {a}, std::move(at));
}

int Builder::transpose(int a, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return a;
  Attrs at;
  at.axes = perm;
  return emit1(Op::Transpose, {a}, std::move(at));
}

int Builder::broadcast(int a, const Shape& shape, const std::vector<int64_t>& axes) {
  if (type(a).shape == shape) return a;
  Attrs at;
  at.shape = shape;
  at.axes = axes;
  return emit1(Op::BroadcastInDim, {a}, std::move(at));
}

int Builder::reduceSum(int a, const std::vector<int64_t>& axes) {
  if (axes.empty()) return a;
  Attrs at;
  at.axes = axes;
  return emit1(Op::ReduceSum, {a}, std::move(at));
}

namespace {
// One index array per axis of t: iotas, except `idx` along `axis` (Gather takes k = rank).
std::vector<int> fullIndices(Builder& b, const Type& t, int idx, int64_t axis) {
  std::vector<int> out;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (static_cast<int64_t>(d) == axis) {
      out.push_back(idx);
      continue;
    }
    Attrs a;
    a.dtype = b.type(idx).dtype;
    a.shape = t.shape;
    a.axes = {static_cast<int64_t>(d)};
    out.push_back(b.emit1(Op::Iota, {}, std::move(a)));
  }
  return out;
}
}  // namespace

int Builder::takeAlongAxis(int x, int idx, int64_t axis) {
  std::vector<int> in{x};
  for (int i : fullIndices(*this, type(x), idx, axis)) in.push_back(i);
  return emit1(Op::Gather, std::move(in));
}

int Builder::scatterAlongAxis(const Type& t, int ct, int idx, int64_t axis) {
  std::vector<int> in{zeros(t), ct};
  for (int i : fullIndices(*this, t, idx, axis)) in.push_back(i);
  return emit1(Op::ScatterAdd, std::move(in));
}

Tan Builder::addTan(Tan a, Tan b) {
  if (!a) return b;
  if (!b) return a;
  return add(*a, *b);
}

FuncPtr permuted(const Func& f, const std::vector<size_t>& params, const std::vector<size_t>& results) {
  SCN_ASSERT(params.size() == f.params.size() && results.size() == f.results.size(), "a permutation");
  auto g = std::make_shared<Func>(f);
  for (size_t i = 0; i < params.size(); ++i) g->params[i] = f.params.at(params[i]);
  for (size_t i = 0; i < results.size(); ++i) g->results[i] = f.results.at(results[i]);
  return g;
}

}  // namespace scn::ad
