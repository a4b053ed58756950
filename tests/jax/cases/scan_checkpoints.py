"""scan(..., checkpoints=k) and while_loop(..., max_steps=N, checkpoints=k): JAX has no
checkpoints= argument, so the scn cases checkpoint the scan and JAX differentiates the plain
scan (or the scan of a jax.checkpoint-ed body); the gradients must agree (f64, n = 10 steps not
divisible by k, k = 1, k >= n and "sqrt")."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case, floats


def normal(r, shape, scale=1.0):
    return floats(r, shape, dtype=np.float64, special=False, scale=scale)


def rnn_loss(w, c0, xs, reverse=False, remat=False):
    def step(c, x):
        h = jnp.tanh(w @ c[0] + x)
        return (h, c[1] + jnp.sum(h * x)), h * c[1]
    body = jax.checkpoint(step) if remat else step
    (h, s), ys = jax.lax.scan(body, (c0, jnp.float64(0.5)), xs, reverse=reverse)
    return jnp.sum(h) * s + jnp.sum(ys * ys)


def power(c):
    def step(s, _):
        return jax.lax.cond(s[0] < 5, lambda v: (v[0] + 1, v[1] * c), lambda v: v, s), None
    return jax.lax.scan(step, (0, c), None, length=8)[0][1]


def scn_rnn(name, k, reverse):
    return (f"fn {name}(w, c0, xs) = grad(|w, c0, xs| {{\n"
            f"  let (c, ys) = scan(|c, x| {{\n"
            f"    let h = tanh(w @ c.0 + x)\n"
            f"    ((h, c.1 + sum(h * x)), h * c.1)\n"
            f"  }}, (c0, f64(0.5)), xs, reverse={'true' if reverse else 'false'}, checkpoints={k})\n"
            f"  sum(c.0) * c.1 + sum(ys * ys)\n"
            f"}}, argnums=(0, 1, 2))(w, c0, xs)")


def inputs(r):
    return [normal(r, (3, 3), 0.5), normal(r, (3,)), normal(r, (10, 3))]


CASES = [
    Case(f"rnn_grad_{label}", scn_rnn(f"rnn_grad_{label}", k, rev),
         (lambda rev, remat: lambda w, c0, xs: jax.grad(rnn_loss, argnums=(0, 1, 2))(w, c0, xs, rev, remat))(rev, remat),
         inputs, rtol=1e-12, atol=1e-12, x64=True)
    for label, k, rev, remat in [("k1", "1", False, False), ("k3", "3", False, True), ("k4_reverse", "4", True, False),
                                 ("k25", "25", False, False), ("sqrt_reverse", '"sqrt"', True, True)]
] + [
    Case("bounded_while_grad_k3",
         "fn bounded_while_grad_k3(c) = vmap(grad(|a| while_loop(|s| s.0 < 5, |s| (s.0 + 1, s.1 * a), (0, a), "
         "max_steps=8, checkpoints=3).1))(c)",
         lambda c: jax.vmap(jax.grad(power))(c),
         lambda r: [normal(r, (4,))], rtol=1e-12, atol=1e-12, x64=True),
]
