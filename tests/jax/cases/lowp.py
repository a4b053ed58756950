"""bf16 and f16 (issue 21): storage dtypes whose ops compute in f32 and round once to 16 bits, as
XLA's CPU backend does (Note [Low-precision floats] in jit/scalar/lowp.inc).

bf16 has no NumPy dtype the goldens could carry without ml_dtypes, so bf16 cases take f32 inputs,
convert inside the function and return f32: what is compared is every rounding in between. f16
cases take and return f16 arrays (the npz holds `<f2`). Tolerances are 0 where one rounding of an
exact f32 result decides the answer (+ - * /, sqrt, conversions, max, comparisons), one 16-bit ulp
(2^-8 relative for bf16, 2^-11 for f16) where libm's f32 function and XLA's may differ by an f32
ulp before rounding (exp, log, tanh), and wider for sums, whose f32 accumulation order XLA picks.
Division is by an input, never by a constant: XLA rewrites x / c as x * (1 / c) with 1 / c rounded
to 16 bits (a different answer; scn divides)."""
import jax.numpy as jnp
import numpy as np

from case import Case, floats

J = jnp.asarray
BF, F16 = jnp.bfloat16, jnp.float16


def f32x2(r):
    return [floats(r, (32,), scale=3.0), floats(r, (32,), scale=3.0)]


def f32x1(r):
    return [floats(r, (32,), scale=3.0)]


def positive(r):
    return [np.abs(floats(r, (32,), special=False, scale=3.0)) + 0.01]


def f16x2(r):
    return [floats(r, (32,), np.float16, scale=3.0), floats(r, (32,), np.float16, scale=3.0)]


def f16x1(r):
    return [floats(r, (32,), np.float16, scale=3.0)]


def wide(r):
    """Values across f16's range and past it: overflow to inf, subnormals, flush to 0."""
    return [np.concatenate([r.standard_normal(16) * 10.0 ** r.integers(-9, 6, 16), [65504, 65520, -7e4, 6e-8, 2.9e-8, 1e-5]]).astype(np.float32)]


def mats(r):
    return [r.standard_normal((8, 16)).astype(np.float32), r.standard_normal((16, 4)).astype(np.float32)]


def bf(src):
    return "astype(" + src + ", f32)"


CASES = [
    # bf16: each op rounds once
    Case("bf_arith", "fn bf_arith(a, b) { let x = astype(a, bf16); let y = astype(b, bf16); "
         "(astype(x + y, f32), astype(x - y, f32), astype(x * y, f32), astype(x / y, f32)) }",
         lambda a, b: tuple(v.astype(jnp.float32) for v in (J(a).astype(BF) + J(b).astype(BF), J(a).astype(BF) - J(b).astype(BF),
                                                             J(a).astype(BF) * J(b).astype(BF), J(a).astype(BF) / J(b).astype(BF))),
         f32x2, rtol=0.0),
    Case("bf_chain", "fn bf_chain(a, b) { let x = astype(a, bf16); let y = astype(b, bf16); astype(x * y + x * x - y, f32) }",
         lambda a, b: (lambda x, y: (x * y + x * x - y).astype(jnp.float32))(J(a).astype(BF), J(b).astype(BF)), f32x2, rtol=0.0),
    Case("bf_sqrt_max", "fn bf_sqrt_max(a) { let x = astype(a, bf16); (astype(sqrt(x), f32), astype(maximum(x, 0.5bf16), f32), x > 1bf16) }",
         lambda a: (lambda x: (jnp.sqrt(x).astype(jnp.float32), jnp.maximum(x, BF(0.5)).astype(jnp.float32), x > BF(1)))(J(a).astype(BF)),
         positive, rtol=0.0),
    Case("bf_transcendental", "fn bf_transcendental(a) { let x = astype(a, bf16); (astype(exp(x), f32), astype(log(x), f32), astype(tanh(x), f32)) }",
         lambda a: (lambda x: (jnp.exp(x).astype(jnp.float32), jnp.log(x).astype(jnp.float32), jnp.tanh(x).astype(jnp.float32)))(J(a).astype(BF)),
         positive, rtol=2.0 ** -8),
    Case("bf_round_trip", "fn bf_round_trip(a) = (astype(astype(a, bf16), f32), astype(astype(a, f16), f32), astype(astype(a, bf16), i32))",
         lambda a: (J(a).astype(BF).astype(jnp.float32), J(a).astype(F16).astype(jnp.float32), J(a).astype(BF).astype(jnp.int32)),
         wide, rtol=0.0),
    Case("bf_promote", "fn bf_promote(a, b) { let x = astype(a, bf16); let y = astype(b, f16); (x + y, astype(x * 2.5, f32), astype(x + 1, f32)) }",
         lambda a, b: (lambda x, y: (x + y, (x * 2.5).astype(jnp.float32), (x + 1).astype(jnp.float32)))(J(a).astype(BF), J(b).astype(F16)),
         f32x2, rtol=0.0),
    Case("bf_sum", "fn bf_sum(a) { let x = astype(a, bf16); (astype(sum(x), f32), astype(max(x), f32), astype(mean(x), f32)) }",
         lambda a: (lambda x: (jnp.sum(x).astype(jnp.float32), jnp.max(x).astype(jnp.float32), jnp.mean(x).astype(jnp.float32)))(J(a).astype(BF)),
         positive, rtol=2.0 ** -7),
    Case("bf_matmul", "fn bf_matmul(a, b) = astype(astype(a, bf16) @ astype(b, bf16), f32)",
         lambda a, b: (J(a).astype(BF) @ J(b).astype(BF)).astype(jnp.float32), mats, rtol=2.0 ** -7, atol=2.0 ** -6),
    # f16 arrays in and out
    Case("h_arith", "fn h_arith(a, b) = (a + b, a - b, a * b, a / b, -a)",
         lambda a, b: (J(a) + J(b), J(a) - J(b), J(a) * J(b), J(a) / J(b), -J(a)), f16x2, rtol=0.0),
    Case("h_sqrt_cmp", "fn h_sqrt_cmp(a) = (sqrt(abs(a)), a < 1f16, where(a > 0f16, a, 0f16), astype(a, f32))",
         lambda a: (jnp.sqrt(jnp.abs(J(a))), J(a) < F16(1), jnp.where(J(a) > 0, J(a), F16(0)), J(a).astype(jnp.float32)), f16x1, rtol=0.0),
    Case("h_overflow", "fn h_overflow(a, b) = a * b * 1000f16",
         lambda a, b: J(a) * J(b) * F16(1000), f16x2, rtol=0.0),
    Case("h_cumsum", "fn h_cumsum(a) = cumsum(a)", lambda a: jnp.cumsum(J(a)), lambda r: [floats(r, (32,), np.float16, special=False)],
         rtol=2.0 ** -9, atol=2.0 ** -8),
]
