// The expand-associative-scans pass: associative_scan ops as log-depth odd-even rounds.
#pragma once

#include "jit/ir.hpp"

namespace scn {

/// Replaces every associative_scan equation of `f` (and of its sub-functions) by the odd-even
/// rounds of slices, concats and inlined combiners that compute it (Note [Odd-even associative
/// scan] in expand_assoc_scan.cpp); returns whether anything changed.
bool expandAssociativeScans(Func& f);

/// Emits the odd-even rounds of one associative_scan equation `scan` (which need not be in dst)
/// into dst and returns the variables of its results.
std::vector<int> emitAssociativeScanRounds(Func& dst, const Eqn& scan);

}  // namespace scn
