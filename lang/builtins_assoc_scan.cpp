// The associative_scan builtin: one op when its combiner is a scalar function, else the tracer's
// odd-even rounds of calls of f on slices.
#include "jit/combiner.hpp"
#include "jit/transform/odd_even_scan.hpp"
#include "lang/builtin_args.hpp"

namespace scn {

namespace {

// associative_scan(f, x, axis=0, reverse=false): inclusive scan with an associative f.
// x may be a tuple (a pytree) of arrays with the same length along the axis, as in JAX: f then
// takes and returns trees of that structure (`|(a1, b1), (a2, b2)| (a1 * a2, a2 * b1 + b2)`
// composes affine maps: a linear recurrence in log depth). When f is a scalar function the
// tracer records one associative_scan op (Note [Associative scans] in jit/combiner.cpp), which
// the expand-associative-scans pass turns into odd-even rounds for backends that want them;
// otherwise the tracer writes those rounds itself, calling f on slices (AssociativeScan below,
// Note [Odd-even associative scan] in jit/transform/expand_assoc_scan.cpp).

/// associative_scan's f must return the shape of its inputs (E0237).
void checkKeepsShape(const AVal& result, const AVal& input, Span fSpan) {
  if (result.type.shape != input.type.shape)
    fail("E0237", fSpan, "associative_scan's function must return the shape of its inputs " +
                             shapeString(input.type.shape) + ", got " + shapeString(result.type.shape));
}

/// The leaves of f's result, checked against the operands' structure and slice shapes
/// (E0237) and converted to the operands' dtypes.
std::vector<AVal> combinedLeaves(Evaluator& ev, const Value& result, const TreeDef& def, const std::vector<AVal>& like,
                                 Span fSpan, Span span) {
  Flat r = flat(result, fSpan, "associative_scan's function result");
  if (r.def != def)
    fail("E0237", fSpan,
         "associative_scan's function must return the structure of its inputs " + def.str() + ", got " + r.def.str(),
         "return one array per array scanned, in a tuple like the inputs, e.g. `|p, q| (p.0 * q.0, q.0 * p.1 + q.1)`");
  for (size_t i = 0; i < r.leaves.size(); ++i) {
    checkKeepsShape(r.leaves[i], like[i], fSpan);
    r.leaves[i] = ev.ops().convert(r.leaves[i], like[i].type.dtype, span);
  }
  return r.leaves;
}

/// The odd-even rounds with calls of f on slices (Note [Odd-even associative scan]).
class AssociativeScan {
 public:
  using Leaves = std::vector<AVal>;
  AssociativeScan(Evaluator& ev, const Value& f, const TreeDef& def, std::vector<int64_t> axes, Span fSpan,
                  Span span)
      : ev_(ev), f_(f), def_(def), axes_(std::move(axes)), fSpan_(fSpan), span_(span) {}

  Leaves scan(const Leaves& x) { return oddEvenScan(*this, x); }

  // The builder interface oddEvenScan uses.
  int64_t len(const Leaves& v) const { return v[0].type.shape[axes_[0]]; }

  Leaves part(const Leaves& v, int64_t lo, int64_t hi, int64_t step = 1) {
    Leaves out;
    for (size_t i = 0; i < v.size(); ++i) {
      size_t rank = v[i].type.shape.size();
      std::vector<int64_t> st(rank, 0), li = v[i].type.shape, sd(rank, 1);
      st[axes_[i]] = lo;
      li[axes_[i]] = std::max(lo, hi);
      sd[axes_[i]] = step;
      out.push_back(ev_.ops().slice(v[i], st, li, sd, span_));
    }
    return out;
  }

  Leaves concat(const Leaves& a, const Leaves& b) {
    Leaves out;
    for (size_t i = 0; i < a.size(); ++i) out.push_back(ev_.ops().concat({a[i], b[i]}, axes_[i], span_));
    return out;
  }

  /// f(a, b) for slices of equal shape; f must keep the structure and shapes (E0237).
  Leaves combine(const Leaves& a, const Leaves& b) {
    if (len(a) == 0) return a;
    size_t pa = 0, pb = 0;
    CallArgs args;
    args.pos = {rebuild(def_, a, pa), rebuild(def_, b, pb)};
    args.posSpans = {fSpan_, fSpan_};
    args.span = fSpan_;
    return combinedLeaves(ev_, ev_.call(f_, args), def_, b, fSpan_, span_);
  }

  /// even[0], odd[0], even[1], odd[1], ... (even has as many elements as odd, or one more).
  Leaves interleave(const Leaves& even, const Leaves& odd) {
    int64_t m = len(odd);
    Leaves evenHead = len(even) == m ? even : part(even, 0, m);
    Leaves out;
    for (size_t i = 0; i < even.size(); ++i) {
      int64_t ax = axes_[i];
      AVal pairs = ev_.ops().concat({ev_.ops().expandDims(evenHead[i], ax + 1, span_),
                                     ev_.ops().expandDims(odd[i], ax + 1, span_)},
                                    ax + 1, span_);
      Shape merged = even[i].type.shape;
      merged[ax] = 2 * m;
      out.push_back(ev_.ops().reshape(pairs, merged, span_));
    }
    if (len(even) == m) return out;
    return concat(out, part(even, m, m + 1));
  }

