#!/usr/bin/env bash
# The distributed suite (docs/distributed.md): under `mpirun --oversubscribe -np NP` each program
# here prints what it prints on one process, seed 001's program makes no collective call, the
# data-parallel training step averages its gradients over the processes, an
# uneven split is E0309 on every process, and a dead process or a mismatched collective ends the
# run with E0440 in bounded time. Each HOST (tests/distributed/embed_host.c and .cpp, built as
# embed_mpi_host and embed_mpi_host_cpp) is an MPI host that hands its communicators to
# embedded contexts; embed_host.py is the same in Python over mpi4py (when SCN_DIST_PYTHON is set).
#   tests/distributed/run.sh SCN NP [HOST...]
set -u
scn=$1
np=$2
shift 2
hosts=("$@")
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader      # one host: shared memory only, no network probing
export OMPI_MCA_btl_vader_single_copy_mechanism=none  # containers often forbid CMA
export SCN_NO_CACHE=1               # processes would share the object cache
export PATH="$dir/bin:$PATH"         # gstack for mpirun --get-stack-traces
failures=0
fail() { echo "FAIL ($np processes): $*"; failures=$((failures + 1)); }
mpi() { mpirun --oversubscribe -np "$np" "$@"; }

for prog in collectives control seed001 train_step permute; do
  if ! "$scn" "$dir/$prog.scn" > "$tmp/one.out" 2> "$tmp/one.err"; then
    fail "$prog.scn on one process: $(cat "$tmp/one.err")"
    continue
  fi
  if ! SCN_DIST_STATS=1 mpi "$scn" "$dir/$prog.scn" > "$tmp/many.out" 2> "$tmp/many.err"; then
    fail "$prog.scn: $(cat "$tmp/many.err")"
    continue
  fi
  diff "$tmp/one.out" "$tmp/many.out" > "$tmp/diff" || fail "$prog.scn prints otherwise than on one process: $(cat "$tmp/diff")"
  if [ "$prog" = seed001 ]; then
    n=$(grep -c ": 0 collective calls, 1 result gather," "$tmp/many.err")
    [ "$n" = "$np" ] || fail "seed001.scn made collective calls: $(grep process "$tmp/many.err")"
  fi
  if [ "$prog" = train_step ]; then  # the gradients are averaged over the processes: 2 a step
    n=$(grep -c ": 6 collective calls, 6 result gathers," "$tmp/many.err")
    [ "$n" = "$np" ] || fail "train_step.scn: $(grep process "$tmp/many.err")"
  fi
  if [ "$prog" = permute ]; then  # one 1024-byte row to the next process, then the result gather
    bytes=$((1024 + 8 / np * 1024))
    n=$(grep -c ": 1 collective call, 1 result gather, $bytes bytes sent" "$tmp/many.err")
    [ "$n" = "$np" ] || fail "permute.scn sent other than $bytes bytes: $(grep process "$tmp/many.err")"
  fi
done

# Functions with process collectives run compiled (Note [Collective steps]): no interpreter
# fallback in --stats, the same output as on one process. cuda-emu where this build has it (a
# build without the CUDA toolkit, such as the sanitizer build, says E0420 and is skipped).
backends=cpu
echo 'print(1)' > "$tmp/probe.scn"
if "$scn" --backend=cuda-emu "$tmp/probe.scn" > /dev/null 2>&1; then
  backends="cpu cuda-emu"
else
  echo "distributed: cuda-emu is not in this build; compiled.scn runs on cpu only"
