// lax.switch and lax.map: an N-way cond on a traced index, and a scan without a carry.
#include <algorithm>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

/// The branches of a switch: a tuple of one or more functions (E0288 otherwise).
std::vector<Value> switchBranches(const Value& v, Span span) {
  if (!v.isTuple())
    fail("E0288", span, "switch's branches must be a tuple of functions, got " + describe(v),
         "write the branches as a tuple: `switch(i, (f, g, h), x)`");
  if (v.elems->empty()) fail("E0288", span, "switch needs at least one branch, got an empty tuple");
  for (size_t k = 0; k < v.elems->size(); ++k)
    if (!(*v.elems)[k].isCallable())
      fail("E0288", span, "switch branch " + std::to_string(k) + " must be a function, got " + describe((*v.elems)[k]));
  return *v.elems;
}

/// The switch index as JAX takes it: an integer scalar, converted to i32 (wrapping).
AVal switchIndex(Evaluator& ev, const Value& v, Span span) {
  AVal index = toArray(v, span, "switch");
  Type t = surfaceType(index);
  if (!t.shape.empty() || !isInteger(t.dtype))
    fail("E0288", span, "switch's index must be an integer scalar, got " + typeString(t),
         t.dtype == DType::Bool ? "a bool picks one of two branches with `cond(p, f_true, f_false, operands...)`"
                                : "convert it: `i32(i)`");
  return ev.ops().cast(defaultize(index, span), DType::I32, span);
}

Value callWith(Evaluator& ev, const Value& f, const std::vector<Value>& args, Span span) {
  CallArgs c;
  c.pos = args;
  c.posSpans.assign(args.size(), span);
  c.span = span;
  return ev.call(f, c);
}

// switch(index, branches, operands...): lax.switch. The index is clamped into range; a static
// one picks its branch at trace time, a traced one is a Cond over every branch, each taking the
// captures of all branches (its own in place, the others' unused) and then the operands.
Value switchBuiltin(Evaluator& ev, CallArgs& c) {
  if (c.pos.size() < 2)
    fail("E0220", c.span, "switch needs (index, branches, operands...)", "e.g. `switch(i, (f, g), x)`");
  if (!c.kw.empty()) fail("E0221", c.kwSpans[0], "switch takes no keyword arguments");
  AVal index = switchIndex(ev, c.pos[0], c.posSpans[0]);
  std::vector<Value> branches = switchBranches(c.pos[1], c.posSpans[1]);
  std::vector<Value> operands(c.pos.begin() + 2, c.pos.end());
  auto last = static_cast<int64_t>(branches.size()) - 1;
  if (index.isStatic() || last == 0) {
    int64_t k = index.isStatic() ? std::clamp<int64_t>(index.concrete->getInt(0), 0, last) : 0;
    return callWith(ev, branches[k], operands, c.posSpans[1]);
  }
  Flat in = flat(Value::ofTuple(operands), c.span, "switch operands");
  size_t pos = 0;
  Value opVal = rebuild(in.def, in.leaves, pos);
  std::vector<Evaluator::Traced> traced;
  for (const Value& b : branches)
    traced.push_back(ev.traceBody(
        [&](const std::vector<Value>& params) { return callWith(ev, b, *params[0].elems, c.posSpans[1]); },
        {opVal}, c.posSpans[1], "switch branch", "a switch operand"));
  for (size_t k = 1; k < traced.size(); ++k) {
    if (!(traced[k].outTree == traced[0].outTree))
      fail("E0288", c.span, "switch branches return different structures: " + traced[0].outTree.str() +
                                " (branch 0) and " + traced[k].outTree.str() + " (branch " + std::to_string(k) + ")");
    for (size_t i = 0; i < traced[0].outLeaves.size(); ++i)
      if (traced[k].outLeaves[i].type != traced[0].outLeaves[i].type)
        fail("E0288", c.span, "switch branches return different types for output " + std::to_string(i) + ": " +
                                  typeString(traced[0].outLeaves[i].type) + " (branch 0) and " +
                                  typeString(traced[k].outLeaves[i].type) + " (branch " + std::to_string(k) + ")",
             "every branch must return the same shapes and dtypes");
  }
  std::vector<AVal> captures;  // every branch's, in branch order
  for (const Evaluator::Traced& t : traced) captures = concatLeaves(captures, t.trace->captured());
  std::vector<FuncPtr> funcs;
  size_t at = 0;
  for (const Evaluator::Traced& t : traced) {
    size_t own = t.trace->captured().size();
    std::vector<AVal> before(captures.begin(), captures.begin() + static_cast<long>(at));
    std::vector<AVal> after(captures.begin() + static_cast<long>(at + own), captures.end());
    funcs.push_back(withUnusedParams(*withUnusedParams(*t.func, own, after), 0, before));
    at += own;
  }
  std::vector<AVal> inputs = concatLeaves(concatLeaves({index}, captures), in.leaves);
  std::vector<AVal> outs = ev.tracer().apply(Op::Cond, inputs, {}, c.span, funcs);
  pos = 0;
  return rebuild(traced[0].outTree, outs, pos);
}

