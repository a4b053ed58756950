"""jax.random: the draws from JAX's keys (Note [JAX's random bits] in lang/builtins_random.cpp).

Draws built from integer ops and +, -, *, max are compared exactly (rtol=0, atol=0); those through
a transcendental (erfinv, log, log1p, erf) within a few ulps, the difference between scn's and
XLA's implementations of that function (docs/language.md "Random numbers")."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case

EXACT = dict(rtol=0.0, atol=0.0)
ULPS32 = dict(rtol=2e-6, atol=1e-6)   # a few f32 ulps of an erfinv / log
ULPS64 = dict(rtol=1e-13, atol=1e-13)


def key_of(r):
    return r.integers(0, 2**32, size=2, dtype=np.uint64).astype(np.uint32)


def keys_of(r, n):
    return r.integers(0, 2**32, size=(n, 2), dtype=np.uint64).astype(np.uint32)


def probabilities(r, n, dtype=np.float32):
    p = r.uniform(0.05, 1.0, size=n)
    return (p / p.sum()).astype(dtype)


R = jax.random

CASES = [
    # keys
    Case("split3", "fn split3(k) = split(k, num=3)", lambda k: R.split(k, 3), lambda r: [key_of(r)], **EXACT),
    Case("fold_in_const", "fn fold_in_const(k) = fold_in(k, 7)", lambda k: R.fold_in(k, 7), lambda r: [key_of(r)], **EXACT),
    Case("fold_in_data", "fn fold_in_data(k, d) = fold_in(k, d)", lambda k, d: R.fold_in(k, d),
         lambda r: [key_of(r), np.int32(r.integers(-2**31, 2**31 - 1))], **EXACT),
    # uniform: exact for every rank, range and dtype
    Case("uniform_scalar", "fn uniform_scalar(k) = uniform(k)", lambda k: R.uniform(k), lambda r: [key_of(r)], **EXACT),
    Case("uniform_1d", "fn uniform_1d(k) = uniform(k, 37)", lambda k: R.uniform(k, (37,)), lambda r: [key_of(r)], **EXACT),
    Case("uniform_3d", "fn uniform_3d(k) = uniform(k, (2, 3, 4))", lambda k: R.uniform(k, (2, 3, 4)),
         lambda r: [key_of(r)], **EXACT),
    Case("uniform_empty", "fn uniform_empty(k) = uniform(k, (0, 3))", lambda k: R.uniform(k, (0, 3)),
         lambda r: [key_of(r)], **EXACT),
    Case("uniform_long", "fn uniform_long(k) = uniform(k, 5000)", lambda k: R.uniform(k, (5000,)),
         lambda r: [key_of(r)], **EXACT),
    Case("uniform_range", "fn uniform_range(k) = uniform(k, (4, 5), minval=-3.0, maxval=5.5)",
         lambda k: R.uniform(k, (4, 5), minval=-3.0, maxval=5.5), lambda r: [key_of(r)], **EXACT),
    Case("uniform_range_arrays", "fn uniform_range_arrays(k, lo, hi) = uniform(k, (4, 5), minval=lo, maxval=hi)",
         lambda k, lo, hi: R.uniform(k, (4, 5), minval=lo, maxval=hi),
         lambda r: [key_of(r), r.normal(size=(5,)).astype(np.float32), (r.normal(size=(4, 1)) + 3).astype(np.float32)],
         **EXACT),
    Case("uniform_f64", "fn uniform_f64(k) = uniform(k, (3, 7), dtype=f64)",
         lambda k: R.uniform(k, (3, 7), dtype=jnp.float64), lambda r: [key_of(r)], x64=True, **EXACT),
    Case("uniform_f64_range", "fn uniform_f64_range(k) = uniform(k, 9, dtype=f64, minval=-1.5, maxval=0.25)",
         lambda k: R.uniform(k, (9,), dtype=jnp.float64, minval=-1.5, maxval=0.25), lambda r: [key_of(r)], x64=True,
         **EXACT),
    # normal: sqrt(2) erfinv(u); the uniform u is exact, erfinv within ulps
    Case("normal_f32", "fn normal_f32(k) = normal(k, (3, 50))", lambda k: R.normal(k, (3, 50)),
         lambda r: [key_of(r)], **ULPS32),
    Case("normal_scalar", "fn normal_scalar(k) = normal(k)", lambda k: R.normal(k), lambda r: [key_of(r)], **ULPS32),
    # bf16 / f16 (issue 21): JAX draws 8 bits for bf16, 16 for f16, and scales with an op per rounding
    Case("uniform_bf16", "fn uniform_bf16(k) = astype(uniform(k, (4, 9), dtype=bf16, minval=-2.0, maxval=5.0), f32)",
         lambda k: R.uniform(k, (4, 9), dtype=jnp.bfloat16, minval=-2.0, maxval=5.0).astype(jnp.float32),
         lambda r: [key_of(r)], **EXACT),
    Case("uniform_f16", "fn uniform_f16(k) = uniform(k, 40, dtype=f16, minval=-1.0, maxval=3.0)",
         lambda k: R.uniform(k, (40,), dtype=jnp.float16, minval=-1.0, maxval=3.0), lambda r: [key_of(r)], **EXACT),
    Case("normal_bf16", "fn normal_bf16(k) = astype(normal(k, (5, 8), dtype=bf16), f32)",
         lambda k: R.normal(k, (5, 8), dtype=jnp.bfloat16).astype(jnp.float32), lambda r: [key_of(r)], **EXACT),
    Case("normal_f16", "fn normal_f16(k) = normal(k, 40, dtype=f16)",
         lambda k: R.normal(k, (40,), dtype=jnp.float16), lambda r: [key_of(r)], **EXACT),
    Case("normal_f64", "fn normal_f64(k) = normal(k, (2, 40), dtype=f64)",
         lambda k: R.normal(k, (2, 40), dtype=jnp.float64), lambda r: [key_of(r)], x64=True, **ULPS64),
    # randint: integer arithmetic, exact
    Case("randint_small", "fn randint_small(k) = randint(k, (3, 4), 0, 10)", lambda k: R.randint(k, (3, 4), 0, 10),
         lambda r: [key_of(r)], **EXACT),
    Case("randint_wide", "fn randint_wide(k) = randint(k, 60, -5, 1000003)", lambda k: R.randint(k, (60,), -5, 1000003),
         lambda r: [key_of(r)], **EXACT),
    Case("randint_full", "fn randint_full(k) = randint(k, 40, -2147483648, 2147483647)",
         lambda k: R.randint(k, (40,), -2147483648, 2147483647), lambda r: [key_of(r)], **EXACT),
    Case("randint_empty_range", "fn randint_empty_range(k) = randint(k, 5, 3, 3)", lambda k: R.randint(k, (5,), 3, 3),
         lambda r: [key_of(r)], **EXACT),
    Case("randint_arrays", "fn randint_arrays(k, lo, hi) = randint(k, (4, 6), lo, hi)",
         lambda k, lo, hi: R.randint(k, (4, 6), lo, hi),
         lambda r: [key_of(r), r.integers(-20, 0, size=(6,)).astype(np.int32),
                    r.integers(-25, 40, size=(4, 1)).astype(np.int32)], **EXACT),
    Case("randint_u32", "fn randint_u32(k) = randint(k, 30, 7, 3000000000, dtype=u32)",
         lambda k: R.randint(k, (30,), 7, np.uint32(3000000000), dtype=jnp.uint32), lambda r: [key_of(r)], **EXACT),
    Case("randint_i64", "fn randint_i64(k) = randint(k, 30, -1099511627776, 1099511627776, dtype=i64)",
         lambda k: R.randint(k, (30,), -2**40, 2**40, dtype=jnp.int64), lambda r: [key_of(r)], x64=True, **EXACT),
    # bernoulli: uniform < p, exact
    Case("bernoulli_half", "fn bernoulli_half(k) = bernoulli(k, 0.5, (6, 7))", lambda k: R.bernoulli(k, 0.5, (6, 7)),
         lambda r: [key_of(r)], **EXACT),
    Case("bernoulli_p", "fn bernoulli_p(k, p) = bernoulli(k, p)", lambda k, p: R.bernoulli(k, p),
         lambda r: [key_of(r), r.uniform(size=(5, 8)).astype(np.float32)], **EXACT),
    Case("bernoulli_default", "fn bernoulli_default(k) = bernoulli(k)", lambda k: R.bernoulli(k),
         lambda r: [key_of(r)], **EXACT),
    # through log / log1p / erf: within ulps
    Case("exponential_f32", "fn exponential_f32(k) = exponential(k, (4, 25))", lambda k: R.exponential(k, (4, 25)),
         lambda r: [key_of(r)], **ULPS32),
    Case("exponential_f64", "fn exponential_f64(k) = exponential(k, 30, dtype=f64)",
         lambda k: R.exponential(k, (30,), dtype=jnp.float64), lambda r: [key_of(r)], x64=True, **ULPS64),
    Case("gumbel_f32", "fn gumbel_f32(k) = gumbel(k, (3, 30))", lambda k: R.gumbel(k, (3, 30)),
         lambda r: [key_of(r)], **ULPS32),
    Case("truncated_normal_f32", "fn truncated_normal_f32(k) = truncated_normal(k, -1.0, 2.0, (4, 20))",
         lambda k: R.truncated_normal(k, -1.0, 2.0, (4, 20)), lambda r: [key_of(r)], rtol=1e-5, atol=1e-5),
    Case("truncated_normal_arrays", "fn truncated_normal_arrays(k) = truncated_normal(k, [-2.0, 0.0, 1.0], 3.0)",
         lambda k: R.truncated_normal(k, jnp.array([-2.0, 0.0, 1.0]), 3.0), lambda r: [key_of(r)],
         rtol=1e-5, atol=1e-5),
    # categorical: argmax of gumbel + logits (an index: exact unless two scores are within ulps)
    Case("categorical_rows", "fn categorical_rows(k, l) = categorical(k, l)", lambda k, l: R.categorical(k, l),
         lambda r: [key_of(r), r.normal(size=(6, 5)).astype(np.float32)], **EXACT),
    Case("categorical_axis0", "fn categorical_axis0(k, l) = categorical(k, l, axis=0)",
         lambda k, l: R.categorical(k, l, axis=0), lambda r: [key_of(r), r.normal(size=(7, 3)).astype(np.float32)],
         **EXACT),
    Case("categorical_shape", "fn categorical_shape(k, l) = categorical(k, l, shape=(3, 4))",
         lambda k, l: R.categorical(k, l, shape=(3, 4)), lambda r: [key_of(r), r.normal(size=(8,)).astype(np.float32)],
         **EXACT),
    # choice and permutation: randint, sorts by random bits, cumsum, top_k
    Case("choice_int", "fn choice_int(k) = choice(k, 10, (5,))", lambda k: R.choice(k, 10, (5,)),
         lambda r: [key_of(r)], **EXACT),
    Case("choice_rows", "fn choice_rows(k, x) = choice(k, x, (2, 3))", lambda k, x: R.choice(k, x, (2, 3)),
         lambda r: [key_of(r), r.normal(size=(7, 2)).astype(np.float32)], **EXACT),
    Case("choice_no_replace", "fn choice_no_replace(k) = choice(k, 20, (6,), replace=false)",
         lambda k: R.choice(k, 20, (6,), replace=False), lambda r: [key_of(r)], **EXACT),
    Case("choice_p", "fn choice_p(k, p) = choice(k, 5, (12,), p=p)", lambda k, p: R.choice(k, 5, (12,), p=p),
         lambda r: [key_of(r), probabilities(r, 5)], **EXACT),
    Case("choice_p_no_replace", "fn choice_p_no_replace(k, p) = choice(k, 6, (3,), replace=false, p=p)",
         lambda k, p: R.choice(k, 6, (3,), replace=False, p=p), lambda r: [key_of(r), probabilities(r, 6)], **EXACT),
    Case("permutation_int", "fn permutation_int(k) = permutation(k, 10)", lambda k: R.permutation(k, 10),
         lambda r: [key_of(r)], **EXACT),
    Case("permutation_rows", "fn permutation_rows(k, x) = permutation(k, x)", lambda k, x: R.permutation(k, x),
         lambda r: [key_of(r), r.normal(size=(6, 3)).astype(np.float32)], **EXACT),
    Case("permutation_independent", "fn permutation_independent(k, x) = permutation(k, x, axis=1, independent=true)",
         lambda k, x: R.permutation(k, x, axis=1, independent=True),
         lambda r: [key_of(r), r.normal(size=(3, 8)).astype(np.float32)], **EXACT),
    Case("permutation_two_rounds", "fn permutation_two_rounds(k) = permutation(k, 2000)",
         lambda k: R.permutation(k, 2000), lambda r: [key_of(r)], **EXACT),
    # under vmap over a batch of keys and inside scan
    Case("vmap_uniform", "fn vmap_uniform(ks) = vmap(|k| uniform(k, (3,)))(ks)",
         lambda ks: jax.vmap(lambda k: R.uniform(k, (3,)))(ks), lambda r: [keys_of(r, 5)], **EXACT),
    Case("vmap_randint", "fn vmap_randint(ks) = vmap(|k| randint(k, (2, 2), -4, 9))(ks)",
         lambda ks: jax.vmap(lambda k: R.randint(k, (2, 2), -4, 9))(ks), lambda r: [keys_of(r, 4)], **EXACT),
    Case("vmap_normal", "fn vmap_normal(ks) = vmap(|k| normal(k, 4))(ks)",
         lambda ks: jax.vmap(lambda k: R.normal(k, (4,)))(ks), lambda r: [keys_of(r, 3)], **ULPS32),
    Case("vmap_split", "fn vmap_split(ks) = vmap(split)(ks)", lambda ks: jax.vmap(R.split)(ks),
         lambda r: [keys_of(r, 3)], **EXACT),
    Case("scan_draws", "fn scan_draws(k) = scan(|k, _| (split(k)[0], uniform(split(k)[1], 2)), k, length=4)",
         lambda k: jax.lax.scan(lambda k, _: (R.split(k)[0], R.uniform(R.split(k)[1], (2,))), k, length=4),
         lambda r: [key_of(r)], **EXACT),
]
