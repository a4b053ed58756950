// Reverse mode of the control-flow ops (Note [Autodiff design] in vjp.cpp): a scan stacks the
// carry entering each step (with checkpoints, each segment: Note [Scan checkpoints]) and a
// reversed scan runs the body's VJP; a cond runs the VJP of the branch it took; a while loop is
// an error.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string_view>

#include "base/diagnostics.hpp"
#include "jit/autodiff.hpp"
#include "jit/disk_cache.hpp"
#include "jit/transform/ad.hpp"
#include "jit/transform/batch_rules.hpp"
#include "jit/transform/vjp_scan.hpp"

namespace scn::ad {

// The helpers of scan's reverse mode, shared with vjp_binomial.cpp (vjp_scan.hpp).
namespace scan_vjp {

std::vector<bool> all(size_t n) { return std::vector<bool>(n, true); }

std::vector<int> slice(const std::vector<int>& v, size_t a, size_t z) {
  return std::vector<int>(v.begin() + static_cast<std::ptrdiff_t>(a), v.begin() + static_cast<std::ptrdiff_t>(z));
}

std::vector<Tan> keepNeeded(const std::vector<int>& cts, const std::vector<bool>& need) {
  std::vector<Tan> r;
  for (size_t i = 0; i < cts.size(); ++i) r.push_back(need[i] ? Tan(cts[i]) : Tan{});
  return r;
}

// The outputs of the body's equations `saved` (Note [Scan residuals]), in order.
std::vector<int> savedOutputs(const Func& body, const std::vector<bool>& saved) {
  std::vector<int> r;
  for (size_t i = 0; i < saved.size(); ++i)
    if (saved[i]) r.insert(r.end(), body.eqns[i].outputs.begin(), body.eqns[i].outputs.end());
  return r;
}

// The backward body: (consts, ct carry, ct consts so far, stored carry, stored residuals, x,
// ct y) -> (ct carry before the step, ct consts so far, ct x); the residuals are the outputs of
// the equations `saved` (none when empty).
FuncPtr backwardBody(const Func& body, size_t nc, size_t nk, size_t nx, const std::vector<bool>& saved,
                     const VjpOptions& o) {
  size_t ny = body.results.size() - nk;
  FuncPtr vb = vjpFuncSaving(body, all(body.params.size()), saved, {}, o);
  auto g = std::make_shared<Func>();
  g->name = body.name + "_backward";
  auto params = [&](size_t from, size_t n, const Func& src) {
    std::vector<int> vs;
    for (size_t i = 0; i < n; ++i) {
      vs.push_back(g->newVar(src.type(src.params[from + i])));
      g->params.push_back(vs.back());
    }
    return vs;
  };
  auto valueParams = [&](const std::vector<int>& values) {
    std::vector<int> vs;
    for (int v : values) {
      vs.push_back(g->newVar(body.type(v)));
      g->params.push_back(vs.back());
    }
    return vs;
  };
  std::vector<int> c = params(0, nc, body), ctk = params(nc, nk, body), acc = params(0, nc, body),
                   ks = params(nc, nk, body);
  std::vector<int> res = valueParams(savedOutputs(body, saved));
  std::vector<int> xs = params(nc + nk, nx, body);
  std::vector<int> cty = valueParams(slice(body.results, nk, body.results.size()));
  std::vector<int> args = c;
  args.insert(args.end(), ks.begin(), ks.end());
  args.insert(args.end(), xs.begin(), xs.end());
  args.insert(args.end(), res.begin(), res.end());
  args.insert(args.end(), ctk.begin(), ctk.end());
  args.insert(args.end(), cty.begin(), cty.end());
  std::vector<int> out = batching::inlineFunc(*g, *vb, args);
  size_t at = nk + ny;  // past the primal results
  std::vector<int> ctc = slice(out, at, at + nc), ctkIn = slice(out, at + nc, at + nc + nk),
                   ctx = slice(out, at + nc + nk, at + nc + nk + nx);
  Builder b{*g, Span{}};
  g->results = ctkIn;
  for (size_t i = 0; i < nc; ++i) g->results.push_back(b.add(acc[i], ctc[i]));
  g->results.insert(g->results.end(), ctx.begin(), ctx.end());
  return g;
}

// The forward scan of reverse mode: the scan with the carry entering each step and the outputs of
// the equations `saved` as extra ys. Returns its outputs: carry, ys, then the stored values (the
// carries, then the residuals; one per step).
std::vector<int> storingScan(Builder& b, const Func& body, const Attrs& attrs, const std::vector<int>& in,
                             const std::vector<bool>& saved) {
  auto fwd = std::make_shared<Func>(body);
  size_t nc = static_cast<size_t>(attrs.numConsts), nk = static_cast<size_t>(attrs.numCarry);
  for (size_t i = 0; i < nk; ++i) fwd->results.push_back(body.params[nc + i]);
  for (int v : savedOutputs(body, saved)) fwd->results.push_back(v);
  Attrs a = attrs;
  a.checkpoints = 0;
  a.binomial = false;
  return b.emit(Op::Scan, in, std::move(a), {fwd});
}

// The backward scan: runs the body's VJP over the steps in the opposite order, from the
// cotangent of the carry after the last step and the consts' cotangents so far (`acc`), given the
// stored carries and residuals (of the equations `saved`), the xs and the ys' cotangents.
// Returns (ct carry before the first step, ct consts, ct xs).
std::vector<int> backwardScan(Builder& b, const Func& body, const Attrs& attrs, const std::vector<int>& consts,
                              const std::vector<int>& ctCarry, const std::vector<int>& acc,
                              const std::vector<int>& stored, const std::vector<int>& xs, const std::vector<int>& ctYs,
                              const std::vector<bool>& saved, const VjpOptions& o) {
  std::vector<int> args = consts;
  for (const std::vector<int>* part : {&ctCarry, &acc, &stored, &xs, &ctYs}) args.insert(args.end(), part->begin(), part->end());
  Attrs a = attrs;
  a.numCarry = static_cast<int>(ctCarry.size() + consts.size());
  a.reverse = !a.reverse;
  a.checkpoints = 0;
  a.binomial = false;
  std::vector<int> r = b.emit(Op::Scan, std::move(args), std::move(a),
                              {backwardBody(body, consts.size(), ctCarry.size(), xs.size(), saved, o)});
  size_t nk = ctCarry.size(), nc = consts.size();
  std::vector<int> out = slice(r, 0, nk);
  std::vector<int> ctc = slice(r, nk, nk + nc), ctx = slice(r, nk + nc, r.size());
  out.insert(out.end(), ctc.begin(), ctc.end());
  out.insert(out.end(), ctx.begin(), ctx.end());
  return out;
}

// The ys' cotangents of a scan, zeros where they are symbolic.
std::vector<int> ysCotangents(Builder& b, const Func& body, const Attrs& attrs, const std::vector<Tan>& ct) {
  size_t nk = static_cast<size_t>(attrs.numCarry);
  std::vector<int> r;
  for (size_t j = nk; j < body.results.size(); ++j) {
    Type yt = body.type(body.results[j]);
    yt.shape.insert(yt.shape.begin(), attrs.length);
    r.push_back(b.instantiate(ct[j], yt));
  }
  return r;
}

// In reverse mode the cotangents are returned per scan input: consts, carry, xs.
std::vector<Tan> inputCotangents(const std::vector<int>& r, size_t nc, size_t nk, const std::vector<bool>& need) {
  std::vector<int> cts = slice(r, nk, nk + nc);
  std::vector<int> ctk = slice(r, 0, nk), ctx = slice(r, nk + nc, r.size());
  cts.insert(cts.end(), ctk.begin(), ctk.end());
  cts.insert(cts.end(), ctx.begin(), ctx.end());
  return keepNeeded(cts, need);
}

Forward rematScan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need,
                  const VjpOptions& o);

Forward scan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need, const VjpOptions& o) {
  // checkpoint's scan (one step over consts), unless a transformation gave it another shape.
  bool remat = e.attrs.remat != Attrs::Remat::None && e.attrs.length == 1 && e.attrs.numCarry == 0 &&
               in.size() == static_cast<size_t>(e.attrs.numConsts);
  if (remat) return rematScan(b, e, in, need, o);
  int64_t n = e.attrs.length;
  if (e.attrs.checkpoints > 0 && n > 0 && e.attrs.binomial) {
    if (e.attrs.checkpoints < n) return binomialScan(b, e, in, need, o);
  } else if (e.attrs.checkpoints > 0 && n > 0) {
    return checkpointedScan(b, e, in, need, {true, 0, 0}, o);
  }
  const Func& body = *e.subs[0];
  ScanResiduals residuals = scanResiduals(body, e.attrs, o);
  if (e.attrs.checkpoints == 0)
    if (std::optional<Forward> f = budgetCheckpointedScan(b, e, in, need, residuals, o)) return std::move(*f);
  size_t nc = static_cast<size_t>(e.attrs.numConsts), nk = static_cast<size_t>(e.attrs.numCarry);
  size_t ny = body.results.size() - nk;
  std::vector<bool> saved = residuals.saved;
  std::vector<int> out = storingScan(b, body, e.attrs, in, saved);
  std::vector<int> primal = slice(out, 0, nk + ny), stored = slice(out, nk + ny, out.size());
  Eqn eq = e;
  Backward backward = [eq, in, need, stored, saved, nc, nk, o](Builder& bb, const std::vector<Tan>& ct) {
    const Func& body = *eq.subs[0];
    std::vector<int> ctCarry, acc;
    for (size_t i = 0; i < nk; ++i) ctCarry.push_back(bb.instantiate(ct[i], bb.type(in[nc + i])));
    for (size_t i = 0; i < nc; ++i) acc.push_back(bb.zeros(bb.type(in[i])));
    std::vector<int> r = backwardScan(bb, body, eq.attrs, slice(in, 0, nc), ctCarry, acc, stored,
                                      slice(in, nc + nk, in.size()), ysCotangents(bb, body, eq.attrs, ct), saved, o);
    return inputCotangents(r, nc, nk, need);
  };
  return {primal, backward};
}

