"""Automatic differentiation: grad, jvp, vjp, jacfwd, jacrev of ordinary functions (a tanh MLP,
softmax cross-entropy, a GRU-like scan, cumsum, where, dot) against jax.grad and friends."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case, floats


def normal(r, shape, scale=1.0):
    return floats(r, shape, special=False, scale=scale)


def mlp_loss(w1, w2, x):
    return jnp.mean(jnp.tanh(jnp.tanh(x @ w1) @ w2))


def xent(z, labels):
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(z) * labels, axis=-1))


def gru_loss(w, u, h0, xs):
    def cell(h, x):
        z = jax.nn.sigmoid(x @ w + h @ u)
        hn = (1.0 - z) * h + z * jnp.tanh(x @ w - h @ u)
        return hn, jnp.sum(hn * hn)
    h, ys = jax.lax.scan(cell, h0, xs)
    return jnp.sum(h) + jnp.sum(ys)


def one_hot_labels(r, n, k):
    return np.eye(k, dtype=np.float32)[r.integers(0, k, size=n)]


def bounded_shrink(x, max_steps=20):
    """while_loop(|c| c >= 1.0, |c| c * 0.5, x, max_steps=20) as JAX writes it: a scan over cond."""
    def step(c, _):
        return jax.lax.cond(c >= 1.0, lambda v: v * 0.5, lambda v: v, c), None
    return jax.lax.scan(step, x, None, length=max_steps)[0]


CASES = [
    Case("bounded_while_grad", "fn bounded_while_grad(x) = vmap(grad(|a| while_loop(|c| c >= 1.0, |c| c * 0.5, a, max_steps=20)))(x)",
         lambda x: jax.vmap(jax.grad(bounded_shrink))(x),
         lambda r: [np.abs(normal(r, (6,), 20.0)).astype(np.float32)], rtol=1e-6, atol=0),
    Case("mlp_grad", "fn mlp_grad(w1, w2, x) = grad(|a, b| mean(tanh(tanh(x @ a) @ b)), argnums=(0, 1))(w1, w2)",
         lambda w1, w2, x: jax.grad(mlp_loss, argnums=(0, 1))(w1, w2, x),
         lambda r: [normal(r, (4, 8), 0.5), normal(r, (8, 3), 0.5), normal(r, (5, 4))], rtol=1e-5, atol=1e-7),
    Case("xent_grad", "fn xent_grad(z, labels) = grad(|a| -mean(sum(log_softmax(a) * labels, axis=-1)))(z)",
         lambda z, labels: jax.grad(xent)(z, labels),
         lambda r: [normal(r, (6, 10), 2.0), one_hot_labels(r, 6, 10)], rtol=1e-5, atol=1e-7),
    Case("gru_scan_grad",
         "fn gru_scan_grad(w, u, h0, xs) = grad(|w, u, h0| {\n"
         "  let (h, ys) = scan(|h, x| {\n"
         "    let z = sigmoid(x @ w + h @ u)\n"
         "    let hn = (1.0 - z) * h + z * tanh(x @ w - h @ u)\n"
         "    (hn, sum(hn * hn))\n"
         "  }, h0, xs)\n"
         "  sum(h) + sum(ys)\n"
         "}, argnums=(0, 1, 2))(w, u, h0)",
         lambda w, u, h0, xs: jax.grad(gru_loss, argnums=(0, 1, 2))(w, u, h0, xs),
         lambda r: [normal(r, (3, 4), 0.5), normal(r, (4, 4), 0.5), normal(r, (2, 4)), normal(r, (7, 2, 3))],
         # gradients up to ~66 summed over 7 steps: f32 rounding is ~1e-5 absolute (JAX's own
         # f32 result is 1.2e-6 off the f64 one on an element of 0.024, scn's cpu as much)
         rtol=2e-5, atol=2e-5),
    Case("cumsum_grad", "fn cumsum_grad(x) = grad(|a| sum(cumsum(a, axis=1) * sin(a)))(x)",
         lambda x: jax.grad(lambda a: jnp.sum(jnp.cumsum(a, axis=1) * jnp.sin(a)))(x),
         lambda r: [normal(r, (3, 9))], rtol=1e-5, atol=1e-6),
    Case("where_grad", "fn where_grad(x) = grad(|a| sum(where(a > 0.0, a * a, exp(a))))(x)",
         lambda x: jax.grad(lambda a: jnp.sum(jnp.where(a > 0.0, a * a, jnp.exp(a))))(x),
         lambda r: [normal(r, (17,))]),
    Case("dot_jvp", "fn dot_jvp(a, b, ta, tb) = jvp(|p, q| p @ q, (a, b), (ta, tb))",
         lambda a, b, ta, tb: jax.jvp(lambda p, q: p @ q, (a, b), (ta, tb)),
         lambda r: [normal(r, (3, 5)), normal(r, (5, 2)), normal(r, (3, 5)), normal(r, (5, 2))], rtol=1e-5, atol=1e-6),
    Case("dot_vjp", "fn dot_vjp(a, b, ct) = vjp(|p, q| tanh(p @ q), a, b).1(ct)",
         lambda a, b, ct: jax.vjp(lambda p, q: jnp.tanh(p @ q), a, b)[1](ct),
         lambda r: [normal(r, (3, 5)), normal(r, (5, 2)), normal(r, (3, 2))], rtol=1e-5, atol=1e-6),
    Case("jacrev_softmax", "fn jacrev_softmax(x) = jacrev(softmax)(x)",
         lambda x: jax.jacrev(jax.nn.softmax)(x), lambda r: [normal(r, (6,))], rtol=1e-5, atol=1e-7),
    Case("jacfwd_sort", "fn jacfwd_sort(x) = jacfwd(|a| sort(a) * a)(x)",
         lambda x: jax.jacfwd(lambda a: jnp.sort(a) * a)(x), lambda r: [normal(r, (5,))]),
    Case("hessian_logsumexp", "fn hessian_logsumexp(x) = hessian(logsumexp)(x)",
         lambda x: jax.hessian(jax.nn.logsumexp)(x), lambda r: [normal(r, (4,))], rtol=1e-5, atol=1e-6),
    Case("vmap_grad", "fn vmap_grad(x) = vmap(grad(|a| sum(sin(a) * a)))(x)",
         lambda x: jax.vmap(jax.grad(lambda a: jnp.sum(jnp.sin(a) * a)))(x), lambda r: [normal(r, (4, 3))]),
    Case("max_grad", "fn max_grad(x) = grad(|a| sum(max(a, axis=0)) + sum(cummax(a, axis=1)))(x)",
         lambda x: jax.grad(lambda a: jnp.sum(jnp.max(a, axis=0)) + jnp.sum(jax.lax.cummax(a, axis=1)))(x),
         lambda r: [normal(r, (4, 6))]),
]
