/* Bench group R: a raw MPI_Allreduce (sum of f32) of 1 KiB .. 16 MiB, the baseline of scn's
 * psum. Prints "raw BYTES MICROSECONDS" per size on rank 0 (the median of the timed runs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (long bytes = 1024; bytes <= 16L << 20; bytes *= 4) {
    long n = bytes / 4;
    float* x = malloc(bytes);
    float* y = malloc(bytes);
    for (long i = 0; i < n; ++i) x[i] = (float)i;
    enum { kRuns = 21 };
    double t[kRuns];
    for (int r = 0; r < kRuns; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Allreduce(x, y, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      t[r] = (MPI_Wtime() - t0) * 1e6;
    }
    qsort(t, kRuns, sizeof t[0], cmp);
    if (rank == 0) printf("raw %ld %.1f\n", bytes, t[kRuns / 2]);
    free(x);
    free(y);
  }
  MPI_Finalize();
  return 0;
}
