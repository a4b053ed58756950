// Counter-based random numbers as jax.random draws them: keys, split, fold_in, random bits and
// the uniform and normal draws. Threefry-2x32 is written with u32 IR ops, so every backend
// computes the same bits (integer arithmetic wraps identically everywhere).
#include "lang/random.hpp"

#include <cmath>

namespace scn {

// Note [JAX's random bits]
// scn's keys and draws are jax.random's (jax 0.10, the default threefry2x32 implementation with
// jax_threefry_partitionable on, the default since jax 0.5):
// - key(seed) is the u32[2] (seed >> 32, seed & 0xFFFFFFFF).
// - Element i (row-major) of a draw of any shape hashes the counter pair (i >> 32, i & ...),
//   here (0, i), under the key: (x0, x1) = threefry2x32(key, (0, i)).
// - split(key, num) is row i = (x0, x1); fold_in(key, d) is (x0, x1) of the counter (0, u32(d)).
// - 32 random bits are x0 ^ x1; 64 random bits are (x0 << 32) | x1.
// - uniform: the top 23 (f32) or 52 (f64) of those bits as the mantissa of a float in [1, 2)
//   less 1 (JAX's bitcast; here the same value as bits * 2^-23, which is exact), then
//   max(minval, u * (maxval - minval) + minval).
// - normal: sqrt(2) * erfinv(uniform in [nextafter(-1, 0), 1)).
// Every draw built from integer ops and +, -, *, max on floats is bit for bit JAX's; a draw
// through a transcendental (erfinv, log, log1p, erf) is within an ulp or two of JAX's, the
// difference between scn's and XLA's polynomial or libm (docs/language.md "Random numbers").

namespace {

AVal u32(uint32_t v) { return strongScalar(DType::U32, static_cast<double>(v)); }

/// Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
/// key: two u32 scalars; counters: two u32 arrays of one shape.
Bits threefry(ArrayOps& ops, const KeyWords& key, AVal c0, AVal c1, Span span) {
  auto add = [&](const AVal& a, const AVal& b) { return ops.binary(Op::Add, a, b, span, "threefry"); };
  auto xorv = [&](const AVal& a, const AVal& b) { return ops.binary(Op::Xor, a, b, span, "threefry"); };
  auto rotl = [&](const AVal& x, uint32_t r) {
    return ops.binary(Op::Or, ops.binary(Op::Shl, x, u32(r), span, "threefry"),
                      ops.binary(Op::Shr, x, u32(32 - r), span, "threefry"), span, "threefry");
  };
  AVal k2 = xorv(xorv(key.k0, key.k1), u32(0x1BD11BDA));
  AVal ks[3] = {key.k0, key.k1, k2};
  static const uint32_t rot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  AVal x0 = add(c0, key.k0), x1 = add(c1, key.k1);
  for (int group = 0; group < 5; ++group) {
    for (uint32_t r : rot[group % 2]) {
      x0 = add(x0, x1);
      x1 = rotl(x1, r);
      x1 = xorv(x1, x0);
    }
    x0 = add(x0, ks[(group + 1) % 3]);
    x1 = add(add(x1, ks[(group + 2) % 3]), u32(static_cast<uint32_t>(group + 1)));
  }
  return {x0, x1};
}

AVal keyPart(ArrayOps& ops, const AVal& key, int64_t i, Span span) {
  AVal s = ops.slice(key, {i}, {i + 1}, {1}, span);
  return ops.reshape(s, {}, span);
}

}  // namespace

KeyWords keyWords(ArrayOps& ops, const AVal& key, Span span) {
  if (key.type.dtype != DType::U32 || key.type.shape != Shape{2})
    fail("E0240", span, "expected a random key (u32[2] from key(seed)), got " + surfaceTypeString(key),
         "make one with `key(seed)` and derive more with `split(key)`");
  return {keyPart(ops, key, 0, span), keyPart(ops, key, 1, span)};
}

Bits hashedIndices(ArrayOps& ops, const KeyWords& key, const Shape& shape, Span span) {
  int64_t n = numElements(shape);
  AVal counter = ops.reshape(ops.iota(DType::U32, {n}, 0, span), shape, span);
  return threefry(ops, key, ops.full(shape, u32(0), span), counter, span);
}

AVal randomBits(ArrayOps& ops, const AVal& key, int width, const Shape& shape, Span span) {
  Bits b = hashedIndices(ops, keyWords(ops, key, span), shape, span);
  if (width == 32) return ops.binary(Op::Xor, b.x0, b.x1, span, "random bits");
  AVal hi = ops.convert(b.x0, DType::U64, span), lo = ops.convert(b.x1, DType::U64, span);
  return ops.binary(Op::Or, ops.binary(Op::Shl, hi, strongScalar(DType::U64, 32), span, "random bits"), lo, span,
                    "random bits");
}

AVal splitKeys(ArrayOps& ops, const AVal& key, int64_t num, Span span) {
  Bits b = hashedIndices(ops, keyWords(ops, key, span), {num, 1}, span);
  return ops.concat({b.x0, b.x1}, 1, span);
}

AVal splitPart(ArrayOps& ops, const AVal& keys, int64_t i, Span span) {
  return ops.reshape(ops.slice(keys, {i, 0}, {i + 1, 2}, {1, 1}, span), {2}, span);
}

void checkParamShape(const char* fn, const char* param, const Shape& shape, const AVal& value, Span span) {
  const Shape& p = value.type.shape;
  bool fits = p.size() <= shape.size();
  for (size_t d = 0; fits && d < p.size(); ++d) {
    int64_t want = shape[shape.size() - p.size() + d];
    fits = p[d] == want || p[d] == 1;
  }
  if (!fits)
    fail("E0292", span,
         std::string(fn) + ": `" + param + "` of shape " + shapeString(p) + " does not broadcast to the shape " +
             shapeString(shape) + " of the draw",
         "give a shape= that the parameters broadcast to, or leave shape=None to take theirs");
}

DType floatDTypeArg(const Args& a, size_t i) {
  DType t = a.dtype(i).value_or(DType::F32);
  if (!isFloat(t))
    fail("E0241", a.callSpan(), std::string("random floats need a float dtype, got ") + dtypeName(t));
  return t;
}

double nextAfterIn(DType t, double x, double toward) {
  if (t == DType::F64) return std::nextafter(x, toward);
  if (t == DType::F32) return std::nextafter(static_cast<float>(x), static_cast<float>(toward));
  // bf16 / f16: step the 16-bit pattern (sign and magnitude, like every IEEE format).
  Array a = Array::scalar(t, x);
  double v = a.getDouble(0);
  if (v == toward || std::isnan(v) || std::isnan(toward)) return v == toward ? v : v + toward;
  uint16_t& bits = static_cast<uint16_t*>(a.raw())[0];
  if (v == 0) bits = toward > 0 ? 0x0001 : 0x8001;
  else if ((v < toward) == (v > 0)) ++bits;
  else --bits;
  return a.getDouble(0);
}

double smallestNormal(DType t) {
  switch (t) {
    case DType::F64: return std::numeric_limits<double>::min();
    case DType::F16: return 0x1p-14;
    default: return std::numeric_limits<float>::min();  // f32, and bf16 with f32's exponent
  }
}

Shape shapeArg(const Args& a, size_t i) {
  if (!a.has(i) || a.get(i).isNone()) return {};
  return a.shape(i);
}

namespace {

// Note [Fused multiply-add]
// XLA contracts jax.random.uniform's `u * (maxval - minval) + minval` into one fma on the CPU
// and the GPU, so JAX's draws are rounded once; scn's scalar ops never contract (Note [Scalar
// semantics]), so the fma is written out here, for f32 and f64 (bf16 and f16 draws XLA rounds
// after each op, and so does scn). f32: the product of two f32 is exact in f64, and the f64 sum
// rounded to f32 is the fma's result (it could differ only where the f64 sum is inexact and
// lands on an f32 midpoint; the sum of u * width, at most 47 bits, and minval is exact in f64
// unless their magnitudes are 2^6 apart or more). f64: Dekker's exact product and Knuth's exact
// sum, then one rounding of their error terms, which is the fma's result except in
// double-rounding cases; where the error terms overflow to NaN, the plain a * b + c.
AVal fusedMulAdd(ArrayOps& ops, const AVal& a, const AVal& b, const AVal& c, Span span) {
  auto add = [&](const AVal& x, const AVal& y) { return ops.binary(Op::Add, x, y, span, "uniform"); };
  auto sub = [&](const AVal& x, const AVal& y) { return ops.binary(Op::Sub, x, y, span, "uniform"); };
  auto mul = [&](const AVal& x, const AVal& y) { return ops.binary(Op::Mul, x, y, span, "uniform"); };
  DType t = a.type.dtype;
  if (t == DType::F32) {  // exact in f64, rounded once
    AVal wide = add(mul(ops.cast(a, DType::F64, span), ops.cast(b, DType::F64, span)), ops.cast(c, DType::F64, span));
    return ops.cast(wide, t, span);
  }
  auto split = [&](const AVal& x) {
    AVal big = mul(floatConst(DType::F64, 134217729.0), x);  // 2^27 + 1
    AVal hi = sub(big, sub(big, x));
    return std::pair<AVal, AVal>{hi, sub(x, hi)};
  };
  AVal p = mul(a, b);
  auto [ah, al] = split(a);
  auto [bh, bl] = split(b);
  AVal productError = add(add(add(sub(mul(ah, bh), p), mul(ah, bl)), mul(al, bh)), mul(al, bl));
  AVal s = add(p, c), back = sub(s, p);
  AVal sumError = add(sub(p, sub(s, back)), sub(c, back));
  AVal fused = add(s, add(sumError, productError));
  return ops.select(ops.unary(Op::IsNan, fused, span), s, fused, span);
}

}  // namespace

AVal uniformDraw(ArrayOps& ops, const AVal& key, const Shape& shape, DType t, AVal minval, AVal maxval, Span span,
                 const char* fn) {
  checkParamShape(fn, "minval", shape, minval, span);
  checkParamShape(fn, "maxval", shape, maxval, span);
  minval = ops.cast(minval, t, span);
  maxval = ops.cast(maxval, t, span);
  AVal unit;
  if (t == DType::F64) {
    AVal mantissa = ops.binary(Op::Shr, randomBits(ops, key, 64, shape, span), strongScalar(DType::U64, 12), span, fn);
    unit = ops.binary(Op::Mul, ops.convert(mantissa, t, span), floatConst(t, 0x1.0p-52), span, fn);
  } else if (isLowPrecision(t)) {
    // JAX draws 16 bits for f16 and 8 for bf16 (whose 7-bit mantissa is under 8), the low bits of
    // the 32-bit draw, and keeps their top 10 or 7 as the mantissa: exact in t, so the unit draw
    // is exactly JAX's.
    int mantissaBits = t == DType::BF16 ? 7 : 10, drawnBits = t == DType::BF16 ? 8 : 16;
    AVal low = ops.binary(Op::And, randomBits(ops, key, 32, shape, span), u32((1u << drawnBits) - 1), span, fn);
    AVal mantissa = ops.binary(Op::Shr, low, u32(drawnBits - mantissaBits), span, fn);
    unit = ops.binary(Op::Mul, ops.convert(mantissa, t, span), floatConst(t, std::ldexp(1.0, -mantissaBits)), span, fn);
  } else {
    AVal mantissa = ops.binary(Op::Shr, randomBits(ops, key, 32, shape, span), u32(9), span, fn);
    unit = ops.binary(Op::Mul, ops.convert(mantissa, t, span), floatConst(t, 0x1.0p-23), span, fn);
  }
  // XLA fuses the f32/f64 scaling into one rounding but rounds bf16/f16 after each op.
  AVal range = ops.binary(Op::Sub, maxval, minval, span, fn);
  AVal scaled = isLowPrecision(t)
                    ? ops.binary(Op::Add, ops.binary(Op::Mul, unit, range, span, fn), minval, span, fn)
                    : fusedMulAdd(ops, unit, range, minval, span);
  return ops.broadcastTo(ops.binary(Op::Max, minval, scaled, span, fn), shape, span, fn);
}

namespace {

// Whether a seed has 64 bits, as jax.random.PRNGKey shifts it: a strong i64/u64, or a literal
// beyond i32 (JAX takes a Python int as int64). A negative literal is an i32, as JAX's default.
bool wideSeed(const AVal& seed) {
  bool wide = seed.type.dtype == DType::I64 || seed.type.dtype == DType::U64;
  if (!seed.weak || !wide) return wide;
  if (!seed.isStatic() || !seed.type.shape.empty()) return false;
  int64_t v = seed.concrete->getInt(0);
  return v < INT32_MIN || v > INT32_MAX;
}

// key(seed): a u32[2] key; the seed's high and low words (the high word of a 32-bit seed is 0).
Value key(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "key", {"seed"});
  // Casts: the seed's words are taken apart on purpose (a seed above 2^32 is fine).
  AVal given = a.array(0);
  bool wide = wideSeed(given);
  AVal seed = ev.ops().cast(given, wide ? DType::U64 : DType::U32, c.span);
  AVal hi = wide ? ev.ops().cast(ev.ops().binary(Op::Shr, seed, strongScalar(DType::U64, 32), c.span, "key"),
                                 DType::U32, c.span)
                 : ev.ops().full({}, strongScalar(DType::U32, 0), c.span);
  AVal lo = ev.ops().cast(seed, DType::U32, c.span);
  return arr(ev.ops().concat({ev.ops().reshape(hi, {1}, c.span), ev.ops().reshape(lo, {1}, c.span)}, 0, c.span));
}

// fold_in(key, data): the key hashed with the counter (0, u32(data)), as jax.random.fold_in.
Value foldIn(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "fold_in", {"key", "data"});
  AVal data = a.array(1);
  if (!data.type.shape.empty() || !(isInteger(data.type.dtype) || data.type.dtype == DType::Bool))
    fail("E0296", a.span(1), "fold_in needs an integer scalar to fold into the key, got " + surfaceTypeString(data),
         "fold in one integer at a time; vmap over an array of them");
  ArrayOps& ops = ev.ops();
  AVal word = ops.reshape(ops.cast(data, DType::U32, a.span(1)), {1}, c.span);
  Bits b = threefry(ops, keyWords(ops, a.array(0), a.span(0)), ops.full({1}, u32(0), c.span), word, c.span);
  return arr(ops.concat({b.x0, b.x1}, 0, c.span));
}

