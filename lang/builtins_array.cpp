// Builtins over arrays: creation, elementwise math, reductions, shape manipulation, I/O checks.
#include <charconv>
#include <cmath>
#include <functional>
#include <numeric>

#include "lang/builtin_args.hpp"

namespace scn {

void registerControlBuiltins(std::map<std::string, Builtin>& m);
void registerRandomBuiltins(std::map<std::string, Builtin>& m);

namespace {

Value arr(AVal a) { return Value::ofArray(std::move(a)); }

// ---- creation ----

AVal filled(Evaluator& ev, const Shape& shape, AVal value, std::optional<DType> dtype, Span span) {
  if (dtype) {
    value = ev.ops().convert(value, *dtype, span);
    value.weak = false;
  } else {
    value = defaultize(value, span);
  }
  return ev.ops().full(shape, value, span);
}

Value zeros(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "zeros", {"shape", "dtype="});
  return arr(filled(ev, a.shape(0), strongScalar(a.dtype(1).value_or(DType::F32), 0), std::nullopt, c.span));
}
Value ones(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "ones", {"shape", "dtype="});
  return arr(filled(ev, a.shape(0), strongScalar(a.dtype(1).value_or(DType::F32), 1), std::nullopt, c.span));
}
Value full(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "full", {"shape", "fill_value", "dtype="});
  return arr(filled(ev, a.shape(0), a.array(1), a.dtype(2), c.span));
}
Value zerosLike(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "zeros_like", {"x", "dtype="});
  AVal x = a.array(0);
  return arr(filled(ev, x.type.shape, strongScalar(a.dtype(1).value_or(surfaceType(x).dtype), 0), std::nullopt, c.span));
}
Value onesLike(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "ones_like", {"x", "dtype="});
  AVal x = a.array(0);
  return arr(filled(ev, x.type.shape, strongScalar(a.dtype(1).value_or(surfaceType(x).dtype), 1), std::nullopt, c.span));
}

/// The shortest text that reads back as v ("inf", "nan", "0.1", "1e+19").
std::string numberText(double v) {
  if (std::isnan(v)) return "nan";  // without the sign bit that 0.0 / 0.0 carries
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

Value arange(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "arange", {"start", "stop=", "step=", "dtype="});
  // arange(n) or arange(start, stop, step): static bounds (the length is a shape).
  auto num = [&](size_t i) {
    Array v = concreteOrError(a.array(i), StaticUse::Shape, a.span(i), "`" + a.name(i) + "` of arange");
    return v;
  };
  bool anyFloat = false;
  double start = 0, stop, step = 1;
  if (a.has(1) && !a.get(1).isNone()) {
    start = num(0).getDouble(0);
    stop = num(1).getDouble(0);
    anyFloat = isFloat(num(0).dtype) || isFloat(num(1).dtype);
  } else {
    stop = num(0).getDouble(0);
    anyFloat = isFloat(num(0).dtype);
  }
  if (a.has(2)) {
    step = num(2).getDouble(0);
    anyFloat = anyFloat || isFloat(num(2).dtype);
  }
  // arange(n) names its one bound `stop`, as NumPy's arange(stop) does.
  bool twoBounds = a.has(1) && !a.get(1).isNone();
  std::vector<std::pair<size_t, double>> given = {{0, twoBounds ? start : stop}};
  if (twoBounds) given.push_back({1, stop});
  if (a.has(2)) given.push_back({2, step});
  for (auto [i, v] : given)
    if (!std::isfinite(v))
      fail("E0242", a.span(i),
           "arange got a non-finite `" + (i == 0 && !twoBounds ? std::string("stop") : a.name(i)) + "` (" +
               numberText(v) + ")",
           "the bounds and the step of arange must be finite numbers");
  if (step == 0) fail("E0223", a.span(2), "arange step must not be zero");
  // The length is a shape: one that does not fit in i64 is not silently empty.
  double length = std::ceil((stop - start) / step);
  if (length >= 0x1p63)
    fail("E0402", c.span, "arange from " + numberText(start) + " to " + numberText(stop) + " by " +
                              numberText(step) + " has too many elements",
         "the number of elements must fit in a signed 64-bit integer");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(length));
  DType t = a.dtype(3).value_or(anyFloat ? DType::F32 : DType::I32);
  if (isInteger(t) && n > 0) {  // as a weak integer that does not fit (Note [Weak types])
    double last = start + static_cast<double>(n - 1) * step;
    for (double v : {start, last})
      if (std::fabs(v) >= 0x1p63 || !fitsIn(static_cast<int64_t>(v), t))
        fail("E0228", c.span,
             "arange reaches " + (std::fabs(v) < 0x1p63 ? std::to_string(static_cast<int64_t>(v)) : std::to_string(v)) +
                 ", which does not fit in " + dtypeName(t) +
                 (a.dtype(3) ? "" : ", the default integer type"),
             "give it a dtype that holds every value, e.g. `dtype=i64`");
  }
  AVal i = ev.ops().iota(isFloat(t) ? t : DType::I64, {n}, 0, c.span);
  AVal r = ev.ops().binary(Op::Add, ev.ops().binary(Op::Mul, i, anyFloat ? weakFloat(step) : weakInt(static_cast<int64_t>(step)), c.span, "arange"),
                           anyFloat ? weakFloat(start) : weakInt(static_cast<int64_t>(start)), c.span, "arange");
  r = ev.ops().convert(r, t, c.span);
  r.weak = false;
  return arr(r);
}

