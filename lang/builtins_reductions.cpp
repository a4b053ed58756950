// Builtins of reductions with JAX's keywords: sum prod max min all any argmax argmin mean var std
// norm, the NaN-ignoring forms, count_nonzero, logsumexp and softmax.
#include <algorithm>
#include <cmath>
#include <limits>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

// Note [Reduction keywords]
// Every reduction takes JAX's `axis=` (None for every axis, an int, a tuple or a list) and
// `keepdims=` (the reduced axes stay as size 1, so the result broadcasts against x: a layer norm
// is `(x - mean(x, axis=-1, keepdims=true)) / std(x, axis=-1, keepdims=true)`). They are built
// from the existing reduce ops and elementwise ops, so fusion and vmap treat them like any other
// chain of ops: `where=` is a select before the reduce, `initial=` an elementwise max/add after,
// `keepdims` a reshape of the result. Integer and bool inputs of the averaging reductions (mean,
// var, std, norm, logsumexp, softmax) are converted to f32 first, as JAX's default float.

/// The axes a reduction of `x` runs over: every axis for None, else normalised and sorted
/// (E0204 when one is out of range or repeated).
std::vector<int64_t> reducedAxes(const AVal& x, const std::optional<std::vector<int64_t>>& axes, Span span,
                                 const char* what) {
  size_t rank = x.type.shape.size();
  std::vector<int64_t> out;
  if (!axes) {
    for (size_t i = 0; i < rank; ++i) out.push_back(static_cast<int64_t>(i));
    return out;
  }
  for (int64_t ax : *axes) out.push_back(ArrayOps::normAxis(ax, rank, span, what));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) fail("E0204", span, std::string(what) + " got a repeated axis");
  return out;
}