// Note [Scan checkpoints]
// scan(..., checkpoints=k) trades recomputation for memory in reverse mode. The n steps are cut
// into segments of L = ceil(n / k) steps (the last one shorter when L does not divide n), in
// the order the scan runs them. The forward pass is an outer scan over the segments whose body
// runs one segment (an inner scan of L steps) and stores only the carry entering it: k carries
// rather than n. The backward pass is a reversed outer scan whose body recomputes its segment
// from the stored carry with the storing forward scan above (L carries) and then runs the
// backward scan over it. Both passes evaluate the same equations in the same order as the
// unsegmented scan, and the consts' cotangents are accumulated through the segments in one
// running sum (the outer backward scan carries it into each inner one rather than starting
// each segment from zero), so the gradient is the stored-residual gradient bit for bit; the
// forward results are the plain scan's. Peak memory: k boundary carries plus one segment's L
// carries (2 sqrt(n) for checkpoints="sqrt"); cost: one more forward evaluation of each step.
// This is checkpoints="sqrt" (and the grad memory budget's choice): evenly spaced snapshots and
// one recomputation level. An integer k runs the binomial schedule instead (Note [Binomial
// checkpointing], vjp_binomial.cpp), which keeps only k carries. The shorter last segment
// is an outer scan of one segment of its own, so no step is padded or guarded.