Value linspace(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "linspace", {"start", "stop", "num=", "endpoint=", "dtype="});
  int64_t n = a.integer(2, 50, StaticUse::Shape);
  bool endpoint = a.boolean(3, true);
  DType t = a.dtype(4).value_or(DType::F32);
  AVal start = a.array(0), stop = a.array(1);
  int64_t div = endpoint ? n - 1 : n;
  AVal i = ev.ops().iota(DType::F64, {n}, 0, c.span);
  AVal delta = ev.ops().binary(Op::Sub, ev.ops().convert(stop, DType::F64, c.span), ev.ops().convert(start, DType::F64, c.span), c.span, "linspace");
  AVal stepv = div > 0 ? ev.ops().trueDivide(delta, weakFloat(static_cast<double>(div)), c.span) : weakFloat(0);
  AVal r = ev.ops().binary(Op::Add, ev.ops().convert(start, DType::F64, c.span), ev.ops().binary(Op::Mul, i, stepv, c.span, "linspace"), c.span, "linspace");
  r = ev.ops().convert(r, t, c.span);
  r.weak = false;
  return arr(r);
}

Value eye(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "eye", {"n", "m=", "dtype="});
  int64_t n = a.integer(0, std::nullopt, StaticUse::Shape);
  int64_t m = a.integer(1, n, StaticUse::Shape);
  DType t = a.dtype(2).value_or(DType::F32);
  AVal r = ev.ops().binary(Op::Eq, ev.ops().iota(DType::I64, {n, m}, 0, c.span), ev.ops().iota(DType::I64, {n, m}, 1, c.span), c.span, "eye");
  return arr(ev.ops().convert(r, t, c.span));
}

// ---- elementwise math ----

/// One builtin signature of an op's surface column (ops.def): "maximum(x, y)".
struct Signature {
  std::string text, name;
  std::vector<std::string> params;
};

