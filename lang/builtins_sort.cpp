// Builtins of sorting: sort, argsort, top_k, unique and searchsorted, each built on the one sort
// op with JAX's definitions (Note [Sorting] in jit/interp_sort.cpp).
#include "lang/builtin_args.hpp"

namespace scn {

namespace {

/// The sort op's outputs: xs (one shape) reordered together along axis by xs[0].
std::vector<AVal> sortTogether(Evaluator& ev, const std::vector<AVal>& xs, int64_t axis, Span span) {
  Attrs at;
  at.axes = {axis};
  return ev.tracer().apply(Op::Sort, xs, at, span);
}

AVal reversed(Evaluator& ev, const AVal& x, int64_t axis, Span span) {
  Attrs at;
  at.axes = {axis};
  return ev.tracer().apply1(Op::Reverse, {x}, at, span);
}

/// The first `count` elements of x along axis.
AVal leading(Evaluator& ev, const AVal& x, int64_t axis, int64_t start, int64_t count, Span span) {
  std::vector<int64_t> starts(x.type.shape.size(), 0), limits = x.type.shape;
  starts[axis] = start;
  limits[axis] = start + count;
  return ev.ops().slice(x, starts, limits, std::vector<int64_t>(starts.size(), 1), span);
}

/// The i32 positions along axis, in x's shape.
AVal positions(Evaluator& ev, const AVal& x, int64_t axis, Span span) {
  return ev.ops().iota(DType::I32, x.type.shape, axis, span);
}

AVal flattened(Evaluator& ev, const AVal& x, Span span) {
  return ev.ops().reshape(x, {numElements(x.type.shape)}, span);
}

/// The array argument and its axis: axis=None sorts the flattened array, as jnp.sort does.
std::pair<AVal, int64_t> operandAndAxis(Evaluator& ev, const Args& a, const char* name) {
  AVal x = defaultize(a.array(0), a.span(0));
  if (a.has(1) && a.get(1).isNone()) return {flattened(ev, x, a.callSpan()), 0};
  int64_t axis = a.integer(1, -1, StaticUse::Axis);
  return {x, ArrayOps::normAxis(axis, x.type.shape.size(), a.span(a.has(1) ? 1 : 0), name)};
}

/// argsort: stable, ties in their order also when descending (jnp.argsort's definition).
AVal argsortAlong(Evaluator& ev, const AVal& x, int64_t axis, bool descending, Span span) {
  if (!descending) return sortTogether(ev, {x, positions(ev, x, axis, span)}, axis, span)[1];
  std::vector<AVal> r = sortTogether(ev, {reversed(ev, x, axis, span), reversed(ev, positions(ev, x, axis, span), axis, span)},
                                     axis, span);
  return reversed(ev, r[1], axis, span);
}

Value sort(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "sort", {"a", "axis=", "stable=", "descending="});
  auto [x, axis] = operandAndAxis(ev, a, "sort");
  a.boolean(2, true);  // the sort is always stable, which an unstable one may be
  AVal r = sortTogether(ev, {x}, axis, c.span)[0];
  return arr(a.boolean(3, false) ? reversed(ev, r, axis, c.span) : r);
}

Value argsort(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "argsort", {"a", "axis=", "stable=", "descending="});
  auto [x, axis] = operandAndAxis(ev, a, "argsort");
  a.boolean(2, true);
  return arr(argsortAlong(ev, x, axis, a.boolean(3, false), c.span));
}

/// Which part of IEEE totalOrder (lax.top_k's order) a float is in: 0 for a NaN with its sign
/// bit set, 1 for the rest with the sign bit set (-inf to -0.0), 2 for the sign bit clear (0.0 to
/// NaN). Within each part sort's order (which has -0.0 equal 0.0 and every NaN last) is totalOrder's.
AVal totalOrderPart(Evaluator& ev, const AVal& x, Span span) {
  ArrayOps& o = ev.ops();
  auto full = [&](DType t, double v) { return o.full(x.type.shape, AVal::of(Array::scalar(t, v)), span); };
  AVal signBitSet = o.binary(Op::Lt, o.binary(Op::Copysign, full(x.type.dtype, 1), x, span, "top_k"), full(x.type.dtype, 0), span, "top_k");
  AVal negativePart = o.select(o.unary(Op::IsNan, x, span), full(DType::I32, 0), full(DType::I32, 1), span);
  return o.select(signBitSet, negativePart, full(DType::I32, 2), span);
}

