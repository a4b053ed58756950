// Helpers the evaluator's files share (lang/eval.cpp, expressions.cpp, imports.cpp, calls.cpp);
// not part of the Evaluator's interface.
#pragma once

#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/diagnostics.hpp"
#include "lang/eval.hpp"

namespace scn {

/// A function value for a `fn` or a lambda, closing over `env`; `program` holds its AST.
Value makeClosure(std::string name, const std::vector<Param>& params, const Expr& body, Span span,
                  const std::shared_ptr<Env>& env, const std::shared_ptr<const Program>& program);

/// The arguments of a call, evaluated in source order: positional ones and keywords with their
/// spans (the parser has already rejected a keyword given twice, E0015).
/// `listRows`: list literals among the positional arguments come as tuples of their rows, the
/// elements as written (Evaluator::evalListRows; for `array`).
CallArgs evalArguments(Evaluator& ev, const std::vector<Argument>& args, Span span, const std::shared_ptr<Env>& env,
                       bool listRows = false);

/// How an argument shows in a signature (--stats, :help NAME, the call chain of an error): its
/// type, its value when static ("n=3" is the caller's: this gives the "3").
std::string shownArgument(const Value& v, bool isStatic);

/// Sets the program whose AST is evaluated for as long as it lives (Note [Source lifetime]).
struct Running {
  std::shared_ptr<const Program>& slot;
  std::shared_ptr<const Program> saved;
  Running(std::shared_ptr<const Program>& s, const std::shared_ptr<const Program>& p)
      : slot(s), saved(std::exchange(s, p)) {}
  ~Running() { slot = std::move(saved); }
};

// Note [Errors without a location]
// Errors raised below the language know no source location: an allocation (Array's E0401), a
// shape overflow, a std::bad_alloc or std::length_error from a host-side table that an op builds
// (repeat's indices). Each gets the location of the innermost call that caused it, else of its
// statement; the allocation failures become E0401. E9999 stays without one: it is scn's bug.
template <typename F>
auto locatedAt(Span span, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (UserError& err) {
    if (!err.diag.span.valid() && err.diag.code != "E9999") err.diag.span = span;
    throw;
  } catch (const std::bad_alloc&) {
    fail("E0401", span, "out of memory", "the machine is out of memory; use smaller arrays");
  } catch (const std::length_error&) {
    fail("E0401", span, "out of memory: a table larger than the machine can address", "use smaller arrays");
  }
}

}  // namespace scn
