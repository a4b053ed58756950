# Joins bench/scn_bench's and bench/jax_bench.py's JSON records into the table of
# docs/PERFORMANCE.md (markdown), with the goal ratios of issues 4 and 7 computed from them.
"""Usage: python3 bench/report.py SCN.jsonl JAX.jsonl [SCN_BUSY.jsonl JAX_BUSY.jsonl]"""
import json
import math
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


def slowdowns(scn, jax, scn_load, jax_load, goals):
    """The table of t(one busy core) / t(idle) for scn and JAX, and the goal rows of issue 21."""
    key = lambda r: (r["workload"], r["variant"], r["size"])
    idle = {("scn",) + key(r): r for r in scn if r["sys"] == "scn"}
    idle.update({("jax",) + key(r): r for r in jax})
    busy = {("scn",) + key(r): r for r in scn_load if r["sys"] == "scn"}
    busy.update({("jax",) + key(r): r for r in jax_load})
    rows, worst = [], {}
    for r in scn_load:
        if r["sys"] != "scn" or not r.get("ms"):
            continue
        k = key(r)
        si, ji, jb = idle.get(("scn",) + k), idle.get(("jax",) + k), busy.get(("jax",) + k)
        s_slow = r["ms"] / si["ms"] if si and si.get("ms") else None
        j_slow = jb["ms"] / ji["ms"] if ji and jb else None
        f = lambda v: "-" if v is None else f"{v:.2f}"
        rows.append([k[0], k[1], k[2], ms(r["ms"]), f(s_slow), ms(jb["ms"]) if jb else "-", f(j_slow)])
        if s_slow and j_slow:
            w = worst.setdefault(k[0], [0, ""])
            if s_slow / j_slow > w[0]:
                worst[k[0]] = [s_slow / j_slow, f"{k[1]} {k[2]}: scn {s_slow:.2f}, JAX {j_slow:.2f}"]
    if rows:
        print("Under one busy core (a spinning child process; slowdown = t(busy) / t(idle run above)):\n")
        table(["workload", "variant", "size", "scn ms busy", "scn slowdown", "JAX ms busy",
               "JAX slowdown"], rows)
    for w in ("W1", "W2", "W3"):
        if w in worst:
            goals.append([f"{w} under one busy core: scn slowdown <= JAX slowdown (worst cell)",
                          worst[w][1]])


