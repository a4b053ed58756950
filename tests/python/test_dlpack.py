# DLPack both ways: NumPy's and JAX's arrays in without a copy, scn's results out to
# np.from_dlpack / jax.dlpack sharing scn's buffer, versioned (DLPack 1.x) and plain capsules.
import numpy as np
import pytest

import scn


def data_pointer(a):
    return a.__array_interface__["data"][0]


class Versioned:
    """Offers only DLPack 1.x capsules: __dlpack__ must be asked with max_version."""

    def __init__(self, array):
        self._array = array
        self.asked = []

    def __dlpack__(self, *, max_version=None, **kwargs):
        self.asked.append(max_version)
        if max_version is None or max_version[0] < 1:
            raise BufferError("this producer makes DLPack 1.x tensors only")
        return self._array.__dlpack__(max_version=max_version, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_numpy_from_dlpack_of_a_result_shares_the_buffer(ctx):
    ctx.run("fn grid(static n) = reshape(arange(n * n), (n, n))")
    out = ctx.grid(4)
    again = np.from_dlpack(out)
    assert data_pointer(again) == data_pointer(out) == ctx.last_result_pointers[0]
    assert again.dtype == np.int32 and again.shape == (4, 4)
    assert again[3, 3] == 15
    del out  # the consumer keeps scn's buffer alive
    assert again.sum() == sum(range(16))


def test_versioned_tensors_are_taken_without_a_copy(ctx):
    ctx.run("fn total(x) = sum(x)")
    x = np.arange(1000, dtype=np.float32)
    producer = Versioned(x)
    assert ctx.total(producer) == x.sum()
    assert ctx.last_copied_input_bytes == 0
    assert any(v is not None and v[0] >= 1 for v in producer.asked)


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64, np.uint32, np.uint64, np.float16, np.float32,
                                   np.float64])
def test_every_scn_dtype_crosses_dlpack(ctx, dtype):
    ctx.run("fn same(x) = x")
    x = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
    out = np.from_dlpack(ctx.same(np.from_dlpack(x)))
    assert out.dtype == x.dtype and out.tolist() == x.tolist()


def test_other_dtypes_name_the_ones_scn_takes(ctx):
    ctx.run("fn same(x) = x")
    with pytest.raises(TypeError, match=r"argument 1 of `same` has dtype int16; scn takes bool, int32, int64, "
                                        r"uint32, uint64, bfloat16, float16, float32, float64, complex64 or complex128"):
        ctx.same(np.from_dlpack(np.zeros(3, np.int16)))


def test_jax_arrays_are_inputs_without_a_copy(ctx):
    jnp = pytest.importorskip("jax.numpy")
    ctx.run("fn axpy(a, x, y) = a * x + y")
    x = jnp.arange(1000, dtype=jnp.float32)
    y = jnp.ones(1000, dtype=jnp.float32)
    out = ctx.axpy(2.0, x, y)
    assert ctx.last_copied_input_bytes == 0
    np.testing.assert_array_equal(out, 2.0 * np.arange(1000, dtype=np.float32) + 1.0)
    ctx.run("fn same(x) = x")
    for v in [jnp.array([True, False]), jnp.arange(3, dtype=jnp.int32), jnp.zeros((2, 2), jnp.float32)]:
        got = ctx.same(v)
        assert got.dtype == np.dtype(v.dtype) and got.tolist() == np.asarray(v).tolist()


def test_results_go_to_jax_through_dlpack(ctx):
    jax = pytest.importorskip("jax")
    ctx.run("fn f(x) = x * 3.0")
    out = ctx.f(np.arange(256, dtype=np.float32))
    back = jax.dlpack.from_dlpack(out)
    np.testing.assert_array_equal(np.asarray(back), 3.0 * np.arange(256, dtype=np.float32))
    # scn's buffers are 64-byte aligned, so JAX's CPU client can alias them.
    assert back.unsafe_buffer_pointer() == data_pointer(out)
