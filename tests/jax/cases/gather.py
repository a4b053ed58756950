"""Gathers and scatters: integer-array indexing, take, .at updates, segment_sum, bincount."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case, floats


def idx(r, n, shape, lo=None, hi=None):
    """Indices into an axis of n, with negative and out-of-range values mixed in."""
    lo = -n - 2 if lo is None else lo
    hi = n + 2 if hi is None else hi
    return r.integers(lo, hi, size=shape).astype(np.int32)


CASES = [
    Case("take_fill", "fn take_fill(x, i) = take(x, i)", lambda x, i: jnp.take(x, i),
         lambda r: [floats(r, (9,)), idx(r, 9, (20,))]),
    Case("take_clip_axis1", "fn take_clip_axis1(x, i) = take(x, i, axis=1, mode=\"clip\")",
         lambda x, i: jnp.take(x, i, axis=1, mode='clip'),
         lambda r: [floats(r, (3, 7)), idx(r, 7, (2, 5))]),
    Case("take_wrap", "fn take_wrap(x, i) = take(x, i, mode=\"wrap\")", lambda x, i: jnp.take(x, i, mode='wrap'),
         lambda r: [floats(r, (6,), special=False), idx(r, 6, (11,), -20, 20)]),
    Case("index_negative", "fn index_negative(x, i) = x[i]", lambda x, i: jnp.asarray(x)[i],
         lambda r: [floats(r, (8,)), idx(r, 8, (16,))]),
    Case("index_broadcast_ij", "fn index_broadcast_ij(x, i, j) = x[i, j]", lambda x, i, j: jnp.asarray(x)[i, j],
         lambda r: [floats(r, (5, 6)), idx(r, 5, (4, 1)), idx(r, 6, (3,))]),
    Case("index_slice_between", "fn index_slice_between(x, i, j) = (x[i, :, j], x[:, i, j], x[i, 1:, ::-1])",
         lambda x, i, j: (jnp.asarray(x)[i, :, j], jnp.asarray(x)[:, i, j], jnp.asarray(x)[i, 1:, ::-1]),
         lambda r: [floats(r, (4, 4, 5)), idx(r, 4, (3,)), idx(r, 4, (3,))]),
    Case("at_add_duplicates", "fn at_add_duplicates(x, i, v) = x.at[i].add(v)",
         lambda x, i, v: jnp.asarray(x).at[i].add(v),
         lambda r: [floats(r, (6,), special=False), idx(r, 6, (30,)), floats(r, (30,), special=False)],
         rtol=1e-5, atol=1e-5),
    Case("at_set_rows", "fn at_set_rows(x, i, v) = x.at[i].set(v)",
         lambda x, i, v: jnp.asarray(x).at[i].set(v),
         lambda r: [floats(r, (5, 3), special=False), r.permutation(7)[:4].astype(np.int32) - 1,
                    floats(r, (4, 3), special=False)]),
    Case("at_max_min_mul", "fn at_max_min_mul(x, i, v) = (x.at[i].max(v), x.at[i].min(v), x.at[i].mul(v))",
         lambda x, i, v: tuple(getattr(jnp.asarray(x).at[i], m)(v) for m in ("max", "min", "mul")),
         lambda r: [floats(r, (7,), special=False), idx(r, 7, (12,)), floats(r, (12,), special=False)],
         rtol=1e-5),
    Case("at_get_fill", "fn at_get_fill(x, i) = x.at[i].get(mode=\"fill\", fill_value=-1.0)",
         lambda x, i: jnp.asarray(x).at[i].get(mode='fill', fill_value=-1.0),
         lambda r: [floats(r, (6,)), idx(r, 6, (10,))]),
    Case("segment_sum_3", "fn segment_sum_3(d, s) = segment_sum(d, s, num_segments=4)",
         lambda d, s: jax.ops.segment_sum(d, s, num_segments=4),
         lambda r: [floats(r, (20, 2), special=False), r.integers(-1, 6, size=(20,)).astype(np.int32)],
         rtol=1e-5, atol=1e-6),
    Case("segment_max_3", "fn segment_max_3(d, s) = segment_max(d, s, num_segments=5)",
         lambda d, s: jax.ops.segment_max(d, s, num_segments=5),
         lambda r: [floats(r, (12,), special=False), r.integers(0, 4, size=(12,)).astype(np.int32)]),
    Case("bincount_length", "fn bincount_length(x) = bincount(x, length=6)", lambda x: jnp.bincount(x, length=6),
         lambda r: [r.integers(-2, 9, size=(40,)).astype(np.int32)]),
    Case("bincount_weights", "fn bincount_weights(x, w) = bincount(x, weights=w, length=5)",
         lambda x, w: jnp.bincount(x, weights=w, length=5),
         lambda r: [r.integers(0, 5, size=(25,)).astype(np.int32), floats(r, (25,), special=False)],
         rtol=1e-5, atol=1e-6),
    Case("take_along_axis_1", "fn take_along_axis_1(x, i) = take_along_axis(x, i, axis=1)",
         lambda x, i: jnp.take_along_axis(x, i, axis=1),
         lambda r: [floats(r, (3, 5)), idx(r, 5, (3, 4))]),
]
