# The seed workloads (W1 matmul loop, W2 scan/vmap, W3 geometric progression) written in JAX,
# timed like bench/scn_bench: compile once, warm up, median of >= 5 runs; one JSON record a line.
"""Usage: python3 bench/jax_bench.py [--quick] [--cap N] [--runs N] [--only W1,...,D]

Prints one JSON object per measurement on stdout:
  {"sys": "jax", "workload": "W1", "variant": "scan", "size": "16x256x256",
   "ms": median, "runs": n, "compile_ms": c, "peak_bytes": p}
peak_bytes is the increase of the process's resident memory during one call (sampled every
0.5 ms by a thread), i.e. what %memit calls the increment.
"""
import json
import math
import os
import sys
import threading
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # W3 is f64; W1 and W2 ask for f32 explicitly
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
import jax.scipy.linalg  # noqa: E402,F401  (group K)

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class PeakSampler:
    """Peak resident-set increase over a `with` block (a thread polls /proc/self/statm)."""

    def __enter__(self):
        self.base = rss()
        self.peak = self.base
        self.stop = False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()
        return self

    def _run(self):
        while not self.stop:
            self.peak = max(self.peak, rss())
            time.sleep(0.0005)

    def __exit__(self, *exc):
        self.peak = max(self.peak, rss())
        self.stop = True
        self.t.join()
        self.increment = self.peak - self.base


