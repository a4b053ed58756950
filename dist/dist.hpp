// The process group of a run under mpirun, over Open MPI (Note [Named axes] in
// jit/transform/batch_collectives.cpp). Only dist/ includes mpi.h; this header does not, so the
// driver and the embedding API pass a host's communicator as a pointer to its MPI_Comm.
#pragma once

#include <memory>
#include <string>

#include "jit/collectives.hpp"

namespace scn::dist {

/// The world of an mpirun run, or why there is none.
struct World {
  std::shared_ptr<Collectives> group;  // null: not started under mpirun (one process)
  std::string error;                   // non-empty: MPI could not start (E0443)
};

/// Starts MPI when this process was started by mpirun (Open MPI's or a PMI environment), with
/// errors returned (MPI_ERRORS_RETURN) rather than aborting. Call once, before any collective.
World startWorld(int* argc, char*** argv);
/// Ends MPI after a normal run (MPI_Finalize); nothing when startWorld did not start it.
void finishWorld();
/// Ends every process of the run with `code` (MPI_Abort): after a process collective failed,
/// the other processes may be waiting in it for ever.
[[noreturn]] void abortWorld(int code);

/// A group over a duplicate (MPI_Comm_dup, collective over the communicator) of the MPI_Comm
/// that `communicator` points at, which an embedding host owns (Note [A host's communicator]).
/// MPI must be initialised by the host, and not yet finalised. Null with `error` set (why, for
/// E0444) when the communicator cannot be used.
std::shared_ptr<Collectives> groupOverCommunicator(const void* communicator, std::string& error);

/// How long a process collective may wait for the other processes before it fails with E0440:
/// SCN_COLLECTIVE_TIMEOUT (seconds, > 0), else 60.
double collectiveTimeoutSeconds();

}  // namespace scn::dist
