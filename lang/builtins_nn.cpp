// jax.nn's basics: activations (relu, gelu, silu, softplus, log_sigmoid), one_hot and
// log_softmax over an axis (softmax and logsumexp are reductions: builtins_reductions.cpp).
#include <algorithm>
#include <cmath>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

/// x as a float array: integers and bool become f32 (f64 from 64-bit integers), as jnp's
/// float functions take them.
AVal asFloat(Evaluator& ev, AVal x, Span span) {
  if (isFloat(x.type.dtype)) return x;
  bool wide = x.type.dtype == DType::I64 || x.type.dtype == DType::U64;
  return ev.ops().convert(x, wide ? DType::F64 : DType::F32, span);
}

/// The axes an `axis=` argument names, normalised and sorted: every axis for None, `dflt` when
/// absent (nullopt: every axis).
std::vector<int64_t> reducedAxes(const Args& a, size_t i, const AVal& x, std::optional<int64_t> dflt,
                                 const char* what) {
  size_t rank = x.type.shape.size();
  std::optional<std::vector<int64_t>> given;
  if (a.has(i)) given = a.axes(i);
  else if (dflt) given = std::vector<int64_t>{*dflt};
  std::vector<int64_t> axes;
  if (!given)
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  else
    for (int64_t ax : *given) axes.push_back(ArrayOps::normAxis(ax, rank, a.span(i), what));
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

/// A reduction of x over `axes` that keeps them as axes of size 1 (keepdims=True).
AVal reduceKeep(Evaluator& ev, Op op, const AVal& x, const std::vector<int64_t>& axes, Span span,
                const char* what) {
  Shape kept = x.type.shape;
  for (int64_t ax : axes) kept[ax] = 1;
  return ev.ops().reshape(ev.ops().reduce(op, x, axes, span, what), kept, span);
}

// relu(x) = max(x, 0) with jax.nn.relu's derivative: 1 where x > 0, else 0 (JAX gives it a
// custom JVP so that relu'(0) is 0, where max's tie rule would split it to 1/2). Written as
// select(x > 0, x, stop_gradient(max(x, 0))): the same values as max (NaN stays NaN) and only
// the first branch carries a tangent.
Value relu(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "relu", {"x"});
  ArrayOps& ops = ev.ops();
  AVal x = a.array(0);
  AVal y = ops.binary(Op::Max, x, weakInt(0), c.span, "relu");
  if (y.isStatic() || !isFloat(y.type.dtype)) return arr(y);
  AVal flat = ops.stopGradient(y, c.span);
  AVal positive = ops.binary(Op::Gt, x, weakInt(0), c.span, "relu");
  return arr(ops.select(positive, x, flat, c.span, "relu"));
}

// gelu(x, approximate=true), as jax.nn.gelu: the tanh approximation
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) by default, else x/2 erfc(-x / sqrt(2)).
Value gelu(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "gelu", {"x", "approximate="});
  ArrayOps& ops = ev.ops();
  Span s = c.span;
  AVal x = asFloat(ev, a.array(0), s);
  AVal half = ops.binary(Op::Mul, weakFloat(0.5), x, s, "gelu");
  if (!a.boolean(1, true))  // erfc(-x/sqrt(2)) = 1 + erf(x/sqrt(2)) without cancelling for x < 0
    return arr(ops.binary(Op::Mul, half, ops.unary(Op::Erfc, ops.binary(Op::Mul, x, weakFloat(-M_SQRT1_2), s, "gelu"), s), s, "gelu"));
  AVal cube = ops.binary(Op::Mul, ops.binary(Op::Mul, x, x, s, "gelu"), x, s, "gelu");
  AVal poly = ops.binary(Op::Add, x, ops.binary(Op::Mul, weakFloat(0.044715), cube, s, "gelu"), s, "gelu");
  AVal t = ops.unary(Op::Tanh, ops.binary(Op::Mul, weakFloat(std::sqrt(2.0 / M_PI)), poly, s, "gelu"), s);
  return arr(ops.binary(Op::Mul, half, ops.binary(Op::Add, weakFloat(1.0), t, s, "gelu"), s, "gelu"));
}

