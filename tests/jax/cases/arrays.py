"""jax.numpy functions written in scn (the prelude): sinc, heaviside, signbit, frexp, ldexp, modf,
gcd, lcm, logaddexp2, around, geomspace, fliplr, flipud, append, insert, delete, array_equal,
array_equiv, matrix_transpose, cumulative_sum, broadcast_arrays, empty, empty_like, isreal, unwrap.

Tolerances: exact where the function only rounds, splits or moves values (signbit, frexp, ldexp,
modf, the integer and shape functions); sinc and logaddexp2 call sin / log1p / exp2, which scn
takes from libm and JAX from XLA, so 2e-6 in f32 (sinc an atol of 1e-7 too: near its zeros
sin(pi x) is a few ulps of pi x, relatively far apart); geomspace is 10 ** linspace, where XLA's
pow is off by about an ulp per unit of the exponent (JAX's geomspace(1, 1000, 4)[2] is
100.00005), so 2e-6; unwrap sums the corrections with cumsum, whose order differs, so 1e-6 of
the largest phase as atol. No denormal inputs (XLA's CPU flushes them to zero)."""
import jax.numpy as jnp
import numpy as np

from case import Case, floats, ints

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0]


def mixed(r, n, lo, hi, dtype=np.float32, extra=()):
    """n uniform draws in [lo, hi) followed by the special values and `extra`."""
    return np.concatenate([r.uniform(lo, hi, size=n), SPECIAL, list(extra)]).astype(dtype)


def wide(r, n, dtype=np.float32, top=38):
    """n values of both signs spread over magnitudes 1e-(top-1) .. 1e(top), and the special values."""
    mag = 10.0 ** r.uniform(-top + 1, top, size=n)
    sgn = np.where(r.uniform(size=n) < 0.5, -1.0, 1.0)
    return np.concatenate([sgn * mag, SPECIAL, [3.4e38 if top == 38 else 1.7e308, 1.2e-38, 0.75, -1e-3]]).astype(dtype)


def phases(r, shape, scale=4.0, dtype=np.float32):
    """A random walk with steps of up to `scale` (so some jumps exceed pi)."""
    return np.cumsum(r.uniform(-scale, scale, size=shape), axis=-1).astype(dtype)


def eq_inputs(r):
    """A float matrix, a copy of it, a copy with one element changed, and both with a NaN."""
    a = floats(r, (3, 4), special=False)
    b = a.copy()
    b[1, 2] += 1.0
    an = a.copy()
    an[0, 0] = np.nan
    return [a, a.copy(), b, an, an.copy()]


