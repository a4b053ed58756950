"""Statistics, index builders and numerical calculus of jnp written in scn (stdlib): cov,
corrcoef, histogram, digitize, isin, unravel_index, ravel_multi_index, triu/tril/diag_indices,
indices, tri, vander, nanargmax/nanargmin, nanvar/nanstd, nancumsum, ediff1d, trapezoid and
gradient; f32 (and f64 where it matters), integers, NaN and the infinities where the function
has a rule for them.

Tolerances: exact for integer results and for results that are one rounding of the inputs
(digitize, isin, indices, nanargmax, nancumsum of integers, ediff1d); 1e-6 relative for short
f32 sums and products; cov/corrcoef/nanvar 2e-6 with a 1e-6 atol (a mean subtracted first, then
a sum of squares: the order of the sums differs from XLA's by a few ulps, and a covariance near 0
is a difference of such sums); histogram's edges are linspace, which scn and JAX compute the
same way (start + i * step, the last edge the stop) and its counts are exact. histogram's inputs
have no NaN or infinity: JAX's edges are then NaN and the counts meaningless."""
import jax.numpy as jnp
import numpy as np

from case import Case, floats, ints


def sorted_floats(r, n, lo=-3.0, hi=3.0):
    """n sorted distinct-ish uniform draws in [lo, hi)."""
    return np.sort(r.uniform(lo, hi, size=n)).astype(np.float32)


def with_nan_row(r, shape):
    """floats with NaNs mixed in and the second row all NaN."""
    x = floats(r, shape, special=False)
    x[r.random(shape) < 0.25] = np.nan
    x[1] = np.nan
    return x


