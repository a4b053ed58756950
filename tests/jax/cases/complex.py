"""Complex numbers (issue 17): c64 / c128 arithmetic, math, parts, promotion, reductions and
matmul against jnp (Note [Complex numbers] in jit/scalar/complex.inc).

Inputs are finite (no NaN or infinities: scn follows XLA's plain formulas, without C99 Annex
G's special cases, and the two differ there). Tolerances: + - * and the parts are exact in
principle but XLA may fuse a*c - b*d, so 1e-6 (f32) / 1e-14 (f64) relative plus a small atol for
results near 0 from cancellation; division (Smith's in scn, XLA's own scaling) 2e-6; exp, log,
sqrt, sin, cos (libm's float functions against XLA's) 4e-6 with an atol of 1e-6; f64 1e-13."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case

J = jnp.asarray  # the inputs are NumPy arrays: operators on them must be JAX's


def cplx(r, shape, dtype=np.complex64, scale=2.0):
    """Normal draws for both parts, times `scale`."""
    re = r.standard_normal(shape) * scale
    im = r.standard_normal(shape) * scale
    return (re + 1j * im).astype(dtype)


def edge_points(dtype, huge):
    """Points where the inverse trigonometric functions are hard: on and beside the branch cuts
    (a zero part of either sign), at and near the branch points +-1 and +-i, tiny and huge."""
    pts = [2 + 0j, complex(2, -0.0), complex(-2, 0.0), complex(-2, -0.0), complex(0.0, 3), complex(-0.0, 3),
           complex(0.0, -3), complex(-0.0, -3), 0.5 + 0j, complex(-0.5, -0.0), 1 + 0j, -1 + 0j, 0j, 1j, -1j,
           1 + 1e-7j, complex(1 - 1e-7, 1e-7), complex(-1, 1e-7), 1e-7j + 1e-7, complex(1e-20, -1e-20),
           complex(huge, huge), complex(-huge, 3), complex(3, -huge), complex(0.0, huge), 5 + 1e-10j,
           0.999 + 0.001j, complex(0.3, 0.4), complex(-0.3, -0.4), complex(1.5, 0.2), complex(0.2, 1.5),
           complex(-7, 2), complex(40, -30)]
    return np.array(pts, dtype=dtype)


def c1(r):
    return [cplx(r, (16,))]


def c2(r):
    return [cplx(r, (16,)), cplx(r, (16,))]


def c1_64(r):
    return [cplx(r, (16,), np.complex128)]


def c2_64(r):
    return [cplx(r, (16,), np.complex128), cplx(r, (16,), np.complex128)]


CASES = [
    # arithmetic
    Case("c_add", "fn c_add(a, b) = a + b", lambda a, b: J(a) + J(b), c2, rtol=1e-6, atol=1e-6),
    Case("c_sub", "fn c_sub(a, b) = a - b", lambda a, b: J(a) - J(b), c2, rtol=1e-6, atol=1e-6),
    Case("c_mul", "fn c_mul(a, b) = a * b", lambda a, b: J(a) * J(b), c2, rtol=1e-6, atol=1e-5),
    Case("c_div", "fn c_div(a, b) = a / b", lambda a, b: J(a) / J(b), c2, rtol=2e-6, atol=1e-6),
    Case("c_neg", "fn c_neg(a) = -a", lambda a: -J(a), c1, rtol=0.0),
    Case("c_mul_f64", "fn c_mul_f64(a, b) = a * b", lambda a, b: J(a) * J(b), c2_64, x64=True, rtol=1e-14, atol=1e-13),
    Case("c_div_f64", "fn c_div_f64(a, b) = a / b", lambda a, b: J(a) / J(b), c2_64, x64=True, rtol=1e-14, atol=1e-14),
    Case("c_eq_ne", "fn c_eq_ne(a) = (a == a, a != conj(a))", lambda a: (J(a) == J(a), J(a) != jnp.conj(a)), c1),
    # math
    Case("c_exp", "fn c_exp(a) = exp(a)", lambda a: jnp.exp(a), c1, rtol=4e-6, atol=1e-6),
    Case("c_log", "fn c_log(a) = log(a)", lambda a: jnp.log(a), c1, rtol=4e-6, atol=1e-6),
    Case("c_sqrt", "fn c_sqrt(a) = sqrt(a)", lambda a: jnp.sqrt(a), c1, rtol=4e-6, atol=1e-6),
    Case("c_sin", "fn c_sin(a) = sin(a)", lambda a: jnp.sin(a), c1, rtol=4e-6, atol=1e-6),
    Case("c_cos", "fn c_cos(a) = cos(a)", lambda a: jnp.cos(a), c1, rtol=4e-6, atol=1e-6),
    Case("c_exp_f64", "fn c_exp_f64(a) = exp(a)", lambda a: jnp.exp(a), c1_64, x64=True, rtol=1e-13, atol=1e-14),
    Case("c_sqrt_f64", "fn c_sqrt_f64(a) = sqrt(a)", lambda a: jnp.sqrt(a), c1_64, x64=True, rtol=1e-13, atol=1e-14),
    Case("c_log_f64", "fn c_log_f64(a) = log(a)", lambda a: jnp.log(a), c1_64, x64=True, rtol=1e-13, atol=1e-14),
    # tanh tan log1p expm1 log2 log10 exp2 reciprocal sigmoid (session 14): Kahan's tanh and the expm1/log1p forms
    # against XLA's; inputs of scale 2 (tanh's large-|re| branch needs |re| > 9: c_tanh_wide)
    Case("c_tanh", "fn c_tanh(a) = tanh(a)", lambda a: jnp.tanh(a), c1, rtol=4e-6, atol=1e-6),
    Case("c_tanh_wide", "fn c_tanh_wide(a) = tanh(a * 8.0)", lambda a: jnp.tanh(J(a) * 8.0), c1, rtol=4e-6, atol=1e-6),
    Case("c_tan", "fn c_tan(a) = tan(a)", lambda a: jnp.tan(a), c1, rtol=4e-6, atol=1e-6),
    Case("c_log1p", "fn c_log1p(a) = log1p(a)", lambda a: jnp.log1p(a), c1, rtol=4e-6, atol=1e-6),
    Case("c_log1p_small", "fn c_log1p_small(a) = log1p(a * 1e-4)", lambda a: jnp.log1p(J(a) * 1e-4), c1,
         rtol=4e-6, atol=1e-10),
    Case("c_expm1", "fn c_expm1(a) = expm1(a)", lambda a: jnp.expm1(a), c1, rtol=4e-6, atol=1e-6),
    Case("c_expm1_small", "fn c_expm1_small(a) = expm1(a * 1e-4)", lambda a: jnp.expm1(J(a) * 1e-4), c1,
         rtol=4e-6, atol=1e-10),
    Case("c_log2_log10_exp2", "fn c_log2_log10_exp2(a) = (log2(a), log10(a), exp2(a))",
         lambda a: (jnp.log2(a), jnp.log10(a), jnp.exp2(a)), c1, rtol=4e-6, atol=1e-6),
    Case("c_reciprocal_sigmoid", "fn c_reciprocal_sigmoid(a) = (reciprocal(a), sigmoid(a), nn.sigmoid(a))",
         lambda a: (jnp.reciprocal(a), jax.nn.sigmoid(a), jax.nn.sigmoid(a)), c1, rtol=4e-6, atol=1e-6),
    Case("c_tanh_f64", "fn c_tanh_f64(a) = (tanh(a), tanh(a * 12.0))", lambda a: (jnp.tanh(a), jnp.tanh(J(a) * 12.0)),
         c1_64, x64=True, rtol=1e-13, atol=1e-14),
    Case("c_log1p_expm1_f64", "fn c_log1p_expm1_f64(a) = (log1p(a), expm1(a))", lambda a: (jnp.log1p(a), jnp.expm1(a)),
         c1_64, x64=True, rtol=1e-13, atol=1e-14),
    # arcsin arccos arctan arcsinh arccosh arctanh (session 16): Hull et al.'s asin/acos and the
    # log1p form of atanh against XLA's; normal draws, then the awkward points: the branch cuts
    # on both axes (both signs of a zero part), +-1, +-i, tiny and huge moduli
    Case("c_inverse_trig", "fn c_inverse_trig(a) = (arcsin(a), arccos(a), arctan(a), arcsinh(a), arccosh(a), arctanh(a))",
         lambda a: (jnp.arcsin(a), jnp.arccos(a), jnp.arctan(a), jnp.arcsinh(a), jnp.arccosh(a), jnp.arctanh(a)),
         c1, rtol=4e-6, atol=1e-6),
    Case("c_inverse_trig_edges", "fn c_inverse_trig_edges(a) = (arcsin(a), arccos(a), arctan(a), arcsinh(a), arccosh(a), arctanh(a))",
         lambda a: (jnp.arcsin(a), jnp.arccos(a), jnp.arctan(a), jnp.arcsinh(a), jnp.arccosh(a), jnp.arctanh(a)),
         lambda r: [edge_points(np.complex64, 1e30)], rtol=4e-6, atol=1e-6),
    Case("c_inverse_trig_f64", "fn c_inverse_trig_f64(a) = (arcsin(a), arccos(a), arctan(a), arcsinh(a), arccosh(a), arctanh(a))",
         lambda a: (jnp.arcsin(a), jnp.arccos(a), jnp.arctan(a), jnp.arcsinh(a), jnp.arccosh(a), jnp.arctanh(a)),
         lambda r: [np.concatenate([cplx(r, (16,), np.complex128), edge_points(np.complex128, 1e200)])],
         x64=True, rtol=1e-13, atol=1e-14),
    # parts
    Case("c_parts", "fn c_parts(a) = (real(a), imag(a), conj(a), abs(a), angle(a))",
         lambda a: (jnp.real(a), jnp.imag(a), jnp.conj(a), jnp.abs(a), jnp.angle(a)), c1, rtol=2e-6),
    Case("c_parts_f64", "fn c_parts_f64(a) = (real(a), imag(a), abs(a), angle(a, deg=true))",
         lambda a: (jnp.real(a), jnp.imag(a), jnp.abs(a), jnp.angle(a, deg=True)), c1_64, x64=True, rtol=1e-14),
    Case("c_make_complex", "fn c_make_complex(x, y) = complex(x, y)", lambda x, y: jax.lax.complex(x, y),
         lambda r: [r.standard_normal(8).astype(np.float32), r.standard_normal(8).astype(np.float32)], rtol=0.0),
    Case("c_real_of_real", "fn c_real_of_real(x) = (real(x), imag(x), conj(x), angle(x))",
         lambda x: (jnp.real(x), jnp.imag(x), jnp.conj(x), jnp.angle(x)),
         lambda r: [r.standard_normal(8).astype(np.float32)], rtol=0.0),
    # promotion
    Case("c_promote_f32", "fn c_promote_f32(x) = x * 1j + 2.0", lambda x: J(x) * 1j + 2.0,
         lambda r: [r.standard_normal(8).astype(np.float32)], rtol=0.0),
    Case("c_promote_f64", "fn c_promote_f64(x, z) = x + z", lambda x, z: J(x) + J(z),
         lambda r: [r.standard_normal(8), cplx(r, (8,))], x64=True, rtol=1e-7),
    Case("c_promote_int", "fn c_promote_int(i) = i + 0.5j", lambda i: J(i) + 0.5j,
         lambda r: [r.integers(-5, 5, size=8).astype(np.int32)], rtol=0.0),
    Case("c_astype_to_complex", "fn c_astype_to_complex(x) = (astype(x, c64), astype(x, c128))",
         lambda x: (J(x).astype(jnp.complex64), J(x).astype(jnp.complex128)),
         lambda r: [r.standard_normal(8).astype(np.float32)], x64=True, rtol=0.0),
    Case("c_astype_bool", "fn c_astype_bool(z) = astype(z * where(arange(8) % 2 == 0, 0.0, 1.0), bool)",
         lambda z: (J(z) * jnp.where(jnp.arange(8) % 2 == 0, 0.0, 1.0)).astype(bool), lambda r: [cplx(r, (8,))]),
    # reductions and matmul
    Case("c_sum_prod", "fn c_sum_prod(a) = (sum(a, axis=1), prod(a, axis=0), sum(a))",
         lambda a: (jnp.sum(a, axis=1), jnp.prod(a, axis=0), jnp.sum(a)),
         lambda r: [cplx(r, (4, 3), scale=1.0)], rtol=1e-5, atol=1e-5),
    Case("c_cumsum", "fn c_cumsum(a) = (cumsum(a), cumprod(a))", lambda a: (jnp.cumsum(a), jnp.cumprod(a)),
         lambda r: [cplx(r, (6,), scale=1.0)], rtol=1e-5, atol=1e-5),
    Case("c_matmul", "fn c_matmul(a, b) = a @ b", lambda a, b: J(a) @ J(b),
         lambda r: [cplx(r, (3, 4), scale=1.0), cplx(r, (4, 2), scale=1.0)], rtol=1e-5, atol=1e-5),
    Case("c_matmul_f64", "fn c_matmul_f64(a, b) = a @ b", lambda a, b: J(a) @ J(b),
         lambda r: [cplx(r, (3, 4), np.complex128, 1.0), cplx(r, (4, 5), np.complex128, 1.0)], x64=True,
         rtol=1e-13, atol=1e-13),
    Case("c_vmap_mul", "fn c_vmap_mul(a, b) = vmap(|x, y| sum(x * y))(a, b)",
         lambda a, b: jax.vmap(lambda x, y: jnp.sum(x * y))(a, b),
         lambda r: [cplx(r, (3, 5), scale=1.0), cplx(r, (3, 5), scale=1.0)], rtol=1e-5, atol=1e-5),
    # powers, predicates, sign, averages and norms
    Case("c_pow_int", "fn c_pow_int(a) = (a ** 2, a ** 3, a ** -2, a ** 0)",
         lambda a: (J(a) ** 2, J(a) ** 3, J(a) ** -2, J(a) ** 0), c1, rtol=1e-5, atol=1e-5),
    Case("c_pow_float", "fn c_pow_float(a) = a ** 0.5", lambda a: J(a) ** 0.5, c1, rtol=4e-6, atol=1e-6),
    Case("c_pow_complex", "fn c_pow_complex(a, b) = a ** b", lambda a, b: J(a) ** J(b),
         lambda r: [cplx(r, (8,), scale=1.0), cplx(r, (8,), scale=0.5)], rtol=2e-5, atol=1e-6),
    Case("c_predicates", "fn c_predicates(a) = (isnan(a), isinf(a), isfinite(a), sign(a))",
         lambda a: (jnp.isnan(a), jnp.isinf(a), jnp.isfinite(a), jnp.sign(a)),
         lambda r: [np.array([1 + 2j, complex(np.nan, 1), complex(1, np.inf), complex(-np.inf, np.nan), 0j, -3j],
                             dtype=np.complex64)], rtol=2e-6),
    Case("c_mean_var", "fn c_mean_var(a) = (mean(a), mean(a, axis=0), var(a), std(a, axis=1), var(a, ddof=1))",
         lambda a: (jnp.mean(a), jnp.mean(a, axis=0), jnp.var(a), jnp.std(a, axis=1), jnp.var(a, ddof=1)),
         lambda r: [cplx(r, (4, 3), scale=1.0)], rtol=2e-5, atol=1e-6),
    Case("c_norm", "fn c_norm(a) = (linalg.norm(a), linalg.norm(a[0], ord=1), linalg.norm(a, ord=inf), linalg.norm(a, axis=1))",
         lambda a: (jnp.linalg.norm(a), jnp.linalg.norm(a[0], ord=1), jnp.linalg.norm(a, ord=jnp.inf), jnp.linalg.norm(a, axis=1)),
         lambda r: [cplx(r, (4, 3), scale=1.0)], rtol=2e-5),
    # structural ops move complex elements whole
    Case("c_structural", "fn c_structural(a) = (transpose(a), a[1], reshape(a, (6, 2))[::2], concat((a, a), axis=0), where(real(a) > 0.0, a, 0.0j))",
         lambda a: (J(a).T, J(a)[1], J(a).reshape(6, 2)[::2], jnp.concatenate([a, a], axis=0), jnp.where(jnp.real(a) > 0, a, 0j)),
         lambda r: [cplx(r, (3, 4))], rtol=0.0),
]
