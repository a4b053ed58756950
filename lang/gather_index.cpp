// Index plans: NumPy indexing with integer arrays, masks, slices, ints and None as one gather or
// one scatter over index arrays (Note [Index plans]).
#include "lang/gather_index.hpp"

#include <algorithm>
#include <climits>

#include "base/diagnostics.hpp"

namespace scn {

// Note [Index plans]
// NumPy's advanced indexing, as JAX implements it: the integer-array items (and the integer
// scalars among them, and the coordinates of a static boolean mask) broadcast together to one
// shape B; the result has B where the first of them stood when they are adjacent, else in front
// (`a[:, i, j]` is (n0, B), `a[i, :, j]` is (B, n1)); slices and None keep their axes around it.
// The plan builds the result shape R and then one index array of R's shape per axis of x, up to
// the last axis that is not a plain full slice at the end of R: an array item's index is
// broadcast into B's place in R, a slice's is an iota along its own axis of R (times its step,
// plus its start; reversed for a negative step). The axes after that are the window, which the
// gather copies whole. So every form is one Gather (or one Scatter, with updates broadcast to
// R) of Note [Gather and scatter]; the index arrays are iotas, broadcasts and converts that
// fuse into the gather's kernel. A boolean mask must be static: its true count is the
// result's size (a traced mask is E0107, JAX's NonConcreteBooleanIndexError).

namespace {

struct AxisSlice {
  int64_t start = 0, limit = 0, stride = 1;
  bool reversed = false;
  int64_t length() const { return limit > start ? (limit - start + stride - 1) / stride : 0; }
};

// As Python's slice.indices(n) (Note [Slices with a negative step] in indexing.cpp).
AxisSlice normalise(std::optional<int64_t> lo, std::optional<int64_t> hi, int64_t step, int64_t n) {
  step = std::clamp(step, -std::max<int64_t>(n, 1), std::max<int64_t>(n, 1));
  if (step > 0) {
    auto at = [&](std::optional<int64_t> v, int64_t dflt) {
      if (!v) return dflt;
      return std::clamp<int64_t>(*v < 0 ? *v + n : *v, 0, n);
    };
    int64_t start = at(lo, 0);
    return {start, std::max(start, at(hi, n)), step, false};
  }
  auto at = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    return std::clamp<int64_t>(*v < 0 ? *v + n : *v, -1, n - 1);
  };
  int64_t first = at(lo, n - 1), stop = at(hi, -1);
  int64_t count = first > stop ? (first - stop - 1) / -step + 1 : 0;
  int64_t start = count > 0 ? n - 1 - first : 0;
  return {start, count > 0 ? start + (count - 1) * -step + 1 : 0, -step, true};
}

/// One item with its axis of x: a new axis, a slice, or an advanced (integer array) index.
struct Item {
  enum class Kind { NewAxis, Slice, Advanced } kind;
  int64_t axis = -1;
  AxisSlice slice;
  AVal index;
  Span span;
};

/// A dimension of the result: a new axis (-1), a slice of axis `axis`, or dimension `b` of B.
struct Dim {
  int64_t size;
  int64_t axis = -1;
  int64_t b = -1;
};

struct Plan {
  std::vector<Dim> result;
  Shape points;               // the result without the window
  std::vector<AVal> indices;  // one per leading axis of x, of shape `points`
  Shape resultShape() const {
    Shape s;
    for (const Dim& d : result) s.push_back(d.size);
    return s;
  }
};

int64_t consumedAxes(const IndexArg& a) {
  switch (a.kind) {
    case IndexArg::Kind::NewAxis: case IndexArg::Kind::Ellipsis: return 0;
    case IndexArg::Kind::Slice: return 1;
    case IndexArg::Kind::Array:
      return a.value->type.dtype == DType::Bool ? static_cast<int64_t>(a.value->type.shape.size()) : 1;
  }
  return 1;
}

/// The integer index arrays of a static boolean mask over axes [axis, axis + rank).
std::vector<AVal> maskCoordinates(const IndexArg& a, const Shape& shape, int64_t axis, Span span) {
  const AVal& m = *a.value;
  if (m.type.shape.empty())
    fail("E0247", a.span, "a boolean scalar index is not supported",
         "index with an integer, or select with `where(c, x, y)`");
  Array mask = concreteOrError(m, StaticUse::BoolMask, a.span, "");
  Shape covered(shape.begin() + axis, shape.begin() + axis + static_cast<int64_t>(m.type.shape.size()));
  if (covered != m.type.shape)
    fail("E0247", a.span, "boolean index of shape " + shapeString(m.type.shape) +
                              " does not match the indexed axes " + shapeString(covered) +
                              " of an array of shape " + shapeString(shape),
         "a mask has the shape of the axes it selects from (NumPy's rule)");
  std::vector<std::vector<int64_t>> coords(m.type.shape.size());
  std::vector<int64_t> strides(m.type.shape.size(), 1);
  for (size_t d = strides.size(); d-- > 1;) strides[d - 1] = strides[d] * m.type.shape[d];
  for (int64_t i = 0; i < mask.size(); ++i) {
    if (!mask.getInt(i)) continue;
    for (size_t d = 0; d < coords.size(); ++d) coords[d].push_back(i / strides[d] % m.type.shape[d]);
  }
  std::vector<AVal> out;
  for (const std::vector<int64_t>& c : coords) {
    Array idx(DType::I32, {static_cast<int64_t>(c.size())});
    for (size_t i = 0; i < c.size(); ++i) idx.setInt(static_cast<int64_t>(i), c[i]);
    out.push_back(AVal::of(std::move(idx)));
  }
  return out;
}

/// The items of args with their axes: `...` and the axes no item names become full slices.
std::vector<Item> itemsOf(const AVal& x, const std::vector<IndexArg>& args, Span span) {
  const Shape& shape = x.type.shape;
  int64_t rank = static_cast<int64_t>(shape.size()), consumed = 0;
  const IndexArg* ellipsis = nullptr;
  for (const IndexArg& a : args) {
    consumed += consumedAxes(a);
    if (a.kind != IndexArg::Kind::Ellipsis) continue;
    if (ellipsis)
      fail("E0217", a.span, "an index can have only one ellipsis `...`", "",
           {DiagNote{ellipsis->span, "the first `...` is here"}});
    ellipsis = &a;
  }
  if (consumed > rank)
    fail("E0217", span, "too many indices: " + std::to_string(consumed) + " for an array of rank " +
                            std::to_string(rank) + " " + shapeString(shape));
  std::vector<Item> items;
  int64_t axis = 0;
  auto fullSlices = [&](int64_t count) {
    for (int64_t i = 0; i < count; ++i, ++axis)
      items.push_back(Item{Item::Kind::Slice, axis, AxisSlice{0, shape[axis], 1, false}, {}, span});
  };
  for (const IndexArg& a : args) {
    switch (a.kind) {
      case IndexArg::Kind::NewAxis: items.push_back(Item{Item::Kind::NewAxis, -1, {}, {}, a.span}); break;
      case IndexArg::Kind::Ellipsis: fullSlices(rank - consumed); break;
      case IndexArg::Kind::Slice:
        items.push_back(Item{Item::Kind::Slice, axis, normalise(a.start, a.stop, a.step, shape[axis]), {}, a.span});
        ++axis;
        break;
      case IndexArg::Kind::Array: {
        const AVal& v = *a.value;
        if (v.type.dtype == DType::Bool) {
          for (AVal& c : maskCoordinates(a, shape, axis, span))
            items.push_back(Item{Item::Kind::Advanced, axis++, {}, std::move(c), a.span});
          break;
        }
        if (!isInteger(v.type.dtype))
          fail("E0246", a.span, "an index array must have an integer or bool dtype, got " + surfaceTypeString(v),
               "convert it: `astype(i, i32)`");
        items.push_back(Item{Item::Kind::Advanced, axis++, {}, defaultize(v, a.span), a.span});
        break;
      }
    }
  }
  fullSlices(rank - axis);
  return items;
}

/// An index array of shape `points` for item `it`, whose own dimensions are at `at` in it.
AVal indexArrayOf(Evaluator& ev, const Item& it, const Shape& b, const Shape& points,
                  const std::vector<int64_t>& at, DType dt, Span span) {
  ArrayOps& ops = ev.ops();
  if (it.kind == Item::Kind::Advanced) {
    AVal i = ops.broadcastTo(it.index, b, span, "indexing");
    Shape placed(points.size(), 1);
    for (size_t d = 0; d < at.size(); ++d) placed[at[d]] = b[d];
    return ops.broadcastTo(ops.reshape(i, placed, span), points, span, "indexing");
  }
  const AxisSlice& s = it.slice;
  AVal i = ops.iota(dt, points, at.at(0), span);
  if (s.stride != 1) i = ops.binary(Op::Mul, i, strongScalar(dt, static_cast<double>(s.stride)), span, "indexing");
  if (s.start != 0) i = ops.binary(Op::Add, i, strongScalar(dt, static_cast<double>(s.start)), span, "indexing");
  return i;
}

Plan planOf(Evaluator& ev, const AVal& x, const std::vector<IndexArg>& args, Span span) {
  const Shape& shape = x.type.shape;
  std::vector<Item> items = itemsOf(x, args, span);
  std::vector<AVal> advanced;
  std::vector<size_t> advPos;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].kind == Item::Kind::Advanced) {
      advanced.push_back(items[i].index);
      advPos.push_back(i);
    }
  Shape b = advanced.empty() ? Shape{} : ev.ops().broadcastShapes(advanced, span, "indexing");
  bool adjacent = !advPos.empty() && advPos.back() - advPos.front() + 1 == advPos.size();
  Plan p;
  auto addB = [&] {
    for (size_t d = 0; d < b.size(); ++d) p.result.push_back(Dim{b[d], -1, static_cast<int64_t>(d)});
  };
  if (!adjacent) addB();
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    if (it.kind == Item::Kind::Advanced) {
      if (adjacent && i == advPos.front()) addB();
    } else if (it.kind == Item::Kind::NewAxis) {
      p.result.push_back(Dim{1});
    } else {
      p.result.push_back(Dim{it.slice.length(), it.axis});
    }
  }
  // The window: full slices of x's last axes that end the result in order.
  int64_t rank = static_cast<int64_t>(shape.size()), window = 0;
  while (window < rank && window < static_cast<int64_t>(p.result.size())) {
    const Dim& d = p.result[p.result.size() - 1 - window];
    const Item* it = nullptr;
    for (const Item& c : items)
      if (c.axis == rank - 1 - window) it = &c;
    bool full = it && it->kind == Item::Kind::Slice && it->slice.start == 0 && it->slice.stride == 1 &&
                !it->slice.reversed && it->slice.limit == shape[it->axis];
    if (!full || d.axis != it->axis) break;
    ++window;
  }
  for (size_t d = 0; d + window < p.result.size(); ++d) p.points.push_back(p.result[d].size);
  std::vector<int64_t> bAt;
  for (size_t d = 0; d < p.points.size(); ++d)
    if (p.result[d].b >= 0) bAt.push_back(static_cast<int64_t>(d));
  bool wide = false;
  for (int64_t n : shape) wide = wide || n > INT32_MAX;
  DType dt = wide ? DType::I64 : DType::I32;
  for (int64_t a = 0; a < rank - window; ++a) {
    const Item* it = nullptr;
    for (const Item& c : items)
      if (c.axis == a) it = &c;
    std::vector<int64_t> at = bAt;
    if (it->kind == Item::Kind::Slice) {
      for (size_t d = 0; d < p.points.size(); ++d)
        if (p.result[d].axis == a) at = {static_cast<int64_t>(d)};
    }
    AVal i = indexArrayOf(ev, *it, b, p.points, at, dt, span);
    if (it->kind == Item::Kind::Slice && it->slice.reversed)  // Note [Slices with a negative step]
      i = ev.ops().binary(Op::Sub, strongScalar(dt, static_cast<double>(shape[a] - 1)), i, span, "indexing");
    p.indices.push_back(i);
  }
  return p;
}

