// The random draws built on uniform and the random bits, each with jax.random's algorithm so the
// numbers are JAX's (Note [JAX's random bits] in builtins_random.cpp): randint, bernoulli,
// exponential, gumbel, truncated_normal, categorical, choice and permutation.
#include <cmath>
#include <limits>

#include "lang/gather_index.hpp"
#include "lang/random.hpp"

namespace scn {

namespace {

// ---- integers ----

struct IntRange {
  __int128 lo, hi;
};

IntRange rangeOf(DType t) {
  switch (t) {
    case DType::Bool: return {0, 1};
    case DType::I32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::I64: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    case DType::U32: return {0, std::numeric_limits<uint32_t>::max()};
    case DType::U64: return {0, std::numeric_limits<uint64_t>::max()};
    case DType::BF16: case DType::F16: case DType::F32: case DType::F64: case DType::C64: case DType::C128: break;
  }
  internalError("rangeOf: not an integer dtype");
}

/// The integer v (within t's range) as a strong scalar of dtype t.
AVal intConst(DType t, __int128 v) { return AVal::of(Array::scalarInt(t, static_cast<int64_t>(v))); }

/// v converted to `to`, clipped to the range of `to` rather than wrapped (JAX's
/// _convert_and_clip_integer).
AVal convertClipped(ArrayOps& ops, const AVal& v, DType to, Span span) {
  DType from = v.type.dtype;
  IntRange a = rangeOf(from), b = rangeOf(to);
  AVal clipped = ops.binary(Op::Max, v, intConst(from, std::max(a.lo, b.lo)), span, "randint");
  clipped = ops.binary(Op::Min, clipped, intConst(from, std::min(a.hi, b.hi)), span, "randint");
  return ops.cast(clipped, to, span);
}

/// A bound of randint as an integer array: a weak literal at i64 (it may exceed the dtype's
/// range, as a Python int does under jax_enable_x64), a float one truncated as astype(int).
AVal intBound(ArrayOps& ops, const AVal& v, Span span) {
  if (isFloat(v.type.dtype)) return ops.cast(defaultize(v, span), DType::I32, span);
  if (v.weak) return ops.cast(v, DType::I64, span);
  if (v.type.dtype == DType::Bool) return ops.cast(v, DType::I32, span);
  return v;
}

/// a % s, and a where s is 0 (XLA's remainder by zero, which randint's span relies on).
AVal remOrSelf(ArrayOps& ops, const AVal& a, const AVal& s, Span span) {
  AVal zero = ops.binary(Op::Eq, s, intConst(s.type.dtype, 0), span, "randint");
  AVal safe = ops.select(zero, intConst(s.type.dtype, 1), s, span, "randint");
  return ops.select(zero, a, ops.binary(Op::Rem, a, safe, span, "randint"), span, "randint");
}

/// jax.random.randint: two draws of nbits random bits (under the two halves of split(key))
/// reduced modulo the span of [minval, maxval).
AVal randintDraw(ArrayOps& ops, const AVal& key, const Shape& shape, AVal minval, AVal maxval, DType t, Span span) {
  checkParamShape("randint", "minval", shape, minval, span);
  checkParamShape("randint", "maxval", shape, maxval, span);
  minval = intBound(ops, minval, span);
  maxval = intBound(ops, maxval, span);
  DType mt = maxval.type.dtype;
  AVal maxOutOfRange = ops.binary(Op::Gt, maxval, intConst(mt, std::min(rangeOf(t).hi, rangeOf(mt).hi)), span, "randint");
  AVal lo = convertClipped(ops, minval, t, span), hi = convertClipped(ops, maxval, t, span);
  int bits = static_cast<int>(dtypeSize(t) * 8);
  DType u = bits == 64 ? DType::U64 : DType::U32;
  AVal keys = splitKeys(ops, key, 2, span);
  AVal higher = randomBits(ops, splitPart(ops, keys, 0, span), bits, shape, span);
  AVal lower = randomBits(ops, splitPart(ops, keys, 1, span), bits, shape, span);
  AVal width = ops.cast(ops.binary(Op::Sub, hi, lo, span, "randint"), u, span);
  width = ops.select(ops.binary(Op::Le, hi, lo, span, "randint"), intConst(u, 1), width, span, "randint");
  AVal grow = ops.logical(Op::And, maxOutOfRange, ops.binary(Op::Gt, hi, lo, span, "randint"), span);
  width = ops.select(grow, ops.binary(Op::Add, width, intConst(u, 1), span, "randint"), width, span, "randint");
  // 2^bits % width without overflow: (2^(bits/2) % width)^2 % width.
  AVal mult = remOrSelf(ops, intConst(u, __int128(1) << (bits / 2)), width, span);
  mult = remOrSelf(ops, ops.binary(Op::Mul, mult, mult, span, "randint"), width, span);
  AVal offset = ops.binary(Op::Add, ops.binary(Op::Mul, remOrSelf(ops, higher, width, span), mult, span, "randint"),
                           remOrSelf(ops, lower, width, span), span, "randint");
  offset = remOrSelf(ops, offset, width, span);
  return ops.broadcastTo(ops.binary(Op::Add, lo, ops.cast(offset, t, span), span, "randint"), shape, span, "randint");
}

DType intDTypeArg(const Args& a, size_t i) {
  DType t = a.dtype(i).value_or(DType::I32);
  if (!isInteger(t))
    fail("E0297", a.span(i), std::string("randint needs an integer dtype, got ") + dtypeName(t),
         "use uniform for random floats");
  return t;
}

// randint(key, shape, minval, maxval, dtype=i32)
Value randint(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "randint", {"key", "shape", "minval", "maxval", "dtype="});
  DType t = intDTypeArg(a, 4);
  return arr(randintDraw(ev.ops(), a.array(0), a.shape(1), a.array(2), a.array(3), t, c.span));
}

// ---- floats from uniform ----

/// A float parameter of a draw (bernoulli's p, categorical's logits) at its default dtype; E0297
/// for an integer one, as JAX.
AVal floatParam(const Args& a, size_t i, const char* fn, const char* param) {
  AVal v = defaultize(a.array(i), a.span(i));
  if (!isFloat(v.type.dtype))
    fail("E0297", a.span(i), std::string(fn) + " needs a float `" + param + "`, got " + surfaceTypeString(v),
         "write it as a float (`1.0`) or convert it: `astype(x, f32)`");
  return v;
}

AVal unitUniform(ArrayOps& ops, const AVal& key, const Shape& shape, DType t, Span span, const char* fn) {
  return uniformDraw(ops, key, shape, t, floatConst(t, 0), floatConst(t, 1), span, fn);
}

/// jax.random.gumbel (mode "low"): -log(-log(u)) for u uniform in [tiny, 1).
AVal gumbelDraw(ArrayOps& ops, const AVal& key, const Shape& shape, DType t, Span span, const char* fn) {
  double tiny = smallestNormal(t);
  AVal u = uniformDraw(ops, key, shape, t, floatConst(t, tiny), floatConst(t, 1), span, fn);
  return ops.unary(Op::Neg, ops.unary(Op::Log, ops.unary(Op::Neg, ops.unary(Op::Log, u, span), span), span), span);
}

// bernoulli(key, p=0.5, shape=None): uniform(key, shape, p's dtype) < p.
Value bernoulli(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "bernoulli", {"key", "p=", "shape="});
  AVal p = a.has(1) ? floatParam(a, 1, "bernoulli", "p") : floatConst(DType::F32, 0.5);
  Shape shape = a.has(2) && !a.get(2).isNone() ? a.shape(2) : p.type.shape;
  checkParamShape("bernoulli", "p", shape, p, c.span);
  AVal u = unitUniform(ev.ops(), a.array(0), shape, p.type.dtype, c.span, "bernoulli");
  return arr(ev.ops().binary(Op::Lt, u, p, c.span, "bernoulli"));
}