def measure(fn, args, runs, min_time=0.0, first_peak=None):
    """Compile time (lower + compile), then the median wall time of `runs` calls after one
    warm-up call; returns (median_ms, runs, compile_ms). With a list as first_peak, the warm-up
    call's resident increment is appended to it: the first call's, before any buffer of this
    executable was freed and could be reused (what the later calls need comes from memory the
    process already holds, which the increment of a later call would not count)."""
    t0 = time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile()
    compile_ms = (time.perf_counter() - t0) * 1e3
    if first_peak is None:
        jax.block_until_ready(compiled(*args))  # warm-up
    else:
        first_peak.append(peak_of(compiled, args))
    times = []
    start = time.perf_counter()
    while len(times) < runs or (time.perf_counter() - start < min_time and len(times) < 200):
        t = time.perf_counter()
        jax.block_until_ready(compiled(*args))
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return times[len(times) // 2], len(times), compile_ms, compiled


def emit(workload, variant, size, ms, runs, compile_ms, peak=None, **extra):
    rec = {"sys": "jax", "workload": workload, "variant": variant, "size": size, "ms": ms,
           "runs": runs, "compile_ms": compile_ms, **extra}
    if peak is not None:
        rec["peak_bytes"] = peak
    print(json.dumps(rec), flush=True)


def peak_of(compiled, args):
    with PeakSampler() as s:
        out = jax.block_until_ready(compiled(*args))
    del out
    return s.increment


# ---- W1 (seed 000): x = sqrt(x @ x) sixteen times ----
REPS = 16


def mat_loop(x):
    for _ in range(REPS):
        x = jnp.sqrt(jnp.matmul(x, x))
    return x


def mat_scan(x):
    return lax.scan(lambda c, _: (jnp.sqrt(jnp.matmul(c, c)), None), x, None, length=REPS)[0]


def mat_scan2(x):
    def step(c, _):
        y = jnp.sqrt(jnp.matmul(c, c))
        return jnp.sqrt(jnp.matmul(y, y)), None
    return lax.scan(step, x, None, length=REPS // 2)[0]


# ---- W2 (seed 001): sin(x ** 2 + 1) as scan(vmap) and vmap(scan) ----
def f(x):
    return jnp.sin(x ** 2 + 1)


def scan_vmap_f(xs):
    return lax.scan(lambda c, x: (c, jax.vmap(f)(x)), (), xs)[1]


def vmap_scan_f(xs):
    return jax.vmap(lambda x: lax.scan(lambda c, xi: (c, f(xi)), (), x)[1])(xs)


# ---- W3 (seed 004): geometric progression of n f64 ----
def gp(n, x0, a):
    _, xs = lax.scan(lambda c, _: (a * c, a * c), x0, None, length=n - 1)
    return jnp.concatenate((x0[None], xs))


def gp_xs(steps, x0, a):
    _, xs = lax.scan(lambda c, _: (a * c, a * c), x0, steps)
    return jnp.concatenate((x0[None], xs))


def gp_cumprod(n, x0, a):
    return jnp.cumprod(jnp.concatenate((x0[None], jnp.full((n - 1,), a, dtype=jnp.float64))))


# ---- associative_scan with user combiners (scn_bench.cpp: running_lse, last_nonzero) ----
def running_lse(x):
    return lax.associative_scan(lambda a, b: jnp.maximum(a, b) + jnp.log1p(jnp.exp(-jnp.abs(a - b))), x)


def last_nonzero(x):
    return lax.associative_scan(lambda a, b: jnp.where(b != 0.0, b, a), x)


def linear_recurrence(a, b):
    return lax.associative_scan(lambda p, q: (p[0] * q[0], q[0] * p[1] + q[1]), (a, b))[1]


# ---- elementwise math maps (scn_bench.cpp: erf_map, arctan2_map) ----
def erf_map(x):
    return jax.lax.erf(x)


def arctan2_map(y, x):
    return jnp.arctan2(y, x)


# ---- loop overhead: a scalar-carry scan ----
def scalar_scan(x0, n):
    return lax.scan(lambda c, _: (c * 1.0000001 + 1e-7, None), x0, None, length=n)[0]


# ---- group D (issue 18): reverse mode through scans; the same programs as bench/autodiff.scn ----
def d_pattern(shape, lo, hi, dtype=jnp.float32):
    """bench/autodiff.scn's d_pattern: an integer pattern, exact in f32 and f64."""
    n = math.prod(shape)
    return jnp.reshape(((jnp.arange(n, dtype=jnp.int32) * 37) % 101).astype(dtype) / 101.0 * (hi - lo) + lo, shape)


def d_w1_forward(x):
    return jnp.sum(lax.scan(lambda c, _: (jnp.sqrt(jnp.matmul(c, c)), None), x, None, length=REPS)[0])


def d_gru_loss(params, tokens):
    emb, wx, wh, b, wo, bo = params
    h_size = wh.shape[0]

    def step(h, tok):
        gx = emb[tok] @ wx + b
        gh = h @ wh
        z = jax.nn.sigmoid(gx[:, :h_size] + gh[:, :h_size])
        r = jax.nn.sigmoid(gx[:, h_size:2 * h_size] + gh[:, h_size:2 * h_size])
        n = jnp.tanh(gx[:, 2 * h_size:] + r * gh[:, 2 * h_size:])
        h1 = (1.0 - z) * n + z * h
        return h1, h1
    _, hs = lax.scan(step, jnp.zeros((tokens.shape[1], h_size), jnp.float32), tokens[:-1])
    logits = hs @ wo + bo
    targets = jax.nn.one_hot(tokens[1:], wo.shape[1], dtype=jnp.float32)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * targets, axis=-1))


def d_gru_step(params, tokens):
    loss, g = jax.value_and_grad(d_gru_loss)(params, tokens)
    return tuple(p - 0.1 * gp for p, gp in zip(params, g)), loss


def d_gru_check(params, tokens):
    g = jax.grad(d_gru_loss)(params, tokens)
    return sum(jnp.sum(x) for x in g[:4]) + jnp.sum(g[4] * g[4]) + jnp.sum(g[5] * g[5])


def d_gru_params(v, h):
    return (d_pattern((v, h), -0.5, 0.5), d_pattern((h, 3 * h), -0.06, 0.06), d_pattern((h, 3 * h), -0.06, 0.06),
            jnp.zeros(3 * h, jnp.float32), d_pattern((h, v), -0.06, 0.06), jnp.zeros(v, jnp.float32))


