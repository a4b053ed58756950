"""The sort family: sort, argsort, top_k, unique (with size), searchsorted (Note [Sorting])."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case, floats, ints


def tied_floats(r, shape):
    """Floats with many ties, NaNs and both zeros: what stability and the total order decide."""
    x = (r.integers(-4, 4, size=shape) / 2).astype(np.float32)
    flat = x.reshape(-1)
    picks = r.choice(flat.size, size=min(flat.size, 8), replace=False)
    flat[picks] = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, -0.0, np.nan], dtype=np.float32)[:len(picks)]
    return x


def signed_specials(r, shape):
    """Ties of both zeros, NaNs of both signs (-NaN as x86's 0.0 / 0.0, 0xffc00000) and infinities."""
    x = tied_floats(r, shape)
    flat = x.reshape(-1)
    neg_nan = np.array([0xffc00000], dtype=np.uint32).view(np.float32)[0]
    picks = r.choice(flat.size, size=min(flat.size, 8), replace=False)
    flat[picks] = np.array([neg_nan, neg_nan, -0.0, 0.0, -0.0, np.nan, -np.inf, np.inf], dtype=np.float32)[:len(picks)]
    return x


CASES = [
    Case("sort_rows", "fn sort_rows(x) = sort(x)", lambda x: jnp.sort(x), lambda r: [tied_floats(r, (4, 33))]),
    Case("sort_axis0_desc", "fn sort_axis0_desc(x) = sort(x, axis=0, descending=true)",
         lambda x: jnp.sort(x, axis=0, descending=True), lambda r: [tied_floats(r, (9, 5))]),
    Case("sort_flat_int", "fn sort_flat_int(x) = sort(x, axis=None)", lambda x: jnp.sort(x, axis=None),
         lambda r: [ints(r, (6, 7), extremes=True)]),
    Case("sort_long", "fn sort_long(x) = sort(x)", lambda x: jnp.sort(x), lambda r: [floats(r, (70000,))]),
    Case("argsort_ties", "fn argsort_ties(x) = argsort(x)", lambda x: jnp.argsort(x),
         lambda r: [tied_floats(r, (3, 300))]),
    Case("argsort_desc", "fn argsort_desc(x) = argsort(x, axis=0, descending=true)",
         lambda x: jnp.argsort(x, axis=0, descending=True), lambda r: [tied_floats(r, (17, 3))]),
    Case("argsort_long_int", "fn argsort_long_int(x) = argsort(x)", lambda x: jnp.argsort(x),
         lambda r: [ints(r, (50000,), low=-100, high=100)]),
    # f64 keys: the indices are i32 in scn (as argmax's; docs/language.md "Sorting"), i64 in JAX
    # with x64 on, so the case compares the sorted values.
    Case("sort_f64", "fn sort_f64(x) = sort(x)", lambda x: jnp.sort(x),
         lambda r: [floats(r, (2, 40), np.float64)], x64=True),
    Case("top_k_ties", "fn top_k_ties(x) = top_k(x, 5)", lambda x: jax.lax.top_k(x, 5),
         lambda r: [np.abs(tied_floats(r, (4, 12)))]),
    # lax.top_k's IEEE totalOrder: -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN, ties by index.
    Case("top_k_total_order", "fn top_k_total_order(x) = top_k(x, 8)", lambda x: jax.lax.top_k(x, 8),
         lambda r: [signed_specials(r, (5, 16))]),
    Case("top_k_all", "fn top_k_all(x) = top_k(x, 16)", lambda x: jax.lax.top_k(x, 16),
         lambda r: [signed_specials(r, (3, 16))]),
    Case("top_k_none", "fn top_k_none(x) = top_k(x, 0)", lambda x: jax.lax.top_k(x, 0),
         lambda r: [signed_specials(r, (2, 9))]),
    Case("top_k_f64", "fn top_k_f64(x) = top_k(x, 10)", lambda x: jax.lax.top_k(x, 10),
         lambda r: [signed_specials(r, (2, 12)).astype(np.float64)], x64=True),
    Case("top_k_int_extremes", "fn top_k_int_extremes(x) = top_k(x, 7)", lambda x: jax.lax.top_k(x, 7),
         lambda r: [ints(r, (3, 7), low=-2, high=2, extremes=True)]),
    Case("top_k_int", "fn top_k_int(x) = top_k(x, 3)", lambda x: jax.lax.top_k(x, 3),
         lambda r: [ints(r, (2, 3, 10), low=0, high=4)]),
    Case("unique_size", "fn unique_size(x) = unique(x, size=12)", lambda x: jnp.unique(x, size=12),
         lambda r: [tied_floats(r, (5, 4))]),
    Case("unique_fill", "fn unique_fill(x) = unique(x, size=9, fill_value=-7)",
         lambda x: jnp.unique(x, size=9, fill_value=-7), lambda r: [ints(r, (20,), low=0, high=6)]),
    Case("searchsorted_left", "fn searchsorted_left(a, v) = searchsorted(a, v)",
         lambda a, v: jnp.searchsorted(a, v),
         lambda r: [np.sort(tied_floats(r, (30,))), tied_floats(r, (4, 6))]),
    Case("searchsorted_right", "fn searchsorted_right(a, v) = searchsorted(a, v, side=\"right\")",
         lambda a, v: jnp.searchsorted(a, v, side='right'),
         lambda r: [np.sort(ints(r, (25,), low=0, high=8)), ints(r, (10,), low=-1, high=9)]),
    Case("vmap_argsort", "fn vmap_argsort(x) = vmap(argsort, in_axes=1)(x)",
         lambda x: jax.vmap(jnp.argsort, in_axes=1)(x), lambda r: [tied_floats(r, (6, 4))]),
]