/// The signatures of `op`'s surface column, parsed once (they live as long as the program).
const std::vector<Signature>& surfaceSignatures(Op op) {
  static std::map<Op, std::vector<Signature>> cache;
  auto [it, fresh] = cache.try_emplace(op);
  if (!fresh) return it->second;
  std::string all = opInfo(op).surface;
  for (size_t at = 0; at < all.size();) {
    size_t end = std::min(all.find(';', at), all.size());
    Signature s;
    s.text = all.substr(at, end - at);
    while (!s.text.empty() && s.text.front() == ' ') s.text.erase(0, 1);
    size_t open = s.text.find('(');
    s.name = s.text.substr(0, open);
    std::string list = s.text.substr(open + 1, s.text.size() - open - 2);
    for (size_t p = 0; p <= list.size();) {
      size_t comma = std::min(list.find(',', p), list.size());
      std::string param = list.substr(p, comma - p);
      while (!param.empty() && param.front() == ' ') param.erase(0, 1);
      s.params.push_back(param);
      p = comma + 1;
    }
    it->second.push_back(s);
    at = end + 1;
  }
  return it->second;
}

/// The builtin of an elementwise op with a surface column; messages use its first name.
template <Op op>
Value elementwiseBuiltin(Evaluator& ev, CallArgs& c) {
  const Signature& s = surfaceSignatures(op).at(0);
  Args a(ev, c, s.name.c_str(), s.params);
  if (opInfo(op).numInputs == 1) return arr(ev.ops().unary(op, a.array(0), c.span));
  return arr(ev.ops().binary(op, a.array(0), a.array(1), c.span, s.name.c_str()));
}

Value select(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "select", {"c", "a", "b"});
  return arr(ev.ops().select(a.array(0), a.array(1), a.array(2), c.span));
}

Value where(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "where", {"c", "a", "b"});
  return arr(ev.ops().select(a.array(0), a.array(1), a.array(2), c.span, "where"));
}

Value clip(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "clip", {"x", "lo", "hi"});
  AVal x = ev.ops().binary(Op::Max, a.array(0), a.array(1), c.span, "clip");
  return arr(ev.ops().binary(Op::Min, x, a.array(2), c.span, "clip"));
}

Value astype(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "astype", {"x", "dtype"});
  return arr(ev.ops().cast(a.array(0), *a.dtype(1), c.span));
}

// ---- reductions ----

template <Op op>
Value reduction(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ReduceSum ? "sum" : op == Op::ReduceProd ? "prod" : op == Op::ReduceMax ? "max"
                     : op == Op::ReduceMin ? "min" : op == Op::ReduceAnd ? "all" : "any";
  Args a(ev, c, name, {"x", "axis="});
  AVal x = a.array(0);
  auto axes = a.axes(1);
  // Only reducing over an empty axis needs an identity: max over axis 0 of a (3, 0) array is
  // the empty (0,) array, as in JAX.
  if (op == Op::ReduceMax || op == Op::ReduceMin) {
    const Shape& s = x.type.shape;
    bool overEmpty = !axes && numElements(s) == 0;
    for (int64_t ax : axes.value_or(std::vector<int64_t>{}))
      overEmpty = overEmpty || s[ArrayOps::normAxis(ax, s.size(), c.span, name)] == 0;
    if (overEmpty) fail("E0225", c.span, std::string(name) + " of an empty array has no identity");
  }
  return arr(ev.ops().reduce(op, x, axes, c.span, name));
}

Value mean(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "mean", {"x", "axis="});
  AVal x = a.array(0);
  if (!isFloat(x.type.dtype)) x = ev.ops().convert(x, DType::F32, c.span);
  auto axes = a.axes(1);
  int64_t count = 1;
  if (axes) {
    for (int64_t ax : *axes) count *= x.type.shape[ArrayOps::normAxis(ax, x.type.shape.size(), c.span, "mean")];
  } else {
    count = numElements(x.type.shape);
  }
  AVal s = ev.ops().reduce(Op::ReduceSum, x, axes, c.span, "mean");
  return arr(ev.ops().trueDivide(s, weakFloat(static_cast<double>(count)), c.span));
}

template <Op op>
Value argReduce(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ArgMax ? "argmax" : "argmin";
  Args a(ev, c, name, {"x", "axis="});
  AVal x = a.array(0);
  auto axes = a.axes(1);
  if (!axes) {
    x = ev.ops().reshape(x, {numElements(x.type.shape)}, c.span);
    axes = std::vector<int64_t>{0};
  }
  Attrs at;
  at.axes = {ArrayOps::normAxis((*axes)[0], x.type.shape.size(), c.span, name)};
  return arr(ev.tracer().apply1(op, {x}, at, c.span));
}

