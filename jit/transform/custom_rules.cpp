// Differentiation of the calls of custom_jvp and custom_vjp functions: forward mode applies the
// user's JVP rule, reverse mode its linearisation (custom_jvp) or the user's fwd and bwd
// (custom_vjp); batching batches the rule with the function.
#include <string>

#include "base/diagnostics.hpp"
#include "jit/transform/ad.hpp"
#include "jit/transform/batch_rules.hpp"

namespace scn {

// Note [Custom rules]
// custom_jvp(f, jvp) and custom_vjp(f, fwd, bwd) (lang/builtins_autodiff.cpp) trace f and the
// rule functions where the function is called and emit a one-branch cond whose branch is f and
// whose attrs.custom holds the traced rules. Every backend runs it as the cond it is (the rules
// are never compiled), and an undifferentiated program is unchanged by them. The transformations
// see the rule:
// - jvp: the JVP rule is inlined in place of the cond's JVP: its primal output is the value and
//   its tangent output the tangent (as JAX, the rule's primal output is used, not f's);
// - vjp of custom_jvp: the cond is linearised like any data equation (Note [Autodiff design] in
//   vjp.cpp): its JVP, the inlined rule, is split into the primal part and the linear part, and
//   the linear part is transposed. That needs the rule's tangent output to be linear in the
//   tangents, built from the ops that have transpose rules (JAX's requirement too); otherwise
//   E0367;
// - vjp of custom_vjp: fwd is inlined in the forward sweep (its residuals stay live) and bwd in
//   the backward sweep; forward mode of a custom_vjp function is E0366, as JAX;
// - vmap: the rules are batched with the branch, their outputs batched where f's are; a
//   cotangent bwd returns batched for an unbatched argument is summed over the lanes.
// Captured values are constants to the rules (no tangents, no cotangents).

namespace ad {
namespace {

std::vector<int> slice(const std::vector<int>& v, size_t from, size_t n) {
  return std::vector<int>(v.begin() + static_cast<std::ptrdiff_t>(from),
                          v.begin() + static_cast<std::ptrdiff_t>(from + n));
}

// The inputs of an equation that are linear here and whether its transpose rule accepts them:
// the ops a JVP rule emits on tangents, with no tangent multiplied by a tangent or dividing.
bool transposable(const Eqn& q, const std::vector<bool>& linear) {
  if (!hasTransposeRule(q.op)) return false;
  bool both = linear.size() >= 2 && linear[0] && linear[1];
  if ((q.op == Op::Mul || q.op == Op::DotGeneral) && both) return false;
  if (q.op == Op::Div && linear.size() >= 2 && linear[1]) return false;
  if (q.op == Op::Select && !linear.empty() && linear[0]) return false;
  return true;
}

// E0368 when a value the custom function closes over is being differentiated: the rules give it
// no derivative, which would silently be zero.
void checkCapturedConstant(const Eqn& e, const std::vector<bool>& differentiated) {
  const CustomRule& r = *e.attrs.custom;
  size_t nCap = e.inputs.size() - 1 - static_cast<size_t>(r.numArgs);
  for (size_t i = 1; i <= nCap; ++i)
    if (differentiated[i]) {
      Diagnostic d = makeDiagnostic(
          "E0368", r.span,
          std::string("a ") + (r.kind == CustomRule::Jvp ? "custom_jvp" : "custom_vjp") +
              " function closes over a value that is being differentiated; its rules give that value no derivative",
          "pass the value to the function as an argument (and give the rule its tangent or cotangent)");
      d.notes.push_back({e.span, "the function is called here"});
      throw UserError(std::move(d));
    }
}

// The outputs of an inlined rule as variables of their own: a rule may return one of its inputs
// (the identity's fwd returns x) or one value twice, and reverse mode keys cotangents by
// variable, so an alias would add a cotangent to the input it aliases. `firstNew` is the first
// variable the inlining created; the copy is a reshape to the same shape (linear, no attribute
// that another transformation reads as stop_gradient).
std::vector<int> ownVariables(Builder& b, std::vector<int> vars, size_t firstNew) {
  std::vector<bool> seen(b.dst.types.size(), false);
  for (int& v : vars) {
    if (static_cast<size_t>(v) < firstNew || seen[v]) {
      Attrs a;
      a.shape = b.type(v).shape;
      v = b.emit1(Op::Reshape, {v}, std::move(a));
      seen.resize(b.dst.types.size(), false);
    }
    seen[v] = true;
  }
  return vars;
}

}  // namespace

bool isCustomCall(const Eqn& e) { return e.op == Op::Cond && e.attrs.custom != nullptr; }

Dual jvpCustom(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin) {
  const CustomRule& r = *e.attrs.custom;
  if (r.kind == CustomRule::Vjp)
    fail("E0366", e.span, "cannot apply forward-mode differentiation (jvp, jacfwd, hessian) to a custom_vjp function",
         "give the function a forward rule with custom_jvp, or use reverse mode (grad, vjp, jacrev)");
  std::vector<bool> differentiated;
  for (const Tan& t : tin) differentiated.push_back(t.has_value());
  checkCapturedConstant(e, differentiated);
  size_t nArgs = static_cast<size_t>(r.numArgs), first = in.size() - nArgs;
  std::vector<int> args = in;  // index, captured, arguments, then the arguments' tangents
  args.erase(args.begin());
  for (size_t i = first; i < in.size(); ++i) args.push_back(b.instantiate(tin[i], b.type(in[i])));
  size_t firstNew = b.dst.types.size();
  std::vector<int> out = batching::inlineFunc(b.dst, *r.jvp, args);
  size_t nOut = out.size() / 2;
  Dual d;
  d.primal = ownVariables(b, slice(out, 0, nOut), firstNew);
  for (size_t j = 0; j < nOut; ++j) d.tangent.push_back(out[nOut + j]);
  return d;
}

void checkLinearRule(const Eqn& custom, const std::vector<Eqn>& linearEqns, std::vector<bool> isLinear) {
  for (const Eqn& q : linearEqns) {
    std::vector<bool> linear;
    for (int v : q.inputs) linear.push_back(static_cast<size_t>(v) < isLinear.size() && isLinear[v]);
    if (!transposable(q, linear)) {
      Diagnostic d = makeDiagnostic(
          "E0367", q.span.valid() ? q.span : custom.attrs.custom->span,
          std::string("the custom_jvp rule's tangent output is not linear in the input tangents: reverse mode "
                      "cannot transpose its ") + opName(q.op),
          "compute the tangent as coefficients (from the primals) times the input tangents, e.g. t * sigmoid(x)");
      d.notes.push_back({custom.attrs.custom->span, "the rule was given here"});
      throw UserError(std::move(d));
    }
    for (int v : q.outputs) {
      if (static_cast<size_t>(v) >= isLinear.size()) isLinear.resize(static_cast<size_t>(v) + 1, false);
      isLinear[v] = true;
    }
  }
}

Forward vjpCustom(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& needCt) {
  const CustomRule& r = *e.attrs.custom;
  SCN_ASSERT(r.kind == CustomRule::Vjp, "custom_jvp calls are linearised");
  checkCapturedConstant(e, needCt);
  std::vector<int> operands(in.begin() + 1, in.end());
  size_t firstNew = b.dst.types.size();
  std::vector<int> out = batching::inlineFunc(b.dst, *r.fwd, operands);
  size_t nOut = out.size() - static_cast<size_t>(r.numResiduals);
  size_t nCap = operands.size() - static_cast<size_t>(r.numArgs);
  std::vector<int> captured = slice(operands, 0, nCap), residuals = slice(out, nOut, r.numResiduals);
  std::vector<int> primal = ownVariables(b, slice(out, 0, nOut), firstNew);
  std::shared_ptr<const CustomRule> rule = e.attrs.custom;
  Backward backward = [rule, captured, residuals, primal, needCt, nCap](Builder& bb, const std::vector<Tan>& ctOut) {
    std::vector<int> args = captured;
    args.insert(args.end(), residuals.begin(), residuals.end());
    for (size_t j = 0; j < primal.size(); ++j) args.push_back(bb.instantiate(ctOut[j], bb.type(primal[j])));
    std::vector<int> cts = batching::inlineFunc(bb.dst, *rule->bwd, args);
    std::vector<Tan> ctIn(1 + nCap, std::nullopt);  // the index and the captured values
    for (size_t i = 0; i < cts.size(); ++i) ctIn.push_back(needCt[1 + nCap + i] ? Tan(cts[i]) : Tan{});
    return ctIn;
  };
  return {primal, std::move(backward)};
}

}  // namespace ad

namespace batching {
namespace {

// `f` with results i summed over their batch dimension where sum[i] (a cotangent batched for an
// argument that is not: the sum over the lanes of its per-lane cotangents).
FuncPtr summedOverLanes(const BatchedFunc& f, const std::vector<bool>& sum, Ctx& c) {
  auto g = std::make_shared<Func>();
  g->name = f.func->name;
  std::vector<int> args;
  for (int p : f.func->params) g->params.push_back(args.emplace_back(g->newVar(f.func->type(p))));
  Ctx k{*g, c.n, c.span, c.axis};
  std::vector<int> out = inlineFunc(*g, *f.func, args);
  for (size_t i = 0; i < out.size(); ++i) {
    if (!sum[i]) continue;
    Attrs a;
    a.axes = {*f.outDims[i]};
    out[i] = k.emit1(Op::ReduceSum, {out[i]}, std::move(a));
  }
  g->results = out;
  return g;
}

}  // namespace

std::vector<BVal> batchCustom(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  const CustomRule& r = *e.attrs.custom;
  std::vector<BDim> opDims;
  for (size_t i = 1; i < in.size(); ++i) opDims.push_back(in[i].dim);
  size_t nout = e.subs.at(0)->results.size(), nArgs = static_cast<size_t>(r.numArgs);
  size_t nCap = opDims.size() - nArgs, nRes = static_cast<size_t>(r.numResiduals);
  std::vector<BDim> argDims(opDims.begin() + static_cast<std::ptrdiff_t>(nCap), opDims.end());
  auto unforced = [](size_t k) { return std::vector<BDim>(k); };
  // An output is batched (at 0) where f or the rule makes it batched.
  std::vector<BDim> want(nout);
  auto batchedWhere = [&](const std::vector<BDim>& dims, size_t from) {
    for (size_t j = 0; j < nout; ++j)
      if (dims[from + j]) want[j] = 0;
  };
  batchedWhere(batchSubFunc(*e.subs[0], opDims, c.n, unforced(nout), c.span, c.axis).outDims, 0);
  auto rule = std::make_shared<CustomRule>(r);
  if (r.kind == CustomRule::Jvp) {
    std::vector<BDim> dims = opDims;
    dims.insert(dims.end(), argDims.begin(), argDims.end());  // a tangent is batched like its primal
    BatchedFunc first = batchSubFunc(*r.jvp, dims, c.n, unforced(2 * nout), c.span, c.axis);
    batchedWhere(first.outDims, 0);
    batchedWhere(first.outDims, nout);
    std::vector<BDim> both = want;
    both.insert(both.end(), want.begin(), want.end());
    rule->jvp = batchSubFunc(*r.jvp, dims, c.n, both, c.span, c.axis).func;
  } else {
    batchedWhere(batchSubFunc(*r.fwd, opDims, c.n, unforced(nout + nRes), c.span, c.axis).outDims, 0);
    std::vector<BDim> wantFwd = want;
    wantFwd.resize(nout + nRes);  // residuals stay where the rules put them
    BatchedFunc fwd = batchSubFunc(*r.fwd, opDims, c.n, wantFwd, c.span, c.axis);
    rule->fwd = fwd.func;
    std::vector<BDim> dims(opDims.begin(), opDims.begin() + static_cast<std::ptrdiff_t>(nCap));
    dims.insert(dims.end(), fwd.outDims.begin() + static_cast<std::ptrdiff_t>(nout), fwd.outDims.end());
    dims.insert(dims.end(), want.begin(), want.end());  // a cotangent is batched like its output
    BatchedFunc bwd = batchSubFunc(*r.bwd, dims, c.n, argDims, c.span, c.axis);
    std::vector<bool> sum(nArgs, false);
    bool anySum = false;
    for (size_t i = 0; i < nArgs; ++i) anySum = anySum || (sum[i] = !argDims[i] && bwd.outDims[i]);
    rule->bwd = anySum ? summedOverLanes(bwd, sum, c) : bwd.func;
  }
  Attrs a = e.attrs;
  a.custom = rule;
  std::vector<int> vars;
  for (const BVal& v : in) vars.push_back(v.var);
  std::vector<int> outs =
      c.emit(e.op, vars, std::move(a), {batchSubFunc(*e.subs[0], opDims, c.n, want, c.span, c.axis).func});
  std::vector<BVal> res;
  for (size_t j = 0; j < nout; ++j) res.push_back(BVal{outs[j], want[j]});
  return res;
}

}  // namespace batching
}  // namespace scn