/// Whether each index is in range for its axis (-n..n-1), as a bool array of the result's shape.
AVal inRange(Evaluator& ev, const Plan& p, const Shape& shape, Span span) {
  ArrayOps& ops = ev.ops();
  AVal ok = AVal::of(Array::scalar(DType::Bool, 1));
  for (size_t d = 0; d < p.indices.size(); ++d) {
    const AVal& i = p.indices[d];
    AVal n = weakInt(shape[d]);
    AVal lo = ops.binary(Op::Ge, i, ops.unary(Op::Neg, n, span), span, "indexing");
    AVal hi = ops.binary(Op::Lt, i, n, span, "indexing");
    ok = ops.logical(Op::And, ok, ops.logical(Op::And, lo, hi, span), span);
  }
  ok = ops.broadcastTo(ok, p.points, span, "indexing");
  Shape r = p.resultShape();
  Shape placed = p.points;
  placed.resize(r.size(), 1);
  return ops.broadcastTo(ops.reshape(ok, placed, span), r, span, "indexing");
}

void checkStaticInRange(const std::vector<IndexArg>& args, const Shape& shape) {
  int64_t axis = 0;
  for (const IndexArg& a : args) {
    if (a.kind == IndexArg::Kind::Ellipsis) {
      int64_t named = 0;
      for (const IndexArg& c : args) named += consumedAxes(c);
      axis += static_cast<int64_t>(shape.size()) - named;
    }
    if (a.kind == IndexArg::Kind::Array && a.value->type.shape.empty() && a.value->isStatic() &&
        isInteger(a.value->type.dtype)) {
      int64_t k = a.value->concrete->getInt(0), n = shape[axis];
      if (k < -n || k >= n)
        fail("E0219", a.span, "index " + std::to_string(k) + " is out of bounds for axis " +
                                  std::to_string(axis) + " with size " + std::to_string(n));
    }
    axis += consumedAxes(a);
  }
}

}  // namespace

