"""jnp.fft: the transforms fft ifft rfft irfft, fft2 ifft2 rfft2 irfft2, fftn ifftn rfftn irfftn,
hfft ihfft (n=, s=, axis=, axes=, norm=), fftshift ifftshift, and the sample frequencies fftfreq and rfftfreq
(Note [FFT ops] in jit/fft.hpp, Note [FFT builtins] in lang/builtins_fft.cpp).

Inputs of the transforms are finite: a NaN or an infinity spreads to every output, but which
outputs come out NaN and which infinite depends on the library's order of operations (FFTW,
ducc), so no case compares them. Tolerances: FFTW and ducc both round as O(log n) adds per
output, so f32 results agree to about 1e-6 of the largest output; rtol 1e-5 plus an atol of 1e-4
(of outputs of size ~10) for the terms that cancel to near zero; f64 1e-12."""
import jax
import jax.numpy as jnp
import numpy as np

from case import Case, ints

def cplx(r, shape, dtype=np.complex64):
    return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dtype)


def real(r, shape, dtype=np.float32):
    return r.standard_normal(shape).astype(dtype)


F32 = dict(rtol=1e-5, atol=1e-4)
F64 = dict(rtol=1e-12, atol=1e-12, x64=True)


def case(name, body, jax_fn, inputs, tol=F32):
    params = ", ".join(f"x{i}" for i in range(len(inputs(np.random.default_rng(0)))))
    return Case(name, f"fn {name}({params}) = {body}", jax_fn, inputs, **tol)


