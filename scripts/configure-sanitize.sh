#!/usr/bin/env bash
# Configures the sanitizer build that scripts/sanitize.sh and scripts/fuzz.sh share (once; an
# existing build directory is kept): the whole project, tests and libFuzzer targets, built by
# clang with AddressSanitizer + UndefinedBehaviorSanitizer and libFuzzer's coverage
# instrumentation (SCN_FUZZ), CUDA off (CI has no GPU, and the CUDA driver is not instrumented).
# Debug with -O1, as the sanitizers' documentation advises: asserts stay on, and the
# interpreter-heavy tests run faster than at -O0.
#   scripts/configure-sanitize.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build="$1"
scripts/ensure-packages.sh
# libFuzzer and the sanitizer runtimes come with clang.
scripts/ensure-packages.sh clang libclang-rt-dev
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
    -DSCN_FUZZ=ON -DSCN_WITH_CUDA=OFF -DSCN_TESTS=ON >/dev/null
fi
