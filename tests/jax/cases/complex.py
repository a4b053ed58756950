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
    # derivatives (session 16, Note [Complex derivatives]): grad of a real loss of complex inputs
    # (df/dre - i df/dim, JAX's convention), holomorphic grad / jacfwd / jacrev, jvp and vjp with
    # complex tangents and cotangents, through the parts, matmul and a loop
    Case("c_grad_abs2", "fn c_grad_abs2(z) = grad(|a| sum(abs(a) ** 2))(z)",
         lambda z: jax.grad(lambda a: jnp.sum(jnp.abs(a) ** 2))(z), c1, rtol=1e-5, atol=1e-5),
    Case("c_grad_real_exp", "fn c_grad_real_exp(z, w) = grad(|a| sum(real(exp(a) * conj(w))))(z)",
         lambda z, w: jax.grad(lambda a: jnp.sum(jnp.real(jnp.exp(a) * jnp.conj(w))))(z),
         lambda r: [cplx(r, (8,), scale=1.0), cplx(r, (8,), scale=1.0)], rtol=1e-5, atol=1e-5),
    Case("c_grad_angle_imag", "fn c_grad_angle_imag(z) = grad(|a| sum(angle(a) + imag(sin(a)) * 2.0 + abs(tanh(a))))(z)",
         lambda z: jax.grad(lambda a: jnp.sum(jnp.angle(a) + jnp.imag(jnp.sin(a)) * 2.0 + jnp.abs(jnp.tanh(a))))(z),
         lambda r: [cplx(r, (8,), scale=1.0)], rtol=1e-4, atol=1e-5),
    Case("c_grad_inverse_trig", "fn c_grad_inverse_trig(z) = grad(|a| sum(abs(arcsin(a) + arccos(a) * arcsinh(a) + arccosh(a) + sqrt(a) / log(a))))(z)",
         lambda z: jax.grad(lambda a: jnp.sum(jnp.abs(jnp.arcsin(a) + jnp.arccos(a) * jnp.arcsinh(a) + jnp.arccosh(a) + jnp.sqrt(a) / jnp.log(a))))(z),
         lambda r: [cplx(r, (8,), scale=1.0)], rtol=1e-4, atol=1e-5),
    Case("c_grad_matmul", "fn c_grad_matmul(a, b) = grad(|x, y| sum(abs(x @ y) ** 2), argnums=(0, 1))(a, b)",
         lambda a, b: jax.grad(lambda x, y: jnp.sum(jnp.abs(x @ y) ** 2), argnums=(0, 1))(a, b),
         lambda r: [cplx(r, (3, 4), scale=1.0), cplx(r, (4, 2), scale=1.0)], rtol=1e-4, atol=1e-4),
    Case("c_grad_of_real_input", "fn c_grad_of_real_input(x) = grad(|a| sum(abs(exp(a * 1j) + a) + real(complex(a, a * a) ** 2)))(x)",
         lambda x: jax.grad(lambda a: jnp.sum(jnp.abs(jnp.exp(a * 1j) + a) + jnp.real(jax.lax.complex(a, a * a) ** 2)))(x),
         lambda r: [r.standard_normal(8).astype(np.float32)], rtol=1e-4, atol=1e-5),
    Case("c_grad_loop", "fn c_grad_loop(z) = grad(|a| abs(fori_loop(0, 3, |i, c| c * c * 0.25 + a, a)))(z)",
         lambda z: jax.grad(lambda a: jnp.abs(jax.lax.fori_loop(0, 3, lambda i, c: c * c * 0.25 + a, a)))(z),
         lambda r: [np.array(0.3 + 0.2j, np.complex64)], rtol=1e-5, atol=1e-6),
    Case("c_grad_holomorphic", "fn c_grad_holomorphic(z) = vmap(grad(|a| sin(a) * a + a ** 3, holomorphic=true))(z)",
         lambda z: jax.vmap(jax.grad(lambda a: jnp.sin(a) * a + a ** 3, holomorphic=True))(z), c1, rtol=1e-5, atol=1e-5),
    Case("c_jac_holomorphic", "fn c_jac_holomorphic(z) = (jacfwd(|a| a * a + exp(a), holomorphic=true)(z), jacrev(|a| cumsum(a) * a, holomorphic=true)(z))",
         lambda z: (jax.jacfwd(lambda a: a * a + jnp.exp(a), holomorphic=True)(z), jax.jacrev(lambda a: jnp.cumsum(a) * a, holomorphic=True)(z)),
         lambda r: [cplx(r, (3,), scale=1.0)], rtol=1e-5, atol=1e-5),
    Case("c_grad_sign", "fn c_grad_sign(z) = grad(|a| sum(real(sign(a) * a)))(z)",
         lambda z: jax.grad(lambda a: jnp.sum(jnp.real(jnp.sign(a) * a)))(z), c1, rtol=1e-5, atol=1e-6),
    Case("c_jacrev_real_output", "fn c_jacrev_real_output(z) = jacrev(|a| abs(a) ** 2 + real(a * a))(z)",
         lambda z: jax.jacrev(lambda a: jnp.abs(a) ** 2 + jnp.real(a * a))(z), lambda r: [cplx(r, (3,), scale=1.0)],
         rtol=1e-5, atol=1e-5),
    Case("c_jvp", "fn c_jvp(z, t) = jvp(|a| tanh(a) * exp(a) + conj(a) * 2.0, (z,), (t,))",
         lambda z, t: jax.jvp(lambda a: jnp.tanh(a) * jnp.exp(a) + jnp.conj(a) * 2.0, (z,), (t,)),
         lambda r: [cplx(r, (6,), scale=1.0), cplx(r, (6,), scale=1.0)], rtol=1e-5, atol=1e-5),
    Case("c_vjp", "fn c_vjp(a, b, ct) = vjp(|x, y| (x @ y) * 2.0j + real(x @ y), a, b)[1](ct)",
         lambda a, b, ct: jax.vjp(lambda x, y: (x @ y) * 2.0j + jnp.real(x @ y), a, b)[1](ct),
         lambda r: [cplx(r, (2, 3), scale=1.0), cplx(r, (3, 2), scale=1.0), cplx(r, (2, 2), scale=1.0)], rtol=1e-5, atol=1e-5),
    # structural ops move complex elements whole
    Case("c_structural", "fn c_structural(a) = (transpose(a), a[1], reshape(a, (6, 2))[::2], concat((a, a), axis=0), where(real(a) > 0.0, a, 0.0j))",
         lambda a: (J(a).T, J(a)[1], J(a).reshape(6, 2)[::2], jnp.concatenate([a, a], axis=0), jnp.where(jnp.real(a) > 0, a, 0j)),
         lambda r: [cplx(r, (3, 4))], rtol=0.0),
]
