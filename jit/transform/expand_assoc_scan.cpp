// The expand-associative-scans pass: associative_scan ops as log-depth odd-even rounds of array
// ops, for backends that parallelise each round (CUDA) rather than scan serially or in blocks.
#include "jit/transform/expand_assoc_scan.hpp"

#include <algorithm>
#include <unordered_map>

#include "base/diagnostics.hpp"
#include "jit/transform/odd_even_scan.hpp"

namespace scn {

// Note [Odd-even associative scan]
// An inclusive scan with an associative combiner f, written as array ops over the whole axis,
// so every application of f is one parallel elementwise kernel; the recursion is the
// work-efficient odd-even form (as jax.lax's):
//   pairs  = f(x[0:n-1:2], x[1::2])          the n/2 sums of adjacent pairs
//   odd    = scan(pairs)                      the prefixes at positions 1, 3, 5, ...
//   even   = x[0] ++ f(odd, x[2::2])          the prefixes at positions 2, 4, ... from them
//   result = interleave(even, odd)
// f is applied to about 2n elements in all over 2 log2(n) rounds (Hillis-Steele, the earlier
// form: n log2(n) elements in log2(n) rounds). f's left operand always comes from earlier
// positions, so f need not commute. A reverse scan is the scan of the flipped arrays, flipped.
// The recursion is written once (oddEvenScan, jit/transform/odd_even_scan.hpp) over two builders
// of its slices, concats and combines: this pass, for an associative_scan op (whose combiner is
// a scalar function, Note [Associative scans] in jit/combiner.cpp) when the backend asks for
// rounds (PipelineOptions::expandAssociativeScans), and the tracer, for a combiner that is no
// scalar function (it reduces, indexes or captures a traced value: lang/builtins_assoc_scan.cpp
// calls it on slices), or for static operands, which fold faster as rounds than position by
// position.

namespace {

/// Builds the rounds of one associative_scan equation into `dst`.
class Rounds {
 public:
  using Leaves = std::vector<int>;  // one variable per scanned array
  Rounds(Func& dst, const Eqn& scan) : dst_(dst), combiner_(*scan.subs.at(0)), axis_(scan.attrs.axes.at(0)), span_(scan.span) {}

  Leaves scan(const Leaves& x) { return oddEvenScan(*this, x); }

  Leaves flip(const Leaves& x) {
    Leaves out;
    Attrs at;
    at.axes = {axis_};
    for (int v : x) out.push_back(emit(Op::Reverse, {v}, at));
    return out;
  }

  /// Appends op[attrs](inputs) to dst, its output type from the shape rule.
  int emit(Op op, std::vector<int> inputs, const Attrs& attrs) {
    std::vector<Type> in;
    for (int v : inputs) in.push_back(dst_.type(v));
    InferResult r = inferTypes(op, in, attrs, {});
    if (!r.ok()) internalError(std::string("expand-associative-scans: ") + r.error);
    Eqn e;
    e.op = op;
    e.inputs = std::move(inputs);
    e.outputs = {dst_.newVar(r.types.at(0))};
    e.attrs = attrs;
    e.span = span_;
    dst_.eqns.push_back(std::move(e));
    return dst_.eqns.back().outputs[0];
  }

  // The builder interface oddEvenScan uses.
  int64_t len(const Leaves& v) const { return dst_.type(v[0]).shape[axis_]; }

  Leaves part(const Leaves& v, int64_t lo, int64_t hi, int64_t step = 1) {
    Leaves out;
    for (int x : v) {
      const Shape& s = dst_.type(x).shape;
      Attrs at;
      at.starts.assign(s.size(), 0);
      at.limits = s;
      at.strides.assign(s.size(), 1);
      at.starts[axis_] = lo;
      at.limits[axis_] = std::max(lo, hi);
      at.strides[axis_] = step;
      out.push_back(emit(Op::Slice, {x}, at));
    }
    return out;
  }

