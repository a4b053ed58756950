"""The programs of benchmark group D (bench/autodiff.scn and bench/jax_bench.py, issue 18) at
small sizes: the gradients the benchmark times must be JAX's. Both sides import the benchmark's
own definitions, so these cases test the very functions that are timed."""
import importlib.util
import pathlib

import jax
import numpy as np

from case import Case, floats, ints

_spec = importlib.util.spec_from_file_location(
    "jax_bench", pathlib.Path(__file__).resolve().parents[3] / "bench" / "jax_bench.py")
jb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jb)

# Imported once per session: the first case's import defines every d_* function for the others.
IMPORT = 'import "../../../bench/autodiff.scn"\n'


def normal(r, shape, scale=1.0, dtype=np.float32):
    return floats(r, shape, dtype=dtype, special=False, scale=scale)


def gru_inputs(r, t=5, b=3, h=8, v=16):
    return [normal(r, (v, h), 0.5), normal(r, (h, 3 * h), 0.3), normal(r, (h, 3 * h), 0.3),
            normal(r, (3 * h,), 0.1), normal(r, (h, v), 0.3), normal(r, (v,), 0.1), ints(r, (t + 1, b), 0, v)]


def gru_step(*args):
    params, loss = jb.d_gru_step(args[:6], args[6])
    return tuple(params) + (loss,)


def tuple_grad(w, xs):
    c0 = tuple(np.float32(0.01 * i - 0.3) for i in range(64))
    gw, gc = jax.grad(jb.d_tuple_forward, argnums=(0, 1))(w, c0, xs)
    return (gw,) + tuple(gc)


CASES = [
    Case("bench_w1_grad", IMPORT + "fn bench_w1_grad(x) = d_w1_grad(x)", jax.grad(jb.d_w1_forward),
         lambda r: [np.abs(normal(r, (2, 8, 8), 0.5))], rtol=1e-4),
    Case("bench_gru_step",
         "fn bench_gru_step(emb, wx, wh, b, wo, bo, tokens) {\n"
         "  let (p, loss) = d_gru_grad((emb, wx, wh, b, wo, bo), tokens)\n"
         "  (p.0, p.1, p.2, p.3, p.4, p.5, loss)\n"
         "}", gru_step, gru_inputs, rtol=1e-5, atol=1e-6),
    Case("bench_gp_grad", "fn bench_gp_grad(x0, a) = d_gp_grad(x0, a, 64)",
         lambda x0, a: jax.grad(lambda a: jb.d_gp_forward(x0, a, 64))(a),
         lambda r: [np.float64(1.0 + 0.1 * r.standard_normal()), np.float64(1.0 + 0.01 * r.standard_normal())],
         rtol=1e-12, x64=True),
    Case("bench_tuple_grad", "fn bench_tuple_grad(w, xs) = { let (gw, gc) = d_tuple_grad(w, d_tuple_init(), xs); (gw,) + gc }",
         tuple_grad, lambda r: [np.float32(0.7), normal(r, (20,), 0.5)], rtol=1e-5, atol=1e-6),
    Case("bench_long_grad", "fn bench_long_grad(c0, xs) = (d_long_grad(c0, xs), d_long_sqrt_grad(c0, xs))",
         lambda c0, xs: (jax.grad(jb.d_long_forward)(c0, xs), jax.grad(jb.d_long_sqrt_loss)(c0, xs)),
         lambda r: [normal(r, (6, 6)), normal(r, (20,), 0.1)], rtol=1e-5, atol=1e-6),
]
