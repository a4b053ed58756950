"""checkpoint(f, policy=) and remat: jax.checkpoint recomputes f in the backward pass and its
gradients are jax.grad's of f. The scn cases differentiate through checkpoint (alone, chained,
in a scan body, under vmap, with each policy) and JAX through jax.checkpoint with the same
policy; the gradients must agree (f64)."""
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name
import numpy as np

from case import Case, floats


def normal(r, shape, scale=1.0):
    return floats(r, shape, dtype=np.float64, special=False, scale=scale)


def block(w, x):
    return jnp.tanh(w @ x) * jnp.sin(x) + x


POLICIES = {"nothing_saveable": jax.checkpoint_policies.nothing_saveable,
            "everything_saveable": jax.checkpoint_policies.everything_saveable,
            "dots_saveable": jax.checkpoint_policies.dots_saveable,
            "dots_with_no_batch_dims_saveable": jax.checkpoint_policies.dots_with_no_batch_dims_saveable}


def chained(w, x, policy=None):
    b = jax.checkpoint(block, policy=policy)
    return jnp.sum(b(w, b(w, b(w, x))))


def rnn(w, c0, xs):
    def step(c, x):
        h = jnp.tanh(w @ c[0] + x)
        return (h, c[1] + jnp.sum(h * x)), h * c[1]
    (h, s), ys = jax.lax.scan(jax.checkpoint(step), (c0, jnp.float64(0.5)), xs)
    return jnp.sum(h) * s + jnp.sum(ys * ys)


def scn_block(name):  # one block per case: the goldens define every case's functions in one file
    return f"fn {name}_block(w, x) = tanh(w @ x) * sin(x) + x\n"


def scn_chained(name, policy):
    p = "" if policy is None else f', policy="{policy}"'
    return (scn_block(name) + f"fn {name}(w, x) = grad(|w, x| {{\n"
            f"  let b = checkpoint({name}_block{p})\n"
            f"  sum(b(w, b(w, b(w, x))))\n"
            f"}}, argnums=(0, 1))(w, x)")


def named_block(w, x):
    h = checkpoint_name(w @ x, "h")
    s = checkpoint_name(jnp.sin(x), "s")
    return jnp.tanh(h) * s + x


def named_chained(w, x, policy):
    b = jax.checkpoint(named_block, policy=policy)
    return jnp.sum(b(w, b(w, b(w, x))))


NAME_POLICIES = [("only_h", 'save_only_these_names("h")', jax.checkpoint_policies.save_only_these_names("h")),
                 ("only_h_s", 'save_only_these_names("h", "s")', jax.checkpoint_policies.save_only_these_names("h", "s")),
                 ("any_but_h", 'save_any_names_but_these("h")', jax.checkpoint_policies.save_any_names_but_these("h"))]


def scn_named_chained(name, policy):
    return (f"fn {name}_block(w, x) {{\n"
            f"  let h = checkpoint_name(w @ x, \"h\")\n"
            f"  let s = checkpoint_name(sin(x), \"s\")\n"
            f"  tanh(h) * s + x\n"
            f"}}\n"
            f"fn {name}(w, x) = grad(|w, x| {{\n"
            f"  let b = checkpoint({name}_block, policy={policy})\n"
            f"  sum(b(w, b(w, b(w, x))))\n"
            f"}}, argnums=(0, 1))(w, x)")


CASES = [
    Case(f"named_grad_{label}", scn_named_chained(f"named_grad_{label}", scn_policy),
         (lambda pol: lambda w, x: jax.grad(named_chained, argnums=(0, 1))(w, x, pol))(policy),
         lambda r: [normal(r, (3, 3), 0.5), normal(r, (3,))], rtol=1e-12, atol=1e-12, x64=True)
    for label, scn_policy, policy in NAME_POLICIES
] + [
    Case(f"chained_grad_{label}", scn_chained(f"chained_grad_{label}", policy),
         (lambda pol: lambda w, x: jax.grad(chained, argnums=(0, 1))(w, x, pol))(POLICIES.get(policy)),
         lambda r: [normal(r, (3, 3), 0.5), normal(r, (3,))], rtol=1e-12, atol=1e-12, x64=True)
    for label, policy in [("default", None), ("nothing_saveable", "nothing_saveable"),
                          ("everything_saveable", "everything_saveable"), ("dots_saveable", "dots_saveable"),
                          ("dots_no_batch", "dots_with_no_batch_dims_saveable")]
] + [
    Case("scan_body_grad",
         "fn scan_body_grad(w, c0, xs) = grad(|w, c0, xs| {\n"
         "  let (c, ys) = scan(checkpoint(|c, x| {\n"
         "    let h = tanh(w @ c.0 + x)\n"
         "    ((h, c.1 + sum(h * x)), h * c.1)\n"
         "  }), (c0, f64(0.5)), xs)\n"
         "  sum(c.0) * c.1 + sum(ys * ys)\n"
         "}, argnums=(0, 1, 2))(w, c0, xs)",
         lambda w, c0, xs: jax.grad(rnn, argnums=(0, 1, 2))(w, c0, xs),
         lambda r: [normal(r, (3, 3), 0.5), normal(r, (3,)), normal(r, (6, 3))], rtol=1e-12, atol=1e-12, x64=True),
    Case("per_example_grad",
         scn_block("per_example_grad") +
         "fn per_example_grad(w, xs) = vmap(|x| grad(|x| sum(remat(per_example_grad_block)(w, x)))(x))(xs)",
         lambda w, xs: jax.vmap(lambda x: jax.grad(lambda x: jnp.sum(jax.remat(block)(w, x)))(x))(xs),
         lambda r: [normal(r, (3, 3), 0.5), normal(r, (4, 3))], rtol=1e-12, atol=1e-12, x64=True),
]