/// x and its positions reordered by a stable ascending sort of x in IEEE totalOrder: a stable
/// sort by x and then one by the part of totalOrder each x is in (integers: the one sort).
std::vector<AVal> sortInTotalOrder(Evaluator& ev, const AVal& x, const AVal& pos, int64_t axis, Span span) {
  if (!isFloat(x.type.dtype)) return sortTogether(ev, {x, pos}, axis, span);
  std::vector<AVal> byValue = sortTogether(ev, {x, totalOrderPart(ev, x, span), pos}, axis, span);
  std::vector<AVal> byPart = sortTogether(ev, {byValue[1], byValue[0], byValue[2]}, axis, span);
  return {byPart[1], byPart[2]};
}

Value topK(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "top_k", {"operand", "k"});
  AVal x = defaultize(a.array(0), a.span(0));
  const Shape& s = x.type.shape;
  if (s.empty())
    fail("E0257", a.span(0), "top_k needs an operand of rank 1 or more but got " + surfaceTypeString(x),
         "top_k selects along the last axis; reshape a scalar to [1] first");
  int64_t k = a.integer(1, std::nullopt, StaticUse::Other), axis = static_cast<int64_t>(s.size()) - 1;
  if (k < 0 || k > s[axis])
    fail("E0257", a.span(1),
         "top_k: k=" + std::to_string(k) + " is out of range for the last axis of " + surfaceTypeString(x) +
             " (size " + std::to_string(s[axis]) + ")",
         "k must be between 0 and the size of the last axis");
  // The largest first, ties by lower index: the descending stable argsort's order.
  std::vector<AVal> r = sortInTotalOrder(ev, reversed(ev, x, axis, c.span), reversed(ev, positions(ev, x, axis, c.span), axis, c.span),
                                         axis, c.span);
  std::vector<Value> out;
  for (const AVal& v : r) out.push_back(arr(reversed(ev, leading(ev, v, axis, s[axis] - k, k, c.span), axis, c.span)));
  return Value::ofTuple(std::move(out));
}

/// Whether each sorted element differs from the one before it (the first always does); NaNs
/// equal each other (jnp.unique's equal_nan=True).
AVal firstOfRun(Evaluator& ev, const AVal& sorted, Span span) {
  int64_t n = sorted.type.shape[0];
  AVal first = ev.ops().full({1}, AVal::of(Array::scalarInt(DType::Bool, 1)), span);
  if (n == 1) return first;
  AVal prev = leading(ev, sorted, 0, 0, n - 1, span), next = leading(ev, sorted, 0, 1, n - 1, span);
  AVal differs = ev.ops().binary(Op::Ne, next, prev, span, "unique");
  if (isFloat(sorted.type.dtype)) {
    AVal bothNan = ev.ops().logical(Op::And, ev.ops().unary(Op::IsNan, next, span), ev.ops().unary(Op::IsNan, prev, span), span);
    differs = ev.ops().logical(Op::And, differs, ev.ops().unary(Op::Not, bothNan, span), span);
  }
  return ev.ops().concat({first, differs}, 0, span);
}

Value unique(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "unique", {"x", "size=", "fill_value="});
  AVal x = flattened(ev, defaultize(a.array(0), a.span(0)), c.span);
  DType t = x.type.dtype;
  int64_t n = x.type.shape[0];
  std::optional<int64_t> size;
  if (a.has(1) && !a.get(1).isNone()) size = a.integer(1, std::nullopt, StaticUse::Shape);
  if (size && *size < 0) fail("E0223", a.span(1), "unique got a negative size " + std::to_string(*size));
  std::optional<AVal> fill;
  if (a.has(2) && !a.get(2).isNone()) fill = ev.ops().cast(a.array(2), t, a.span(2));
  if (!size && !x.isStatic())
    fail("E0256", c.span, "unique needs `size=` inside a traced function: the number of unique elements of " +
                              surfaceTypeString(a.array(0)) + " is known only when the code runs",
         "pass a static size=N (and fill_value= for the unused places), as jnp.unique requires under jit");
  if (n == 0) {
    if (!size || *size == 0) return arr(x);
    if (!fill)
      fail("E0258", c.span, "unique of an empty array with size=" + std::to_string(*size) + " needs fill_value",
           "there is no element to fill the " + std::to_string(*size) + " places with; pass fill_value=");
    return arr(ev.ops().full({*size}, *fill, c.span));
  }
  AVal sorted = sortTogether(ev, {x}, 0, c.span)[0];
  AVal isFirst = firstOfRun(ev, sorted, c.span);
  AVal count = ev.ops().reduce(Op::ReduceSum, ev.ops().convert(isFirst, DType::I32, c.span), std::nullopt, c.span, "unique");
  if (!size) size = concreteOrError(count, StaticUse::Shape, c.span, "unique").getInt(0);
  // The first of each run moved to the front, in order: a stable sort on "not first".
  AVal later = ev.ops().convert(ev.ops().unary(Op::Not, isFirst, c.span), DType::I32, c.span);
  AVal compact = sortTogether(ev, {later, sorted}, 0, c.span)[1];
  if (*size <= n) {
    compact = leading(ev, compact, 0, 0, *size, c.span);
  } else {
    AVal pad = ev.ops().broadcastTo(leading(ev, sorted, 0, 0, 1, c.span), {*size - n}, c.span);
    compact = ev.ops().concat({compact, pad}, 0, c.span);
  }
  if (a.has(1) && !a.get(1).isNone()) {  // the places past the count: fill_value, else the smallest element
    AVal filler = fill ? *fill : ev.ops().reshape(leading(ev, sorted, 0, 0, 1, c.span), {}, c.span);
    AVal used = ev.ops().binary(Op::Lt, ev.ops().iota(DType::I32, {*size}, 0, c.span), count, c.span, "unique");
    compact = ev.ops().select(used, compact, ev.ops().broadcastTo(filler, {*size}, c.span), c.span, "unique");
  }
  return arr(compact);
}

