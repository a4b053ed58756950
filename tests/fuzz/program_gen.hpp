// A structure-aware generator of well-typed scn programs from fuzzer bytes (the tracer target).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace scn::fuzz {

/// Generator switches, read from the environment so a finding can be set aside while the search
/// goes on (docs/hardening.md lists them).
struct GenOptions {
  bool safeIntDiv = false;   // SCN_FUZZ_SAFE_DIV: integer `//` and `%` by max(|y|, 1) only
  bool rawCasts = false;     // SCN_FUZZ_RAW_CASTS: float -> int casts without clamping NaN/range
  bool control = true;       // SCN_FUZZ_NO_CONTROL: no scan/vmap/fori_loop/while_loop/cond
  bool emptyDims = true;     // SCN_FUZZ_NO_EMPTY: no zero-sized dimensions
  static GenOptions fromEnv();
};

/// A generated test case: the definitions, a call of the traced `fn` and the same body run
/// eagerly at top level; both end with a tuple of the results.
struct GeneratedProgram {
  std::string prelude;  // `let x0 = ...` inputs (and helper fns)
  std::string traced;   // `fn f(...) {...}` and `f(x0, ...)` as the final expression
  std::string eager;    // the body of f at top level, ending in the same tuple
};

/// Builds a program from `data`; every byte string gives some program (short inputs give small
/// ones). Deterministic: the same bytes and options give the same text.
GeneratedProgram generateProgram(const uint8_t* data, size_t size, const GenOptions& opts);

}  // namespace scn::fuzz