// exponential(key, shape=None, dtype=f32): -log1p(-u).
Value exponential(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "exponential", {"key", "shape=", "dtype="});
  ArrayOps& ops = ev.ops();
  AVal u = unitUniform(ops, a.array(0), shapeArg(a, 1), floatDTypeArg(a, 2), c.span, "exponential");
  return arr(ops.unary(Op::Neg, ops.unary(Op::Log1p, ops.unary(Op::Neg, u, c.span), c.span), c.span));
}

Value gumbel(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "gumbel", {"key", "shape=", "dtype="});
  return arr(gumbelDraw(ev.ops(), a.array(0), shapeArg(a, 1), floatDTypeArg(a, 2), c.span, "gumbel"));
}

/// x moved one float step toward `toward` (+-inf), elementwise, for a static x; nullopt when
/// x is traced (Note [Truncated normal bounds]).
std::optional<AVal> nextFloat(const AVal& x, double toward) {
  if (!x.isStatic()) return std::nullopt;
  Array a = x.concrete->clone();
  for (int64_t i = 0; i < a.size(); ++i)
    a.setDouble(i, nextAfterIn(a.dtype, a.getDouble(i), toward));
  return AVal::of(std::move(a));
}

// Note [Truncated normal bounds]
// JAX clips a truncated normal draw into the open interval (lower, upper) with nextafter of the
// bounds. scn has no nextafter op: for static bounds (the usual case) the stepped bounds are
// computed here and the draw is JAX's; for traced bounds the draw is clipped to the closed
// interval [lower, upper], which differs from JAX's only where erfinv rounds onto a bound.

