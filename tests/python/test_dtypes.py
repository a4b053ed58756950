# Every scn dtype in and out, layouts that need a copy, and dtypes scn does not have.
import numpy as np
import pytest

import scn

DTYPES = [np.bool_, np.int32, np.int64, np.uint32, np.uint64, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_each_dtype_round_trips(ctx, dtype):
    ctx.run("fn same(x) = x\nfn tail(x) = x[1:]")
    x = (np.arange(6) % 2 == 0) if dtype is np.bool_ else np.arange(6).astype(dtype)
    for f in (ctx.same, ctx.tail):
        out = f(x)
        assert out.dtype == x.dtype
    np.testing.assert_array_equal(ctx.same(x), x)
    np.testing.assert_array_equal(ctx.tail(x), x[1:])


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (2, 3, 4)])
def test_shapes(ctx, shape):
    ctx.run("fn twice(x) = 2.0 * x")
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    out = ctx.twice(x)
    assert out.shape == shape
    np.testing.assert_array_equal(out, 2 * x)


def test_strided_and_fortran_inputs_are_copied_correctly(ctx):
    ctx.run("fn inc(x) = x + 1.0")
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    for x in (base[:, ::2], base.T, np.asfortranarray(base), base[::-1]):
        np.testing.assert_array_equal(ctx.inc(x), x + 1)
        assert ctx.last_copied_input_bytes == x.size * 8


@pytest.mark.parametrize("dtype", [np.int16, np.int8])
def test_unsupported_dtype_is_a_type_error(ctx, dtype):
    ctx.run("fn same(x) = x")
    with pytest.raises(TypeError, match="scn takes bool, int32, int64, uint32, uint64, bfloat16, float16, float32, "
                                        "float64, complex64 or complex128"):
        ctx.same(np.zeros(2, dtype))


def test_half_precision_arrays_compute_in_f32_and_round_once(ctx):
    # bf16 comes and goes as ml_dtypes.bfloat16 (JAX's), f16 as NumPy's float16; each op rounds
    # its f32 result to the format, so a sum of bf16 is the f32 sum rounded once.
    import ml_dtypes  # scripts/ensure-python.sh installs it
    ctx.run("fn f(x) = (x * 3.0 + 1.0, sum(x), f32(x))")
    for dtype in (ml_dtypes.bfloat16, np.float16):
        x = np.array([0.1, 1.5, -2.25, 1000.0], dtype=dtype)
        y, s, wide = ctx.f(x)
        assert y.dtype == dtype and s.dtype == dtype and wide.dtype == np.float32
        x32 = x.astype(np.float32)
        np.testing.assert_array_equal(wide, x32)
        expected = ((x32 * 3).astype(dtype).astype(np.float32) + 1).astype(dtype)
        np.testing.assert_array_equal(y.astype(np.float32), expected.astype(np.float32))
        assert s.astype(np.float32) == np.float32(x32.sum()).astype(dtype).astype(np.float32)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_arrays_round_trip(ctx, dtype):
    ctx.run("fn f(z) = (z * 1j + conj(z), abs(z))")
    z = np.array([1 + 2j, -0.5 + 0.25j, 3j], dtype=dtype)
    w, a = ctx.f(z)
    assert w.dtype == dtype and a.dtype == np.real(z).dtype
    np.testing.assert_allclose(w, z * 1j + np.conj(z), rtol=1e-6)
    np.testing.assert_allclose(a, np.abs(z), rtol=1e-6)


def test_objects_that_are_not_arrays(ctx):
    ctx.run("fn same(x) = x")
    with pytest.raises(TypeError, match="argument 1 of `same`"):
        ctx.same({"a": 1})
    with pytest.raises(ValueError, match="does not fit in 64 bits"):
        ctx.same(2 ** 70)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fourier_transforms_match_numpy(ctx, dtype):
    ctx.run("fn spectra(x) = (fft.rfft(x), fft.fft2(x, norm=\"ortho\"), fft.irfft(fft.rfft(x), n=7))")
    x = np.random.default_rng(3).standard_normal((3, 7)).astype(dtype)
    r, f2, back = ctx.spectra(x)
    complex_type = np.complex64 if dtype == np.float32 else np.complex128
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert r.dtype == complex_type and f2.dtype == complex_type and back.dtype == dtype
    np.testing.assert_allclose(r, np.fft.rfft(x), rtol=tol, atol=tol)
    np.testing.assert_allclose(f2, np.fft.fft2(x, norm="ortho"), rtol=tol, atol=tol)
    np.testing.assert_allclose(back, x, rtol=tol, atol=tol)


def test_complex_linear_algebra_and_derivatives_match_numpy(ctx):
    ctx.run("""
fn solved(a, b) = (solve(a, b), eigh(a @ conj(transpose(a)))[0], svd(a, compute_uv=false))
fn descent(w, x, y) = grad(|v| sum(abs(x @ v - y) ** 2))(w)
""")
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4)) + 3 * np.eye(4)).astype(np.complex128)
    b = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(np.complex128)
    x, w, sv = ctx.solved(a, b)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(sv, np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a @ a.conj().T), rtol=1e-10)
    # jax.grad's convention: d/dre - i d/dim of the real loss, 2 x^H (x w - y) here
    xm = (rng.standard_normal((5, 4)) + 1j * rng.standard_normal((5, 4))).astype(np.complex128)
    y = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex128)
    g = ctx.descent(b, xm, y)
    np.testing.assert_allclose(g, np.conj(2 * xm.conj().T @ (xm @ b - y)), rtol=1e-10)
