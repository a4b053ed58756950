"""Writes tests/programs/fft/transforms.scn: python3 make_transforms.py > transforms.scn (NumPy 2)."""
import numpy as np
def lit(a):
    a = np.asarray(a)
    if np.iscomplexobj(a):
        def c(z): return f"{z.real:.9g}{'+' if z.imag>=0 or np.isnan(z.imag) else '-'}{abs(z.imag):.9g}j"
        f = c
    else:
        f = lambda v: f"{v:.9g}" if '.' in f"{v:.9g}" or 'e' in f"{v:.9g}" else f"{v:.9g}.0"
    def rec(x):
        if x.ndim == 0: return f(x[()])
        return "[" + ", ".join(rec(e) for e in x) + "]"
    return rec(a)
rng = np.random.default_rng(7)
x5 = rng.standard_normal(5).round(3)
x6 = rng.standard_normal(6).round(3)
z7 = (rng.standard_normal(7) + 1j * rng.standard_normal(7)).round(3)
m = rng.standard_normal((3, 4)).round(3)
b = rng.standard_normal((2, 3, 5)).round(3)
lines = []
P = lines.append
P("# fft, ifft, rfft, irfft and the 2-d and n-d transforms (jnp.fft: n=, axis=, axes=, s=, norm=),")
P("# inside fns so that the cpu backend (FFTW) and cuda-emu compile them; the interpreter runs the")
P("# reference. Expected values from NumPy 2 (numpy.fft), written in as literals.")
P("fn close(a, b, tol) = max(abs(a - b)) < tol")
P("# Exact on small integers: every twiddle of n = 4 is 1, -1, i or -i.")
P("fn small(x) = (fft.fft(x), fft.rfft(x), fft.irfft(fft.rfft(x)), fft.ifft(fft.fft(x)))")
P("let s = small([1.0, 2.0, 3.0, 4.0])")
P("print(real(s.0), imag(s.0))")
P("# expect: [10.0, -2.0, -2.0, -2.0] [0.0, 2.0, 0.0, -2.0]")
P("print(s.1.dtype, s.1.shape, s.2, s.3.dtype, real(s.3))")
P("# expect: c64 (3,) [1.0, 2.0, 3.0, 4.0] c64 [1.0, 2.0, 3.0, 4.0]")
P(f"let x5 = {lit(x5)}")
P(f"let x6 = {lit(x6)}")
P(f"let z7 = {lit(z7)}")
P(f"let m = {lit(m)}")
P(f"let b = {lit(b)}")
P("# Odd and even lengths that are not powers of two (Bluestein in the reference), n= crops and pads.")
P("fn one(x5, x6, z7) = (fft.fft(x5), fft.rfft(x6), fft.ifft(z7), fft.fft(z7, n=4), fft.rfft(x5, n=8), fft.irfft(z7), fft.irfft(z7, n=5))")
P("let o = one(x5, x6, z7)")
checks = [("o.0", np.fft.fft(x5)), ("o.1", np.fft.rfft(x6)), ("o.2", np.fft.ifft(z7)), ("o.3", np.fft.fft(z7, n=4)),
          ("o.4", np.fft.rfft(x5, n=8)), ("o.5", np.fft.irfft(z7)), ("o.6", np.fft.irfft(z7, n=5))]
P("print(" + ", ".join(f"close({n}, {lit(v)}, 1e-4)" for n, v in checks) + ")")
P("# expect: " + " ".join(["true"] * len(checks)))
P("print(o.5.shape, o.6.shape, o.5.dtype)")
P(f"# expect: {tuple(np.fft.irfft(z7).shape)} {tuple(np.fft.irfft(z7, n=5).shape)} f32")
P("# Axes, norms, and the 2-d and n-d forms; b is a batch of 2 x 3 x 5.")
P("fn many(m, b) = (fft.fft(m, axis=0), fft.fft2(m, norm=\"ortho\"), fft.ifft2(m, s=(4, 2)), fft.rfft2(m), fft.irfft2(fft.rfft2(m), s=(3, 4)), fft.fftn(b), fft.rfftn(b, axes=(0, 2), norm=\"forward\"), fft.ifftn(b, axes=[1]))")
P("let k = many(m, b)")
checks = [("k.0", np.fft.fft(m, axis=0)), ("k.1", np.fft.fft2(m, norm="ortho")), ("k.2", np.fft.ifft2(m, s=(4, 2))),
          ("k.3", np.fft.rfft2(m)), ("k.4", m), ("k.5", np.fft.fftn(b)), ("k.6", np.fft.rfftn(b, axes=(0, 2), norm="forward")),
          ("k.7", np.fft.ifftn(b, axes=[1]))]
P("print(" + ", ".join(f"close({n}, {lit(v)}, 1e-4)" for n, v in checks) + ")")
P("# expect: " + " ".join(["true"] * len(checks)))
P("print(k.3.shape, k.6.shape, k.4.dtype)")
P(f"# expect: {tuple(np.fft.rfft2(m).shape)} {tuple(np.fft.rfftn(b, axes=(0, 2)).shape)} f32")
P("# f64 in, c128 out; integers convert to f32 first, as jnp.")
P("fn wide(x) = fft.fft(x)")
P(f"let x5d = array(({lit(x5)[1:-1]}), dtype=f64)  # a tuple: a list literal would round to f32 first")
P("print(wide(x5d).dtype, fft.rfft([1, 0, 0, 0]), fft.fft(x5, norm=\"ortho\").dtype)")
P("# expect: c128 [1.0+0.0j, 1.0+0.0j, 1.0+0.0j] c64")
P(f"print(close(wide(x5d), array(({lit(np.fft.fft(x5))[1:-1]}), dtype=c128), 1e-8))")
P("# expect: true")
P("# vmap over a batch equals the batched transform; fftshift and ifftshift undo each other.")
P("print(close(vmap(|r| fft.fft(r))(b), fft.fft(b), 1e-5), close(vmap(|r| fft.irfft(r, n=3, axis=0))(fft.rfft(b, axis=1)), b, 1e-5))")
P("# expect: true true")
P("print(fft.fftshift(fft.fftfreq(5)), fft.ifftshift(fft.fftshift([0, 1, 2, 3, 4])), fft.fftshift([[0, 1, 2], [3, 4, 5]], axes=1))")
P("# expect: [" + ", ".join(str(v) for v in [-0.4, -0.2, 0.0, 0.2, 0.4]) + "] [0, 1, 2, 3, 4] [[2, 0, 1], [5, 3, 4]]")
print("\n".join(lines))