// The inner scan of a segment: the original scan's attributes with its length.
Attrs segmentAttrs(const Attrs& attrs, int64_t steps) {
  Attrs a = attrs;
  a.length = steps;
  a.checkpoints = 0;
  a.binomial = false;
  return a;
}

// The outer scan's attributes over `segments` segments.
Attrs outerAttrs(const Attrs& attrs, int64_t segments, int numCarry) {
  Attrs a = attrs;
  a.length = segments;
  a.numCarry = numCarry;
  a.unroll = 1;
  a.checkpoints = 0;
  a.binomial = false;
  return a;
}

// x[first : first + segments * steps] reshaped to (segments, steps, ...).
int segmentsOf(Builder& b, int x, const SegmentRun& run) {
  Type t = b.type(x);
  int64_t last = run.first + run.segments * run.steps;
  int s = run.first == 0 && last == t.shape[0] ? x : b.sliceAxis(x, 0, run.first, last);
  Shape shape = t.shape;
  shape[0] = run.steps;
  shape.insert(shape.begin(), run.segments);
  return b.reshape(s, shape);
}

// (segments, steps, ...) back to (segments * steps, ...).
int flatSegments(Builder& b, int x) {
  Shape shape = b.type(x).shape;
  shape[1] *= shape[0];
  shape.erase(shape.begin());
  return b.reshape(x, shape);
}

