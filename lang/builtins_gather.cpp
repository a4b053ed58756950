// Builtins that read and write at computed positions: take, take_along_axis, the segment
// reductions and bincount, each one gather or scatter (lang/gather_index.cpp).
#include <limits>

#include "lang/builtin_args.hpp"
#include "lang/gather_index.hpp"

namespace scn {

namespace {

IndexArg arrayItem(AVal v, Span span) {
  IndexArg a;
  a.span = span;
  a.value = std::move(v);
  return a;
}

IndexArg fullSlice(Span span) {
  IndexArg a;
  a.kind = IndexArg::Kind::Slice;
  a.span = span;
  return a;
}

/// An integer index array argument (float indices are an error, as in JAX).
AVal indexArray(const Args& a, size_t i, const char* fn) {
  AVal v = a.array(i);
  if (!isInteger(v.type.dtype))
    fail("E0246", a.span(i), std::string(fn) + " needs integer indices, got " + surfaceTypeString(v),
         "convert them: `astype(i, i32)`");
  return defaultize(v, a.span(i));
}

/// x and axis of a builtin whose axis=None flattens x.
std::pair<AVal, int64_t> flattenedOrAxis(Evaluator& ev, const Args& a, AVal x, size_t axisArg, const char* fn) {
  if (!a.has(axisArg) || a.get(axisArg).isNone())
    return {ev.ops().reshape(x, {numElements(x.type.shape)}, a.callSpan()), 0};
  int64_t axis = ArrayOps::normAxis(a.integer(axisArg, 0, StaticUse::Axis), x.type.shape.size(), a.span(axisArg), fn);
  return {x, axis};
}

/// take's and take_along_axis's mode: 'fill' (the default) reads fill_value out of range,
/// 'clip' clamps without wrapping negative indices, 'wrap' takes them modulo the axis.
enum class TakeMode { Fill, Clip, Wrap };

TakeMode takeMode(const Args& a, size_t i, const char* fn) {
  if (!a.has(i) || a.get(i).isNone()) return TakeMode::Fill;
  const Value& v = a.get(i);
  std::string m = v.kind == ValueKind::String ? v.str : "";
  if (m == "fill") return TakeMode::Fill;
  if (m == "clip") return TakeMode::Clip;
  if (m == "wrap") return TakeMode::Wrap;
  fail("E0248", a.span(i), std::string(fn) + " got an unknown mode " + (m.empty() ? describe(v) : "\"" + m + "\""),
       "mode is one of \"fill\", \"clip\", \"wrap\"");
}

AVal defaultTakeFill(DType t) {
  if (isFloat(t)) return strongScalar(t, std::numeric_limits<double>::quiet_NaN());
  if (t == DType::I32) return AVal::of(Array::scalarInt(t, std::numeric_limits<int32_t>::min()));
  if (t == DType::I64) return AVal::of(Array::scalarInt(t, std::numeric_limits<int64_t>::min()));
  if (t == DType::U32) return AVal::of(Array::scalarInt(t, std::numeric_limits<uint32_t>::max()));
  if (t == DType::U64) return AVal::of(Array::scalarInt(t, -1));
  return AVal::of(Array::scalarInt(t, 1));
}

/// The indices for an axis of n elements under `mode` (clip and wrap land in range).
AVal modeIndices(Evaluator& ev, AVal i, int64_t n, TakeMode mode, Span span) {
  ArrayOps& ops = ev.ops();
  if (mode == TakeMode::Clip)
    return ops.binary(Op::Min, ops.binary(Op::Max, i, weakInt(0), span, "take"), weakInt(std::max<int64_t>(n - 1, 0)), span, "take");
  if (mode == TakeMode::Wrap && n > 0) return ops.binary(Op::Rem, i, weakInt(n), span, "take");
  return i;
}

std::optional<AVal> fillOf(const Args& a, size_t i, TakeMode mode, const AVal& x) {
  if (mode != TakeMode::Fill) return std::nullopt;
  if (a.has(i) && !a.get(i).isNone()) return a.array(i);
  return defaultTakeFill(surfaceType(x).dtype);
}

Value take(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "take", {"a", "indices", "axis=", "mode=", "fill_value="});
  auto [x, axis] = flattenedOrAxis(ev, a, a.array(0), 2, "take");
  TakeMode mode = takeMode(a, 3, "take");
  AVal i = modeIndices(ev, indexArray(a, 1, "take"), x.type.shape[axis], mode, c.span);
  std::vector<IndexArg> items;
  for (int64_t d = 0; d < axis; ++d) items.push_back(fullSlice(c.span));
  items.push_back(arrayItem(i, a.span(1)));
  return arr(gatherIndexed(ev, x, items, fillOf(a, 4, mode, x), false, c.span));
}

Value takeAlongAxis(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "take_along_axis", {"arr", "indices", "axis", "mode=", "fill_value="});
  AVal x = a.array(0), i = indexArray(a, 1, "take_along_axis");
  if (a.get(2).isNone()) {
    x = ev.ops().reshape(x, {numElements(x.type.shape)}, c.span);
    i = ev.ops().reshape(i, {numElements(i.type.shape)}, c.span);
  }
  size_t rank = x.type.shape.size();
  if (i.type.shape.size() != rank)
    fail("E0252", a.span(1), "take_along_axis needs indices of the rank of arr: arr is " + surfaceTypeString(x) +
                                 ", indices are " + surfaceTypeString(i));
  int64_t axis = a.get(2).isNone() ? 0 : ArrayOps::normAxis(a.integer(2, 0, StaticUse::Axis), rank, a.span(2), "take_along_axis");
  // The result: indices' length along axis, arr and indices broadcast on the other axes.
  Shape r(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t xn = x.type.shape[d], in = i.type.shape[d];
    if (static_cast<int64_t>(d) == axis) r[d] = in;
    else if (xn == in || in == 1 || xn == 1) r[d] = xn == 1 ? in : xn;
    else fail("E0252", a.span(1), "take_along_axis cannot broadcast indices of shape " + shapeString(i.type.shape) +
                                     " against arr of shape " + shapeString(x.type.shape) + " outside axis " + std::to_string(axis));
  }
  TakeMode mode = takeMode(a, 3, "take_along_axis");
  i = ev.ops().broadcastTo(modeIndices(ev, i, x.type.shape[axis], mode, c.span), r, c.span, "take_along_axis");
  // Every axis is indexed: the others by iotas, or 0 where arr has size 1 (broadcast).
  std::vector<IndexArg> items;
  for (size_t d = 0; d < rank; ++d) {
    int64_t dd = static_cast<int64_t>(d);
    AVal at = dd == axis ? i
              : x.type.shape[d] == 1 ? ev.ops().full(r, strongScalar(DType::I32, 0), c.span)
                                     : ev.ops().iota(DType::I32, r, dd, c.span);
    items.push_back(arrayItem(at, a.span(1)));
  }
  return arr(gatherIndexed(ev, x, items, fillOf(a, 4, mode, x), false, c.span));
}