template <Op op>
Value cumulative(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::CumSum ? "cumsum" : op == Op::CumProd ? "cumprod" : op == Op::CumMax ? "cummax" : "cummin";
  Args a(ev, c, name, {"x", "axis=", "reverse="});
  AVal x = a.array(0);
  auto axes = a.axes(1);
  if (!axes) {
    x = ev.ops().reshape(x, {numElements(x.type.shape)}, c.span);
    axes = std::vector<int64_t>{0};
  }
  if (x.type.dtype == DType::Bool) x = ev.ops().convert(x, DType::I32, c.span);
  Attrs at;
  at.axes = {ArrayOps::normAxis((*axes)[0], x.type.shape.size(), c.span, name)};
  at.reverse = a.boolean(2, false);
  AVal r = ev.tracer().apply1(op, {x}, at, c.span);
  r.weak = x.weak;
  return arr(r);
}

Value matmul(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "matmul", {"a", "b"});
  return arr(ev.ops().matmul(a.array(0), a.array(1), c.span));
}

Value dot(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "dot", {"a", "b"});
  return arr(ev.ops().dot(a.array(0), a.array(1), c.span));
}

// ---- shapes ----

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
  if (infer >= 0 && known > 0 && total % known == 0) dims[infer] = total / known;
  if (numElements(dims) != total)
    fail("E0226", c.span, "cannot reshape an array of shape " + shapeString(x.type.shape) + " (" +
                              std::to_string(total) + " elements) into shape " + shapeString(dims));
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

std::vector<AVal> arrayList(const Value& v, Span span, const char* fn) {
  if (!v.isTuple()) fail("E0207", span, std::string(fn) + " takes a tuple of arrays, e.g. " + fn + "((a, b))");
  std::vector<AVal> xs;
  for (const Value& e : *v.elems) xs.push_back(toArray(e, span, fn));
  return xs;
}

Value concat(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "concat", {"arrays", "axis="});
  return arr(ev.ops().concat(arrayList(a.get(0), a.span(0), "concat"), a.integer(1, 0, StaticUse::Axis), c.span));
}

Value stack(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "stack", {"arrays", "axis="});
  std::vector<AVal> xs = arrayList(a.get(0), a.span(0), "stack");
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

Value expandDims(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "expand_dims", {"x", "axis"});
  return arr(ev.ops().expandDims(a.array(0), a.integer(1, std::nullopt, StaticUse::Axis), c.span));
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

// ---- output and checks ----

// print(values...): prints when evaluated. Inside a traced function that is trace time (once
// per signature, as Python's print under jax.jit): static values print as values, traced ones
// as "traced f32[3]".
Value print(Evaluator& ev, CallArgs& c) {
  // A weak value prints at its default dtype: check here that it fits, so that E0228 points at
  // the argument (format itself has no place to point at).
  std::function<void(const Value&, Span)> materialise = [&](const Value& v, Span span) {
    if (v.isArray()) defaultize(*v.array, span);
    if (v.isTuple())
      for (const Value& e : *v.elems) materialise(e, span);
  };
  for (size_t i = 0; i < c.pos.size(); ++i) materialise(c.pos[i], c.posSpans[i]);
  std::string line;
  for (size_t i = 0; i < c.pos.size(); ++i) line += (i ? " " : "") + ev.format(c.pos[i]);
  if (!c.kw.empty()) fail("E0221", c.kwSpans[0], "print takes no keyword arguments");
  ev.host().out(line + "\n");
  return Value::none();
}

