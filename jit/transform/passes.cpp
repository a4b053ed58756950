// The pipeline: custom calls inlined, associative-scan rounds (for some backends), hoisted scan
// products, scan-to-map, joined disjoint blocks, drop-identity-reshapes, dead-code elimination,
// then (in the backend) the lowering to kernel IR.
#include "jit/transform/passes.hpp"

#include <algorithm>

#include "jit/batch.hpp"
#include "jit/transform/batch_rules.hpp"
#include "jit/transform/expand_assoc_scan.hpp"
#include "jit/widen.hpp"
#include "base/diagnostics.hpp"

namespace scn {

namespace {

// Note [Scan to map]
// A scan without a carry is a map over its xs: iteration i reads slice i and writes y i, and no
// iteration sees another. When its body is map-like (elementwise, structural and reduction ops,
// no control flow and no dynamic slicing, whose batching rules would build a lane loop again) we
// replace it by the body batched over the xs' leading axis. This is what makes scan(vmap(f)) and
// vmap(scan(f)) compile to the same fused loop: after batching, both are a carry-less scan over
// map-like ops, and both become one elementwise map in memory order, whatever nesting the user
// wrote (seed 001).

// Outputs of an inlined body keep the ids of the equation it replaces: each is an identity
// reshape of the body's result, which drop-identity-reshapes removes.
void aliasOutputs(Func& f, const Eqn& e, const std::vector<int>& results) {
  SCN_ASSERT(results.size() == e.outputs.size(), "an inlined body has one result per output");
  for (size_t i = 0; i < results.size(); ++i) {
    Eqn alias;
    alias.op = Op::Reshape;
    alias.inputs = {results[i]};
    alias.outputs = {e.outputs[i]};
    alias.attrs.shape = f.type(e.outputs[i]).shape;
    alias.span = e.span;
    f.eqns.push_back(alias);
  }
}

// A call of a custom_jvp / custom_vjp function is a one-branch cond carrying the rules (Note
// [Custom rules] in custom_rules.cpp); the rules serve the transformations, which ran when the
// program was traced, so a compiled program runs the function's equations in place, where they
// fuse with their neighbours.
bool inlineCustomCalls(Func& f) {
  bool changed = false;
  for (Eqn& e : f.eqns)
    for (FuncPtr& s : e.subs) changed = inlineCustomCalls(*s) || changed;
  Func rebuilt = f;
  rebuilt.eqns.clear();
  for (const Eqn& e : f.eqns) {
    if (!(e.op == Op::Cond && e.attrs.custom)) {
      rebuilt.eqns.push_back(e);
      continue;
    }
    std::vector<int> operands(e.inputs.begin() + 1, e.inputs.end());
    aliasOutputs(rebuilt, e, batching::inlineFunc(rebuilt, *e.subs.at(0), operands));
    changed = true;
  }
  f = std::move(rebuilt);
  return changed;
}

bool mapLike(const Func& body) {
  for (const Eqn& e : body.eqns)
    if (!opInfo(e.op).flags.mapLike) return false;
  return true;
}

bool scanToMap(Func& f) {
  bool changed = false;
  for (Eqn& e : f.eqns)
    for (FuncPtr& s : e.subs) changed = scanToMap(*s) || changed;
  std::vector<Eqn> out;
  Func rebuilt = f;
  rebuilt.eqns.clear();
  for (const Eqn& e : f.eqns) {
    bool carryless = e.op == Op::Scan && e.attrs.numCarry == 0 && e.attrs.length > 0 &&
                     e.inputs.size() > static_cast<size_t>(e.attrs.numConsts) && mapLike(*e.subs[0]);
    if (!carryless) {
      rebuilt.eqns.push_back(e);
      continue;
    }
    const Func& body = *e.subs[0];
    std::vector<std::optional<int>> inAxes;
    for (size_t i = 0; i < e.inputs.size(); ++i)
      inAxes.push_back(static_cast<int>(i) < e.attrs.numConsts ? std::nullopt : std::optional<int>(0));
    std::vector<std::optional<int>> outAxes(body.results.size(), 0);
    FuncPtr mapped = batchFunc(body, inAxes, e.attrs.length, outAxes, e.span);
    std::vector<int> results = batching::inlineFunc(rebuilt, *mapped, e.inputs);
    aliasOutputs(rebuilt, e, results);  // the scan's outputs are now the map's results
    changed = true;
  }
  if (changed) f = std::move(rebuilt);
  return changed;
}

}  // namespace

std::vector<bool> neededBy(const Func& f, const std::vector<int>& roots) {
  std::vector<bool> live(f.types.size(), false);
  for (int r : roots) live[r] = true;
  for (size_t i = f.eqns.size(); i-- > 0;) {
    const Eqn& e = f.eqns[i];
    if (std::any_of(e.outputs.begin(), e.outputs.end(), [&](int o) { return live[o]; }))
      for (int v : e.inputs) live[v] = true;
  }
  return live;
}

namespace {

// Note [Dead scan outputs]
// A scan computes all its outputs together, so an unused one is not an unused equation: the
// reverse-mode scan of a gradient with respect to the initial carry also computes the cotangent
// of its xs (a reduction over the whole carry per step) that nobody reads. pruneScan drops an
// unused y, and a carry whose final value is unused and that no needed value of the body reads
// (a fixpoint: a needed carry's update may read another carry, which is then needed), then the
// consts and xs the rest of the body no longer reads; dce below removes what computed them.

/// Drops the unused outputs of scan e, and the inputs its body then no longer reads (Note [Dead
/// scan outputs]); whether anything changed.
bool pruneScan(Eqn& e, const std::vector<bool>& live) {
  const Func& body = *e.subs[0];
  const int nc = e.attrs.numConsts, nk = e.attrs.numCarry;
  std::vector<bool> keepOut(e.outputs.size());
  for (size_t j = 0; j < e.outputs.size(); ++j) keepOut[j] = live[e.outputs[j]];
  std::vector<bool> reads;
  for (bool grew = true; grew;) {
    std::vector<int> roots;
    for (size_t j = 0; j < keepOut.size(); ++j)
      if (keepOut[j]) roots.push_back(body.results[j]);
    reads = neededBy(body, roots);
    grew = false;
    for (int k = 0; k < nk; ++k) {
      if (keepOut[k] || !reads[body.params[nc + k]]) continue;
      keepOut[k] = true;
      grew = true;
    }
  }
  std::vector<bool> keepIn(e.inputs.size(), true);
  for (size_t i = 0; i < keepIn.size(); ++i) {
    keepIn[i] = isScanCarry(e.attrs, i) ? keepOut[i - nc] : reads[body.params[i]];
  }
  if (std::all_of(keepOut.begin(), keepOut.end(), [](bool b) { return b; }) &&
      std::all_of(keepIn.begin(), keepIn.end(), [](bool b) { return b; }))
    return false;
  auto filter = [](std::vector<int>& v, const std::vector<bool>& keep) {
    std::vector<int> kept;
    for (size_t i = 0; i < v.size(); ++i)
      if (keep[i]) kept.push_back(v[i]);
    v = std::move(kept);
  };
  e.attrs.numConsts = static_cast<int>(std::count(keepIn.begin(), keepIn.begin() + nc, true));
  e.attrs.numCarry = static_cast<int>(std::count(keepOut.begin(), keepOut.begin() + nk, true));
  if (e.subs[0].use_count() > 1) e.subs[0] = std::make_shared<Func>(*e.subs[0]);  // another eqn's too
  Func& edited = *e.subs[0];
  filter(e.outputs, keepOut);
  filter(edited.results, keepOut);
  filter(e.inputs, keepIn);
  filter(edited.params, keepIn);
  return true;
}

// Dead-code elimination: equations whose outputs are never used go (inside bodies too), and so
// do the unused outputs of a scan (Note [Dead scan outputs]).
bool dce(Func& f) {
  bool changed = false;
  std::vector<bool> live(f.types.size(), false);
  for (int r : f.results) live[r] = true;
  std::vector<bool> keep(f.eqns.size(), false);
  for (size_t i = f.eqns.size(); i-- > 0;) {
    Eqn& e = f.eqns[i];
    bool used = false;
    for (int o : e.outputs) used = used || live[o];
    if (!used) continue;
    keep[i] = true;
    if (e.op == Op::Scan) changed = pruneScan(e, live) || changed;
    for (int v : e.inputs) live[v] = true;
  }
  for (size_t i = 0; i < f.eqns.size(); ++i)
    if (keep[i])
      for (FuncPtr& s : f.eqns[i].subs) changed = dce(*s) || changed;
  std::vector<Eqn> kept;
  for (size_t i = 0; i < f.eqns.size(); ++i)
    if (keep[i]) kept.push_back(std::move(f.eqns[i]));
  changed = changed || kept.size() != f.eqns.size();
  f.eqns = std::move(kept);
  return changed;
}

// Reshapes to the shape a value already has (left by scan-to-map and the tracer) are removed
// by renaming their uses.
bool dropIdentityReshapes(Func& f) {
  bool changed = false;
  for (Eqn& e : f.eqns)
    for (FuncPtr& s : e.subs) changed = dropIdentityReshapes(*s) || changed;
  std::vector<int> rename(f.types.size());
  for (size_t v = 0; v < rename.size(); ++v) rename[v] = static_cast<int>(v);
  std::vector<Eqn> kept;
  for (Eqn& e : f.eqns) {
    for (int& v : e.inputs) v = rename[v];
    if (e.op == Op::Reshape && f.type(e.inputs[0]) == f.type(e.outputs[0])) {
      rename[e.outputs[0]] = e.inputs[0];
      changed = true;
      continue;
    }
    kept.push_back(std::move(e));
  }
  for (int& r : f.results) r = rename[r];
  f.eqns = std::move(kept);
  return changed;
}

}  // namespace

const std::vector<Pass>& pipelinePasses() {
  using Opts = const PipelineOptions&;
  static const std::vector<Pass> passes = {
      // First: the rules are not run, and the function's equations are then simplified and
      // fused like any others.
      {"inline-custom-calls", "calls of custom_jvp / custom_vjp functions become the function's equations",
       [](Func& f, Opts) { return inlineCustomCalls(f); }},
      // After the passes that create ops and before fusion sees them: the converts it adds fuse.
      {"widen-low-precision", "ops on bf16 / f16 values compute in f32, converting at their edges",
       [](Func& f, Opts o) { return widenLowPrecision(f, WidenOptions{o.keepBf16Products}); }},
      // Before scan-to-map, which then batches the rounds of a scan body like any map-like ops.
      {"expand-associative-scans", "associative_scan ops become log-depth odd-even rounds",
       [](Func& f, Opts) { return expandAssociativeScans(f); }, &PipelineOptions::expandAssociativeScans},
      // Before scan-to-map: a carry-less scan becomes a map either way.
      {"hoist-scan-products", "products of scan bodies that read xs but not the carry run once for every step, before the scan",
       [](Func& f, Opts) { return hoistScanProducts(f); }},
      // Early, so the maps it creates are simplified and cleaned by the passes after it.
      {"scan-to-map", "carry-less scans over map-like bodies become one batched map",
       [](Func& f, Opts) { return scanToMap(f); }},
      // After the passes that build sums of cotangents into scan bodies, before dce (which
      // removes the zero arrays and copies it leaves unused).
      {"join-disjoint-blocks", "sums of zero-padded blocks that do not overlap become one concat or one array of blocks",
       [](Func& f, Opts) { return joinDisjointBlocks(f); }},
      {"drop-identity-reshapes", "removes reshapes that do not change the shape",
       [](Func& f, Opts) { return dropIdentityReshapes(f); }},
      // After the other IR passes: they leave unused equations behind.
      {"dce", "removes equations whose results are never used", [](Func& f, Opts) { return dce(f); }},
      // Last, and not an IR pass: its options are the backend's, so the backend runs it when it
      // compiles (kir::lowerStage in jit/kernel, which jit/transform does not depend on).
      {kLowerStage, "lowers the IR to the kernel IR of the backend in use (fusion, buffer plan)", nullptr},
  };
  return passes;
}

FuncPtr cloneFunc(const Func& f) {
  auto g = std::make_shared<Func>(f);
  for (Eqn& e : g->eqns)
    for (FuncPtr& s : e.subs) s = cloneFunc(*s);
  return g;
}

std::string printAfterHeading(const std::string& stage, const std::string& label) {
  return "// after " + stage + (label.empty() ? "" : " of " + label);
}

FuncPtr runPipeline(const Func& f, const PipelineOptions& opts) {
  FuncPtr g = cloneFunc(f);
  for (const Pass& p : pipelinePasses()) {
    if (!p.run) continue;  // `lower`: run by the backend
    if (p.when && !(opts.*p.when)) continue;
    bool changed = p.run(*g, opts);
    if (opts.verifyEach) {
      std::string err = verify(*g);
      if (!err.empty()) internalError(std::string("IR fails verification after pass `") + p.name + "`: " + err);
    }
    if (opts.print && (opts.printAfter == p.name || opts.printAfter == "all"))
      opts.print(printAfterHeading(p.name, opts.label) + (changed ? "\n" + printFunc(*g) : ": unchanged\n"));
  }
  return g;
}

}  // namespace scn
