// Builtins that build arrays from others: pad roll tile repeat, the stacks, ravel swapaxes
// moveaxis, meshgrid, split and array_split, atleast_*d, rot90, full_like.
#include <algorithm>

#include "lang/builtin_args.hpp"

namespace scn {

std::optional<std::pair<Shape, std::vector<int64_t>>> staticIntGrid(const Value& v) {
  if (v.isArray()) {
    if (!v.array->isStatic() || (!isInteger(v.array->type.dtype) && v.array->type.dtype != DType::Bool)) return std::nullopt;
    const Array& a = *v.array->concrete;
    std::vector<int64_t> elems;
    for (int64_t k = 0; k < a.size(); ++k) elems.push_back(a.getInt(k));
    return std::make_pair(a.shape, elems);
  }
  if (!v.isTuple()) return std::nullopt;
  std::optional<Shape> inner;
  std::vector<int64_t> elems;
  for (const Value& e : *v.elems) {
    auto g = staticIntGrid(e);
    if (!g || (inner && *inner != g->first)) return std::nullopt;
    inner = g->first;
    elems.insert(elems.end(), g->second.begin(), g->second.end());
  }
  Shape s{static_cast<int64_t>(v.elems->size())};
  if (inner) s.insert(s.end(), inner->begin(), inner->end());
  return std::make_pair(s, elems);
}

AVal reverseAxes(Tracer& t, const AVal& x, std::vector<int64_t> axes, Span span) {
  std::sort(axes.begin(), axes.end());
  Attrs at;
  at.axes = std::move(axes);
  AVal r = t.apply1(Op::Reverse, {x}, at, span);
  r.weak = x.weak;
  return r;
}

namespace {

// Note [Static index maps]
// pad's edge/reflect/symmetric/wrap modes, roll, repeat and rot90 each pick elements along an
// axis by a static list of indices. There is no gather in the IR for that; instead the list is cut
// into maximal runs of step +1 (a slice), -1 (a slice, reversed) or 0 (one element broadcast),
// joined by one concat. A reflect pad is three runs, a roll two, repeat(x, [2, 3]) two broadcasts:
// a few index-only ops that fuse into their consumer and that vmap batches like any slice.

AVal sliceAxis(ArrayOps& ops, const AVal& x, int64_t axis, int64_t lo, int64_t hi, Span span) {
  size_t rank = x.type.shape.size();
  std::vector<int64_t> starts(rank, 0), limits = x.type.shape, strides(rank, 1);
  starts[axis] = lo;
  limits[axis] = hi;
  if (lo == 0 && hi == x.type.shape[axis]) return x;
  return ops.slice(x, starts, limits, strides, span);
}

AVal takeStatic(Evaluator& ev, const AVal& x, int64_t axis, const std::vector<int64_t>& idx, Span span) {
  ArrayOps& ops = ev.ops();
  int64_t n = static_cast<int64_t>(idx.size());
  bool identity = n == x.type.shape[axis];
  for (int64_t k = 0; identity && k < n; ++k) identity = idx[k] == k;
  if (identity) return x;
  if (n == 0) return sliceAxis(ops, x, axis, 0, 0, span);
  std::vector<AVal> pieces;
  for (int64_t k = 0; k < n;) {
    int64_t step = k + 1 < n ? idx[k + 1] - idx[k] : 1;
    if (step < -1 || step > 1) step = 1;
    int64_t end = k + 1;
    while (end < n && idx[end] - idx[end - 1] == step) ++end;
    int64_t first = idx[k], last = idx[end - 1];
    if (step == 1) {
      pieces.push_back(sliceAxis(ops, x, axis, first, last + 1, span));
    } else if (step == -1) {
      pieces.push_back(reverseAxes(ev.tracer(), sliceAxis(ops, x, axis, last, first + 1, span), {axis}, span));
    } else {
      Shape s = x.type.shape;
      s[axis] = end - k;
      pieces.push_back(ops.broadcastTo(sliceAxis(ops, x, axis, first, first + 1, span), s, span));
    }
    k = end;
  }
  return ops.concat(pieces, axis, span);
}

bool given(const Args& a, size_t i) { return a.has(i) && !a.get(i).isNone(); }

int64_t positiveMod(int64_t i, int64_t n) { return ((i % n) + n) % n; }

std::string plural(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// ---- pad ----

/// pad_width as NumPy reads it: anything that broadcasts to (rank, 2): n, (before, after), or one
/// (before, after) per axis.
std::vector<std::pair<int64_t, int64_t>> padWidths(const Args& a, size_t i, size_t rank) {
  auto g = staticIntGrid(a.get(i));
  std::string want = "(" + std::to_string(rank) + ", 2)";
  const char* help = "give an int, a (before, after) pair, or one (before, after) pair per axis";
  if (!g) fail("E0268", a.span(i), "pad_width of pad must be static integers, got " + describe(a.get(i)), help);
  const Shape& s = g->first;
  int64_t r = static_cast<int64_t>(rank);
  bool fits = s.size() <= 2 && (s.empty() || s.back() == 1 || s.back() == 2) &&
              (s.size() < 2 || s[0] == 1 || s[0] == r);
  if (!fits) fail("E0268", a.span(i), "pad_width of shape " + shapeString(s) + " does not broadcast to " + want, help);
  std::vector<std::pair<int64_t, int64_t>> widths;
  int64_t cols = s.empty() ? 1 : s.back(), rows = s.size() == 2 ? s[0] : 1;
  for (int64_t d = 0; d < r; ++d) {
    int64_t row = rows == 1 ? 0 : d;
    int64_t before = g->second[row * cols], after = g->second[row * cols + cols - 1];
    if (before < 0 || after < 0)
      fail("E0268", a.span(i), "pad got a negative width " + std::to_string(std::min(before, after)) + " for axis " + std::to_string(d),
           "pad widths count elements added; use slicing to remove elements");
    widths.push_back({before, after});
  }
  return widths;
}

/// The source index of padded position i (from -before) along an axis of n > 0 elements.
int64_t padSource(const std::string& mode, int64_t i, int64_t n) {
  if (mode == "edge") return std::clamp<int64_t>(i, 0, n - 1);
  if (mode == "wrap") return positiveMod(i, n);
  if (mode == "symmetric") {
    int64_t m = positiveMod(i, 2 * n);
    return m < n ? m : 2 * n - 1 - m;
  }
  if (n == 1) return 0;  // reflect
  int64_t m = positiveMod(i, 2 * (n - 1));
  return m < n ? m : 2 * (n - 1) - m;
}

// pad(x, pad_width, mode="constant", constant_values=0)
Value pad(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "pad", {"x", "pad_width", "mode=", "constant_values="});
  AVal x = a.array(0);
  auto widths = padWidths(a, 1, x.type.shape.size());
  std::string mode = "constant";
  if (given(a, 2)) {
    if (a.get(2).kind != ValueKind::String) fail("E0268", a.span(2), "pad's mode must be a string, got " + describe(a.get(2)));
    mode = a.get(2).str;
  }
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "symmetric" && mode != "wrap")
    fail("E0268", a.span(2), "pad has no mode \"" + mode + "\"", "the modes are \"constant\", \"edge\", \"reflect\", \"symmetric\" and \"wrap\"");
  AVal fill = weakInt(0);
  if (given(a, 3)) {
    fill = a.array(3);
    if (mode != "constant") fail("E0268", a.span(3), "pad takes constant_values only with mode \"constant\"");
    if (!fill.type.shape.empty()) fail("E0268", a.span(3), "pad's constant_values must be a scalar, got " + surfaceTypeString(fill));
  }
  fill = ev.ops().convert(fill, x.type.dtype, a.span(3));
  fill.weak = fill.weak && x.weak;
  for (size_t d = 0; d < widths.size(); ++d) {
    auto [before, after] = widths[d];
    if (before == 0 && after == 0) continue;
    int64_t axis = static_cast<int64_t>(d), n = x.type.shape[d];
    if (mode == "constant") {
      Shape s = x.type.shape;
      s[d] = before;
      AVal lo = ev.ops().full(s, fill, c.span);
      s[d] = after;
      x = ev.ops().concat({lo, x, ev.ops().full(s, fill, c.span)}, axis, c.span);
      continue;
    }
    if (n == 0) fail("E0268", c.span, "pad cannot extend the empty axis " + std::to_string(d) + " with mode \"" + mode + "\"",
                     "only mode \"constant\" pads an empty axis");
    std::vector<int64_t> idx;
    for (int64_t i = -before; i < n + after; ++i) idx.push_back(padSource(mode, i, n));
    x = takeStatic(ev, x, axis, idx, c.span);
  }
  return arr(x);
}

// ---- roll ----

/// x rolled by `shift` along `axis`: out[i] = x[(i - shift) mod n]. A traced shift reads a
/// dynamic_slice of x joined to itself.
AVal rollAxis(Evaluator& ev, const AVal& x, const AVal& shift, int64_t axis, Span span) {
  int64_t n = x.type.shape[axis];
  if (n == 0) return x;
  if (shift.isStatic()) {
    int64_t s = positiveMod(staticInt(shift, StaticUse::Other, span, "`shift` of roll"), n);
    return s == 0 ? x : ev.ops().concat({sliceAxis(ev.ops(), x, axis, n - s, n, span), sliceAxis(ev.ops(), x, axis, 0, n - s, span)}, axis, span);
  }
  ArrayOps& ops = ev.ops();
  if (!shift.type.shape.empty() || !isInteger(shift.type.dtype))
    fail("E0271", span, "roll's shift must be an integer scalar, got " + surfaceTypeString(shift));
  AVal nn = strongScalar(DType::I32, static_cast<double>(n));
  AVal s = ops.binary(Op::Rem, ops.convert(shift, DType::I32, span), nn, span, "roll");
  std::vector<AVal> in{ops.concat({x, x}, axis, span)};
  for (size_t d = 0; d < x.type.shape.size(); ++d)
    in.push_back(static_cast<int64_t>(d) == axis ? ops.binary(Op::Sub, nn, s, span, "roll") : strongScalar(DType::I32, 0));
  Attrs at;
  at.shape = x.type.shape;
  AVal r = ev.tracer().apply1(Op::DynamicSlice, in, at, span);
  r.weak = x.weak;
  return r;
}

// roll(x, shift, axis=None): shifts and axes pair up (one of them may be a single value).
Value roll(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "roll", {"x", "shift", "axis="});
  AVal x = a.array(0);
  Shape shape = x.type.shape;
  Value sv = a.sequence(1);
  std::vector<AVal> shifts;
  if (sv.isTuple()) for (const Value& s : *sv.elems) shifts.push_back(toArray(s, a.span(1), "roll"));
  else shifts.push_back(a.array(1));
  std::vector<int64_t> axes = a.axes(2).value_or(std::vector<int64_t>{0});
  if (!given(a, 2)) x = ev.ops().reshape(x, {numElements(shape)}, c.span);
  if (shifts.size() != axes.size() && shifts.size() != 1 && axes.size() != 1)
    fail("E0271", c.span, "roll got " + plural(shifts.size(), "shift", "shifts") + " and " + plural(axes.size(), "axis", "axes"),
         "give one shift per axis, or one shift or one axis for all");
  size_t count = std::max(shifts.size(), axes.size());
  for (size_t k = 0; k < count; ++k) {
    int64_t axis = ArrayOps::normAxis(axes[axes.size() == 1 ? 0 : k], x.type.shape.size(), a.span(2), "roll");
    x = rollAxis(ev, x, shifts[shifts.size() == 1 ? 0 : k], axis, a.span(1));
  }
  return arr(ev.ops().reshape(x, shape, c.span));
}

