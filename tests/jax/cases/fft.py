"""jnp.fft: the sample frequencies fftfreq and rfftfreq (the transforms need complex numbers)."""
import jax.numpy as jnp
import numpy as np

from case import Case

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
]
