// Indexing: a tuple by a static integer; an array by integers, slices (any step), `...` and None
// (reverse, slice and reshape), with traced integer indices through dynamic_slice; integer
// arrays and masks through one gather (lang/gather_index.cpp).
#include "lang/eval.hpp"

#include <algorithm>
#include <optional>

#include "base/diagnostics.hpp"
#include "lang/gather_index.hpp"

namespace scn {

namespace {
bool isNewAxis(const IndexItem& it) {
  return !it.isSlice && !it.isEllipsis && it.index->kind == ExprKind::None;
}

// Note [Slices with a negative step]
// A slice is normalised as Python's slice.indices(n) does, then taken as one `slice` op with a
// positive stride; a negative step first reverses the axis (one `reverse` op for all such
// axes), where the elements lo, lo+step, ... (step < 0) are at n-1-lo, n-1-lo-step, ... So
// `x[::-1]` is a reverse alone and `x[5:1:-2]` is a reverse and a strided slice. A step of
// magnitude n or more takes at most one element, so it is capped there (no overflow in -step
// or in the slice op's length arithmetic).
struct AxisSlice {
  int64_t start, limit, stride;
  bool reversed;
};

AxisSlice normaliseSlice(std::optional<int64_t> lo, std::optional<int64_t> hi, int64_t step, int64_t n) {
  step = std::clamp(step, -std::max<int64_t>(n, 1), std::max<int64_t>(n, 1));
  if (step > 0) {
    auto at = [&](std::optional<int64_t> v, int64_t dflt) {
      if (!v) return dflt;
      int64_t k = *v < 0 ? *v + n : *v;
      return std::clamp<int64_t>(k, 0, n);
    };
    int64_t start = at(lo, 0);
    return {start, std::max(start, at(hi, n)), step, false};
  }
  auto at = [&](std::optional<int64_t> v, int64_t dflt) {  // positions -1 .. n-1, as Python
    if (!v) return dflt;
    int64_t k = *v < 0 ? *v + n : *v;
    return std::clamp<int64_t>(k, -1, n - 1);
  };
  int64_t first = at(lo, n - 1), stop = at(hi, -1);
  int64_t count = first > stop ? (first - stop - 1) / -step + 1 : 0;
  int64_t start = count > 0 ? n - 1 - first : 0;
  return {start, count > 0 ? start + (count - 1) * -step + 1 : 0, -step, true};
}
}  // namespace

namespace {

/// The items of a tuple used as a whole index: None is a new axis, anything else an index.
std::vector<IndexArg> tupleIndexArgs(const Value& tuple, Span span) {
  std::vector<IndexArg> args;
  for (const Value& v : *tuple.elems) {
    IndexArg a;
    a.span = span;
    if (v.isNone())
      a.kind = IndexArg::Kind::NewAxis;
    else
      a.value = toArray(v, span, "index");
    args.push_back(std::move(a));
  }
  return args;
}

}  // namespace

std::vector<IndexArg> Evaluator::evalIndexArgs(const std::vector<IndexItem>& items,
                                               const std::shared_ptr<Env>& env) {
  std::vector<IndexArg> args;
  for (const IndexItem& it : items) {
    IndexArg a;
    a.span = it.span;
    if (it.isEllipsis) {
      a.kind = IndexArg::Kind::Ellipsis;
    } else if (it.isSlice) {
      auto bound = [&](const ExprPtr& p) -> std::optional<int64_t> {
        if (!p) return std::nullopt;
        AVal v = toArray(eval(*p, env), p->span, "slice");
        return staticInt(v, StaticUse::SliceBound, p->span, "");
      };
      a.kind = IndexArg::Kind::Slice;
      a.start = bound(it.start);
      a.stop = bound(it.stop);
      a.step = bound(it.step).value_or(1);
      if (a.step == 0) fail("E0218", it.step->span, "slice step cannot be zero");
    } else if (isNewAxis(it)) {
      a.kind = IndexArg::Kind::NewAxis;
    } else {
      Value v = eval(*it.index, env);
      // NumPy's rule: a tuple as the whole index is the tuple of indices, so `x[(i, j)]` is
      // `x[i, j]` and `x[nonzero(mask)]` gathers the nonzero elements.
      if (v.isTuple() && items.size() == 1) return tupleIndexArgs(v, it.span);
      a.value = toArray(v, it.span, "index");
    }
    args.push_back(std::move(a));
  }
  return args;
}

// t[a:b:c] of a tuple: the tuple of those elements, with Python's rules for the static bounds
// (`x.shape[:-1] + (d,)`).
Value Evaluator::sliceTuple(const Value& t, const IndexItem& it, const std::shared_ptr<Env>& env) {
  auto bound = [&](const ExprPtr& b) -> std::optional<int64_t> {
    if (!b) return std::nullopt;
    Value v = eval(*b, env);
    if (v.isNone()) return std::nullopt;
    return staticInt(toArray(v, b->span, "tuple slice"), StaticUse::SliceBound, b->span, "");
  };
  int64_t n = static_cast<int64_t>(t.elems->size());
  int64_t step = bound(it.step).value_or(1);
  if (step == 0) fail("E0217", it.span, "a tuple slice's step cannot be 0");
  auto clampTo = [&](std::optional<int64_t> b, int64_t dflt) {
    if (!b) return dflt;
    int64_t v = *b < 0 ? *b + n : *b;
    return step > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
  };
  int64_t start = clampTo(bound(it.start), step > 0 ? 0 : n - 1), stop = clampTo(bound(it.stop), step > 0 ? n : -1);
  std::vector<Value> out;
  for (int64_t k = start; step > 0 ? k < stop : k > stop; k += step) out.push_back((*t.elems)[static_cast<size_t>(k)]);
  return Value::ofTuple(std::move(out));
}

Value Evaluator::evalIndex(const IndexExpr& e, const std::shared_ptr<Env>& env) {
  if (e.base->kind == ExprKind::Attr && static_cast<const AttrExpr&>(*e.base).attr == "at")
    fail("E0247", e.span, "`x.at[...]` must be followed by an update method",
         "write `x.at[i].set(v)`, `.add(v)`, `.mul(v)`, `.min(v)`, `.max(v)` or `.get()`; read with `x[i]`");
  Value base = eval(*e.base, env);
  if (base.isTuple()) {
    if (e.items.size() == 1 && e.items[0].isSlice) return sliceTuple(base, e.items[0], env);
    if (e.items.size() != 1 || e.items[0].isEllipsis)
      fail("E0217", e.span, "a tuple takes one integer index or one slice",
           "index it as `t[0]`, `t[-1]` or `t[1:]`");
    AVal i = toArray(eval(*e.items[0].index, env), e.items[0].span, "tuple index");
    int64_t k = staticInt(i, StaticUse::TupleIndex, e.items[0].span, "");
    int64_t n = static_cast<int64_t>(base.elems->size());
    if (k < -n || k >= n)
      fail("E0217", e.items[0].span, "tuple index " + std::to_string(k) + " out of range for a tuple of " + std::to_string(n));
    return (*base.elems)[static_cast<size_t>(k < 0 ? k + n : k)];
  }
  AVal x = toArray(base, e.base->span, "indexing");
  std::vector<IndexArg> args = evalIndexArgs(e.items, env);
  if (needsGather(args)) return Value::ofArray(gatherIndexed(*this, x, args, std::nullopt, true, e.span));
  return Value::ofArray(basicIndex(x, args, e.span));
}

// Basic indexing (static ints, slices, None, `...`) through slice + reshape; traced integer
// scalars through one dynamic_slice.
AVal Evaluator::basicIndex(const AVal& x, const std::vector<IndexArg>& args, Span span) {
  const Shape& shape = x.type.shape;
  size_t consumed = 0;
  const IndexArg* ellipsis = nullptr;
  for (const IndexArg& it : args) {
    if (it.kind == IndexArg::Kind::Ellipsis) {
      if (ellipsis)
        fail("E0217", it.span, "an index can have only one ellipsis `...`", "",
             {DiagNote{ellipsis->span, "the first `...` is here"}});
      ellipsis = &it;
    } else if (it.kind != IndexArg::Kind::NewAxis) {
      ++consumed;
    }
  }
  if (consumed > shape.size())
    fail("E0217", span, "too many indices: " + std::to_string(consumed) + " for an array of rank " +
                            std::to_string(shape.size()) + " " + shapeString(shape));
  size_t rank = shape.size();
  std::vector<int64_t> starts(rank, 0), limits = shape, strides(rank, 1);
  std::vector<std::optional<AVal>> dynStart(rank);
  std::vector<bool> dropped(rank, false);
  std::vector<int64_t> reversed;  // axes a negative step reverses
  std::vector<int64_t> newAxes;  // positions (in output dims) of None
  size_t dim = 0, outDim = 0;
  for (const IndexArg& it : args) {
    if (it.kind == IndexArg::Kind::NewAxis) {
      newAxes.push_back(static_cast<int64_t>(outDim++));
      continue;
    }
    if (it.kind == IndexArg::Kind::Ellipsis) {  // full slices of the axes no other item takes
      dim += rank - consumed;
      outDim += rank - consumed;
      continue;
    }
    int64_t n = shape[dim];
    if (it.kind == IndexArg::Kind::Slice) {
      AxisSlice s = normaliseSlice(it.start, it.stop, it.step, n);
      starts[dim] = s.start;
      limits[dim] = s.limit;
      strides[dim] = s.stride;
      if (s.reversed) reversed.push_back(static_cast<int64_t>(dim));
      ++dim;
      ++outDim;
      continue;
    }
    const AVal& idx = *it.value;
    if (!isInteger(idx.type.dtype))
      fail("E0246", it.span, "an index must be an integer, got " + surfaceTypeString(idx),
           "convert it: `i32(i)`");
    if (idx.isStatic()) {
      int64_t k = idx.concrete->getInt(0);
      if (k < -n || k >= n)
        fail("E0219", it.span, "index " + std::to_string(k) + " is out of bounds for axis " +
                                   std::to_string(dim) + " with size " + std::to_string(n));
      if (k < 0) k += n;
      starts[dim] = k;
      limits[dim] = k + 1;
    } else {
      dynStart[dim] = idx;
    }
    dropped[dim] = true;
    ++dim;
  }
  AVal r = x;
  if (!reversed.empty()) {
    Attrs at;
    at.axes = reversed;
    r = tracer_.apply1(Op::Reverse, {r}, at, span);
    r.weak = x.weak;
  }
  bool anyDyn = false;
  for (auto& d : dynStart) anyDyn = anyDyn || d.has_value();
  bool trivial = true;
  for (size_t d = 0; d < rank; ++d)
    trivial = trivial && starts[d] == 0 && limits[d] == shape[d] && strides[d] == 1;
  if (!trivial) r = ops_.slice(r, starts, limits, strides, span);
  if (anyDyn) {
    // Negative traced indices wrap as in NumPy; out-of-range ones clamp (dynamic_slice semantics).
    std::vector<AVal> in{r};
    Attrs at;
    at.shape = r.type.shape;
    for (size_t d = 0; d < rank; ++d) {
      if (dynStart[d]) {
        AVal k = ops_.convert(*dynStart[d], DType::I32, span);
        AVal n = strongScalar(DType::I32, static_cast<double>(shape[d]));
        AVal neg = ops_.binary(Op::Lt, k, weakInt(0), span, "index");
        k = ops_.select(neg, ops_.binary(Op::Add, k, n, span, "index"), k, span);
        in.push_back(k);
        at.shape[d] = 1;
      } else {
        in.push_back(strongScalar(DType::I32, 0));
      }
    }
    r = tracer_.apply1(Op::DynamicSlice, in, at, span);
    r.weak = x.weak;
  }
  Shape out;
  for (size_t d = 0; d < rank; ++d)
    if (!dropped[d]) out.push_back(r.type.shape[d]);
  for (int64_t a : newAxes) out.insert(out.begin() + std::min<int64_t>(a, out.size()), 1);
  return ops_.reshape(r, out, span);
}

}  // namespace scn
