// lax.reduce_window: a reduction over sliding windows (max and average pooling, moving sums),
// made of strided slices folded with the computation (Note [Window reductions]).
#include "lang/windows.hpp"

namespace scn {

namespace {

// Note [Window reductions]
// reduce_window(x, init, f, window_dimensions, window_strides, padding, base_dilation,
// window_dilation) dilates x (base_dilation, the holes filled with init), pads it with init, and
// folds f over each window: f(...f(f(init, e0), e1)..., eK-1) for the window's K elements in
// row-major order. Each of the K taps of the window is one strided slice of the padded x (that
// tap's element of every window), so the result is K slices and K applications of f: any f, in a
// fn, under vmap and grad, on every backend. For `maximum` and `minimum` (lax.max, lax.min) the
// derivative is lax's: all of a window's cotangent goes to its first extreme element (JAX's
// select-and-scatter), where `maximum`'s own derivative would split it among ties (a relu's zeros
// tie in every pooling window). The value is still the fold's; it is selected from the taps by
// masks built under stop_gradient, so only the selected tap is differentiated.

/// The builtin op of `f` when it is `maximum` or `minimum`.
std::optional<Op> extremeOf(const Value& f) {
  if (f.kind != ValueKind::Builtin) return std::nullopt;
  if (f.builtin->name == "maximum") return Op::Max;
  if (f.builtin->name == "minimum") return Op::Min;
  return std::nullopt;
}

Value callWith(Evaluator& ev, const Value& f, const AVal& a, const AVal& b, Span span) {
  CallArgs c;
  c.pos = {Value::ofArray(a), Value::ofArray(b)};
  c.posSpans = {span, span};
  c.span = span;
  return ev.call(f, c);
}

/// The fold of the taps by maximum or minimum, differentiated through the first extreme tap.
AVal selectExtreme(ArrayOps& ops, Op op, const AVal& init, const std::vector<AVal>& taps, Span span) {
  AVal folded = init;
  for (const AVal& t : taps) folded = ops.binary(op, folded, t, span, "reduce_window");
  AVal m = ops.stopGradient(folded, span);
  AVal result = m, taken = ops.full(m.type.shape, strongScalar(DType::Bool, 0), span);
  for (const AVal& t : taps) {
    AVal first = ops.logical(Op::And, ops.binary(Op::Eq, t, m, span, "reduce_window"), ops.unary(Op::Not, taken, span), span);
    result = ops.select(first, t, result, span, "reduce_window");
    taken = ops.logical(Op::Or, taken, first, span);
  }
  return result;
}

// lax.reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
//   padding="VALID", base_dilation=None, window_dilation=None)
Value reduceWindow(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "lax.reduce_window",
         {"operand", "init_value", "computation", "window_dimensions", "window_strides=", "padding=", "base_dilation=",
          "window_dilation="});
  ArrayOps& ops = ev.ops();
  AVal x = defaultize(a.array(0), a.span(0));
  size_t r = x.type.shape.size();
  AVal init = a.array(1);
  if (!init.type.shape.empty())
    badWindow(a.span(1), "init_value of reduce_window must be a scalar, got " + surfaceTypeString(init),
              "the value a window starts from: 0 for a sum, -inf for a maximum");
  init = ops.convert(init, x.type.dtype, a.span(1));
  const Value& f = a.callable(2);
  std::vector<int64_t> window = perAxisInts(a, 3, r), strides = perAxisInts(a, 4, r), baseDilation = perAxisInts(a, 6, r),
                       windowDilation = perAxisInts(a, 7, r);
  std::vector<int64_t> dilatedWindow;
  for (size_t d = 0; d < r; ++d) dilatedWindow.push_back(dilatedExtent(window[d], windowDilation[d]));
  Pads pads(r, {0, 0});
  if (a.has(5) && !a.get(5).isNone()) {
    std::optional<std::string> mode = paddingMode(a, 5);
    pads = mode ? padsOfMode(*mode, x.type.shape, dilatedWindow, strides) : explicitPads(a, 5, r);
  }
  std::vector<int64_t> out;
  for (size_t d = 0; d < r; ++d) {
    int64_t axis = static_cast<int64_t>(d);
    x = padAxis(ops, dilateAxis(ops, x, axis, baseDilation[d], init, c.span), axis, pads[d].first, pads[d].second, init, c.span);
    out.push_back(windowCount(x.type.shape[d], dilatedWindow[d], strides[d]));
  }
  std::vector<AVal> taps = windowTaps(ops, x, 0, window, strides, windowDilation, out, c.span);
  AVal start = ops.broadcastTo(init, out, c.span);
  if (std::optional<Op> extreme = extremeOf(f)) return arr(selectExtreme(ops, *extreme, start, taps, c.span));
  AVal acc = start;
  for (const AVal& t : taps) acc = toArray(callWith(ev, f, acc, t, c.span), c.span, "reduce_window's computation");
  if (acc.type.shape != Shape(out) || acc.type.dtype != x.type.dtype)
    badWindow(c.span, "reduce_window's computation gave " + surfaceTypeString(acc) + " for two " + surfaceTypeString(start),
              "the computation combines two values of the operand's dtype into one, e.g. `add` or `maximum`");
  return arr(acc);
}

}  // namespace

BuiltinDefs windowBuiltins() {
  return {{},
          {
              {"lax.reduce_window(operand, init_value, computation, window_dimensions, window_strides=None, padding=\"VALID\", "
               "base_dilation=None, window_dilation=None)",
               "computation (add, maximum, any two-argument function) folded over sliding windows: pooling, moving sums",
               reduceWindow},
          }};
}

}  // namespace scn
