#!/usr/bin/env bash
# Makes a Python with what the scn package needs to build and test (numpy, nanobind, pytest,
# scikit-build-core, ml_dtypes for bfloat16 arrays, and mpi4py for the distributed suite's Python host) and prints its path: python3 itself when it has them or pip may install
# them, else a virtual environment in .venv (Debian's python3 refuses system-wide pip). Prints
# nothing and fails when there is no python3: the build then leaves the package out.
#   scripts/ensure-python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
need=(numpy nanobind pytest scikit_build_core ml_dtypes mpi4py)
pips=(numpy nanobind pytest scikit-build-core ml_dtypes mpi4py)
has_all() { "$1" -c "import $(IFS=,; echo "${need[*]}")" 2>/dev/null; }
py="${SCN_PYTHON_EXE:-python3}"
command -v "$py" >/dev/null || { echo "scn setup: no $py: the Python package is not built" >&2; exit 1; }
if has_all "$py"; then "$py" -c "import sys; print(sys.executable)"; exit 0; fi
if [ -x .venv/bin/python ] && has_all .venv/bin/python; then echo "$PWD/.venv/bin/python"; exit 0; fi
echo "scn setup: installing ${pips[*]} from PyPI" >&2
if "$py" -m pip install -q "${pips[@]}" >&2 2>/dev/null && has_all "$py"; then "$py" -c "import sys; print(sys.executable)"; exit 0; fi
"$py" -m venv .venv >&2 2>/dev/null || { scripts/ensure-packages.sh python3-venv python3-dev >&2 && "$py" -m venv .venv >&2; }
.venv/bin/python -m pip install -q "${pips[@]}" >&2
echo "$PWD/.venv/bin/python"
