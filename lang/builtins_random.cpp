// Counter-based random numbers: Threefry-2x32 written with u32 IR ops, so every backend
// computes the same bits (integer arithmetic wraps identically everywhere).
#include "lang/builtin_args.hpp"

namespace scn {

namespace {


struct Bits {
  AVal x0, x1;
};

AVal u32(uint32_t v) { return strongScalar(DType::U32, static_cast<double>(v)); }

/// Threefry-2x32 with 20 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
/// key: two u32 scalars; counters: two u32 arrays of one shape.
Bits threefry(ArrayOps& ops, const AVal& k0, const AVal& k1, AVal c0, AVal c1, Span span) {
  auto add = [&](const AVal& a, const AVal& b) { return ops.binary(Op::Add, a, b, span, "threefry"); };
  auto xorv = [&](const AVal& a, const AVal& b) { return ops.binary(Op::Xor, a, b, span, "threefry"); };
  auto rotl = [&](const AVal& x, uint32_t r) {
    return ops.binary(Op::Or, ops.binary(Op::Shl, x, u32(r), span, "threefry"),
                      ops.binary(Op::Shr, x, u32(32 - r), span, "threefry"), span, "threefry");
  };
  AVal k2 = xorv(xorv(k0, k1), u32(0x1BD11BDA));
  AVal ks[3] = {k0, k1, k2};
  static const uint32_t rot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  AVal x0 = add(c0, k0), x1 = add(c1, k1);
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
  if (key.type.dtype != DType::U32 || key.type.shape != Shape{2})
    fail("E0240", span, "expected a random key (u32[2] from key(seed)), got " + surfaceTypeString(key),
         "make one with `key(seed)` and derive more with `split(key)`");
  AVal s = ops.slice(key, {i}, {i + 1}, {1}, span);
  return ops.reshape(s, {}, span);
}

/// Random bits for `n` elements of `shape`: counters (0, i) hashed under the key.
Bits randomBits(ArrayOps& ops, const AVal& key, const Shape& shape, Span span) {
  AVal k0 = keyPart(ops, key, 0, span), k1 = keyPart(ops, key, 1, span);
  int64_t n = numElements(shape);
  AVal counter = ops.reshape(ops.iota(DType::U32, {n}, 0, span), shape, span);
  AVal zero = ops.full(shape, u32(0), span);
  return threefry(ops, k0, k1, zero, counter, span);
}

// key(seed): a u32[2] key; the seed's high and low words.
Value key(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "key", {"seed"});
  // Casts: the seed's words are taken apart on purpose (a seed above 2^32 is fine).
  AVal seed = ev.ops().cast(a.array(0), DType::U64, c.span);
  AVal hi = ev.ops().cast(ev.ops().binary(Op::Shr, seed, strongScalar(DType::U64, 32), c.span, "key"), DType::U32, c.span);
  AVal lo = ev.ops().cast(seed, DType::U32, c.span);
  return arr(ev.ops().concat({ev.ops().reshape(hi, {1}, c.span), ev.ops().reshape(lo, {1}, c.span)}, 0, c.span));
}

}  // namespace

// split(key, num=2): u32[num, 2] new keys (Note [Two splits] in builtins_building.cpp).
Value splitKey(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "split", {"key", "num="});
  int64_t num = a.integer(1, 2, StaticUse::Shape);
  Bits b = randomBits(ev.ops(), a.array(0), {num, 1}, c.span);
  return arr(ev.ops().concat({b.x0, b.x1}, 1, c.span));
}

namespace {

/// Uniform floats in [0, 1): 24 (f32) or 53 (f64) random bits scaled exactly.
AVal unitFloats(ArrayOps& ops, const Bits& b, DType t, Span span) {
  if (t == DType::F64) {
    AVal hi = ops.convert(b.x0, DType::U64, span), lo = ops.convert(b.x1, DType::U64, span);
    AVal bits = ops.binary(Op::Or, ops.binary(Op::Shl, hi, strongScalar(DType::U64, 32), span, "uniform"), lo, span, "uniform");
    bits = ops.binary(Op::Shr, bits, strongScalar(DType::U64, 11), span, "uniform");
    return ops.binary(Op::Mul, ops.convert(bits, DType::F64, span), strongScalar(DType::F64, 0x1.0p-53), span, "uniform");
  }
  AVal bits = ops.binary(Op::Shr, b.x0, u32(8), span, "uniform");
  return ops.binary(Op::Mul, ops.convert(bits, DType::F32, span), strongScalar(DType::F32, 0x1.0p-24), span, "uniform");
}

DType floatDType(const Args& a, size_t i, Span span) {
  DType t = a.dtype(i).value_or(DType::F32);
  if (!isFloat(t)) fail("E0241", span, std::string("random floats need a float dtype, got ") + dtypeName(t));
  return t;
}

// uniform(key, shape, dtype=f32, minval=0, maxval=1)
Value uniform(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "uniform", {"key", "shape", "dtype=", "minval=", "maxval="});
  DType t = floatDType(a, 2, c.span);
  Shape shape = a.shape(1);
  AVal u = unitFloats(ev.ops(), randomBits(ev.ops(), a.array(0), shape, c.span), t, c.span);
  if (a.has(3) || a.has(4)) {
    AVal lo = a.has(3) ? a.array(3) : weakFloat(0), hi = a.has(4) ? a.array(4) : weakFloat(1);
    AVal width = ev.ops().binary(Op::Sub, hi, lo, c.span, "uniform");
    u = ev.ops().binary(Op::Add, ev.ops().binary(Op::Mul, u, width, c.span, "uniform"), lo, c.span, "uniform");
  }
  return arr(u);
}

// normal(key, shape, dtype=f32): Box-Muller on the two words of each counter's hash.
Value normal(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "normal", {"key", "shape", "dtype="});
  DType t = floatDType(a, 2, c.span);
  Shape shape = a.shape(1);
  ArrayOps& ops = ev.ops();
  Bits b = randomBits(ops, a.array(0), shape, c.span);
  AVal u1 = unitFloats(ops, {b.x0, b.x0}, t, c.span);
  AVal u2 = unitFloats(ops, {b.x1, b.x1}, t, c.span);
  // u1 in [0, 1) -> 1 - u1 in (0, 1], so the log is finite.
  AVal r = ops.unary(Op::Sqrt, ops.binary(Op::Mul, weakFloat(-2.0), ops.unary(Op::Log, ops.binary(Op::Sub, weakFloat(1.0), u1, c.span, "normal"), c.span), c.span, "normal"), c.span);
  AVal theta = ops.binary(Op::Mul, weakFloat(6.283185307179586), u2, c.span, "normal");
  return arr(ops.binary(Op::Mul, r, ops.unary(Op::Cos, theta, c.span), c.span, "normal"));
}

}  // namespace

BuiltinDefs randomBuiltins() {
  return {{},
          {
              {"key(seed)", "a random key from an integer seed", key},
              {"uniform(key, shape, dtype=f32, minval=0, maxval=1)", "uniform random numbers in [minval, maxval)", uniform},
              {"normal(key, shape, dtype=f32)", "standard normal random numbers", normal},
          }};
}

}  // namespace scn
