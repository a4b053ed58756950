// Diagnostics: structured user errors, the sink they go to, and their text rendering.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/source.hpp"

namespace scn {

enum class Severity { Error, Warning, Note };

/// A secondary location with a message ("the traced value comes from here").
struct DiagNote {
  Span span;  // may be invalid: a note without a location
  std::string message;
};

/// One user-facing diagnostic. Codes are listed in docs/errors.md (the error index).
struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code;     // e.g. "E0101"
  std::string message;  // lower-case, no final period
  Span span;
  std::vector<DiagNote> notes;
  std::string help;  // how to fix it; may be empty
};

/// Where the library sends diagnostics; it never prints by itself.
class DiagnosticSink {
 public:
  using Callback = std::function<void(const Diagnostic&)>;

  explicit DiagnosticSink(Callback cb = {}) : callback_(std::move(cb)) {}
  void report(Diagnostic d);
  int errorCount() const { return errors_; }
  const std::vector<Diagnostic>& all() const { return all_; }
  void clear() {
    all_.clear();
    errors_ = 0;
  }

 private:
  Callback callback_;
  std::vector<Diagnostic> all_;
  int errors_ = 0;
};

/// Thrown to abandon the current top-level statement after a diagnostic was built.
/// The REPL, CLI and API catch it; it never escapes the library's public entry points.
struct UserError : std::runtime_error {
  Diagnostic diag;
  explicit UserError(Diagnostic d) : std::runtime_error(d.message), diag(std::move(d)) {}
};

/// An error diagnostic with these fields.
Diagnostic makeDiagnostic(const std::string& code, Span span, std::string message,
                          std::string help = {}, std::vector<DiagNote> notes = {});

/// Builds and throws a UserError.
[[noreturn]] void fail(const std::string& code, Span span, std::string message,
                       std::string help = {}, std::vector<DiagNote> notes = {});

/// An invariant violation inside scn: "this is a bug". Also a diagnostic, never an abort.
[[noreturn]] void internalError(const std::string& what);
/// E0507: the computation was stopped by an interrupt request (Ctrl-C, Context::interrupt).
/// The evaluator, compiled CPU loops and the interpreter's loops all stop with this one error.
[[noreturn]] void failInterrupted(Span span = {});

#define SCN_ASSERT(cond, what)                                                         \
  do {                                                                                 \
    if (!(cond)) ::scn::internalError(std::string(what) + " (" #cond ") at " __FILE__); \
  } while (0)

/// Renders "file:line:col: error[CODE]: message", the source line, a caret under the span,
/// notes (each with its own caret) and the help line.
std::string render(const Diagnostic& d, bool color = false);

}  // namespace scn
