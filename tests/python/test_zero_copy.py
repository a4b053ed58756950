# Zero copies: contiguous inputs are borrowed, results are NumPy arrays over scn's own buffers,
# and arrays cross through DLPack both ways.
import numpy as np

import scn


def data_pointer(a):
    return a.__array_interface__["data"][0]


def test_contiguous_inputs_are_not_copied(ctx):
    ctx.run("fn axpy(a, x, y) = a * x + y")
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, dtype=np.float32)
    ctx.axpy(2.0, x, y)
    assert ctx.last_copied_input_bytes == 0
    ctx.axpy(2.0, x[::2], y[::2])  # a strided view has to be gathered
    assert ctx.last_copied_input_bytes == 2 * 500 * 4


def test_results_own_scns_buffer(ctx):
    ctx.run("fn pair(x) = (x * 2.0, x + 1.0)")
    a, b = ctx.pair(np.arange(1000, dtype=np.float32))
    assert [data_pointer(a), data_pointer(b)] == ctx.last_result_pointers
    assert a.flags.writeable and not a.flags.owndata  # nothing else has the buffer
    assert a.base is not None  # the owner of scn's buffer
    a[0] = 42.0
    assert a[0] == 42.0 and b[0] == 1.0


def test_shared_buffers_are_read_only(ctx):
    ctx.run("let g = arange(3)\nfn global_g(x) = g\nfn twice(x) { let y = x + 1.0; (y, y) }")
    assert not ctx.global_g(1.0).flags.writeable  # the global's own buffer
    y1, y2 = ctx.twice(np.ones(3))
    assert not y1.flags.writeable and not y2.flags.writeable
    assert ctx.global_g(1.0).tolist() == [0, 1, 2]


def test_results_expose_dlpack(ctx):
    ctx.run("fn inc(x) = x + 1.0")
    out = ctx.inc(np.zeros(16, np.float32))
    assert out.__dlpack_device__() == (1, 0)  # kDLCPU
    again = np.from_dlpack(out)
    assert data_pointer(again) == data_pointer(out)


class OnlyDLPack:
    """An array that offers nothing but the DLPack protocol (like a foreign framework's)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_inputs_are_borrowed(ctx):
    ctx.run("fn total(x) = sum(x)")
    x = np.arange(100, dtype=np.float64)
    assert ctx.total(OnlyDLPack(x)) == x.sum()
    assert ctx.last_copied_input_bytes == 0


def test_a_result_passed_back_is_borrowed(ctx):
    ctx.run("fn inc(x) = x + 1.0")
    y = ctx.inc(ctx.inc(np.zeros(1000, np.float32)))
    assert ctx.last_copied_input_bytes == 0
    assert y[0] == 2.0