/// The shape of a reduction's result: `in` without the reduced axes, or with them as 1s.
Shape reducedShape(const Shape& in, const std::vector<int64_t>& axes, bool keepdims) {
  Shape s;
  for (size_t d = 0; d < in.size(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (!reduced) s.push_back(in[d]);
    else if (keepdims) s.push_back(1);
  }
  return s;
}

/// The number of elements each result element reduces.
int64_t reducedCount(const Shape& in, const std::vector<int64_t>& axes) {
  int64_t n = 1;
  for (int64_t ax : axes) n *= in[ax];
  return n;
}

bool reducesEmpty(const Shape& in, const std::vector<int64_t>& axes) {
  return std::any_of(axes.begin(), axes.end(), [&](int64_t ax) { return in[ax] == 0; });
}

/// The parts every reduction binds: its operand, the reduced axes and keepdims.
struct Reduction {
  Evaluator& ev;
  Span span;
  const char* name;
  AVal x;
  std::vector<int64_t> axes;
  bool keepdims;

  ArrayOps& ops() { return ev.ops(); }
  /// op over the axes, the result reshaped for keepdims.
  AVal reduce(Op op, const AVal& v) {
    return ops().reshape(ops().reduce(op, v, axes, span, name), reducedShape(v.type.shape, axes, keepdims), span);
  }
  /// A result of the reduced shape (without the kept axes) given its keepdims shape.
  AVal shaped(const AVal& r) { return ops().reshape(r, reducedShape(x.type.shape, axes, keepdims), span); }
  AVal binary(Op op, const AVal& p, const AVal& q) { return ops().binary(op, p, q, span, name); }
  AVal unary(Op op, const AVal& p) { return ops().unary(op, p, span); }
  AVal select(const AVal& c, const AVal& p, const AVal& q) { return ops().select(c, p, q, span, name); }
};

/// Binds x (argument 0), axis (argument `axisArg`) and keepdims (argument `keepArg`).
Reduction bindReduction(Evaluator& ev, CallArgs& c, const Args& a, const char* name, size_t axisArg, size_t keepArg) {
  AVal x = a.array(0);
  return Reduction{ev, c.span, name, x, reducedAxes(x, a.axes(axisArg), c.span, name), a.boolean(keepArg, false)};
}

bool given(const Args& a, size_t i) { return a.has(i) && !a.get(i).isNone(); }

/// The `where=` mask of argument i broadcast to x's shape (nonzero is true).
AVal whereMask(Reduction& r, const Args& a, size_t i) {
  AVal m = a.array(i);
  if (m.type.dtype != DType::Bool) m = r.binary(Op::Ne, m, weakInt(0));
  return r.ops().broadcastTo(m, r.x.type.shape, a.span(i), r.name);
}

/// A float version of x for the averaging reductions (Note [Reduction keywords]).
AVal floating(Reduction& r, const AVal& x) {
  DType t = inexactDType(x.type.dtype);
  return t == x.type.dtype ? x : r.ops().convert(x, t, r.span);
}

// ---- sum prod max min all any ----

// sum / prod (x, axis=None, dtype=None, keepdims=false, initial=None, where=None)
template <Op op>
Value sumOrProd(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ReduceSum ? "sum" : "prod";
  Args a(ev, c, name, {"x", "axis=", "dtype=", "keepdims=", "initial=", "where="});
  Reduction r = bindReduction(ev, c, a, name, 1, 3);
  if (auto t = a.dtype(2)) r.x = ev.ops().cast(r.x, *t, c.span);
  AVal x = r.x;
  if (given(a, 5)) x = r.select(whereMask(r, a, 5), x, weakInt(op == Op::ReduceSum ? 0 : 1));
  AVal out = r.reduce(op, x);
  if (given(a, 4)) out = r.binary(op == Op::ReduceSum ? Op::Add : Op::Mul, out, ev.ops().convert(a.array(4), out.type.dtype, a.span(4)));
  return arr(out);
}

// max / min (x, axis=None, keepdims=false, initial=None, where=None)
template <Op op>
Value maxOrMin(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ReduceMax ? "max" : "min";
  // Python's max(a, b) is elementwise here: JAX's max takes an axis second.
  if (c.pos.size() >= 2 && c.pos[1].isArray() && !isInteger(c.pos[1].array->type.dtype))
    fail("E0202", c.posSpans[1], std::string(name) + "'s second argument is an axis, got " + surfaceTypeString(*c.pos[1].array),
         std::string("the elementwise ") + (op == Op::ReduceMax ? "maximum" : "minimum") + " of two arrays is `" +
             (op == Op::ReduceMax ? "maximum" : "minimum") + "(a, b)`");
  Args a(ev, c, name, {"x", "axis=", "keepdims=", "initial=", "where="});
  Reduction r = bindReduction(ev, c, a, name, 1, 2);
  std::optional<AVal> initial;
  if (given(a, 3)) initial = ev.ops().convert(a.array(3), r.x.type.dtype, a.span(3));
  AVal x = r.x;
  if (given(a, 4)) {
    if (!initial)
      fail("E0265", a.span(4), std::string(name) + " with `where=` needs `initial=`: a slice may have no selected element",
           std::string("give the result of an empty selection, e.g. `initial=") + (op == Op::ReduceMax ? "-inf" : "inf") + "`");
    x = r.select(whereMask(r, a, 4), x, *initial);
  }
  if (reducesEmpty(x.type.shape, r.axes)) {
    if (!initial) fail("E0225", c.span, std::string(name) + " of an empty array has no identity");
    return arr(ev.ops().full(reducedShape(x.type.shape, r.axes, r.keepdims), *initial, c.span));
  }
  AVal out = r.reduce(op, x);
  if (initial) out = r.binary(op == Op::ReduceMax ? Op::Max : Op::Min, out, *initial);
  return arr(out);
}

// all / any (x, axis=None, keepdims=false)
template <Op op>
Value allOrAny(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ReduceAnd ? "all" : "any";
  Args a(ev, c, name, {"x", "axis=", "keepdims="});
  Reduction r = bindReduction(ev, c, a, name, 1, 2);
  return arr(r.reduce(op, r.x));
}

// argmax / argmin (x, axis=None, keepdims=false): axis is one int; None flattens x.
template <Op op>
Value argReduce(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ArgMax ? "argmax" : "argmin";
  Args a(ev, c, name, {"x", "axis=", "keepdims="});
  AVal x = a.array(0);
  Shape in = x.type.shape;
  bool keepdims = a.boolean(2, false);
  int64_t axis = 0;
  Shape kept(in.size(), 1);
  if (given(a, 1)) {
    axis = ArrayOps::normAxis(a.integer(1, 0, StaticUse::Axis), in.size(), a.span(1), name);
    kept = in;
    kept[axis] = 1;
  } else {
    x = ev.ops().reshape(x, {numElements(in)}, c.span);
  }
  Attrs at;
  at.axes = {axis};
  AVal out = ev.tracer().apply1(op, {x}, at, c.span);
  return arr(keepdims ? ev.ops().reshape(out, kept, c.span) : out);
}

// ---- averages ----

/// sum(x) / count over the reduction's axes, of the elements where `mask` (when given) is true.
AVal average(Reduction& r, AVal x, const std::optional<AVal>& mask) {
  x = floating(r, x);
  if (!mask) return r.ops().trueDivide(r.reduce(Op::ReduceSum, x), weakFloat(static_cast<double>(reducedCount(x.type.shape, r.axes))), r.span);
  AVal count = r.reduce(Op::ReduceSum, r.ops().convert(*mask, x.type.dtype, r.span));
  return r.ops().trueDivide(r.reduce(Op::ReduceSum, r.select(*mask, x, weakInt(0))), count, r.span);
}

/// The result in `dtype=` when given (JAX computes in floats and converts at the end).
AVal inDType(Reduction& r, const Args& a, size_t i, AVal v) {
  if (auto t = a.dtype(i)) return r.ops().cast(v, *t, r.span);
  return v;
}

// mean(x, axis=None, dtype=None, keepdims=false, where=None)
Value mean(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "mean", {"x", "axis=", "dtype=", "keepdims=", "where="});
  Reduction r = bindReduction(ev, c, a, "mean", 1, 3);
  if (auto t = a.dtype(2); t && (isFloat(*t) || isComplex(*t))) r.x = ev.ops().convert(r.x, *t, c.span);
  std::optional<AVal> mask;
  if (given(a, 4)) mask = whereMask(r, a, 4);
  return arr(inDType(r, a, 2, average(r, r.x, mask)));
}

