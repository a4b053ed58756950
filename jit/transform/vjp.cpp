// Reverse mode over the IR: a forward sweep that linearizes each equation (its JVP rule, with
// the linear part set aside), then a backward sweep that transposes the linear parts in
// reverse order and accumulates cotangents.
#include <algorithm>
#include <map>
#include <string>

#include "base/diagnostics.hpp"
#include "jit/transform/ad.hpp"
#include "jit/transform/passes.hpp"

namespace scn {

// Note [Autodiff design]
// JAX builds reverse mode from forward mode: jvp, then partial evaluation splits the jvp into
// the primal (known) and the tangent (unknown, linear) computation, then transposition runs the
// linear part backwards. We keep its key property (one JVP rule per op; transpose rules only
// for the ~20 linear ops those rules emit) but do the partial evaluation per equation, where it
// is trivial: the JVP rule of an equation is applied to fresh placeholder tangents, and of the
// equations it emits, those that read a placeholder (or an output of such an equation) are the
// linear part; the rest compute coefficients from the primals and stay in the forward sweep.
// The rules are written so that tangents are only ever added, negated, scaled by primals or
// moved (Note: never added to a nonzero primal), which is what makes that split exact.
//
// Control flow is where global partial evaluation is hard (splitting a scan's body into a known
// and an unknown scan), so scan and cond get direct reverse-mode rules instead (vjp_control.cpp):
// the forward scan stacks the carry that enters each step and the outputs of its costly
// equations (products, reductions: Note [Scan residuals] in scan_residuals.cpp) as extra ys
// (buffers of length n allocated once; its consts, the loop-invariant residuals, are not
// stacked), and the backward scan runs in the opposite direction with the VJP of the body given
// those values, which recomputes the step's cheap intermediates (elementwise and layout
// equations, fused into the backward kernels) from the stored carry. The memory of the gradient
// of a long scan is the size of its carries and its products' outputs, not of every temporary.
// scan(..., checkpoints=k) stores k of the n carries and recomputes the rest (Note [Scan
// checkpoints] in vjp_control.cpp).
// while_loop has no reverse mode (the number of steps is not known to stack residuals): E0274.
//
// Note [Stop gradient]
// stop_gradient(x) is traced as a convert of x to its own dtype, which the tracer never emits
// otherwise; its JVP rule gives a zero tangent, and every backend treats it as a copy.

namespace ad {
namespace {

// One linearized data equation: where its input tangents were read, where its output tangents
// are, and the linear equations between them.
struct Linear {
  std::vector<int> inputs;       // primal inputs in the new function
  std::vector<Tan> placeholders;  // per input (nullopt: not differentiable)
  std::vector<int> outputs;       // primal outputs in the new function
  std::vector<Tan> tangents;      // per output
  std::vector<Eqn> eqns;          // the linear part, in order
};

// One step of the backward sweep.
struct TapeEntry {
  std::optional<Linear> linear;
  std::vector<int> inputs, outputs;  // control flow: primal inputs and outputs
  Backward backward;
  AccumulatingBackward accumulating;
};

struct Cotangents {
  Builder& b;
  std::map<int, int> ct;
  void add(int var, Tan c) {
    if (!c || !differentiable(b.type(var).dtype)) return;
    auto it = ct.find(var);
    if (it == ct.end()) ct[var] = *c;
    else it->second = b.add(it->second, *c);
  }
  // Replaces var's cotangent by the total an accumulating backward computed from it.
  void set(int var, Tan c) {
    if (c && differentiable(b.type(var).dtype)) ct[var] = *c;
  }
  Tan get(int var) const {
    auto it = ct.find(var);
    return it == ct.end() ? Tan{} : Tan{it->second};
  }
};

// Linearizes `e`: emits its primal and coefficient computations into b.dst, returns the rest.
Linear linearize(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& active) {
  Linear l;
  l.inputs = in;
  for (size_t i = 0; i < in.size(); ++i)
    l.placeholders.push_back(active[i] ? Tan(b.dst.newVar(b.type(in[i]))) : Tan{});
  size_t first = b.dst.eqns.size();
  Dual d = jvpEqn(b, e, in, l.placeholders);
  l.outputs = d.primal;
  l.tangents = d.tangent;
  std::vector<bool> isLinear(b.dst.types.size(), false);
  for (const Tan& p : l.placeholders)
    if (p) isLinear[*p] = true;
  std::vector<Eqn> kept;
  for (size_t i = first; i < b.dst.eqns.size(); ++i) {
    Eqn& q = b.dst.eqns[i];
    bool lin = false;
    for (int v : q.inputs) lin = lin || (static_cast<size_t>(v) < isLinear.size() && isLinear[v]);
    if (!lin) {
      kept.push_back(std::move(q));
      continue;
    }
    if (isLinear.size() < b.dst.types.size()) isLinear.resize(b.dst.types.size(), false);
    for (int v : q.outputs) isLinear[v] = true;
    l.eqns.push_back(std::move(q));
  }
  b.dst.eqns.resize(first);
  for (Eqn& q : kept) b.dst.eqns.push_back(std::move(q));
  for (Tan& t : l.tangents)
    if (t && (static_cast<size_t>(*t) >= isLinear.size() || !isLinear[*t])) t.reset();  // a constant zero
  if (isCustomCall(e)) {
    std::vector<bool> placeholders(b.dst.types.size(), false);
    for (const Tan& p : l.placeholders)
      if (p) placeholders[*p] = true;
    checkLinearRule(e, l.eqns, std::move(placeholders));
  }
  return l;
}

// Transposes the linear part of `l` given its output cotangents; returns the input cotangents.
std::vector<Tan> transposeLinear(Builder& b, const Linear& l, const std::vector<Tan>& ctOut) {
  std::map<int, int> lct;
  auto add = [&](int v, Tan c) {
    if (!c) return;
    auto it = lct.find(v);
    if (it == lct.end()) lct[v] = *c;
    else it->second = b.add(it->second, *c);
  };
  std::vector<bool> isLinear(b.dst.types.size(), false);
  for (const Tan& p : l.placeholders)
    if (p) isLinear[*p] = true;
  for (const Eqn& q : l.eqns)
    for (int v : q.outputs) isLinear[v] = true;
  for (size_t j = 0; j < l.tangents.size(); ++j)
    if (l.tangents[j]) add(*l.tangents[j], ctOut[j]);
  for (auto it = l.eqns.rbegin(); it != l.eqns.rend(); ++it) {
    std::vector<Tan> cts;
    bool any = false;
    for (int v : it->outputs) {
      auto f = lct.find(v);
      cts.push_back(f == lct.end() ? Tan{} : Tan{f->second});
      any = any || cts.back().has_value();
    }
    if (!any) continue;
    std::vector<bool> linear;
    for (int v : it->inputs) linear.push_back(isLinear[v]);
    b.span = it->span;
    std::vector<Tan> ctIn = transposeRule(b, *it, linear, cts);
    for (size_t i = 0; i < it->inputs.size(); ++i)
      if (linear[i]) add(it->inputs[i], ctIn[i]);
  }
  std::vector<Tan> out;
  for (const Tan& p : l.placeholders) {
    auto f = p ? lct.find(*p) : lct.end();
    out.push_back(f == lct.end() ? Tan{} : Tan{f->second});
  }
  return out;
}

// A linearized equation whose primal outputs were stored (`saved`): drops the equation that
// recomputed them, when nothing else of the linearization reads it, and uses the stored values.
void usePrimalsSaved(Builder& b, Linear& l, size_t first, const std::vector<int>& saved) {
  auto reads = [&](const Eqn& q, int v) { return std::find(q.inputs.begin(), q.inputs.end(), v) != q.inputs.end(); };
  for (size_t i = first; i < b.dst.eqns.size(); ++i) {
    if (b.dst.eqns[i].outputs != l.outputs) continue;
    bool used = false;
    for (size_t j = first; j < b.dst.eqns.size(); ++j)
      for (int v : l.outputs) used = used || reads(b.dst.eqns[j], v);
    for (const Eqn& q : l.eqns)
      for (int v : l.outputs) used = used || reads(q, v);
    if (used) return;
    b.dst.eqns.erase(b.dst.eqns.begin() + static_cast<std::ptrdiff_t>(i));
    l.outputs = saved;
    return;
  }
}

}  // namespace

FuncPtr vjpFuncSaving(const Func& f, const std::vector<bool>& wrt, const std::vector<bool>& saved,
                      const std::vector<bool>& seeded, const VjpOptions& options) {
  SCN_ASSERT(wrt.size() == f.params.size(), "one wrt flag per parameter");
  SCN_ASSERT(saved.empty() || saved.size() == f.eqns.size(), "one saved flag per equation");
  auto g = std::make_shared<Func>();
  g->name = f.name.empty() ? "vjp" : "vjp_" + f.name;
  std::vector<int> val(f.types.size(), -1);
  // Active values depend on a differentiated parameter; the rest is copied as it is.
  std::vector<bool> active(f.types.size(), false);
  for (size_t i = 0; i < f.params.size(); ++i) {
    int p = f.params[i];
    g->params.push_back(val[p] = g->newVar(f.type(p)));
    active[p] = wrt[i] && differentiable(f.type(p).dtype);
  }
  std::vector<std::vector<int>> savedVars(f.eqns.size());
  for (size_t i = 0; i < saved.size(); ++i)
    if (saved[i])
      for (int v : f.eqns[i].outputs) {
        savedVars[i].push_back(g->newVar(f.type(v)));
        g->params.push_back(savedVars[i].back());
      }
  std::vector<int> seeds(f.params.size(), -1);
  for (size_t i = 0; i < seeded.size(); ++i)
    if (seeded[i]) {
      seeds[i] = g->newVar(f.type(f.params[i]));
      g->params.push_back(seeds[i]);
    }
  Builder b{*g, Span{}};
  std::vector<TapeEntry> tape;
  for (size_t eqnIndex = 0; eqnIndex < f.eqns.size(); ++eqnIndex) {
    const Eqn& e = f.eqns[eqnIndex];
    const std::vector<int>& stored = savedVars[eqnIndex];
    std::vector<int> in;
    std::vector<bool> activeIn;
    bool any = false;
    for (int v : e.inputs) {
      in.push_back(val.at(v));
      activeIn.push_back(active.at(v));
      any = any || active[v];
    }
    b.span = e.span;
    if (!any) {
      std::vector<int> out = stored.empty() ? b.emit(e.op, in, e.attrs, e.subs) : stored;
      for (size_t j = 0; j < e.outputs.size(); ++j) val[e.outputs[j]] = out[j];
      continue;
    }
    for (int v : e.outputs) active[v] = differentiable(f.type(v).dtype);
    TapeEntry t;
    std::vector<int> out;
    bool customVjp = isCustomCall(e) && e.attrs.custom->kind == CustomRule::Vjp;
    if (customVjp || (!isCustomCall(e) && (e.op == Op::Scan || e.op == Op::While || e.op == Op::Cond))) {
      Forward fw = customVjp ? vjpCustom(b, e, in, activeIn) : vjpControl(b, e, in, activeIn, options);
      out = fw.primal;
      t.inputs = in;
      t.outputs = out;
      t.backward = std::move(fw.backward);
      t.accumulating = std::move(fw.accumulating);
    } else {
      size_t first = b.dst.eqns.size();
      t.linear = linearize(b, e, in, activeIn);
      if (!stored.empty()) usePrimalsSaved(b, *t.linear, first, stored);
      out = t.linear->outputs;
    }
    for (size_t j = 0; j < e.outputs.size(); ++j) val[e.outputs[j]] = out[j];
    tape.push_back(std::move(t));
  }
  std::vector<int> results;
  for (int r : f.results) results.push_back(val.at(r));
  Cotangents ct{b, {}};
  for (size_t i = 0; i < seeds.size(); ++i)
    if (seeds[i] >= 0) ct.add(val[f.params[i]], seeds[i]);
  for (int r : f.results) {
    int c = g->newVar(f.type(r));
    g->params.push_back(c);
    ct.add(val.at(r), c);
  }
  for (auto it = tape.rbegin(); it != tape.rend(); ++it) {
    const std::vector<int>& outs = it->linear ? it->linear->outputs : it->outputs;
    const std::vector<int>& ins = it->linear ? it->linear->inputs : it->inputs;
    std::vector<Tan> ctOut;
    bool any = false;
    for (int v : outs) {
      ctOut.push_back(ct.get(v));
      any = any || ctOut.back().has_value();
    }
    if (!any) continue;
    if (it->accumulating) {
      std::vector<Tan> soFar;
      for (int v : ins) soFar.push_back(ct.get(v));
      std::vector<Tan> total = it->accumulating(b, ctOut, soFar);
      for (size_t i = 0; i < ins.size(); ++i) ct.set(ins[i], total[i]);
      continue;
    }
    std::vector<Tan> ctIn = it->linear ? transposeLinear(b, *it->linear, ctOut) : it->backward(b, ctOut);
    for (size_t i = 0; i < ins.size(); ++i) ct.add(ins[i], ctIn[i]);
  }
  b.span = Span{};
  g->results = results;
  for (size_t i = 0; i < f.params.size(); ++i)
    if (wrt[i]) g->results.push_back(b.instantiate(ct.get(val[f.params[i]]), f.type(f.params[i])));
  return g;
}

}  // namespace ad

FuncPtr vjpFunc(const Func& f, const std::vector<bool>& wrt, const VjpOptions& options) {
  // Hoisted first, so the transposes of the hoisted products run after the backward scan too
  // (Note [Hoisted scan products]).
  FuncPtr hoisted = cloneFunc(f);
  hoistScanProducts(*hoisted);
  return ad::vjpFuncSaving(*hoisted, wrt, {}, {}, options);
}

}  // namespace scn
