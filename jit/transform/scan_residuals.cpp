// Which values reverse mode of a scan stores per step (Note [Scan residuals]).
#include "jit/transform/ad.hpp"
#include "jit/transform/passes.hpp"

namespace scn::ad {

// Note [Scan residuals]
// Reverse mode of a scan (vjp_control.cpp) stacks, per step, the carry entering the step and the
// outputs of the body's equations whose category is savedInReverse in ops.def (products,
// reductions, sorts, factorizations: costly to recompute, while their outputs are rarely larger
// than their inputs), into buffers of n steps allocated once. The backward body is the body's
// VJP given those values (vjpFuncSaving), so it recomputes only the elementwise and layout
// equations, which fuse into the backward kernels: W1's step sqrt(c @ c) stores c and c @ c,
// and its backward pass runs the two products of the transpose instead of three. This is JAX's
// residual stacking restricted to the values worth keeping (JAX also stacks every elementwise
// intermediate). An equation's outputs are stored only when they vary with the step (it reads
// a carry or an x, transitively: a value of the consts alone is recomputed from the consts, as
// before) and the backward pass reads them (a product whose output only flows into a sum is not
// stored). The checkpointed schedules store no residuals (their memory bound counts carries);
// their segments recompute each step from its carry.

namespace {

// The variables of the body that vary with the step: a carry, an x, or computed from one.
std::vector<bool> stepVarying(const Func& body, const Attrs& attrs) {
  std::vector<bool> varying(body.types.size(), false);
  for (size_t i = static_cast<size_t>(attrs.numConsts); i < body.params.size(); ++i) varying[body.params[i]] = true;
  for (const Eqn& e : body.eqns) {
    bool any = false;
    for (int v : e.inputs) any = any || varying[v];
    for (int v : e.outputs) varying[v] = any;
  }
  return varying;
}

}  // namespace

ScanResiduals scanResiduals(const Func& body, const Attrs& attrs, const VjpOptions& o) {
  ScanResiduals r;
  std::vector<bool> varying = stepVarying(body, attrs);
  for (const Eqn& e : body.eqns)
    r.saved.push_back(opInfo(e.op).flags.savedInReverse && !e.outputs.empty() && varying[e.outputs[0]]);
  // Keep only the equations whose stored outputs the backward pass reads.
  std::vector<bool> all(body.params.size(), true);
  FuncPtr vb = vjpFuncSaving(body, all, r.saved, {}, o);
  std::vector<int> cotangents(vb->results.begin() + static_cast<std::ptrdiff_t>(body.results.size()), vb->results.end());
  std::vector<bool> read = neededBy(*vb, cotangents);
  size_t param = body.params.size();
  for (size_t i = 0; i < body.eqns.size(); ++i) {
    if (!r.saved[i]) continue;
    bool used = false;
    for (size_t j = 0; j < body.eqns[i].outputs.size(); ++j) used = used || read[vb->params[param + j]];
    param += body.eqns[i].outputs.size();
    r.saved[i] = used;
    if (used)
      for (int v : body.eqns[i].outputs) r.bytesPerStep += byteSize(body.type(v));
  }
  for (int i = 0; i < attrs.numCarry; ++i)
    r.carryBytes += byteSize(body.type(body.params[static_cast<size_t>(attrs.numConsts + i)]));
  r.bytesPerStep += r.carryBytes;
  return r;
}

}  // namespace scn::ad