// truncated_normal(key, lower, upper, shape=None, dtype=f32):
// sqrt(2) erfinv(u) for u uniform in [erf(lower / sqrt 2), erf(upper / sqrt 2)).
Value truncatedNormal(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "truncated_normal", {"key", "lower", "upper", "shape=", "dtype="});
  DType t = floatDTypeArg(a, 4);
  ArrayOps& ops = ev.ops();
  AVal lower = ops.cast(a.array(1), t, a.span(1)), upper = ops.cast(a.array(2), t, a.span(2));
  Shape shape = a.has(3) && !a.get(3).isNone() ? a.shape(3) : ops.broadcastShapes({lower, upper}, c.span, "truncated_normal");
  checkParamShape("truncated_normal", "lower", shape, lower, c.span);
  checkParamShape("truncated_normal", "upper", shape, upper, c.span);
  AVal sqrt2 = floatConst(t, t == DType::F64 ? std::sqrt(2.0) : static_cast<double>(std::sqrt(2.0f)));
  auto erfOf = [&](const AVal& b) { return ops.unary(Op::Erf, ops.trueDivide(b, sqrt2, c.span), c.span); };
  AVal u = uniformDraw(ops, a.array(0), shape, t, erfOf(lower), erfOf(upper), c.span, "truncated_normal");
  AVal out = ops.binary(Op::Mul, sqrt2, ops.unary(Op::ErfInv, u, c.span), c.span, "truncated_normal");
  AVal floor = nextFloat(lower, INFINITY).value_or(lower), ceil = nextFloat(upper, -INFINITY).value_or(upper);
  out = ops.binary(Op::Min, ops.binary(Op::Max, out, floor, c.span, "truncated_normal"), ceil, c.span, "truncated_normal");
  return arr(out);
}

// ---- choices ----

AVal sortedBy(Evaluator& ev, const AVal& keys, const AVal& x, int64_t axis, Span span) {
  Attrs at;
  at.axes = {axis};
  return ev.tracer().apply(Op::Sort, {keys, x}, at, span)[1];
}

/// jax.random's _shuffle: rounds of a stable sort of x along axis by fresh 32-bit keys, enough
/// rounds that all keys differ with high probability.
AVal shuffle(Evaluator& ev, AVal key, AVal x, int64_t axis, Span span) {
  ArrayOps& ops = ev.ops();
  double n = static_cast<double>(std::max<int64_t>(1, numElements(x.type.shape)));
  int rounds = static_cast<int>(std::ceil(3 * std::log(n) / std::log(4294967295.0)));
  for (int r = 0; r < rounds; ++r) {
    AVal keys = splitKeys(ops, key, 2, span);
    key = splitPart(ops, keys, 0, span);
    x = sortedBy(ev, randomBits(ops, splitPart(ops, keys, 1, span), 32, x.type.shape, span), x, axis, span);
  }
  return x;
}

/// x indexed along axis by the integer array i.
AVal takeAlong(Evaluator& ev, const AVal& x, const AVal& i, int64_t axis, Span span) {
  std::vector<IndexArg> items(static_cast<size_t>(axis + 1));
  for (int64_t d = 0; d < axis; ++d) {
    items[d].kind = IndexArg::Kind::Slice;
    items[d].span = span;
  }
  items[axis].span = span;
  items[axis].value = i;
  return gatherIndexed(ev, x, items, std::nullopt, false, span);
}