// Concatenates per-run pieces along axis 0 in index order.
int concatRuns(Builder& b, std::vector<int> pieces) {
  if (pieces.size() == 1) return pieces[0];
  Attrs a;
  a.axes = {0};
  return b.emit1(Op::Concat, std::move(pieces), std::move(a));
}

// The body of the outer forward scan: (consts, carry, x segments) -> (carry, y segments, the
// carry that entered the segment).
FuncPtr segmentForwardBody(const Func& body, const Attrs& attrs, int64_t steps, size_t nx) {
  size_t nc = static_cast<size_t>(attrs.numConsts), nk = static_cast<size_t>(attrs.numCarry);
  auto g = std::make_shared<Func>();
  g->name = body.name + "_segment";
  for (size_t i = 0; i < nc + nk; ++i) g->params.push_back(g->newVar(body.type(body.params[i])));
  for (size_t i = 0; i < nx; ++i) {
    Type t = body.type(body.params[nc + nk + i]);
    t.shape.insert(t.shape.begin(), steps);
    g->params.push_back(g->newVar(t));
  }
  Builder gb{*g, Span{}};
  g->results = gb.emit(Op::Scan, g->params, segmentAttrs(attrs, steps), {std::make_shared<Func>(body)});
  for (size_t i = 0; i < nk; ++i) g->results.push_back(g->params[nc + i]);
  return g;
}

// The body of the outer backward scan: (consts, ct carry, ct consts so far, stored carry, x
// segment, ct y segment) -> (ct carry before the segment, ct consts so far, ct x segment); it
// recomputes the segment's carries from the stored one.
FuncPtr segmentBackwardBody(const Func& body, const Attrs& attrs, int64_t steps, size_t nx, const VjpOptions& o) {
  size_t nc = static_cast<size_t>(attrs.numConsts), nk = static_cast<size_t>(attrs.numCarry);
  size_t ny = body.results.size() - nk;
  auto g = std::make_shared<Func>();
  g->name = body.name + "_segment_backward";
  auto params = [&](size_t from, size_t n, bool stacked, const std::vector<int>& vars) {
    std::vector<int> vs;
    for (size_t i = 0; i < n; ++i) {
      Type t = body.type(vars[from + i]);
      if (stacked) t.shape.insert(t.shape.begin(), steps);
      vs.push_back(g->newVar(t));
      g->params.push_back(vs.back());
    }
    return vs;
  };
  std::vector<int> consts = params(0, nc, false, body.params), ctCarry = params(nc, nk, false, body.params),
                   acc = params(0, nc, false, body.params), start = params(nc, nk, false, body.params),
                   xs = params(nc + nk, nx, true, body.params), ctYs = params(nk, ny, true, body.results);
  Builder gb{*g, Span{}};
  Attrs inner = segmentAttrs(attrs, steps);
  std::vector<int> in = consts;
  in.insert(in.end(), start.begin(), start.end());
  in.insert(in.end(), xs.begin(), xs.end());
  std::vector<int> out = storingScan(gb, body, inner, in, {});
  std::vector<int> stored = slice(out, nk + ny, out.size());
  g->results = backwardScan(gb, body, inner, consts, ctCarry, acc, stored, xs, ctYs, {}, o);
  return g;
}

