#!/usr/bin/env bash
# Bench group R (issue 23): psum through scn vs a raw MPI_Allreduce of the same bytes (1 KiB ..
# 16 MiB) on 2 processes, and W2 at 10^8 elements on 1 and 2 processes.
#   bench/dist.sh [SCN]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCN=${1:-$ROOT/build/scn}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none SCN_NO_CACHE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 -o "$tmp/raw" "$ROOT/bench/dist/allreduce_raw.c"
mpirun --oversubscribe -np 2 "$tmp/raw" > "$tmp/raw.txt"
# --tag-output: the two processes' lines interleave; each is tagged with its rank ([1,0]...)
mpirun --oversubscribe --tag-output -np 2 "$SCN" --stats "$ROOT/bench/dist/psum.scn" 2> "$tmp/scn.txt" > /dev/null
# the median run= of the 11 calls of each size (the first is traced; its run time counts too)
python3 - "$tmp/raw.txt" "$tmp/scn.txt" <<'PY'
import re, statistics, sys
raw = [l.split() for l in open(sys.argv[1])]
runs = [float(m.group(1)) for l in open(sys.argv[2]) if re.match(r"\[\d+,0\]<stderr>:\s*stats: step ", l)
        for m in [re.search(r"run=([0-9.]+)ms", l)] if m]  # process 0's
print("| bytes | raw MPI_Allreduce us | scn psum us | ratio |")
print("|---|---|---|---|")
for k, (_, b, us) in enumerate(raw):
    cell = runs[k * 11 + 1:(k + 1) * 11]  # the first call of each size is traced
    if not cell: break
    s = statistics.median(cell) * 1000
    print(f"| {b} | {float(us):.1f} | {s:.1f} | {s / float(us):.2f} |")
PY
for np in 1 2; do
  python3 - "$SCN" "$ROOT/bench/dist/w2.scn" $np <<'PY'
import subprocess, sys, time
t0 = time.time()
subprocess.run(["mpirun", "--oversubscribe", "-np", sys.argv[3], sys.argv[1], sys.argv[2]], check=True)
print(f"W2 10^8 over {sys.argv[3]} process(es): {time.time() - t0:.2f} s wall for 3 pmapped scans (start-up and the result gathers included)")
PY
done
