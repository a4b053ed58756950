// The binomial (revolve) checkpointing schedule of a scan's reverse pass (Note [Binomial
// checkpointing] in binomial_schedule.cpp): which carries to store in which of k slots, and where
// each reverse step restores from and advances to. Pure arithmetic on step counts, no IR.
#pragma once

#include <cstdint>
#include <vector>

namespace scn::ad {

/// Positions count steps in the order the scan runs them: c_t is the carry entering step t
/// (c_0 the initial carry, always in slot 0).
struct BinomialSchedule {
  struct Store {
    int64_t position, slot;
  };
  /// The stores of the first sweep, ascending: the forward pass makes them as it runs.
  std::vector<Store> forwardStores;
  /// One group per reverse step, in the order they run (step n-1 first): restore the carry in
  /// `restoreSlot` (which holds c_restorePosition), advance to `step`, making `stores` (ascending
  /// positions in (restorePosition, step]) on the way, then run step `step` backwards.
  struct Group {
    int64_t step = 0, restoreSlot = 0, restorePosition = 0;
    std::vector<Store> stores;
  };
  std::vector<Group> groups;
  int64_t slotsUsed = 0;        // at most the slots asked for
  int64_t recomputedSteps = 0;  // forward steps the reverse pass runs (the sum of the advances)
};

/// The schedule for `steps` steps with `slots` >= 1 stored carries (slot 0 holds c_0) that runs
/// the fewest forward steps in the reverse pass (Griewank and Walther's binomial bound).
BinomialSchedule binomialSchedule(int64_t steps, int64_t slots);

}  // namespace scn::ad
