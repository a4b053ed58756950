// Fuzz target: generated well-typed programs, traced and run on the interpreter and the CPU JIT,
// and run eagerly at top level; all three must agree.
//
// The bytes drive program_gen.cpp (random shapes and dtypes, builtins, scan/vmap/fori_loop/
// while_loop/cond nesting). Findings: a crash or sanitizer report anywhere; an internal error
// (E9999); one run failing where another succeeds; interp and cpu failing with different codes;
// results that differ in structure, dtype, shape or (beyond a tolerance) value.
// SCN_FUZZ_PRINT=1 prints each generated program to stderr (to read a reproducer).
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "fuzz_util.hpp"
#include "driver/session.hpp"
#include "program_gen.hpp"

using namespace scn;

namespace {

struct Outcome {
  bool ok = false;
  Value value;
  std::string error;  // "E0123: message" of the first error
  std::string code;
};

Outcome runProgram(const std::string& backend, const std::string& text) {
  SessionOptions opts;
  opts.backend = backend;
  Outcome o;
  // Checked and rendered as they come (their spans die with a program that fails to parse).
  opts.onDiagnostic = [&](const Diagnostic& d) {
    fuzz::checkDiagnostic(d, text);
    if (d.severity == Severity::Error && o.code.empty()) {
      o.code = d.code;
      o.error = render(d);
    }
  };
  Session s(opts);
  try {
    o.ok = s.run("gen.scn", text, &o.value);
  } catch (const std::exception& e) {
    fuzz::finding("Session::run threw on " + backend + ": " + e.what(), text);
  }
  return o;
}

/// Appends a description of the first difference between a and b to `diff` (empty when equal).
void compareValues(const Value& a, const Value& b, const std::string& path, std::string& diff) {
  if (!diff.empty()) return;
  if (a.kind != b.kind) {
    diff = path + ": kinds differ: " + describe(a) + " vs " + describe(b);
    return;
  }
  if (a.isTuple()) {
    if (a.elems->size() != b.elems->size()) {
      diff = path + ": tuple sizes differ";
      return;
    }
    for (size_t i = 0; i < a.elems->size(); ++i) compareValues((*a.elems)[i], (*b.elems)[i], path + "." + std::to_string(i), diff);
    return;
  }
  if (!a.isArray()) return;
  if (!a.array->concrete || !b.array->concrete) {
    diff = path + ": a result is not concrete";
    return;
  }
  const Array& x = *a.array->concrete;
  const Array& y = *b.array->concrete;
  // Compare what the language reports (describe: "i32[3]"): a weak host integer at top level is
  // an i64 value reported as i32 (finding 4 in docs/hardening.md), so buffers may differ in width.
  if (describe(a) != describe(b) || x.shape != y.shape) {
    diff = path + ": " + describe(a) + " vs " + describe(b) + " (buffers " + dtypeName(x.dtype) + shapeString(x.shape) +
           " vs " + dtypeName(y.dtype) + shapeString(y.shape) + "; weak " + std::to_string(a.array->weak) + " vs " +
           std::to_string(b.array->weak) + "; values " + formatArray(x) + " vs " + formatArray(y) + ")";
    return;
  }
  bool fl = isFloat(x.dtype);
  double scale = 0;
  if (fl)
    for (int64_t i = 0; i < x.size(); ++i)
      if (std::isfinite(x.getDouble(i))) scale = std::max(scale, std::fabs(x.getDouble(i)));
  double rtol = x.dtype == DType::F64 ? 1e-9 : 2e-3;
  double atol = rtol * (1 + scale);
  for (int64_t i = 0; i < x.size(); ++i) {
    bool same;
    if (fl) {
      double p = x.getDouble(i), q = y.getDouble(i);
      same = (std::isnan(p) && std::isnan(q)) || p == q ||
             (std::isfinite(p) && std::isfinite(q) && std::fabs(p - q) <= atol + rtol * std::max(std::fabs(p), std::fabs(q)));
    } else {
      same = x.getUInt(i) == y.getUInt(i);
    }
    if (!same) {
      diff = path + "[" + std::to_string(i) + "] differs: " + formatArray(x) + "\n  vs " + formatArray(y);
      return;
    }
  }
}

/// `strictFailure`: a failure of either side alone is a finding (interp vs cpu). Otherwise only
/// `b` failing alone is: eager evaluation may accept what tracing rejects (cond evaluates only
/// the branch taken), never the other way round.
void compareOutcomes(const Outcome& a, const Outcome& b, const char* what, bool strictFailure, const std::string& program) {
  if (a.ok != b.ok && (strictFailure || a.ok)) {
    fuzz::finding(std::string(what) + ": one run failed, the other did not:\n" + (a.ok ? b.error : a.error), program);
  }
  if (!a.ok || !b.ok) {
    if (strictFailure && a.code != b.code)
      fuzz::finding(std::string(what) + ": different errors:\n" + a.error + "\n--- vs ---\n" + b.error, program);
    return;
  }
  std::string diff;
  compareValues(a.value, b.value, "result", diff);
  if (!diff.empty()) fuzz::finding(std::string(what) + ": results differ: " + diff, program);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return -1;
  static const fuzz::GenOptions opts = fuzz::GenOptions::fromEnv();
  fuzz::GeneratedProgram g = fuzz::generateProgram(data, size, opts);
  std::string traced = g.prelude + g.traced;
  std::string eager = g.prelude + g.eager;
  if (fuzz::envFlag("SCN_FUZZ_PRINT"))
    std::fprintf(stderr, "---- traced ----\n%s---- eager ----\n%s", traced.c_str(), eager.c_str());
  Outcome interp = runProgram("interp", traced);
  Outcome cpu = runProgram("cpu", traced);
  if (fuzz::envFlag("SCN_FUZZ_PRINT"))
    std::fprintf(stderr, "---- outcome: interp %s, cpu %s\n%s", interp.ok ? "ok" : interp.code.c_str(),
                 cpu.ok ? "ok" : cpu.code.c_str(), interp.error.c_str());
  compareOutcomes(interp, cpu, "interp vs cpu", true, traced);
  if (!fuzz::envFlag("SCN_FUZZ_NO_EAGER")) {
    Outcome eagerRun = runProgram("interp", eager);
    compareOutcomes(interp, eagerRun, "traced vs eager", false, traced + "\n# eager form:\n" + eager);
  }
  return 0;
}
