// The builtins whose result size is the number of true elements: nonzero, where(c), argwhere,
// flatnonzero (Note [Data-dependent sizes]).
#include "lang/builtin_args.hpp"
#include "lang/gather_index.hpp"

namespace scn {

// Note [Data-dependent sizes]
// nonzero's result has one entry per nonzero element, so its shape depends on the values. As in
// JAX, the size is either given (`size=`: the indices are truncated to it, or padded with
// `fill_value`, 0 by default) or counted, which needs the values: at the top level they are
// known and the count is taken, inside a `fn` without `size=` the count is traced and
// concreteOrError reports E0101 at the call, saying to pass `size=`. Both paths compute the
// indices with the same ops, JAX's own construction: the running count of the mask `c`, the
// histogram of `c` over [0, size) (a scatter-add; counts past the end are dropped), and its
// running sum, whose entry j is the flat position of the (j+1)-th nonzero element (the element
// count n past the last one, which unravels to index 0 in every axis: the default padding).
// So nonzero compiles on every backend and is batched by vmap like the ops it is made of.

namespace {

IndexArg indexItem(AVal v, Span span) {
  IndexArg a;
  a.span = span;
  a.value = std::move(v);
  return a;
}

AVal cumsumFlat(Evaluator& ev, AVal x, Span span) {
  x = ev.ops().reshape(x, {numElements(x.type.shape)}, span);
  if (x.type.dtype == DType::Bool) x = ev.ops().convert(x, DType::I32, span);
  Attrs at;
  at.axes = {0};
  return ev.tracer().apply1(Op::CumSum, {x}, at, span);
}

/// The static result size: `size=` when given, else the count of true elements of `mask`,
/// which must be static (E0101 pointing at the call otherwise).
int64_t resultSize(const Args& a, size_t sizeArg, const AVal& count, const char* fn, Span span) {
  if (a.has(sizeArg) && !a.get(sizeArg).isNone()) {
    int64_t size = a.integer(sizeArg, std::nullopt, StaticUse::Shape);
    if (size < 0) fail("E0291", a.span(sizeArg), std::string(fn) + "'s size must be >= 0, got " + std::to_string(size));
    return size;
  }
  return staticInt(count, StaticUse::ResultSize, span, fn);
}

/// The fill value of axis d: a scalar, or entry d of a tuple with one scalar per axis.
AVal fillFor(const Args& a, size_t i, size_t d, size_t rank, const char* fn) {
  const Value& v = a.get(i);
  if (v.isTuple()) {
    if (v.elems->size() != rank)
      fail("E0291", a.span(i), std::string(fn) + "'s fill_value must be a scalar or a tuple of " + std::to_string(rank) +
                                   " scalars (one per axis), got a tuple of " + std::to_string(v.elems->size()));
    return toArray((*v.elems)[d], a.span(i), fn);
  }
  AVal f = a.array(i);
  if (!f.type.shape.empty())
    fail("E0291", a.span(i), std::string(fn) + "'s fill_value must be a scalar or a tuple of scalars, got " +
                                 surfaceTypeString(f));
  return f;
}

/// nonzero's index arrays, one per axis of x (Note [Data-dependent sizes]); `a` holds x,
/// size= and fill_value= at 0, 1, 2.
std::vector<AVal> nonzeroIndices(Evaluator& ev, const Args& a, const char* fn, Span span) {
  AVal x = defaultize(a.array(0), a.span(0));
  if (x.type.shape.empty())
    fail("E0291", a.span(0), std::string(fn) + " of a scalar (0-d array) is not allowed",
         "make it an array first: `" + std::string(fn) + "(atleast_1d(x))`");
  AVal mask = x.type.dtype == DType::Bool ? x : ev.ops().binary(Op::Ne, x, weakInt(0), span, fn);
  AVal count = ev.ops().reduce(Op::ReduceSum, ev.ops().convert(mask, DType::I32, span), std::nullopt, span, fn);
  int64_t size = resultSize(a, 1, count, fn, span);
  const Shape& shape = x.type.shape;
  std::vector<AVal> out;
  if (numElements(shape) == 0 || size == 0) {
    for (size_t d = 0; d < shape.size(); ++d) out.push_back(ev.ops().full({size}, strongScalar(DType::I32, 0), span));
    return out;
  }
  AVal running = cumsumFlat(ev, mask, span);
  AVal bins = ev.ops().full({size}, strongScalar(DType::I32, 0), span);
  bins = scatterIndexed(ev, bins, {indexItem(running, span)}, Op::ScatterAdd, strongScalar(DType::I32, 1), false, span);
  AVal flatIndex = cumsumFlat(ev, bins, span);
  std::optional<AVal> padding;
  bool fill = a.has(2) && !a.get(2).isNone();
  if (fill) padding = ev.ops().binary(Op::Ge, ev.ops().iota(DType::I32, {size}, 0, span), count, span, fn);
  int64_t stride = numElements(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    stride /= shape[d];
    AVal i = ev.ops().binary(Op::FloorDiv, flatIndex, strongScalar(DType::I32, static_cast<double>(stride)), span, fn);
    i = ev.ops().binary(Op::Rem, i, strongScalar(DType::I32, static_cast<double>(shape[d])), span, fn);
    if (fill) i = ev.ops().select(*padding, fillFor(a, 2, d, shape.size(), fn), i, span, fn);
    out.push_back(i);
  }
  return out;
}

Value tupleOf(const std::vector<AVal>& xs) {
  std::vector<Value> vs;
  for (const AVal& x : xs) vs.push_back(arr(x));
  return Value::ofTuple(std::move(vs));
}

// nonzero(x, size=None, fill_value=None): a tuple of index arrays, one per axis.
Value nonzero(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "nonzero", {"x", "size=", "fill_value="});
  return tupleOf(nonzeroIndices(ev, a, "nonzero", c.span));
}

// flatnonzero(x, size=None, fill_value=None): the nonzero positions of the flattened x.
Value flatnonzero(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "flatnonzero", {"x", "size=", "fill_value="});
  AVal x = a.array(0);
  CallArgs flat = c;
  flat.pos.at(0) = arr(ev.ops().reshape(x, {numElements(x.type.shape)}, c.span));
  Args b(ev, flat, "flatnonzero", {"x", "size=", "fill_value="});
  return arr(nonzeroIndices(ev, b, "flatnonzero", c.span).at(0));
}

