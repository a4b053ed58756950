// Reverse mode of the control-flow ops (Note [Autodiff design] in vjp.cpp): a scan stacks the
// carry entering each step and a reversed scan runs the body's VJP; a cond runs the VJP of the
// branch it took; a while loop is an error.
#include "base/diagnostics.hpp"
#include "jit/transform/ad.hpp"
#include "jit/transform/batch_rules.hpp"

namespace scn::ad {

namespace {

std::vector<bool> all(size_t n) { return std::vector<bool>(n, true); }

std::vector<int> slice(const std::vector<int>& v, size_t a, size_t z) {
  return std::vector<int>(v.begin() + static_cast<std::ptrdiff_t>(a), v.begin() + static_cast<std::ptrdiff_t>(z));
}

std::vector<Tan> keepNeeded(const std::vector<int>& cts, const std::vector<bool>& need) {
  std::vector<Tan> r;
  for (size_t i = 0; i < cts.size(); ++i) r.push_back(need[i] ? Tan(cts[i]) : Tan{});
  return r;
}

// The backward body: (consts, ct carry, ct consts so far, stored carry, x, ct y) ->
// (ct carry before the step, ct consts so far, ct x).
FuncPtr backwardBody(const Func& body, size_t nc, size_t nk, size_t nx) {
  size_t ny = body.results.size() - nk;
  FuncPtr vb = vjpFunc(body, all(body.params.size()));
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
  std::vector<int> c = params(0, nc, body), ctk = params(nc, nk, body), acc = params(0, nc, body),
                   ks = params(nc, nk, body), xs = params(nc + nk, nx, body);
  std::vector<int> cty;
  for (size_t j = 0; j < ny; ++j) {
    cty.push_back(g->newVar(body.type(body.results[nk + j])));
    g->params.push_back(cty.back());
  }
  std::vector<int> args = c;
  args.insert(args.end(), ks.begin(), ks.end());
  args.insert(args.end(), xs.begin(), xs.end());
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

Forward scan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need) {
  const Func& body = *e.subs[0];
  size_t nc = static_cast<size_t>(e.attrs.numConsts), nk = static_cast<size_t>(e.attrs.numCarry);
  size_t nx = in.size() - nc - nk, ny = body.results.size() - nk;
  // Forward: the carry entering each step becomes extra ys.
  auto fwd = std::make_shared<Func>(body);
  for (size_t i = 0; i < nk; ++i) fwd->results.push_back(body.params[nc + i]);
  std::vector<int> out = b.emit(Op::Scan, in, e.attrs, {fwd});
  std::vector<int> primal = slice(out, 0, nk + ny), stored = slice(out, nk + ny, out.size());
  Eqn eq = e;
  Backward backward = [eq, in, need, stored, nc, nk, nx, ny](Builder& bb, const std::vector<Tan>& ct) {
    std::vector<int> args = slice(in, 0, nc);
    for (size_t i = 0; i < nk; ++i) args.push_back(bb.instantiate(ct[i], bb.type(in[nc + i])));
    for (size_t i = 0; i < nc; ++i) args.push_back(bb.zeros(bb.type(in[i])));
    args.insert(args.end(), stored.begin(), stored.end());
    for (size_t i = nc + nk; i < in.size(); ++i) args.push_back(in[i]);
    for (size_t j = 0; j < ny; ++j) {
      Type yt = eq.subs[0]->type(eq.subs[0]->results[nk + j]);
      yt.shape.insert(yt.shape.begin(), eq.attrs.length);
      args.push_back(bb.instantiate(ct[nk + j], yt));
    }
    Attrs a = eq.attrs;
    a.numConsts = static_cast<int>(nc);
    a.numCarry = static_cast<int>(nk + nc);
    a.reverse = !a.reverse;
    std::vector<int> r = bb.emit(Op::Scan, std::move(args), std::move(a), {backwardBody(*eq.subs[0], nc, nk, nx)});
    std::vector<int> cts = slice(r, nk, nk + nc);  // consts
    std::vector<int> ctk = slice(r, 0, nk), ctx = slice(r, nk + nc, r.size());
    cts.insert(cts.end(), ctk.begin(), ctk.end());
    cts.insert(cts.end(), ctx.begin(), ctx.end());
    return keepNeeded(cts, need);
  };
  return {primal, backward};
}

Forward cond(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need) {
  std::vector<int> out = b.emit(Op::Cond, in, e.attrs, e.subs);
  Eqn eq = e;
  Backward backward = [eq, in, need, out](Builder& bb, const std::vector<Tan>& ct) {
    std::vector<FuncPtr> branches;
    for (const FuncPtr& br : eq.subs) {
      auto v = std::make_shared<Func>(*vjpFunc(*br, all(br->params.size())));
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

}  // namespace

Forward vjpControl(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& need) {
  switch (e.op) {
    case Op::Scan: return scan(b, e, in, need);
    case Op::Cond: return cond(b, e, in, need);
    case Op::While:
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
      break;  // only control flow reaches here
  }
  internalError(std::string("vjpControl of ") + opName(e.op));
}

}  // namespace scn::ad