// ---- tile and repeat ----

// tile(x, reps): x repeated reps[k] times along axis k (reps and x aligned at the right).
Value tile(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "tile", {"x", "reps"});
  AVal x = a.array(0);
  Shape reps = a.shape(1), s = x.type.shape;
  size_t rank = std::max(reps.size(), s.size());
  reps.insert(reps.begin(), rank - reps.size(), 1);
  s.insert(s.begin(), rank - s.size(), 1);
  // One broadcast: (1, n0, 1, n1, ...) to (r0, n0, r1, n1, ...), then merge each pair.
  Shape spread, target, out;
  for (size_t k = 0; k < rank; ++k) {
    spread.insert(spread.end(), {1, s[k]});
    target.insert(target.end(), {reps[k], s[k]});
    out.push_back(reps[k] * s[k]);
  }
  AVal r = ev.ops().broadcastTo(ev.ops().reshape(x, spread, c.span), target, c.span, "tile");
  return arr(ev.ops().reshape(r, out, c.span));
}

// repeat(x, repeats, axis=None, total_repeat_length=None): each element repeats[k] times.
Value repeat(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "repeat", {"x", "repeats", "axis=", "total_repeat_length="});
  AVal x = a.array(0);
  int64_t axis = 0;
  if (given(a, 2)) axis = ArrayOps::normAxis(a.integer(2, 0, StaticUse::Axis), x.type.shape.size(), a.span(2), "repeat");
  else x = ev.ops().reshape(x, {numElements(x.type.shape)}, c.span);
  int64_t n = x.type.shape[axis];
  Array reps = concreteOrError(a.array(1), StaticUse::Shape, a.span(1), "`repeats` of repeat");
  if (!isInteger(reps.dtype) || reps.rank() > 1)
    fail("E0270", a.span(1), "repeat's repeats must be an int or a 1-d array of ints, got " + typeString(Type{reps.dtype, reps.shape}));
  if (reps.rank() == 1 && reps.size() != 1 && reps.size() != n)
    fail("E0270", a.span(1), "repeat got " + std::to_string(reps.size()) + " repeats for an axis of length " + std::to_string(n),
         "give one count for every element, or one count for all");
  std::vector<int64_t> idx;
  for (int64_t k = 0; k < n; ++k) {
    int64_t r = reps.getInt(reps.size() == 1 ? 0 : k);
    if (r < 0) fail("E0270", a.span(1), "repeat got a negative count " + std::to_string(r));
    idx.insert(idx.end(), r, k);
  }
  if (given(a, 3)) {
    int64_t total = a.integer(3, 0, StaticUse::Shape);
    if (total < 0) fail("E0270", a.span(3), "repeat got a negative total_repeat_length " + std::to_string(total));
    // As in JAX: extra elements are dropped, missing ones repeat the last element.
    if (!idx.empty() || total == 0) idx.resize(total, idx.empty() ? 0 : idx.back());
    else fail("E0270", a.span(3), "repeat cannot fill total_repeat_length " + std::to_string(total) + " from no elements");
  }
  return arr(takeStatic(ev, x, axis, idx, c.span));
}

