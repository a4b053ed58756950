// Builtins that create arrays: zeros, ones, full, arange, linspace, eye, array, and the FFT's
// sample frequencies fftfreq and rfftfreq.
#include <charconv>
#include <cmath>
#include <functional>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

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

// The dtype of arange's or linspace's values without dtype=: JAX's result type of the bounds
// (and step) when it is a float, so a strong float bound keeps its dtype (linspace(0.0f64, 1.0)
// and arange(0.0f64, 1.0, 0.25) are f64, a bf16 bound gives bf16); otherwise the default f32 for
// float values and i32 for integer ones. Integer bounds do not widen the range: a static size
// often arrives as an i64 scalar (from a host, from len), and arange(n) stays i32 as in JAX.
DType boundsDType(const std::vector<AVal>& bounds, bool anyFloat) {
  std::optional<AVal> acc;
  for (const AVal& b : bounds) {
    if (!acc) {
      acc = b;
      continue;
    }
    DType d = promoteTypes(*acc, b);
    acc->weak = acc->weak && b.weak;
    acc->type.dtype = d;
  }
  if (!acc || acc->weak || !isFloat(acc->type.dtype)) return anyFloat ? DType::F32 : DType::I32;
  return acc->type.dtype;
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
  std::vector<AVal> bounds;
  for (auto [i, v] : given) bounds.push_back(a.array(i));
  DType t = a.dtype(3).value_or(boundsDType(bounds, anyFloat));
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
  // start + i * step; the common arange(n) is the iota alone, in t (no i64 pass and convert).
  bool plain = step == 1 && start == 0;
  AVal r = ev.ops().iota(isFloat(t) || (plain && isInteger(t)) ? t : DType::I64, {n}, 0, c.span);
  if (step != 1)
    r = ev.ops().binary(Op::Mul, r, anyFloat ? weakFloat(step) : weakInt(static_cast<int64_t>(step)), c.span, "arange");
  if (start != 0)
    r = ev.ops().binary(Op::Add, r, anyFloat ? weakFloat(start) : weakInt(static_cast<int64_t>(start)), c.span, "arange");
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
  if (!a.dtype(4)) t = boundsDType({start, stop}, true);
  AVal i = ev.ops().iota(DType::F64, {n}, 0, c.span);
  AVal delta = ev.ops().binary(Op::Sub, ev.ops().convert(stop, DType::F64, c.span), ev.ops().convert(start, DType::F64, c.span), c.span, "linspace");
  AVal stepv = div > 0 ? ev.ops().trueDivide(delta, weakFloat(static_cast<double>(div)), c.span) : weakFloat(0);
  AVal r = ev.ops().binary(Op::Add, ev.ops().convert(start, DType::F64, c.span), ev.ops().binary(Op::Mul, i, stepv, c.span, "linspace"), c.span, "linspace");
  r = ev.ops().convert(r, t, c.span);
  r.weak = false;
  return arr(r);
}

// eye(n, m=None, k=0, dtype=f32): ones where the column is the row plus k.
Value eye(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "eye", {"n", "m=", "k=", "dtype="});
  int64_t n = a.integer(0, std::nullopt, StaticUse::Shape);
  int64_t m = a.integer(1, n, StaticUse::Shape);
  int64_t k = a.integer(2, 0, StaticUse::Other);
  DType t = a.dtype(3).value_or(DType::F32);
  AVal column = ev.ops().iota(DType::I64, {n, m}, 1, c.span), row = ev.ops().iota(DType::I64, {n, m}, 0, c.span);
  AVal r = ev.ops().binary(Op::Eq, ev.ops().binary(Op::Sub, column, row, c.span, "eye"), strongScalar(DType::I64, static_cast<double>(k)), c.span, "eye");
  return arr(ev.ops().convert(r, t, c.span));
}

// identity(n, dtype=f32)
Value identity(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "identity", {"n", "dtype="});
  int64_t n = a.integer(0, std::nullopt, StaticUse::Shape);
  AVal r = ev.ops().binary(Op::Eq, ev.ops().iota(DType::I64, {n, n}, 0, c.span), ev.ops().iota(DType::I64, {n, n}, 1, c.span), c.span, "identity");
  return arr(ev.ops().convert(r, a.dtype(1).value_or(DType::F32), c.span));
}

