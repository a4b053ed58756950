/* An MPI host that embeds scn (docs/distributed.md, "Embedding"): it initialises MPI itself,
 * hands contexts its communicators through scn_options.mpi_communicator and checks that pmap and
 * psum run over exactly those processes. tests/distributed/run.sh runs it under
 * `mpirun --oversubscribe -np 2` and `-np 4` (an even number of processes):
 *   1. a sub-communicator (MPI_Comm_split by rank parity) on the cpu backend: process_index()
 *      and process_count() are the rank and size in it, and a pmapped psum of data that differs
 *      between the two halves sums each half's data only;
 *   2. a duplicate of MPI_COMM_WORLD on the interpreter: a pmean over every process;
 *   3. misuse: MPI_COMM_NULL, and a communicator after MPI_Finalize, are E0444 with
 *      SCN_ERROR_INVALID_ARGUMENT, not a crash; scn neither initialised nor finalised MPI.
 * Prints "embed host: ok on process R of N" per process; exits 1 on the first failed check. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "scn/scn.h"

static int world_rank = 0;
static char last_code[16];

static void keep_code(const scn_diagnostic* d, void* user) {
  (void)user;
  if (d->severity == SCN_SEVERITY_ERROR && !last_code[0]) snprintf(last_code, sizeof last_code, "%s", d->code);
}

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "embed host, process %d: ", world_rank);    \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      return 1;                                                   \
    }                                                             \
  } while (0)

static const char* program =
    "fn total(x) = pmap(|v| psum(v, \"i\"), axis_name=\"i\")(x)\n"
    "fn mean(x) = pmap(|v| pmean(v, \"i\"), axis_name=\"i\")(x)\n"
    "fn place() = (process_index(), process_count())\n";

static scn_status new_context(const char* backend, const void* communicator, scn_context** ctx) {
  scn_options o;
  scn_options_init(&o);
  o.backend = backend;
  o.on_diagnostic = keep_code;
  o.mpi_communicator = communicator;
  last_code[0] = 0;
  return scn_context_new(&o, ctx);
}

/* process_index() and process_count() as the context sees them. */
static int place_of(scn_context* ctx, int* index, int* count) {
  scn_function* f = NULL;
  scn_array* out = NULL;
  size_t nout = 0;
  CHECK(scn_function_get(ctx, "place", &f) == SCN_OK, "no place(): %s", scn_last_error(ctx));
  CHECK(scn_call(f, NULL, 0, &out, &nout) == SCN_OK && nout == 2, "place() failed: %s", scn_last_error(ctx));
  *index = *(const int32_t*)out[0].data;
  *count = *(const int32_t*)out[1].data;
  scn_array_free(out, nout);
  scn_function_free(f);
  return 0;
}

static int check_sub_communicator(void) {
  int world_size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  int color = world_rank % 2;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &half);
  int half_rank = 0, half_size = 0;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  scn_context* ctx = NULL;
  CHECK(new_context("cpu", &half, &ctx) == SCN_OK, "a context over the split communicator: %s", last_code);
  MPI_Comm_free(&half); /* scn keeps its own duplicate */
  CHECK(scn_load_source(ctx, program, "embedded.scn") == SCN_OK, "load: %s", scn_last_error(ctx));

  int index = -1, count = -1;
  if (place_of(ctx, &index, &count)) return 1;
  CHECK(index == half_rank && count == half_size, "process_index() %d, process_count() %d; want %d of %d", index,
        count, half_rank, half_size);

  /* Each half has its own data: lanes 0..7 plus 1000 * color. Over the half's processes the
   * psum is that data's sum in every lane; over the world it would mix the halves. */
  int32_t x[8];
  int32_t want = 0;
  for (int i = 0; i < 8; ++i) {
    x[i] = i + 1000 * color;
    want += x[i];
  }
  int64_t shape[1] = {8};
  scn_array in = {SCN_I32, 1, shape, NULL, x, NULL};
  scn_function* total = NULL;
  scn_array* out = NULL;
  size_t nout = 0;
  CHECK(scn_function_get(ctx, "total", &total) == SCN_OK, "no total()");
  CHECK(scn_call(total, &in, 1, &out, &nout) == SCN_OK && nout == 1, "total(x): %s", scn_last_error(ctx));
  CHECK(out[0].dtype == SCN_I32 && out[0].rank == 1 && out[0].shape[0] == 8, "total(x) has the wrong type");
  for (int i = 0; i < 8; ++i)
    CHECK(((const int32_t*)out[0].data)[i] == want, "total(x)[%d] = %d, want %d", i,
          ((const int32_t*)out[0].data)[i], want);
  const scn_call_stats* stats = NULL;
  size_t nstats = 0;
  scn_last_stats(ctx, &stats, &nstats);
  CHECK(nstats == 1 && strcmp(stats[0].backend, "cpu") == 0, "total ran on %s, not compiled on cpu",
        nstats ? stats[0].backend : "nothing");
  scn_array_free(out, nout);
  scn_function_free(total);
  scn_context_free(ctx);
  return 0;
}