// ---- stacking ----

/// The 1-d, 2-d or 3-d view of x, as atleast_1d/2d/3d give it.
AVal atLeast(ArrayOps& ops, const AVal& x, size_t rank, Span span) {
  const Shape& s = x.type.shape;
  if (s.size() >= rank) return x;
  if (rank == 1) return ops.reshape(x, {1}, span);
  if (rank == 2) return ops.reshape(x, s.empty() ? Shape{1, 1} : Shape{1, s[0]}, span);
  if (s.empty()) return ops.reshape(x, {1, 1, 1}, span);
  return ops.reshape(x, s.size() == 1 ? Shape{1, s[0], 1} : Shape{s[0], s[1], 1}, span);
}

/// hstack / vstack / dstack / column_stack (arrays): the arrays at least `rank`-d, joined.
template <int kind>
Value stackAlong(Evaluator& ev, CallArgs& c) {
  static const char* names[] = {"hstack", "vstack", "dstack", "column_stack"};
  const char* name = names[kind];
  Args a(ev, c, name, {"arrays"});
  std::vector<AVal> xs = arraySequence(ev, a.get(0), a.span(0), name);
  if (xs.empty()) fail("E0207", c.span, std::string(name) + " needs at least one array");
  int64_t axis = kind == 1 ? 0 : kind == 2 ? 2 : 1;
  for (AVal& x : xs) {
    if (kind == 0) x = atLeast(ev.ops(), x, 1, c.span);
    else if (kind == 1) x = atLeast(ev.ops(), x, 2, c.span);
    else if (kind == 2) x = atLeast(ev.ops(), x, 3, c.span);
    else x = x.type.shape.size() < 2 ? ev.ops().reshape(x, {numElements(x.type.shape), 1}, c.span) : x;
  }
  if (kind == 0 && xs[0].type.shape.size() == 1) axis = 0;
  return arr(ev.ops().concat(xs, axis, c.span));
}

