#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) in the sanitizer build (scripts/configure-sanitize.sh:
# clang, ASan, UBSan, coverage) and runs each for a bounded time, one after the other.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s; all targets)
# Environment: SCN_FUZZ_BUILD (build directory, default build-sanitize, the one
# scripts/sanitize.sh builds), SCN_FUZZ_JOBS (ninja -j,
# default 2), SCN_FUZZ_TIMEOUT (seconds one input may take, default 60: the seed
# corpus holds legitimately slow programs, e.g. the E0105 test traces 200,000 operations, ~26 s
# under ASan on a loaded machine), SCN_FUZZ_RSS_MB
# (default 3072), SCN_FUZZ_SEED (libFuzzer's -seed) and SCN_FUZZ_RUNS ("parse=12000 tracer=500":
# stop a target after that many inputs; with a seed, the run is repeatable, which is how CI uses
# it; SECONDS_PER_TARGET then only caps a slow machine), and the generator switches of
# docs/hardening.md (SCN_FUZZ_SAFE_DIV, ...).
# Corpora grow in BUILD/corpus/<target>; a crash, hang or leak leaves its input in
# BUILD/artifacts/<target>/ and makes the script exit 1 after the other targets ran. Reproduce
# one with: BUILD/fuzz_<target> BUILD/artifacts/<target>/crash-...
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse session tracer capi cache npy)
build="${SCN_FUZZ_BUILD:-build-sanitize}"
jobs="${SCN_FUZZ_JOBS:-2}"

scripts/configure-sanitize.sh "$build" || exit 2
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
cmake --build "$build" -j"$jobs" --target "${build_targets[@]}" || exit 2
tests/fuzz/make_corpus.sh "$build/corpus" >/dev/null

# Huge single allocations fail (the program gets its "cannot allocate" diagnostic) instead of
# killing the fuzzer; LLVM's JIT keeps some allocations for the life of the process.
export ASAN_OPTIONS="${ASAN_OPTIONS:-allocator_may_return_null=1:max_allocation_size_mb=2048:detect_leaks=0:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

status=0
for t in "${targets[@]}"; do
  mkdir -p "$build/artifacts/$t"
  args=(-max_total_time="$seconds" -timeout="${SCN_FUZZ_TIMEOUT:-60}" -rss_limit_mb="${SCN_FUZZ_RSS_MB:-3072}"
        -artifact_prefix="$build/artifacts/$t/" -print_final_stats=1)
  [ -n "${SCN_FUZZ_SEED:-}" ] && args+=(-seed="$SCN_FUZZ_SEED")
  for r in ${SCN_FUZZ_RUNS:-}; do
    [ "${r%%=*}" = "$t" ] && args+=(-runs="${r#*=}")
  done
  case "$t" in
    parse|session) args+=(-dict=tests/fuzz/scn.dict -max_len=2048) ;;
    tracer|capi) args+=(-max_len=1024) ;;
    npy) args+=(-max_len=4096) ;;
  esac
  echo "== fuzz_$t: ${args[*]}"
  "$build/fuzz_$t" "${args[@]}" "$build/corpus/$t" 2>&1 | tee "$build/fuzz_$t.log" | grep -E '^(#[0-9]+ +DONE|==[0-9]+==ERROR|SUMMARY|==== scn fuzz finding|stat::number_of_executed_units|.*Test unit written)' 
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    echo "fuzz_$t: FAILED (exit $rc); see $build/fuzz_$t.log and $build/artifacts/$t/"
    # CI keeps only what is printed: the report, and the finding replayed with its input shown.
    echo "---- the last lines of $build/fuzz_$t.log"
    tail -n 80 "$build/fuzz_$t.log"
    for a in "$build/artifacts/$t"/crash-* "$build/artifacts/$t"/timeout-* "$build/artifacts/$t"/oom-*; do
      [ -f "$a" ] || continue
      echo "---- replaying $a (base64: $(base64 -w0 "$a" | head -c 4096))"
      SCN_FUZZ_PRINT=1 timeout 300 "$build/fuzz_$t" "$a" 2>&1 | tail -n 120
      break
    done
    status=1
  else
    echo "fuzz_$t: ok"
  fi
done
exit $status
