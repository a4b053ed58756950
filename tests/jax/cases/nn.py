"""jax.nn basics: relu, gelu (both forms), silu, softplus, log_sigmoid, one_hot, and softmax,
log_softmax and logsumexp over axes. Tolerances: 2e-6 relative for the activations (f32 libm
differences in tanh, erf, exp, log1p), 1e-5 for the normalisations (sums of exps), 1e-13 for the
f64 cases."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case, floats


def acts(r, dtype=np.float32):
    x = np.concatenate([r.uniform(-30, 30, 40), r.standard_normal(20),
                        [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, 80.0, -80.0]])  # exp(-80) is normal in f32: XLA flushes denormals
    return [x.astype(dtype)]


CASES = [
    Case("relu_f32", "fn relu_f32(x) = relu(x)", jax.nn.relu, acts),
    Case("relu_int", "fn relu_int(x) = relu(x)", jax.nn.relu,
         lambda r: [r.integers(-10, 10, size=(9,)).astype(np.int32)]),
    # 1 + tanh(z) cancels for x < -3: an ulp of tanh (XLA's and libm's differ by one) is an
    # absolute error of ~6e-8 |x| there, hence the atol.
    Case("gelu_tanh", "fn gelu_tanh(x) = gelu(x)", jax.nn.gelu, acts, rtol=2e-6, atol=5e-7),
    Case("gelu_exact", "fn gelu_exact(x) = gelu(x, approximate=false)",
         lambda x: jax.nn.gelu(x, approximate=False), acts, rtol=2e-6, atol=1e-7),
    Case("gelu_f64", "fn gelu_f64(x) = (gelu(x), gelu(x, approximate=false))",
         lambda x: (jax.nn.gelu(x), jax.nn.gelu(x, approximate=False)),
         lambda r: acts(r, np.float64), rtol=1e-13, atol=1e-300, x64=True),
    Case("silu_f32", "fn silu_f32(x) = silu(x)", jax.nn.silu, acts, rtol=2e-6),
    Case("softplus_f32", "fn softplus_f32(x) = softplus(x)", jax.nn.softplus, acts, rtol=2e-6),
    Case("log_sigmoid_f32", "fn log_sigmoid_f32(x) = log_sigmoid(x)", jax.nn.log_sigmoid, acts, rtol=2e-6),
    Case("softplus_f64", "fn softplus_f64(x) = (softplus(x), log_sigmoid(x), silu(x))",
         lambda x: (jax.nn.softplus(x), jax.nn.log_sigmoid(x), jax.nn.silu(x)),
         lambda r: acts(r, np.float64), rtol=1e-13, x64=True),
    Case("one_hot_last", "fn one_hot_last(x) = one_hot(x, 5)", lambda x: jax.nn.one_hot(x, 5),
         lambda r: [np.array([[0, 4, 2], [-1, 5, 3]], dtype=np.int32)]),
    Case("one_hot_axis0", "fn one_hot_axis0(x) = one_hot(x, 4, dtype=i32, axis=0)",
         lambda x: jax.nn.one_hot(x, 4, dtype=jnp.int32, axis=0),
         lambda r: [np.array([[0, 3, 2], [1, 7, 3]], dtype=np.int32)]),
    Case("one_hot_middle", "fn one_hot_middle(x) = one_hot(x, 3, dtype=bool, axis=1)",
         lambda x: jax.nn.one_hot(x, 3, dtype=jnp.bool_, axis=1),
         lambda r: [np.array([[0, 1], [2, 0]], dtype=np.int32)]),
    Case("softmax_last", "fn softmax_last(x) = softmax(x)", jax.nn.softmax,
         lambda r: [floats(r, (4, 6), special=False, scale=10.0)], rtol=1e-5),
    Case("softmax_axes", "fn softmax_axes(x) = (softmax(x, axis=0), softmax(x, axis=None), softmax(x, axis=(0, 2)))",
         lambda x: (jax.nn.softmax(x, axis=0), jax.nn.softmax(x, axis=None), jax.nn.softmax(x, axis=(0, 2))),
         lambda r: [floats(r, (3, 4, 5), special=False, scale=5.0)], rtol=1e-5),
    Case("softmax_special", "fn softmax_special(x) = softmax(x)", jax.nn.softmax,
         lambda r: [np.array([[1.0, -np.inf, 2.0], [np.inf, 0.0, 1.0], [np.nan, 1.0, 0.0], [-1e30, 1e30, 0.0]],
                             dtype=np.float32)], rtol=1e-5),
    Case("log_softmax_axes", "fn log_softmax_axes(x) = (log_softmax(x), log_softmax(x, axis=0))",
         lambda x: (jax.nn.log_softmax(x), jax.nn.log_softmax(x, axis=0)),
         lambda r: [floats(r, (5, 6), special=False, scale=20.0)], rtol=1e-5, atol=1e-5),
    Case("logsumexp_axis", "fn logsumexp_axis(x) = (logsumexp(x, axis=1), logsumexp(x, axis=0, keepdims=true), "
         "logsumexp(x, axis=(0, 1)))",
         lambda x: (jax.nn.logsumexp(x, axis=1), jax.nn.logsumexp(x, axis=0, keepdims=True),
                    jax.nn.logsumexp(x, axis=(0, 1))),
         lambda r: [floats(r, (4, 7), special=False, scale=30.0)], rtol=1e-5),
    Case("logsumexp_special", "fn logsumexp_special(x) = logsumexp(x, axis=1)",
         lambda x: jax.nn.logsumexp(x, axis=1),
         lambda r: [np.array([[-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 0.0], [1e30, 1e30], [-np.inf, 3.0]],
                             dtype=np.float32)], rtol=1e-6),
    Case("softmax_f64", "fn softmax_f64(x) = (softmax(x), log_softmax(x), logsumexp(x, axis=-1))",
         lambda x: (jax.nn.softmax(x), jax.nn.log_softmax(x), jax.nn.logsumexp(x, axis=-1)),
         lambda r: [floats(r, (3, 8), np.float64, special=False, scale=10.0)], rtol=1e-13, atol=1e-15, x64=True),
]
