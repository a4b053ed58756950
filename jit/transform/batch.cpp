// vmap over the IR: walks a function's equations tracking where each value is batched, applies
// each equation's batching rule, and places the results at the requested out axes.
#include "jit/batch.hpp"

#include <string>

#include "jit/transform/batch_rules.hpp"
#include "base/diagnostics.hpp"

namespace scn {
namespace batching {

// Note [Batch dimensions]
// Like JAX's BatchTracer, every value of the function being batched is either unbatched (the
// same for all lanes: it has the original type) or batched at some axis b (the original type
// with a dimension of size n inserted at b). Rules keep the batch dimension where it is when
// they can (elementwise ops follow their first batched operand, reductions and slices shift
// their axes around it) and move it to axis 0 when that is simpler (reshape, transpose,
// concat); nothing is moved to its final place until the results, where the out axes say.
// Unbatched values stay unbatched: an op on unbatched inputs is copied unchanged, so code that
// does not depend on the mapped inputs costs nothing extra.

Type batchedType(const Type& t, BDim dim, int64_t n) {
  if (!dim) return t;
  SCN_ASSERT(*dim >= 0 && static_cast<size_t>(*dim) <= t.shape.size(), "batch axis in range");
  Type r = t;
  r.shape.insert(r.shape.begin() + *dim, n);
  return r;
}

Type unbatchedType(const Type& t, BDim dim) {
  if (!dim) return t;
  SCN_ASSERT(*dim >= 0 && static_cast<size_t>(*dim) < t.shape.size(), "batch axis in range");
  Type r = t;
  r.shape.erase(r.shape.begin() + *dim);
  return r;
}

std::vector<int> Ctx::emit(Op op, std::vector<int> inputs, Attrs attrs,
                           std::vector<FuncPtr> subs) {
  std::vector<Type> in;
  in.reserve(inputs.size());
  for (int v : inputs) in.push_back(dst.type(v));
  InferResult r = inferTypes(op, in, attrs, subs);
  if (!r.ok()) internalError("vmap built an ill-typed " + std::string(opName(op)) + ": " + r.error);
  Eqn e{op, std::move(inputs), {}, std::move(attrs), std::move(subs), span};
  for (Type& t : r.types) e.outputs.push_back(dst.newVar(std::move(t)));
  dst.eqns.push_back(std::move(e));
  return dst.eqns.back().outputs;
}

int Ctx::emit1(Op op, std::vector<int> inputs, Attrs attrs, std::vector<FuncPtr> subs) {
  std::vector<int> out = emit(op, std::move(inputs), std::move(attrs), std::move(subs));
  SCN_ASSERT(out.size() == 1, "one output");
  return out[0];
}

int Ctx::moveTo(BVal v, int to) {
  SCN_ASSERT(v.dim.has_value(), "moveTo on a batched value");
  const Type& t = type(v.var);
  int from = *v.dim;
  SCN_ASSERT(t.shape.at(from) == n, "batched inputs have the vmap axis size");
  if (from == to) return v.var;
  int rank = static_cast<int>(t.shape.size());
  SCN_ASSERT(to >= 0 && to < rank, "target batch axis in range");
  Attrs a;
  for (int i = 0; i < rank; ++i)
    if (i != from) a.axes.push_back(i);
  a.axes.insert(a.axes.begin() + to, from);
  return emit1(Op::Transpose, {v.var}, std::move(a));
}

int Ctx::broadcastBatch(int var, int at) {
  const Type& t = type(var);
  int rank = static_cast<int>(t.shape.size());
  SCN_ASSERT(at >= 0 && at <= rank, "broadcast batch axis in range");
  std::vector<int64_t> axes;
  for (int i = 0; i < rank; ++i) axes.push_back(i < at ? i : i + 1);
  return broadcastTo(var, batchedType(t, at, n).shape, std::move(axes));
}

int Ctx::broadcastTo(int var, const Shape& shape, std::vector<int64_t> axes) {
  Attrs a;
  a.shape = shape;
  a.axes = std::move(axes);
  return emit1(Op::BroadcastInDim, {var}, std::move(a));
}

int Ctx::materialize(BVal v, int to) {
  return v.dim ? moveTo(v, to) : broadcastBatch(v.var, to);
}

int Ctx::scalar(DType dtype, int64_t value) {
  Attrs a;
  a.dtype = dtype;
  a.value = std::make_shared<Array>(Array::scalarInt(dtype, value));
  return emit1(Op::Constant, {}, std::move(a));
}

std::vector<int> inlineFunc(Func& dst, const Func& callee, const std::vector<int>& args) {
  SCN_ASSERT(args.size() == callee.params.size(), "inlined call has one argument per parameter");
  std::vector<int> map(callee.types.size(), -1);
  for (size_t i = 0; i < args.size(); ++i) {
    SCN_ASSERT(dst.type(args[i]) == callee.type(callee.params[i]), "inlined argument types");
    map[callee.params[i]] = args[i];
  }
  for (const Eqn& e : callee.eqns) {
    Eqn copy = e;
    for (int& v : copy.inputs) {
      SCN_ASSERT(map.at(v) >= 0, "inlined function is in SSA order");
      v = map[v];
    }
    for (int& v : copy.outputs) v = map[v] = dst.newVar(callee.type(v));
    dst.eqns.push_back(std::move(copy));
  }
  std::vector<int> out;
  for (int r : callee.results) out.push_back(map.at(r));
  return out;
}

namespace {

// The batched function with its equations built and its results not yet placed.
struct Partial {
  FuncPtr func;
  std::vector<BVal> results;
};

Partial batchEqns(const Func& f, const std::vector<BDim>& inDims, int64_t n, const NamedAxis& axis) {
  SCN_ASSERT(inDims.size() == f.params.size(), "one batch axis per parameter");
  auto g = std::make_shared<Func>();
  g->name = f.name;
  std::vector<BVal> val(f.types.size());
  for (size_t i = 0; i < f.params.size(); ++i) {
    int p = f.params[i];
    val[p] = BVal{g->newVar(batchedType(f.type(p), inDims[i], n)), inDims[i]};
    g->params.push_back(val[p].var);
  }
  Ctx c{*g, n, Span{}, axis};
  for (const Eqn& e : f.eqns) {
    std::vector<BVal> in;
    for (int v : e.inputs) {
      SCN_ASSERT(val.at(v).var >= 0, "function is in SSA order");
      in.push_back(val[v]);
    }
    c.span = e.span;
    std::vector<BVal> out = batchEqn(c, e, in);
    SCN_ASSERT(out.size() == e.outputs.size(), "batching rule returns one value per output");
    for (size_t j = 0; j < out.size(); ++j) {
      SCN_ASSERT(c.type(out[j].var) == batchedType(f.type(e.outputs[j]), out[j].dim, n),
                 std::string("batching rule of ") + opName(e.op) + " gives the batched type");
      val[e.outputs[j]] = out[j];
    }
  }
  Partial p{g, {}};
  for (int r : f.results) p.results.push_back(val.at(r));
  return p;
}

// Sets the results of p.func, moving (or broadcasting) result j to want[j] when given.
BatchedFunc placeResults(Partial p, const std::vector<BDim>& want, int64_t n, Span span, const NamedAxis& axis) {
  SCN_ASSERT(want.size() == p.results.size(), "one out axis per result");
  Ctx c{*p.func, n, span, axis};
  BatchedFunc b{p.func, {}};
  for (size_t j = 0; j < want.size(); ++j) {
    BVal v = p.results[j];
    if (want[j]) v = BVal{c.materialize(v, *want[j]), want[j]};
    p.func->results.push_back(v.var);
    b.outDims.push_back(v.dim);
  }
  return b;
}

}  // namespace

BatchedFunc batchSubFunc(const Func& f, const std::vector<BDim>& inDims, int64_t n,
                         const std::vector<BDim>& want, Span span, const NamedAxis& axis) {
  return placeResults(batchEqns(f, inDims, n, axis), want, n, span, axis);
}

}  // namespace batching

FuncPtr batchFunc(const Func& f, const std::vector<std::optional<int>>& inAxes, int64_t axisSize,
                  const std::vector<std::optional<int>>& outAxes, Span span, const NamedAxis& axis) {
  using namespace batching;
  SCN_ASSERT(axisSize >= 0, "vmap axis size is not negative");
  SCN_ASSERT(inAxes.size() == f.params.size(), "vmap has one in axis per parameter");
  SCN_ASSERT(outAxes.size() == f.results.size(), "vmap has one out axis per result");
  for (size_t i = 0; i < inAxes.size(); ++i) {
    if (!inAxes[i]) continue;
    size_t rank = f.type(f.params[i]).shape.size();
    if (*inAxes[i] < 0 || static_cast<size_t>(*inAxes[i]) > rank)
      fail("E0305", span,
           "vmap in_axes=" + std::to_string(*inAxes[i]) + " for argument " + std::to_string(i) +
               " is out of range for the batched argument of rank " + std::to_string(rank + 1),
           "an in axis of an argument of rank " + std::to_string(rank + 1) + " is in [-" +
               std::to_string(rank + 1) + ", " + std::to_string(rank) + "]");
  }
  Partial p = batchEqns(f, inAxes, axisSize, axis);
  for (size_t j = 0; j < outAxes.size(); ++j) {
    const BVal& v = p.results[j];
    if (!outAxes[j]) {
      if (v.dim)
        fail("E0301", span,
             "vmap out_axes=None for result " + std::to_string(j) +
                 ", but it depends on the mapped inputs",
             "give result " + std::to_string(j) +
                 " an out axis (e.g. out_axes=0) to get one value per lane");
      continue;
    }
    size_t rank = f.type(f.results[j]).shape.size();
    if (*outAxes[j] < 0 || static_cast<size_t>(*outAxes[j]) > rank)
      fail("E0306", span,
           "vmap out_axes=" + std::to_string(*outAxes[j]) + " for result " + std::to_string(j) +
               " is out of range for the batched result of rank " + std::to_string(rank + 1),
           "an out axis of a result of rank " + std::to_string(rank + 1) + " is in [-" +
               std::to_string(rank + 1) + ", " + std::to_string(rank) + "]");
  }
  std::vector<BDim> want(outAxes.begin(), outAxes.end());
  FuncPtr g = placeResults(std::move(p), want, axisSize, span, axis).func;
  g->name = f.name.empty() ? "vmap" : "vmap_" + f.name;
  return g;
}

}  // namespace scn