bool needsGather(const std::vector<IndexArg>& args) {
  for (const IndexArg& a : args)
    if (a.kind == IndexArg::Kind::Array && (!a.value->type.shape.empty() || a.value->type.dtype == DType::Bool))
      return true;
  return false;
}

AVal gatherIndexed(Evaluator& ev, const AVal& x, const std::vector<IndexArg>& args,
                   const std::optional<AVal>& fill, bool checkStatic, Span span) {
  Plan p = planOf(ev, x, args, span);
  if (checkStatic) checkStaticInRange(args, x.type.shape);
  Shape r = p.resultShape();
  bool emptyAxis = false;
  for (size_t d = 0; d < p.indices.size(); ++d) emptyAxis = emptyAxis || x.type.shape[d] == 0;
  if (emptyAxis || numElements(r) == 0) {
    if (!fill && numElements(r) > 0)
      fail("E0253", span, "cannot gather from an empty axis: indexing " + surfaceTypeString(x) +
                              " at positions of shape " + shapeString(p.points),
           "an index into an axis of size 0 is always out of range; read with x.at[i].get(mode=\"fill\") for a fill value");
    AVal v = fill ? *fill : weakInt(0);
    return ev.ops().full(r, ev.ops().convert(v, x.type.dtype, span), span);
  }
  std::vector<AVal> in{x};
  in.insert(in.end(), p.indices.begin(), p.indices.end());
  AVal g = ev.tracer().apply1(Op::Gather, in, {}, span);
  g.weak = x.weak;
  if (!fill) return g;
  AVal f = ev.ops().convert(*fill, x.type.dtype, span);
  AVal out = ev.ops().select(inRange(ev, p, x.type.shape, span), g, f, span);
  out.weak = x.weak;
  return out;
}

