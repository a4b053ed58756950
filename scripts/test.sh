#!/usr/bin/env bash
# Builds scn (installing what is missing) and runs the whole test suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" "$@"