// uniform(key, shape=None, dtype=f32, minval=0, maxval=1)
Value uniform(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "uniform", {"key", "shape=", "dtype=", "minval=", "maxval="});
  DType t = floatDTypeArg(a, 2);
  AVal lo = a.has(3) ? a.array(3) : weakFloat(0), hi = a.has(4) ? a.array(4) : weakFloat(1);
  return arr(uniformDraw(ev.ops(), a.array(0), shapeArg(a, 1), t, lo, hi, c.span, "uniform"));
}

// normal(key, shape=None, dtype=f32): sqrt(2) erfinv(u) for u uniform in (-1, 1), as JAX.
Value normal(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "normal", {"key", "shape=", "dtype="});
  DType t = floatDTypeArg(a, 2);
  ArrayOps& ops = ev.ops();
  double lo = nextAfterIn(t, -1.0, 0.0);
  AVal u = uniformDraw(ops, a.array(0), shapeArg(a, 1), t, floatConst(t, lo), floatConst(t, 1), c.span, "normal");
  double sqrt2 = t == DType::F64 ? std::sqrt(2.0) : static_cast<double>(std::sqrt(2.0f));
  return arr(ops.binary(Op::Mul, floatConst(t, sqrt2), ops.unary(Op::ErfInv, u, c.span), c.span, "normal"));
}

}  // namespace

// split(key, num=2): u32[num, 2] new keys (Note [Two splits] in builtins_building.cpp).
Value splitKey(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "split", {"key", "num="});
  int64_t num = a.integer(1, 2, StaticUse::Shape);
  return arr(splitKeys(ev.ops(), a.array(0), num, c.span));
}

BuiltinDefs randomBuiltins() {
  return {{},
          {
              {"key(seed)", "a random key from an integer seed (jax.random.PRNGKey's)", key},
              {"fold_in(key, data)", "a new key from a key and an integer, as jax.random.fold_in", foldIn},
              {"uniform(key, shape=None, dtype=f32, minval=0, maxval=1)",
               "uniform random numbers in [minval, maxval), bit for bit jax.random.uniform's", uniform},
              {"normal(key, shape=None, dtype=f32)", "standard normal random numbers, as jax.random.normal", normal},
          }};
}

}  // namespace scn
