# Round trips with NumPy and, where it imports, JAX (through DLPack both ways).
import numpy as np
import pytest

import scn


def test_numpy_round_trip(ctx):
    ctx.run("fn step(x) = 0.5 * x + 1.0")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    y = x
    for _ in range(5):
        y = ctx.step(y)  # scn's result goes back in without a copy
        assert ctx.last_copied_input_bytes == 0
    expected = x
    for _ in range(5):
        expected = np.float32(0.5) * expected + np.float32(1.0)
    np.testing.assert_allclose(np.asarray(y), expected, rtol=1e-6)
    z = np.sin(y)  # an ordinary NumPy array for NumPy
    assert z.shape == (64, 32) and z.dtype == np.float32


def test_jax_round_trip(ctx):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    ctx.run("fn step(x) = 0.5 * x + 1.0")
    xj = jnp.arange(16, dtype=jnp.float32)
    y = ctx.step(xj)  # a JAX array in, through __dlpack__
    assert isinstance(y, np.ndarray)
    back = jax.dlpack.from_dlpack(y)  # scn's result into JAX
    np.testing.assert_allclose(np.asarray(back), 0.5 * np.arange(16) + 1.0)
    np.testing.assert_allclose(np.asarray(jax.jit(lambda v: v * 2)(y)), (0.5 * np.arange(16) + 1.0) * 2)