Forward checkpointedScan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need,
                         Attrs::CheckpointMark mark, const VjpOptions& o) {
  const Func& body = *e.subs[0];
  const Attrs& attrs = e.attrs;
  size_t nc = static_cast<size_t>(attrs.numConsts), nk = static_cast<size_t>(attrs.numCarry);
  size_t nx = in.size() - nc - nk, ny = body.results.size() - nk;
  int64_t n = attrs.length, steps = (n + attrs.checkpoints - 1) / attrs.checkpoints;
  int64_t full = n / steps, rest = n % steps;
  // The runs in the order the scan executes them: the full segments first, then the short one.
  std::vector<SegmentRun> runs{{attrs.reverse ? rest : 0, full, steps}};
  if (rest > 0) runs.push_back({attrs.reverse ? 0 : full * steps, 1, rest});
  std::vector<int> consts = slice(in, 0, nc), carry = slice(in, nc, nc + nk), xs = slice(in, nc + nk, in.size());
  std::vector<std::vector<int>> ysPieces(ny), stored;
  for (const SegmentRun& run : runs) {
    std::vector<int> args = consts;
    args.insert(args.end(), carry.begin(), carry.end());
    for (int x : xs) args.push_back(segmentsOf(b, x, run));
    std::vector<int> out = b.emit(Op::Scan, std::move(args), outerAttrs(attrs, run.segments, attrs.numCarry),
                                  {segmentForwardBody(body, attrs, run.steps, nx)});
    carry = slice(out, 0, nk);
    for (size_t j = 0; j < ny; ++j) ysPieces[j].push_back(flatSegments(b, out[nk + j]));
    stored.push_back(slice(out, nk + ny, out.size()));
  }
  // ys in index order: a reversed scan ran its last steps first.
  bool indexOrder = !attrs.reverse;
  std::vector<int> primal = carry;
  for (std::vector<int>& pieces : ysPieces) {
    if (!indexOrder) std::reverse(pieces.begin(), pieces.end());
    primal.push_back(concatRuns(b, pieces));
  }
  Eqn eq = e;
  Backward backward = [eq, in, need, stored, runs, nc, nk, nx, mark, o](Builder& bb, const std::vector<Tan>& ct) {
    const Func& body = *eq.subs[0];
    const Attrs& attrs = eq.attrs;
    std::vector<int> ctCarry, acc;
    for (size_t i = 0; i < nk; ++i) ctCarry.push_back(bb.instantiate(ct[i], bb.type(in[nc + i])));
    for (size_t i = 0; i < nc; ++i) acc.push_back(bb.zeros(bb.type(in[i])));
    std::vector<int> ctYs = ysCotangents(bb, body, attrs, ct);
    std::vector<std::vector<int>> ctXsPieces(nx);
    for (size_t p = runs.size(); p-- > 0;) {
      const SegmentRun& run = runs[p];
      std::vector<int> args = slice(in, 0, nc);
      args.insert(args.end(), ctCarry.begin(), ctCarry.end());
      args.insert(args.end(), acc.begin(), acc.end());
      args.insert(args.end(), stored[p].begin(), stored[p].end());
      for (size_t i = 0; i < nx; ++i) args.push_back(segmentsOf(bb, in[nc + nk + i], run));
      for (int y : ctYs) args.push_back(segmentsOf(bb, y, run));
      Attrs a = outerAttrs(attrs, run.segments, static_cast<int>(nk + nc));
      a.reverse = !attrs.reverse;
      a.checkpointMark = mark;
      if (p > 0) a.checkpointMark.budgetBytes = 0;  // the budget's choice counts once per scan
      std::vector<int> r = bb.emit(Op::Scan, std::move(args), std::move(a),
                                   {segmentBackwardBody(body, attrs, run.steps, nx, o)});
      ctCarry = slice(r, 0, nk);
      acc = slice(r, nk, nk + nc);
      for (size_t i = 0; i < nx; ++i) ctXsPieces[i].push_back(flatSegments(bb, r[nk + nc + i]));
    }
    // The pieces were made last run first: index order for a reversed scan.
    std::vector<int> r = ctCarry;
    r.insert(r.end(), acc.begin(), acc.end());
    for (std::vector<int>& pieces : ctXsPieces) {
      if (!attrs.reverse) std::reverse(pieces.begin(), pieces.end());
      r.push_back(concatRuns(bb, pieces));
    }
    return inputCotangents(r, nc, nk, need);
  };
  return {primal, backward};
}

// Whether checkpoint's policy stores this equation's outputs (Note [Rematerialisation]).
bool saveable(const Eqn& q, const Attrs& scan) {
  Attrs::Remat policy = scan.remat;
  if (policy == Attrs::Remat::OnlyNames || policy == Attrs::Remat::AnyNamesBut) {
    if (q.op != Op::Reshape || q.attrs.checkpointName.empty()) return false;
    const std::vector<std::string>& names = scan.rematNames;
    bool listed = std::find(names.begin(), names.end(), q.attrs.checkpointName) != names.end();
    return listed == (policy == Attrs::Remat::OnlyNames);
  }
  if (q.op != Op::DotGeneral || policy == Attrs::Remat::Nothing) return false;
  return policy == Attrs::Remat::Dots || q.attrs.lhsBatch.empty();
}

