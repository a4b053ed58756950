#!/usr/bin/env bash
# Builds the project with AddressSanitizer and UndefinedBehaviorSanitizer (configured by
# scripts/configure-sanitize.sh: clang, -O1, the fuzz targets in the same build) and runs the
# test suite in it through CTest.
#   scripts/sanitize.sh [CTEST_ARGS...]      e.g. scripts/sanitize.sh -R 'frontend|core'
# Environment: SCN_SANITIZE_BUILD (build directory, default build-sanitize), SCN_SANITIZE_JOBS
# (parallel build and test jobs, default: the number of cores).
# Every UBSan report aborts the test (-fno-sanitize-recover).
# Leak checking is off by default: LLVM's JIT keeps process-lifetime allocations; set
# ASAN_OPTIONS yourself to turn it on. Timings and the CI subset are in docs/hardening.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${SCN_SANITIZE_BUILD:-build-sanitize}"
jobs="${SCN_SANITIZE_JOBS:-$(nproc)}"

start=$(date +%s)
scripts/configure-sanitize.sh "$build"
# Keep going past a target that fails to build, so the rest of the suite still runs; the
# failure still fails the script.
build_status=0
cmake --build "$build" -j"$jobs" -- -k 0 || build_status=$?
built=$(date +%s)
echo "sanitize.sh: build took $((built - start)) s (status $build_status)"

# Sanitizer reports go to files, not stderr: the program tests compare stderr exactly, and ASan
# warns on stderr even for an allocation it is allowed to fail (E0401 tests). Any report there
# fails the run and is printed below.
logs="$PWD/$build/sanitizer-logs"
rm -rf "$logs" && mkdir -p "$logs"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:max_allocation_size_mb=4096:log_path=$logs/asan}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan}"
cd "$build"
status=0
ctest --output-on-failure -j"$jobs" --timeout 900 "$@" || status=$?
if grep -lE "ERROR|runtime error" "$logs"/* >/dev/null 2>&1; then
  echo "sanitize.sh: sanitizer reports:"
  grep -lE "ERROR|runtime error" "$logs"/* | while read -r f; do echo "== $f"; head -40 "$f"; done
  status=1
fi
echo "sanitize.sh: tests took $(( $(date +%s) - built )) s (status $status)"
[ "$build_status" -ne 0 ] && status=$build_status
exit $status