/// The positional arguments of a variadic builtin; `keywords` keeps the call without them.
std::vector<AVal> variadicArrays(const CallArgs& c, CallArgs& keywords, const char* name) {
  std::vector<AVal> xs;
  for (size_t i = 0; i < c.pos.size(); ++i) xs.push_back(toArray(c.pos[i], c.posSpans[i], name));
  keywords = c;
  keywords.pos.clear();
  keywords.posSpans.clear();
  return xs;
}

Value oneOrTuple(const std::vector<AVal>& xs) {
  if (xs.size() == 1) return arr(xs[0]);
  std::vector<Value> vs;
  for (const AVal& x : xs) vs.push_back(arr(x));
  return Value::ofTuple(std::move(vs));
}

// atleast_1d / atleast_2d / atleast_3d (*arrays)
template <size_t rank>
Value atLeastBuiltin(Evaluator& ev, CallArgs& c) {
  static const char* names[] = {"", "atleast_1d", "atleast_2d", "atleast_3d"};
  CallArgs keywords;
  std::vector<AVal> xs = variadicArrays(c, keywords, names[rank]);
  Args a(ev, keywords, names[rank], {});
  if (xs.empty()) fail("E0220", c.span, std::string(names[rank]) + " needs at least one array");
  for (AVal& x : xs) x = atLeast(ev.ops(), x, rank, c.span);
  return oneOrTuple(xs);
}

