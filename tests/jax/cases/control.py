"""Control and data-dependent sizes: lax.switch, lax.map (with batch_size), nonzero / argwhere /
flatnonzero / where(c) with size= (Note [Batched map], Note [Data-dependent sizes])."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case, floats, ints


def sparse_floats(r, shape):
    """Floats with about half the elements zero (both signs), and NaN / inf, which are nonzero."""
    x = floats(r, shape)
    x[r.random(shape) < 0.5] = 0.0
    flat = x.reshape(-1)
    if flat.size >= 4:
        flat[:4] = np.array([-0.0, np.nan, np.inf, 0.0], dtype=np.float32)
    return x


BRANCHES_SCN = "(|x| sin(x) + 1.0, |x| x * x, |x| -x, |x| cumsum(x))"
BRANCHES = (lambda x: jnp.sin(x) + 1.0, lambda x: x * x, lambda x: -x, lambda x: jnp.cumsum(x))

CASES = [
    # The index is clamped: -3 and 9 pick the first and last branch.
    Case("switch_vmapped_index", f"fn switch_vmapped_index(i, x) = vmap(|j, v| switch(j, {BRANCHES_SCN}, v))(i, x)",
         lambda i, x: jax.vmap(lambda j, v: jax.lax.switch(j, BRANCHES, v))(i, x),
         lambda r: [np.array([-3, 0, 1, 2, 3, 9], np.int32), floats(r, (6, 5), special=False)]),
    Case("switch_scalar_index", f"fn switch_scalar_index(i, x) = (switch(i[0], {BRANCHES_SCN}, x), switch(i[1], {BRANCHES_SCN}, x))",
         lambda i, x: (jax.lax.switch(i[0], BRANCHES, x), jax.lax.switch(i[1], BRANCHES, x)),
         lambda r: [np.array([3, -1], np.int32), floats(r, (7,), special=False)]),
    Case("switch_two_operands", "fn switch_two_operands(i, a, b) = vmap(|j| switch(j, (|p, q| (p + q, p * q), |p, q| (q, p)), a, b))(i)",
         lambda i, a, b: jax.vmap(lambda j: jax.lax.switch(j, (lambda p, q: (p + q, p * q), lambda p, q: (q, p)), a, b))(i),
         lambda r: [np.array([0, 1, 5], np.int32), floats(r, (4,)), floats(r, (4,))]),
    Case("map_rows", "fn map_rows(x) = map(|r| (sum(r * r), cumsum(r)), x)",
         lambda x: jax.lax.map(lambda r: (jnp.sum(r * r), jnp.cumsum(r)), x),
         lambda r: [floats(r, (7, 4), special=False)], rtol=1e-5),
    Case("map_batched_remainder", "fn map_batched_remainder(x) = map(|r| max(r) - min(r), x, batch_size=3)",
         lambda x: jax.lax.map(lambda r: jnp.max(r) - jnp.min(r), x, batch_size=3),
         lambda r: [floats(r, (10, 5))]),
    Case("map_batched_exact", "fn map_batched_exact(x, y) = map(|t| t.0 @ t.1, (x, y), batch_size=2)",
         lambda x, y: jax.lax.map(lambda t: t[0] @ t[1], (x, y), batch_size=2),
         lambda r: [floats(r, (6, 3), special=False), floats(r, (6, 3), special=False)], rtol=1e-5),
    Case("map_batch_larger", "fn map_batch_larger(x) = map(|r| r[::-1], x, batch_size=8)",
         lambda x: jax.lax.map(lambda r: r[::-1], x, batch_size=8), lambda r: [ints(r, (5, 3))]),
    Case("nonzero_pad", "fn nonzero_pad(x) = nonzero(x, size=20)", lambda x: jnp.nonzero(x, size=20),
         lambda r: [sparse_floats(r, (4, 6))]),
    Case("nonzero_truncate", "fn nonzero_truncate(x) = nonzero(x, size=3, fill_value=(-1, 7, 9))",
         lambda x: jnp.nonzero(x, size=3, fill_value=(-1, 7, 9)), lambda r: [ints(r, (3, 2, 4), low=-1, high=2)]),
    Case("nonzero_fill", "fn nonzero_fill(x) = nonzero(x, size=30, fill_value=-1)",
         lambda x: jnp.nonzero(x, size=30, fill_value=-1), lambda r: [ints(r, (5, 5), low=0, high=2) > 0]),
    Case("argwhere_fill", "fn argwhere_fill(x) = argwhere(x, size=10, fill_value=-2)",
         lambda x: jnp.argwhere(x, size=10, fill_value=-2), lambda r: [sparse_floats(r, (3, 4))]),
    Case("flatnonzero_size", "fn flatnonzero_size(x) = flatnonzero(x, size=12)", lambda x: jnp.flatnonzero(x, size=12),
         lambda r: [ints(r, (2, 9), low=-1, high=2, extremes=True)]),
    Case("where_one_arg", "fn where_one_arg(x) = where(x > 0.5, size=8, fill_value=99)",
         lambda x: jnp.where(x > 0.5, size=8, fill_value=99), lambda r: [floats(r, (16,), special=False)]),
    Case("vmap_nonzero", "fn vmap_nonzero(x) = vmap(|v| nonzero(v, size=4, fill_value=-1).0)(x)",
         lambda x: jax.vmap(lambda v: jnp.nonzero(v, size=4, fill_value=-1)[0])(x),
         lambda r: [ints(r, (5, 6), low=0, high=2)]),
]
