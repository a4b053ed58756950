// Builtins that check: assert, assert_close.
#include <cmath>
#include <cstdio>
#include <functional>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {


Value assertBuiltin(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "assert", {"cond", "message="});
  AVal cond = a.array(0);
  Array v = concreteOrError(cond, StaticUse::HostConversion, a.span(0), "the condition of assert");
  bool ok = true;
  for (int64_t i = 0; i < v.size(); ++i) ok = ok && v.getDouble(i) != 0;
  if (!ok) {
    std::string msg = a.has(1) ? ev.format(a.get(1)) : "";
    fail("E0501", c.span, "assertion failed" + (msg.empty() ? "" : ": " + msg));
  }
  return Value::none();
}

Value assertClose(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "assert_close", {"a", "b", "rtol=", "atol="});
  double rtol = a.number(2, 1e-5), atol = a.number(3, 1e-8);
  AVal x = a.array(0), y = a.array(1);
  Shape shape = ev.ops().broadcastShapes({x, y}, c.span, "assert_close");
  AVal xb = ev.ops().broadcastTo(defaultize(x, a.span(0)), shape, c.span);
  AVal yb = ev.ops().broadcastTo(defaultize(y, a.span(1)), shape, c.span);
  Array xa = concreteOrError(xb, StaticUse::HostConversion, a.span(0), "assert_close");
  Array ya = concreteOrError(yb, StaticUse::HostConversion, a.span(1), "assert_close");
  int64_t bad = 0, worst = -1;
  double worstErr = -1;
  for (int64_t i = 0; i < xa.size(); ++i) {
    double p = xa.getDouble(i), q = ya.getDouble(i);
    bool same = (std::isnan(p) && std::isnan(q)) || p == q;
    double err = std::fabs(p - q);
    if (!same && !(err <= atol + rtol * std::fabs(q))) {
      ++bad;
      if (!(err <= worstErr)) {
        worstErr = err;
        worst = i;
      }
    }
  }
  if (bad > 0) {
    std::string where;
    int64_t rem = worst;
    for (size_t d = shape.size(); d-- > 0;) {
      where = std::to_string(rem % shape[d]) + (where.empty() ? "" : ", ") + where;
      rem /= shape[d];
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%.9g vs %.9g (|a-b| = %.3g, allowed %.3g)", xa.getDouble(worst),
             ya.getDouble(worst), worstErr, atol + rtol * std::fabs(ya.getDouble(worst)));
    char rule[160];
    snprintf(rule, sizeof rule, "the rule is |a - b| <= atol + rtol * |b| (rtol=%g, atol=%g)", rtol, atol);
    fail("E0503", c.span,
         "assert_close failed: " + std::to_string(bad) + " of " + std::to_string(xa.size()) +
             " elements differ; worst at [" + where + "]: " + buf,
         rule);
  }
  return Value::none();
}

}  // namespace

BuiltinDefs checkBuiltins() {
  return {{},
          {
              {"assert(cond, message=)", "stops with E0501 unless every element of the static cond is true", assertBuiltin},
              {"assert_close(a, b, rtol=1e-5, atol=1e-8)", "stops with E0503 unless a and b agree within the tolerances, elementwise", assertClose},
          }};
}

}  // namespace scn