 private:
  Evaluator& ev_;
  const Value& f_;
  const TreeDef& def_;
  std::vector<int64_t> axes_;
  Span fSpan_, span_;
};

/// associative_scan as one op, when its arrays share one shape and f is elementwise position
/// by position (Note [Associative scans] in jit/combiner.cpp); nullopt: use the odd-even
/// rounds. f is traced once on slices of length 1 along the axis.
std::optional<std::vector<AVal>> combinerScan(Evaluator& ev, const Value& f, const Flat& x, int64_t axis,
                                              bool reverse, Span fSpan, Span span) {
  for (const AVal& leaf : x.leaves)
    if (leaf.type.shape != x.leaves[0].type.shape) return std::nullopt;
  if (x.leaves[0].type.shape[axis] < 2) return std::nullopt;  // f is never called
  std::vector<AVal> slices;
  for (const AVal& leaf : x.leaves) {
    slices.push_back(placeholder(leaf));
    slices.back().type.shape[axis] = 1;
  }
  size_t pa = 0, pb = 0;
  Value a = rebuild(x.def, slices, pa), b = rebuild(x.def, slices, pb);
  Evaluator::Traced t = ev.traceBody(
      [&](const std::vector<Value>& p) {
        CallArgs args;
        args.pos = {p[0], p[1]};
        args.posSpans = {fSpan, fSpan};
        args.span = fSpan;
        std::vector<AVal> r = combinedLeaves(ev, ev.call(f, args), x.def, slices, fSpan, span);
        size_t pos = 0;
        return rebuild(x.def, r, pos);
      },
      {a, b}, fSpan, "associative_scan function", "the associative_scan operand");
  FuncPtr combiner = t.trace->captured().empty() ? scalarCombiner(*t.func) : nullptr;
  if (!combiner) return std::nullopt;
  Attrs at;
  at.axes = {axis};
  at.reverse = reverse;
  if (std::optional<Op> cumulative = cumulativeOpOf(*combiner))
    return std::vector<AVal>{ev.tracer().apply(*cumulative, x.leaves, at, span)[0]};
  // Static operands are folded by the interpreter, one call of the combiner per position: the
  // rounds of array ops are faster there.
  bool anyStatic = false;
  for (const AVal& leaf : x.leaves) anyStatic = anyStatic || leaf.isStatic();
  if (anyStatic) return std::nullopt;
  return ev.tracer().apply(Op::AssocScan, x.leaves, at, span, {combiner});
}

Value associativeScan(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "associative_scan", {"f", "x", "axis=", "reverse="});
  const Value& f = a.callable(0);
  Flat x;
  if (a.get(1).isTuple()) {
    x = flat(a.get(1), a.span(1), "associative_scan operand");
  } else {
    x.leaves = {a.array(1)};
    x.def.kind = TreeDef::Leaf;
  }
  if (x.leaves.empty())
    fail("E0237", a.span(1), "associative_scan needs at least one array, got " + x.def.str(),
         "scan an array or a tuple of arrays");
  int64_t axisArg = a.integer(2, 0, StaticUse::Axis);
  std::vector<int64_t> axes;
  for (const AVal& leaf : x.leaves) {
    if (leaf.type.shape.empty()) fail("E0237", a.span(1), "associative_scan needs an array of rank >= 1");
    axes.push_back(ArrayOps::normAxis(axisArg, leaf.type.shape.size(), a.span(2), "associative_scan"));
    int64_t n = leaf.type.shape[axes.back()], n0 = x.leaves[0].type.shape[axes[0]];
    if (n != n0)
      fail("E0237", a.span(1),
           "associative_scan's arrays must have one length along the axis, got " + std::to_string(n0) + " and " +
               std::to_string(n),
           "scan arrays of one length together, or scan them in separate calls");
  }
  bool reverse = a.boolean(3, false);
  if (std::optional<std::vector<AVal>> r = combinerScan(ev, f, x, axes[0], reverse, a.span(0), c.span)) {
    size_t pos = 0;
    return rebuild(x.def, *r, pos);
  }
  auto flipAll = [&](std::vector<AVal> v) {
    for (size_t i = 0; i < v.size(); ++i) {
      Attrs at;
      at.axes = {axes[i]};
      v[i] = ev.tracer().apply1(Op::Reverse, {v[i]}, at, c.span);
    }
    return v;
  };
  std::vector<AVal> in = reverse ? flipAll(x.leaves) : x.leaves;
  std::vector<AVal> r = AssociativeScan(ev, f, x.def, axes, a.span(0), c.span).scan(in);
  if (reverse) r = flipAll(r);
  size_t pos = 0;
  return rebuild(x.def, r, pos);
}

}  // namespace

BuiltinDefs assocScanBuiltins() { return {{{"associative_scan", associativeScan}}, {}}; }

}  // namespace scn