// The scan of checkpoint(f): one step whose consts are f's inputs and whose ys are f's results
// (Note [Rematerialisation] in lang/builtins_autodiff.cpp). The forward scan also returns the
// outputs of the body's products the policy saves; the backward pass is the VJP of the body,
// inlined, with those as given values and seeded with the inputs' cotangents so far, so it
// recomputes the rest of f from the inputs and adds to the cotangents in the plain order.
Forward rematScan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need,
                  const VjpOptions& o) {
  const Func& body = *e.subs[0];
  std::vector<bool> saved;
  auto fwd = std::make_shared<Func>(body);
  for (const Eqn& q : body.eqns) {
    saved.push_back(saveable(q, e.attrs));
    if (saved.back()) fwd->results.insert(fwd->results.end(), q.outputs.begin(), q.outputs.end());
  }
  Attrs a = e.attrs;
  a.remat = Attrs::Remat::None;
  a.rematNames.clear();
  std::vector<int> out = b.emit(Op::Scan, in, a, {fwd});
  size_t ny = body.results.size();
  std::vector<int> primal = slice(out, 0, ny), stored = slice(out, ny, out.size());
  Eqn eq = e;
  AccumulatingBackward backward = [eq, in, need, stored, saved, ny, o](Builder& bb, const std::vector<Tan>& ct,
                                                                       const std::vector<Tan>& soFar) {
    const Func& body = *eq.subs[0];
    // An input passed twice is seeded once; the other parameter's cotangent is added after.
    std::vector<bool> seeded(in.size(), false);
    for (size_t i = 0; i < in.size(); ++i)
      seeded[i] = soFar[i] && std::find(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(i), in[i]) ==
                                  in.begin() + static_cast<std::ptrdiff_t>(i);
    FuncPtr vb = vjpFuncSaving(body, all(body.params.size()), saved, seeded, o);
    std::vector<int> args = in;
    for (int s : stored) {  // one step's values: drop the scan's axis of length 1
      Shape shape = bb.type(s).shape;
      shape.erase(shape.begin());
      args.push_back(bb.reshape(s, shape));
    }
    for (size_t i = 0; i < in.size(); ++i)
      if (seeded[i]) args.push_back(*soFar[i]);
    for (size_t j = 0; j < ny; ++j) {
      Type yt = body.type(body.results[j]);
      args.push_back(ct[j] ? bb.reshape(*ct[j], yt.shape) : bb.zeros(yt));
    }
    std::vector<int> r = batching::inlineFunc(bb.dst, *vb, args);
    std::vector<Tan> total(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      if (!need[i]) continue;
      size_t first = static_cast<size_t>(std::find(in.begin(), in.end(), in[i]) - in.begin());
      Tan c = Tan(r[ny + i]);
      total[first] = first == i ? c : bb.addTan(total[first], c);
    }
    return total;
  };
  return {primal, {}, backward};
}

Forward cond(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need, const VjpOptions& o) {
  std::vector<int> out = b.emit(Op::Cond, in, e.attrs, e.subs);
  Eqn eq = e;
  Backward backward = [eq, in, need, out, o](Builder& bb, const std::vector<Tan>& ct) {
    std::vector<FuncPtr> branches;
    for (const FuncPtr& br : eq.subs) {
      auto v = std::make_shared<Func>(*vjpFunc(*br, all(br->params.size()), o));
      v->results.erase(v->results.begin(), v->results.begin() + static_cast<std::ptrdiff_t>(br->results.size()));
      branches.push_back(v);
    }
    std::vector<int> args = in;
    for (size_t j = 0; j < out.size(); ++j) args.push_back(bb.instantiate(ct[j], bb.type(out[j])));
    std::vector<int> r = bb.emit(Op::Cond, std::move(args), eq.attrs, std::move(branches));
    std::vector<int> cts{-1};
    cts.insert(cts.end(), r.begin(), r.end());
    std::vector<Tan> res = keepNeeded(cts, need);
    res[0].reset();  // the branch index
    return res;
  };
  return {out, backward};
}

}  // namespace scan_vjp

using namespace scan_vjp;

