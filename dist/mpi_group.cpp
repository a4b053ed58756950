// Collectives over an MPI communicator: nonblocking calls polled against a deadline, so a
// process that never joins gives the others a diagnostic (E0440) instead of a hang. The only
// file of scn that includes mpi.h.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <thread>
#include <vector>

#include "dist/dist.hpp"

namespace scn::dist {

namespace {

bool weStartedMpi = false;  // startWorld called MPI_Init (finishWorld ends it)
// The tag of ppermute's messages. MPI orders the messages of one sender, tag and communicator,
// and every process runs the same collectives in the same order, so one tag suffices.
constexpr int kPermuteTag = 1;

// Note [Polling a collective]
// A nonblocking collective advances only inside MPI calls on this process: Open MPI's
// MPI_Iallreduce of 16 MiB is a schedule of many rounds, each started by an MPI_Test. So the wait
// tests without pause at first (a small collective completes in microseconds), then yields the
// core between tests (at full speed when the core is free, giving way when processes share
// cores, as `mpirun --oversubscribe` makes them), and only once the collective has taken
// kYieldingWait does it sleep 1 ms between tests: a process waiting on a dead or late peer until
// the deadline then costs next to nothing. Sleeping early (50 us between tests after 20000 polls,
// as before) made a 16 MiB psum take 32 ms where the blocking MPI_Allreduce takes 5.
constexpr int kSpinPolls = 2000;
constexpr auto kYieldingWait = std::chrono::milliseconds(200);

MPI_Datatype mpiType(DType t) {
  switch (t) {
    case DType::Bool: return MPI_UINT8_T;  // one byte, 0 or 1: max and min are or and and
    case DType::I32: return MPI_INT32_T;
    case DType::I64: return MPI_INT64_T;
    case DType::U32: return MPI_UINT32_T;
    case DType::U64: return MPI_UINT64_T;
    case DType::F32: return MPI_FLOAT;
    case DType::F64: return MPI_DOUBLE;
    case DType::C64: return MPI_C_FLOAT_COMPLEX;
    case DType::C128: return MPI_C_DOUBLE_COMPLEX;
    // Only moved: a reduction of bf16 / f16 runs in f32 (widen-low-precision, jit/widen.hpp).
    case DType::BF16: case DType::F16: return MPI_UINT16_T;
  }
  return MPI_BYTE;
}

MPI_Op mpiOp(ProcessCombine how) {
  switch (how) {
    case ProcessCombine::Sum: return MPI_SUM;
    case ProcessCombine::Max: return MPI_MAX;
    case ProcessCombine::Min: return MPI_MIN;
  }
  return MPI_SUM;
}

std::string errorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

class MpiGroup : public Collectives {
 public:
  /// `owned`: comm is scn's duplicate of a host's communicator, freed with the group.
  MpiGroup(MPI_Comm comm, double timeoutSeconds, bool owned = false)
      : comm_(comm), timeout_(timeoutSeconds), owned_(owned) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiGroup() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (owned_ && !finalised) MPI_Comm_free(&comm_);
  }
  MpiGroup(const MpiGroup&) = delete;
  MpiGroup& operator=(const MpiGroup&) = delete;
  int processIndex() const override { return rank_; }
  int processCount() const override { return size_; }
  std::string describe() const override { return "mpi(" + std::to_string(size_) + ")"; }

  std::unique_ptr<CollectiveFailure> allReduce(const Array& x, Array& out, ProcessCombine how) override {
    ++counters.calls;
    counters.bytes += static_cast<int64_t>(x.bytes());
    MPI_Request req;
    int rc = MPI_Iallreduce(x.raw(), out.raw(), static_cast<int>(x.size()), mpiType(x.dtype), mpiOp(how), comm_, &req);
    return complete(rc, req, "an allreduce of " + std::to_string(x.bytes()) + " bytes");
  }

  std::unique_ptr<CollectiveFailure> allGather(const Array& x, Array& out, bool resultGather) override {
    ++(resultGather ? counters.resultGathers : counters.calls);
    counters.bytes += static_cast<int64_t>(x.bytes());
    MPI_Request req;
    int bytes = static_cast<int>(x.bytes());
    int rc = MPI_Iallgather(x.raw(), bytes, MPI_BYTE, out.raw(), bytes, MPI_BYTE, comm_, &req);
    return complete(rc, req, "an allgather of " + std::to_string(x.bytes()) + " bytes");
  }