Value silu(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "silu", {"x"});
  AVal x = asFloat(ev, a.array(0), c.span);
  return arr(ev.ops().binary(Op::Mul, x, ev.ops().unary(Op::Sigmoid, x, c.span), c.span, "silu"));
}

Value softplus(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "softplus", {"x"});
  return arr(ev.ops().binary(Op::LogAddExp, a.array(0), weakFloat(0.0), c.span, "softplus"));
}

// log_sigmoid(x) = -softplus(-x), as jax.nn.log_sigmoid.
Value logSigmoid(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "log_sigmoid", {"x"});
  ArrayOps& ops = ev.ops();
  AVal x = asFloat(ev, a.array(0), c.span);
  AVal sp = ops.binary(Op::LogAddExp, ops.unary(Op::Neg, x, c.span), weakFloat(0.0), c.span, "log_sigmoid");
  return arr(ops.unary(Op::Neg, sp, c.span));
}

// one_hot(x, num_classes, dtype=f32, axis=-1), as jax.nn.one_hot: out[..., k, ...] = (x == k)
// with the class axis inserted at `axis` of the result; an index outside [0, num_classes) gives
// a row of zeros.
Value oneHot(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "one_hot", {"x", "num_classes", "dtype=", "axis="});
  ArrayOps& ops = ev.ops();
  AVal x = a.array(0);
  int64_t n = a.integer(1, std::nullopt);
  if (n < 0)
    fail("E0264", a.span(1), "one_hot needs num_classes >= 0, got " + std::to_string(n),
         "num_classes is the length of the new axis");
  DType dtype = a.dtype(2).value_or(DType::F32);
  Shape out = x.type.shape;
  int64_t axis = ArrayOps::normAxis(a.integer(3, -1), out.size() + 1, a.has(3) ? a.span(3) : c.span, "one_hot");
  out.insert(out.begin() + axis, n);
  DType indexType = isFloat(x.type.dtype) || x.type.dtype == DType::Bool ? DType::I32 : x.type.dtype;
  AVal classes = ops.iota(indexType, out, axis, c.span);
  AVal xs = ops.broadcastTo(ops.expandDims(x, axis, c.span), out, c.span, "one_hot");
  return arr(ops.cast(ops.binary(Op::Eq, xs, classes, c.span, "one_hot"), dtype, c.span));
}

// log_softmax(x, axis=-1) = (x - max) - log(sum(exp(x - max))) over axis, as jax.nn.log_softmax.
Value logSoftmax(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "log_softmax", {"x", "axis="});
  ArrayOps& ops = ev.ops();
  Span s = c.span;
  AVal x = asFloat(ev, a.array(0), s);
  std::vector<int64_t> axes = reducedAxes(a, 1, x, -1, "log_softmax");
  AVal shifted = ops.binary(Op::Sub, x, reduceKeep(ev, Op::ReduceMax, x, axes, s, "log_softmax"), s, "log_softmax");
  AVal total = reduceKeep(ev, Op::ReduceSum, ops.unary(Op::Exp, shifted, s), axes, s, "log_softmax");
  return arr(ops.binary(Op::Sub, shifted, ops.unary(Op::Log, total, s), s, "log_softmax"));
}

}  // namespace

BuiltinDefs nnBuiltins() {
  return {{},
          {
              {"relu(x)", "max(x, 0), elementwise (jax.nn.relu)", relu},
              {"gelu(x, approximate=true)",
               "the Gaussian error linear unit x * Phi(x), elementwise, by default its tanh approximation (jax.nn.gelu)",
               gelu},
              {"silu(x)", "x * sigmoid(x), elementwise (jax.nn.silu)", silu},
              {"softplus(x)", "log(1 + exp(x)) without overflow, elementwise (jax.nn.softplus)", softplus},
              {"log_sigmoid(x)", "log(sigmoid(x)) = -softplus(-x), elementwise (jax.nn.log_sigmoid)", logSigmoid},
              {"one_hot(x, num_classes, dtype=f32, axis=-1)",
               "1 where x equals the class index along a new axis of length num_classes, else 0 (jax.nn.one_hot)",
               oneHot},
              {"log_softmax(x, axis=-1)", "x - logsumexp(x) over axis, keeping the axis (jax.nn.log_softmax)", logSoftmax},
          }};
}

}  // namespace scn