/// The static length of arange(n) for an integer scalar n (permutation's and choice's `x`/`a`).
int64_t rangeLength(const Args& a, size_t i, const char* fn) {
  AVal v = a.array(i);
  if (!isInteger(v.type.dtype))
    fail("E0296", a.span(i), std::string(fn) + " needs an integer or an array of rank 1 or more, got " + surfaceTypeString(v),
         std::string(fn) + "(key, n) draws from arange(n)");
  return a.integer(i, std::nullopt, StaticUse::Shape);
}

// permutation(key, x, axis=0, independent=false): arange(x) or x shuffled along axis.
Value permutation(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "permutation", {"key", "x", "axis=", "independent="});
  AVal key = a.array(0), x = defaultize(a.array(1), a.span(1));
  if (x.type.shape.empty())
    return arr(shuffle(ev, key, ev.ops().iota(DType::I32, {rangeLength(a, 1, "permutation")}, 0, c.span), 0, c.span));
  int64_t axis = ArrayOps::normAxis(a.integer(2, 0, StaticUse::Axis), x.type.shape.size(), a.span(a.has(2) ? 2 : 1), "permutation");
  if (a.boolean(3, false) || x.type.shape.size() == 1) return arr(shuffle(ev, key, x, axis, c.span));
  AVal order = shuffle(ev, key, ev.ops().iota(DType::I32, {x.type.shape[axis]}, 0, c.span), 0, c.span);
  return arr(takeAlong(ev, x, order, axis, c.span));
}

/// The indices of the k largest elements of the 1-d x, largest first, ties by lower index
/// (lax.top_k's order).
AVal topIndices(Evaluator& ev, const AVal& x, int64_t k, Span span) {
  Attrs rev;
  rev.axes = {0};
  int64_t n = x.type.shape[0];
  AVal pos = ev.ops().iota(DType::I32, {n}, 0, span);
  AVal order = sortedBy(ev, ev.tracer().apply1(Op::Reverse, {x}, rev, span), ev.tracer().apply1(Op::Reverse, {pos}, rev, span), 0, span);
  return ev.tracer().apply1(Op::Reverse, {ev.ops().slice(order, {n - k}, {n}, {1}, span)}, rev, span);
}

// choice(key, a, shape=None, replace=true, p=None): as jax.random.choice along axis 0.
Value choice(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "choice", {"key", "a", "shape=", "replace=", "p="});
  ArrayOps& ops = ev.ops();
  AVal key = a.array(0), pool = defaultize(a.array(1), a.span(1));
  bool scalarPool = pool.type.shape.empty();
  int64_t n = scalarPool ? rangeLength(a, 1, "choice") : pool.type.shape[0];
  Shape shape = shapeArg(a, 2);
  bool replace = a.boolean(3, true);
  int64_t draws = numElements(shape);
  if (draws == 0) return arr(ops.full(shape, strongScalar(pool.type.dtype, 0), c.span));
  if (n <= 0)
    fail("E0293", a.span(1), "choice from an empty population (size " + std::to_string(n) + ")",
         "a must have at least one element unless no samples are taken");
  if (!replace && draws > n)
    fail("E0293", c.span, "choice cannot take " + std::to_string(draws) + " samples from a population of " +
                              std::to_string(n) + " with replace=false",
         "draw at most " + std::to_string(n) + " samples, or pass replace=true");
  AVal ind;
  if (!a.has(4) || a.get(4).isNone()) {
    if (replace) {
      ind = randintDraw(ops, key, shape, weakInt(0), weakInt(n), DType::I32, c.span);
    } else {
      AVal perm = shuffle(ev, key, ops.iota(DType::I32, {n}, 0, c.span), 0, c.span);
      ind = ops.reshape(ops.slice(perm, {0}, {draws}, {1}, c.span), shape, c.span);
    }
  } else {
    AVal p = defaultize(a.array(4), a.span(4));
    if (!isFloat(p.type.dtype)) p = ops.convert(p, DType::F32, a.span(4));
    if (p.type.shape != Shape{n})
      fail("E0293", a.span(4), "choice: p must be a vector of the population's size " + std::to_string(n) + ", got " +
                                   surfaceTypeString(p));
    if (replace) {
      Attrs at;
      at.axes = {0};
      AVal cum = ev.tracer().apply1(Op::CumSum, {p}, at, c.span);
      AVal total = ops.reshape(ops.slice(cum, {n - 1}, {n}, {1}, c.span), {}, c.span);
      AVal u = unitUniform(ops, key, shape, p.type.dtype, c.span, "choice");
      AVal r = ops.binary(Op::Mul, total, ops.binary(Op::Sub, floatConst(p.type.dtype, 1), u, c.span, "choice"), c.span, "choice");
      // searchsorted(cum, r) on the sorted cum: how many of its elements are below r.
      AVal below = ops.binary(Op::Lt, cum, ops.expandDims(r, static_cast<int64_t>(shape.size()), c.span), c.span, "choice");
      ind = ops.reduce(Op::ReduceSum, ops.convert(below, DType::I32, c.span), std::vector<int64_t>{-1}, c.span, "choice");
    } else {
      AVal g = ops.binary(Op::Add, gumbelDraw(ops, key, {n}, p.type.dtype, c.span, "choice"), ops.unary(Op::Log, p, c.span),
                          c.span, "choice");
      ind = ops.reshape(topIndices(ev, g, draws, c.span), shape, c.span);
    }
  }
  return arr(scalarPool ? ind : takeAlong(ev, pool, ind, 0, c.span));
}