Forward vjpControl(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need,
                   const VjpOptions& o) {
  switch (e.op) {
    case Op::Scan: return scan(b, e, in, need, o);
    case Op::Cond: return cond(b, e, in, need, o);
    case Op::While:
      if (e.attrs.length > 0) return boundedWhile(b, e, in, need, o);
      fail("E0274", e.span, "reverse-mode differentiation of this while_loop is not supported: its number of steps is not known",
           "give the loop a static step bound, `while_loop(cond, body, init, max_steps=N)` (or use fori_loop with "
           "static bounds or scan), or use forward mode (jvp, jacfwd), which works through while_loop");
    case Op::Neg: case Op::Not: case Op::Abs: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::Round:
    case Op::Sqrt: case Op::Rsqrt: case Op::Exp: case Op::Log: case Op::Log1p: case Op::Expm1: case Op::Sin:
    case Op::Cos: case Op::Tan: case Op::Tanh: case Op::Sigmoid: case Op::Asin: case Op::Acos: case Op::Atan:
    case Op::Asinh: case Op::Acosh: case Op::Atanh: case Op::Log2: case Op::Log10: case Op::Exp2:
    case Op::Cbrt: case Op::Reciprocal: case Op::Erf: case Op::Erfc: case Op::ErfInv: case Op::Lgamma:
    case Op::Digamma: case Op::IsNan: case Op::IsInf: case Op::IsFinite: case Op::Add: case Op::Sub:
    case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Rem: case Op::Pow: case Op::Max: case Op::Min:
    case Op::And: case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr: case Op::Atan2: case Op::Hypot:
    case Op::Copysign: case Op::Fmod: case Op::LogAddExp: case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le:
    case Op::Gt: case Op::Ge: case Op::Select: case Op::Convert: case Op::Constant: case Op::Iota:
    case Op::ReduceSum: case Op::ReduceProd: case Op::ReduceMax: case Op::ReduceMin: case Op::ReduceAnd:
    case Op::ReduceOr: case Op::ArgMax: case Op::ArgMin: case Op::CumSum: case Op::CumProd: case Op::CumMax:
    case Op::CumMin: case Op::AssocScan: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose:
    case Op::Concat: case Op::Slice: case Op::Reverse: case Op::DynamicSlice: case Op::DynamicUpdateSlice:
    case Op::Gather: case Op::Scatter: case Op::ScatterAdd: case Op::ScatterMul: case Op::ScatterMin:
    case Op::ScatterMax: case Op::DotGeneral: case Op::Sort: case Op::AxisIndex:
    SCN_AD_OPS_WITHOUT_RULES
    SCN_AD_LINALG_OPS
    SCN_AD_COMPLEX_OPS
      break;  // only control flow reaches here
  }
  internalError(std::string("vjpControl of ") + opName(e.op));
}

}  // namespace scn::ad

namespace scn {

CheckpointCounts checkpointCounts(const Func& f) {
  CheckpointCounts c;
  for (const Eqn& e : f.eqns)
    for (const FuncPtr& sub : e.subs) {
      // A scan body runs once per step: what it stores and recomputes counts that often.
      int64_t times = e.op == Op::Scan ? e.attrs.length : 1;
      CheckpointCounts inner = checkpointCounts(*sub);
      c.storedCarries += times * inner.storedCarries;
      c.recomputedSteps += times * inner.recomputedSteps;
      c.automaticScans += inner.automaticScans;
      c.residualBytes = std::max(c.residualBytes, inner.residualBytes);
      c.budgetBytes = std::max(c.budgetBytes, inner.budgetBytes);
      const Attrs::CheckpointMark& mark = e.attrs.checkpointMark;
      if (e.op != Op::Scan) continue;
      if (mark.budgetBytes > 0) {  // checkpointed by the grad memory budget
        c.automaticScans += 1;
        c.residualBytes = std::max(c.residualBytes, mark.residualBytes);
        c.budgetBytes = std::max(c.budgetBytes, mark.budgetBytes);
      }
      // a binomial schedule's backward scan: its figures per run
      c.storedCarries += mark.binomialCarries;
      c.recomputedSteps += mark.binomialRecomputedSteps;
      if (!mark.segments) continue;
      c.storedCarries += e.attrs.length;  // one carry per segment
      for (const Eqn& q : sub->eqns)      // the recomputing (storing) scan of the segment
        if (q.op == Op::Scan) {
          c.recomputedSteps += e.attrs.length * q.attrs.length;
          break;
        }
    }
  return c;
}

}  // namespace scn
