#!/usr/bin/env bash
# The GPU check of the CUDA backend: builds (Release) on a machine with an NVIDIA GPU, runs the
# cuda_* tests with the GPU (including the loop-overhead bench: microseconds per scan iteration
# with host-issued launches and with CUDA graphs, and the single-pass scan bench: cumsum over
# 2^26 f32 and f64 in GB/s next to a copy kernel's GB/s, goal >= 0.7 of it, both in
# summary.txt) and the differential suite (--backend=cuda
# against --backend=cpu), and writes its logs into OUTDIR. Usage: tests/device/run.sh OUTDIR
# (a few minutes). The CUDA-graph path (stream capture, cuGraphInstantiate, cuGraphLaunch) has
# only run under emulation before a GPU run; its first failures show up here.
#
# Two ways to build: the project's CMake build when its dependencies are there (LLVM 19, re2c,
# GoogleTest, OpenBLAS), else a standalone build of only what the CUDA tests need (core,
# kernel IR, jit/cuda, GoogleTest from $GTEST_SRC, /usr/src/googletest or .device-deps/googletest)
# with the host compiler and the CUDA toolkit at $CUDA_HOME (default /usr/local/cuda). The
# standalone build has no `scn` binary, so it skips the differential suite and says so.
# SCN_DEVICE_STANDALONE=1 skips the CMake attempt.
set -u
OUT=${1:?usage: tests/device/run.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
BUILD=${SCN_DEVICE_BUILD:-$ROOT/build-device}
JOBS=$(nproc 2>/dev/null || echo 4)
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
start=$(date +%s)

# ---- the machine ----
{
  date -u +"%Y-%m-%d %H:%M:%S UTC"
  uname -a
  nvidia-smi 2>&1 || echo "nvidia-smi: not available"
  "$CUDA_HOME/bin/nvcc" --version 2>&1 || echo "nvcc: not available"
  git -C "$ROOT" log -1 --format='commit %H %s' 2>/dev/null
} >"$OUT/machine.txt" 2>&1
say "scn device check, $(date -u +%Y-%m-%d), on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

# ---- build ----
mode=none
if [ -z "${SCN_DEVICE_STANDALONE:-}" ] && command -v cmake >/dev/null && cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCUDAToolkit_ROOT="$CUDA_HOME" >"$OUT/build.log" 2>&1 &&
   grep -q "CUDA backend: on" "$OUT/build.log"; then
  if cmake --build "$BUILD" -j "$JOBS" --target cuda_codegen_test cuda_backend_test cuda_driver_test scn \
       >>"$OUT/build.log" 2>&1; then
    mode=cmake
    BIN=$BUILD
  fi
fi
if [ "$mode" = none ]; then
  echo "---- the CMake build is not possible here; standalone build ----" >>"$OUT/build.log"
  GT=""
  for d in "${GTEST_SRC:-}" /usr/src/googletest "$ROOT/.device-deps/googletest"; do
    [ -n "$d" ] && [ -f "$d/googletest/src/gtest-all.cc" ] && GT=$d && break
  done
  BIN=$BUILD/standalone
  mkdir -p "$BIN/obj"
  CXX=${CXX:-c++}
  FLAGS="-std=c++20 -O2 -I$ROOT -I$ROOT/include -isystem $CUDA_HOME/include"
  srcs=$(ls "$ROOT"/base/diagnostics.cpp "$ROOT"/jit/*.cpp "$ROOT"/jit/kernel/*.cpp "$ROOT"/jit/cuda/*.cpp)
  if [ -n "$GT" ]; then
    srcs="$srcs $GT/googletest/src/gtest-all.cc $GT/googletest/src/gtest_main.cc"
    FLAGS="$FLAGS -I$GT/googletest/include -I$GT/googletest"
  fi
  echo "$srcs" | tr ' ' '\n' | grep . | xargs -P "$JOBS" -I{} sh -c \
    'o="'"$BIN"'/obj/$(echo "{}" | tr / _).o"; '"$CXX $FLAGS"' -c "{}" -o "$o" || echo "FAILED {}"' \
    >>"$OUT/build.log" 2>&1
  if grep -q "^FAILED" "$OUT/build.log"; then
    say "build: FAILED (see build.log)"
  elif [ -z "$GT" ]; then
    say "build: no GoogleTest sources (set GTEST_SRC or carry .device-deps/googletest); no tests built"
  else
    mode=standalone
    libs="-L$CUDA_HOME/lib64 -Wl,-rpath,$CUDA_HOME/lib64 -lnvrtc -ldl -lpthread"
    for t in cuda_codegen_test cuda_backend_test cuda_driver_test; do
      $CXX $FLAGS -DSCN_SOURCE_DIR="\"$ROOT\"" -DSCN_BINARY="\"\"" -c "$ROOT/tests/unit/$t.cpp" \
        -o "$BIN/obj/$t.o" >>"$OUT/build.log" 2>&1 &&
      $CXX -o "$BIN/$t" "$BIN/obj/$t.o" $(ls "$BIN"/obj/*.o | grep -v '_test\.o$') $libs \
        >>"$OUT/build.log" 2>&1 || say "build: $t FAILED (see build.log)"
    done
  fi
fi
say "build: $mode ($(( $(date +%s) - start )) s)"

# ---- the CUDA tests, with the GPU ----
export SCN_CACHE_DIR=$BUILD/cache  # a PTX cache of this run's own
if [ "$mode" != none ]; then
  : >"$OUT/tests.log"
  for t in cuda_backend_test cuda_codegen_test cuda_driver_test; do
    if [ -x "$BIN/$t" ]; then
      echo "==== $t" >>"$OUT/tests.log"
      timeout 300 "$BIN/$t" >"$BUILD/$t.out" 2>&1
      rc=$?
      cat "$BUILD/$t.out" >>"$OUT/tests.log"
      counts=$(grep -E '^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ tests?' "$BUILD/$t.out" | tr -s ' ' | tr '\n' ' ')
      say "$t: $([ $rc = 0 ] && echo passed || echo "FAILED (exit $rc)"): $counts"
    fi
  done
  grep -E "^device:|us per iteration|ms per run|GB/s" "$OUT/tests.log" | tee -a "$SUMMARY" >/dev/null
fi

# ---- the differential suite: every program with --backend=cuda and --backend=cpu ----
# Twice: with the default loop capture (CUDA graphs for loops with >= 8 iterations left), and
# with SCN_CUDA_GRAPHS=2, which captures nearly every loop, as the emulation does in CI (Note
# [Loops on the device] in jit/cuda/steps.cpp).
if [ "$mode" = cmake ] && [ -x "$BUILD/scn" ]; then
  : >"$OUT/differential.log"
  for graphs in 8 2; do
    same=0; differ=0
    while IFS= read -r f; do
      grep -q "^# backends:" "$f" && ! grep -q "^# backends:.*cuda" "$f" && continue
      dir=$(dirname "$f"); name=$(basename "$f")
      cpu=$(cd "$dir" && timeout 60 "$BUILD/scn" --backend=cpu "$name" 2>&1; echo "exit $?")
      gpu=$(cd "$dir" && SCN_CUDA_GRAPHS=$graphs timeout 60 "$BUILD/scn" --backend=cuda "$name" 2>&1; echo "exit $?")
      if [ "$cpu" = "$gpu" ]; then
        same=$((same + 1))
      else
        differ=$((differ + 1))
        { echo "==== ${f#$ROOT/} (SCN_CUDA_GRAPHS=$graphs)"; diff <(echo "$cpu") <(echo "$gpu") | head -20; } >>"$OUT/differential.log"
      fi
    done < <(find "$ROOT/tests/programs" "$ROOT/examples" -name '*.scn' | sort)
    say "differential (SCN_CUDA_GRAPHS=$graphs): $same programs print the same with cuda as with cpu, $differ differ (differential.log)"
  done
else
  say "differential: skipped (no scn binary in a $mode build)"
fi
say "total: $(( $(date +%s) - start )) s"