/// The position of each element of the 1-d x in x sorted (the inverse of argsort).
AVal ranks(Evaluator& ev, const AVal& x, Span span) {
  AVal order = argsortAlong(ev, x, 0, false, span);
  return sortTogether(ev, {order, positions(ev, x, 0, span)}, 0, span)[1];
}

Value searchsorted(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "searchsorted", {"a", "v", "side="});
  AVal sortedArr = a.array(0), v = a.array(1);
  std::string side = "left";
  if (a.has(2)) {
    const Value& sv = a.get(2);
    if (sv.kind != ValueKind::String || (sv.str != "left" && sv.str != "right"))
      fail("E0259", a.span(2), "searchsorted: side must be \"left\" or \"right\"" +
                                   (sv.kind == ValueKind::String ? ", got \"" + sv.str + "\"" : std::string()));
    side = sv.str;
  }
  if (sortedArr.type.shape.size() != 1)
    fail("E0259", a.span(0), "searchsorted needs a 1-d sorted array `a` but got " + surfaceTypeString(sortedArr),
         "flatten `a` first, or vmap over its leading axes");
  DType t = promoteTypes(sortedArr, v);
  sortedArr = ev.ops().convert(defaultize(sortedArr, a.span(0)), t, c.span);
  v = ev.ops().convert(defaultize(v, a.span(1)), t, c.span);
  Shape vShape = v.type.shape;
  AVal q = flattened(ev, v, c.span);
  int64_t n = sortedArr.type.shape[0], m = q.type.shape[0];
  // JAX's method='sort': the rank of each query among the queries and `a` together (queries
  // first for "left", so a equal element of `a` is after it) less its rank among the queries.
  AVal both = side == "left" ? ev.ops().concat({q, sortedArr}, 0, c.span) : ev.ops().concat({sortedArr, q}, 0, c.span);
  AVal among = leading(ev, ranks(ev, both, c.span), 0, side == "left" ? 0 : n, m, c.span);
  AVal r = ev.ops().binary(Op::Sub, among, ranks(ev, q, c.span), c.span, "searchsorted");
  return arr(ev.ops().reshape(r, vShape, c.span));
}

}  // namespace

BuiltinDefs sortBuiltins() {
  return {{},
          {
              {"sort(a, axis=-1, stable=true, descending=false)",
               "a sorted along axis (flattened when None): ascending, NaNs last (descending reverses it)", sort},
              {"argsort(a, axis=-1, stable=true, descending=false)",
               "the indices (i32) that sort a along axis, ties in their order (also when descending)", argsort},
              {"top_k(operand, k)",
               "the k largest elements along the last axis and their indices (i32), ties by lower index", topK},
              {"unique(x, size=None, fill_value=None)",
               "the sorted unique elements of x flattened, size= (needed inside a fn) pads with fill_value "
               "(default: the smallest)",
               unique},
              {"searchsorted(a, v, side=\"left\")",
               "where each element of v goes in the sorted 1-d a to keep it sorted (i32): before equal "
               "elements for side=\"left\", after them for \"right\"",
               searchsorted},
          }};
}

}  // namespace scn
