"""custom_jvp and custom_vjp: user-given derivative rules (the softplus of the JAX docs, a
clipped gradient, a deliberately scaled rule that shows which derivative is used) under grad,
jvp, jacrev, jacfwd, hessian, vmap and scan, against jax.custom_jvp / jax.custom_vjp."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case, floats


def normal(r, shape, scale=1.0):
    return floats(r, shape, special=False, scale=scale)


def with_overflow(r, n):
    """Normal draws with values where exp overflows in f32 (the naive softplus gradient is NaN)."""
    return np.concatenate([normal(r, (n,), 3.0), np.array([100.0, 1000.0, -1000.0], np.float32)])


def naive(x):
    return jnp.log1p(jnp.exp(x))


softplus = jax.custom_jvp(naive)
softplus.defjvp(lambda p, t: (naive(p[0]), t[0] * jax.nn.sigmoid(p[0])))

# The product with a rule that scales the first cotangent by 10 (not the true derivative).
scaled = jax.custom_vjp(lambda a, b: a * b)
scaled.defvjp(lambda a, b: (a * b, (a, b)), lambda r, ct: (ct * r[1] * 10.0, ct * r[0]))

# The identity whose gradient is clipped to [-1, 1] (JAX's custom_vjp example).
clip_gradient = jax.custom_vjp(lambda x: x)
clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))

SCN_SOFTPLUS = "custom_jvp(|x| log1p(exp(x)), |p, t| (log1p(exp(p.0)), t.0 * sigmoid(p.0)))"
SCN_SCALED = "custom_vjp(|a, b| a * b, |a, b| (a * b, (a, b)), |r, ct| (ct * r.1 * 10.0, ct * r.0))"
SCN_CLIP = "custom_vjp(|x| x, |x| (x, ()), |r, g| (clip(g, -1.0, 1.0),))"


def scan_softplus(x, ys):
    return jax.lax.scan(lambda c, y: (c + softplus(c * y), c), x, ys)[0]


CASES = [
    Case("softplus_value", f"fn softplus_value(x) = {SCN_SOFTPLUS}(x)", softplus,
         lambda r: [with_overflow(r, 8)]),
    Case("naive_softplus_grad", "fn naive_softplus_grad(x) = vmap(grad(|x| log1p(exp(x))))(x)",
         jax.vmap(jax.grad(naive)), lambda r: [with_overflow(r, 8)], rtol=1e-5),
    Case("softplus_grad", f"fn softplus_grad(x) = vmap(grad({SCN_SOFTPLUS}))(x)", jax.vmap(jax.grad(softplus)),
         lambda r: [with_overflow(r, 8)], rtol=1e-5, atol=1e-7),
    Case("softplus_jvp", f"fn softplus_jvp(x, t) = jvp({SCN_SOFTPLUS}, (x,), (t,))",
         lambda x, t: jax.jvp(softplus, (x,), (t,)), lambda r: [with_overflow(r, 5), normal(r, (8,))],
         rtol=1e-5, atol=1e-7),
    Case("softplus_jacrev", f"fn softplus_jacrev(x) = jacrev({SCN_SOFTPLUS})(x)", jax.jacrev(softplus),
         lambda r: [with_overflow(r, 3)], rtol=1e-5, atol=1e-7),
    Case("softplus_jacfwd", f"fn softplus_jacfwd(x) = jacfwd({SCN_SOFTPLUS})(x)", jax.jacfwd(softplus),
         lambda r: [with_overflow(r, 3)], rtol=1e-5, atol=1e-7),
    Case("softplus_hessian", f"fn softplus_hessian(x) = vmap(hessian({SCN_SOFTPLUS}))(x)",
         jax.vmap(jax.hessian(softplus)), lambda r: [normal(r, (6,), 2.0)], rtol=1e-5, atol=1e-7),
    Case("softplus_grad_of_vmap", f"fn softplus_grad_of_vmap(x) = grad(|x| sum(vmap({SCN_SOFTPLUS})(x)))(x)",
         jax.grad(lambda x: jnp.sum(jax.vmap(softplus)(x))), lambda r: [with_overflow(r, 5)], rtol=1e-5, atol=1e-7),
    Case("softplus_scan_grad",
         f"fn softplus_scan_grad(x, ys) = grad(|x| scan(|c, y| (c + {SCN_SOFTPLUS}(c * y), c), x, ys).0)(x)",
         jax.grad(scan_softplus), lambda r: [np.float32(0.5), normal(r, (6,), 0.5)], rtol=1e-5, atol=1e-6),
    Case("softplus_scan_jvp",
         f"fn softplus_scan_jvp(x, ys) = jvp(|x| scan(|c, y| (c + {SCN_SOFTPLUS}(c * y), c), x, ys).0, (x,), (f32(1.0),))",
         lambda x, ys: jax.jvp(lambda x: scan_softplus(x, ys), (x,), (jnp.float32(1.0),)),
         lambda r: [np.float32(0.5), normal(r, (6,), 0.5)], rtol=1e-5, atol=1e-6),
    Case("scaled_grad", f"fn scaled_grad(a, b) = vmap(grad({SCN_SCALED}, argnums=(0, 1)))(a, b)",
         jax.vmap(jax.grad(scaled, argnums=(0, 1))), lambda r: [normal(r, (5,)), normal(r, (5,))]),
    Case("scaled_grad_shared", f"fn scaled_grad_shared(a, xs) = grad(|a| sum(vmap(|x| {SCN_SCALED}(a, x))(xs)))(a)",
         lambda a, xs: jax.grad(lambda a: jnp.sum(jax.vmap(lambda x: scaled(a, x))(xs)))(a),
         lambda r: [np.float32(1.5), normal(r, (7,))], rtol=1e-5),
    Case("scaled_vjp", f"fn scaled_vjp(a, b, ct) = vjp({SCN_SCALED}, a, b).1(ct)",
         lambda a, b, ct: jax.vjp(scaled, a, b)[1](ct), lambda r: [normal(r, (4,)), normal(r, (4,)), normal(r, (4,))]),
    Case("clip_gradient_grad", f"fn clip_gradient_grad(x) = vmap(grad(|x| {SCN_CLIP}(x * x) * 3.0))(x)",
         jax.vmap(jax.grad(lambda x: clip_gradient(x * x) * 3.0)), lambda r: [normal(r, (8,), 2.0)]),
]