def d_gru_tokens(t, b, v):
    return jnp.reshape((jnp.arange((t + 1) * b, dtype=jnp.int32) * 7919) % v, (t + 1, b))


def d_gp_forward(x0, a, n):
    _, xs = lax.scan(lambda c, _: (a * c, a * c), x0, None, length=n - 1)
    return jnp.sum(jnp.concatenate((x0[None], xs)))


def d_tuple_step(w, c, x):
    return tuple(jnp.tanh(w * c[i] + 0.5 * c[(i + 1) % 64] + x) for i in range(64))


def d_tuple_forward(w, c0, xs):
    c, _ = lax.scan(lambda c, x: (d_tuple_step(w, c, x), None), c0, xs)
    return sum(c[i] * (1.0 + 0.01 * i) for i in range(64))


def d_tuple_check(w, c0, xs):
    gw, gc = jax.grad(d_tuple_forward, argnums=(0, 1))(w, c0, xs)
    return gw + sum(gc)


def d_long_step(c, x):
    return c + 0.01 * jnp.sin(c) + x, None


def d_long_forward(c0, xs):
    return jnp.sum(lax.scan(d_long_step, c0, xs)[0])


def d_long_sqrt_loss(c0, xs):
    """scn's checkpoints="sqrt" written the way JAX users do it: an outer scan over k segments of
    L = ceil(n / k) steps whose inner scan is jax.checkpoint-ed (it stores only the carry entering
    each segment), the shorter last segment as a checkpointed scan of its own."""
    n = xs.shape[0]
    k = math.ceil(math.sqrt(n))
    seg = math.ceil(n / k)
    full = n // seg
    inner = jax.checkpoint(lambda c, x: (lax.scan(d_long_step, c, x)[0], None))
    c, _ = lax.scan(inner, c0, jnp.reshape(xs[:full * seg], (full, seg) + xs.shape[1:]))
    if full * seg < n:
        c, _ = inner(c, xs[full * seg:])
    return jnp.sum(c)


def autodiff_rows(runs, quick):
    """Group D (issue 18), as autodiffRows in bench/scn_bench.cpp: each row's forward function and
    its gradient, with their peaks and the gradient's check scalar."""
    def row(name, size, args, variants):
        for variant, fn, check in variants:
            peak = []
            ms, k, c, compiled = measure(fn, args, runs, 0.3, first_peak=peak)
            extra = {} if check is None else {"check": float(jax.jit(check)(*args))}
            mem = compiled.memory_analysis()  # XLA's buffer plan: temporaries and the result
            if mem is not None:
                extra["plan_bytes"] = mem.temp_size_in_bytes + mem.output_size_in_bytes
            emit("D", f"{name}: {variant}", size, ms, k, c, peak[0], **extra)
            del compiled

    b, m = (4, 64) if quick else (16, 256)
    x = d_pattern((b, m, m), 0.0, 1.0)
    row("W1 scan", f"{b}x{m}x{m} f32", (x,),
        (("forward", d_w1_forward, None),
         ("grad", jax.grad(d_w1_forward), lambda x: jnp.sum(jax.grad(d_w1_forward)(x)))))
    del x

    t, b, h, v = (16, 4, 32, 64) if quick else (128, 32, 256, 256)
    p, tk = d_gru_params(v, h), d_gru_tokens(t, b, v)
    row("GRU LM", f"T={t} B={b} H={h} V={v}", (p, tk),
        (("loss", d_gru_loss, None), ("training step", d_gru_step, d_gru_check)))
    del p, tk

    lg = 12 if quick else 20
    x0, a = jnp.array(1.0, jnp.float64), jnp.array(1.00000001, jnp.float64)
    gp_grad = lambda x0, a: jax.grad(lambda a: d_gp_forward(x0, a, 2**lg))(a)
    row("W3 gp", f"2^{lg} f64", (x0, a),
        (("forward", lambda x0, a: d_gp_forward(x0, a, 2**lg), None), ("grad wrt a", gp_grad, gp_grad)))

    steps = 100 if quick else 10000
    w = jnp.array(0.7, jnp.float32)
    c0 = tuple(jnp.array(0.01 * i - 0.3, jnp.float32) for i in range(64))
    xs = d_pattern((steps,), -0.5, 0.5)
    row("64-scalar carry", f"{steps} steps f32", (w, c0, xs),
        (("forward", d_tuple_forward, None),
         ("grad", jax.grad(d_tuple_forward, argnums=(0, 1)), d_tuple_check)))
    del xs

    steps, m = (100, 100) if quick else (1000, 1000)
    c0, xs = d_pattern((m, m), -1.0, 1.0), d_pattern((steps,), -0.1, 0.1)
    row("long scan", f"{steps} steps of {m}x{m} f32", (c0, xs),
        (("forward", d_long_forward, None),
         ("grad stored", jax.grad(d_long_forward), lambda c0, xs: jnp.sum(jax.grad(d_long_forward)(c0, xs))),
         ("grad sqrt", jax.grad(d_long_sqrt_loss), lambda c0, xs: jnp.sum(jax.grad(d_long_sqrt_loss)(c0, xs)))))
    del c0, xs