def autodiff(scn, jax, goals):
    """Group D (issue 18): each gradient against its forward function, scn and JAX side by side."""
    key = lambda r: (r["variant"], r["size"])
    jx = {key(r): r for r in jax if r["workload"] == "D"}
    rows_of = {}
    for r in scn:
        if r["sys"] == "scn" and r["workload"] == "D":
            name, variant = r["variant"].split(": ", 1)
            rows_of.setdefault((name, r["size"]), []).append((variant, r, jx.get(key(r), {})))
    rows = []
    f2 = lambda v: "-" if v is None else f"{v:.2f}"
    for (name, size), vs in rows_of.items():
        fwd = next(((r, j) for v, r, j in vs if v in ("forward", "loss")), None)
        if fwd is None:
            continue
        for variant, r, j in vs:
            sr, jr = r.get("ms"), j.get("ms")
            ratio = jr / sr if sr and jr else None
            if r is fwd[0]:
                rows.append([name, variant, size, ms(sr), ms(jr), f2(ratio), "-", "-",
                             mib(r.get("peak_bytes")), mib(j.get("peak_bytes")),
                             mib(r.get("plan_bytes")), mib(j.get("plan_bytes")), "-"])
                continue
            s_gf = sr / fwd[0]["ms"] if sr and fwd[0].get("ms") else None
            j_gf = jr / fwd[1]["ms"] if jr and fwd[1].get("ms") else None
            agree = "-"
            if "check" in r and "check" in j:
                agree = f'{abs(r["check"] - j["check"]) / max(abs(j["check"]), 1e-300):.1e}'
            rows.append([name, variant, size, ms(sr), ms(jr), f2(ratio), f2(s_gf), f2(j_gf),
                         mib(r.get("peak_bytes")), mib(j.get("peak_bytes")),
                         mib(r.get("plan_bytes")), mib(j.get("plan_bytes")), agree])
            goals.append([f"D {name} {variant}: t_JAX / t_scn >= 1.5; gradient / forward <= 3",
                          f"{f2(ratio)}; {f2(s_gf)} (JAX {f2(j_gf)})"])
            if variant == "grad stored" and r.get("peak_bytes") is not None and j.get("peak_bytes") is not None:
                goals.append([f"D {name}: stored-residual gradient peak <= JAX's (resident; buffer plan)",
                              f'{r["peak_bytes"] / 2**20:.0f} MiB vs {j["peak_bytes"] / 2**20:.0f} MiB; '
                              f'{mib(r.get("plan_bytes"))} MiB vs {mib(j.get("plan_bytes"))} MiB'])
            if variant == "grad sqrt":
                stored = next((x for v, x, _ in vs if v == "grad stored"), None)
                steps, _, _, dims, _ = size.split(" ")  # "1000 steps of 1000x1000 f32"
                carry = 4
                for d in dims.split("x"):
                    carry *= int(d)
                limit = 3 * math.sqrt(int(steps)) * carry
                if r.get("peak_bytes"):
                    goals.append([f'D {name}: checkpoints="sqrt" peak <= 3 sqrt(n) carries ({limit / 2**20:.0f} MiB)',
                                  f'{r["peak_bytes"] / 2**20:.0f} MiB = {r["peak_bytes"] / carry:.1f} carries'])
                if stored and stored.get("ms") and sr:
                    goals.append([f'D {name}: checkpoints="sqrt" time <= 2 x stored', f'{sr / stored["ms"]:.2f}'])
    if rows:
        print("Autodiff (issue 18, group D; medians; JAX/scn = t_JAX / t_scn; grad/fwd = the gradient's "
              "time over the forward function's on the same system; peak = resident increment of one "
              "call (JAX: its first), scn without recycled blocks; plan = the static buffer plan (scn's RunStats, XLA's memory_analysis temporaries + result); agree = |check_scn - check_JAX| / |check_JAX| of a "
              "scalar of the gradient):\n")
        table(["row", "variant", "size", "scn ms", "JAX ms", "JAX/scn", "scn grad/fwd", "JAX grad/fwd",
               "scn peak MiB", "JAX peak MiB", "scn plan MiB", "JAX plan MiB", "agree"], rows)


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
        if r["sys"] not in ("scn", "c++") or r["workload"] not in ("W1", "W2", "W3", "A", "M", "L"):
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

    rows = []
    for r in scn:  # the groups of issues 16 and 17 (G, X, K, ...): scn beside JAX, one row each
        if r["sys"] != "scn" or r["workload"] in ("W1", "W2", "W3", "A", "M", "L", "D", "S"):
            continue
        j = jx.get(key(r), {})
        ratio = j["ms"] / r["ms"] if j.get("ms") and r.get("ms") else None
        rows.append([r["workload"], r["variant"], r["size"], ms(r.get("ms")), ms(j.get("ms")),
                     "-" if ratio is None else f"{ratio:.2f}", ms(r.get("compile_ms")), ms(j.get("compile_ms"))])
    if rows:
        print("Library workloads, scn vs JAX (medians; JAX/scn = t_JAX / t_scn, > 1: scn faster):\n")
        table(["group", "variant", "size", "scn ms", "JAX ms", "JAX/scn", "scn compile ms", "JAX compile ms"], rows)

    goals = []
    w1 = {r["variant"]: r for r in scn if r["sys"] == "scn" and r["workload"] == "W1"}
    if "scan" in w1 and "unrolled" in w1:
        goals.append(["W1 t(scan)/t(unrolled) <= 1.05", f'{w1["scan"]["ms"] / w1["unrolled"]["ms"]:.3f}'])
        goals.append(["W1 t(scan2)/t(unrolled)", f'{w1["scan2"]["ms"] / w1["unrolled"]["ms"]:.3f}'])
        goals.append(["W1 scan bytes copied = 0", f'{w1["scan"].get("copied_bytes", 0):.0f}'])
        sgemm = [p for v, p in probes.items() if v.startswith("sgemm")]
        if sgemm:
            best = max(sgemm, key=lambda p: p["value"])
            b, n, _ = map(int, w1["scan"]["size"].split("x"))
            for v in ("unrolled", "scan", "scan2"):
                gflops = 16 * 2 * b * n ** 3 / (w1[v]["ms"] * 1e6)
                goals.append([f"W1 {v} GEMM rate / best standalone sgemm probe >= 0.8",
                              f'{gflops / best["value"]:.2f} ({gflops:.1f} of {best["value"]:.1f} GFLOP/s '
                              f'({best["variant"]}), sqrt included)'])
    for v in ("unrolled", "scan", "scan2"):
        r, j = by.get(("scn", "W1", v)), None
        if r:
            j = jx.get(("W1", v, r["size"]))
        if r and j:
            goals.append([f"W1 {v} t_JAX / t_scn >= 1.5", f'{j["ms"] / r["ms"]:.2f}'])
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
    autodiff(scn, jax, goals)
    if len(sys.argv) > 4:
        slowdowns(scn, jax, load(sys.argv[3]), load(sys.argv[4]), goals)
    if goals:
        print("Goals (issues 7, 18 and 21), computed from the rows above:\n")
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