/// A static count argument, or its default from the largest static id + 1; inside a `fn`
/// (traced ids) the count must be given: it is the result's size.
int64_t countArg(const Args& a, size_t i, const AVal& ids, const char* fn, const char* param) {
  if (a.has(i) && !a.get(i).isNone()) {
    int64_t n = a.integer(i, 0, StaticUse::Shape);
    if (n < 0) fail("E0251", a.span(i), std::string(fn) + " got a negative " + param + " " + std::to_string(n));
    return n;
  }
  if (!ids.isStatic())
    fail("E0251", a.callSpan(), std::string(fn) + " needs `" + param + "=` when its indices are traced",
         std::string("the result's size is ") + param + "; inside a `fn` give it as a static value, e.g. `" +
             param + "=10`");
  int64_t most = -1;
  for (int64_t k = 0; k < ids.concrete->size(); ++k) most = std::max(most, ids.concrete->getInt(k));
  return most + 1;
}

template <Op op>
Value segmentReduction(Evaluator& ev, CallArgs& c) {
  const char* fn = op == Op::ScatterAdd ? "segment_sum" : op == Op::ScatterMax ? "segment_max" : "segment_min";
  Args a(ev, c, fn, {"data", "segment_ids", "num_segments="});
  AVal data = a.array(0), ids = indexArray(a, 1, fn);
  if (data.type.shape.empty() || ids.type.shape.size() != 1 || ids.type.shape[0] != data.type.shape[0])
    fail("E0252", a.span(1), std::string(fn) + " needs one segment id per row of data: data is " +
                                 surfaceTypeString(data) + ", segment_ids are " + surfaceTypeString(ids));
  int64_t n = countArg(a, 2, ids, fn, "num_segments");
  data = defaultize(data, a.span(0));
  DType t = data.type.dtype;
  Shape out = data.type.shape;
  out[0] = n;
  double init = op == Op::ScatterAdd ? 0.0
                : op == Op::ScatterMax ? (isFloat(t) ? -std::numeric_limits<double>::infinity() : 0.0)
                                       : (isFloat(t) ? std::numeric_limits<double>::infinity() : 0.0);
  AVal start = strongScalar(t, init);
  if (!isFloat(t) && op != Op::ScatterAdd) {  // the integer identities
    Array s(t, {});
    dispatchDType(t, [&]<typename T>() { s.data<T>()[0] = op == Op::ScatterMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max(); });
    start = AVal::of(s);
  }
  AVal base = ev.ops().full(out, start, c.span);
  // A negative id is dropped (JAX does not wrap segment ids): move it out of range.
  AVal neg = ev.ops().binary(Op::Lt, ids, weakInt(0), c.span, fn);
  ids = ev.ops().select(neg, ev.ops().convert(weakInt(n), ids.type.dtype, c.span), ids, c.span);
  return arr(scatterIndexed(ev, base, {arrayItem(ids, a.span(1))}, op, data, false, c.span));
}