// meshgrid(*xs, indexing="xy"): the coordinate arrays of the grid of 1-d xs.
Value meshgrid(Evaluator& ev, CallArgs& c) {
  CallArgs keywords;
  std::vector<AVal> xs = variadicArrays(c, keywords, "meshgrid");
  Args a(ev, keywords, "meshgrid", {"indexing="});
  std::string indexing = given(a, 0) && a.get(0).kind == ValueKind::String ? a.get(0).str : given(a, 0) ? "?" : "xy";
  if (indexing != "xy" && indexing != "ij")
    fail("E0271", a.span(0), "meshgrid's indexing must be \"xy\" or \"ij\", got " + (indexing == "?" ? describe(a.get(0)) : "\"" + indexing + "\""));
  Shape grid;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (xs[i].type.shape.size() != 1)
      fail("E0271", c.posSpans[i], "meshgrid takes 1-d arrays, got shape " + shapeString(xs[i].type.shape));
    grid.push_back(xs[i].type.shape[0]);
  }
  bool xy = indexing == "xy" && xs.size() >= 2;
  if (xy) std::swap(grid[0], grid[1]);
  for (size_t i = 0; i < xs.size(); ++i) {
    size_t at = xy && i < 2 ? 1 - i : i;
    Shape s(xs.size(), 1);
    s[at] = grid[at];
    xs[i] = ev.ops().broadcastTo(ev.ops().reshape(xs[i], s, c.span), grid, c.span, "meshgrid");
  }
  std::vector<Value> vs;
  for (const AVal& x : xs) vs.push_back(arr(x));
  return Value::ofTuple(std::move(vs));
}

// ---- splitting ----

/// x cut along `axis` into a tuple: n equal sections (split; array_split lets the first n % len
/// be one longer) or at the static indices given.
template <bool equal>
Value splitArray(Evaluator& ev, CallArgs& c) {
  const char* name = equal ? "split" : "array_split";
  Args a(ev, c, name, {"x", "indices_or_sections", "axis="});
  AVal x = a.array(0);
  if (x.type.shape.empty()) fail("E0269", a.span(0), std::string(name) + " cannot split a scalar");
  int64_t axis = ArrayOps::normAxis(a.integer(2, 0, StaticUse::Axis), x.type.shape.size(), a.span(2), name);
  int64_t n = x.type.shape[axis];
  Value where = a.sequence(1);
  std::vector<int64_t> bounds{0};
  if (where.isTuple()) {
    for (const Value& v : *where.elems) {
      int64_t i = staticInt(toArray(v, a.span(1), name), StaticUse::Shape, a.span(1), std::string("`indices_or_sections` of ") + name);
      if (i < 0) i += n;
      bounds.push_back(std::clamp<int64_t>(i, 0, n));
    }
  } else {
    int64_t parts = a.integer(1, 1, StaticUse::Shape);
    if (parts <= 0) fail("E0269", a.span(1), std::string(name) + " needs at least one section, got " + std::to_string(parts));
    if (equal && n % parts != 0)
      fail("E0269", a.span(1), "split cannot divide axis " + std::to_string(axis) + " of length " + std::to_string(n) + " into " +
                                   std::to_string(parts) + " equal sections",
           "use array_split for sections of unequal length, or give the indices to split at");
    for (int64_t k = 1; k < parts; ++k) bounds.push_back(bounds.back() + n / parts + (k - 1 < n % parts ? 1 : 0));
  }
  bounds.push_back(n);
  std::vector<Value> parts;
  for (size_t k = 0; k + 1 < bounds.size(); ++k)
    parts.push_back(arr(sliceAxis(ev.ops(), x, axis, bounds[k], std::max(bounds[k], bounds[k + 1]), c.span)));
  return Value::ofTuple(std::move(parts));
}