// categorical(key, logits, axis=-1, shape=None): the Gumbel-max trick, argmax(gumbel + logits).
Value categorical(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "categorical", {"key", "logits", "axis=", "shape="});
  ArrayOps& ops = ev.ops();
  AVal logits = floatParam(a, 1, "categorical", "logits");
  const Shape& ls = logits.type.shape;
  if (ls.empty())
    fail("E0292", a.span(1), "categorical needs logits of rank 1 or more, got " + surfaceTypeString(logits),
         "the categories are along `axis` of logits");
  int64_t rank = static_cast<int64_t>(ls.size());
  int64_t axis = ArrayOps::normAxis(a.integer(2, -1, StaticUse::Axis), ls.size(), a.span(a.has(2) ? 2 : 1), "categorical");
  Shape batch = ls;
  batch.erase(batch.begin() + axis);
  Shape shape = a.has(3) && !a.get(3).isNone() ? a.shape(3) : batch;
  AVal batchLike = logits;
  batchLike.type.shape = batch;
  checkParamShape("categorical", "logits (without axis)", shape, batchLike, c.span);
  int64_t prefix = static_cast<int64_t>(shape.size()) - (rank - 1);
  Shape draw = shape;
  draw.insert(draw.begin() + prefix + axis, ls[axis]);
  AVal scores = ops.binary(Op::Add, gumbelDraw(ops, a.array(0), draw, logits.type.dtype, c.span, "categorical"), logits,
                           c.span, "categorical");
  Attrs at;
  at.axes = {prefix + axis};
  return arr(ev.tracer().apply1(Op::ArgMax, {scores}, at, c.span));
}

}  // namespace

BuiltinDefs randomDrawBuiltins() {
  return {{},
          {
              {"randint(key, shape, minval, maxval, dtype=i32)",
               "uniform random integers in [minval, maxval), bit for bit jax.random.randint's", randint},
              {"bernoulli(key, p=0.5, shape=None)", "random booleans, true with probability p (jax.random.bernoulli)",
               bernoulli},
              {"exponential(key, shape=None, dtype=f32)", "exponential random numbers of rate 1 (jax.random.exponential)",
               exponential},
              {"gumbel(key, shape=None, dtype=f32)", "standard Gumbel random numbers (jax.random.gumbel)", gumbel},
              {"truncated_normal(key, lower, upper, shape=None, dtype=f32)",
               "standard normal random numbers truncated to (lower, upper) (jax.random.truncated_normal)",
               truncatedNormal},
              {"categorical(key, logits, axis=-1, shape=None)",
               "random category indices (i32) with probabilities softmax(logits) along axis, by the Gumbel-max trick",
               categorical},
              {"choice(key, a, shape=None, replace=true, p=None)",
               "random elements of a (or of arange(a) for an integer), with or without replacement, weighted by p",
               choice},
              {"permutation(key, x, axis=0, independent=false)",
               "arange(x) for an integer x, else x, randomly shuffled along axis", permutation},
          }};
}

}  // namespace scn
