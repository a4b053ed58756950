#!/usr/bin/env bash
# Installs what scn needs from Debian's packages (idempotent; needs root for apt-get) and builds
# it into build/ with CMake and Ninja. The CUDA backend is built when /usr/local/cuda exists.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build re2c llvm-19-dev libgtest-dev libopenblas-dev
          libedit-dev zlib1g-dev libzstd-dev libffi-dev libxml2-dev pkg-config)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "scn setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "scn setup: need root to install packages (run as root or install them yourself)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${SCN_BUILD_TYPE:-RelWithDebInfo}" \
      -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc "$@" >/dev/null
cmake --build build -j"$(nproc)"
