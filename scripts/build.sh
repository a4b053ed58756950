#!/usr/bin/env bash
# Installs what scn needs from Debian's packages (idempotent; needs root for apt-get) and builds
# it into build/ with CMake and Ninja. The CUDA backend is built when /usr/local/cuda exists; the
# Python package (python/, into build/python) when a Python with its build needs can be set up.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-packages.sh
python_flags=(-DSCN_PYTHON=OFF)
if py="$(scripts/ensure-python.sh)"; then python_flags=(-DSCN_PYTHON=ON -DPython_EXECUTABLE="$py"); fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${SCN_BUILD_TYPE:-RelWithDebInfo}" \
      -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc "${python_flags[@]}" "$@" >/dev/null
cmake --build build -j"$(nproc)"