  // Point to point: each process receives the rows other processes send it and sends its own,
  // packed into one message per peer (the plan orders both ends alike).
  std::unique_ptr<CollectiveFailure> permute(const Array& x, Array& out, const std::vector<int64_t>& pairs) override {
    ++counters.calls;
    PermutePlan plan = planPermute(pairs, x.shape.at(0), rank_, size_);
    permuteLocally(plan, rank_, x, out);
    size_t row = rowBytes(x);
    std::vector<std::vector<uint8_t>> inbox(size_), outbox(size_);
    std::vector<MPI_Request> requests;
    size_t sent = 0;
    for (int peer = 0; peer < size_; ++peer) {
      const std::vector<int64_t>& rows = plan.receiveRows[peer];
      if (peer == rank_ || rows.empty() || !row) continue;
      inbox[peer].resize(rows.size() * row);
      requests.emplace_back();
      int rc = MPI_Irecv(inbox[peer].data(), static_cast<int>(inbox[peer].size()), MPI_BYTE, peer, kPermuteTag,
                         comm_, &requests.back());
      if (rc != MPI_SUCCESS) return mpiFailure(rc, "a ppermute receive");
    }
    const auto* rowsOfX = static_cast<const uint8_t*>(x.raw());
    for (int peer = 0; peer < size_; ++peer) {
      const std::vector<int64_t>& rows = plan.sendRows[peer];
      if (peer == rank_ || rows.empty() || !row) continue;
      for (int64_t r : rows) outbox[peer].insert(outbox[peer].end(), rowsOfX + r * row, rowsOfX + (r + 1) * row);
      sent += outbox[peer].size();
      requests.emplace_back();
      int rc = MPI_Isend(outbox[peer].data(), static_cast<int>(outbox[peer].size()), MPI_BYTE, peer, kPermuteTag,
                         comm_, &requests.back());
      if (rc != MPI_SUCCESS) return mpiFailure(rc, "a ppermute send");
    }
    counters.bytes += static_cast<int64_t>(sent);
    auto failure = complete(requests, "a ppermute of " + std::to_string(sent) + " bytes");
    if (failure) {  // MPI may still read and write them: kept for the group's life
      abandoned_.push_back(std::move(inbox));
      abandoned_.push_back(std::move(outbox));
      return failure;
    }
    auto* rowsOfOut = static_cast<uint8_t*>(out.raw());
    for (int peer = 0; peer < size_; ++peer)
      for (size_t k = 0; k < inbox[peer].size() / std::max<size_t>(row, 1); ++k)
        std::memcpy(rowsOfOut + plan.receiveRows[peer][k] * row, inbox[peer].data() + k * row, row);
    return nullptr;
  }

 private:
  // Waits for `req` until the deadline (Note [Polling a collective]).
  std::unique_ptr<CollectiveFailure> complete(int rc, MPI_Request& req, const std::string& what) {
    if (rc != MPI_SUCCESS) return mpiFailure(rc, what);
    std::vector<MPI_Request> requests{req};
    return complete(requests, what);
  }

  // The same for several requests: done when all are.
  std::unique_ptr<CollectiveFailure> complete(std::vector<MPI_Request>& requests, const std::string& what) {
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + std::chrono::duration<double>(timeout_);
    for (int polls = 0;; ++polls) {
      int done = 0;
      int rc = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) return mpiFailure(rc, what);
      if (done) return nullptr;
      auto now = std::chrono::steady_clock::now();
      if (now > deadline) break;
      if (polls < kSpinPolls) continue;
      if (now - start < kYieldingWait) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return std::make_unique<CollectiveFailure>(CollectiveFailure{
        "E0440",
        what + " on process " + std::to_string(rank_) + " of " + std::to_string(size_) +
            " did not complete within " + secondsText() + " s",
        "another process exited early or ran a different collective; every process must run the "
        "same collectives in the same order (SCN_COLLECTIVE_TIMEOUT=SECONDS sets the limit)"});
  }

