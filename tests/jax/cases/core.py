"""Ops scn had before the parity tests: reductions, cumulative ops, matmul, elementwise math."""
import jax.numpy as jnp
import jax.nn
import numpy as np

from case import Case, floats

CASES = [
    # an array literal's numbers are converted exactly under array(x, dtype=) (Note [Array literals])
    Case("literal_f64_exact", "fn literal_f64_exact() = array([[0.1, 0.2], [1e-300, 2.5e-8]], dtype=f64)",
         lambda: jnp.array([[0.1, 0.2], [1e-300, 2.5e-8]], dtype=jnp.float64), lambda r: [], x64=True, rtol=0.0),
    Case("literal_c128_exact", "fn literal_c128_exact() = array([0.1 + 0.3j, 1e-200j], dtype=c128)",
         lambda: jnp.array([0.1 + 0.3j, 1e-200j], dtype=jnp.complex128), lambda r: [], x64=True, rtol=0.0),
    Case("sum_axis1", "fn sum_axis1(x) = sum(x, axis=1)", lambda x: jnp.sum(x, axis=1),
         lambda r: [floats(r, (5, 7), special=False)], rtol=1e-5),
    Case("max_with_nan", "fn max_with_nan(x) = max(x, axis=0)", lambda x: jnp.max(x, axis=0),
         lambda r: [floats(r, (4, 6))]),
    Case("cumsum_rows", "fn cumsum_rows(x) = cumsum(x, axis=1)", lambda x: jnp.cumsum(x, axis=1),
         lambda r: [floats(r, (3, 9), special=False)], rtol=1e-5),
    Case("argmax_flat", "fn argmax_flat(x) = argmax(x)", lambda x: jnp.argmax(x),
         lambda r: [floats(r, (4, 5), special=False)]),
    Case("matmul_f64", "fn matmul_f64(a, b) = matmul(a, b)", lambda a, b: jnp.matmul(a, b),
         lambda r: [floats(r, (3, 4), np.float64, special=False), floats(r, (4, 2), np.float64, special=False)],
         rtol=1e-12, x64=True),
    Case("logsumexp_all", "fn logsumexp_all(x) = logsumexp(x)", lambda x: jax.nn.logsumexp(x),
         lambda r: [floats(r, (6, 5), special=False, scale=10.0)], rtol=1e-5),
    Case("exp_log_special", "fn exp_log_special(x) = (exp(x), log(x), sqrt(x))",
         lambda x: (jnp.exp(x), jnp.log(x), jnp.sqrt(x)),
         lambda r: [floats(r, (16,))], rtol=2e-6),
    Case("floordiv_rem_int", "fn floordiv_rem_int(a, b) = (a // b, a % b)",
         lambda a, b: (a // b, a % b),
         lambda r: [r.integers(-20, 20, size=(12,)).astype(np.int32),
                    np.array([3, -3, 7, -7, 1, -1, 2, 5, -5, 4, 6, -2], dtype=np.int32)]),
]