  Leaves concat(const Leaves& a, const Leaves& b, int64_t axis) {
    Leaves out;
    Attrs at;
    at.axes = {axis};
    for (size_t i = 0; i < a.size(); ++i) out.push_back(emit(Op::Concat, {a[i], b[i]}, at));
    return out;
  }
  Leaves concat(const Leaves& a, const Leaves& b) { return concat(a, b, axis_); }

  int reshape(int v, Shape shape) {
    Attrs at;
    at.shape = std::move(shape);
    return emit(Op::Reshape, {v}, at);
  }

  /// The combiner applied position by position to a and b (slices of one shape): its
  /// equations on arrays, its rank-0 constants broadcast to that shape.
  Leaves combine(const Leaves& a, const Leaves& b) {
    if (len(a) == 0) return a;
    const Shape& shape = dst_.type(a[0]).shape;
    std::unordered_map<int, int> var;  // combiner variable -> dst variable
    for (size_t i = 0; i < a.size(); ++i) {
      var[combiner_.params[i]] = a[i];
      var[combiner_.params[a.size() + i]] = b[i];
    }
    for (const Eqn& e : combiner_.eqns) {
      int out;
      if (e.op == Op::Constant) {
        Attrs at;
        at.shape = shape;
        out = emit(Op::BroadcastInDim, {emit(Op::Constant, {}, e.attrs)}, at);
      } else {
        std::vector<int> in;
        for (int v : e.inputs) in.push_back(var.at(v));
        out = emit(e.op, in, e.attrs);
      }
      var[e.outputs.at(0)] = out;
    }
    Leaves r;
    for (int v : combiner_.results) r.push_back(var.at(v));
    return r;
  }

  /// even[0], odd[0], even[1], odd[1], ... (even has as many elements as odd, or one more).
  Leaves interleave(const Leaves& even, const Leaves& odd) {
    int64_t m = len(odd);
    Leaves evenHead = len(even) == m ? even : part(even, 0, m);
    Leaves out;
    for (size_t i = 0; i < even.size(); ++i) {
      auto withPairAxis = [&](int v) {  // a new axis of length 1 after the scan axis
        Shape s = dst_.type(v).shape;
        s.insert(s.begin() + axis_ + 1, 1);
        return reshape(v, s);
      };
      int pairs = concat({withPairAxis(evenHead[i])}, {withPairAxis(odd[i])}, axis_ + 1)[0];
      Shape merged = dst_.type(even[i]).shape;
      merged[axis_] = 2 * m;
      out.push_back(reshape(pairs, merged));
    }
    if (len(even) == m) return out;
    return concat(out, part(even, m, m + 1));
  }

 private:
  Func& dst_;
  const Func& combiner_;
  int64_t axis_;
  Span span_;
};

}  // namespace

std::vector<int> emitAssociativeScanRounds(Func& dst, const Eqn& scan) {
  Rounds rounds(dst, scan);
  return scan.attrs.reverse ? rounds.flip(rounds.scan(rounds.flip(scan.inputs))) : rounds.scan(scan.inputs);
}

bool expandAssociativeScans(Func& f) {
  bool changed = false;
  for (Eqn& e : f.eqns)
    for (FuncPtr& s : e.subs) changed = expandAssociativeScans(*s) || changed;
  Func rebuilt = f;
  rebuilt.eqns.clear();
  bool expanded = false;
  for (const Eqn& e : f.eqns) {
    if (opInfo(e.op).category != OpCategory::AssocScan) {
      rebuilt.eqns.push_back(e);
      continue;
    }
    std::vector<int> r = emitAssociativeScanRounds(rebuilt, e);
    // The scan's outputs keep their ids: each is a reshape of its round's result to the same
    // shape, an identity that drop-identity-reshapes removes.
    for (size_t i = 0; i < r.size(); ++i) {
      Eqn alias;
      alias.op = Op::Reshape;
      alias.inputs = {r[i]};
      alias.outputs = {e.outputs.at(i)};
      alias.attrs.shape = rebuilt.type(e.outputs[i]).shape;
      alias.span = e.span;
      rebuilt.eqns.push_back(std::move(alias));
    }
    expanded = true;
  }
  if (expanded) f = std::move(rebuilt);
  return changed || expanded;
}

}  // namespace scn