fi
for backend in $backends; do
  "$scn" --backend=$backend "$dir/compiled.scn" > "$tmp/one.out" 2> "$tmp/one.err" || fail "compiled.scn on $backend on one process: $(cat "$tmp/one.err")"
  if ! mpi "$scn" --backend=$backend --stats "$dir/compiled.scn" > "$tmp/many.out" 2> "$tmp/many.err"; then
    fail "compiled.scn on $backend: $(cat "$tmp/many.err")"
    continue
  fi
  diff "$tmp/one.out" "$tmp/many.out" > "$tmp/diff" || fail "compiled.scn on $backend prints otherwise than on one process: $(cat "$tmp/diff")"
  ! grep -q "fallback" "$tmp/many.err" || fail "compiled.scn on $backend fell back: $(grep fallback "$tmp/many.err" | head -3)"
  n=$(grep -c " traced backend=$backend " "$tmp/many.err")
  [ "$n" = $((9 * np)) ] || fail "compiled.scn on $backend: $n of $((9 * np)) functions compiled"
done

# An axis of 6 lanes splits over 2 processes but not over 4.
if [ "$np" = 4 ]; then
  mpi "$scn" "$dir/uneven.scn" > "$tmp/out" 2> "$tmp/err" && fail "uneven.scn succeeded"
  want="error[E0309]: pmap cannot split the mapped axis of size 6 evenly over 4 processes"
  [ "$(grep -c -F "$want" "$tmp/err")" = 4 ] || fail "uneven.scn: $(cat "$tmp/err")"
fi

# A process that stops before a collective, and one more collective on process 0 than on the
# others: the waiting process reports E0440 within the timeout and ends the run.
# A run that outlives 30 s is ended by mpirun, which first prints the state and the stack of every
# process (gdb), so a hang seen once says where it was.
for prog in dead_rank mismatch dead_rank_compiled; do
  start=$(date +%s)
  SCN_COLLECTIVE_TIMEOUT=2 timeout 90 mpirun --oversubscribe -np "$np" --timeout 30 --report-state-on-timeout \
    --get-stack-traces "$scn" "$dir/$prog.scn" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  took=$(($(date +%s) - start))
  [ "$rc" -ne 0 ] || fail "$prog.scn succeeded"
  [ "$took" -lt 20 ] || fail "$prog.scn took $took s (exit status $rc): $(tail -c 20000 "$tmp/err")"
  grep -q -F "error[E0440]: an allreduce of" "$tmp/err" || fail "$prog.scn gave no E0440: $(cat "$tmp/err")"
done

# Embedding: the host's sub-communicator and a duplicate of its world carry pmap and psum; misuse
# is E0444 (tests/distributed/embed_host.c and .cpp say what they check).
for host in "${hosts[@]}"; do
  if timeout 60 mpirun --oversubscribe -np "$np" "$host" > "$tmp/out" 2> "$tmp/err"; then
    n=$(grep -c "^embed host: ok on process" "$tmp/out")
    [ "$n" = "$np" ] || fail "$(basename "$host"): $n of $np processes ok: $(cat "$tmp/out" "$tmp/err")"
  else
    fail "$(basename "$host"): $(cat "$tmp/out" "$tmp/err")"
  fi
done

# The Python host (embed_host.py, mpi4py's communicators) where the build has the package:
# SCN_DIST_PYTHON is its Python (CMake sets it, with PYTHONPATH, when SCN_PYTHON is on).
if [ -n "${SCN_DIST_PYTHON:-}" ]; then
  if ! "$SCN_DIST_PYTHON" -c "import mpi4py, scn" 2> "$tmp/err"; then
    fail "embed_host.py: $SCN_DIST_PYTHON lacks mpi4py or scn (scripts/ensure-python.sh installs mpi4py): $(cat "$tmp/err")"
  elif timeout 60 mpirun --oversubscribe -np "$np" "$SCN_DIST_PYTHON" "$dir/embed_host.py" > "$tmp/out" 2> "$tmp/err"; then
    n=$(grep -c "^embed host: ok on process" "$tmp/out")
    [ "$n" = "$np" ] || fail "embed_host.py: $n of $np processes ok: $(cat "$tmp/out" "$tmp/err")"
  else
    fail "embed_host.py: $(cat "$tmp/out" "$tmp/err")"
  fi
fi

[ "$failures" = 0 ] && echo "distributed suite passed on $np processes"
exit $((failures > 0))
