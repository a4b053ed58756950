// Builtins of array math: elementwise helpers, scans, products (reductions: builtins_reductions.cpp).
#include "lang/builtin_args.hpp"

namespace scn {

namespace {

Value select(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "select", {"c", "a", "b"});
  return arr(ev.ops().select(a.array(0), a.array(1), a.array(2), c.span));
}

Value where(Evaluator& ev, CallArgs& c) {
  if (c.pos.size() == 1) return whereNonzero(ev, c);  // where(c) is nonzero(c)
  Args a(ev, c, "where", {"c", "a", "b"});
  return arr(ev.ops().select(a.array(0), a.array(1), a.array(2), c.span, "where"));
}

Value astype(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "astype", {"x", "dtype"});
  return arr(ev.ops().cast(a.array(0), *a.dtype(1), c.span));
}

// ---- scans and products ----

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
          {"cumsum", cumulative<Op::CumSum>},
          {"cumprod", cumulative<Op::CumProd>},
          {"cummax", cumulative<Op::CumMax>},
          {"cummin", cumulative<Op::CumMin>},
          {"matmul", matmul},
          {"dot", dot},
      },
      {
      }};
}

}  // namespace scn
