// Control flow in kernel form: scan and while as sequential loops around the kernels of their
// bodies with ping-pong carry slots, a scan's peeled first iteration, and cond as a switch.
#include <algorithm>

#include "jit/kernel/lower_impl.hpp"
#include "base/diagnostics.hpp"

namespace scn::kir {

// Note [Peeled first iteration]
// A carry whose init cannot be overwritten (a parameter, or a value read again later) used to be
// copied into the carry slot A before the loop. With LowerOptions::peelFirstIteration the scan
// runs its first iteration before the loop instead, with A's pointer exchanged for the init's
// (swap A P), so that iteration reads the init where it is; the pointers are exchanged back
// before the carries' own A/B swap, and the loop runs from 1. No data moves: W1's scan copies
// nothing. The body's steps are emitted twice (host code only: the kernels are shared); a Loop
// of one trip around the peeled copy sets the counter to 0. A carry is peeled only when the body
// never writes A in place (nothing stole A while it was lowered), its new value is not left in A,
// and the init's slot is read by no other input of the scan (the body reads it only through A).

// Note [Loops on an enclosing carry]
// A loop's init that is dead after the loop becomes the loop's carry slot A, also when it is a
// carry of an enclosing loop's body (a stealable parameter, not a temporary this function may
// free): a while_loop that updates a table inside a scan body then works on the scan's own
// slot, with no copy in and none out (its result is left in that slot). The stolen slot is
// recorded (ProgramBuilder::stolen) so that the enclosing scan does not peel its first
// iteration onto the init, and the loop's output may be freed only if the init could be
// (`owned`): an enclosing carry slot is never returned to the pool of temporaries.
int FuncLowering::carrySlot(size_t ei, const Eqn& e, int init, bool* copy, bool* owned) {
  int uses = static_cast<int>(std::count(e.inputs.begin(), e.inputs.end(), init));
  *copy = false;
  *owned = true;
  if (uses == 1 && canSteal_[init] && lastUse_[init] == static_cast<int>(ei) &&
      isConstIdx(loc_[init].offset ? loc_[init].offset : idx(0), 0)) {
    *owned = canFree_[init];
    canFree_[init] = canSteal_[init] = false;  // the slot now belongs to the loop's carry
    pb_.stolen.push_back(loc_[init].buffer);
    return loc_[init].buffer;
  }
  const Type& t = f_.type(init);
  *copy = true;
  return pb_.newTemp(t.dtype, numElements(t.shape));
}

namespace {

Step swapStep(int a, int b) {
  Step s;
  s.kind = StepKind::Swap;
  s.a = a;
  s.b = b;
  return s;
}

/// After a loop body: move each new carry into place (Note [Carry buffers]); returns the
/// number of swaps emitted (they come last).
int finishCarries(ProgramBuilder& pb, const std::vector<Loc>& results, const std::vector<int>& A,
                  const std::vector<int>& B, const std::vector<Type>& types) {
  std::vector<Step> swaps;
  for (size_t j = 0; j < A.size(); ++j) {
    const Loc& r = results[j];
    if (sameLoc(r, Loc{A[j], idx(0)})) continue;
    if (!sameLoc(r, Loc{B[j], idx(0)})) {
      Step c;
      c.kind = StepKind::Copy;
      c.dst = Loc{B[j], idx(0)};
      c.src = r;
      c.elems = numElements(types[j].shape);
      c.carry = true;
      pb.emit(std::move(c));
    }
    swaps.push_back(swapStep(A[j], B[j]));
  }
  int n = static_cast<int>(swaps.size());
  for (Step& s : swaps) pb.emit(std::move(s));
  return n;
}

}  // namespace

void FuncLowering::lowerScan(size_t ei, const Eqn& e) {
  const Attrs& a = e.attrs;
  const Func& body = *e.subs.at(0);
  int nc = a.numConsts, ncar = a.numCarry;
  int nxs = static_cast<int>(e.inputs.size()) - nc - ncar;
  int nys = static_cast<int>(e.outputs.size()) - ncar;
  std::vector<int> A, B;
  std::vector<bool> needCopy, owned;
  std::vector<Type> carryTypes;
  for (int j = 0; j < ncar; ++j) {
    int init = e.inputs[nc + j];
    carryTypes.push_back(f_.type(init));
    bool copy = false, own = true;
    A.push_back(carrySlot(ei, e, init, &copy, &own));
    needCopy.push_back(copy);
    owned.push_back(own);
  }
  for (int j = 0; j < ncar; ++j)
    B.push_back(pb_.newTemp(carryTypes[j].dtype, numElements(carryTypes[j].shape)));
  std::vector<Loc> ys;
  for (int j = 0; j < nys; ++j) ys.push_back(outputLoc(e.outputs[ncar + j]));

  Step loop;
  loop.kind = StepKind::Loop;
  loop.hostVar = pb_.prog.numHostVars++;
  loop.count = a.length;
  ExprP i = hostVar(loop.hostVar);
  if (a.reverse) i = arith(Arith::Sub, idx(a.length - 1), i);

  std::vector<Loc> params;
  std::vector<bool> steal;
  for (int j = 0; j < nc; ++j) {
    params.push_back(loc_[e.inputs[j]]);
    steal.push_back(false);
  }
  for (int j = 0; j < ncar; ++j) {
    params.push_back(Loc{A[j], idx(0)});
    steal.push_back(true);
  }
  for (int j = 0; j < nxs; ++j) {
    int x = e.inputs[nc + ncar + j];
    const Shape& s = f_.type(x).shape;
    int64_t slice = s.empty() ? 1 : numElements(s) / std::max<int64_t>(s[0], 1);
    if (!s.empty() && s[0] == 0) slice = 0;
    params.push_back(Loc{loc_[x].buffer, offsetPlus(loc_[x], arith(Arith::Mul, i, idx(slice)))});
    steal.push_back(false);
  }
  std::vector<std::optional<Loc>> dests;
  for (int j = 0; j < ncar; ++j) dests.push_back(Loc{B[j], idx(0)});
  for (int j = 0; j < nys; ++j) {
    const Shape& s = f_.type(e.outputs[ncar + j]).shape;
    int64_t slice = s[0] == 0 ? 0 : numElements(s) / s[0];
    dests.push_back(Loc{ys[j].buffer, offsetPlus(ys[j], arith(Arith::Mul, i, idx(slice)))});
  }

  std::vector<Step>* outer = pb_.cur;
  pb_.cur = &loop.body;
  size_t stolenBefore = pb_.stolen.size();
  int64_t trips = pb_.trips;
  pb_.trips *= a.length;
  FuncLowering inner(pb_, body, params, steal, dests);
  std::vector<Loc> res = inner.run();
  pb_.trips = trips;
  for (int j = 0; j < nys; ++j)
    if (!sameLoc(res[ncar + j], *dests[ncar + j]))
      pb_.emit(copyStep(*dests[ncar + j], res[ncar + j], body.type(body.results[ncar + j]), false));
  int nswaps = finishCarries(pb_, res, A, B, carryTypes);
  pb_.cur = outer;

  // Which carries read their init in place during a peeled first iteration.
  std::vector<bool> peel(ncar, false);
  bool anyPeel = false;
  if (pb_.opts.peelFirstIteration && a.length >= 1) {
    std::vector<int> stolenInBody(pb_.stolen.begin() + stolenBefore, pb_.stolen.end());
    for (int j = 0; j < ncar; ++j) {
      const Loc& init = loc_[e.inputs[nc + j]];
      bool ok = needCopy[j] && isConstIdx(init.offset ? init.offset : idx(0), 0) &&
                !sameLoc(res[j], Loc{A[j], idx(0)}) &&
                std::find(stolenInBody.begin(), stolenInBody.end(), A[j]) == stolenInBody.end();
      for (size_t k = 0; ok && k < e.inputs.size(); ++k)
        ok = k == static_cast<size_t>(nc + j) || loc_[e.inputs[k]].buffer != init.buffer;
      peel[j] = ok;
      anyPeel = anyPeel || ok;
    }
  }
  for (int j = 0; j < ncar; ++j)
    if (needCopy[j] && !peel[j])
      pb_.emit(copyStep(Loc{A[j], idx(0)}, loc_[e.inputs[nc + j]], carryTypes[j], true));
  if (anyPeel) {
    Step first;
    first.kind = StepKind::Loop;
    first.hostVar = loop.hostVar;
    first.count = 1;
    std::vector<Step> exchange;
    for (int j = 0; j < ncar; ++j)
      if (peel[j]) exchange.push_back(swapStep(A[j], loc_[e.inputs[nc + j]].buffer));
    first.body = exchange;
    size_t keep = loop.body.size() - static_cast<size_t>(nswaps);
    first.body.insert(first.body.end(), loop.body.begin(), loop.body.begin() + keep);
    first.body.insert(first.body.end(), exchange.begin(), exchange.end());
    first.body.insert(first.body.end(), loop.body.begin() + keep, loop.body.end());
    pb_.emit(std::move(first));
    loop.start = 1;
  }
  if (loop.start < loop.count) pb_.emit(std::move(loop));

  for (int j = 0; j < ncar; ++j) {
    int o = e.outputs[j];
    loc_[o] = Loc{A[j], idx(0)};
    canFree_[o] = owned[j];
    canSteal_[o] = true;
    pb_.freeTemp(B[j]);
  }
}

void FuncLowering::lowerWhile(size_t ei, const Eqn& e) {
  const Attrs& a = e.attrs;
  const Func& cond = *e.subs.at(0);
  const Func& body = *e.subs.at(1);
  int nc = a.numConsts, nbc = a.numBodyConsts;
  int ncar = static_cast<int>(e.inputs.size()) - nc - nbc;
  std::vector<int> A, B;
  std::vector<bool> owned;
  std::vector<Type> carryTypes;
  for (int j = 0; j < ncar; ++j) {
    int init = e.inputs[nc + nbc + j];
    carryTypes.push_back(f_.type(init));
    bool copy = false, own = true;
    A.push_back(carrySlot(ei, e, init, &copy, &own));
    owned.push_back(own);
    if (copy) pb_.emit(copyStep(Loc{A.back(), idx(0)}, loc_[init], f_.type(init), true));
  }
  for (int j = 0; j < ncar; ++j)
    B.push_back(pb_.newTemp(carryTypes[j].dtype, numElements(carryTypes[j].shape)));

  Step w;
  w.kind = StepKind::While;
  std::vector<Step>* outer = pb_.cur;

  std::vector<Loc> cparams;
  for (int j = 0; j < nc; ++j) cparams.push_back(loc_[e.inputs[j]]);
  for (int j = 0; j < ncar; ++j) cparams.push_back(Loc{A[j], idx(0)});
  pb_.cur = &w.cond;
  FuncLowering cl(pb_, cond, cparams, std::vector<bool>(cparams.size(), false), {});
  w.flag = cl.run().at(0);

  std::vector<Loc> bparams;
  std::vector<bool> steal;
  for (int j = 0; j < nbc; ++j) {
    bparams.push_back(loc_[e.inputs[nc + j]]);
    steal.push_back(false);
  }
  for (int j = 0; j < ncar; ++j) {
    bparams.push_back(Loc{A[j], idx(0)});
    steal.push_back(true);
  }
  std::vector<std::optional<Loc>> dests;
  for (int j = 0; j < ncar; ++j) dests.push_back(Loc{B[j], idx(0)});
  pb_.cur = &w.body;
  FuncLowering bl(pb_, body, bparams, steal, dests);
  std::vector<Loc> res = bl.run();
  finishCarries(pb_, res, A, B, carryTypes);
  pb_.cur = outer;
  pb_.emit(std::move(w));

  for (int j = 0; j < ncar; ++j) {
    int o = e.outputs[j];
    loc_[o] = Loc{A[j], idx(0)};
    canFree_[o] = owned[j];
    canSteal_[o] = true;
    pb_.freeTemp(B[j]);
  }
}

void FuncLowering::lowerCond(size_t ei, const Eqn& e) {
  Step s;
  s.kind = StepKind::Switch;
  s.flag = loc_[e.inputs[0]];
  std::vector<Loc> params;
  for (size_t j = 1; j < e.inputs.size(); ++j) params.push_back(loc_[e.inputs[j]]);
  std::vector<std::optional<Loc>> dests;
  for (int o : e.outputs) dests.push_back(outputLoc(o));
  std::vector<Step>* outer = pb_.cur;
  for (const FuncPtr& branch : e.subs) {
    s.branches.emplace_back();
    pb_.cur = &s.branches.back();
    FuncLowering bl(pb_, *branch, params, std::vector<bool>(params.size(), false), dests);
    std::vector<Loc> res = bl.run();
    for (size_t j = 0; j < res.size(); ++j)
      if (!sameLoc(res[j], *dests[j]))
        pb_.emit(copyStep(*dests[j], res[j], branch->type(branch->results[j]), false));
  }
  pb_.cur = outer;
  pb_.emit(std::move(s));
}

}  // namespace scn::kir
