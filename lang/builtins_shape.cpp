// Builtins that change shapes and move elements: reshape, transpose, concat, stack, slicing.
#include <algorithm>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

Value reshape(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "reshape", {"x", "shape"});
  AVal x = a.array(0);
  // One dimension may be -1: inferred from the others.
  Value sv = a.sequence(1);
  std::vector<int64_t> dims;
  auto dimOf = [&](const Value& d) {
    return staticInt(toArray(d, a.span(1), "reshape"), StaticUse::Shape, a.span(1), "`shape` of reshape");
  };
  if (sv.isTuple()) for (const Value& d : *sv.elems) dims.push_back(dimOf(d));
  else dims.push_back(dimOf(sv));
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (infer >= 0) fail("E0226", a.span(1), "reshape: only one dimension may be -1");
      infer = static_cast<int64_t>(i);
    } else if (dims[i] < 0) {
      fail("E0226", a.span(1), "reshape got a negative dimension " + std::to_string(dims[i]));
    } else if (__builtin_mul_overflow(known, dims[i], &known)) {
      fail("E0402", a.span(1), "shape " + shapeString(dims) + " has too many elements",
           "the number of elements must fit in a signed 64-bit integer");
    }
  }
  int64_t total = numElements(x.type.shape);
  std::string elements = shapeString(x.type.shape) + " (" + std::to_string(total) + " elements)";
  if (infer >= 0 && (known == 0 || total % known != 0))
    fail("E0226", a.span(1), "cannot reshape an array of shape " + elements + " into shape " + shapeString(dims),
         "the -1 stands for the " + std::to_string(total) + " elements divided by the product of the other sizes (" +
             std::to_string(known) + "), which must divide it");
  if (infer >= 0) dims[infer] = total / known;
  if (numElements(dims) != total)
    fail("E0226", a.span(1), "cannot reshape an array of shape " + elements + " into shape " + shapeString(dims),
         "the new shape must have as many elements: " + std::to_string(total));
  return arr(ev.ops().reshape(x, dims, c.span));
}

Value transpose(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "transpose", {"x", "axes="});
  AVal x = a.array(0);
  size_t rank = x.type.shape.size();
  std::vector<int64_t> perm;
  if (auto axes = a.axes(1)) {
    for (int64_t ax : *axes) perm.push_back(ArrayOps::normAxis(ax, rank, a.span(1), "transpose"));
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    bool ok = sorted.size() == rank;
    for (size_t i = 0; ok && i < rank; ++i) ok = sorted[i] == static_cast<int64_t>(i);
    if (!ok) fail("E0204", a.span(1), "transpose axes must be a permutation of 0.." + std::to_string(rank ? rank - 1 : 0));
  } else {
    for (size_t i = rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  return arr(ev.ops().transpose(x, perm, c.span));
}

}  // namespace

std::vector<AVal> arraySequence(Evaluator& ev, const Value& v, Span span, const char* fn) {
  std::vector<AVal> xs;
  if (v.isTuple()) {
    for (const Value& e : *v.elems) xs.push_back(toArray(e, span, fn));
    return xs;
  }
  // The rows of an array of rank 1 would be scalars, which no joining builtin takes.
  if (!v.isArray() || v.array->type.shape.size() < 2)
    fail("E0207", span, std::string(fn) + " takes a tuple or a list of arrays, e.g. " + fn + "((a, b))");
  const AVal& rows = *v.array;
  for (int64_t i = 0; i < rows.type.shape[0]; ++i) {
    std::vector<int64_t> starts(rows.type.shape.size(), 0), limits = rows.type.shape, strides(starts.size(), 1);
    starts[0] = i;
    limits[0] = i + 1;
    Shape rest(rows.type.shape.begin() + 1, rows.type.shape.end());
    xs.push_back(ev.ops().reshape(ev.ops().slice(rows, starts, limits, strides, span), rest, span));
  }
  return xs;
}

