# An MPI host in Python (docs/distributed.md, "Embedding"; docs/python.md): the Python twin of
# embed_host.cpp. It splits its world into halves by rank parity with mpi4py, hands each
# process's half to a context (scn.Context(mpi_communicator=)), and checks that
# process_index()/process_count() are the rank and size in the half and that a pmapped psum of
# data that differs between the halves sums each half's data only (cpu backend, compiled). Then a
# context over the whole world on the interpreter (a pmean over every process), and the misuse:
# MPI.COMM_NULL is E0444 and an object that is no communicator a TypeError. scn leaves MPI to the
# host: the host's own collective afterwards still works. Run by tests/distributed/run.sh under
# mpirun with the package on PYTHONPATH.
import sys

import numpy as np
from mpi4py import MPI

import scn

world = MPI.COMM_WORLD
rank, size = world.Get_rank(), world.Get_size()


def check(ok, what):
    if not ok:
        sys.stderr.write(f"embed host (Python), process {rank}: {what}\n")
        world.Abort(1)


color = rank % 2
half = world.Split(color, rank)
ctx = scn.Context(backend="cpu", mpi_communicator=half)
half_rank, half_size = half.Get_rank(), half.Get_size()
half.Free()  # scn keeps its own duplicate
ctx.run('fn total(x) = pmap(|v| psum(v, "i"), axis_name="i")(x)\n'
        'fn place() = (process_index(), process_count())\n')
index, count = ctx.place()
check((int(index), int(count)) == (half_rank, half_size),
      f"process_index() {index}, process_count() {count}; want {half_rank} of {half_size}")
x = np.arange(8, dtype=np.int64) + 1000 * color
total = ctx.total(x)
check(np.array_equal(total, np.full(8, x.sum())), f"total(x) = {total}, want {x.sum()} in every lane")
check([s["backend"] for s in ctx.last_stats] == ["cpu"], f"total ran {ctx.last_stats}")
del ctx

everyone = scn.Context(backend="interp", mpi_communicator=world)
everyone.run('fn mean(x) = pmap(|v| pmean(v, "i"), axis_name="i")(x)')
mean = everyone.mean(np.arange(8, dtype=np.float64) / 2)  # 8 lanes over the processes
check(np.allclose(mean, np.full(8, 1.75), rtol=0, atol=1e-12), f"mean(x) = {mean}, want 1.75 in every lane")

try:
    scn.Context(backend="cpu", mpi_communicator=MPI.COMM_NULL)
    check(False, "MPI.COMM_NULL was accepted")
except scn.Error as e:
    check(e.code == "E0444" and "MPI_COMM_NULL" in str(e), f"MPI.COMM_NULL: {e}")
try:
    scn.Context(backend="cpu", mpi_communicator=3)
    check(False, "an int was accepted as a communicator")
except TypeError as e:
    check("mpi4py communicator" in str(e), f"an int: {e}")

check(world.allreduce(1) == size, "the host's own allreduce after scn")
sys.stdout.write(f"embed host: ok on process {rank} of {size}\n")  # one write: the processes' lines
sys.stdout.flush()                                                # must not interleave