// Note [Two splits]
// `split` is both jax.random.split and jnp.split. The first argument decides: a u32[2] array
// is a random key (split(key) or split(key, num)), anything else is data cut into a tuple
// (split(x, indices_or_sections, axis=0)). To cut a u32[2] data array, use array_split.
bool isKey(const Value& v) {
  return v.isArray() && v.array->type.dtype == DType::U32 && v.array->type.shape == Shape{2};
}

Value split(Evaluator& ev, CallArgs& c) {
  const Value* first = c.pos.empty() ? nullptr : &c.pos[0];
  for (size_t k = 0; !first && k < c.kw.size(); ++k)
    if (c.kw[k].first == "key") first = &c.kw[k].second;
  if (first && isKey(*first)) return splitKey(ev, c);
  return splitArray<true>(ev, c);
}

// ---- moving axes ----

Value ravel(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "ravel", {"x"});
  AVal x = a.array(0);
  return arr(ev.ops().reshape(x, {numElements(x.type.shape)}, c.span));
}

Value swapaxes(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "swapaxes", {"x", "axis1", "axis2"});
  AVal x = a.array(0);
  size_t rank = x.type.shape.size();
  int64_t i = ArrayOps::normAxis(a.integer(1, 0, StaticUse::Axis), rank, a.span(1), "swapaxes");
  int64_t j = ArrayOps::normAxis(a.integer(2, 0, StaticUse::Axis), rank, a.span(2), "swapaxes");
  std::vector<int64_t> perm;
  for (size_t k = 0; k < rank; ++k) perm.push_back(static_cast<int64_t>(k));
  std::swap(perm[i], perm[j]);
  return arr(ev.ops().transpose(x, perm, c.span));
}

// moveaxis(x, source, destination): the source axes moved to the destinations, others in order.
Value moveaxis(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "moveaxis", {"x", "source", "destination"});
  AVal x = a.array(0);
  size_t rank = x.type.shape.size();
  std::vector<int64_t> src = *a.axes(1), dst = *a.axes(2);
  if (src.size() != dst.size())
    fail("E0271", c.span, "moveaxis got " + plural(src.size(), "source axis", "source axes") + " and " + plural(dst.size(), "destination", "destinations"),
         "give one destination for every source axis");
  for (int64_t& s : src) s = ArrayOps::normAxis(s, rank, a.span(1), "moveaxis");
  for (int64_t& d : dst) d = ArrayOps::normAxis(d, rank, a.span(2), "moveaxis");
  for (const auto* v : {&src, &dst}) {
    std::vector<int64_t> sorted = *v;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) fail("E0204", c.span, "moveaxis got a repeated axis");
  }
  std::vector<int64_t> perm;
  for (size_t k = 0; k < rank; ++k)
    if (std::find(src.begin(), src.end(), static_cast<int64_t>(k)) == src.end()) perm.push_back(static_cast<int64_t>(k));
  std::vector<std::pair<int64_t, int64_t>> moves;
  for (size_t k = 0; k < src.size(); ++k) moves.push_back({dst[k], src[k]});
  std::sort(moves.begin(), moves.end());
  for (auto [d, s] : moves) perm.insert(perm.begin() + d, s);
  return arr(ev.ops().transpose(x, perm, c.span));
}

