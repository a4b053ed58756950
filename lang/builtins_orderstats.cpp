// Order statistics on the sort op with jax.numpy's definitions: quantile, percentile, median and
// their NaN-ignoring forms; and cumlogsumexp, an associative scan with logaddexp.
#include <cmath>
#include <cstdio>
#include <limits>

#include "lang/builtin_args.hpp"
#include "lang/gather_index.hpp"

namespace scn {

namespace {

// Note [Quantiles]
// As jnp.quantile: the data are sorted along the axis (a tuple of axes is moved last and
// flattened first; axis=None flattens), q (a scalar or a vector) is scaled to a fractional
// position q * (n - 1), and the elements at its floor and ceiling (clamped into range) are
// combined by the method: linear interpolates (low * (1 - w) + high * w, w the fraction),
// lower / higher take one, nearest takes low where w <= 0.5, midpoint averages them. n is the
// axis length, so one NaN makes the whole slice NaN; the nan forms count the non-NaN elements
// (sorted first, NaNs last) instead, and an all-NaN slice gives NaN. The result's leading axis
// is q's, then the reduced shape. Integer inputs are computed in floats. Unlike JAX, a static q
// outside [0, 1] (percentile: [0, 100]) is an error (E0294), as in NumPy; an empty axis gives NaN.

enum class Method { Linear, Lower, Higher, Midpoint, Nearest };

Method methodArg(const Args& a, size_t i, const char* fn) {
  if (!a.has(i)) return Method::Linear;
  const Value& v = a.get(i);
  std::string m = v.kind == ValueKind::String ? v.str : "";
  if (m == "linear") return Method::Linear;
  if (m == "lower") return Method::Lower;
  if (m == "higher") return Method::Higher;
  if (m == "midpoint") return Method::Midpoint;
  if (m == "nearest") return Method::Nearest;
  fail("E0295", a.span(i), std::string(fn) + " got an unknown method " + (m.empty() ? describe(v) : "\"" + m + "\""),
       "method is one of \"linear\", \"lower\", \"higher\", \"midpoint\", \"nearest\"");
}

AVal floatConst(DType t, double v) { return strongScalar(t, v); }

std::string numberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

struct QuantileCall {
  const char* fn;
  bool ignoreNans;
  double qScale;  // 100 for percentile: q is divided by it
};

/// q as a float scalar or vector of dtype t, checked: rank <= 1 and, when static, in range.
AVal quantileQ(ArrayOps& ops, const Args& a, size_t i, DType t, const QuantileCall& call) {
  AVal q = a.array(i);
  if (q.type.shape.size() > 1)
    fail("E0294", a.span(i), std::string(call.fn) + " needs q of rank 0 or 1, got " + surfaceTypeString(q),
         "flatten q, or vmap over its leading axes");
  q = ops.cast(q, t, a.span(i));
  if (q.isStatic())
    for (int64_t k = 0; k < q.concrete->size(); ++k) {
      double v = q.concrete->getDouble(k);
      if (!(v >= 0 && v <= call.qScale))
        fail("E0294", a.span(i),
             std::string(call.fn) + ": q must be in [0, " + (call.qScale == 1 ? "1" : "100") + "], got " + numberText(v),
             call.qScale == 1 ? "a quantile is a fraction; percentile takes q in [0, 100]" : "percentile takes q in [0, 100]");
    }
  if (call.qScale != 1) q = ops.trueDivide(q, floatConst(t, call.qScale), a.span(i));
  return q;
}

/// x with the reduced axes last, flattened into one: (x', its last axis) and the shape that
/// keepdims gives (every reduced axis 1).
struct Prepared {
  AVal x;
  int64_t axis;
  std::optional<Shape> keptShape;  // when keepdims must reshape the result (axis=None or a tuple)
};

Prepared prepare(ArrayOps& ops, const Args& a, size_t axisArg, AVal x, bool keepdims, Span span, const char* fn) {
  const Shape& s = x.type.shape;
  std::optional<std::vector<int64_t>> axes = a.axes(axisArg);
  if (!axes)
    return {ops.reshape(x, {numElements(s)}, span), 0, keepdims ? std::optional<Shape>(Shape(s.size(), 1)) : std::nullopt};
  const Value& axisValue = a.get(axisArg);
  bool isTuple = axisValue.isTuple() || (axisValue.isArray() && axisValue.array->type.shape.size() == 1);
  if (!isTuple) return {x, ArrayOps::normAxis((*axes)[0], s.size(), a.span(axisArg), fn), std::nullopt};
  std::vector<bool> reduced(s.size(), false);
  for (int64_t ax : *axes) {
    int64_t n = ArrayOps::normAxis(ax, s.size(), a.span(axisArg), fn);
    if (reduced[n]) fail("E0204", a.span(axisArg), std::string(fn) + " got a repeated axis");
    reduced[n] = true;
  }
  std::vector<int64_t> perm;
  Shape flat, kept = s;
  int64_t inner = 1;
  for (size_t d = 0; d < s.size(); ++d)
    if (!reduced[d]) perm.push_back(static_cast<int64_t>(d)), flat.push_back(s[d]);
  for (size_t d = 0; d < s.size(); ++d)
    if (reduced[d]) perm.push_back(static_cast<int64_t>(d)), inner *= s[d], kept[d] = 1;
  flat.push_back(inner);
  AVal moved = ops.reshape(ops.transpose(x, perm, span), flat, span);
  return {moved, static_cast<int64_t>(flat.size()) - 1, keepdims ? std::optional<Shape>(kept) : std::nullopt};
}

AVal nanLike(ArrayOps& ops, const Shape& shape, DType t, Span span) {
  return ops.full(shape, floatConst(t, std::numeric_limits<double>::quiet_NaN()), span);
}

/// The quantiles q of x along axis (Note [Quantiles]); the result is q's shape ++ the reduced
/// shape (with the axis as 1 when keepdims).
AVal quantiles(Evaluator& ev, AVal x, int64_t axis, AVal q, Method method, bool ignoreNans, bool keepdims, Span span) {
  ArrayOps& ops = ev.ops();
  DType t = x.type.dtype;
  Shape reduced = x.type.shape;
  if (keepdims) reduced[axis] = 1;
  else reduced.erase(reduced.begin() + axis);
  Shape out = q.type.shape;
  out.insert(out.end(), reduced.begin(), reduced.end());
  int64_t n = x.type.shape[axis], qRank = static_cast<int64_t>(q.type.shape.size());
  if (n == 0) return nanLike(ops, out, t, span);
  AVal isNan = ops.unary(Op::IsNan, x, span);
  if (!ignoreNans) {
    AVal anyNan = ops.reduce(Op::ReduceOr, isNan, std::vector<int64_t>{axis}, span);
    anyNan = ops.expandDims(anyNan, axis, span);
    x = ops.select(anyNan, floatConst(t, std::numeric_limits<double>::quiet_NaN()), x, span);
  }
  Attrs at;
  at.axes = {axis};
  x = ev.tracer().apply(Op::Sort, {x}, at, span)[0];
  // The count of elements each quantile ranks among: n, or the non-NaN ones.
  AVal count = floatConst(t, static_cast<double>(n));
  if (ignoreNans) {
    count = ops.reduce(Op::ReduceSum, ops.convert(ops.unary(Op::Not, isNan, span), t, span), std::vector<int64_t>{axis}, span);
    if (keepdims) count = ops.expandDims(count, axis, span);
  }
  // q along the leading axes of out, the counts along the rest.
  AVal qOut = ops.reshape(q, out.size() == q.type.shape.size() ? q.type.shape : [&] {
    Shape s = q.type.shape;
    s.resize(out.size(), 1);
    return s;
  }(), span);
  AVal last = ops.binary(Op::Sub, count, floatConst(t, 1), span, "quantile");
  AVal pos = ops.binary(Op::Mul, qOut, last, span, "quantile");
  AVal lowF = ops.unary(Op::Floor, pos, span), highF = ops.unary(Op::Ceil, pos, span);
  AVal highWeight = ops.binary(Op::Sub, pos, lowF, span, "quantile");
  AVal lowWeight = ops.binary(Op::Sub, floatConst(t, 1), highWeight, span, "quantile");
  auto index = [&](const AVal& f) {
    AVal clamped = ops.binary(Op::Max, floatConst(t, 0), ops.binary(Op::Min, f, last, span, "quantile"), span, "quantile");
    return ops.broadcastTo(ops.cast(clamped, DType::I32, span), out, span);
  };
  auto valueAt = [&](const AVal& idx) {
    std::vector<IndexArg> items(x.type.shape.size());
    int64_t rd = qRank;  // the axis of out that indexes x's axis d
    for (size_t d = 0; d < items.size(); ++d) {
      items[d].span = span;
      if (static_cast<int64_t>(d) == axis) {
        items[d].value = idx;
        if (keepdims) ++rd;
      } else {
        items[d].value = ops.iota(DType::I32, out, rd++, span);
      }
    }
    return gatherIndexed(ev, x, items, std::nullopt, false, span);
  };
  AVal low = valueAt(index(lowF)), high = valueAt(index(highF));
  switch (method) {
    case Method::Linear:
      return ops.binary(Op::Add, ops.binary(Op::Mul, low, lowWeight, span, "quantile"),
                        ops.binary(Op::Mul, high, highWeight, span, "quantile"), span, "quantile");
    case Method::Lower: return low;
    case Method::Higher: return high;
    case Method::Nearest:
      return ops.select(ops.binary(Op::Le, highWeight, floatConst(t, 0.5), span, "quantile"), low, high, span);
    case Method::Midpoint:
      return ops.binary(Op::Mul, ops.binary(Op::Add, low, high, span, "quantile"), floatConst(t, 0.5), span, "quantile");
  }
  internalError("quantiles: unknown method");
}

Value quantileCall(Evaluator& ev, CallArgs& c, const QuantileCall& call, bool withQ) {
  Args a = withQ ? Args(ev, c, call.fn, {"x", "q", "axis=", "method=", "keepdims="})
                 : Args(ev, c, call.fn, {"x", "axis=", "keepdims="});
  ArrayOps& ops = ev.ops();
  AVal x = defaultize(a.array(0), a.span(0));
  DType t = inexactDType(x.type.dtype);
  x = ops.convert(x, t, a.span(0));
  size_t axisArg = withQ ? 2 : 1;
  bool keepdims = a.boolean(withQ ? 4 : 2, false);
  AVal q = withQ ? quantileQ(ops, a, 1, t, call) : floatConst(t, 0.5);
  Method method = withQ ? methodArg(a, 3, call.fn) : Method::Midpoint;
  Prepared p = prepare(ops, a, axisArg, x, keepdims, c.span, call.fn);
  AVal r = quantiles(ev, p.x, p.axis, q, method, call.ignoreNans, keepdims && !p.keptShape, c.span);
  if (p.keptShape) {
    Shape s = q.type.shape;
    s.insert(s.end(), p.keptShape->begin(), p.keptShape->end());
    r = ops.reshape(r, s, c.span);
  }
  return arr(r);
}

Value quantile(Evaluator& ev, CallArgs& c) { return quantileCall(ev, c, {"quantile", false, 1}, true); }
Value nanquantile(Evaluator& ev, CallArgs& c) { return quantileCall(ev, c, {"nanquantile", true, 1}, true); }
Value percentile(Evaluator& ev, CallArgs& c) { return quantileCall(ev, c, {"percentile", false, 100}, true); }
Value nanpercentile(Evaluator& ev, CallArgs& c) { return quantileCall(ev, c, {"nanpercentile", true, 100}, true); }
Value median(Evaluator& ev, CallArgs& c) { return quantileCall(ev, c, {"median", false, 1}, false); }
Value nanmedian(Evaluator& ev, CallArgs& c) { return quantileCall(ev, c, {"nanmedian", true, 1}, false); }

/// The scalar combiner logaddexp(a, b) on dtype t (Note [Associative scans] in jit/combiner.cpp).
FuncPtr logAddExpCombiner(DType t, Span span) {
  auto f = std::make_shared<Func>();
  f->name = "logaddexp";
  int a = f->newVar(Type{t, {}}), b = f->newVar(Type{t, {}}), r = f->newVar(Type{t, {}});
  f->params = {a, b};
  Eqn e;
  e.op = Op::LogAddExp;
  e.inputs = {a, b};
  e.outputs = {r};
  e.span = span;
  f->eqns.push_back(e);
  f->results = {r};
  return f;
}

// cumlogsumexp(x, axis=0, reverse=false): log(cumsum(exp(x))) without overflow, as
// jax.lax.cumlogsumexp(operand, axis=0) (an associative scan with logaddexp). jax.numpy has no
// cumlogsumexp, so lax's default axis 0 is the one; an explicit axis=None (an scn extension, as
// cumsum's default) scans the flattened x.
Value cumlogsumexp(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "cumlogsumexp", {"x", "axis=", "reverse="});
  ArrayOps& ops = ev.ops();
  AVal x = defaultize(a.array(0), a.span(0));
  x = ops.convert(x, inexactDType(x.type.dtype), a.span(0));
  auto axes = a.has(1) ? a.axes(1) : std::optional<std::vector<int64_t>>{std::vector<int64_t>{0}};
  if (!axes) {
    x = ops.reshape(x, {numElements(x.type.shape)}, c.span);
    axes = std::vector<int64_t>{0};
  }
  Attrs at;
  at.axes = {ArrayOps::normAxis((*axes)[0], x.type.shape.size(), a.has(1) ? a.span(1) : c.span, "cumlogsumexp")};
  at.reverse = a.boolean(2, false);
  if (x.type.shape[at.axes[0]] < 2) return arr(x);
  return arr(ev.tracer().apply(Op::AssocScan, {x}, at, c.span, {logAddExpCombiner(x.type.dtype, c.span)})[0]);
}

}  // namespace

BuiltinDefs orderStatBuiltins() {
  return {{},
          {
              {"quantile(x, q, axis=None, method=\"linear\", keepdims=false)",
               "the q-th quantiles of x along axis (q in [0, 1], a scalar or a vector), as jnp.quantile", quantile},
              {"nanquantile(x, q, axis=None, method=\"linear\", keepdims=false)",
               "quantile ignoring NaNs (NaN where a slice has no other element)", nanquantile},
              {"percentile(x, q, axis=None, method=\"linear\", keepdims=false)",
               "the q-th percentiles of x along axis (q in [0, 100]), as jnp.percentile", percentile},
              {"nanpercentile(x, q, axis=None, method=\"linear\", keepdims=false)", "percentile ignoring NaNs",
               nanpercentile},
              {"median(x, axis=None, keepdims=false)", "the median of x along axis (NaN where a slice has a NaN)", median},
              {"nanmedian(x, axis=None, keepdims=false)", "the median ignoring NaNs", nanmedian},
              {"cumlogsumexp(x, axis=0, reverse=false)",
               "the running log(sum(exp(x))) along axis (of the flattened x when None), without overflow", cumlogsumexp},
          }};
}

}  // namespace scn