TRANSFORMS = [
    case("fft_c64", "fft.fft(x0)", jnp.fft.fft, lambda r: [cplx(r, (4, 12))]),
    case("fft_pow2", "fft.fft(x0)", jnp.fft.fft, lambda r: [cplx(r, (64,))]),
    case("fft_prime", "fft(x0)", jnp.fft.fft, lambda r: [cplx(r, (2, 37))]),
    case("fft_real_input", "fft.fft(x0)", jnp.fft.fft, lambda r: [real(r, (16,))]),
    case("fft_int_input", "fft.fft(x0)", jnp.fft.fft, lambda r: [ints(r, (3, 10))]),
    case("fft_n_pad", "fft.fft(x0, n=10)", lambda x: jnp.fft.fft(x, n=10), lambda r: [real(r, (7,))]),
    case("fft_n_crop_axis0", "fft.fft(x0, n=5, axis=0)", lambda x: jnp.fft.fft(x, n=5, axis=0),
         lambda r: [cplx(r, (9, 3))]),
    case("fft_empty_batch", "fft.fft(x0)", jnp.fft.fft, lambda r: [cplx(r, (0, 8))]),
    case("fft_ortho", "fft.fft(x0, norm=\"ortho\")", lambda x: jnp.fft.fft(x, norm="ortho"), lambda r: [cplx(r, (20,))]),
    case("fft_forward", "fft.fft(x0, norm=\"forward\")", lambda x: jnp.fft.fft(x, norm="forward"),
         lambda r: [cplx(r, (20,))]),
    case("ifft_axis0", "fft.ifft(x0, axis=0)", lambda x: jnp.fft.ifft(x, axis=0), lambda r: [cplx(r, (6, 3))]),
    case("ifft_ortho", "ifft(x0, norm=\"ortho\")", lambda x: jnp.fft.ifft(x, norm="ortho"), lambda r: [cplx(r, (3, 9))]),
    case("ifft_forward", "ifft(x0, norm=\"forward\")", lambda x: jnp.fft.ifft(x, norm="forward"),
         lambda r: [cplx(r, (3, 9))]),
    case("rfft_pow2", "fft.rfft(x0)", jnp.fft.rfft, lambda r: [real(r, (2, 64))]),
    case("rfft_odd", "rfft(x0)", jnp.fft.rfft, lambda r: [real(r, (45,))]),
    case("rfft_n_axis", "fft.rfft(x0, n=6, axis=1)", lambda x: jnp.fft.rfft(x, n=6, axis=1), lambda r: [real(r, (2, 9, 3))]),
    case("rfft_f64", "fft.rfft(x0)", jnp.fft.rfft, lambda r: [real(r, (256,), np.float64)], F64),
    case("fft_c128", "fft.fft(x0)", jnp.fft.fft, lambda r: [cplx(r, (3, 30), np.complex128)], F64),
    case("irfft_default", "fft.irfft(x0)", jnp.fft.irfft, lambda r: [cplx(r, (3, 9))]),
    case("irfft_n_odd", "irfft(x0, n=15)", lambda x: jnp.fft.irfft(x, n=15), lambda r: [cplx(r, (8,))]),
    case("irfft_n_pad_axis0", "fft.irfft(x0, n=12, axis=0)", lambda x: jnp.fft.irfft(x, n=12, axis=0),
         lambda r: [cplx(r, (4, 2))]),
    case("irfft_f64", "fft.irfft(x0)", jnp.fft.irfft, lambda r: [cplx(r, (33,), np.complex128)], F64),
    case("irfft_real_input", "fft.irfft(x0)", jnp.fft.irfft, lambda r: [real(r, (5,))]),
    case("fft2_ortho", "fft.fft2(x0, norm=\"ortho\")", lambda x: jnp.fft.fft2(x, norm="ortho"), lambda r: [cplx(r, (5, 6))]),
    case("ifft2_s", "fft.ifft2(x0, s=(4, 8))", lambda x: jnp.fft.ifft2(x, s=(4, 8)), lambda r: [real(r, (3, 5))]),
    case("rfft2_batch", "fft.rfft2(x0)", jnp.fft.rfft2, lambda r: [real(r, (2, 6, 10))]),
    case("irfft2_s", "fft.irfft2(x0, s=(6, 8))", lambda x: jnp.fft.irfft2(x, s=(6, 8)), lambda r: [cplx(r, (6, 5))]),
    case("fftn_3d", "fft.fftn(x0)", jnp.fft.fftn, lambda r: [cplx(r, (3, 4, 5))]),
    case("ifftn_axes", "fft.ifftn(x0, axes=(0, 2))", lambda x: jnp.fft.ifftn(x, axes=(0, 2)), lambda r: [cplx(r, (4, 3, 6))]),
    case("fftn_s_last", "fft.fftn(x0, s=(6,))", lambda x: jnp.fft.fftn(x, s=(6,)), lambda r: [cplx(r, (2, 4))]),
    case("rfftn_forward", "fft.rfftn(x0, norm=\"forward\")", lambda x: jnp.fft.rfftn(x, norm="forward"),
         lambda r: [real(r, (4, 6, 8))]),
    case("irfftn_3d", "fft.irfftn(x0)", jnp.fft.irfftn, lambda r: [cplx(r, (4, 5, 5))]),
    case("hfft_default", "fft.hfft(x0)", jnp.fft.hfft, lambda r: [cplx(r, (3, 6))]),
    case("hfft_n_ortho", "fft.hfft(x0, n=9, norm=\"ortho\")", lambda x: jnp.fft.hfft(x, n=9, norm="ortho"),
         lambda r: [cplx(r, (5,))]),
    case("ihfft_axis0", "fft.ihfft(x0, axis=0)", lambda x: jnp.fft.ihfft(x, axis=0), lambda r: [real(r, (7, 2))]),
    case("ihfft_forward", "ihfft(x0, norm=\"forward\")", lambda x: jnp.fft.ihfft(x, norm="forward"),
         lambda r: [real(r, (10,))]),
    case("fftshift_all", "fft.fftshift(x0)", jnp.fft.fftshift, lambda r: [real(r, (5, 6))], dict(rtol=0.0)),
    case("fftshift_axis", "fft.fftshift(x0, axes=0)", lambda x: jnp.fft.fftshift(x, axes=0), lambda r: [ints(r, (5, 3))],
         dict(rtol=0.0)),
    case("ifftshift_odd", "fft.ifftshift(x0)", jnp.fft.ifftshift, lambda r: [real(r, (7,))], dict(rtol=0.0)),
    case("ifftshift_axes", "fft.ifftshift(x0, axes=(0, 1))", lambda x: jnp.fft.ifftshift(x, axes=(0, 1)),
         lambda r: [cplx(r, (3, 5))], dict(rtol=0.0)),
]