// rot90(x, k=1, axes=(0, 1)): x turned by k quarter turns from the first axis to the second.
Value rot90(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "rot90", {"x", "k=", "axes="});
  AVal x = a.array(0);
  size_t rank = x.type.shape.size();
  std::vector<int64_t> axes = a.axes(2).value_or(std::vector<int64_t>{0, 1});
  if (axes.size() != 2) fail("E0271", a.span(2), "rot90 takes two axes, got " + std::to_string(axes.size()));
  if (rank < 2) fail("E0271", c.span, "rot90 needs an array of at least 2 dimensions, got shape " + shapeString(x.type.shape));
  int64_t p = ArrayOps::normAxis(axes[0], rank, a.span(2), "rot90"), q = ArrayOps::normAxis(axes[1], rank, a.span(2), "rot90");
  if (p == q) fail("E0271", a.span(2), "rot90's axes must differ, both are " + std::to_string(p));
  int64_t k = positiveMod(a.integer(1, 1, StaticUse::Other), 4);
  std::vector<int64_t> perm;
  for (size_t d = 0; d < rank; ++d) perm.push_back(static_cast<int64_t>(d));
  std::swap(perm[p], perm[q]);
  if (k == 0) return arr(x);
  if (k == 2) return arr(reverseAxes(ev.tracer(), x, {p, q}, c.span));
  if (k == 1) return arr(ev.ops().transpose(reverseAxes(ev.tracer(), x, {q}, c.span), perm, c.span));
  return arr(reverseAxes(ev.tracer(), ev.ops().transpose(x, perm, c.span), {q}, c.span));
}

// full_like(x, fill_value, dtype=None, shape=None)
Value fullLike(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "full_like", {"x", "fill_value", "dtype=", "shape="});
  AVal x = a.array(0);
  DType t = a.dtype(2).value_or(surfaceType(x).dtype);
  AVal v = ev.ops().convert(a.array(1), t, a.span(1));
  v.weak = false;
  return arr(ev.ops().full(given(a, 3) ? a.shape(3) : x.type.shape, v, c.span));
}

}  // namespace

BuiltinDefs buildingBuiltins() {
  return {{},
          {
              {"pad(x, pad_width, mode=\"constant\", constant_values=0)",
               "x padded by pad_width (n, (before, after), or a pair per axis) with mode \"constant\", \"edge\", \"reflect\", \"symmetric\" or \"wrap\"", pad},
              {"roll(x, shift, axis=None)", "x with its elements shifted by shift along axis, wrapping around (flattened when axis is None)", roll},
              {"tile(x, reps)", "x repeated reps times along each axis", tile},
              {"repeat(x, repeats, axis=None, total_repeat_length=None)",
               "each element of x repeated (repeats: an int or one int per element) along axis (flattened when None)", repeat},
              {"hstack(arrays)", "the arrays joined along axis 1 (axis 0 for vectors)", stackAlong<0>},
              {"vstack(arrays)", "the arrays (vectors as rows) joined along axis 0", stackAlong<1>},
              {"dstack(arrays)", "the arrays (at least 3-d) joined along axis 2", stackAlong<2>},
              {"column_stack(arrays)", "the arrays (vectors as columns) joined along axis 1", stackAlong<3>},
              {"atleast_1d(arrays...)", "each array with at least one dimension (a tuple for several)", atLeastBuiltin<1>},
              {"atleast_2d(arrays...)", "each array with at least two dimensions (a tuple for several)", atLeastBuiltin<2>},
              {"atleast_3d(arrays...)", "each array with at least three dimensions (a tuple for several)", atLeastBuiltin<3>},
              {"meshgrid(arrays..., indexing=\"xy\")", "the coordinate arrays of the grid of the 1-d arrays (\"xy\": Cartesian, \"ij\": matrix)", meshgrid},
              {"split(x, indices_or_sections, axis=0)",
               "x cut along axis into a tuple of equal sections or at the indices given, or for a random key (u32[2]) split(key, num=2): num new keys", split},
              {"array_split(x, indices_or_sections, axis=0)", "x cut along axis into a tuple of sections (the first ones one longer when uneven) or at the indices given", splitArray<false>},
              {"ravel(x)", "the elements of x as a vector", ravel},
              {"swapaxes(x, axis1, axis2)", "x with the two axes swapped", swapaxes},
              {"moveaxis(x, source, destination)", "x with the source axes moved to destination (ints or tuples), the others in order", moveaxis},
              {"rot90(x, k=1, axes=None)", "x rotated by k quarter turns in the plane of axes (the first two when None)", rot90},
              {"full_like(x, fill_value, dtype=None, shape=None)", "an array of the shape (and dtype) of x filled with fill_value", fullLike},
          }};
}

}  // namespace scn
