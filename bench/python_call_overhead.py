#!/usr/bin/env python3
"""Call overhead from Python, side by side in one run: a cached scn function on a (1000,) f32
array, a jax.jit function on the same array (skipped when jax does not import), and an empty
nanobind function (the floor of any nanobind call). Prints the median time per call of each.

    PYTHONPATH=build/python python3 bench/python_call_overhead.py [--calls N] [--repeats R]
"""
import argparse
import platform
import statistics
import time

import numpy as np

import scn
from scn import _scn


def median_us(call, calls, repeats):
    """The median over `repeats` runs of the mean time of one call in a run of `calls`."""
    for _ in range(max(calls // 10, 10)):  # warm up: compile, fill caches
        call()
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        runs.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(runs)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()

    x = np.arange(1000, dtype=np.float32)
    ctx = scn.Context(backend="cpu")
    ctx.run("fn f(x) = x * 2.0 + 1.0")
    f = ctx.f  # cached: the lookup is not part of the call
    rows = [("scn (cpu, cached)", lambda: f(x))]
    try:
        import jax
        import jax.numpy as jnp

        g = jax.jit(lambda v: v * 2.0 + 1.0)
        xj = jnp.asarray(x)
        rows.append(("jax.jit, numpy input", lambda: g(x).block_until_ready()))
        rows.append(("jax.jit, jax input", lambda: g(xj).block_until_ready()))
    except ImportError:
        jax = None
    rows.append(("empty nanobind function", lambda: _scn._empty(x)))

    print(f"{cpu_model()}, Python {platform.python_version()}, numpy {np.__version__}"
          + (f", jax {jax.__version__}" if jax else ", jax not installed (its rows skipped)"))
    print(f"median of {args.repeats} runs of {args.calls} calls, f(x) = x * 2.0 + 1.0 on f32[1000]")
    results = {}
    for name, call in rows:
        results[name] = median_us(call, args.calls, args.repeats)
        print(f"  {name:28s} {results[name]:8.2f} us/call")
    if jax:
        ratio = results["scn (cpu, cached)"] / results["jax.jit, numpy input"]
        print(f"  scn / jax.jit (numpy input): {ratio:.2f}")


if __name__ == "__main__":
    main()
