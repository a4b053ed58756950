"""Order statistics (Note [Quantiles] in lang/builtins_orderstats.cpp) and cumlogsumexp."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case, floats, ints


def plain(r, shape, dtype=np.float32, scale=1.0):
    return floats(r, shape, dtype, special=False, scale=scale)


def with_nans(r, shape, count=3):
    x = plain(r, shape)
    flat = x.reshape(-1)
    flat[r.choice(flat.size, size=count, replace=False)] = np.nan
    return x


Q = np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0], np.float32)

CASES = [
    Case("median_flat", "fn median_flat(x) = median(x)", lambda x: jnp.median(x), lambda r: [plain(r, (5, 7))]),
    Case("median_even", "fn median_even(x) = median(x, axis=1)", lambda x: jnp.median(x, axis=1),
         lambda r: [plain(r, (3, 8))]),
    Case("median_axis0_keepdims", "fn median_axis0_keepdims(x) = median(x, axis=0, keepdims=true)",
         lambda x: jnp.median(x, axis=0, keepdims=True), lambda r: [plain(r, (9, 4))]),
    Case("median_special", "fn median_special(x) = median(x, axis=-1)", lambda x: jnp.median(x, axis=-1),
         lambda r: [floats(r, (4, 10))]),
    Case("median_int", "fn median_int(x) = median(x, axis=0)", lambda x: jnp.median(x, axis=0),
         lambda r: [ints(r, (6, 5))]),
    Case("median_tuple", "fn median_tuple(x) = median(x, axis=(0, 2))", lambda x: jnp.median(x, axis=(0, 2)),
         lambda r: [plain(r, (3, 4, 5))]),
    Case("median_tuple_keepdims", "fn median_tuple_keepdims(x) = median(x, axis=(0, 2), keepdims=true)",
         lambda x: jnp.median(x, axis=(0, 2), keepdims=True), lambda r: [plain(r, (3, 4, 5))]),
    Case("median_none_keepdims", "fn median_none_keepdims(x) = median(x, keepdims=true)",
         lambda x: jnp.median(x, keepdims=True), lambda r: [plain(r, (2, 3))]),
    Case("quantile_linear", "fn quantile_linear(x, q) = quantile(x, q, axis=1)", lambda x, q: jnp.quantile(x, q, axis=1),
         lambda r: [plain(r, (4, 11)), Q]),
    Case("quantile_lower", "fn quantile_lower(x, q) = quantile(x, q, axis=1, method=\"lower\")",
         lambda x, q: jnp.quantile(x, q, axis=1, method="lower"), lambda r: [plain(r, (4, 11)), Q]),
    Case("quantile_higher", "fn quantile_higher(x, q) = quantile(x, q, axis=0, method=\"higher\")",
         lambda x, q: jnp.quantile(x, q, axis=0, method="higher"), lambda r: [plain(r, (10, 3)), Q]),
    Case("quantile_midpoint", "fn quantile_midpoint(x, q) = quantile(x, q, method=\"midpoint\")",
         lambda x, q: jnp.quantile(x, q, method="midpoint"), lambda r: [plain(r, (13,)), Q]),
    Case("quantile_nearest", "fn quantile_nearest(x, q) = quantile(x, q, axis=-1, method=\"nearest\")",
         lambda x, q: jnp.quantile(x, q, axis=-1, method="nearest"),
         lambda r: [plain(r, (3, 9)), np.array([0.0, 0.125, 0.375, 0.5, 0.625, 0.8, 1.0], np.float32)]),
    Case("quantile_scalar_q", "fn quantile_scalar_q(x) = quantile(x, 0.3, axis=0, keepdims=true)",
         lambda x: jnp.quantile(x, 0.3, axis=0, keepdims=True), lambda r: [plain(r, (7, 2))]),
    Case("quantile_special", "fn quantile_special(x, q) = quantile(x, q, axis=1)",
         lambda x, q: jnp.quantile(x, q, axis=1), lambda r: [floats(r, (3, 12)), Q]),
    Case("quantile_keepdims_vector_q", "fn quantile_keepdims_vector_q(x, q) = quantile(x, q, axis=1, keepdims=true)",
         lambda x, q: jnp.quantile(x, q, axis=1, keepdims=True), lambda r: [plain(r, (2, 6, 3)), Q]),
    Case("percentile_linear", "fn percentile_linear(x) = percentile(x, [5.0, 50.0, 95.0], axis=0)",
         lambda x: jnp.percentile(x, jnp.array([5.0, 50.0, 95.0]), axis=0), lambda r: [plain(r, (20, 3))]),
    Case("nanmedian_rows", "fn nanmedian_rows(x) = nanmedian(x, axis=1)", lambda x: jnp.nanmedian(x, axis=1),
         lambda r: [with_nans(r, (4, 9), 6)]),
    Case("nanmedian_all_nan", "fn nanmedian_all_nan(x) = nanmedian(x, axis=0)", lambda x: jnp.nanmedian(x, axis=0),
         lambda r: [np.array([[np.nan, 1.0], [np.nan, 3.0], [np.nan, np.nan]], np.float32)]),
    Case("nanquantile_rows", "fn nanquantile_rows(x, q) = nanquantile(x, q, axis=1)",
         lambda x, q: jnp.nanquantile(x, q, axis=1), lambda r: [with_nans(r, (5, 8), 7), Q]),
    Case("nanquantile_keepdims", "fn nanquantile_keepdims(x) = nanquantile(x, 0.75, axis=0, keepdims=true)",
         lambda x: jnp.nanquantile(x, 0.75, axis=0, keepdims=True), lambda r: [with_nans(r, (6, 4), 5)]),
    Case("quantile_f64", "fn quantile_f64(x, q) = quantile(x, q, axis=1)", lambda x, q: jnp.quantile(x, q, axis=1),
         lambda r: [plain(r, (3, 10), np.float64), Q.astype(np.float64)], x64=True, rtol=1e-14),
    Case("vmap_median", "fn vmap_median(x) = vmap(median)(x)", lambda x: jax.vmap(jnp.median)(x),
         lambda r: [plain(r, (4, 7))]),
    # cumlogsumexp: an associative scan with logaddexp, so the rounding of the combination order
    # may differ in the last bits
    Case("cumlogsumexp_default", "fn cumlogsumexp_default(x) = cumlogsumexp(x)",
         lambda x: jax.lax.cumlogsumexp(x), lambda r: [plain(r, (4, 5), scale=3.0)], rtol=1e-5, atol=1e-6),
    # axis=None (an scn extension) scans the flattened array
    Case("cumlogsumexp_flat", "fn cumlogsumexp_flat(x) = cumlogsumexp(x, axis=None)",
         lambda x: jax.lax.cumlogsumexp(x.ravel()), lambda r: [plain(r, (4, 5), scale=3.0)], rtol=1e-5, atol=1e-6),
    Case("cumlogsumexp_axis", "fn cumlogsumexp_axis(x) = cumlogsumexp(x, axis=1)",
         lambda x: jax.lax.cumlogsumexp(x, axis=1), lambda r: [plain(r, (3, 40), scale=30.0)], rtol=1e-5, atol=1e-6),
    Case("cumlogsumexp_reverse", "fn cumlogsumexp_reverse(x) = cumlogsumexp(x, axis=0, reverse=true)",
         lambda x: jax.lax.cumlogsumexp(x, axis=0, reverse=True), lambda r: [plain(r, (30, 3), scale=5.0)],
         rtol=1e-5, atol=1e-6),
    Case("cumlogsumexp_special", "fn cumlogsumexp_special(x) = cumlogsumexp(x, axis=1)",
         lambda x: jax.lax.cumlogsumexp(x, axis=1),
         lambda r: [np.array([[-np.inf, -np.inf, 0.0, 1000.0, -np.inf], [88.0, 89.0, np.inf, 1.0, 2.0],
                              [np.nan, 0.0, 1.0, 2.0, 3.0]], np.float32)], rtol=1e-5, atol=1e-6),
    Case("cumlogsumexp_f64", "fn cumlogsumexp_f64(x) = cumlogsumexp(x, axis=0)",
         lambda x: jax.lax.cumlogsumexp(x, axis=0), lambda r: [plain(r, (50, 2), np.float64)], x64=True, rtol=1e-13),
]
