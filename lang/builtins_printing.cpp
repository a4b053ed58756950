// set_printoptions: how print and the REPL write arrays (NumPy's print options).
#include <cmath>
#include <limits>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

constexpr const char* kHelp =
    "precision is 0 to 17 digits, threshold a count of elements (or inf), linewidth 10 to 1000000 columns; "
    "set_printoptions() restores the defaults";

/// `precision=` and `linewidth=`: a static integer in [lo, hi], else E0431.
int optionInteger(const Args& a, size_t i, int64_t lo, int64_t hi, const char* what) {
  int64_t n = a.integer(i, std::nullopt);
  if (n < lo || n > hi)
    fail("E0431", a.span(i), "set_printoptions: `" + a.name(i) + "` must be " + what + ", got " + std::to_string(n),
         kHelp);
  return static_cast<int>(n);
}

// set_printoptions(precision=None, threshold=None, linewidth=None): each option given (and not
// None) changes; with no arguments all return to their defaults. Applies to print, -e and the
// REPL of this session from here on.
Value setPrintOptions(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "set_printoptions", {"precision=", "threshold=", "linewidth="});
  if (!a.has(0) && !a.has(1) && !a.has(2)) {
    ev.printOptions() = PrintOptions{};
    return Value::none();
  }
  PrintOptions o = ev.printOptions();
  auto given = [&](size_t i) { return a.has(i) && !a.get(i).isNone(); };
  if (given(0)) o.precision = optionInteger(a, 0, 0, 17, "an integer from 0 to 17");
  if (given(1)) {
    double t = a.number(1, 0);
    if (std::isnan(t) || t < 0)
      fail("E0431", a.span(1), "set_printoptions: `threshold` must be a non-negative number or inf", kHelp);
    o.threshold = t >= 9.2e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(t);
  }
  if (given(2)) o.linewidth = optionInteger(a, 2, 10, 1000000, "an integer from 10 to 1000000");
  ev.printOptions() = o;
  return Value::none();
}

}  // namespace

BuiltinDefs printingBuiltins() {
  return {{},
          {
              {"set_printoptions(precision=None, threshold=None, linewidth=None)",
               "sets how arrays print: digits after the point, the size past which they are summarised, the "
               "REPL's line width (no arguments: the defaults)",
               setPrintOptions},
          }};
}

}  // namespace scn
