#include "jit/transform/binomial_schedule.hpp"

#include <algorithm>

#include "base/diagnostics.hpp"

namespace scn::ad {

// Note [Binomial checkpointing]
// scan(..., checkpoints=k) with an integer k keeps at most k carries for the reverse pass and
// recomputes the others, with the fewest recomputed steps any schedule with k stored carries can
// have (Griewank 1992, "Achieving logarithmic growth of temporal and spatial complexity in
// reverse automatic differentiation"; Griewank and Walther's revolve). The schedule is computed
// here from the two static numbers; the IR that runs it is in vjp_control.cpp.
//
// Reversing steps [a, b) with c_a stored and s free slots: when s = 0, every step i is reached by
// advancing from c_a again (quadratic); otherwise advance to some m, store c_m in a free slot,
// reverse [m, b) with s - 1 free slots, then reverse [a, m) with s free slots (c_m's slot is free
// again). With r "repetitions" (the most times a step is run forwards in the reverse pass),
// s free slots reverse at most B(s, r) = C(s + r + 1, r) steps: B(0, r) = r + 1 (each reverse
// step advances from c_a), B(s, 0) = 1, and B(s, r) = B(s - 1, r) + B(s, r - 1) (the right part
// has one slot fewer, the left part one repetition fewer, as its steps were just run once). The
// split that makes the total forward work minimal is any m with
//     max(n - B(s-1, r), B(s, r-2), 1) <= m <= min(B(s, r-1), n - B(s-1, r-1), n - 1)
// for the smallest r with n <= B(s, r): both parts within their bounds, and neither part so
// short that the other must take an extra repetition. The range was derived by comparing with
// an exhaustive minimisation over every m for n < 200, s < 9 (both ends are optimal there);
// tests/unit/transform_autodiff_test.cpp checks the schedule against that minimisation.
//
// The schedule is recorded in groups, one per reverse step; the first group's stores happen
// while the forward pass runs anyway, so the reverse pass starts from the last of them.

namespace {

constexpr int64_t kSaturated = INT64_MAX / 4;

// C(s + r + 1, r), saturating: the steps s free slots reverse in r repetitions.
int64_t reversible(int64_t s, int64_t r) {
  if (r < 0 || s < 0) return 0;
  int64_t v = 1;  // C(s + 1 + i, i) for i = 0..r
  for (int64_t i = 1; i <= r; ++i) {
    __int128 next = static_cast<__int128>(v) * (s + 1 + i) / i;
    if (next > kSaturated) return kSaturated;
    v = static_cast<int64_t>(next);
  }
  return v;
}

int64_t split(int64_t n, int64_t s) {
  int64_t r = 0;
  while (reversible(s, r) < n) ++r;
  int64_t lo = std::max({n - reversible(s - 1, r), reversible(s, r - 2), int64_t{1}});
  int64_t hi = std::min({reversible(s, r - 1), n - reversible(s - 1, r - 1), n - 1});
  if (lo > hi) internalError("binomial schedule: no split for " + std::to_string(n) + " steps");
  return lo;
}

class Planner {
 public:
  BinomialSchedule plan(int64_t steps, int64_t slots) {
    std::vector<int64_t> free;
    for (int64_t slot = slots - 1; slot >= 1; --slot) free.push_back(slot);
    s_.slotsUsed = 1;
    reverse(0, steps, 0, free);
    // The first sweep's stores are the forward pass's; the reverse pass starts after them.
    BinomialSchedule::Group& first = s_.groups.front();
    s_.forwardStores = std::move(first.stores);
    first.stores.clear();
    if (!s_.forwardStores.empty()) {
      first.restoreSlot = s_.forwardStores.back().slot;
      first.restorePosition = s_.forwardStores.back().position;
    }
    for (const BinomialSchedule::Group& g : s_.groups) s_.recomputedSteps += g.step - g.restorePosition;
    return std::move(s_);
  }

 private:
  // Reverses steps [a, b) with c_a in slot `at` and the slots `free` unused.
  void reverse(int64_t a, int64_t b, int64_t at, std::vector<int64_t>& free) {
    int64_t n = b - a;
    if (n == 1 || free.empty()) {
      for (int64_t i = b - 1; i >= a; --i) {
        restore(at, a);
        finish(i);
      }
      return;
    }
    int64_t m = a + split(n, static_cast<int64_t>(free.size()));
    restore(at, a);
    int64_t slot = free.back();
    free.pop_back();
    s_.slotsUsed = std::max(s_.slotsUsed, slot + 1);
    pending_.stores.push_back({m, slot});
    current_ = m;
    reverse(m, b, slot, free);
    free.push_back(slot);
    reverse(a, m, at, free);
  }

  // The group being built restores c_position from `slot`, unless it is the carry in hand (the
  // one just stored, or c_0 at the start).
  void restore(int64_t slot, int64_t position) {
    if (current_ == position) return;
    pending_.restoreSlot = slot;
    pending_.restorePosition = position;
    current_ = position;
  }

  void finish(int64_t step) {
    pending_.step = step;
    s_.groups.push_back(std::move(pending_));
    pending_ = {};
    current_ = -1;  // the carry in hand was consumed by the reverse step
  }

  BinomialSchedule s_;
  BinomialSchedule::Group pending_;  // restores c_0 from slot 0 unless told otherwise
  int64_t current_ = 0;
};

}  // namespace

BinomialSchedule binomialSchedule(int64_t steps, int64_t slots) {
  if (steps < 1 || slots < 1) internalError("binomial schedule of " + std::to_string(steps) + " steps");
  return Planner{}.plan(steps, slots);
}

}  // namespace scn::ad
