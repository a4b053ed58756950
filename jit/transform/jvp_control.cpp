// The JVP rules of the control-flow ops: the JVP of a scan is a scan (of the JVP of its body),
// of a while loop a while loop, of a cond a cond of the branches' JVPs.
#include "base/diagnostics.hpp"
#include "jit/transform/ad.hpp"

namespace scn::ad {

namespace {

std::vector<bool> all(size_t n) { return std::vector<bool>(n, true); }

// Indices 0..n-1 of a list made of `sizes` parts of primals followed by the same parts of
// tangents, reordered to interleave them part by part: p0, t0, p1, t1, ...
std::vector<size_t> interleave(const std::vector<size_t>& sizes) {
  size_t total = 0;
  for (size_t s : sizes) total += s;
  std::vector<size_t> order;
  size_t at = 0;
  for (size_t s : sizes) {
    for (size_t i = 0; i < s; ++i) order.push_back(at + i);
    for (size_t i = 0; i < s; ++i) order.push_back(total + at + i);
    at += s;
  }
  return order;
}

std::vector<int> instantiated(Builder& b, const std::vector<int>& in, const std::vector<Tan>& tin, size_t from, size_t to) {
  std::vector<int> out;
  for (size_t i = from; i < to; ++i) out.push_back(b.instantiate(tin[i], b.type(in[i])));
  return out;
}

void append(std::vector<int>& to, const std::vector<int>& from, size_t a, size_t z) {
  to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(a), from.begin() + static_cast<std::ptrdiff_t>(z));
}

Dual split(const std::vector<int>& out, const std::vector<size_t>& sizes) {
  // out = p0, t0, p1, t1, ... by `sizes`: the primals and the tangents, each in order.
  Dual d;
  size_t at = 0;
  for (size_t s : sizes) {
    for (size_t i = 0; i < s; ++i) d.primal.push_back(out[at + i]);
    for (size_t i = 0; i < s; ++i) d.tangent.push_back(out[at + s + i]);
    at += 2 * s;
  }
  return d;
}

Dual scan(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin) {
  const Func& body = *e.subs[0];
  size_t nc = static_cast<size_t>(e.attrs.numConsts), nk = static_cast<size_t>(e.attrs.numCarry);
  size_t nx = in.size() - nc - nk, ny = body.results.size() - nk;
  FuncPtr jb = jvpFunc(body, all(body.params.size()));
  FuncPtr pb = permuted(*jb, interleave({nc, nk, nx}), interleave({nk, ny}));
  std::vector<int> args;
  std::vector<int> t = instantiated(b, in, tin, 0, in.size());
  append(args, in, 0, nc), append(args, t, 0, nc);
  append(args, in, nc, nc + nk), append(args, t, nc, nc + nk);
  append(args, in, nc + nk, in.size()), append(args, t, nc + nk, in.size());
  Attrs a = e.attrs;
  a.numConsts = static_cast<int>(2 * nc);
  a.numCarry = static_cast<int>(2 * nk);
  return split(b.emit(Op::Scan, std::move(args), std::move(a), {pb}), {nk, ny});
}

// A copy of `f` with extra parameters of these types appended (unused).
FuncPtr withExtraParams(const Func& f, const std::vector<Type>& types) {
  auto g = std::make_shared<Func>(f);
  for (const Type& t : types) g->params.push_back(g->newVar(t));
  return g;
}

Dual whileLoop(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin) {
  size_t nc = static_cast<size_t>(e.attrs.numConsts), nb = static_cast<size_t>(e.attrs.numBodyConsts);
  size_t nk = in.size() - nc - nb;
  const Func& body = *e.subs[1];
  FuncPtr jb = permuted(*jvpFunc(body, all(body.params.size())), interleave({nb, nk}), interleave({nk}));
  std::vector<Type> carryTypes;
  for (size_t i = nc + nb; i < in.size(); ++i) carryTypes.push_back(b.type(in[i]));
  FuncPtr jc = withExtraParams(*e.subs[0], carryTypes);
  std::vector<int> t = instantiated(b, in, tin, 0, in.size());
  std::vector<int> args;
  append(args, in, 0, nc);
  append(args, in, nc, nc + nb), append(args, t, nc, nc + nb);
  append(args, in, nc + nb, in.size()), append(args, t, nc + nb, in.size());
  Attrs a = e.attrs;
  a.numBodyConsts = static_cast<int>(2 * nb);
  return split(b.emit(Op::While, std::move(args), std::move(a), {jc, jb}), {nk});
}

Dual cond(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin) {
  std::vector<FuncPtr> branches;
  for (const FuncPtr& br : e.subs) branches.push_back(jvpFunc(*br, all(br->params.size())));
  std::vector<int> args = in;
  for (int v : instantiated(b, in, tin, 1, in.size())) args.push_back(v);
  std::vector<int> out = b.emit(Op::Cond, std::move(args), e.attrs, std::move(branches));
  size_t m = out.size() / 2;
  Dual d;
  d.primal.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(m));
  d.tangent.assign(out.begin() + static_cast<std::ptrdiff_t>(m), out.end());
  return d;
}

}  // namespace

Dual jvpControl(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin) {
  switch (e.op) {
    case Op::Scan: return scan(b, e, in, tin);
    case Op::While: return whileLoop(b, e, in, tin);
    case Op::Cond: return cond(b, e, in, tin);
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
  internalError(std::string("jvpControl of ") + opName(e.op));
}

}  // namespace scn::ad
