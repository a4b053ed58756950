# Lifetimes: a result outlives its function and context, calls keep no references to their
# arguments, and a context is freed once nothing uses it.
import gc
import sys
import weakref

import numpy as np

import scn


def test_a_result_outlives_its_context():
    ctx = scn.Context(backend="cpu")
    ctx.run("fn f(x) = x * 3.0")
    out = ctx.f(np.arange(1000, dtype=np.float32))
    pointer = out.__array_interface__["data"][0]
    del ctx
    gc.collect()
    assert out.__array_interface__["data"][0] == pointer
    np.testing.assert_array_equal(out, np.arange(1000, dtype=np.float32) * 3)


def test_a_function_keeps_its_context_alive():
    ctx = scn.Context(backend="cpu")
    ctx.run("fn f(x) = x + 1.0")
    f = ctx.f
    ref = weakref.ref(ctx)
    del ctx
    gc.collect()
    assert ref() is not None and f.context is ref()
    np.testing.assert_array_equal(f(np.zeros(2)), [1, 1])
    del f
    gc.collect()
    assert ref() is None


def test_calls_keep_no_references():
    ctx = scn.Context(backend="cpu")
    ctx.run("fn f(x, y) = x + y")
    x = np.ones(100, np.float32)
    before = sys.getrefcount(x)
    for _ in range(100):
        out = ctx.f(x, 1.0)
    assert sys.getrefcount(x) == before
    refs = [weakref.ref(out)]
    del out
    gc.collect()
    assert refs[0]() is None  # nothing else holds a result


def test_errors_leak_no_references():
    ctx = scn.Context(backend="cpu")
    ctx.run("fn f(x, y) = x + y")
    x = np.ones(3, np.float32)
    before = sys.getrefcount(x)
    for _ in range(20):
        try:
            ctx.f(x, np.ones(4, np.float32))
        except scn.Error:
            pass
    assert sys.getrefcount(x) == before