/// The variance over the reduction's axes with `ddof` delta degrees of freedom: the mean squared
/// distance from the mean, divided by max(N - ddof, 0) as JAX does (0 gives inf or nan).
AVal variance(Reduction& r, double ddof) {
  AVal x = floating(r, r.x);
  Reduction inner = r;
  inner.keepdims = true;
  double count = static_cast<double>(reducedCount(x.type.shape, r.axes));
  AVal centred = r.binary(Op::Sub, x, r.ops().trueDivide(inner.reduce(Op::ReduceSum, x), weakFloat(count), r.span));
  double n = std::max(count - ddof, 0.0);
  // Of complex x, |x - mean|^2 = real((x - mean) * conj(x - mean)), a real variance, as jnp.var.
  AVal squares = isComplex(x.type.dtype)
                     ? r.ops().complexPart(Op::Real, r.binary(Op::Mul, centred, r.ops().complexPart(Op::Conj, centred, r.span)), r.span)
                     : r.binary(Op::Mul, centred, centred);
  return r.ops().trueDivide(r.reduce(Op::ReduceSum, squares), weakFloat(n), r.span);
}

// var / std (x, axis=None, dtype=None, ddof=0, keepdims=false)
template <bool isStd>
Value varOrStd(Evaluator& ev, CallArgs& c) {
  const char* name = isStd ? "std" : "var";
  Args a(ev, c, name, {"x", "axis=", "dtype=", "ddof=", "keepdims="});
  Reduction r = bindReduction(ev, c, a, name, 1, 4);
  if (auto t = a.dtype(2); t && (isFloat(*t) || isComplex(*t))) r.x = ev.ops().convert(r.x, *t, c.span);
  AVal v = variance(r, a.number(3, 0));
  return arr(inDType(r, a, 2, isStd ? r.unary(Op::Sqrt, v) : v));
}

// ---- the NaN-ignoring forms ----

/// x with its NaNs replaced by `fill` (integers have none).
AVal nanFilled(Reduction& r, const AVal& x, AVal fill) {
  if (!isFloat(x.type.dtype) && !isComplex(x.type.dtype)) return x;
  return r.select(r.unary(Op::IsNan, x), fill, x);  // complex x: NaN in either part
}

// nansum / nanprod (x, axis=None, dtype=None, keepdims=false): NaNs count as 0 (1).
template <Op op>
Value nanSumOrProd(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ReduceSum ? "nansum" : "nanprod";
  Args a(ev, c, name, {"x", "axis=", "dtype=", "keepdims="});
  Reduction r = bindReduction(ev, c, a, name, 1, 3);
  AVal x = nanFilled(r, r.x, weakInt(op == Op::ReduceSum ? 0 : 1));
  if (auto t = a.dtype(2)) x = ev.ops().cast(x, *t, c.span);
  return arr(r.reduce(op, x));
}