namespace {

/// concat / concatenate (arrays, axis=0): axis None joins the flattened arrays.
template <bool longName>
Value concat(Evaluator& ev, CallArgs& c) {
  const char* name = longName ? "concatenate" : "concat";
  Args a(ev, c, name, {"arrays", "axis="});
  std::vector<AVal> xs = arraySequence(ev, a.get(0), a.span(0), name);
  if (a.has(1) && a.get(1).isNone()) {
    for (AVal& x : xs) x = ev.ops().reshape(x, {numElements(x.type.shape)}, c.span);
    return arr(ev.ops().concat(xs, 0, c.span));
  }
  return arr(ev.ops().concat(xs, a.integer(1, 0, StaticUse::Axis), c.span));
}

Value stack(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "stack", {"arrays", "axis="});
  std::vector<AVal> xs = arraySequence(ev, a.get(0), a.span(0), "stack");
  if (xs.empty()) fail("E0207", c.span, "stack needs at least one array");
  int64_t axis = ArrayOps::normAxis(a.integer(1, 0, StaticUse::Axis), xs[0].type.shape.size() + 1, a.span(1), "stack");
  for (const AVal& x : xs)
    if (x.type.shape != xs[0].type.shape)
      fail("E0207", c.span, "stack got arrays of different shapes " + shapeString(xs[0].type.shape) + " and " + shapeString(x.type.shape));
  for (AVal& x : xs) x = ev.ops().expandDims(x, axis, c.span);
  return arr(ev.ops().concat(xs, axis, c.span));
}

Value broadcastTo(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "broadcast_to", {"x", "shape"});
  return arr(ev.ops().broadcastTo(a.array(0), a.shape(1), c.span));
}

// expand_dims(x, axis): axis an int or a tuple, counted in the result (as JAX).
Value expandDims(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "expand_dims", {"x", "axis"});
  AVal x = a.array(0);
  std::vector<int64_t> axes = a.axes(1).value_or(std::vector<int64_t>{});
  if (!a.get(1).isTuple() && !(a.get(1).isArray() && a.get(1).array->type.shape.size() == 1))
    axes = {a.integer(1, std::nullopt, StaticUse::Axis)};
  size_t rank = x.type.shape.size() + axes.size();
  for (int64_t& ax : axes) ax = ArrayOps::normAxis(ax, rank, a.span(1), "expand_dims");
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) fail("E0204", a.span(1), "expand_dims got a repeated axis");
  Shape s = x.type.shape;
  for (int64_t ax : axes) s.insert(s.begin() + ax, 1);
  return arr(ev.ops().reshape(x, s, c.span));
}

Value squeeze(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "squeeze", {"x", "axis="});
  AVal x = a.array(0);
  Shape s;
  auto axes = a.axes(1);
  std::vector<bool> drop(x.type.shape.size(), false);
  if (axes) {
    for (int64_t ax : *axes) {
      int64_t n = ArrayOps::normAxis(ax, x.type.shape.size(), a.span(1), "squeeze");
      if (x.type.shape[n] != 1)
        fail("E0226", a.span(1), "squeeze: axis " + std::to_string(ax) + " has size " + std::to_string(x.type.shape[n]) + ", not 1");
      drop[n] = true;
    }
  } else {
    for (size_t i = 0; i < drop.size(); ++i) drop[i] = x.type.shape[i] == 1;
  }
  for (size_t i = 0; i < drop.size(); ++i)
    if (!drop[i]) s.push_back(x.type.shape[i]);
  return arr(ev.ops().reshape(x, s, c.span));
}

Value flip(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "flip", {"x", "axis="});
  AVal x = a.array(0);
  Attrs at;
  if (auto axes = a.axes(1)) {
    for (int64_t ax : *axes) at.axes.push_back(ArrayOps::normAxis(ax, x.type.shape.size(), a.span(1), "flip"));
    std::sort(at.axes.begin(), at.axes.end());
  } else {
    for (size_t i = 0; i < x.type.shape.size(); ++i) at.axes.push_back(static_cast<int64_t>(i));
  }
  return arr(ev.tracer().apply1(Op::Reverse, {x}, at, c.span));
}

