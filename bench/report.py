# Joins bench/scn_bench's and bench/jax_bench.py's JSON records into the table of
# docs/PERFORMANCE.md (markdown), with the goal ratios of issues 4 and 7 computed from them.
"""Usage: python3 bench/report.py SCN.jsonl JAX.jsonl"""
import json
import sys


def load(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                out.append(json.loads(line))
    return out


def ms(v):
    if v is None:
        return "-"
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def mib(v):
    return "-" if v is None else f"{v / 2**20:.1f}"


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    print()


def main():
    scn = load(sys.argv[1])
    jax = load(sys.argv[2]) if len(sys.argv) > 2 else []
    key = lambda r: (r["workload"], r["variant"], r["size"])
    jx = {key(r): r for r in jax}
    probes = {r["variant"]: r for r in scn if r["sys"] == "probe"}
    by = {(r["sys"],) + key(r): r for r in scn}

    if probes:
        print("Reference probes (same run):\n")
        table(["probe", "size", "value"],
              [[p["variant"], p["size"], f'{p["value"]:.1f} {p["unit"]}'] for p in probes.values()])

    rows = []
    for r in scn:
        if r["sys"] not in ("scn", "c++") or r["workload"] not in ("W1", "W2", "W3", "A", "L"):
            continue
        if r["sys"] == "c++":  # the hand-written baseline of the same arithmetic
            rows.append([r["workload"], "C++ " + r["variant"], r["size"], ms(r.get("ms"))] + ["-"] * 8)
            continue
        j = jx.get(key(r), {})
        ratio = j["ms"] / r["ms"] if j.get("ms") and r.get("ms") else None
        rows.append([r["workload"], r["variant"], r["size"], ms(r.get("ms")), ms(j.get("ms")),
                     "-" if ratio is None else f"{ratio:.2f}", ms(r.get("compile_ms")),
                     ms(j.get("compile_ms")), mib(r.get("peak_bytes")), mib(j.get("peak_bytes")),
                     r.get("kernels", "-"), mib(r.get("copied_bytes"))])
    if rows:
        print("Seed workloads, scn vs JAX (medians; ratio = t_JAX / t_scn, > 1: scn faster; peak = "
              "resident increment of one call in MiB):\n")
        table(["workload", "variant", "size", "scn ms", "JAX ms", "JAX/scn", "scn compile ms",
               "JAX compile ms", "scn peak MiB", "JAX peak MiB", "scn kernels", "scn copied MiB"], rows)

    goals = []
    w1 = {r["variant"]: r for r in scn if r["sys"] == "scn" and r["workload"] == "W1"}
    if "scan" in w1 and "unrolled" in w1:
        goals.append(["W1 t(scan)/t(unrolled) <= 1.05", f'{w1["scan"]["ms"] / w1["unrolled"]["ms"]:.3f}'])
        goals.append(["W1 t(scan2)/t(unrolled)", f'{w1["scan2"]["ms"] / w1["unrolled"]["ms"]:.3f}'])
        goals.append(["W1 scan bytes copied = 0", f'{w1["scan"].get("copied_bytes", 0):.0f}'])
        if "OpenBLAS sgemm" in probes:
            b, n, _ = map(int, w1["scan"]["size"].split("x"))
            gflops = 16 * 2 * b * n ** 3 / (w1["scan"]["ms"] * 1e6)
            goals.append(["W1 scan GEMM rate / standalone OpenBLAS >= 0.8",
                          f'{gflops / probes["OpenBLAS sgemm"]["value"]:.2f} ({gflops:.1f} GFLOP/s, sqrt included)'])
    w2 = [r for r in scn if r["sys"] == "scn" and r["workload"] == "W2"]
    cells = {}
    for r in w2:
        cells.setdefault(r["size"], {})[r["variant"]] = r
    worst_order, behind, small_l = 1.0, [], []
    bw_rows = []
    for size, c in cells.items():
        if "scan(vmap)" in c and "vmap(scan)" in c:
            a, b = c["scan(vmap)"]["ms"], c["vmap(scan)"]["ms"]
            worst_order = max(worst_order, max(a, b) / min(a, b))
        elems = 1
        for d in size.split("x"):
            elems *= int(d)
        for v, r in c.items():
            j = jx.get(("W2", v, size))
            if j and j["ms"] / r["ms"] < 1.0:
                behind.append(f"{v} {size}")
            if j and size.endswith("x1") and j["ms"] / r["ms"] < 1.5:
                small_l.append(f"{v} {size} ({j['ms'] / r['ms']:.2f})")
            if elems >= 10**7:
                gbs = 8 * elems / (r['ms'] * 1e6)
                copy = probes.get("memcpy, all cores", {}).get("value")
                frac = f" ({gbs / copy:.2f} of copy)" if copy else ""
                bw_rows.append(f"{v} {size}: {gbs:.1f} GB/s{frac}")
    if cells:
        goals.append(["W2 worst order ratio <= 1.10", f"{worst_order:.2f}"])
        goals.append(["W2 cells where JAX is ahead", ", ".join(behind) or "none"])
        goals.append(["W2 L=1 cells with JAX/scn < 1.5", ", ".join(small_l) or "none"])
        if "memcpy, all cores" in probes:
            goals.append([f'W2 read+write GB/s from 10^7 elements (copy probe {probes["memcpy, all cores"]["value"]:.1f})',
                          "; ".join(bw_rows) or "-"])
    for r in scn:
        if r["sys"] == "scn" and r["workload"] == "W3" and r.get("peak_bytes"):
            lg = int(r["size"].split("^")[1])
            goals.append([f'W3 {r["variant"]} peak / result <= 1.05', f'{r["peak_bytes"] / (8 * 2 ** lg):.2f}'])
    w3 = {(r["sys"], r["variant"]): r for r in scn if r["workload"] == "W3"}
    cum, loop = w3.get(("scn", "cumprod")), w3.get(("c++", "serial loop"))
    if cum and loop:
        fresh = w3.get(("c++", "serial loop, new buffer"))
        goals.append(["W3 cumprod (blocked parallel scan) / C++ serial loop into a warm buffer",
                      f'{cum["ms"] / loop["ms"]:.2f}' +
                      (f'; into a new buffer: {cum["ms"] / fresh["ms"]:.2f}' if fresh else "")])
    lo = {r["variant"]: r for r in scn if r["sys"] == "scn" and r["workload"] == "L"}
    if "scalar scan" in lo:
        goals.append(["scalar-carry scan ns/iteration <= 10",
                      f'{lo["scalar scan"]["ms"] * 1e6 / int(lo["scalar scan"]["size"]):.1f}'])
    if "compile len 10" in lo and "compile len 1000" in lo:
        goals.append(["compile(len 1000) / compile(len 10) <= 1.2",
                      f'{lo["compile len 1000"]["compile_ms"] / lo["compile len 10"]["compile_ms"]:.2f}'])
    comp = [r.get("compile_ms", 0) for r in scn if r["sys"] == "scn" and r["workload"] in ("W1", "W2", "W3")]
    if comp:
        goals.append(["max compile ms per workload call <= 50 (a cache hit shows ~0)", f"{max(comp):.1f}"])
    if goals:
        print("Goals (issue 7), computed from the rows above:\n")
        table(["goal", "measured"], goals)

    s = [r for r in scn if r["workload"] == "S"]
    if s:
        print("Issue 4: seed arithmetic on the CPU JIT, the interpreter and hand-written C++ "
              "(-O3 -march=native; fast-math lets GCC use libmvec):\n")
        rows = []
        for r in s:
            rows.append([r["variant"], r["size"], r["sys"], ms(r.get("ms")), ms(r.get("compile_ms"))])
        table(["program", "size", "engine", "run ms", "compile ms (all calls)"], rows)
        f = {r["sys"]: r for r in s if r["variant"] == "sin(x**2+1)"}
        if "scn" in f and "c++" in f:
            print(f'sin(x**2+1): scn / plain C++ loop = {f["scn"]["ms"] / f["c++"]["ms"]:.2f} (goal <= 1.2); '
                  f'scn / fast-math C++ loop = {f["scn"]["ms"] / f["c++ fast-math"]["ms"]:.2f}\n')


if __name__ == "__main__":
    main()
