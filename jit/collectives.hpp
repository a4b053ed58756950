// The interface the backends call for collectives over the processes of a run (Note [Named
// axes] in jit/transform/batch_collectives.cpp). jit/ never includes MPI: dist/ implements this
// over Open MPI; singleProcessGroup() is the group of a run without mpirun.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "jit/array.hpp"

namespace scn {

enum class Op : uint8_t;  // jit/ir.hpp

/// How a process collective combines the processes' values elementwise.
enum class ProcessCombine : uint8_t { Sum, Max, Min };

/// Why a collective did not complete: an error code (E0440-E0449, docs/errors/distributed.md),
/// the message and the help line. The backend turns it into a diagnostic at the op's span.
struct CollectiveFailure {
  std::string code, message, help;
};

/// Figures of a group's collectives so far (shown by `scn --stats` and SCN_DIST_STATS=1).
struct CollectiveCounters {
  int64_t calls = 0;        // collectives a program made (psum, all_gather, ... across processes)
  int64_t resultGathers = 0;  // gathers that assemble a pmap's results (not counted in calls)
  int64_t bytes = 0;        // bytes this process sent into them
};

/// The processes of a run. Every process calls the same collectives in the same order (they
/// run the same program); an implementation reports one that does not complete in bounded time
/// as a CollectiveFailure rather than waiting for ever.
class Collectives {
 public:
  virtual ~Collectives() = default;
  virtual int processIndex() const = 0;
  virtual int processCount() const = 0;
  /// What the group is, for messages and --emit=ir ("world(4)", "single").
  virtual std::string describe() const = 0;
  /// `out` (allocated, x's dtype and shape) = the elementwise combination of every process's x.
  virtual std::unique_ptr<CollectiveFailure> allReduce(const Array& x, Array& out, ProcessCombine how) = 0;
  /// `out` (allocated, [P * x.shape[0], ...]) = the processes' x stacked along axis 0 in
  /// process order. `resultGather`: assembling a pmap's results (counted apart).
  virtual std::unique_ptr<CollectiveFailure> allGather(const Array& x, Array& out, bool resultGather) = 0;
  /// `out` (allocated, x's dtype and shape [L, ...]) = ppermute over the P * L lanes of the
  /// processes, each holding L consecutive lanes as the rows of x: `pairs` = (source,
  /// destination, ...) global lanes; a destination's row is its source's, other rows zeros.
  /// Only the rows that cross processes are sent (point to point).
  virtual std::unique_ptr<CollectiveFailure> permute(const Array& x, Array& out, const std::vector<int64_t>& pairs) = 0;
  CollectiveCounters counters;
};

/// What a ppermute moves, seen from one process: by peer process, the local rows it sends
/// there and the local rows it receives from there, in the order of the pairs (so the k-th row
/// sent to q is the k-th row q receives from this process). The peer itself: local copies.
struct PermutePlan {
  std::vector<std::vector<int64_t>> sendRows, receiveRows;
};
PermutePlan planPermute(const std::vector<int64_t>& pairs, int64_t lanesPerProcess, int process, int processes);
/// out = zeros with the plan's local rows copied from x (the part of a permute that stays here).
void permuteLocally(const PermutePlan& plan, int process, const Array& x, Array& out);
/// The bytes of one row of x (a lane's slice).
size_t rowBytes(const Array& x);

/// A process collective op as the backends run it: the op (ProcessSum/Max/Min/Gather/Permute),
/// whether a ProcessGather assembles a pmap's results (EqnAttrs::resultGather), a
/// ProcessPermute's global lane pairs (EqnAttrs::axes).
struct ProcessCollectiveCall {
  Op op;
  bool resultGather = false;
  std::vector<int64_t> pairs;
};

struct Func;
/// Whether `f` or one of its sub-functions has a process collective (batch_control.cpp's
/// while_loop under pmap asks: its condition then agrees across the processes).
bool usesProcessCollectives(const Func& f);

/// Runs one process collective op of `group` from x into out (allocated, the op's result type):
/// what the interpreter and the compiled backends' Collective steps call. Null when it completed.
std::unique_ptr<CollectiveFailure> runProcessCollective(Collectives& group, const ProcessCollectiveCall& call,
                                                        const Array& x, Array& out);
/// The same on host memory someone else owns (a compiled program's buffers), of dtype `dtype`
/// and shapes xShape and outShape: borrowed, not copied.
std::unique_ptr<CollectiveFailure> runProcessCollective(Collectives& group, const ProcessCollectiveCall& call,
                                                        DType dtype, const Shape& xShape, const void* x,
                                                        const Shape& outShape, void* out);

/// The group of a run with one process: every collective copies its operand.
std::shared_ptr<Collectives> singleProcessGroup();

}  // namespace scn
