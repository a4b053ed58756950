"""Elementwise math of issue 17 (inverse trig, logs, erf family, gamma family, hypot, ...),
isinf/isfinite/nan_to_num/clip/round, and the bitwise operators; f32 and f64, with NaN, +-inf,
-0.0 and large and small magnitudes mixed in.

Tolerances (relative unless said): libm functions in f32 2e-6 (scn calls glibc's or CUDA's
float functions, JAX XLA's own; both are within a few ulps); erf/erfc 4e-6 and erfc's far tail
an atol of 1e-30; lgamma and digamma have zeros (lgamma at 1 and 2, digamma at 1.4616...), so
an atol too: 2e-6 (f32) and 1e-13 (f64); erfinv f32 uses XLA's own polynomial (2e-6), and
JAX's f64 erfinv is off by up to ~1.4e-12 in the tails (scn's is within an ulp of SciPy's), so
2e-12 there; JAX's f32 exp2 is exp(x ln 2), off by ~|x| ulps, so 5e-6; f64 cases 1e-13 unless
said. No denormal inputs: XLA on the CPU flushes them to zero (cbrt(1e-40) is -5.6e-16 there)."""
import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

from case import Case

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 1e30, -1e30, 1.0, -1.0]


def mixed(r, n, lo, hi, dtype=np.float32, extra=()):
    """n uniform draws in [lo, hi) followed by the special values and `extra`."""
    x = r.uniform(lo, hi, size=n)
    return np.concatenate([x, SPECIAL, list(extra)]).astype(dtype)


def unary(name, scn_fn, jax_fn, lo, hi, rtol=2e-6, atol=0.0, extra=(), rtol64=1e-13):
    """An f32 and an f64 case of one unary function over [lo, hi) and the special values."""
    return [
        Case(f"{name}_f32", f"fn {name}_f32(x) = {scn_fn}(x)", jax_fn,
             lambda r: [mixed(r, 40, lo, hi, extra=extra)], rtol=rtol, atol=atol),
        Case(f"{name}_f64", f"fn {name}_f64(x) = {scn_fn}(x)", jax_fn,
             lambda r: [mixed(r, 40, lo, hi, np.float64, extra=extra)], rtol=rtol64,
             atol=1e-13 if atol else 0.0, x64=True),
    ]


