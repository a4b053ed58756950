#!/usr/bin/env bash
# Installs what scn needs from Debian's packages (idempotent; needs root for apt-get) and builds
# it into build/ with CMake and Ninja. The CUDA backend is built when /usr/local/cuda exists.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-packages.sh

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${SCN_BUILD_TYPE:-RelWithDebInfo}" \
      -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc "$@" >/dev/null
cmake --build build -j"$(nproc)"
