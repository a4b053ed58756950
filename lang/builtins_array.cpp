// Builtins of array math: elementwise helpers, reductions, scans, products.
#include "lang/builtin_args.hpp"

namespace scn {

namespace {

Value select(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "select", {"c", "a", "b"});
  return arr(ev.ops().select(a.array(0), a.array(1), a.array(2), c.span));
}

Value where(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "where", {"c", "a", "b"});
  return arr(ev.ops().select(a.array(0), a.array(1), a.array(2), c.span, "where"));
}

Value astype(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "astype", {"x", "dtype"});
  return arr(ev.ops().cast(a.array(0), *a.dtype(1), c.span));
}

// ---- reductions ----

template <Op op>
Value reduction(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ReduceSum ? "sum" : op == Op::ReduceProd ? "prod" : op == Op::ReduceMax ? "max"
                     : op == Op::ReduceMin ? "min" : op == Op::ReduceAnd ? "all" : "any";
  Args a(ev, c, name, {"x", "axis="});
  AVal x = a.array(0);
  auto axes = a.axes(1);
  // Only reducing over an empty axis needs an identity: max over axis 0 of a (3, 0) array is
  // the empty (0,) array, as in JAX.
  if (op == Op::ReduceMax || op == Op::ReduceMin) {
    const Shape& s = x.type.shape;
    bool overEmpty = !axes && numElements(s) == 0;
    for (int64_t ax : axes.value_or(std::vector<int64_t>{}))
      overEmpty = overEmpty || s[ArrayOps::normAxis(ax, s.size(), c.span, name)] == 0;
    if (overEmpty) fail("E0225", c.span, std::string(name) + " of an empty array has no identity");
  }
  return arr(ev.ops().reduce(op, x, axes, c.span, name));
}

Value mean(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "mean", {"x", "axis="});
  AVal x = a.array(0);
  if (!isFloat(x.type.dtype)) x = ev.ops().convert(x, DType::F32, c.span);
  auto axes = a.axes(1);
  int64_t count = 1;
  if (axes) {
    for (int64_t ax : *axes) count *= x.type.shape[ArrayOps::normAxis(ax, x.type.shape.size(), c.span, "mean")];
  } else {
    count = numElements(x.type.shape);
  }
  AVal s = ev.ops().reduce(Op::ReduceSum, x, axes, c.span, "mean");
  return arr(ev.ops().trueDivide(s, weakFloat(static_cast<double>(count)), c.span));
}

template <Op op>
Value argReduce(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ArgMax ? "argmax" : "argmin";
  Args a(ev, c, name, {"x", "axis="});
  AVal x = a.array(0);
  auto axes = a.axes(1);
  if (!axes) {
    x = ev.ops().reshape(x, {numElements(x.type.shape)}, c.span);
    axes = std::vector<int64_t>{0};
  }
  Attrs at;
  at.axes = {ArrayOps::normAxis((*axes)[0], x.type.shape.size(), c.span, name)};
  return arr(ev.tracer().apply1(op, {x}, at, c.span));
}

template <Op op>
Value cumulative(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::CumSum ? "cumsum" : op == Op::CumProd ? "cumprod" : op == Op::CumMax ? "cummax" : "cummin";
  Args a(ev, c, name, {"x", "axis=", "reverse="});
  AVal x = a.array(0);
  auto axes = a.axes(1);
  if (!axes) {
    x = ev.ops().reshape(x, {numElements(x.type.shape)}, c.span);
    axes = std::vector<int64_t>{0};
  }
  if (x.type.dtype == DType::Bool) x = ev.ops().convert(x, DType::I32, c.span);
  Attrs at;
  at.axes = {ArrayOps::normAxis((*axes)[0], x.type.shape.size(), c.span, name)};
  at.reverse = a.boolean(2, false);
  AVal r = ev.tracer().apply1(op, {x}, at, c.span);
  r.weak = x.weak;
  return arr(r);
}

Value matmul(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "matmul", {"a", "b"});
  return arr(ev.ops().matmul(a.array(0), a.array(1), c.span));
}

Value dot(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "dot", {"a", "b"});
  return arr(ev.ops().dot(a.array(0), a.array(1), c.span));
}

}  // namespace

BuiltinDefs mathBuiltins() {
  return {
      {
          {"select", select},
          {"where", where},
          {"astype", astype},
          {"sum", reduction<Op::ReduceSum>},
          {"prod", reduction<Op::ReduceProd>},
          {"max", reduction<Op::ReduceMax>},
          {"min", reduction<Op::ReduceMin>},
          {"all", reduction<Op::ReduceAnd>},
          {"any", reduction<Op::ReduceOr>},
          {"argmax", argReduce<Op::ArgMax>},
          {"argmin", argReduce<Op::ArgMin>},
          {"cumsum", cumulative<Op::CumSum>},
          {"cumprod", cumulative<Op::CumProd>},
          {"cummax", cumulative<Op::CumMax>},
          {"cummin", cumulative<Op::CumMin>},
          {"matmul", matmul},
          {"dot", dot},
      },
      {
          {"mean(x, axis=None)", "the mean of the elements of x over axis (every axis when None)", mean},
      }};
}

}  // namespace scn
