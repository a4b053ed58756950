#!/usr/bin/env bash
# Installs the Debian packages named as arguments that are not installed yet (idempotent; needs
# root only when something is missing). With no arguments: the packages every build of scn needs.
#   scripts/ensure-packages.sh [PACKAGE...]
set -euo pipefail
packages=("$@")
[ ${#packages[@]} -eq 0 ] && packages=(build-essential cmake ninja-build re2c llvm-19-dev clang-19 libgtest-dev
  libopenblas-dev liblapack-dev libfftw3-dev libdnnl-dev libedit-dev zlib1g-dev libzstd-dev libffi-dev libxml2-dev pkg-config help2man
  libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "scn setup: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "scn setup: need root to install packages (run as root or install them yourself)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