CASES = (
    unary("arcsin", "arcsin", jnp.arcsin, -1.2, 1.2, extra=[0.5, -0.99999, 1.0000001])
    + unary("arccos", "arccos", jnp.arccos, -1.2, 1.2, extra=[0.5, -0.99999])
    + unary("arctan", "arctan", jnp.arctan, -20, 20)
    + unary("arcsinh", "arcsinh", jnp.arcsinh, -50, 50, extra=[1e-8, 1e20])
    + unary("arccosh", "arccosh", jnp.arccosh, 0.5, 50, extra=[1.0000001, 1e20])
    + unary("arctanh", "arctanh", jnp.arctanh, -1.1, 1.1, extra=[0.999999, -0.5])
    + unary("log2", "log2", jnp.log2, 0, 100, extra=[2.0, 1024.0, 1e-35])
    + unary("log10", "log10", jnp.log10, 0, 100, extra=[10.0, 1e-5])
    + unary("exp2", "exp2", jnp.exp2, -140, 130, rtol=5e-6, extra=[0.5, -0.5, 10.0])
    + unary("cbrt", "cbrt", jnp.cbrt, -100, 100, extra=[27.0, -8.0, 1e-35])
    + unary("reciprocal", "reciprocal", jnp.reciprocal, -10, 10, extra=[3.0, 1e-35])
    + unary("erf", "erf", jax.lax.erf, -5, 5, rtol=4e-6, extra=[1e-8, 0.5, 3.9])
    + unary("erfc", "erfc", jax.lax.erfc, -3, 10, rtol=4e-6, atol=1e-30, extra=[0.5, 5.0, 9.0])
    + unary("erfinv", "erfinv", jsp.erfinv, -1.1, 1.1, extra=[0.5, -0.999999, 0.9999999, 1e-8], rtol64=2e-12)
    + unary("lgamma", "lgamma", jsp.gammaln, -6, 12, atol=2e-6, extra=[0.5, -2.5, -3.0, 100.0, 1e10])
    + unary("digamma", "digamma", jsp.digamma, -6, 12, atol=2e-6, extra=[0.5, -2.5, -3.0, 100.0, 1e10])
    + [
        Case("hypot_copysign_fmod", "fn hypot_copysign_fmod(a, b) = (hypot(a, b), copysign(a, b), fmod(a, b))",
             lambda a, b: (jnp.hypot(a, b), jnp.copysign(a, b), jnp.fmod(a, b)),
             lambda r: [mixed(r, 30, -50, 50), mixed(r, 30, -5, 5)[::-1].copy()], rtol=2e-6),
        Case("hypot_copysign_fmod_f64", "fn hypot_copysign_fmod_f64(a, b) = (hypot(a, b), copysign(a, b), fmod(a, b))",
             lambda a, b: (jnp.hypot(a, b), jnp.copysign(a, b), jnp.fmod(a, b)),
             lambda r: [mixed(r, 30, -50, 50, np.float64), mixed(r, 30, -5, 5, np.float64)[::-1].copy()],
             rtol=1e-13, x64=True),
        Case("fmod_int", "fn fmod_int(a, b) = fmod(a, b)", jnp.fmod,
             lambda r: [r.integers(-20, 20, size=(14,)).astype(np.int32),
                        np.array([3, -3, 7, -7, 1, -1, 2, 5, -5, 4, 6, -2, 9, 11], dtype=np.int32)]),
        Case("logaddexp_f32", "fn logaddexp_f32(a, b) = logaddexp(a, b)", jnp.logaddexp,
             lambda r: [mixed(r, 30, -50, 50), mixed(r, 30, -50, 50)[::-1].copy()], rtol=2e-6),
        Case("logaddexp_f64", "fn logaddexp_f64(a, b) = logaddexp(a, b)", jnp.logaddexp,
             lambda r: [mixed(r, 30, -50, 50, np.float64), mixed(r, 30, -50, 50, np.float64)[::-1].copy()],
             rtol=1e-13, x64=True),
        Case("isinf_isfinite", "fn isinf_isfinite(x) = (isinf(x), isfinite(x), isnan(x))",
             lambda x: (jnp.isinf(x), jnp.isfinite(x), jnp.isnan(x)), lambda r: [mixed(r, 5, -1, 1)]),
        Case("isinf_isfinite_int", "fn isinf_isfinite_int(x) = (isinf(x), isfinite(x))",
             lambda x: (jnp.isinf(x), jnp.isfinite(x)),
             lambda r: [np.array([0, 1, -1, 2**31 - 1, -2**31], dtype=np.int32)]),
        Case("nan_to_num_default", "fn nan_to_num_default(x) = nan_to_num(x)", jnp.nan_to_num,
             lambda r: [mixed(r, 5, -1, 1)]),
        Case("nan_to_num_given", "fn nan_to_num_given(x) = nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0)",
             lambda x: jnp.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0), lambda r: [mixed(r, 5, -1, 1)]),
        Case("nan_to_num_f64", "fn nan_to_num_f64(x) = nan_to_num(x, posinf=1e300)",
             lambda x: jnp.nan_to_num(x, posinf=1e300), lambda r: [mixed(r, 5, -1, 1, np.float64)], x64=True),
        Case("clip_both", "fn clip_both(x) = clip(x, -1.0, 2.0)", lambda x: jnp.clip(x, -1.0, 2.0),
             lambda r: [mixed(r, 20, -5, 5)]),
        Case("clip_keywords", "fn clip_keywords(x, lo) = (clip(x, min=lo), clip(x, max=0.5), clip(x, max=None))",
             lambda x, lo: (jnp.clip(x, min=lo), jnp.clip(x, max=0.5), jnp.clip(x, max=None)),
             lambda r: [mixed(r, 20, -5, 5), mixed(r, 20, -1, 1)[::-1].copy()]),
        Case("clip_int", "fn clip_int(x) = clip(x, 3, 7)", lambda x: jnp.clip(x, 3, 7),
             lambda r: [r.integers(-10, 20, size=(12,)).astype(np.int32)]),
        Case("round_decimals", "fn round_decimals(x) = (round(x), round(x, 2), round(x, decimals=-1))",
             lambda x: (jnp.round(x), jnp.round(x, 2), jnp.round(x, decimals=-1)),
             lambda r: [np.concatenate([r.uniform(-500, 500, 20), [0.5, 1.5, 2.5, -0.5, -2.5, 1.005, 125.0,
                                                                      np.nan, np.inf, -0.0]]).astype(np.float32)]),
        Case("round_f64", "fn round_f64(x) = round(x, 3)", lambda x: jnp.round(x, 3),
             lambda r: [r.uniform(-50, 50, 20).astype(np.float64)], rtol=1e-15, x64=True),
        Case("math_on_ints", "fn math_on_ints(n) = (arcsin(n), log2(n), erf(n), reciprocal(n), cbrt(n))",
             lambda n: (jnp.arcsin(n), jnp.log2(n), jax.lax.erf(n.astype(jnp.float32)), jnp.reciprocal(n), jnp.cbrt(n)),
             lambda r: [np.array([0, 1, -1, 2, 8, -27, 100], dtype=np.int32)], rtol=4e-6),
        # ---- bitwise operators ----
        Case("bitwise_i32", "fn bitwise_i32(a, b) = (a & b, a | b, a ^ b, ~a, a << (b & 31), a >> (b & 31))",
             lambda a, b: (a & b, a | b, a ^ b, ~a, a << (b & 31), a >> (b & 31)),
             lambda r: [r.integers(-2**31, 2**31, size=(16,)).astype(np.int32),
                        r.integers(-2**31, 2**31, size=(16,)).astype(np.int32)]),
        Case("bitwise_u32", "fn bitwise_u32(a, b) = (a & b, a | b, a ^ b, ~a, a << (b % 32u32), a >> (b % 32u32))",
             lambda a, b: (a & b, a | b, a ^ b, ~a, a << (b % np.uint32(32)), a >> (b % np.uint32(32))),
             lambda r: [r.integers(0, 2**32, size=(16,)).astype(np.uint32),
                        r.integers(0, 2**32, size=(16,)).astype(np.uint32)]),
        Case("shift_out_of_range", "fn shift_out_of_range(a, b) = (a << b, a >> b)",
             lambda a, b: (jnp.left_shift(a, b), jnp.right_shift(a, b)),
             lambda r: [np.array([1, -1, 5, -8, 7, 2**30], dtype=np.int32),
                        np.array([31, 32, 40, 40, 0, 1], dtype=np.int32)]),
        Case("bitwise_bool", "fn bitwise_bool(a, b) = (a & b, a | b, a ^ b, ~a)",
             lambda a, b: (a & b, a | b, a ^ b, ~a),
             lambda r: [np.array([True, True, False, False]), np.array([True, False, True, False])]),
        Case("bitwise_builtins", "fn bitwise_builtins(a, b) = (bitwise_and(a, b), bitwise_or(a, 3), "
             "bitwise_xor(a, b), bitwise_not(a), invert(b), left_shift(a, 2), right_shift(a, 1))",
             lambda a, b: (jnp.bitwise_and(a, b), jnp.bitwise_or(a, 3), jnp.bitwise_xor(a, b),
                           jnp.bitwise_not(a), jnp.invert(b), jnp.left_shift(a, 2), jnp.right_shift(a, 1)),
             lambda r: [r.integers(-100, 100, size=(10,)).astype(np.int32),
                        r.integers(-100, 100, size=(10,)).astype(np.int32)]),
        Case("bitwise_i64", "fn bitwise_i64(a, b) = (a & b, a | b, a ^ b, ~a, a << 40, a >> 33)",
             lambda a, b: (a & b, a | b, a ^ b, ~a, a << 40, a >> 33),
             lambda r: [r.integers(-2**62, 2**62, size=(8,)).astype(np.int64),
                        r.integers(-2**62, 2**62, size=(8,)).astype(np.int64)], x64=True),
        Case("bitwise_precedence", "fn bitwise_precedence(a, b) = (a | b & 3 ^ 5, a & 7 == b & 7, a << 1 + 1, -a & ~b)",
             lambda a, b: (a | b & 3 ^ 5, (a & 7) == (b & 7), a << 1 + 1, -a & ~b),
             lambda r: [r.integers(-100, 100, size=(10,)).astype(np.int32),
                        r.integers(-100, 100, size=(10,)).astype(np.int32)]),
    ]
)
