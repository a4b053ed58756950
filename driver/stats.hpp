// What --stats and the REPL's `:stats` print: a line per compiled-function call and a summary
// per function (Note [Stats fields] in stats.cpp).
#pragma once

#include <string>
#include <vector>

#include "jit/collectives.hpp"
#include "lang/eval.hpp"

namespace scn {

/// One line for a call: "stats: f traced backend=cpu trace=... sig=f(f32[8])", and for a
/// retrace "retraced: <why>" (Note [Retrace reasons] in lang/compile_cache.cpp).
std::string formatCallStats(const CallRecord& r);

/// One line per function over `records` (in the order each was first called): calls, compiles,
/// cache hits, compile and run milliseconds, peak bytes, and the signatures it was compiled for.
std::string formatStatsSummary(const std::vector<CallRecord>& records);
/// "process 1 of 2: 3 collective calls, 1 result gather, 4096 bytes sent\n" (--stats and
/// SCN_DIST_STATS=1 under mpirun).
std::string formatCollectiveStats(const Collectives& group);

}  // namespace scn