Value len(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "len", {"x"});
  const Value& v = a.get(0);
  if (v.isTuple()) return arr(weakInt(static_cast<int64_t>(v.elems->size())));
  AVal x = a.array(0);
  if (x.type.shape.empty()) fail("E0227", c.span, "len() of a scalar", "a scalar has no length; use x.size");
  return arr(weakInt(x.type.shape[0]));
}

/// A start index of dynamic_slice / dynamic_update_slice along an axis of `dim` elements as i32:
/// a negative one counts from the end once, as in JAX (-2 of 6 is 4); the op clamps the rest.
AVal sliceStart(Evaluator& ev, const Value& start, int64_t dim, Span argSpan, Span span, const char* fn) {
  ArrayOps& ops = ev.ops();
  AVal k = ops.convert(toArray(start, argSpan, fn), DType::I32, span);
  AVal negative = ops.binary(Op::Lt, k, weakInt(0), span, fn);
  AVal wrapped = ops.binary(Op::Add, k, strongScalar(DType::I32, static_cast<double>(dim)), span, fn);
  AVal r = ops.select(negative, wrapped, k, span, fn);
  r.weak = false;
  return r;
}

Value dynamicSlice(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "dynamic_slice", {"x", "starts", "sizes"});
  AVal x = a.array(0);
  Shape sizes = a.shape(2);
  std::vector<AVal> in{x};
  const Value& st = a.get(1);
  std::vector<Value> starts = st.isTuple() ? *st.elems : std::vector<Value>{st};
  if (starts.size() != x.type.shape.size() || sizes.size() != x.type.shape.size())
    fail("E0226", c.span, "dynamic_slice needs one start and one size per axis of " + shapeString(x.type.shape));
  for (size_t d = 0; d < starts.size(); ++d)
    in.push_back(sliceStart(ev, starts[d], x.type.shape[d], a.span(1), c.span, "dynamic_slice"));
  Attrs at;
  at.shape = sizes;
  return arr(ev.tracer().apply1(Op::DynamicSlice, in, at, c.span));
}

Value dynamicUpdateSlice(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "dynamic_update_slice", {"x", "update", "starts"});
  AVal x = a.array(0), u = a.array(1);
  // The update takes x's dtype; two weak values promote as in a binary op (the result is weak).
  DType t = x.weak && u.weak ? promoteTypes(x, u) : x.type.dtype;
  x = ev.ops().convert(x, t, c.span);
  u = ev.ops().convert(u, t, c.span);
  if (!x.weak) u.weak = false;
  std::vector<AVal> in{x, u};
  const Value& st = a.get(2);
  std::vector<Value> starts = st.isTuple() ? *st.elems : std::vector<Value>{st};
  if (starts.size() != x.type.shape.size())
    fail("E0226", c.span, "dynamic_update_slice needs one start per axis of " + shapeString(x.type.shape));
  for (size_t d = 0; d < starts.size(); ++d)
    in.push_back(sliceStart(ev, starts[d], x.type.shape[d], a.span(2), c.span, "dynamic_update_slice"));
  return arr(ev.tracer().apply1(Op::DynamicUpdateSlice, in, {}, c.span));
}

}  // namespace

BuiltinDefs shapeBuiltins() {
  return {
      {
          {"reshape", reshape},
          {"expand_dims", expandDims},
          {"squeeze", squeeze},
          {"transpose", transpose},
          {"concat", concat<false>},
          {"broadcast_to", broadcastTo},
          {"flip", flip},
          {"dynamic_slice", dynamicSlice},
          {"dynamic_update_slice", dynamicUpdateSlice},
      },
      {
          {"stack(arrays, axis=0)", "the arrays of a tuple or a list (of one shape) stacked along a new axis", stack},
          {"concatenate(arrays, axis=0)", "the arrays of a tuple or a list joined along axis (flattened first when axis is None), the same as concat", concat<true>},
          {"len(x)", "the length of the first axis of x, or the number of elements of a tuple", len},
      }};
}

}  // namespace scn