def w2_cells(cap):
    for b1 in (100, 1000, 5000):
        for b2 in (100, 1000, 5000):
            for length in (1, 10, 100):
                if b1 * b2 * length <= cap:
                    yield b1, b2, length


def main():
    argv = sys.argv[1:]
    quick = "--quick" in argv
    cap = int(float(argv[argv.index("--cap") + 1])) if "--cap" in argv else 10**8
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 5
    only = argv[argv.index("--only") + 1].split(",") if "--only" in argv else ["W1", "W2", "W3", "A", "M", "G", "L", "X", "K", "D"]

    if "W1" in only:
        shape = (4, 64, 64) if quick else (16, 256, 256)
        x = jax.random.uniform(jax.random.PRNGKey(0), shape, dtype=jnp.float32)
        size = "x".join(map(str, shape))
        for name, fn in (("unrolled", mat_loop), ("scan", mat_scan), ("scan2", mat_scan2)):
            ms, n, c, _ = measure(fn, (x,), runs, 0.5)
            emit("W1", name, size, ms, n, c)
        ms, n, c, _ = measure(mat_scan, (x.astype(jnp.bfloat16),), runs, 0.5)  # issue 21: the carry in bf16
        emit("W1", "scan bf16", size, ms, n, c)

    if "W2" in only:
        for b1, b2, length in w2_cells(10**6 if quick else cap):
            xs = jax.random.normal(jax.random.PRNGKey(0), (b1, b2, length), dtype=jnp.float32)
            size = f"{b1}x{b2}x{length}"
            for name, fn in (("scan(vmap)", scan_vmap_f), ("vmap(scan)", vmap_scan_f)):
                ms, n, c, _ = measure(fn, (xs,), runs, 0.3)
                emit("W2", name, size, ms, n, c)
            del xs

    if "W3" in only:
        n = 2**16 if quick else 2**26
        x0 = jnp.array(1.0, dtype=jnp.float64)
        a = jnp.array(1.0 + 1e-8, dtype=jnp.float64)
        size = f"2^{n.bit_length() - 1}"
        steps = jnp.arange(1, n, dtype=jnp.uint64)
        variants = (
            ("xs=None", lambda x0, a: gp(n, x0, a), (x0, a)),
            ("xs array", gp_xs, (steps, x0, a)),
            ("cumprod", lambda x0, a: gp_cumprod(n, x0, a), (x0, a)),
        )
        for name, fn, args in variants:
            ms, k, c, compiled = measure(fn, args, runs)
            emit("W3", name, size, ms, k, c, peak_of(compiled, args))
        del steps

    if "A" in only:
        n = 2**16 if quick else 2**22
        k1, k2 = jax.random.split(jax.random.PRNGKey(7))
        f32 = jnp.float32  # explicit: W3 turns on x64, which makes uniform's default f64
        x = jnp.where(jax.random.uniform(k1, (n,), dtype=f32) < 0.5, jax.random.uniform(k2, (n,), dtype=f32), 0.0)
        assert x.dtype == f32
        decay = jax.random.uniform(jax.random.PRNGKey(9), (n,), dtype=f32) * 0.1 + 0.9
        for name, fn, args in (("logaddexp", running_lse, (x,)), ("last nonzero", last_nonzero, (x,)),
                               ("linear recurrence", linear_recurrence, (decay, x))):
            ms, k, c, _ = measure(fn, args, runs, 0.3)
            emit("A", name, f"2^{n.bit_length() - 1}", ms, k, c)
        del x, decay

    if "M" in only:
        n = 2**16 if quick else 2**24
        f32 = jnp.float32
        x = jax.random.normal(jax.random.PRNGKey(11), (n,), dtype=f32) * 2.0
        y = jax.random.normal(jax.random.PRNGKey(12), (n,), dtype=f32)
        for name, fn, args in (("erf", erf_map, (x,)), ("arctan2", arctan2_map, (y, x))):
            ms, k, c, _ = measure(fn, args, runs, 0.3)
            emit("M", name, f"2^{n.bit_length() - 1}", ms, k, c)
        del x, y
    if "G" in only:  # issue 16: gather, scatter-add histogram, in-place scan (bench/scn_bench.cpp)
        table, points, steps = (18, 16, 12) if quick else (24, 22, 16)
        k1, k2, k3 = jax.random.split(jax.random.PRNGKey(3), 3)
        t = jax.random.normal(k1, (2**table,), dtype=jnp.float32)
        i = jax.random.randint(k2, (2**points,), 0, 2**table, dtype=jnp.int32)
        v = jax.random.randint(k3, (2**points,), 0, 4096, dtype=jnp.int32)
        fill = lambda t0, xs: lax.scan(lambda c, k: (c.at[k].set(k % 7), None), t0, xs)[0]
        for name, size, fn, args in (
                ("gather", f"2^{points} of 2^{table}", lambda t, i: t[i], (t, i)),
                ("scatter-add histogram", f"2^{points} into 2^12",
                 lambda v: jnp.zeros(4096, jnp.int32).at[v].add(1), (v,)),
                ("scan .at[k].set", f"2^{steps} steps", fill,
                 (jnp.zeros(2**steps, jnp.int32), jnp.arange(2**steps, dtype=jnp.int32)))):
            ms, k, c, _ = measure(fn, args, runs, 0.3)
            emit("G", name, size, ms, k, c)
        del t, i, v

    if "L" in only:
        n = 10**6
        x0 = jnp.array(1.0, dtype=jnp.float32)
        ms, k, c, _ = measure(lambda x: scalar_scan(x, n), (x0,), runs)
        emit("L", "scalar scan", f"{n}", ms, k, c)
        # compile time of a scan of length 10 vs 1000 (issue 7: at most 1.2x)
        for length in (10, 1000):
            ms, k, c, _ = measure(lambda x, length=length: scalar_scan(x, length), (x0,), runs)
            emit("L", f"compile len {length}", f"{length}", ms, k, c)

    if "X" in only:  # sorting (issue 16): jnp.sort / jnp.argsort of 2^22 uniform f32
        n = 2**16 if quick else 2**22
        x = jax.random.uniform(jax.random.PRNGKey(11), (n,), dtype=jnp.float32)
        for name, fn in (("sort f32", jnp.sort), ("argsort f32", jnp.argsort)):
            ms, k, c, _ = measure(fn, (x,), runs, 0.3)
            emit("X", name, f"2^{n.bit_length() - 1}", ms, k, c)
        del x

    if "K" in only:  # issue 17: einsum attention (8, 512, 64) f32; layer norm (4096, 1024) f32;
        # cholesky / solve of (16, 256, 256) f64; rfft of 2^22 f32, fft of (256, 4096) c64 rows
        n, t, rows = (64, 128, 512) if quick else (256, 512, 4096)
        ks = jax.random.split(jax.random.PRNGKey(21), 5)
        q, k, v = (jax.random.normal(kk, (8, t, 64), dtype=jnp.float32) for kk in ks[:3])
        m = jax.random.normal(ks[3], (16, n, n), dtype=jnp.float64)
        a = m @ jnp.swapaxes(m, 1, 2) + n * jnp.eye(n, dtype=jnp.float64)
        b = jax.random.normal(ks[4], (16, n, 16), dtype=jnp.float64)
        x = jax.random.normal(jax.random.PRNGKey(26), (rows, 1024), dtype=jnp.float32)
        points, fft_rows = (16, 16) if quick else (22, 256)
        signal = jax.random.normal(jax.random.PRNGKey(27), (2**points,), dtype=jnp.float32)
        rows_c = jax.lax.complex(jax.random.normal(jax.random.PRNGKey(28), (fft_rows, 4096), dtype=jnp.float32),
                                 jax.random.normal(jax.random.PRNGKey(29), (fft_rows, 4096), dtype=jnp.float32))

        def layer_norm(x):
            return (x - jnp.mean(x, axis=-1, keepdims=True)) / jnp.sqrt(jnp.var(x, axis=-1, keepdims=True) + 1e-5)

        def attention(q, k, v):
            return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(jnp.einsum("bqd,bkd->bqk", q, k) * 0.125), v)

        def cho_solve(a, b):
            l = jnp.linalg.cholesky(a)
            y = jax.scipy.linalg.solve_triangular(l, b, lower=True)
            return jax.scipy.linalg.solve_triangular(l, y, lower=True, trans=1)
        img = 8 if quick else 32
        cx = jax.random.normal(jax.random.PRNGKey(30), (img, 28, 28, 32), dtype=jnp.float32)
        cw = 0.1 * jax.random.normal(jax.random.PRNGKey(31), (3, 3, 32, 64), dtype=jnp.float32)

        def conv(x, w):
            return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

        def conv_grad(x, w):
            return jax.grad(lambda a, b: jnp.sum(conv(a, b) ** 2), argnums=(0, 1))(x, w)
        mats = f"16x{n}x{n} f64"
        for name, size, fn, args in (("einsum attention", f"8x{t}x64", attention, (q, k, v)),
                                     ("layer norm", f"{rows}x1024", layer_norm, (x,)),
                                     ("cholesky", mats, jnp.linalg.cholesky, (a,)),
                                     ("solve (16 rhs)", mats, jnp.linalg.solve, (a, b)),
                                     ("cholesky + triangular solves", mats, cho_solve, (a, b)),
                                     ("rfft f32", f"2^{points}", jnp.fft.rfft, (signal,)),
                                     ("fft c64 rows", f"{fft_rows}x4096", jnp.fft.fft, (rows_c,)),
                                     ("conv 3x3", f"{img}x28x28x32 -> 64", conv, (cx, cw)),
                                     ("conv 3x3 grad", f"{img}x28x28x32 -> 64", conv_grad, (cx, cw))):
            ms, kk, c, _ = measure(fn, args, runs, 0.3)
            emit("K", name, size, ms, kk, c)
        del q, k, v, x, a, b, signal, rows_c, cx, cw

    if "D" in only:  # issue 18: reverse mode through scans (bench/autodiff.scn)
        autodiff_rows(runs, quick)


if __name__ == "__main__":
    main()