// nanmax / nanmin (x, axis=None, keepdims=false): NaN only where every element is NaN.
template <Op op>
Value nanMaxOrMin(Evaluator& ev, CallArgs& c) {
  const char* name = op == Op::ReduceMax ? "nanmax" : "nanmin";
  Args a(ev, c, name, {"x", "axis=", "keepdims="});
  Reduction r = bindReduction(ev, c, a, name, 1, 2);
  if (reducesEmpty(r.x.type.shape, r.axes)) fail("E0225", c.span, std::string(name) + " of an empty array has no identity");
  if (!isFloat(r.x.type.dtype)) return arr(r.reduce(op, r.x));
  double inf = std::numeric_limits<double>::infinity();
  AVal nan = r.unary(Op::IsNan, r.x);
  AVal best = r.reduce(op, r.select(nan, weakFloat(op == Op::ReduceMax ? -inf : inf), r.x));
  return arr(r.select(r.reduce(Op::ReduceAnd, nan), weakFloat(std::numeric_limits<double>::quiet_NaN()), best));
}

// nanmean(x, axis=None, dtype=None, keepdims=false): the mean of the elements that are not NaN.
Value nanmean(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "nanmean", {"x", "axis=", "dtype=", "keepdims="});
  Reduction r = bindReduction(ev, c, a, "nanmean", 1, 3);
  if (auto t = a.dtype(2); t && (isFloat(*t) || isComplex(*t))) r.x = ev.ops().convert(r.x, *t, c.span);
  std::optional<AVal> mask;
  if (isFloat(r.x.type.dtype)) mask = r.ops().unary(Op::Not, r.unary(Op::IsNan, r.x), c.span);
  return arr(inDType(r, a, 2, average(r, r.x, mask)));
}

// count_nonzero(x, axis=None, keepdims=false): i32 counts.
Value countNonzero(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "count_nonzero", {"x", "axis=", "keepdims="});
  Reduction r = bindReduction(ev, c, a, "count_nonzero", 1, 2);
  AVal out = r.reduce(Op::ReduceSum, r.binary(Op::Ne, r.x, weakInt(0)));
  out.weak = false;
  return arr(out);
}

// ---- log-sum-exp and softmax ----

/// x's max over the axes kept as 1s, replaced by 0 where it is not finite (m - m is NaN for an
/// inf or a NaN), so that an all -inf slice gives -inf and an inf gives inf instead of NaN, as in
/// JAX; 0 when the axes are empty.
AVal finiteShift(Reduction& r, const AVal& x) {
  if (reducesEmpty(x.type.shape, r.axes)) return weakFloat(0);
  Reduction inner = r;
  inner.keepdims = true;
  AVal m = inner.reduce(Op::ReduceMax, x);
  return r.select(r.unary(Op::IsNan, r.binary(Op::Sub, m, m)), weakFloat(0), m);
}

// logsumexp(x, axis=None, keepdims=false): log(sum(exp(x))) without overflow.
Value logsumexp(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "logsumexp", {"x", "axis=", "keepdims="});
  Reduction r = bindReduction(ev, c, a, "logsumexp", 1, 2);
  AVal x = floating(r, r.x);
  AVal shift = finiteShift(r, x);
  AVal sum = r.reduce(Op::ReduceSum, r.unary(Op::Exp, r.binary(Op::Sub, x, shift)));
  return arr(r.binary(Op::Add, r.unary(Op::Log, sum), shift.type.shape.empty() ? shift : r.shaped(shift)));
}

// softmax(x, axis=-1): exp(x) / sum(exp(x)) over axis, shifted by the max.
Value softmax(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "softmax", {"x", "axis="});
  AVal x = a.array(0);
  std::optional<std::vector<int64_t>> axes = a.has(1) ? a.axes(1) : std::vector<int64_t>{-1};
  Reduction r{ev, c.span, "softmax", x, reducedAxes(x, axes, a.span(1), "softmax"), true};
  x = floating(r, x);
  AVal e = r.unary(Op::Exp, r.binary(Op::Sub, x, r.reduce(Op::ReduceMax, x)));
  return arr(r.ops().trueDivide(e, r.reduce(Op::ReduceSum, e), c.span));
}

// ---- norm ----