Value bincount(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "bincount", {"x", "weights=", "minlength=", "length="});
  AVal x = indexArray(a, 0, "bincount");
  if (x.type.shape.size() != 1)
    fail("E0252", a.span(0), "bincount needs a 1-d array of non-negative integers, got " + surfaceTypeString(x));
  int64_t length = countArg(a, 3, x, "bincount", "length");
  if (!a.has(3) || a.get(3).isNone()) length = std::max(length, a.integer(2, 0, StaticUse::Shape));
  AVal w = a.has(1) && !a.get(1).isNone() ? defaultize(a.array(1), a.span(1)) : strongScalar(DType::I32, 1);
  if (!w.type.shape.empty() && w.type.shape != x.type.shape)
    fail("E0252", a.span(1), "bincount needs one weight per element of x: x is " + surfaceTypeString(x) +
                                 ", weights are " + surfaceTypeString(w));
  AVal base = ev.ops().full({length}, strongScalar(w.type.dtype, 0), c.span);
  // Negative values count in bin 0, as JAX clips them; values past the end are dropped.
  x = ev.ops().binary(Op::Max, x, weakInt(0), c.span, "bincount");
  return arr(scatterIndexed(ev, base, {arrayItem(x, a.span(0))}, Op::ScatterAdd, w, false, c.span));
}

}  // namespace

BuiltinDefs gatherBuiltins() {
  return {{},
          {
              {"take(a, indices, axis=None, mode=None, fill_value=None)",
               "the elements of a at indices along axis (of the flattened a when None), out of range: "
               "fill_value (mode \"fill\", the default, NaN for floats), clamped (\"clip\") or wrapped (\"wrap\")",
               take},
              {"take_along_axis(arr, indices, axis, mode=None, fill_value=None)",
               "the elements of arr at indices along axis, arr and indices broadcast on the other axes",
               takeAlongAxis},
              {"segment_sum(data, segment_ids, num_segments=None)",
               "the sums of the rows of data with each segment id (num_segments rows, needed in a fn)",
               segmentReduction<Op::ScatterAdd>},
              {"segment_max(data, segment_ids, num_segments=None)",
               "the maxima of the rows of data with each segment id (-inf or the lowest integer when empty)",
               segmentReduction<Op::ScatterMax>},
              {"segment_min(data, segment_ids, num_segments=None)",
               "the minima of the rows of data with each segment id (inf or the highest integer when empty)",
               segmentReduction<Op::ScatterMin>},
              {"bincount(x, weights=None, minlength=0, length=None)",
               "the number of times each value 0..length-1 occurs in x (or the sum of its weights), "
               "length is needed in a fn",
               bincount},
          }};
}

}  // namespace scn