static int check_world_duplicate(void) {
  int world_size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm all;
  MPI_Comm_dup(MPI_COMM_WORLD, &all);
  scn_context* ctx = NULL;
  CHECK(new_context("interp", &all, &ctx) == SCN_OK, "a context over a duplicate of the world: %s", last_code);
  CHECK(scn_load_source(ctx, program, "embedded.scn") == SCN_OK, "load: %s", scn_last_error(ctx));
  int index = -1, count = -1;
  if (place_of(ctx, &index, &count)) return 1;
  CHECK(index == world_rank && count == world_size, "world: process_index() %d, process_count() %d", index, count);
  double x[8];
  for (int i = 0; i < 8; ++i) x[i] = 0.5 * i;
  int64_t shape[1] = {8};
  scn_array in = {SCN_F64, 1, shape, NULL, x, NULL};
  scn_function* mean = NULL;
  scn_array* out = NULL;
  size_t nout = 0;
  CHECK(scn_function_get(ctx, "mean", &mean) == SCN_OK, "no mean()");
  CHECK(scn_call(mean, &in, 1, &out, &nout) == SCN_OK && nout == 1, "mean(x): %s", scn_last_error(ctx));
  for (int i = 0; i < 8; ++i) {
    double got = ((const double*)out[0].data)[i];
    CHECK(got > 1.75 - 1e-12 && got < 1.75 + 1e-12, "mean(x)[%d] = %g, want 1.75", i, got);
  }
  scn_array_free(out, nout);
  scn_function_free(mean);
  scn_context_free(ctx);
  /* The host's own communicator still works after scn's use of it. */
  int ranks = 0, one = 1;
  MPI_Allreduce(&one, &ranks, 1, MPI_INT, MPI_SUM, all);
  CHECK(ranks == world_size, "the host's allreduce after scn gave %d", ranks);
  MPI_Comm_free(&all);
  return 0;
}

/* A context over `comm` is refused with E0444 (`what` says which misuse). */
static int check_refused(MPI_Comm comm, const char* what) {
  scn_context* ctx = NULL;
  CHECK(new_context("interp", &comm, &ctx) == SCN_ERROR_INVALID_ARGUMENT && ctx == NULL, "%s was accepted", what);
  CHECK(strcmp(last_code, "E0444") == 0, "%s gave %s, not E0444", what, last_code);
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int world_size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (check_sub_communicator() || check_world_duplicate() || check_refused(MPI_COMM_NULL, "MPI_COMM_NULL"))
    MPI_Abort(MPI_COMM_WORLD, 1);
  /* scn did not finalise MPI: the host's collectives still run, and its MPI_Finalize succeeds. */
  MPI_Barrier(MPI_COMM_WORLD);
  int finalised = 1;
  MPI_Finalized(&finalised);
  CHECK(!finalised, "scn finalised MPI");
  CHECK(MPI_Finalize() == MPI_SUCCESS, "the host's MPI_Finalize failed");
  if (check_refused(MPI_COMM_WORLD, "a communicator after MPI_Finalize")) return 1;
  printf("embed host: ok on process %d of %d\n", world_rank, world_size);
  return 0;
}
