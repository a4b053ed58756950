// Hoisting a scan's input products out of its body: one large product over every step instead of
// one small product per step (Note [Hoisted scan products]).
#include <algorithm>
#include <map>
#include <optional>

#include "jit/array.hpp"
#include "jit/batch.hpp"
#include "jit/transform/ad.hpp"
#include "jit/transform/batch_rules.hpp"
#include "jit/transform/passes.hpp"

namespace scn {

// Note [Hoisted scan products]
// The step of a recurrent network multiplies its input by a weight: `gx = emb[tok] @ wx` reads
// only the step's slice of xs and loop-invariant consts, never the carry. Run per step it is a
// GEMM with m = the batch (32 rows), far below the rate of the same product with m = steps x
// batch; cuDNN's RNNs compute every step's input projection as one GEMM before the recurrence
// for this reason. We do the same for any scan: a dot_general of the body that does not depend
// on the carry but does depend on xs is taken out together with the equations it needs (map-like
// ones: batching them builds no lane loop), batched over the steps (vmap over xs' leading axis,
// as scan-to-map does for a whole body) and computed once before the scan, which reads its
// stacked results as extra xs. The remaining body keeps the cheap elementwise work, fused per
// step. Values the hoisted equations compute from consts alone become consts (loop-invariant
// code motion).
//
// The pass runs in the pipeline and, before reverse mode, on the function being differentiated
// (vjpFunc), so a gradient's weight cotangent is also one product after the backward scan
// (x^T @ the stacked cotangents, k = steps x batch) rather than a carry that accumulates a small
// product per step. Stacking costs memory the per-step product did not take: a scan is hoisted
// only while its stacked results fit kHoistedBytesLimit, and never when the user asked it to
// save memory (`checkpoints=` or a checkpoint policy). In reverse mode the per-step products were
// stored anyway (Note [Scan residuals]).

// Note [Counters as steps]
// JAX's other way to write that loop, `fori_loop(0, n, |i, h| step(h, xs[i]))`, is a scan whose
// first carry is the counter: it starts at a constant and each step adds 1, and the body reads
// `xs[i]` as a dynamic_slice of a const. The counter's value at step t is start + t, known before
// the loop, so it counts as a per-step input like an xs: `xs[i] @ w` reads only it and consts and
// is hoisted like `x @ w` above, batched over the stacked values start + iota(n) (the batched
// dynamic_slice is a gather of the n rows). Forward scans only: a reverse scan's step t reads
// position n - 1 - t of its xs.

namespace {

constexpr uint64_t kHoistedBytesLimit = uint64_t{64} << 20;


// The equations of a scan body to hoist (per equation) and the values they compute that the
// rest of the body reads (the hoisted function's results).
struct HoistPlan {
  std::vector<bool> hoisted;
  std::vector<int> results;
  std::vector<bool> perStep;  // per result: depends on xs (stacked) rather than consts only
};

// A hoisted constant or iota (no inputs) is also kept in the body, where it folds into the
// step's kernels, rather than passed in as a const.
bool keptInBody(const HoistPlan& plan, const Eqn& e, size_t i) { return !plan.hoisted[i] || e.inputs.empty(); }

/// Per carry of a scan: its start when it is a counter (Note [Counters as steps]).
using Counters = std::vector<std::optional<int64_t>>;

/// The value of `e` of `f` when it defines an integer scalar constant.
std::optional<int64_t> intConstant(const Func& f, const Eqn& e) {
  if (e.op != Op::Constant || !e.attrs.value || e.attrs.value->size() != 1 || !isInteger(f.type(e.outputs[0]).dtype))
    return std::nullopt;
  return e.attrs.value->getInt(0);
}

/// Whether `v` of `body` is the integer scalar constant 1.
bool isOne(const Func& body, int v) {
  for (const Eqn& e : body.eqns)
    if (e.outputs.at(0) == v) return intConstant(body, e) == 1;
  return false;
}

/// The counters among `scan`'s carries: the init is an integer scalar constant of the enclosing
/// function (`intConsts`: its constants by variable) and the body's next value is carry + 1.
Counters findCounters(const Eqn& scan, const std::map<int, int64_t>& intConsts) {
  const Func& body = *scan.subs[0];
  const int nc = scan.attrs.numConsts;
  Counters counters(static_cast<size_t>(scan.attrs.numCarry));
  if (scan.attrs.reverse) return counters;
  for (int j = 0; j < scan.attrs.numCarry; ++j) {
    auto start = intConsts.find(scan.inputs[nc + j]);
    if (start == intConsts.end()) continue;
    int carry = body.params[nc + j], next = body.results[j];
    for (const Eqn& e : body.eqns) {
      if (e.outputs.at(0) != next) continue;
      if (e.op == Op::Add && ((e.inputs[0] == carry && isOne(body, e.inputs[1])) ||
                              (e.inputs[1] == carry && isOne(body, e.inputs[0]))))
        counters[j] = start->second;
      break;
    }
  }
  return counters;
}

HoistPlan planHoist(const Func& body, const Attrs& scan, const Counters& counters) {
  HoistPlan plan;
  // invariant: computable from consts and per-step inputs (xs, counters) alone by map-like
  // equations; fromXs: reads a per-step input.
  std::vector<bool> invariant(body.types.size(), false), fromXs(body.types.size(), false);
  for (size_t i = 0; i < body.params.size(); ++i) {
    int p = body.params[i];
    bool counter = isScanCarry(scan, i) && counters[i - scan.numConsts].has_value();
    invariant[p] = !isScanCarry(scan, i) || counter;
    fromXs[p] = static_cast<int>(i) >= scan.numConsts + scan.numCarry || counter;
  }
  // `xs[i]` of a const at a per-step i batches into a gather (Note [Row reads as gathers]).
  auto rowRead = [&](const Eqn& e) {
    if (e.op != Op::DynamicSlice || fromXs[e.inputs[0]]) return false;
    std::vector<Type> starts;
    for (size_t i = 1; i < e.inputs.size(); ++i) starts.push_back(body.type(e.inputs[i]));
    return batching::rowReadAxes(body.type(e.inputs[0]), e.attrs.shape, starts) > 0;
  };
  std::vector<int> roots;
  for (const Eqn& e : body.eqns) {
    bool inv = e.subs.empty() && (opInfo(e.op).flags.mapLike || rowRead(e));
    bool xs = false;
    for (int v : e.inputs) {
      inv = inv && invariant[v];
      xs = xs || fromXs[v];
    }
    for (int o : e.outputs) {
      invariant[o] = inv;
      fromXs[o] = xs;
    }
    if (inv && xs && opInfo(e.op).category == OpCategory::DotGeneral) roots.push_back(e.outputs[0]);
  }
  plan.hoisted.assign(body.eqns.size(), false);
  if (roots.empty()) return plan;
  std::vector<bool> needed = neededBy(body, roots);
  for (size_t i = 0; i < body.eqns.size(); ++i)
    plan.hoisted[i] = needed[body.eqns[i].outputs.at(0)];
  std::vector<bool> definedHere(body.types.size(), false), readOutside(body.types.size(), false);
  for (size_t i = 0; i < body.eqns.size(); ++i) {
    const Eqn& e = body.eqns[i];
    if (keptInBody(plan, e, i))
      for (int v : e.inputs) readOutside[v] = true;
    else
      for (int o : e.outputs) definedHere[o] = true;
  }
  for (int r : body.results) readOutside[r] = true;
  for (size_t v = 0; v < body.types.size(); ++v)
    if (definedHere[v] && readOutside[v]) {
      plan.results.push_back(static_cast<int>(v));
      plan.perStep.push_back(fromXs[v]);
    }
  return plan;
}

bool worthHoisting(const Eqn& scan, const HoistPlan& plan) {
  if (plan.results.empty()) return false;
  uint64_t stacked = 0;
  for (size_t j = 0; j < plan.results.size(); ++j)
    if (plan.perStep[j]) stacked += byteSize(scan.subs[0]->type(plan.results[j])) * static_cast<uint64_t>(scan.attrs.length);
  return stacked <= kHoistedBytesLimit;
}

// Removes the consts and xs of `scan` that its body no longer reads (those only the hoisted
// equations read). Reverse mode, which sees the scan before dce does, would otherwise give each
// such const a cotangent accumulator of zeros carried through every step of the backward scan.
void dropUnreadInputs(Eqn& scan) {
  Func& body = *scan.subs[0];
  std::vector<bool> read(body.types.size(), false);
  for (const Eqn& e : body.eqns)
    for (int v : e.inputs) read[v] = true;
  for (int r : body.results) read[r] = true;
  const int nc = scan.attrs.numConsts;
  std::vector<int> params, inputs;
  int consts = 0;
  for (size_t i = 0; i < body.params.size(); ++i) {
    if (!isScanCarry(scan.attrs, i) && !read[body.params[i]]) continue;
    params.push_back(body.params[i]);
    inputs.push_back(scan.inputs[i]);
    consts += static_cast<int>(i) < nc;
  }
  body.params = std::move(params);
  scan.inputs = std::move(inputs);
  scan.attrs.numConsts = consts;
}

/// start, start + 1, ..., start + n - 1 in dtype t, emitted into dst: a counter's stacked values.
int stackedCounter(Func& dst, const Eqn& scan, DType t, int64_t start) {
  ad::Builder b{dst, scan.span};
  Attrs iota;
  iota.dtype = t;
  iota.shape = {scan.attrs.length};
  iota.axes = {0};
  int steps = b.emit1(Op::Iota, {}, std::move(iota));
  return start == 0 ? steps : b.add(steps, b.full(Type{t, {scan.attrs.length}}, static_cast<double>(start)));
}

// Emits the hoisted equations of `scan` into dst, batched over its steps, and rewrites the scan
// to read their results as new consts (computed from consts only) and new xs (per step).
Eqn hoist(Func& dst, const Eqn& scan, const HoistPlan& plan, const Counters& counters) {
  const Func& body = *scan.subs[0];
  const int nc = scan.attrs.numConsts;
  Func pre;
  pre.name = body.name + "_hoisted";
  pre.types = body.types;
  std::vector<std::optional<int>> inAxes;
  std::vector<int> args;
  for (size_t i = 0; i < body.params.size(); ++i) {
    if (isScanCarry(scan.attrs, i)) {
      const std::optional<int64_t>& start = counters[i - nc];
      if (!start) continue;
      pre.params.push_back(body.params[i]);
      args.push_back(stackedCounter(dst, scan, body.type(body.params[i]).dtype, *start));
      inAxes.push_back(0);
      continue;
    }
    pre.params.push_back(body.params[i]);
    args.push_back(scan.inputs[i]);
    inAxes.push_back(static_cast<int>(i) < nc ? std::nullopt : std::optional<int>(0));
  }
  for (size_t i = 0; i < body.eqns.size(); ++i)
    if (plan.hoisted[i]) pre.eqns.push_back(body.eqns[i]);
  pre.results = plan.results;
  std::vector<std::optional<int>> outAxes;
  for (bool s : plan.perStep) outAxes.push_back(s ? std::optional<int>(0) : std::nullopt);
  FuncPtr batched = batchFunc(pre, inAxes, scan.attrs.length, outAxes, scan.span);
  std::vector<int> outer = batching::inlineFunc(dst, *batched, args);

  auto rest = std::make_shared<Func>(body);
  rest->eqns.clear();
  std::vector<int> rename(body.types.size());
  for (size_t v = 0; v < rename.size(); ++v) rename[v] = static_cast<int>(v);
  Eqn rewritten = scan;
  std::vector<int> newConstParams, newConstArgs;
  for (size_t j = 0; j < plan.results.size(); ++j) {
    int p = rest->newVar(body.type(plan.results[j]));
    rename[plan.results[j]] = p;
    if (plan.perStep[j]) {
      rest->params.push_back(p);
      rewritten.inputs.push_back(outer[j]);
    } else {
      newConstParams.push_back(p);
      newConstArgs.push_back(outer[j]);
    }
  }
  rest->params.insert(rest->params.begin() + nc, newConstParams.begin(), newConstParams.end());
  rewritten.inputs.insert(rewritten.inputs.begin() + nc, newConstArgs.begin(), newConstArgs.end());
  rewritten.attrs.numConsts = nc + static_cast<int>(newConstParams.size());
  for (size_t i = 0; i < body.eqns.size(); ++i) {
    if (!keptInBody(plan, body.eqns[i], i)) continue;
    Eqn e = body.eqns[i];
    for (int& v : e.inputs) v = rename[v];
    rest->eqns.push_back(std::move(e));
  }
  for (int& r : rest->results) r = rename[r];
  rewritten.subs = {rest};
  dropUnreadInputs(rewritten);
  return rewritten;
}

}  // namespace

bool hoistScanProducts(Func& f) {
  bool changed = false;
  for (Eqn& e : f.eqns)
    for (FuncPtr& s : e.subs) {
      if (s.use_count() > 1) s = std::make_shared<Func>(*s);  // shared with another equation
      changed = hoistScanProducts(*s) || changed;
    }
  Func rebuilt = f;
  rebuilt.eqns.clear();
  bool hoistedHere = false;
  std::map<int, int64_t> intConsts;  // the integer scalar constants seen so far
  for (const Eqn& e : f.eqns) {
    if (std::optional<int64_t> c = intConstant(f, e)) intConsts[e.outputs[0]] = *c;
    bool candidate = e.op == Op::Scan && e.attrs.length > 0 && e.attrs.checkpoints <= 0 &&
                     e.attrs.remat == Attrs::Remat::None;
    HoistPlan plan;
    Counters counters;
    if (candidate) {
      counters = findCounters(e, intConsts);
      plan = planHoist(*e.subs[0], e.attrs, counters);
    }
    if (!candidate || !worthHoisting(e, plan)) {
      rebuilt.eqns.push_back(e);
      continue;
    }
    rebuilt.eqns.push_back(hoist(rebuilt, e, plan, counters));
    hoistedHere = true;
  }
  if (hoistedHere) f = std::move(rebuilt);
  return changed || hoistedHere;
}

}  // namespace scn