/// norm's `ord=`: absent (None), a number (inf, -inf, 0, 1, 2, any p) or a name ("fro", "nuc").
struct NormOrder {
  bool none = true;
  double p = 2;
  std::string name;
  std::string text() const {
    if (!name.empty()) return "\"" + name + "\"";
    if (std::isinf(p)) return p > 0 ? "inf" : "-inf";
    std::string t = std::to_string(p);
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
    return t;
  }
};

NormOrder normOrder(const Args& a, size_t i) {
  NormOrder ord;
  if (!given(a, i)) return ord;
  ord.none = false;
  if (a.get(i).kind == ValueKind::String) ord.name = a.get(i).str;
  else ord.p = a.number(i, 2);
  return ord;
}

AVal sumOfSquares(Reduction& r, const AVal& x) { return r.reduce(Op::ReduceSum, r.binary(Op::Mul, x, x)); }

/// The vector norm of x over the reduction's one axis.
AVal vectorNorm(Reduction& r, const NormOrder& ord, Span ordSpan) {
  const AVal& x = r.x;
  if (!ord.name.empty())
    fail("E0266", ordSpan, "norm got ord=" + ord.text() + " for a vector norm (one axis)",
         "a vector norm takes a number: ord=1, 2, inf, -inf, 0 or any p; \"fro\" and \"nuc\" are matrix norms");
  double p = ord.p;
  if (p == 2) return r.unary(Op::Sqrt, sumOfSquares(r, x));
  AVal magnitude = r.unary(Op::Abs, x);
  if (std::isinf(p)) return r.reduce(p > 0 ? Op::ReduceMax : Op::ReduceMin, magnitude);
  if (p == 0) return r.reduce(Op::ReduceSum, r.ops().convert(r.binary(Op::Ne, x, weakInt(0)), x.type.dtype, r.span));
  if (p == 1) return r.reduce(Op::ReduceSum, magnitude);
  AVal powered = r.reduce(Op::ReduceSum, r.binary(Op::Pow, magnitude, weakFloat(p)));
  return r.binary(Op::Pow, powered, weakFloat(1 / p));
}

/// The matrix norm of x over the axes (rows, cols), in the order given.
AVal matrixNorm(Reduction& r, const NormOrder& ord, int64_t rows, int64_t cols, Span ordSpan) {
  const AVal& x = r.x;
  if (ord.none || ord.name == "fro") return r.unary(Op::Sqrt, sumOfSquares(r, x));
  bool byColumns = ord.name.empty() && (ord.p == 1 || ord.p == -1);
  bool byRows = ord.name.empty() && std::isinf(ord.p);
  if (ord.name == "nuc" || (ord.name.empty() && (ord.p == 2 || ord.p == -2))) {
    // The singular values of the matrices (rows, cols), moved to the end: their sum, largest or smallest.
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < static_cast<int64_t>(x.type.shape.size()); ++d)
      if (d != rows && d != cols) perm.push_back(d);
    perm.insert(perm.end(), {rows, cols});
    AVal s = singularValues(r.ev, r.ops().transpose(x, perm, r.span), r.span);
    Reduction last = r;
    last.keepdims = false;
    last.axes = {static_cast<int64_t>(s.type.shape.size()) - 1};
    last.x = s;
    Op op = ord.name == "nuc" ? Op::ReduceSum : ord.p > 0 ? Op::ReduceMax : Op::ReduceMin;
    return r.shaped(last.reduce(op, s));
  }
  if (!byColumns && !byRows)
    fail("E0266", ordSpan, "norm got ord=" + ord.text() + " for a matrix norm (two axes)",
         "a matrix norm takes ord=None, \"fro\", 1, -1, inf or -inf");
  // ord=1: the largest column sum of |x| (sum over the rows); ord=inf: the largest row sum.
  Reduction inner = r;
  inner.keepdims = true;
  inner.axes = {byColumns ? rows : cols};
  AVal sums = inner.reduce(Op::ReduceSum, r.unary(Op::Abs, x));
  inner.axes = {byColumns ? cols : rows};
  bool largest = ord.p > 0;
  return r.shaped(inner.reduce(largest ? Op::ReduceMax : Op::ReduceMin, sums));
}

