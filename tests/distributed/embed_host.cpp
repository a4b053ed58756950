// An MPI host over the C++ API (docs/distributed.md, "Embedding"): the C++ twin of
// embed_host.c's first check. It splits its world into halves by rank parity, hands each
// process's half to a context through ContextOptions::mpiCommunicator, and checks that
// process_index()/process_count() are the rank and size in the half and that a pmapped psum of
// data that differs between the halves sums each half's data only (cpu backend, compiled).
// MPI_COMM_NULL is E0444 and InvalidArgument. Run by tests/distributed/run.sh under mpirun.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "scn/scn.hpp"

namespace {

int worldRank = 0;

int failed(const std::string& what) {
  std::fprintf(stderr, "embed host (C++), process %d: %s\n", worldRank, what.c_str());
  return 1;
}

int checkHalves() {
  int color = worldRank % 2;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, color, worldRank, &half);
  int halfRank = 0, halfSize = 0;
  MPI_Comm_rank(half, &halfRank);
  MPI_Comm_size(half, &halfSize);
  scn::ContextOptions o;
  o.backend = "cpu";
  o.mpiCommunicator = &half;
  auto ctx = scn::Context::create(o);
  MPI_Comm_free(&half);  // scn keeps its own duplicate
  if (!ctx) return failed("a context over the half: " + ctx.status().message());
  scn::Status s = ctx->load(
      "fn total(x) = pmap(|v| psum(v, \"i\"), axis_name=\"i\")(x)\n"
      "fn place() = (process_index(), process_count())\n",
      "embedded.scn");
  if (!s) return failed("load: " + s.message());
  auto place = ctx->call("place", {});
  if (!place || place->size() != 2) return failed("place(): " + place.status().message());
  int index = *(*place)[0].dataAs<int32_t>(), count = *(*place)[1].dataAs<int32_t>();
  if (index != halfRank || count != halfSize)
    return failed("process_index() " + std::to_string(index) + ", process_count() " + std::to_string(count) +
                  "; want " + std::to_string(halfRank) + " of " + std::to_string(halfSize));
  std::vector<int64_t> x(8);
  int64_t want = 0;
  for (int i = 0; i < 8; ++i) want += x[i] = i + 1000 * color;
  auto total = ctx->call("total", {scn::ArrayView::of(x.data(), {8})});
  if (!total || total->size() != 1) return failed("total(x): " + total.status().message());
  for (int i = 0; i < 8; ++i)
    if ((*total)[0].dataAs<int64_t>()[i] != want)
      return failed("total(x)[" + std::to_string(i) + "] = " + std::to_string((*total)[0].dataAs<int64_t>()[i]) +
                    ", want " + std::to_string(want));
  if (ctx->lastStats().size() != 1 || ctx->lastStats()[0].backend != "cpu")
    return failed("total did not run compiled on cpu");
  MPI_Comm none = MPI_COMM_NULL;
  o.mpiCommunicator = &none;
  auto bad = scn::Context::create(o);
  if (bad || bad.status().code() != scn::StatusCode::InvalidArgument ||
      bad.status().message().find("error[E0444]") == std::string::npos)
    return failed("MPI_COMM_NULL: " + bad.status().message());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  int worldSize = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  if (checkHalves()) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
  std::printf("embed host: ok on process %d of %d\n", worldRank, worldSize);
  return 0;
}
