// The pieces of scan's reverse mode (vjp_control.cpp) that the binomial checkpointing schedule
// (vjp_binomial.cpp) builds on. Internal to jit/transform.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "jit/transform/ad.hpp"

namespace scn::ad::scan_vjp {

std::vector<int> slice(const std::vector<int>& v, size_t a, size_t z);

/// The backward body: (consts, ct carry, ct consts so far, stored carry, stored residuals, x,
/// ct y) -> (ct carry before the step, ct consts so far, ct x).
FuncPtr backwardBody(const Func& body, size_t nc, size_t nk, size_t nx, const std::vector<bool>& saved,
                     const VjpOptions& o);
/// The ys' cotangents of a scan, zeros where they are symbolic.
std::vector<int> ysCotangents(Builder& b, const Func& body, const Attrs& attrs, const std::vector<Tan>& ct);
/// (ct carry, ct consts, ct xs) as the cotangents of the scan's inputs (consts, carry, xs).
std::vector<Tan> inputCotangents(const std::vector<int>& r, size_t nc, size_t nk, const std::vector<bool>& need);
/// Reverse mode of a scan equation.
Forward scan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need, const VjpOptions& o);

/// `segments` segments of `steps` steps that start at step `first` (in index order of the xs).
struct SegmentRun {
  int64_t first, segments, steps;
};
Attrs segmentAttrs(const Attrs& attrs, int64_t steps);
Attrs outerAttrs(const Attrs& attrs, int64_t segments, int numCarry);
/// x[first : first + segments * steps] reshaped to (segments, steps, ...), and back.
int segmentsOf(Builder& b, int x, const SegmentRun& run);
int flatSegments(Builder& b, int x);
/// Concatenates pieces along axis 0 in order.
int concatRuns(Builder& b, std::vector<int> pieces);

/// scan(..., checkpoints=k) with evenly spaced segments (Note [Scan checkpoints]); `mark`
/// records why (the budget's figures when the budget chose it).
Forward checkpointedScan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need,
                         Attrs::CheckpointMark mark, const VjpOptions& o);
/// scan(..., checkpoints=k) with the binomial schedule (Note [Binomial checkpointing]); `budget`
/// carries the grad memory budget's figures when the budget chose it.
Forward binomialScan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need,
                     const VjpOptions& o, Attrs::CheckpointMark budget = {});
/// A scan without `checkpoints=` checkpointed when storing every step exceeds the grad memory
/// budget (Note [Grad memory budget] in grad_budget.cpp); nothing when it fits.
std::optional<Forward> budgetCheckpointedScan(Builder& b, const Eqn& e, const std::vector<int>& in,
                                              const std::vector<bool>& need, const ScanResiduals& residuals,
                                              const VjpOptions& o);
/// A while loop with a static bound (Attrs::length) as a scan of guarded steps.
Forward boundedWhile(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need,
                     const VjpOptions& o);

}  // namespace scn::ad::scan_vjp