// array(x, dtype=None): an array from a number or a nested tuple of numbers/arrays.
Value array(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "array", {"x", "dtype="});
  std::function<AVal(const Value&)> build = [&](const Value& v) -> AVal {
    if (!v.isTuple()) return toArray(v, a.span(0), "array");
    if (v.elems->empty()) fail("E0207", a.span(0), "array of an empty tuple has no dtype", "use zeros((0,))");
    std::vector<AVal> parts;
    for (const Value& e : *v.elems) parts.push_back(build(e));
    DType t = parts[0].type.dtype;
    bool weak = true;
    for (const AVal& p : parts) {
      t = promoteTypes(AVal::of(Array(t, {}), weak), p);
      weak = weak && p.weak;
      if (p.type.shape != parts[0].type.shape)
        fail("E0207", a.span(0), "array got ragged elements of shapes " + shapeString(parts[0].type.shape) + " and " + shapeString(p.type.shape));
    }
    for (AVal& p : parts) p = ev.ops().expandDims(ev.ops().convert(p, t, c.span), 0, c.span);
    AVal r = ev.ops().concat(parts, 0, c.span);
    r.weak = weak;
    return r;
  };
  AVal r = build(a.get(0));
  if (auto t = a.dtype(1)) r = ev.ops().convert(r, *t, c.span);
  else r = defaultize(r, a.span(0));
  r.weak = false;
  return arr(r);
}

Value assertBuiltin(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "assert", {"cond", "message="});
  AVal cond = a.array(0);
  Array v = concreteOrError(cond, StaticUse::HostConversion, a.span(0), "the condition of assert");
  bool ok = true;
  for (int64_t i = 0; i < v.size(); ++i) ok = ok && v.getDouble(i) != 0;
  if (!ok) {
    std::string msg = a.has(1) ? ev.format(a.get(1)) : "";
    fail("E0501", c.span, "assertion failed" + (msg.empty() ? "" : ": " + msg));
  }
  return Value::none();
}

Value assertClose(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "assert_close", {"a", "b", "rtol=", "atol="});
  double rtol = a.number(2, 1e-5), atol = a.number(3, 1e-8);
  AVal x = a.array(0), y = a.array(1);
  Shape shape = ev.ops().broadcastShapes({x, y}, c.span, "assert_close");
  AVal xb = ev.ops().broadcastTo(defaultize(x, a.span(0)), shape, c.span);
  AVal yb = ev.ops().broadcastTo(defaultize(y, a.span(1)), shape, c.span);
  Array xa = concreteOrError(xb, StaticUse::HostConversion, a.span(0), "assert_close");
  Array ya = concreteOrError(yb, StaticUse::HostConversion, a.span(1), "assert_close");
  int64_t bad = 0, worst = -1;
  double worstErr = -1;
  for (int64_t i = 0; i < xa.size(); ++i) {
    double p = xa.getDouble(i), q = ya.getDouble(i);
    bool same = (std::isnan(p) && std::isnan(q)) || p == q;
    double err = std::fabs(p - q);
    if (!same && !(err <= atol + rtol * std::fabs(q))) {
      ++bad;
      if (!(err <= worstErr)) {
        worstErr = err;
        worst = i;
      }
    }
  }
  if (bad > 0) {
    std::string where;
    int64_t rem = worst;
    for (size_t d = shape.size(); d-- > 0;) {
      where = std::to_string(rem % shape[d]) + (where.empty() ? "" : ", ") + where;
      rem /= shape[d];
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%.9g vs %.9g (|a-b| = %.3g, allowed %.3g)", xa.getDouble(worst),
             ya.getDouble(worst), worstErr, atol + rtol * std::fabs(ya.getDouble(worst)));
    char rule[160];
    snprintf(rule, sizeof rule, "the rule is |a - b| <= atol + rtol * |b| (rtol=%g, atol=%g)", rtol, atol);
    fail("E0503", c.span,
         "assert_close failed: " + std::to_string(bad) + " of " + std::to_string(xa.size()) +
             " elements differ; worst at [" + where + "]: " + buf,
         rule);
  }
  return Value::none();
}

