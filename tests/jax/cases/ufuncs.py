"""jnp's named operators (add, subtract, ..., logical_xor, fmax, float_power) and lax's (lax.add,
lax.lt, ...): each is its operator, with jnp's promotion; fmax/fmin ignore a NaN."""
import jax.numpy as jnp
import numpy as np
from jax import lax

from case import Case, floats, ints


def two_floats(r):
    return [floats(r, (3, 4)), floats(r, (4,))]


CASES = [
    Case("arithmetic", "fn arithmetic(x, y) = (add(x, y), subtract(x, y), multiply(x, y), divide(x, y), true_divide(x, y), negative(x), positive(y))",
         lambda x, y: (jnp.add(x, y), jnp.subtract(x, y), jnp.multiply(x, y), jnp.divide(x, y), jnp.true_divide(x, y),
                       jnp.negative(x), jnp.positive(y)),
         two_floats),
    Case("integer_arithmetic",
         "fn integer_arithmetic(x, y) = (floor_divide(x, y), remainder(x, y), mod(x, y), power(x, 2), divide(x, y), float_power(x, 2), absolute(x))",
         lambda x, y: (jnp.floor_divide(x, y), jnp.remainder(x, y), jnp.mod(x, y), jnp.power(x, 2), jnp.divide(x, y),
                       jnp.float_power(x, 2), jnp.absolute(x)),
         lambda r: [ints(r, (5,), 1, 20), ints(r, (5,), 1, 7)], rtol=1e-6),
    Case("comparisons", "fn comparisons(x, y) = (equal(x, y), not_equal(x, y), less(x, y), less_equal(x, y), greater(x, y), greater_equal(x, y))",
         lambda x, y: (jnp.equal(x, y), jnp.not_equal(x, y), jnp.less(x, y), jnp.less_equal(x, y), jnp.greater(x, y),
                       jnp.greater_equal(x, y)),
         lambda r: [np.round(floats(r, (3, 4))), np.round(floats(r, (4,)))]),
    Case("logical", "fn logical(x, y) = (logical_and(x, y), logical_or(x, y), logical_xor(x, y), logical_not(x))",
         lambda x, y: (jnp.logical_and(x, y), jnp.logical_or(x, y), jnp.logical_xor(x, y), jnp.logical_not(x)),
         lambda r: [ints(r, (6,), -1, 2), ints(r, (6,), -1, 2).astype(np.float32)]),
    Case("fmax_fmin", "fn fmax_fmin(x, y) = (fmax(x, y), fmin(x, y), fmax(x, 0.5), fmin(2, y))",
         lambda x, y: (jnp.fmax(x, y), jnp.fmin(x, y), jnp.fmax(x, 0.5), jnp.fmin(2, y)),
         two_floats),
    Case("lax_named", "fn lax_named(x, y) = (lax.add(x, y), lax.sub(x, y), lax.mul(x, y), lax.neg(x), lax.lt(x, y), lax.ge(x, y), lax.eq(x, x))",
         lambda x, y: (lax.add(x, y), lax.sub(x, y), lax.mul(x, y), lax.neg(x), lax.lt(x, y), lax.ge(x, y), lax.eq(x, x)),
         lambda r: [floats(r, (4,)), floats(r, (4,))]),
    Case("add_as_a_combiner", "fn add_as_a_combiner(x) = (associative_scan(add, x), associative_scan(multiply, x, reverse=true))",
         lambda x: (lax.associative_scan(jnp.add, x), lax.associative_scan(jnp.multiply, x, reverse=True)),
         lambda r: [floats(r, (7,), special=False)], rtol=1e-5),
]
