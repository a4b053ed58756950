// The pieces every random draw is built from: keys, Threefry random bits and uniform floats,
// each as jax.random computes them (Note [JAX's random bits] in builtins_random.cpp).
#pragma once

#include "lang/builtin_args.hpp"

namespace scn {

/// The two u32 words of a key (u32[2] from key(seed)); E0240 for anything else.
struct KeyWords {
  AVal k0, k1;
};
KeyWords keyWords(ArrayOps& ops, const AVal& key, Span span);

/// The two words Threefry-2x32 gives for the counters (0, i), i the row-major index in `shape`.
struct Bits {
  AVal x0, x1;
};
Bits hashedIndices(ArrayOps& ops, const KeyWords& key, const Shape& shape, Span span);

/// jax.random's random bits of `width` 32 (u32) or 64 (u64) in `shape`.
AVal randomBits(ArrayOps& ops, const AVal& key, int width, const Shape& shape, Span span);

/// split(key, num) as u32[num, 2] keys; splitPart is row i of such keys as a u32[2] key.
AVal splitKeys(ArrayOps& ops, const AVal& key, int64_t num, Span span);
AVal splitPart(ArrayOps& ops, const AVal& keys, int64_t i, Span span);

/// jax.random.uniform: floats of dtype t in [minval, maxval) of `shape`, minval and maxval
/// broadcastable to it (E0292), bit for bit as JAX.
AVal uniformDraw(ArrayOps& ops, const AVal& key, const Shape& shape, DType t, AVal minval, AVal maxval,
                 Span span, const char* fn);

/// The float dtype= argument of a draw (default f32), E0241 for a non-float one.
DType floatDTypeArg(const Args& a, size_t i);
/// NumPy's nextafter in the float dtype t: x (a value of t) moved one step toward `toward`.
double nextAfterIn(DType t, double x, double toward);
/// The smallest normal value of the float dtype t (jnp.finfo(t).tiny).
double smallestNormal(DType t);
/// The shape= argument, () when absent.
Shape shapeArg(const Args& a, size_t i);
/// E0292 unless `param` broadcasts to the draw's `shape` (jax.random's _check_shape).
void checkParamShape(const char* fn, const char* param, const Shape& shape, const AVal& value, Span span);
/// The float constant v in dtype t (a strong scalar).
inline AVal floatConst(DType t, double v) { return strongScalar(t, v); }

}  // namespace scn
