#!/usr/bin/env bash
# The benchmark suite in one command: builds scn (Release, build-release/) and bench/scn_bench,
# installs jax if it is missing, runs the seed workloads on scn and on JAX in one run, and
# prints one table (also written to build-release/bench-results.md).
#
#   bench/run.sh                 # full run (W2 capped at 10^7 elements per cell: ~10 minutes)
#   bench/run.sh --cap 1e8       # W2 up to 10^8 elements (much longer: JAX's scans are slow)
#   bench/run.sh --quick         # small sizes, a smoke test (~1 minute)
#   bench/run.sh --only W1,L     # some parts: P (probes), W1, W2, W3, A (associative_scan), L (loop overhead), S (issue 4)
#   bench/run.sh --runs 9        # more timed runs (at least 5; medians are reported)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SCN_BENCH_BUILD:-$ROOT/build-release}
ARGS=("$@")
if [[ " $* " != *" --cap "* && " $* " != *" --quick "* ]]; then ARGS+=(--cap 1e7); fi

if [[ ! -f $BUILD/build.ninja ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCN_TESTS=OFF -DSCN_WITH_CUDA=OFF >/dev/null
fi
if grep -q "scn_bench" "$BUILD/build.ninja"; then  # the top level has add_subdirectory(bench)
  cmake --build "$BUILD" --target scn scn_bench -j2
  BENCH=$BUILD/bench/scn_bench
else                                               # standalone: link build-release's libraries
  cmake --build "$BUILD" --target scn -j2
  if [[ ! -f $BUILD/bench-standalone/build.ninja ]]; then
    cmake -S "$ROOT/bench" -B "$BUILD/bench-standalone" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DSCN_BUILD_DIR="$BUILD" >/dev/null
  fi
  cmake --build "$BUILD/bench-standalone" -j2
  BENCH=$BUILD/bench-standalone/scn_bench
fi
if ! python3 -c "import jax" 2>/dev/null; then python3 -m pip install --quiet jax; fi

OUT=$BUILD/bench-out
mkdir -p "$OUT"
echo "scn_bench ${ARGS[*]} ..." >&2
"$BENCH" --source-dir "$ROOT" "${ARGS[@]}" >"$OUT/scn.jsonl"
echo "jax_bench ${ARGS[*]} ..." >&2
JAX_PLATFORMS=cpu python3 "$ROOT/bench/jax_bench.py" "${ARGS[@]}" >"$OUT/jax.jsonl"
{
  echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(lscpu | sed -n 's/^Model name: *//p' | head -1)," \
    "$(nproc) cores; LLVM $(llvm-config-19 --version 2>/dev/null || echo 19)," \
    "OpenBLAS $(dpkg-query -W -f='${Version}' libopenblas0-pthread 2>/dev/null || echo '?')," \
    "jax $(python3 -c 'import jax; print(jax.__version__)'); arguments: ${ARGS[*]}"
  echo
  python3 "$ROOT/bench/report.py" "$OUT/scn.jsonl" "$OUT/jax.jsonl"
} | tee "$BUILD/bench-results.md"
