// Batching rules of the control-flow ops (scan, while, cond) and the per-lane loop used when
// a gather-like op has batched indices.
#include "jit/transform/batch_rules.hpp"
#include "base/diagnostics.hpp"

namespace scn::batching {

namespace {

std::vector<BDim> dimsOf(const std::vector<BVal>& in, size_t from, size_t count) {
  std::vector<BDim> d;
  for (size_t i = from; i < from + count; ++i) d.push_back(in.at(i).dim);
  return d;
}

std::vector<BDim> concatDims(std::vector<BDim> a, const std::vector<BDim>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Axis 0 for the batched flags, nullopt for the others.
std::vector<BDim> leadingWhere(const std::vector<bool>& batched) {
  std::vector<BDim> d;
  for (bool b : batched) d.push_back(b ? BDim(0) : std::nullopt);
  return d;
}

// A fresh parameter of `f` with the type of `var` in the function `c` builds.
int paramLike(Func& f, const Ctx& c, int var) {
  int p = f.newVar(c.type(var));
  f.params.push_back(p);
  return p;
}

// Per lane: pred ? onTrue : onFalse, where pred is bool[n] and both values are batched at 0.
int selectLanes(Ctx& c, int pred, int onTrue, int onFalse) {
  Shape shape = c.type(onTrue).shape;  // a copy: emit() grows dst.types
  int p = shape.size() == 1 ? pred : c.broadcastTo(pred, shape, {0});
  return c.emit1(Op::Select, {p, onTrue, onFalse});
}

}  // namespace

// Note [Batching carries]
// A loop carry is batched when its initial value is, or when the body makes it depend on a
// batched value (a const, an x slice, another batched carry). We find the set by a fixpoint:
// batch the body with the carries known so far batched (at axis 0), and add every carry whose
// body output came back batched; this grows monotonically, so it ends within numCarry + 1
// rounds. A carry that starts unbatched but ends up batched is broadcast at the init; the body
// is asked (want) to return every batched carry at axis 0, broadcasting a carry it leaves
// unbatched (e.g. one it resets to a constant).

// Scan: consts pass through with their batch axes; batched xs are scanned along axis 0, so their
// per-iteration slices are batched at b-1 (an xs batched at 0 is first moved to axis 1); ys
// batched at b in the body are stacked as b+1.
std::vector<BVal> batchScan(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  size_t nc = e.attrs.numConsts, nk = e.attrs.numCarry, nx = in.size() - nc - nk;
  const Func& body = *e.subs.at(0);
  std::vector<BDim> sliceDims;
  for (size_t i = 0; i < nx; ++i) {
    BDim d = in[nc + nk + i].dim;
    sliceDims.push_back(d ? BDim(*d == 0 ? 0 : *d - 1) : std::nullopt);
  }
  std::vector<bool> carryB;
  for (size_t i = 0; i < nk; ++i) carryB.push_back(in[nc + i].dim.has_value());
  size_t ny = body.results.size() - nk;
  BatchedFunc bf;
  for (;;) {
    std::vector<BDim> inDims =
        concatDims(concatDims(dimsOf(in, 0, nc), leadingWhere(carryB)), sliceDims);
    std::vector<BDim> want = concatDims(leadingWhere(carryB), std::vector<BDim>(ny));
    bf = batchSubFunc(body, inDims, c.n, want, c.span, c.axis);
    bool changed = false;
    for (size_t i = 0; i < nk; ++i)
      if (!carryB[i] && bf.outDims[i]) carryB[i] = changed = true;
    if (!changed) break;
  }
  std::vector<int> vars;
  for (size_t i = 0; i < nc; ++i) vars.push_back(in[i].var);
  for (size_t i = 0; i < nk; ++i)
    vars.push_back(carryB[i] ? c.materialize(in[nc + i], 0) : in[nc + i].var);
  for (size_t i = 0; i < nx; ++i) {
    const BVal& x = in[nc + nk + i];
    vars.push_back(x.dim && *x.dim == 0 ? c.moveTo(x, 1) : x.var);
  }
  std::vector<int> outs = c.emit(e.op, vars, e.attrs, {bf.func});
  std::vector<BVal> res;
  for (size_t i = 0; i < nk; ++i) res.push_back(BVal{outs[i], carryB[i] ? BDim(0) : std::nullopt});
  for (size_t j = 0; j < ny; ++j) {
    BDim d = bf.outDims[nk + j];
    res.push_back(BVal{outs[nk + j], d ? BDim(*d + 1) : std::nullopt});
  }
  return res;
}

// Note [Batched loop predicates]
// When the while predicate depends on batched values, lanes finish at different iterations.
// The batched loop runs while any lane runs: cond' = reduce_or(pred over lanes), and each step
// keeps the carry of the lanes already done: body' = select(pred per lane, body(carry), carry).
// Every carry is then batched (lanes diverge), and body' also needs the cond's consts, so they
// are passed to it ahead of the body's consts. The body runs on finished lanes too and its
// values there are discarded, as in JAX.

std::vector<BVal> batchWhile(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  size_t nc = e.attrs.numConsts, nb = e.attrs.numBodyConsts, nk = in.size() - nc - nb;
  const Func& condF = *e.subs.at(0);
  const Func& bodyF = *e.subs.at(1);
  std::vector<BDim> condConsts = dimsOf(in, 0, nc), bodyConsts = dimsOf(in, nc, nb);
  std::vector<bool> carryB;
  for (size_t i = 0; i < nk; ++i) carryB.push_back(in[nc + nb + i].dim.has_value());
  BatchedFunc body;
  for (;;) {
    body = batchSubFunc(bodyF, concatDims(bodyConsts, leadingWhere(carryB)), c.n,
                        leadingWhere(carryB), c.span, c.axis);
    bool changed = false;
    for (size_t i = 0; i < nk; ++i)
      if (!carryB[i] && body.outDims[i]) carryB[i] = changed = true;
    if (!changed) break;
  }
  BatchedFunc cond = batchSubFunc(condF, concatDims(condConsts, leadingWhere(carryB)), c.n,
                                  {std::nullopt}, c.span, c.axis);
  if (!cond.outDims[0]) {
    std::vector<int> vars;
    for (size_t i = 0; i < nc + nb; ++i) vars.push_back(in[i].var);
    for (size_t i = 0; i < nk; ++i)
      vars.push_back(carryB[i] ? c.materialize(in[nc + nb + i], 0) : in[nc + nb + i].var);
    std::vector<int> outs = c.emit(e.op, vars, e.attrs, {cond.func, body.func});
    std::vector<BVal> res;
    for (size_t i = 0; i < nk; ++i) res.push_back(BVal{outs[i], carryB[i] ? BDim(0) : std::nullopt});
    return res;
  }
  // Batched predicate: every carry batched at 0.
  std::vector<bool> all(nk, true);
  body = batchSubFunc(bodyF, concatDims(bodyConsts, leadingWhere(all)), c.n, leadingWhere(all),
                      c.span, c.axis);
  cond = batchSubFunc(condF, concatDims(condConsts, leadingWhere(all)), c.n, {BDim(0)}, c.span, c.axis);
  std::vector<int> carry;
  for (size_t i = 0; i < nk; ++i) carry.push_back(c.materialize(in[nc + nb + i], 0));

  auto newCond = std::make_shared<Func>();
  newCond->name = condF.name;
  {
    Ctx k{*newCond, c.n, c.span, c.axis};
    std::vector<int> args;
    for (size_t i = 0; i < nc; ++i) args.push_back(paramLike(*newCond, c, in[i].var));
    for (int v : carry) args.push_back(paramLike(*newCond, c, v));
    int pred = inlineFunc(*newCond, *cond.func, args).at(0);
    Attrs a;
    a.axes = {0};
    int any = k.emit1(Op::ReduceOr, {pred}, std::move(a));
    // Under pmap every process must run as many iterations as the others when the loop makes
    // process collectives: the loop runs while a lane of any process runs (Note [Named axes]).
    if (c.axis.group && (usesProcessCollectives(*body.func) || usesProcessCollectives(*cond.func))) {
      Attrs g;
      g.group = c.axis.group;
      any = k.emit1(Op::ProcessMax, {any}, std::move(g));
    }
    newCond->results = {any};
  }
  auto newBody = std::make_shared<Func>();
  newBody->name = bodyF.name;
  {
    Ctx k{*newBody, c.n, c.span, c.axis};
    std::vector<int> condArgs, bodyArgs, carryArgs;
    for (size_t i = 0; i < nc; ++i) condArgs.push_back(paramLike(*newBody, c, in[i].var));
    for (size_t i = 0; i < nb; ++i) bodyArgs.push_back(paramLike(*newBody, c, in[nc + i].var));
    for (int v : carry) carryArgs.push_back(paramLike(*newBody, c, v));
    condArgs.insert(condArgs.end(), carryArgs.begin(), carryArgs.end());
    bodyArgs.insert(bodyArgs.end(), carryArgs.begin(), carryArgs.end());
    int pred = inlineFunc(*newBody, *cond.func, condArgs).at(0);
    std::vector<int> next = inlineFunc(*newBody, *body.func, bodyArgs);
    for (size_t i = 0; i < nk; ++i)
      newBody->results.push_back(selectLanes(k, pred, next[i], carryArgs[i]));
  }
  std::vector<int> vars;
  for (size_t i = 0; i < nc; ++i) vars.push_back(in[i].var);
  for (size_t i = 0; i < nc + nb; ++i) vars.push_back(in[i].var);
  vars.insert(vars.end(), carry.begin(), carry.end());
  Attrs a = e.attrs;
  a.numBodyConsts = static_cast<int>(nc + nb);
  std::vector<int> outs = c.emit(e.op, vars, std::move(a), {newCond, newBody});
  std::vector<BVal> res;
  for (int v : outs) res.push_back(BVal{v, 0});
  return res;
}

// Cond with an unbatched index: the branches are batched, and an output batched in any branch
// is returned batched at 0 by every branch. With a batched index every branch is evaluated (all
// outputs batched at 0) and each lane selects the outputs of its branch: out = out[0], then for
// i = 1..k-1, out = select(index >= i, out[i], out), which also clamps the index into range.
std::vector<BVal> batchCond(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  if (e.attrs.custom) return batchCustom(c, e, in);
  BVal index = in.at(0);
  std::vector<BDim> opDims = dimsOf(in, 1, in.size() - 1);
  std::vector<int> opVars;
  for (size_t i = 1; i < in.size(); ++i) opVars.push_back(in[i].var);
  size_t nout = e.subs.at(0)->results.size();
  if (!index.dim) {
    std::vector<BDim> want(nout);
    std::vector<BatchedFunc> first;
    for (const FuncPtr& br : e.subs) {
      first.push_back(batchSubFunc(*br, opDims, c.n, std::vector<BDim>(nout), c.span, c.axis));
      for (size_t j = 0; j < nout; ++j)
        if (first.back().outDims[j]) want[j] = 0;
    }
    std::vector<FuncPtr> branches;  // a branch whose outputs already agree is kept
    for (size_t k = 0; k < e.subs.size(); ++k)
      branches.push_back(first[k].outDims == want
                             ? first[k].func
                             : batchSubFunc(*e.subs[k], opDims, c.n, want, c.span, c.axis).func);
    std::vector<int> vars{index.var};
    vars.insert(vars.end(), opVars.begin(), opVars.end());
    std::vector<int> outs = c.emit(e.op, vars, e.attrs, branches);
    std::vector<BVal> res;
    for (size_t j = 0; j < nout; ++j) res.push_back(BVal{outs[j], want[j]});
    return res;
  }
  int idx = c.moveTo(index, 0);
  DType idt = c.type(idx).dtype;
  SCN_ASSERT(idt != DType::Bool || e.subs.size() == 2, "a bool cond index selects of two branches");
  std::vector<BDim> want(nout, BDim(0));
  std::vector<int> out;
  for (size_t i = 0; i < e.subs.size(); ++i) {
    BatchedFunc b = batchSubFunc(*e.subs[i], opDims, c.n, want, c.span, c.axis);
    std::vector<int> outs = inlineFunc(c.dst, *b.func, opVars);
    if (i == 0) {
      out = outs;
      continue;
    }
    int pred = idx;
    if (idt != DType::Bool) {
      int bound = c.broadcastTo(c.scalar(idt, static_cast<int64_t>(i)), {c.n}, {});
      pred = c.emit1(Op::Ge, {idx, bound});
    }
    for (size_t j = 0; j < nout; ++j) out[j] = selectLanes(c, pred, outs[j], out[j]);
  }
  std::vector<BVal> res;
  for (int v : out) res.push_back(BVal{v, 0});
  return res;
}

std::vector<BVal> batchLanes(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  auto body = std::make_shared<Func>();
  body->name = std::string(opName(e.op)) + "_lane";
  std::vector<int> bodyIn(in.size(), -1);
  std::vector<int> consts, xs;
  for (int pass = 0; pass < 2; ++pass)  // consts first, then the scanned xs
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i].dim.has_value() != (pass == 1)) continue;
      bodyIn[i] = body->newVar(unbatchedType(c.type(in[i].var), in[i].dim));
      body->params.push_back(bodyIn[i]);
      if (pass == 0) consts.push_back(in[i].var);
      else xs.push_back(c.moveTo(in[i], 0));
    }
  Ctx k{*body, c.n, c.span, c.axis};
  body->results = k.emit(e.op, bodyIn, e.attrs, e.subs);
  Attrs a;
  a.numConsts = static_cast<int>(consts.size());
  a.numCarry = 0;
  a.length = c.n;
  std::vector<int> vars = consts;
  vars.insert(vars.end(), xs.begin(), xs.end());
  std::vector<BVal> res;
  for (int v : c.emit(Op::Scan, vars, std::move(a), {body})) res.push_back(BVal{v, 0});
  return res;
}

}  // namespace scn::batching