/// The leading length shared by every leaf of `xs` (E0289 when they differ or there is none).
int64_t mappedLength(const Flat& xs, Span span) {
  if (xs.leaves.empty()) fail("E0289", span, "map got no arrays to map over", "pass an array (or a tuple of arrays) as xs");
  int64_t n = -1;
  for (size_t i = 0; i < xs.leaves.size(); ++i) {
    const Shape& s = xs.leaves[i].type.shape;
    if (s.empty())
      fail("E0289", span, "map xs leaf " + std::to_string(i) + " is a scalar; xs are mapped along their first axis");
    if (n >= 0 && s[0] != n)
      fail("E0289", span, "map xs leaf " + std::to_string(i) + " has leading dimension " + std::to_string(s[0]) +
                              " but leaf 0 has " + std::to_string(n));
    n = s[0];
  }
  return n;
}

/// f applied to each slice along the first axis of every leaf: a Scan with no carry.
Value scanMap(Evaluator& ev, const Value& f, const Flat& xs, int64_t length, Span fnSpan, Span span) {
  std::vector<AVal> slices;
  for (const AVal& x : xs.leaves) {
    AVal s = placeholder(x);
    s.type.shape.erase(s.type.shape.begin());
    slices.push_back(s);
  }
  size_t pos = 0;
  Value x = rebuild(xs.def, slices, pos);
  Evaluator::Traced t = ev.traceFunction(f, {x}, fnSpan, "map body", "a mapped slice");
  Attrs at;
  at.numConsts = static_cast<int>(t.trace->captured().size());
  at.numCarry = 0;
  at.length = length;
  std::vector<AVal> ys = ev.tracer().apply(Op::Scan, concatLeaves(t.trace->captured(), xs.leaves), at, span, {t.func});
  pos = 0;
  return rebuild(t.outTree, ys, pos);
}

/// The leaves of `xs` cut along the first axis: rows [from, to), as (count, batch, ...) when
/// `batch` is given.
Flat cutRows(Evaluator& ev, const Flat& xs, int64_t from, int64_t to, std::optional<int64_t> batch, Span span) {
  Flat out{{}, xs.def};
  for (const AVal& x : xs.leaves) {
    std::vector<int64_t> starts(x.type.shape.size(), 0), limits = x.type.shape, strides(x.type.shape.size(), 1);
    starts[0] = from;
    limits[0] = to;
    AVal part = ev.ops().slice(x, starts, limits, strides, span);
    if (batch) {
      Shape s = part.type.shape;
      s[0] = *batch;
      s.insert(s.begin(), (to - from) / *batch);
      part = ev.ops().reshape(part, s, span);
    }
    out.leaves.push_back(part);
  }
  return out;
}

// Note [Batched map]
// lax.map(f, xs, batch_size=b) as JAX writes it: the first (n // b) * b rows are a scan over
// chunks of b rows, each chunk mapped by vmap(f), the results flattened back to rows; the
// n % b remaining rows are one more vmap(f), concatenated after them. With b > n there is no
// scan, only the vmap. So f sees whole chunks through vmap, and a body that is cheap per row
// runs b rows per scan step.

// map(f, xs, batch_size=None): lax.map.
Value mapBuiltin(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "map", {"f", "xs", "batch_size="});
  const Value& f = a.callable(0);
  Flat xs = flat(a.get(1), a.span(1), "map xs");
  int64_t n = mappedLength(xs, a.span(1));
  if (!a.has(2) || a.get(2).isNone()) return scanMap(ev, f, xs, n, a.span(0), c.span);
  int64_t batch = a.integer(2, std::nullopt, StaticUse::Other);
  if (batch < 1) fail("E0289", a.span(2), "map's batch_size must be >= 1, got " + std::to_string(batch));
  auto v = std::make_shared<VmapFn>();
  v->fn = f;
  v->inAxes = arr(weakInt(0));
  v->outAxes = arr(weakInt(0));
  v->span = a.span(0);
  Value mapped;
  mapped.kind = ValueKind::Vmap;
  mapped.vmap = v;
  int64_t scanned = n / batch * batch;
  auto vmapRows = [&](int64_t from, int64_t to) {
    Flat rows = cutRows(ev, xs, from, to, std::nullopt, c.span);
    size_t pos = 0;
    return callWith(ev, mapped, {rebuild(rows.def, rows.leaves, pos)}, a.span(0));
  };
  if (scanned == 0) return vmapRows(0, n);
  Flat chunks = cutRows(ev, xs, 0, scanned, batch, c.span);
  Flat ys = flat(scanMap(ev, mapped, chunks, scanned / batch, a.span(0), c.span), c.span, "map result");
  for (AVal& y : ys.leaves) {
    Shape s(y.type.shape.begin() + 1, y.type.shape.end());
    s[0] = scanned;
    y = ev.ops().reshape(y, s, c.span);
  }
  if (scanned < n) {
    Flat rest = flat(vmapRows(scanned, n), c.span, "map result");
    for (size_t i = 0; i < ys.leaves.size(); ++i)
      ys.leaves[i] = ev.ops().concat({ys.leaves[i], rest.leaves.at(i)}, 0, c.span);
  }
  size_t pos = 0;
  return rebuild(ys.def, ys.leaves, pos);
}

}  // namespace

BuiltinDefs laxBuiltins() {
  return {{},
          {
              {"switch(index, branches, operands...)",
               "branches[index](operands...), the index clamped into range (lax.switch)", switchBuiltin},
              {"map(f, xs, batch_size=None)",
               "f applied to each slice of xs along its first axis, the results stacked (lax.map)", mapBuiltin},
          }};
}

}  // namespace scn