// The sample frequencies k / (d * n) of an n-point FFT for the integers k, as jnp.fft.fftfreq
// and rfftfreq compute them: k in the (default f32) float type times the reciprocal of d * n in
// that type (XLA turns jnp's division by the constant into that product), so the values are
// JAX's bits (f64: -5 / 3.0 is ...667, JAX's ...665). d is a static number (JAX also takes a
// scalar array).
AVal sampleFrequencies(Evaluator& ev, AVal k, int64_t n, double d, DType out, Span span) {
  DType t = isFloat(out) ? out : DType::F64;
  double spacing = d * static_cast<double>(n);
  double reciprocal = t == DType::F32 ? static_cast<double>(1.0f / static_cast<float>(spacing)) : 1.0 / spacing;
  AVal r = ev.ops().binary(Op::Mul, ev.ops().convert(k, t, span), strongScalar(t, reciprocal), span, "fftfreq");
  r = ev.ops().convert(r, out, span);
  r.weak = false;
  return r;
}

// fftfreq(n, d=1.0, dtype=f32): [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d * n), the order of
// fft's outputs; k = (i + n//2) % n - n//2 as JAX writes it.
Value fftfreq(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "fftfreq", {"n", "d=", "dtype="});
  int64_t n = a.integer(0, std::nullopt, StaticUse::Shape);
  double d = a.number(1, 1.0);
  AVal i = ev.ops().iota(DType::I64, {n}, 0, c.span);
  AVal half = strongScalar(DType::I64, static_cast<double>(n / 2));
  AVal k = n == 0 ? i
                  : ev.ops().binary(Op::Sub,
                                    ev.ops().binary(Op::Rem, ev.ops().binary(Op::Add, i, half, c.span, "fftfreq"),
                                                    strongScalar(DType::I64, static_cast<double>(n)), c.span, "fftfreq"),
                                    half, c.span, "fftfreq");
  return arr(sampleFrequencies(ev, k, n, d, a.dtype(2).value_or(DType::F32), c.span));
}

// rfftfreq(n, d=1.0, dtype=f32): [0, 1, ..., n//2] / (d * n), the order of rfft's outputs.
Value rfftfreq(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "rfftfreq", {"n", "d=", "dtype="});
  int64_t n = a.integer(0, std::nullopt, StaticUse::Shape);
  double d = a.number(1, 1.0);
  AVal k = ev.ops().iota(DType::I64, {n / 2 + 1}, 0, c.span);
  return arr(sampleFrequencies(ev, k, n, d, a.dtype(2).value_or(DType::F32), c.span));
}

// array(x, dtype=None): an array from a number or a nested tuple of numbers/arrays (a list
// literal written here comes as the tuple of its rows: Note [Array literals]). Under a dtype each
// element converts to it before the stacking, as in jnp.array; without one they promote.
Value array(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "array", {"x", "dtype="});
  std::optional<DType> dtype = a.dtype(1);
  std::function<AVal(const Value&)> build = [&](const Value& v) -> AVal {
    if (!v.isTuple()) {
      AVal x = toArray(v, a.span(0), "array");
      if (!dtype) return x;
      const Array* written = x.literalValues();  // a literal bound to a name: exact too
      return ev.ops().convert(written ? AVal::of(*written, true) : x, *dtype, c.span);
    }
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
  if (dtype) r = ev.ops().convert(r, *dtype, c.span);
  else r = defaultize(r, a.span(0));
  r.weak = false;
  return arr(r);
}

}  // namespace

BuiltinDefs creationBuiltins() {
  return {{},
          {
              {"zeros(shape, dtype=f32)", "an array of zeros of the given shape", zeros},
              {"ones(shape, dtype=f32)", "an array of ones of the given shape", ones},
              {"full(shape, fill_value, dtype=)", "an array of the given shape filled with fill_value", full},
              {"zeros_like(x, dtype=)", "zeros of the shape (and dtype) of x", zerosLike},
              {"ones_like(x, dtype=)", "ones of the shape (and dtype) of x", onesLike},
              {"arange(start, stop=, step=1, dtype=)", "the numbers from start (or 0) below stop by step, as NumPy's arange", arange},
              {"linspace(start, stop, num=50, endpoint=true, dtype=f32)", "num evenly spaced numbers from start to stop", linspace},
              {"eye(n, m=None, k=0, dtype=f32)", "the n x m (m = n when None) matrix with ones on the k-th diagonal, zeros elsewhere", eye},
              {"identity(n, dtype=f32)", "the n x n identity matrix", identity},
              {"array(x, dtype=None)", "an array from a number or a nested tuple of numbers and arrays", array},
              {"fftfreq(n, d=1.0, dtype=f32)", "the sample frequencies of an n-point fft (d: the sample spacing), as jnp.fft.fftfreq", fftfreq},
              {"rfftfreq(n, d=1.0, dtype=f32)", "the sample frequencies of an n-point rfft, as jnp.fft.rfftfreq", rfftfreq},
          }};
}

}  // namespace scn