AVal scatterIndexed(Evaluator& ev, const AVal& x, const std::vector<IndexArg>& args, Op op,
                    AVal updates, bool clip, Span span) {
  ArrayOps& ops = ev.ops();
  Plan p = planOf(ev, x, args, span);
  // The updates take x's dtype (JAX casts them); two weak values promote as in a binary op.
  DType t = x.weak && updates.weak ? promoteTypes(x, updates) : x.type.dtype;
  AVal xt = ops.convert(x, t, span);
  AVal u = updates.type.dtype == t || updates.weak ? ops.convert(updates, t, span) : ops.cast(updates, t, span);
  u = ops.broadcastTo(u, p.resultShape(), span, opName(op));
  std::vector<AVal> in{xt, u};
  for (size_t d = 0; d < p.indices.size(); ++d) {
    AVal i = p.indices[d];
    if (clip) {
      AVal n = weakInt(x.type.shape[d]);
      i = ops.select(ops.binary(Op::Lt, i, weakInt(0), span, "clip"), ops.binary(Op::Add, i, n, span, "clip"), i, span);
      i = ops.binary(Op::Min, ops.binary(Op::Max, i, weakInt(0), span, "clip"),
                     weakInt(std::max<int64_t>(x.type.shape[d] - 1, 0)), span, "clip");
    }
    in.push_back(i);
  }
  AVal r = ev.tracer().apply1(op, in, {}, span);
  r.weak = x.weak && updates.weak;
  return r;
}

}  // namespace scn