// norm(x, ord=None, axis=None, keepdims=false): as jnp.linalg.norm.
Value norm(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "norm", {"x", "ord=", "axis=", "keepdims="});
  AVal x = a.array(0);
  NormOrder ord = normOrder(a, 1);
  std::optional<std::vector<int64_t>> axes = a.axes(2);
  size_t rank = x.type.shape.size();
  if (!axes && !ord.none) {
    if (rank != 1 && rank != 2)
      fail("E0266", a.span(1), "norm with ord=" + ord.text() + " needs a vector or a matrix, got shape " + shapeString(x.type.shape),
           "give `axis=` (one axis for vector norms, two for matrix norms)");
    axes = rank == 1 ? std::vector<int64_t>{0} : std::vector<int64_t>{0, 1};
  }
  // Every norm of complex x is that of |x| (jnp's too) except the matrix norms of its singular
  // values (ord=2, -2, "nuc"), which take the complex SVD.
  bool ofSingularValues = axes && axes->size() == 2 && !ord.none &&
                          (ord.name == "nuc" || (ord.name.empty() && std::fabs(ord.p) == 2));
  if (isComplex(x.type.dtype) && !ofSingularValues) x = ev.ops().unary(Op::Abs, x, c.span);
  Reduction r{ev, c.span, "norm", x, reducedAxes(x, axes, a.span(2), "norm"), a.boolean(3, false)};
  r.x = floating(r, x);
  if (!axes) return arr(r.unary(Op::Sqrt, sumOfSquares(r, r.x)));
  if (axes->size() == 1) return arr(vectorNorm(r, ord, a.span(1)));
  if (axes->size() == 2)
    return arr(matrixNorm(r, ord, ArrayOps::normAxis((*axes)[0], rank, a.span(2), "norm"),
                          ArrayOps::normAxis((*axes)[1], rank, a.span(2), "norm"), a.span(1)));
  fail("E0266", a.span(2), "norm got " + std::to_string(axes->size()) + " axes",
       "give one axis for a vector norm or two for a matrix norm");
}

}  // namespace

BuiltinDefs reductionBuiltins() {
  return {
      {
          {"sum", sumOrProd<Op::ReduceSum>},
          {"prod", sumOrProd<Op::ReduceProd>},
          {"max", maxOrMin<Op::ReduceMax>},
          {"min", maxOrMin<Op::ReduceMin>},
          {"all", allOrAny<Op::ReduceAnd>},
          {"any", allOrAny<Op::ReduceOr>},
          {"argmax", argReduce<Op::ArgMax>},
          {"argmin", argReduce<Op::ArgMin>},
      },
      {
          {"mean(x, axis=None, dtype=None, keepdims=false, where=None)",
           "the mean of the elements of x over axis (every axis when None), of those where `where` is true (integers give f32)", mean},
          {"var(x, axis=None, dtype=None, ddof=0, keepdims=false)",
           "the variance of x over axis (every axis when None), dividing by N - ddof", varOrStd<false>},
          {"std(x, axis=None, dtype=None, ddof=0, keepdims=false)",
           "the standard deviation of x over axis (every axis when None), dividing by N - ddof", varOrStd<true>},
          {"nansum(x, axis=None, dtype=None, keepdims=false)", "the sum of x over axis, NaNs counted as 0", nanSumOrProd<Op::ReduceSum>},
          {"nanprod(x, axis=None, dtype=None, keepdims=false)", "the product of x over axis, NaNs counted as 1", nanSumOrProd<Op::ReduceProd>},
          {"nanmax(x, axis=None, keepdims=false)", "the largest element of x over axis ignoring NaNs (NaN when all are)", nanMaxOrMin<Op::ReduceMax>},
          {"nanmin(x, axis=None, keepdims=false)", "the smallest element of x over axis ignoring NaNs (NaN when all are)", nanMaxOrMin<Op::ReduceMin>},
          {"nanmean(x, axis=None, dtype=None, keepdims=false)", "the mean of the elements of x over axis that are not NaN", nanmean},
          {"count_nonzero(x, axis=None, keepdims=false)", "the number of nonzero elements of x over axis (i32)", countNonzero},
          {"logsumexp(x, axis=None, keepdims=false)", "log(sum(exp(x))) over axis (every axis when None), computed without overflow", logsumexp},
          {"norm(x, ord=None, axis=None, keepdims=false)",
           "the vector (one axis) or matrix (two axes) norm of x of order ord (1, 2, inf, -inf, 0, p, \"fro\"), of every element when both are None", norm},
          {"softmax(x, axis=-1)", "exp(x) / sum(exp(x)) over axis (an int, a tuple, or None for every axis)", softmax},
      }};
}

}  // namespace scn
