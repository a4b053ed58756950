// The grad memory budget: how reverse mode checkpoints a scan written without `checkpoints=`
// whose stored carries and residuals would not fit (Note [Grad memory budget]).
#include <cstdlib>

#include "jit/autodiff.hpp"
#include "jit/disk_cache.hpp"
#include "jit/transform/binomial_schedule.hpp"
#include "jit/transform/vjp_scan.hpp"

namespace scn::ad::scan_vjp {

// Note [Grad memory budget]
// A scan without `checkpoints=` (Attrs::checkpoints 0) stores one carry and the residuals of
// one step (Note [Scan residuals]) per step in reverse mode while those n steps' values fit
// VjpOptions::gradMemoryBudget (1 GiB unless the CLI, the API or SCN_GRAD_MEMORY_BUDGET says
// otherwise). Past it, reverse mode checkpoints the scan by itself, choosing the cheapest
// schedule that fits:
// - Segments as with checkpoints="sqrt" (Note [Scan checkpoints]): k = ceil(sqrt(n)) stored
//   carries plus one segment's L = ceil(n / k) steps of carries and residuals, the fewest the
//   one-level schedule can store, for exactly one more forward evaluation of each step (every k
//   costs that, so the fewest carries is the best k). Taken when it fits, and only when it
//   stores fewer carries than the plain scan (k + L < n).
// - When those segments do not fit either (a long scan of big steps), the binomial schedule
//   (Note [Binomial checkpointing]) with as many carry slots as fit beside one step's residuals:
//   it holds one step's residuals at a time, never a segment's, so it fits where segments do not,
//   at the price of more recomputation: its advances between stored carries, plus the one
//   evaluation of each step that the step's backward makes. Taken while those come to at most
//   kMostRecomputationPerStep forward evaluations per step (a budget far too small for the scan
//   would otherwise make a gradient quadratic in n without anyone asking); past that, the
//   segments, the least memory of the cheap schedules, over the budget.
// The sizes are static (every shape is), so the decision is made once, when the gradient is
// traced; the gradient is the stored-residual gradient bit for bit in every case, and --stats
// reports the switch with the bytes and the budget (Attrs::CheckpointMark). Nested scans decide
// on their own sizes.

namespace {

constexpr int64_t kMostRecomputationPerStep = 3;

// The bytes a scan stores in reverse mode without checkpoints: every step's carry and residuals
// (saturating).
uint64_t storedBytes(const ScanResiduals& residuals, int64_t steps) {
  uint64_t perStep = residuals.bytesPerStep;
  uint64_t n = static_cast<uint64_t>(steps);
  if (perStep != 0 && n > UINT64_MAX / perStep) return UINT64_MAX;
  return perStep * n;
}

// ceil(sqrt(n)), exact in integers.
int64_t sqrtCheckpoints(int64_t n) {
  int64_t k = 0;
  while (k * k < n) ++k;
  return k;
}

// The carry slots that fit in `budget` beside one step's residuals, at most steps - 1.
int64_t slotsWithin(uint64_t budget, const ScanResiduals& residuals, int64_t steps) {
  if (residuals.carryBytes == 0 || budget <= residuals.bytesPerStep) return 0;
  uint64_t slots = (budget - residuals.bytesPerStep) / residuals.carryBytes;
  return static_cast<int64_t>(std::min<uint64_t>(slots, static_cast<uint64_t>(steps - 1)));
}

}  // namespace

std::optional<Forward> budgetCheckpointedScan(Builder& b, const Eqn& e, const std::vector<int>& in,
                                              const std::vector<bool>& need, const ScanResiduals& residuals,
                                              const VjpOptions& o) {
  int64_t n = e.attrs.length;
  uint64_t bytes = storedBytes(residuals, n), budget = o.gradMemoryBudget;
  int64_t k = sqrtCheckpoints(n), segment = k > 0 ? (n + k - 1) / k : 0;
  if (bytes <= budget || k + segment >= n) return std::nullopt;
  Attrs::CheckpointMark mark{true, bytes, budget};
  uint64_t segmentsBytes = static_cast<uint64_t>(k) * residuals.carryBytes + storedBytes(residuals, segment);
  int64_t slots = slotsWithin(budget, residuals, n);
  if (segmentsBytes > budget && slots >= 2 &&
      binomialSchedule(n, slots).recomputedSteps + n <= kMostRecomputationPerStep * n) {
    Eqn binomial = e;
    binomial.attrs.checkpoints = slots;
    binomial.attrs.binomial = true;
    return binomialScan(b, binomial, in, need, o, mark);
  }
  Eqn segments = e;
  segments.attrs.checkpoints = k;
  return checkpointedScan(b, segments, in, need, mark, o);
}

}  // namespace scn::ad::scan_vjp

namespace scn {

uint64_t gradMemoryBudgetFromEnvironment() {
  if (const char* v = std::getenv("SCN_GRAD_MEMORY_BUDGET"); v && *v)
    if (std::optional<uint64_t> n = parseByteSize(v)) return *n;
  return kDefaultGradMemoryBudget;
}

}  // namespace scn