// argwhere(x, size=None, fill_value=None): the nonzero indices as rows, (count, ndim).
Value argwhere(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "argwhere", {"x", "size=", "fill_value="});
  AVal x = a.array(0);
  size_t rank = x.type.shape.size();
  CallArgs lifted = c;  // a scalar is an array of one element, as atleast_1d
  if (rank == 0) lifted.pos.at(0) = arr(ev.ops().reshape(x, {1}, c.span));
  Args b(ev, lifted, "argwhere", {"x", "size=", "fill_value="});
  std::vector<AVal> cols = nonzeroIndices(ev, b, "argwhere", c.span);
  int64_t rows = cols.at(0).type.shape.at(0);
  if (rank == 0) return arr(ev.ops().full({rows, 0}, strongScalar(DType::I32, 0), c.span));
  for (AVal& col : cols) col = ev.ops().expandDims(col, 1, c.span);
  return arr(cols.size() == 1 ? cols[0] : ev.ops().concat(cols, 1, c.span));
}

}  // namespace

/// where(c) with one argument is nonzero(c), as in NumPy and JAX (builtins_array.cpp).
Value whereNonzero(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "where", {"condition", "size=", "fill_value="});
  return tupleOf(nonzeroIndices(ev, a, "where", c.span));
}

BuiltinDefs nonzeroBuiltins() {
  return {{},
          {
              {"nonzero(x, size=None, fill_value=None)",
               "the indices of x's nonzero elements, one i32 array per axis (size= makes the length static)",
               nonzero},
              {"flatnonzero(x, size=None, fill_value=None)",
               "the positions of the nonzero elements of the flattened x, i32 (size= makes the length static)",
               flatnonzero},
              {"argwhere(x, size=None, fill_value=None)",
               "the indices of x's nonzero elements as rows, (count, x.ndim) i32 (size= makes the count static)",
               argwhere},
          }};
}

}  // namespace scn
