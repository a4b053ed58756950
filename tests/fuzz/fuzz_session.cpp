// Fuzz target: the whole pipeline (parse, evaluate, trace, optimise, interpret) on arbitrary text.
//
// Properties: Session::run never lets an exception out and never crashes; no diagnostic is an
// internal error (E9999); the session stays usable afterwards (a second, fixed program runs).
// Inputs are capped at 2 KiB; `import` (reads files) is skipped. A program still running after
// a few seconds is interrupted, as a host would (a scan of 2**40 empty steps or an endless
// while_loop is legitimate); one that ignores the interrupt hits libFuzzer's -timeout.
#include <cstdint>

#include "fuzz_util.hpp"
#include "lang/session.hpp"

using namespace scn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 2048) return -1;
  std::string text = fuzz::textOf(data, size);
  if (text.find("import") != std::string::npos) return -1;
  SessionOptions opts;
  // Diagnostics are checked (and rendered) as they come: after Session::run returns, the spans
  // of a program that failed to parse point into freed text (see docs/hardening.md, finding 1).
  std::string messages;
  opts.onDiagnostic = [&](const Diagnostic& d) {
    fuzz::checkDiagnostic(d, text);
    messages += render(d) + "\n";
  };
  opts.backend = fuzz::envFlag("SCN_FUZZ_CPU") ? "cpu" : "interp";
  Session session(opts);
  static fuzz::Watchdog watchdog;
  watchdog.begin([&session] { session.interrupt(); });
  try {
    (void)session.run("fuzz.scn", text);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("Session::run threw: ") + e.what(), text);
  }
  watchdog.end();
  session.clearInterrupt();  // as the REPL does before each entry (a request may land late)
  // The session goes on after any error.
  messages.clear();
  Value v;
  if (!session.run("after.scn", "let zz_after = 40 + 2\nzz_after", &v) || !v.isArray() ||
      !v.array->concrete || v.array->concrete->getInt(0) != 42) {
    fuzz::finding("the session is unusable after the program:\n" + messages, text);
  }
  return 0;
}
