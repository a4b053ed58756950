// The widen-low-precision rewrite (Note [Low-precision floats] in jit/scalar/lowp.inc).
#include "jit/widen.hpp"

#include <memory>

#include "jit/interp_kernels.hpp"

namespace scn {

namespace {

bool anyLowPrecision(const std::vector<Type>& types) {
  for (const Type& t : types)
    if (isLowPrecision(t.dtype)) return true;
  return false;
}

bool allBf16(const std::vector<Type>& types) {
  for (const Type& t : types)
    if (t.dtype != DType::BF16) return false;
  return true;
}

Type widened(Type t) {
  if (isLowPrecision(t.dtype)) t.dtype = DType::F32;
  return t;
}

Eqn convertEqn(int from, int to, DType dtype, Span span) {
  Eqn c;
  c.op = Op::Convert;
  c.inputs = {from};
  c.outputs = {to};
  c.attrs.dtype = dtype;
  c.span = span;
  return c;
}

FuncPtr deepCopy(const Func& f) {
  auto g = std::make_shared<Func>(f);
  for (Eqn& e : g->eqns)
    for (FuncPtr& s : e.subs) s = deepCopy(*s);
  return g;
}

// An associative_scan's combiner, retyped: it takes and gives f32 where it took and gave a 16-bit
// float, converting at its edges (its own eqns are then widened like any others).
FuncPtr widenedCombiner(const Func& combiner) {
  FuncPtr g = deepCopy(combiner);
  std::vector<Eqn> head;
  for (int& p : g->params) {
    DType low = g->type(p).dtype;
    if (!isLowPrecision(low)) continue;
    int wide = g->newVar(widened(g->type(p)));
    head.push_back(convertEqn(wide, p, low, Span{}));
    p = wide;
  }
  g->eqns.insert(g->eqns.begin(), head.begin(), head.end());
  for (int& r : g->results) {
    if (!isLowPrecision(g->type(r).dtype)) continue;
    int wide = g->newVar(widened(g->type(r)));
    g->eqns.push_back(convertEqn(r, wide, DType::F32, Span{}));
    r = wide;
  }
  return g;
}

/// e as converts to f32, e on f32 values, converts back (appended to `out`).
void widenEqn(Func& f, Eqn e, std::vector<Eqn>& out) {
  for (int& v : e.inputs) {
    if (!isLowPrecision(f.type(v).dtype)) continue;
    int wide = f.newVar(widened(f.type(v)));
    out.push_back(convertEqn(v, wide, DType::F32, e.span));
    v = wide;
  }
  if (e.op == Op::Iota) e.attrs.dtype = widened(Type{e.attrs.dtype, {}}).dtype;
  if (e.op == Op::Constant && isLowPrecision(e.attrs.value->dtype))
    e.attrs.value = std::make_shared<Array>(
        interp::convertOp(*e.attrs.value, Type{DType::F32, e.attrs.value->shape}));
  if (e.op == Op::AssocScan) {
    e.subs.at(0) = widenedCombiner(*e.subs.at(0));
    widenLowPrecision(*e.subs.at(0));
  }
  std::vector<Eqn> back;
  for (int& o : e.outputs) {
    DType low = f.type(o).dtype;
    if (!isLowPrecision(low)) continue;
    int wide = f.newVar(widened(f.type(o)));
    back.push_back(convertEqn(wide, o, low, e.span));
    o = wide;
  }
  out.push_back(std::move(e));
  for (Eqn& c : back) out.push_back(std::move(c));
}

}  // namespace

bool widensLowPrecision(Op op, const std::vector<Type>& in, const std::vector<Type>& out,
                        const WidenOptions& opts) {
  if (op == Op::DotGeneral && opts.keepBf16Products && allBf16(in) && allBf16(out)) return false;
  switch (opInfo(op).category) {
    case OpCategory::Convert: case OpCategory::Scan: case OpCategory::While: case OpCategory::Cond:
      return false;
    default: return anyLowPrecision(in) || anyLowPrecision(out);
  }
}

bool needsWidening(const Func& f, const WidenOptions& opts) {
  for (const Eqn& e : f.eqns) {
    std::vector<Type> in, out;
    for (int v : e.inputs) in.push_back(f.type(v));
    for (int v : e.outputs) out.push_back(f.type(v));
    if (widensLowPrecision(e.op, in, out, opts)) return true;
    for (const FuncPtr& s : e.subs)
      if (needsWidening(*s, opts)) return true;
  }
  return false;
}

FuncPtr widenedCopy(const Func& f, const WidenOptions& opts) {
  FuncPtr g = deepCopy(f);
  widenLowPrecision(*g, opts);
  return g;
}

bool widenLowPrecision(Func& f, const WidenOptions& opts) {
  bool changed = false;
  std::vector<Eqn> eqns;
  for (Eqn& e : f.eqns) {
    std::vector<Type> in, out;
    for (int v : e.inputs) in.push_back(f.type(v));
    for (int v : e.outputs) out.push_back(f.type(v));
    if (!widensLowPrecision(e.op, in, out, opts)) {
      for (FuncPtr& s : e.subs) changed = widenLowPrecision(*s, opts) || changed;
      eqns.push_back(std::move(e));
      continue;
    }
    widenEqn(f, std::move(e), eqns);
    changed = true;
  }
  f.eqns = std::move(eqns);
  return changed;
}

}  // namespace scn