  std::unique_ptr<CollectiveFailure> mpiFailure(int rc, const std::string& what) const {
    return std::make_unique<CollectiveFailure>(CollectiveFailure{
        "E0441", what + " on process " + std::to_string(rank_) + " failed in MPI: " + errorText(rc),
        "a process of the run may have died; see the messages of the other processes"});
  }

  std::string secondsText() const {
    std::string s = std::to_string(timeout_);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

  MPI_Comm comm_;
  std::vector<std::vector<std::vector<uint8_t>>> abandoned_;  // buffers of ppermutes that failed
  double timeout_;
  bool owned_;
  int rank_ = 0, size_ = 1;
};

bool startedByMpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace

double collectiveTimeoutSeconds() {
  const char* v = std::getenv("SCN_COLLECTIVE_TIMEOUT");
  if (!v) return 60;
  char* end = nullptr;
  double s = std::strtod(v, &end);
  return end != v && s > 0 ? s : 60;
}

World startWorld(int* argc, char*** argv) {
  World w;
  if (!startedByMpirun()) return w;
  int rc = MPI_Init(argc, argv);
  if (rc != MPI_SUCCESS) {
    w.error = "MPI_Init failed: " + errorText(rc);
    return w;
  }
  weStartedMpi = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  w.group = std::make_shared<MpiGroup>(MPI_COMM_WORLD, collectiveTimeoutSeconds());
  return w;
}

void finishWorld() {
  if (weStartedMpi) MPI_Finalize();
  weStartedMpi = false;
}

// Note [Ending a run that failed]
// After a collective failed, every waiting process calls abortWorld at about the same time (they
// all reach the deadline together), and Open MPI has had races in which concurrent MPI_Aborts
// hang (open-mpi/ompi-release#101): CI once saw such a run outlive its 60 s limit, not
// reproducible in hundreds of runs since. So a process gives MPI_Abort kAbortGrace to end it and
// then ends itself; mpirun sees a process exit without MPI_Finalize and ends the others.
constexpr auto kAbortGrace = std::chrono::seconds(5);

void abortWorld(int code) {
  if (weStartedMpi) {
    std::thread([code] {
      std::this_thread::sleep_for(kAbortGrace);
      std::_Exit(code);
    }).detach();
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  std::exit(code);
}

// Note [A host's communicator]
// An embedding host that runs under MPI hands a context its communicator (scn_options'
// mpi_communicator, ContextOptions::mpiCommunicator: a pointer to an MPI_Comm, so scn's headers
// need no mpi.h). The host owns MPI: scn never calls MPI_Init or MPI_Finalize for it, and it
// checks that MPI is initialised and not finalised before touching the communicator. scn works
// on a duplicate (MPI_Comm_dup), as MPI advises libraries: its collectives cannot match the
// host's own messages on that communicator, the MPI_ERRORS_RETURN handler scn needs is set on
// the duplicate only, and the host may free its communicator at once. The duplicate is freed
// with the context (skipped when the host has finalised MPI by then). MPI_Comm_dup is
// collective, so every process of the communicator creates its context at the same point, as
// every process runs the same collectives in the same order anyway.
std::shared_ptr<Collectives> groupOverCommunicator(const void* communicator, std::string& error) {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised) {
    error = "MPI is not initialised: call MPI_Init before handing scn a communicator";
    return nullptr;
  }
  if (finalised) {
    error = "MPI has been finalised: create contexts before MPI_Finalize (and free them before it)";
    return nullptr;
  }
  MPI_Comm comm = *static_cast<const MPI_Comm*>(communicator);
  if (comm == MPI_COMM_NULL) {
    error = "the communicator is MPI_COMM_NULL";
    return nullptr;
  }
  MPI_Comm own = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(comm, &own);
  if (rc != MPI_SUCCESS) {
    error = "MPI_Comm_dup failed: " + errorText(rc);
    return nullptr;
  }
  MPI_Comm_set_errhandler(own, MPI_ERRORS_RETURN);
  return std::make_shared<MpiGroup>(own, collectiveTimeoutSeconds(), true);
}

}  // namespace scn::dist
