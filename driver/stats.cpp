// --stats: a line per compiled-function call and a summary per function.
#include "driver/stats.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace scn {

namespace {

/// --stats' cache field of a traced call: where its code came from.
const char* cacheState(const CallRecord& r) {
  if (!r.traced) return "";
  if (r.cacheHit) return " cache=hit";
  return r.cacheRejected ? " cache=rejected" : " cache=miss";
}

// Note [Stats fields]
// The summary is a fold of the records with one row of kSummaryFields per column: its name, how
// calls combine (a sum or a maximum) and its unit. A new CallRecord figure (say, bytes updated
// in place) becomes a summary column by adding a row here; nothing else changes.
enum class Combine { Sum, Max };
enum class Unit { Count, Ms, Bytes };
struct SummaryField {
  const char* name;
  Combine combine;
  Unit unit;
  double (*value)(const CallRecord&);
  bool hiddenWhenZero = false;    // a figure most functions do not have
  bool measuredOnly = false;      // "-" when a call ran where it is not measured (the interpreter)
};

const SummaryField kSummaryFields[] = {
    {"calls", Combine::Sum, Unit::Count, [](const CallRecord&) { return 1.0; }},
    {"compiles", Combine::Sum, Unit::Count, [](const CallRecord& r) { return r.traced ? 1.0 : 0.0; }},
    {"cache-hits", Combine::Sum, Unit::Count, [](const CallRecord& r) { return r.cacheHit ? 1.0 : 0.0; }},
    {"compile", Combine::Sum, Unit::Ms,
     [](const CallRecord& r) { return r.traceMs + r.optimiseMs + r.codegenMs; }},
    {"run", Combine::Sum, Unit::Ms, [](const CallRecord& r) { return r.runMs; }},
    {"peak", Combine::Max, Unit::Bytes, [](const CallRecord& r) { return double(r.peakBytes); }, false, true},
    {"device-peak", Combine::Max, Unit::Bytes, [](const CallRecord& r) { return double(r.devicePeakBytes); },
     true},
    {"copied", Combine::Sum, Unit::Bytes, [](const CallRecord& r) { return double(r.copiedBytes); }, true},
    {"in-place", Combine::Sum, Unit::Count, [](const CallRecord& r) { return double(r.inPlaceUpdates); }, true},
    {"checkpointed-carries", Combine::Sum, Unit::Count, [](const CallRecord& r) { return double(r.checkpointedCarries); },
     true},
    {"recomputed-steps", Combine::Sum, Unit::Count, [](const CallRecord& r) { return double(r.recomputedSteps); }, true},
    // Why scans were checkpointed without `checkpoints=`: the carries they would have stored
    // (the most of one scan) exceed the grad memory budget (Note [Grad memory budget]).
    {"auto-checkpointed", Combine::Max, Unit::Count,
     [](const CallRecord& r) { return double(r.autoCheckpointedScans); }, true},
    {"uncheckpointed-residuals", Combine::Max, Unit::Bytes,
     [](const CallRecord& r) { return double(r.uncheckpointedBytes); }, true},
    {"grad-memory-budget", Combine::Max, Unit::Bytes, [](const CallRecord& r) { return double(r.gradMemoryBudget); },
     true},
};
constexpr size_t kFieldCount = sizeof kSummaryFields / sizeof kSummaryFields[0];

std::string formatField(const SummaryField& f, double v) {
  char buf[64];
  switch (f.unit) {
    case Unit::Count: std::snprintf(buf, sizeof buf, "%s=%.0f", f.name, v); break;
    case Unit::Ms: std::snprintf(buf, sizeof buf, "%s=%.3fms", f.name, v); break;
    case Unit::Bytes: std::snprintf(buf, sizeof buf, "%s=%.0fB", f.name, v); break;
  }
  return buf;
}

struct FunctionTotals {
  double totals[kFieldCount] = {};
  std::vector<std::string> signatures;  // compiled, in order
  bool measured = true;
};

}  // namespace

std::string formatCallStats(const CallRecord& r) {
  std::string peak = r.measured ? std::to_string(r.peakBytes) + "B" : "-";
  std::string device = r.device ? std::to_string(r.devicePeakBytes) + "B" : "none";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "stats: %s %s backend=%s trace=%.2fms optimise=%.2fms codegen=%.2fms run=%.3fms "
                "kernels=%d peak=%s device=%s copied=%zuB in-place=%lld%s",
                r.fn.c_str(), r.traced ? "traced" : "cached", r.backend.c_str(), r.traceMs, r.optimiseMs,
                r.codegenMs, r.runMs, r.kernels, peak.c_str(), device.c_str(), r.copiedBytes,
                static_cast<long long>(r.inPlaceUpdates), cacheState(r));
  std::string line = buf;
  if (!r.signature.empty()) line += " sig=" + r.signature;
  if (!r.retrace.empty()) line += " retraced: " + r.retrace;
  return line + "\n";
}

std::string formatStatsSummary(const std::vector<CallRecord>& records) {
  std::vector<std::string> order;
  std::map<std::string, FunctionTotals> byName;
  for (const CallRecord& r : records) {
    auto [it, isNew] = byName.try_emplace(r.fn);
    if (isNew) order.push_back(r.fn);
    FunctionTotals& t = it->second;
    for (size_t i = 0; i < kFieldCount; ++i) {
      double v = kSummaryFields[i].value(r);
      t.totals[i] = kSummaryFields[i].combine == Combine::Sum ? t.totals[i] + v : std::max(t.totals[i], v);
    }
    t.measured = t.measured && r.measured;
    if (r.traced && !r.signature.empty() &&
        std::find(t.signatures.begin(), t.signatures.end(), r.signature) == t.signatures.end())
      t.signatures.push_back(r.signature);
  }
  std::string out;
  if (order.empty()) return "stats: summary: no compiled function ran\n";
  out += "stats: summary of " + std::to_string(order.size()) + (order.size() == 1 ? " function\n" : " functions\n");
  for (const std::string& name : order) {
    const FunctionTotals& t = byName[name];
    out += "stats:   " + name + ":";
    for (size_t i = 0; i < kFieldCount; ++i) {
      const SummaryField& f = kSummaryFields[i];
      if (f.hiddenWhenZero && t.totals[i] == 0) continue;
      out += " ";
      out += f.measuredOnly && !t.measured ? std::string(f.name) + "=-" : formatField(f, t.totals[i]);
    }
    if (!t.signatures.empty()) {
      out += " compiled for ";
      for (size_t i = 0; i < t.signatures.size(); ++i) out += (i ? ", " : "") + t.signatures[i];
    }
    out += "\n";
  }
  return out;
}

std::string formatCollectiveStats(const Collectives& group) {
  const CollectiveCounters& c = group.counters;
  auto count = [](int64_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  return "process " + std::to_string(group.processIndex()) + " of " + std::to_string(group.processCount()) + ": " +
         count(c.calls, "collective call") + ", " + count(c.resultGathers, "result gather") + ", " +
         std::to_string(c.bytes) + " bytes sent\n";
}

}  // namespace scn
