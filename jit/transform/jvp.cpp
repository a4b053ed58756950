// Forward mode over the IR: walks a function's equations carrying a tangent (or a symbolic zero)
// beside each value and applies each equation's JVP rule.
#include <string>

#include "base/diagnostics.hpp"
#include "jit/transform/ad.hpp"

namespace scn {

namespace ad {
namespace {

/// Reports reverse/forward mode through an op without a rule.
[[noreturn]] void noRule(const Eqn& e) {
  fail("E0276", e.span, std::string("cannot differentiate through ") + opName(e.op) + ": it has no derivative rule",
       "wrap the value in stop_gradient(...) if its derivative is not needed");
}


}  // namespace

/// Applies the JVP of `e` (inputs `in`, tangents `tin` in b.dst); returns outputs and tangents.
Dual jvpEqn(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin) {
  bool anyTangent = false;
  for (const Tan& t : tin) anyTangent = anyTangent || t.has_value();
  if (anyTangent && diffKind(e.op) == DiffKind::Unsupported) noRule(e);
  if (anyTangent && isCustomCall(e)) return jvpCustom(b, e, in, tin);
  if (anyTangent && (e.op == Op::Scan || e.op == Op::While || e.op == Op::Cond)) return jvpControl(b, e, in, tin);
  std::vector<int> out = b.emit(e.op, in, e.attrs, e.subs);
  if (!anyTangent) return {out, std::vector<Tan>(out.size(), std::nullopt)};
  return {out, jvpRule(b, e, in, tin, out)};
}

}  // namespace ad

FuncPtr jvpFunc(const Func& f, const std::vector<bool>& wrt) {
  using namespace ad;
  SCN_ASSERT(wrt.size() == f.params.size(), "one wrt flag per parameter");
  auto g = std::make_shared<Func>();
  g->name = f.name.empty() ? "jvp" : "jvp_" + f.name;
  std::vector<int> val(f.types.size(), -1);
  std::vector<Tan> tan(f.types.size());
  for (int p : f.params) g->params.push_back(val[p] = g->newVar(f.type(p)));
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (!wrt[i]) continue;
    int p = f.params[i];
    int t = g->newVar(f.type(p));
    g->params.push_back(t);
    if (differentiable(f.type(p).dtype)) tan[p] = t;
  }
  Builder b{*g, Span{}};
  for (const Eqn& e : f.eqns) {
    std::vector<int> in;
    std::vector<Tan> tin;
    for (int v : e.inputs) {
      in.push_back(val.at(v));
      tin.push_back(tan.at(v));
    }
    b.span = e.span;
    Dual d = jvpEqn(b, e, in, tin);
    for (size_t j = 0; j < e.outputs.size(); ++j) {
      val[e.outputs[j]] = d.primal[j];
      tan[e.outputs[j]] = differentiable(f.type(e.outputs[j]).dtype) ? d.tangent[j] : std::nullopt;
    }
  }
  b.span = Span{};
  for (int r : f.results) g->results.push_back(val.at(r));
  for (int r : f.results) g->results.push_back(b.instantiate(tan.at(r), f.type(r)));
  return g;
}

}  // namespace scn
