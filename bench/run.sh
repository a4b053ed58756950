#!/usr/bin/env bash
# The benchmark suite in one command: builds scn (Release, build-release/) and bench/scn_bench,
# installs jax if it is missing, runs the seed workloads on scn and on JAX in one run, and
# prints one table (also written to build-release/bench-results.md).
#
#   bench/run.sh                 # full run (W2 capped at 10^7 elements per cell: ~10 minutes)
#   bench/run.sh --cap 1e8       # W2 up to 10^8 elements (much longer: JAX's scans are slow)
#   bench/run.sh --quick         # small sizes, a smoke test (~1 minute)
#   bench/run.sh --only W1,L     # some parts: P (probes), W1, W2, W3, A (associative_scan), L (loop overhead), S (issue 4), X (sorting), D (autodiff: needs ~4.5 GB free)
#   bench/run.sh --runs 9        # more timed runs (at least 5; medians are reported)
#   bench/run.sh --no-load       # skip the second pass under one busy core
# After the idle pass, W1, W2, W3 and A run again on both systems while a child process spins on
# one core (issue 21), and the table gives each one's slowdown.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SCN_BENCH_BUILD:-$ROOT/build-release}
ARGS=()
LOADED=1
for a in "$@"; do
  if [[ $a == --no-load ]]; then LOADED=0; else ARGS+=("$a"); fi
done
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

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
OUT=$BUILD/bench-out
mkdir -p "$OUT"
echo "scn_bench ${ARGS[*]} ..." >&2
"$BENCH" --source-dir "$ROOT" "${ARGS[@]}" >"$OUT/scn.jsonl"
echo "jax_bench ${ARGS[*]} ..." >&2
JAX_PLATFORMS=cpu python3 "$ROOT/bench/jax_bench.py" "${ARGS[@]}" >"$OUT/jax.jsonl"
BUSY=()
if (( LOADED )); then
  # The parts of --only (default all) that the busy pass repeats.
  ONLY=W1,W2,W3,A
  for ((i = 0; i < ${#ARGS[@]}; i++)); do [[ ${ARGS[i]} == --only ]] && ONLY=${ARGS[i + 1]}; done
  BUSY_ONLY=$(tr , '\n' <<<"$ONLY" | grep -xE 'W1|W2|W3|A' | paste -sd, || true)
  if [[ -n $BUSY_ONLY ]]; then
    BUSY_ARGS=()
    for ((i = 0; i < ${#ARGS[@]}; i++)); do
      if [[ ${ARGS[i]} == --only ]]; then ((i += 1)); else BUSY_ARGS+=("${ARGS[i]}"); fi
    done
    BUSY_ARGS+=(--only "$BUSY_ONLY")
    bash -c 'while :; do :; done' &  # the load: one core kept busy
    SPINNER=$!
    trap 'kill $SPINNER 2>/dev/null || true' EXIT
    echo "one busy core (pid $SPINNER): scn_bench ${BUSY_ARGS[*]} ..." >&2
    "$BENCH" --source-dir "$ROOT" "${BUSY_ARGS[@]}" >"$OUT/scn-busy.jsonl"
    echo "one busy core: jax_bench ${BUSY_ARGS[*]} ..." >&2
    JAX_PLATFORMS=cpu python3 "$ROOT/bench/jax_bench.py" "${BUSY_ARGS[@]}" >"$OUT/jax-busy.jsonl"
    kill $SPINNER
    trap - EXIT
    BUSY=("$OUT/scn-busy.jsonl" "$OUT/jax-busy.jsonl")
  fi
fi
{
  echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(lscpu | sed -n 's/^Model name: *//p' | head -1)" \
    "(family $(sed -n 's/^cpu family\t*: //p' /proc/cpuinfo | head -1) model $(sed -n 's/^model\t*: //p' /proc/cpuinfo | head -1))," \
    "$(nproc) cores, load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg); LLVM $(llvm-config-19 --version 2>/dev/null || echo 19)," \
    "OpenBLAS $(dpkg-query -W -f='${Version}' libopenblas0-pthread 2>/dev/null || echo '?')," \
    "oneDNN $(dpkg-query -W -f='${Version}' libdnnl2 2>/dev/null || echo '?') (bf16 products)," \
    "FFTW $(dpkg-query -W -f='${Version}' libfftw3-single3 2>/dev/null || echo '?')," \
    "jax $(python3 -c 'import jax; print(jax.__version__)'); arguments: ${ARGS[*]}"
  echo
  python3 "$ROOT/bench/report.py" "$OUT/scn.jsonl" "$OUT/jax.jsonl" "${BUSY[@]}"
} | tee "$BUILD/bench-results.md"