CASES = [
    # cov and corrcoef
    Case("cov_rows", "fn cov_rows(m) = cov(m)", jnp.cov,
         lambda r: [floats(r, (3, 20), special=False)], rtol=2e-6, atol=1e-6),
    Case("cov_cols_y", "fn cov_cols_y(m, y) = cov(m, y, rowvar=false, ddof=2)",
         lambda m, y: jnp.cov(m, y, rowvar=False, ddof=2),
         lambda r: [floats(r, (20, 2), special=False), floats(r, (20, 1), special=False)], rtol=2e-6, atol=1e-6),
    Case("cov_bias_1d", "fn cov_bias_1d(x, y) = cov(x, y, bias=true)",
         lambda x, y: jnp.cov(x, y, bias=True),
         lambda r: [floats(r, (15,), special=False), floats(r, (15,), special=False)], rtol=2e-6, atol=1e-6),
    Case("cov_ints", "fn cov_ints(m) = cov(m)", jnp.cov, lambda r: [ints(r, (4, 10))], rtol=2e-6, atol=1e-6),
    Case("cov_f64", "fn cov_f64(m) = cov(m, rowvar=false)", lambda m: jnp.cov(m, rowvar=False),
         lambda r: [floats(r, (30, 3), np.float64, special=False)], rtol=1e-13, atol=1e-14, x64=True),
    Case("corrcoef_rows", "fn corrcoef_rows(x) = corrcoef(x)", jnp.corrcoef,
         lambda r: [floats(r, (4, 30), special=False)], rtol=2e-6, atol=1e-6),
    Case("corrcoef_xy", "fn corrcoef_xy(x, y) = corrcoef(x, y)", jnp.corrcoef,
         lambda r: [floats(r, (25,), special=False), floats(r, (25,), special=False)], rtol=2e-6, atol=1e-6),
    # histogram
    Case("histogram_default", "fn histogram_default(a) = histogram(a)", jnp.histogram,
         lambda r: [floats(r, (100,), special=False)]),
    Case("histogram_2d_ints", "fn histogram_2d_ints(a) = histogram(a, bins=4)", lambda a: jnp.histogram(a, bins=4),
         lambda r: [ints(r, (5, 8), 0, 9)]),
    Case("histogram_range_weights_density",
         "fn histogram_range_weights_density(a, w) = histogram(a, bins=5, range=(-1.0, 1.5), weights=w, density=true)",
         lambda a, w: jnp.histogram(a, bins=5, range=(-1.0, 1.5), weights=w, density=True),
         lambda r: [floats(r, (60,), special=False), r.uniform(0, 2, size=60).astype(np.float32)]),
    Case("histogram_constant", "fn histogram_constant(a) = histogram(a, bins=3)", lambda a: jnp.histogram(a, bins=3),
         lambda r: [np.full((7,), 2.5, np.float32)]),
    # digitize
    Case("digitize_increasing", "fn digitize_increasing(x, bins) = digitize(x, bins)", jnp.digitize,
         lambda r: [np.concatenate([floats(r, (30,)), [-3.0, 3.0]]).astype(np.float32), sorted_floats(r, 8)],
         rtol=0.0),
    Case("digitize_decreasing_right", "fn digitize_decreasing_right(x, bins) = digitize(x, bins, right=true)",
         lambda x, bins: jnp.digitize(x, bins, right=True),
         lambda r: [np.round(floats(r, (5, 6), special=False) * 2), np.arange(3.0, -4.0, -1.0, dtype=np.float32)],
         rtol=0.0),
    Case("digitize_ints", "fn digitize_ints(x, bins) = digitize(x, bins)", jnp.digitize,
         lambda r: [ints(r, (20,)), np.array([-5, 0, 0, 3, 7], np.int32)], rtol=0.0),
    # isin
    Case("isin_ints", "fn isin_ints(e, t) = (isin(e, t), isin(e, t, invert=true))",
         lambda e, t: (jnp.isin(e, t), jnp.isin(e, t, invert=True)),
         lambda r: [ints(r, (4, 5)), ints(r, (7,))], rtol=0.0),
    Case("isin_floats", "fn isin_floats(e, t) = isin(e, t)", jnp.isin,
         lambda r: [np.array([1.0, np.nan, 0.0, -0.0, np.inf, 2.5], np.float32),
                    np.array([[np.nan, -0.0], [np.inf, 3.0]], np.float32)], rtol=0.0),
    # unravel_index and ravel_multi_index
    Case("unravel_index_2d", "fn unravel_index_2d(i) = unravel_index(i, (3, 4))",
         lambda i: jnp.unravel_index(i, (3, 4)), lambda r: [ints(r, (20,), -20, 20)], rtol=0.0),
    Case("unravel_index_3d", "fn unravel_index_3d(i) = unravel_index(i, (2, 3, 5))",
         lambda i: jnp.unravel_index(i, (2, 3, 5)), lambda r: [ints(r, (4, 5), 0, 30)], rtol=0.0),
    Case("ravel_multi_index_modes",
         "fn ravel_multi_index_modes(i, j) = (ravel_multi_index((i, j), (3, 4), mode=\"clip\"), "
         "ravel_multi_index((i, j), (3, 4), mode=\"wrap\"), ravel_multi_index((i, j), (3, 4), mode=\"wrap\", order=\"F\"))",
         lambda i, j: (jnp.ravel_multi_index((i, j), (3, 4), mode="clip"),
                       jnp.ravel_multi_index((i, j), (3, 4), mode="wrap"),
                       jnp.ravel_multi_index((i, j), (3, 4), mode="wrap", order="F")),
         lambda r: [ints(r, (12,), -5, 8), ints(r, (12,), -5, 8)], rtol=0.0),
    # index builders, used to gather
    Case("triu_tril_indices",
         "fn triu_tril_indices(x) = (x[triu_indices(4)], x[triu_indices(4, k=1, m=5)], x[tril_indices(4, k=-1)], "
         "x[tril_indices(4, 2, 5)], triu_indices(3, k=-1, m=2).0, triu_indices(3, k=-1, m=2).1)",
         lambda x: (x[jnp.triu_indices(4)], x[jnp.triu_indices(4, k=1, m=5)], x[jnp.tril_indices(4, k=-1)],
                    x[jnp.tril_indices(4, 2, 5)], *jnp.triu_indices(3, k=-1, m=2)),
         lambda r: [floats(r, (4, 5))], rtol=0.0),
    Case("diag_indices_of", "fn diag_indices_of(x) = (x[diag_indices(3)], x[diag_indices(3, ndim=3)][..., 0])",
         lambda x: (x[jnp.diag_indices(3)], x[jnp.diag_indices(3, ndim=3)][..., 0]),
         lambda r: [floats(r, (3, 3, 3, 2))], rtol=0.0),
    Case("indices_grid", "fn indices_grid(x) = (x + indices((2, 3)), x[0] * indices((2, 3), sparse=true)[1])",
         lambda x: (x + jnp.indices((2, 3)), x[0] * jnp.indices((2, 3), sparse=True)[1]),
         lambda r: [ints(r, (2, 2, 3))], rtol=0.0),
    Case("tri_masks", "fn tri_masks(x) = (x * tri(4, 5, k=1), x[:, :4] * tri(4), tri(3, k=-1, dtype=i32))",
         lambda x: (x * jnp.tri(4, 5, k=1), x[:, :4] * jnp.tri(4), jnp.tri(3, k=-1, dtype=jnp.int32)),
         lambda r: [floats(r, (4, 5), special=False)], rtol=0.0),
    # vander
    Case("vander_floats", "fn vander_floats(x) = (vander(x), vander(x, N=3, increasing=true))",
         lambda x: (jnp.vander(x), jnp.vander(x, N=3, increasing=True)),
         lambda r: [floats(r, (6,), special=False)], rtol=2e-6),
    Case("vander_ints", "fn vander_ints(x) = vander(x, N=5)", lambda x: jnp.vander(x, N=5),
         lambda r: [ints(r, (6,), -6, 6)], rtol=0.0),
    # NaN-ignoring reductions and scans
    Case("nanargmax_nanargmin",
         "fn nanargmax_nanargmin(x) = (nanargmax(x), nanargmax(x, axis=1), nanargmin(x, axis=0), "
         "nanargmin(x, axis=1, keepdims=true))",
         lambda x: (jnp.nanargmax(x), jnp.nanargmax(x, axis=1), jnp.nanargmin(x, axis=0),
                    jnp.nanargmin(x, axis=1, keepdims=True)),
         lambda r: [with_nan_row(r, (5, 6))], rtol=0.0),
    Case("nanargmax_ints", "fn nanargmax_ints(x) = (nanargmax(x, axis=0), nanargmin(x))",
         lambda x: (jnp.nanargmax(x, axis=0), jnp.nanargmin(x)), lambda r: [ints(r, (4, 6))], rtol=0.0),
    Case("nanvar_nanstd",
         "fn nanvar_nanstd(x) = (nanvar(x), nanvar(x, axis=1), nanstd(x, axis=0, ddof=1), nanvar(x, axis=1, keepdims=true))",
         lambda x: (jnp.nanvar(x), jnp.nanvar(x, axis=1), jnp.nanstd(x, axis=0, ddof=1),
                    jnp.nanvar(x, axis=1, keepdims=True)),
         lambda r: [with_nan_row(r, (5, 6))], rtol=2e-6, atol=1e-6),
    Case("nanvar_ints", "fn nanvar_ints(x) = (nanvar(x, axis=0), nanstd(x))",
         lambda x: (jnp.nanvar(x, axis=0), jnp.nanstd(x)), lambda r: [ints(r, (5, 3))], rtol=2e-6, atol=1e-6),
    Case("nancumsum_floats", "fn nancumsum_floats(x) = (nancumsum(x), nancumsum(x, axis=0), nancumsum(x, axis=1))",
         lambda x: (jnp.nancumsum(x), jnp.nancumsum(x, axis=0), jnp.nancumsum(x, axis=1)),
         lambda r: [with_nan_row(r, (4, 5))], rtol=2e-6, atol=1e-6),
    Case("nancumsum_ints", "fn nancumsum_ints(x) = (nancumsum(x, axis=1), nancumsum(x, dtype=f32))",
         lambda x: (jnp.nancumsum(x, axis=1), jnp.nancumsum(x, dtype=jnp.float32)),
         lambda r: [ints(r, (3, 4))], rtol=0.0),
    # differences, integrals and gradients
    Case("ediff1d_ends", "fn ediff1d_ends(x, b, e) = (ediff1d(x), ediff1d(x, to_end=e, to_begin=b))",
         lambda x, b, e: (jnp.ediff1d(x), jnp.ediff1d(x, to_end=e, to_begin=b)),
         lambda r: [floats(r, (3, 4)), floats(r, (2,), special=False), floats(r, (3,), special=False)], rtol=0.0),
    Case("ediff1d_ints", "fn ediff1d_ints(x) = ediff1d(x, to_begin=0)", lambda x: jnp.ediff1d(x, to_begin=0),
         lambda r: [ints(r, (8,))], rtol=0.0),
    Case("trapezoid_dx", "fn trapezoid_dx(y) = (trapezoid(y), trapezoid(y, dx=0.25, axis=0))",
         lambda y: (jnp.trapezoid(y), jnp.trapezoid(y, dx=0.25, axis=0)),
         lambda r: [floats(r, (4, 7), special=False)], rtol=2e-6, atol=1e-6),
    Case("trapezoid_x", "fn trapezoid_x(y, x, x2) = (trapezoid(y, x), trapezoid(y, x2, axis=0))",
         lambda y, x, x2: (jnp.trapezoid(y, x), jnp.trapezoid(y, x2, axis=0)),
         lambda r: [floats(r, (4, 7), special=False), sorted_floats(r, 7),
                    np.sort(r.uniform(0, 3, size=(4, 7)), axis=0).astype(np.float32)], rtol=2e-6, atol=1e-6),
    Case("trapezoid_ints", "fn trapezoid_ints(y) = trapezoid(y)", jnp.trapezoid, lambda r: [ints(r, (3, 5))]),
    Case("gradient_unit", "fn gradient_unit(f) { let (g0, g1) = gradient(f); (g0, g1, gradient(f, axis=-1)) }",
         lambda f: (*jnp.gradient(f), jnp.gradient(f, axis=-1)),
         lambda r: [floats(r, (5, 6), special=False)], rtol=2e-6, atol=1e-6),
    Case("gradient_spacing", "fn gradient_spacing(f) = gradient(f, 0.5, axis=(0, 1))",
         lambda f: tuple(jnp.gradient(f, 0.5, axis=(0, 1))),
         lambda r: [floats(r, (4, 6), special=False)], rtol=2e-6, atol=1e-6),
    Case("gradient_coordinates", "fn gradient_coordinates(f, x) = gradient(f, x)", jnp.gradient,
         lambda r: [floats(r, (9,), special=False), sorted_floats(r, 9) + np.arange(9, dtype=np.float32)],
         rtol=1e-5, atol=1e-5),
    Case("gradient_ints", "fn gradient_ints(f) = gradient(f)", jnp.gradient, lambda r: [ints(r, (7,))]),
]
