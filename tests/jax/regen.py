#!/usr/bin/env python3
"""Writes the JAX parity goldens (tests/jax/README.md): python3 tests/jax/regen.py [--check] [topic ...]"""
import argparse
import hashlib
import importlib.util
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from case import Case, flatten_outputs  # noqa: E402


def load_topic(topic: str):
    spec = importlib.util.spec_from_file_location(f"cases_{topic}", HERE / "cases" / f"{topic}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def seed_of(topic: str, name: str) -> int:
    """A seed that depends only on the case's identity, so adding a case changes no other."""
    return int.from_bytes(hashlib.sha256(f"{topic}/{name}".encode()).digest()[:8], "little")


def run_case(case: Case, jax):
    jax.config.update("jax_enable_x64", case.x64)
    inputs = [np.asarray(a) for a in case.inputs(np.random.default_rng(seed_of(run_case.topic, case.name)))]
    outputs = flatten_outputs(case.jax(*inputs))
    return inputs, outputs


def check_case(case: Case, topic: str) -> None:
    if f"fn {case.name}(" not in case.scn:
        raise SystemExit(f"{topic}/{case.name}: the scn source must define `fn {case.name}(...)`")


def regen(topic: str, jax, check: bool) -> bool:
    cases = load_topic(topic)
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise SystemExit(f"{topic}: duplicate case names")
    run_case.topic = topic
    arrays, source = {}, [f"# JAX parity goldens of tests/jax/cases/{topic}.py, written by tests/jax/regen.py"
                          f" with jax {jax.__version__}: do not edit\n"]
    for case in cases:
        check_case(case, topic)
        inputs, outputs = run_case(case, jax)
        for i, a in enumerate(inputs):
            arrays[f"{case.name}.in{i}"] = a
        for i, a in enumerate(outputs):
            arrays[f"{case.name}.out{i}"] = a
        source.append(f"# case {case.name} inputs={len(inputs)} outputs={len(outputs)} rtol={case.rtol!r} atol={case.atol!r}\n"
                      f"{case.scn.strip()}\n")
    scn_path, npz_path = HERE / "goldens" / f"{topic}.scn", HERE / "goldens" / f"{topic}.npz"
    if check:
        old = np.load(npz_path)
        # Inputs are seeded and must be identical; outputs are held to the case's own tolerance,
        # the one scn is checked with: JAX's BLAS/LAPACK results move in the last bits between
        # CPUs (an einsum or an eigh on Zen 4 with AVX-512 is not Zen 3's), which is not a stale golden.
        tolerance = {c.name: (c.rtol, c.atol) for c in cases}

        def same(k):
            a, b = old[k], arrays[k]
            if a.dtype != b.dtype or a.shape != b.shape:
                return False
            name, _, slot = k.rpartition(".")
            if slot.startswith("in") or a.dtype.kind not in "fc":
                return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
            rtol, atol = tolerance[name]
            return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)

        bad = [k for k in arrays if k not in old or not same(k)]
        bad += [k for k in old.files if k not in arrays]
        stale = scn_path.read_text() != "".join(source).replace(f"with jax {jax.__version__}", _version_in(scn_path))
        for k in bad:
            print(f"{topic}: {k} differs from the committed golden")
        if stale:
            print(f"{topic}: goldens/{topic}.scn is out of date with cases/{topic}.py")
        return not bad and not stale
    scn_path.write_text("".join(source))
    np.savez(npz_path, **arrays)
    print(f"{topic}: {len(cases)} cases -> goldens/{topic}.scn, goldens/{topic}.npz")
    return True


def _version_in(scn_path: pathlib.Path) -> str:
    first = scn_path.read_text().splitlines()[0]
    return first[first.index("with jax "):first.index(": do not edit")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare with the committed goldens, write nothing")
    parser.add_argument("topics", nargs="*", help="topics (cases/<topic>.py); all when none")
    args = parser.parse_args()
    try:
        import jax  # only the goldens' writer needs JAX
    except ImportError:
        if args.check:
            print("jax does not import here: the goldens are not rechecked (ctest counts this as skipped)")
            return 77
        raise
    topics = args.topics or sorted(p.stem for p in (HERE / "cases").glob("*.py"))
    ok = all([regen(t, jax, args.check) for t in topics])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