std::map<std::string, Builtin> makeTable() {
  std::map<std::string, Builtin> m;
  auto add = [&](const char* name, BuiltinFn fn, const char* sig) { m[name] = Builtin{name, fn, sig}; };
  add("zeros", zeros, "zeros(shape, dtype=f32)");
  add("ones", ones, "ones(shape, dtype=f32)");
  add("full", full, "full(shape, fill_value, dtype=)");
  add("zeros_like", zerosLike, "zeros_like(x, dtype=)");
  add("ones_like", onesLike, "ones_like(x, dtype=)");
  add("arange", arange, "arange(start, stop=, step=1, dtype=)");
  add("linspace", linspace, "linspace(start, stop, num=50, endpoint=true, dtype=f32)");
  add("eye", eye, "eye(n, m=n, dtype=f32)");
  // The elementwise ops' builtins, from the surface column of ops.def.
  auto addSurface = [&](Op op, BuiltinFn fn) {
    for (const Signature& s : surfaceSignatures(op)) add(s.name.c_str(), fn, s.text.c_str());
  };
#define OP(Enum, name, cat, tc, nin, nout, comb, surface) \
  if constexpr (sizeof(surface) > 1) addSurface(Op::Enum, elementwiseBuiltin<Op::Enum>);
#include "jit/ops.def"
#undef OP
  add("select", select, "select(c, a, b)");
  add("where", where, "where(c, a, b)");
  add("clip", clip, "clip(x, lo, hi)");
  add("astype", astype, "astype(x, dtype)");
  add("sum", reduction<Op::ReduceSum>, "sum(x, axis=None)");
  add("prod", reduction<Op::ReduceProd>, "prod(x, axis=None)");
  add("max", reduction<Op::ReduceMax>, "max(x, axis=None)");
  add("min", reduction<Op::ReduceMin>, "min(x, axis=None)");
  add("all", reduction<Op::ReduceAnd>, "all(x, axis=None)");
  add("any", reduction<Op::ReduceOr>, "any(x, axis=None)");
  add("mean", mean, "mean(x, axis=None)");
  add("argmax", argReduce<Op::ArgMax>, "argmax(x, axis=None)");
  add("argmin", argReduce<Op::ArgMin>, "argmin(x, axis=None)");
  add("cumsum", cumulative<Op::CumSum>, "cumsum(x, axis=None, reverse=false)");
  add("cumprod", cumulative<Op::CumProd>, "cumprod(x, axis=None, reverse=false)");
  add("cummax", cumulative<Op::CumMax>, "cummax(x, axis=None, reverse=false)");
  add("cummin", cumulative<Op::CumMin>, "cummin(x, axis=None, reverse=false)");
  add("matmul", matmul, "matmul(a, b)");
  add("dot", dot, "dot(a, b)");
  add("reshape", reshape, "reshape(x, shape)");
  add("transpose", transpose, "transpose(x, axes=None)");
  add("concat", concat, "concat(arrays, axis=0)");
  add("stack", stack, "stack(arrays, axis=0)");
  add("broadcast_to", broadcastTo, "broadcast_to(x, shape)");
  add("expand_dims", expandDims, "expand_dims(x, axis)");
  add("squeeze", squeeze, "squeeze(x, axis=None)");
  add("flip", flip, "flip(x, axis=None)");
  add("len", len, "len(x)");
  add("dynamic_slice", dynamicSlice, "dynamic_slice(x, starts, sizes)");
  add("dynamic_update_slice", dynamicUpdateSlice, "dynamic_update_slice(x, update, starts)");
  add("print", print, "print(values...)");
  add("array", array, "array(x, dtype=None)");
  add("assert", assertBuiltin, "assert(cond, message=)");
  add("assert_close", assertClose, "assert_close(a, b, rtol=1e-5, atol=1e-8)");
  registerControlBuiltins(m);
  registerRandomBuiltins(m);
  return m;
}

}  // namespace

const std::map<std::string, Builtin>& builtins() {
  static const std::map<std::string, Builtin> table = makeTable();
  return table;
}

}  // namespace scn
