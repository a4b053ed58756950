// Helpers shared by the libFuzzer targets: what counts as a finding, and input filters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lang/diagnostics.hpp"

namespace scn::fuzz {

/// Prints `what` (and `input` when given) to stderr and aborts, so libFuzzer records the input
/// as a crash. Used for every property violation that is not a sanitizer report.
[[noreturn]] void finding(const std::string& what, std::string_view input = {});

/// Renders one diagnostic (while its source is alive: call it from the sink's callback) and
/// calls finding() for an internal error (E9999), an error without a code, or an empty message.
void checkDiagnostic(const Diagnostic& d, std::string_view input);

/// Renders every diagnostic of `sink` (exercising spans, carets and notes under ASan) and calls
/// finding() for an internal error (E9999), an error without a code, or an empty message.
void checkDiagnostics(const DiagnosticSink& sink, std::string_view input);

/// True when the environment variable `name` is set to a non-empty value other than "0"
/// (used to switch off a generator feature after a finding, see docs/hardening.md).
bool envFlag(const char* name);

/// The text of a fuzzer input.
inline std::string textOf(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace scn::fuzz