# Exactly JAX's bits: k / (d * n) in f32 (f64 with x64) for even, odd, one-point and empty n.
CASES = [
    Case("fftfreq_even", "fn fftfreq_even() = fft.fftfreq(8)", lambda: jnp.fft.fftfreq(8), lambda r: [], rtol=0.0),
    Case("fftfreq_odd_spacing", "fn fftfreq_odd_spacing() = fft.fftfreq(7, d=0.1)",
         lambda: jnp.fft.fftfreq(7, d=0.1), lambda r: [], rtol=0.0),
    Case("fftfreq_one", "fn fftfreq_one() = fft.fftfreq(1)", lambda: jnp.fft.fftfreq(1), lambda r: [], rtol=0.0),
    Case("fftfreq_empty", "fn fftfreq_empty() = fft.fftfreq(0)", lambda: jnp.fft.fftfreq(0), lambda r: [], rtol=0.0),
    Case("fftfreq_f64", "fn fftfreq_f64() = fft.fftfreq(10, d=0.3, dtype=f64)",
         lambda: jnp.fft.fftfreq(10, d=0.3, dtype=jnp.float64), lambda r: [], x64=True, rtol=0.0),
    Case("rfftfreq_even", "fn rfftfreq_even() = fft.rfftfreq(8, d=2.5)", lambda: jnp.fft.rfftfreq(8, d=2.5),
         lambda r: [], rtol=0.0),
    Case("rfftfreq_odd", "fn rfftfreq_odd() = fft.rfftfreq(9)", lambda: jnp.fft.rfftfreq(9), lambda r: [], rtol=0.0),
    Case("rfftfreq_one", "fn rfftfreq_one() = rfftfreq(1)", lambda: jnp.fft.rfftfreq(1), lambda r: [], rtol=0.0),
    # derivatives through the transforms (session 16, Note [Complex derivatives]): jvp and grad
    # of fft / ifft / rfft / irfft and the 2-d forms, even and odd lengths, against jax.grad
    Case("grad_fft", "fn grad_fft(z) = grad(|a| sum(abs(fft.fft(a) * arange(6)) ** 2) + real(sum(fft.ifft(a * a))))(z)",
         lambda z: jax.grad(lambda a: jnp.sum(jnp.abs(jnp.fft.fft(a) * jnp.arange(6)) ** 2) + jnp.real(jnp.sum(jnp.fft.ifft(a * a))))(z),
         lambda r: [cplx(r, (2, 6))], **F32),
    Case("grad_rfft_irfft", "fn grad_rfft_irfft(x) = grad(|a| sum(abs(fft.rfft(a)) * arange(4)) + sum(sin(fft.irfft(fft.rfft(a) * 1j, n=7))))(x)",
         lambda x: jax.grad(lambda a: jnp.sum(jnp.abs(jnp.fft.rfft(a)) * jnp.arange(4)) + jnp.sum(jnp.sin(jnp.fft.irfft(jnp.fft.rfft(a) * 1j, n=7))))(x),
         lambda r: [real(r, (3, 7))], **F32),
    Case("grad_irfft_even", "fn grad_irfft_even(z) = grad(|a| sum(fft.irfft(a) * arange(8.0)))(z)",
         lambda z: jax.grad(lambda a: jnp.sum(jnp.fft.irfft(a) * jnp.arange(8.0)))(z), lambda r: [cplx(r, (5,))], **F32),
    Case("grad_fft2_ortho", "fn grad_fft2_ortho(x) = grad(|a| sum(real(fft.fft2(a, norm=\"ortho\")) ** 3))(x)",
         lambda x: jax.grad(lambda a: jnp.sum(jnp.real(jnp.fft.fft2(a, norm="ortho")) ** 3))(x), lambda r: [real(r, (4, 5))], **F32),
    Case("jvp_rfft", "fn jvp_rfft(x, t) = jvp(|a| fft.rfft(a, n=6), (x,), (t,))",
         lambda x, t: jax.jvp(lambda a: jnp.fft.rfft(a, n=6), (x,), (t,)), lambda r: [real(r, (5,)), real(r, (5,))], **F32),
] + TRANSFORMS