CASES = [
    Case("sinc_f32", "fn sinc_f32(x) = sinc(x)", jnp.sinc,
         lambda r: [mixed(r, 40, -6, 6, extra=[2.0, -4.0, 1e-20, 1e20])], rtol=2e-6, atol=1e-7),
    Case("sinc_f64", "fn sinc_f64(x) = sinc(x)", jnp.sinc,
         lambda r: [mixed(r, 40, -6, 6, np.float64, extra=[2.0, -4.0, 1e-20, 1e20])], rtol=1e-13, atol=1e-16, x64=True),
    Case("sinc_int", "fn sinc_int(x) = sinc(x)", jnp.sinc, lambda r: [ints(r, (8,))], rtol=2e-6, atol=1e-7),
    Case("heaviside_mix", "fn heaviside_mix(x, h) = (heaviside(x, h), heaviside(x, 0.5))",
         lambda x, h: (jnp.heaviside(x, h), jnp.heaviside(x, 0.5)),
         lambda r: [mixed(r, 20, -3, 3), mixed(r, 20, -3, 3)[::-1].copy()]),
    Case("heaviside_int", "fn heaviside_int(x, h) = heaviside(x, h)", jnp.heaviside,
         lambda r: [ints(r, (12,), -2, 3), ints(r, (12,))]),
    Case("signbit_mix", "fn signbit_mix(x, n) = (signbit(x), signbit(n), signbit(n > 0))",
         lambda x, n: (jnp.signbit(x), jnp.signbit(n), jnp.signbit(n > 0)),
         lambda r: [np.concatenate([mixed(r, 20, -3, 3), np.copysign(np.float32(np.nan), [-1.0]).astype(np.float32)]),
                    ints(r, (10,), extremes=True)]),
    Case("signbit_f64", "fn signbit_f64(x) = signbit(x)", jnp.signbit,
         lambda r: [np.concatenate([mixed(r, 20, -3, 3, np.float64), [-np.nan]])], x64=True),
    Case("frexp_f32", "fn frexp_f32(x) = frexp(x)", jnp.frexp, lambda r: [wide(r, 60)], rtol=0.0),
    Case("frexp_f64", "fn frexp_f64(x) = frexp(x)", jnp.frexp,
         lambda r: [wide(r, 60, np.float64, top=307)], rtol=0.0, x64=True),
    Case("frexp_int", "fn frexp_int(x) = frexp(x)", jnp.frexp, lambda r: [ints(r, (10,), -1000, 1000)], rtol=0.0),
    Case("ldexp_f32", "fn ldexp_f32(x, e) = ldexp(x, e)", jnp.ldexp,
         lambda r: [wide(r, 30, top=20), ints(r, (44,), -100, 100)], rtol=0.0),
    Case("ldexp_f64", "fn ldexp_f64(x, e) = ldexp(x, e)", jnp.ldexp,
         lambda r: [wide(r, 30, np.float64, top=200), ints(r, (44,), -900, 900)], rtol=0.0, x64=True),
    Case("ldexp_edges", "fn ldexp_edges(x, e) = (ldexp(x, e), ldexp(x, 3))",
         lambda x, e: (jnp.ldexp(x, e), jnp.ldexp(x, 3)),
         lambda r: [np.array([1.0, 0.5, 1e-30, 3e38, 1.0, 2.0, -1.0, 0.75], np.float32),
                    np.array([127, 129, 180, -200, -126, -127, 128, -125], np.int32)], rtol=0.0),
    Case("modf_mix", "fn modf_mix(x) = modf(x)", jnp.modf, lambda r: [mixed(r, 40, -100, 100, extra=[1e30, -1e-30])], rtol=0.0),
    Case("modf_f64", "fn modf_f64(x) = modf(x)", jnp.modf, lambda r: [mixed(r, 40, -100, 100, np.float64)], rtol=0.0, x64=True),
    Case("gcd_lcm", "fn gcd_lcm(a, b) = (gcd(a, b), lcm(a, b), gcd(a, 12), lcm(a[:, None], b[None, :4]))",
         lambda a, b: (jnp.gcd(a, b), jnp.lcm(a, b), jnp.gcd(a, 12), jnp.lcm(a[:, None], b[None, :4])),
         lambda r: [np.concatenate([ints(r, (20,), -60, 60), [0, 0, 7, -36]]).astype(np.int32),
                    np.concatenate([ints(r, (20,), -60, 60), [0, 5, 0, 48]]).astype(np.int32)]),
    Case("gcd_i64", "fn gcd_i64(a, b) = (gcd(a, b), lcm(a, b))", lambda a, b: (jnp.gcd(a, b), jnp.lcm(a, b)),
         lambda r: [ints(r, (16,), -10**9, 10**9, np.int64), ints(r, (16,), -10**6, 10**6, np.int64)], x64=True),
    Case("logaddexp2_mix", "fn logaddexp2_mix(a, b) = logaddexp2(a, b)", jnp.logaddexp2,
         lambda r: [mixed(r, 30, -200, 200), mixed(r, 30, -200, 200)[::-1].copy()], rtol=2e-6),
    Case("logaddexp2_f64", "fn logaddexp2_f64(a, b) = logaddexp2(a, b)", jnp.logaddexp2,
         lambda r: [mixed(r, 30, -200, 200, np.float64), mixed(r, 30, -200, 200, np.float64)[::-1].copy()],
         rtol=1e-13, x64=True),
    Case("around_mix", "fn around_mix(x) = (around(x), around(x, 2), around(x, decimals=-1))",
         lambda x: (jnp.around(x), jnp.around(x, 2), jnp.around(x, decimals=-1)),
         lambda r: [mixed(r, 30, -500, 500, extra=[2.5, -3.5, 0.125])]),
    Case("geomspace_mix", "fn geomspace_mix(a, b) = (geomspace(a, b, 7), geomspace(b, a, 5, endpoint=false), geomspace(-a, -b, 4))",
         lambda a, b: (jnp.geomspace(a, b, 7), jnp.geomspace(b, a, 5, endpoint=False), jnp.geomspace(-a, -b, 4)),
         lambda r: [np.float32(0.01), np.float32(250.0)], rtol=2e-6),
    Case("geomspace_f64", "fn geomspace_f64(a, b) = geomspace(a, b, 9)", lambda a, b: jnp.geomspace(a, b, 9),
         lambda r: [np.float64(1e-3), np.float64(1e5)], rtol=1e-13, x64=True),
    Case("flips", "fn flips(x) = (fliplr(x), flipud(x), flipud(x[0, 0]))",
         lambda x: (jnp.fliplr(x), jnp.flipud(x), jnp.flipud(x[0, 0])), lambda r: [ints(r, (3, 4, 2))]),
    Case("append_mix", "fn append_mix(x, v) = (append(x, v), append(x, v[:2], axis=0), append(x, v[:, :1], axis=1))",
         lambda x, v: (jnp.append(x, v), jnp.append(x, v[:2], axis=0), jnp.append(x, v[:, :1], axis=1)),
         lambda r: [floats(r, (3, 4)), floats(r, (3, 4))]),
    Case("insert_mix", "fn insert_mix(x, v) = (insert(x, 2, 9), insert(x, [1, 3], v[0, :2]), insert(x, -1, v[0]),"
         " insert(x, 1, v[:3], axis=1), insert(x, [0, 4, 2], v[0], axis=1), insert(x, 3, 7.5, axis=0),"
         " insert(x, [5, 0, 0], v[:3], axis=1))",
         lambda x, v: (jnp.insert(x, 2, 9), jnp.insert(x, jnp.array([1, 3]), v[0, :2]), jnp.insert(x, -1, v[0]),
                       jnp.insert(x, 1, v[:3], axis=1), jnp.insert(x, jnp.array([0, 4, 2]), v[0], axis=1),
                       jnp.insert(x, 3, 7.5, axis=0), jnp.insert(x, jnp.array([5, 0, 0]), v[:3], axis=1)),
         lambda r: [floats(r, (3, 4)), floats(r, (3, 3))]),
    Case("delete_mix", "fn delete_mix(x) = (delete(x, 2), delete(x, -1), delete(x, [0, 5, 5, -1]), delete(x, 1, axis=1),"
         " delete(x, [0, 2], axis=0), delete(x, [-1], axis=1))",
         lambda x: (jnp.delete(x, 2), jnp.delete(x, -1), jnp.delete(x, jnp.array([0, 5, 5, -1])), jnp.delete(x, 1, axis=1),
                    jnp.delete(x, jnp.array([0, 2]), axis=0), jnp.delete(x, jnp.array([-1]), axis=1)),
         lambda r: [ints(r, (3, 4))]),
    Case("array_equal_mix", "fn array_equal_mix(a, a2, b, an, an2) = (array_equal(a, a2), array_equal(a, b), array_equal(a, a[0]),"
         " array_equal(an, an2), array_equal(an, an2, equal_nan=true), array_equal(a, i32(a)))",
         lambda a, a2, b, an, an2: (jnp.array_equal(a, a2), jnp.array_equal(a, b), jnp.array_equal(a, a[0]),
                                    jnp.array_equal(an, an2), jnp.array_equal(an, an2, equal_nan=True),
                                    jnp.array_equal(a, a.astype(jnp.int32))),
         eq_inputs),
    Case("array_equiv_mix", "fn array_equiv_mix(a, a2, b, an, an2) = (array_equiv(a, a2), array_equiv(a[1], b), array_equiv(a[:1], a2),"
         " array_equiv(full_like(a, 2.0), 2.0), array_equiv(an, an2))",
         lambda a, a2, b, an, an2: (jnp.array_equiv(a, a2), jnp.array_equiv(a[1], b), jnp.array_equiv(a[:1], a2),
                                    jnp.array_equiv(jnp.full_like(a, 2.0), 2.0), jnp.array_equiv(an, an2)),
         eq_inputs),
    Case("matrix_transpose_mix", "fn matrix_transpose_mix(x) = (matrix_transpose(x), matrix_transpose(x[0]))",
         lambda x: (jnp.matrix_transpose(x), jnp.matrix_transpose(x[0])), lambda r: [floats(r, (2, 3, 4))]),
    Case("cumulative_sum_mix", "fn cumulative_sum_mix(x, n) = (cumulative_sum(x[0]), cumulative_sum(x, axis=1, include_initial=true),"
         " cumulative_sum(x, axis=0), cumulative_sum(n, axis=-1, dtype=f32), cumulative_sum(n[0] > 0, include_initial=true))",
         lambda x, n: (jnp.cumulative_sum(x[0]), jnp.cumulative_sum(x, axis=1, include_initial=True),
                       jnp.cumulative_sum(x, axis=0), jnp.cumulative_sum(n, axis=-1, dtype=jnp.float32),
                       jnp.cumulative_sum(n[0] > 0, include_initial=True)),
         lambda r: [floats(r, (3, 5), special=False), ints(r, (2, 6))], rtol=1e-6, atol=1e-6),
    Case("broadcast_arrays_mix", "fn broadcast_arrays_mix(a, b, c) = broadcast_arrays(a, b, c)",
         lambda a, b, c: tuple(jnp.broadcast_arrays(a, b, c)),
         lambda r: [floats(r, (3, 1)), ints(r, (4,)), np.float32(2.5)]),
    Case("empty_mix", "fn empty_mix(x) = (empty((2, 3)), empty(4, dtype=i32), empty_like(x), empty_like(x, dtype=i32, shape=(5,)))",
         lambda x: (jnp.empty((2, 3)), jnp.empty(4, dtype=jnp.int32), jnp.empty_like(x),
                    jnp.empty_like(x, dtype=jnp.int32, shape=(5,))),
         lambda r: [floats(r, (2, 2))]),
    Case("isreal_mix", "fn isreal_mix(z, x) = (isreal(z), isreal(x))", lambda z, x: (jnp.isreal(z), jnp.isreal(x)),
         lambda r: [np.array([1 + 0j, 1j, -0.0 + 0j, complex(2, -0.0), complex(np.nan, 0), complex(0, np.nan)], np.complex64),
                    floats(r, (8,))]),
    Case("unwrap_mix", "fn unwrap_mix(p) = (unwrap(p), unwrap(p, axis=0), unwrap(p, discont=4.0), unwrap(p, period=3.0))",
         lambda p: (jnp.unwrap(p), jnp.unwrap(p, axis=0), jnp.unwrap(p, discont=4.0), jnp.unwrap(p, period=3.0)),
         lambda r: [phases(r, (3, 12))], rtol=1e-6, atol=5e-5),
    Case("unwrap_int", "fn unwrap_int(p) = unwrap(p, period=8)", lambda p: jnp.unwrap(p, period=8),
         lambda r: [ints(r, (12,), -20, 20)]),
]
