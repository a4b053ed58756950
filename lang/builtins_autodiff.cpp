// Automatic differentiation builtins: grad, value_and_grad, jacfwd, jacrev, hessian, jvp, vjp,
// stop_gradient, custom_jvp and custom_vjp. Each traces the function it is given and applies an IR transformation
// (jit/autodiff.hpp); the function values they return compose with vmap and with each other.
#include <algorithm>
#include <functional>

#include "jit/autodiff.hpp"
#include "lang/builtins_autodiff.hpp"

namespace scn {

const char* AutodiffFn::name() const {
  switch (kind) {
    case Grad: return "grad";
    case ValueAndGrad: return "value_and_grad";
    case Jacfwd: return "jacfwd";
    case Jacrev: return "jacrev";
    case VjpFn: return "vjp";
    case CustomJvp: return "custom_jvp";
    case CustomVjp: return "custom_vjp";
    case Checkpoint: return "checkpoint";
  }
  return "grad";
}

Value functionValue(Value fn, AutodiffFn d, Span span) {
  auto v = std::make_shared<VmapFn>();
  v->fn = std::move(fn);
  v->autodiff = std::make_shared<AutodiffFn>(std::move(d));
  v->span = span;
  Value r;
  r.kind = ValueKind::Vmap;
  r.vmap = v;
  return r;
}

namespace {

// argnums=: an int or a tuple of ints (static).
void readArgnums(Args& a, size_t i, AutodiffFn& d) {
  if (!a.has(i)) return;
  Value v = a.sequence(i);
  d.argnums.clear();
  if (v.isTuple()) {
    d.argnumsTuple = true;
    for (const Value& x : *v.elems) {
      if (!x.isArray()) fail("E0275", a.span(i), "argnums must be an int or a tuple of ints but has " + describe(x));
      d.argnums.push_back(staticInt(*x.array, StaticUse::Other, a.span(i), "argnums"));
    }
    return;
  }
  d.argnums.push_back(a.integer(i, 0));
}

Value makeTransform(Evaluator& ev, CallArgs& c, AutodiffFn::Kind kind, const char* name) {
  bool gradLike = kind == AutodiffFn::Grad || kind == AutodiffFn::ValueAndGrad;
  Args a(ev, c, name, gradLike ? std::vector<std::string>{"f", "argnums=", "has_aux=", "holomorphic="}
                               : std::vector<std::string>{"f", "argnums=", "holomorphic="});
  AutodiffFn d;
  d.kind = kind;
  readArgnums(a, 1, d);
  if (gradLike) d.hasAux = a.boolean(2, false);
  d.holomorphic = a.boolean(gradLike ? 3 : 2, false);
  return functionValue(a.callable(0), d, c.span);
}

Value grad(Evaluator& ev, CallArgs& c) { return makeTransform(ev, c, AutodiffFn::Grad, "grad"); }
Value valueAndGrad(Evaluator& ev, CallArgs& c) { return makeTransform(ev, c, AutodiffFn::ValueAndGrad, "value_and_grad"); }
Value jacfwd(Evaluator& ev, CallArgs& c) { return makeTransform(ev, c, AutodiffFn::Jacfwd, "jacfwd"); }
Value jacrev(Evaluator& ev, CallArgs& c) { return makeTransform(ev, c, AutodiffFn::Jacrev, "jacrev"); }

// hessian(f, argnums=0) = jacfwd(jacrev(f, argnums), argnums)
Value hessian(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "hessian", {"f", "argnums="});
  AutodiffFn d;
  readArgnums(a, 1, d);
  d.kind = AutodiffFn::Jacrev;
  Value inner = functionValue(a.callable(0), d, c.span);
  d.kind = AutodiffFn::Jacfwd;
  return functionValue(inner, d, c.span);
}

/// Values placed on the leaves of a tree (rebuild takes arrays; this takes any values).
Value rebuildValues(const TreeDef& def, const std::vector<Value>& leaves, size_t& pos) {
  switch (def.kind) {
    case TreeDef::Leaf: return leaves.at(pos++);
    case TreeDef::None: return Value::none();
    case TreeDef::Tuple: {
      std::vector<Value> xs;
      for (const TreeDef& ch : def.children) xs.push_back(rebuildValues(ch, leaves, pos));
      return Value::ofTuple(std::move(xs));
    }
  }
  return Value::none();
}

/// "f32[2]" for one array, "(f32[2], i32[])" for a tuple: the types of a tree's leaves.
std::string treeTypes(const TreeDef& def, const std::vector<AVal>& leaves, size_t& pos) {
  switch (def.kind) {
    case TreeDef::Leaf: return typeString(leaves.at(pos++).type);
    case TreeDef::None: return "None";
    case TreeDef::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < def.children.size(); ++i) s += (i ? ", " : "") + treeTypes(def.children[i], leaves, pos);
      return s + (def.children.size() == 1 ? ",)" : ")");
    }
  }
  return "";
}
std::string treeTypes(const TreeDef& def, const std::vector<AVal>& leaves) {
  size_t pos = 0;
  return treeTypes(def, leaves, pos);
}

/// Runs a transformation of the traced function; a user error it raises (reverse mode
/// through a while loop, an op without a rule) gets a note at the call being differentiated.
template <typename F>
FuncPtr transforming(const char* name, Span call, F&& transform, const Value& fn) {
  try {
    FuncPtr g = transform();
    // `:ir grad(f)(x)` shows `func grad_f(...)`.
    g->name = std::string(name) + (fn.kind == ValueKind::Closure && fn.closure->name != "<lambda>" ? "_" + fn.closure->name : "");
    return g;
  } catch (UserError& e) {
    e.diag.notes.push_back({call, std::string("while computing ") + name + " of the function called here"});
    throw;
  }
}

Value zerosLike(const Type& t) {
  Array z(t.dtype, t.shape);
  for (int64_t i = 0; i < z.size(); ++i) z.setDouble(i, 0);
  return arr(AVal::of(std::move(z)));
}

}  // namespace


TracedCall traceAt(Evaluator& ev, const Value& fn, const std::vector<Value>& args, const std::vector<Span>& spans,
                   Span span, const std::string& what, const std::vector<bool>& keepStatic) {
  TracedCall tc;
  std::vector<Value> abstract;
  for (size_t i = 0; i < args.size(); ++i) {
    tc.args.push_back(flat(args[i], i < spans.size() ? spans[i] : span, (what + " argument").c_str()));
    bool keep = i < keepStatic.size() && keepStatic[i];
    std::vector<AVal> ph;
    for (const AVal& l : tc.args.back().leaves) ph.push_back(keep ? l : placeholder(l));
    size_t pos = 0;
    abstract.push_back(rebuild(tc.args.back().def, ph, pos));
  }
  bool anyKept = std::find(keepStatic.begin(), keepStatic.end(), true) != keepStatic.end();
  tc.t = ev.traceFunction(fn, abstract, span, what + " function", "a differentiated argument", anyKept);
  tc.leaves = tc.t.trace->captured();
  for (const Flat& f : tc.args) {
    tc.firstLeaf.push_back(tc.leaves.size());
    tc.leaves.insert(tc.leaves.end(), f.leaves.begin(), f.leaves.end());
  }
  return tc;
}

namespace {

// Why a differentiated leaf of dtype t is refused (JAX's rules), or "": floats and complex
// numbers for grad and jacrev, floats for jacfwd, complex numbers under holomorphic=true.
std::string inputRefusal(const AutodiffFn& d, DType t) {
  if (d.holomorphic)
    return isComplex(t) ? "" : std::string(d.name()) + " with holomorphic=true requires complex inputs";
  if (isFloat(t)) return "";
  if (isComplex(t) && d.kind != AutodiffFn::Jacfwd) return "";
  return std::string(d.name()) + " requires real-valued inputs";
}

std::string inputHelp(const AutodiffFn& d, DType t) {
  if (d.holomorphic) return "convert it with astype(x, c64), or drop holomorphic=true for a real function";
  if (isComplex(t))
    return "pass holomorphic=true for the complex derivative f'(z), or use jvp for a function that is not "
           "holomorphic";
  return "differentiate with respect to float arguments only: convert it with astype(x, f32), or leave it out "
         "of argnums";
}

// Per positional argument, whether argnums leaves it alone, so that its static leaves stay
// static (an out-of-range argnums is left to wrtMask's E0275).
std::vector<bool> undifferentiatedArgs(const AutodiffFn& d, size_t count) {
  std::vector<bool> out(count, true);
  for (int64_t n : d.argnums) {
    int64_t k = static_cast<int64_t>(count), i = n < 0 ? n + k : n;
    if (i >= 0 && i < k) out[static_cast<size_t>(i)] = false;
  }
  return out;
}

// Which parameters of the traced function are differentiated: the leaves of the argnums
// arguments, of the dtypes inputRefusal admits (E0277).
std::vector<bool> wrtMask(const TracedCall& tc, const AutodiffFn& d, CallArgs& c, Span fnSpan) {
  std::vector<bool> wrt(tc.leaves.size(), false);
  for (int64_t n : d.argnums) {
    int64_t k = static_cast<int64_t>(tc.args.size());
    if (n < -k || n >= k)
      fail("E0275", fnSpan,
           std::string(d.name()) + " argnums=" + std::to_string(n) + " is out of range for a function called with " +
               std::to_string(k) + " argument" + (k == 1 ? "" : "s"),
           "argnums counts the positional arguments from 0");
    size_t i = static_cast<size_t>(n < 0 ? n + k : n);
    const Flat& f = tc.args[i];
    for (size_t j = 0; j < f.leaves.size(); ++j) {
      DType t = f.leaves[j].type.dtype;
      std::string refusal = inputRefusal(d, t);
      if (!refusal.empty())
        fail("E0277", i < c.posSpans.size() ? c.posSpans[i] : c.span,
             refusal + " but argument " + std::to_string(i) + " has type " + typeString(f.leaves[j].type),
             inputHelp(d, t));
      wrt[tc.firstLeaf[i] + j] = true;
    }
  }
  return wrt;
}

// The gradients (or Jacobian parts) of the argnums arguments from one value per
// differentiated leaf, in argnums order, shaped like the arguments.
Value perArgnum(const TracedCall& tc, const AutodiffFn& d, const std::vector<Value>& perLeaf, size_t& pos) {
  std::vector<Value> out;
  std::vector<bool> seen(tc.args.size(), false);
  std::vector<Value> byArg(tc.args.size());
  // perLeaf follows the parameter order: arguments in order, whatever the argnums order.
  for (size_t i = 0; i < tc.args.size(); ++i) {
    bool wanted = false;
    for (int64_t n : d.argnums)
      wanted = wanted || static_cast<size_t>(n < 0 ? n + static_cast<int64_t>(tc.args.size()) : n) == i;
    if (!wanted) continue;
    byArg[i] = rebuildValues(tc.args[i].def, perLeaf, pos);
    seen[i] = true;
  }
  for (int64_t n : d.argnums) out.push_back(byArg[static_cast<size_t>(n < 0 ? n + static_cast<int64_t>(tc.args.size()) : n)]);
  return d.argnumsTuple ? Value::ofTuple(std::move(out)) : out.at(0);
}

Value applyGrad(Evaluator& ev, const VmapFn& v, const AutodiffFn& d, CallArgs& c) {
  TracedCall tc = traceAt(ev, v.fn, c.pos, c.posSpans, v.span, d.name(), undifferentiatedArgs(d, c.pos.size()));
  std::vector<bool> wrt = wrtMask(tc, d, c, v.span);
  const TreeDef& out = tc.t.outTree;
  if (d.hasAux && (out.kind != TreeDef::Tuple || out.children.size() != 2))
    fail("E0279", v.span,
         std::string(d.name()) + "(has_aux=true) needs a function that returns a pair (output, aux) but it returned " +
             treeTypes(out, tc.t.outLeaves),
         "return a tuple `(loss, aux)`, or drop has_aux=true");
  const TreeDef& valueTree = d.hasAux ? out.children[0] : out;
  // The value is the first leaf when it is a leaf at all (a function may return no leaves: `()`).
  bool leaf = valueTree.kind == TreeDef::Leaf && !tc.t.outLeaves.empty();
  DType vt = leaf ? tc.t.outLeaves[0].type.dtype : DType::F32;
  bool scalar = leaf && tc.t.outLeaves[0].type.shape.empty();
  if (d.holomorphic && (!scalar || !isComplex(vt)))
    fail("E0278", v.span,
         std::string(d.name()) + "(holomorphic=true) requires a complex scalar output but the function returned " +
             treeTypes(out, tc.t.outLeaves),
         scalar ? "a real output is not holomorphic: drop holomorphic=true" : "reduce the output to one number (sum)");
  if (!d.holomorphic && (!scalar || !isFloat(vt)))
    fail("E0278", v.span,
         std::string(d.name()) + " requires a real scalar output but the function returned " +
             treeTypes(out, tc.t.outLeaves),
         valueTree.kind == TreeDef::None ? "the function returns nothing (its body ends with a `let`); end it with the "
                                           "value to differentiate"
         : !scalar || isFloat(vt)        ? "reduce the output to one float (sum, mean), or use jacrev or vjp for other outputs"
         : isComplex(vt)        ? "pass holomorphic=true for the complex derivative f'(z), or take real(y) or abs(y) "
                                  "for a real loss, or use vjp"
                                : "compute the output in floats (astype(y, f32)); an integer output has no gradient");
  FuncPtr vjp = transforming(d.name(), c.span, [&] { return vjpFunc(*tc.t.func, wrt, ev.host().vjp); }, v.fn);
  std::vector<AVal> args = tc.leaves;
  args.push_back(AVal::of(Array::scalar(vt, 1)));
  for (size_t j = 1; j < tc.t.outLeaves.size(); ++j) args.push_back(*zerosLike(tc.t.outLeaves[j].type).array);
  std::vector<AVal> res = ev.tracer().call(vjp, args, c.span);
  size_t nOut = tc.t.outLeaves.size();
  std::vector<Value> grads;
  for (size_t j = nOut; j < res.size(); ++j) grads.push_back(arr(res[j]));
  size_t pos = 0;
  Value g = perArgnum(tc, d, grads, pos);
  pos = 0;
  Value result = rebuild(out, std::vector<AVal>(res.begin(), res.begin() + static_cast<std::ptrdiff_t>(nOut)), pos);
  if (d.kind == AutodiffFn::ValueAndGrad) return Value::ofTuple({result, g});
  return d.hasAux ? Value::ofTuple({g, (*result.elems)[1]}) : g;
}

Value applyJacobian(Evaluator& ev, const VmapFn& v, const AutodiffFn& d, CallArgs& c) {
  TracedCall tc = traceAt(ev, v.fn, c.pos, c.posSpans, v.span, d.name(), undifferentiatedArgs(d, c.pos.size()));
  std::vector<bool> wrt = wrtMask(tc, d, c, v.span);
  bool forward = d.kind == AutodiffFn::Jacfwd;
  for (const AVal& o : tc.t.outLeaves) {  // JAX's output rules: complex under holomorphic only
    DType t = o.type.dtype;
    if (d.holomorphic ? !isComplex(t) : (!forward && isComplex(t)))
      fail("E0278", v.span,
           std::string(d.name()) + (d.holomorphic ? "(holomorphic=true) requires complex outputs" : " requires real outputs") +
               " but the function returned " + treeTypes(tc.t.outTree, tc.t.outLeaves),
           d.holomorphic ? "drop holomorphic=true for a real function"
                         : "pass holomorphic=true for the complex derivative f'(z), or use vjp");
  }
  FuncPtr jac = transforming(d.name(), c.span, [&] { return jacobianFunc(*tc.t.func, wrt, forward, ev.host().vjp); }, v.fn);
  std::vector<AVal> res = ev.tracer().call(jac, tc.leaves, c.span);
  size_t perOut = 0;
  for (bool w : wrt) perOut += w;
  std::vector<Value> perOutput;
  for (size_t o = 0; o < tc.t.outLeaves.size(); ++o) {
    std::vector<Value> parts;
    for (size_t k = 0; k < perOut; ++k) parts.push_back(arr(res.at(o * perOut + k)));
    size_t pos = 0;
    perOutput.push_back(perArgnum(tc, d, parts, pos));
  }
  size_t pos = 0;
  return rebuildValues(tc.t.outTree, perOutput, pos);
}

// The function vjp returns: the cotangents of the primals it was made at, for a cotangent of
// the output.
Value applyVjpFn(Evaluator& ev, const VmapFn& v, const AutodiffFn& d, CallArgs& c) {
  TracedCall tc = traceAt(ev, v.fn, d.primals, {}, v.span, "vjp");
  if (c.pos.size() != 1 || !c.kw.empty())
    fail("E0281", c.span, "the function vjp returns takes one cotangent (shaped like the output) but got " +
                              std::to_string(c.pos.size()) + " arguments");
  Flat ct = flat(c.pos[0], c.posSpans.empty() ? c.span : c.posSpans[0], "vjp cotangent");
  bool same = ct.def == tc.t.outTree && ct.leaves.size() == tc.t.outLeaves.size();
  for (size_t j = 0; same && j < ct.leaves.size(); ++j) same = ct.leaves[j].type == tc.t.outLeaves[j].type;
  if (!same) {
    fail("E0281", c.span, "the vjp cotangent must match the output " + treeTypes(tc.t.outTree, tc.t.outLeaves) +
                              " but got " + treeTypes(ct.def, ct.leaves),
         "pass one cotangent per output, of its shape and dtype (e.g. ones_like(out))");
  }
  std::vector<bool> wrt(tc.leaves.size(), false);
  for (size_t i = tc.t.trace->captured().size(); i < wrt.size(); ++i)
    wrt[i] = isFloat(tc.leaves[i].type.dtype) || isComplex(tc.leaves[i].type.dtype);
  FuncPtr vjp = transforming("vjp", c.span, [&] { return vjpFunc(*tc.t.func, wrt, ev.host().vjp); }, v.fn);
  std::vector<AVal> args = concatLeaves(tc.leaves, ct.leaves);
  std::vector<AVal> res = ev.tracer().call(vjp, args, c.span);
  std::vector<Value> perLeaf;
  size_t at = tc.t.outLeaves.size();
  for (size_t i = tc.t.trace->captured().size(); i < wrt.size(); ++i)
    perLeaf.push_back(wrt[i] ? arr(res.at(at++)) : zerosLike(tc.leaves[i].type));
  std::vector<Value> out;
  size_t pos = 0;
  for (const Flat& f : tc.args) out.push_back(rebuildValues(f.def, perLeaf, pos));
  return Value::ofTuple(std::move(out));
}

// vjp(f, primals...) -> (f(primals...), vjp_fn)
Value vjpBuiltin(Evaluator& ev, CallArgs& c) {
  if (c.pos.empty()) fail("E0220", c.span, "vjp(f, primals...) needs a function and its arguments");
  if (!c.kw.empty()) fail("E0221", c.kwSpans[0], "vjp takes positional arguments only");
  if (!c.pos[0].isCallable()) fail("E0216", c.posSpans[0], describe(c.pos[0]) + " is not callable");
  CallArgs call;
  call.pos.assign(c.pos.begin() + 1, c.pos.end());
  call.posSpans.assign(c.posSpans.begin() + 1, c.posSpans.end());
  call.span = c.span;
  Value out = ev.call(c.pos[0], call);
  AutodiffFn d;
  d.kind = AutodiffFn::VjpFn;
  d.primals = call.pos;
  return Value::ofTuple({out, functionValue(c.pos[0], d, c.span)});
}

// jvp(f, primals, tangents) -> (f(primals...), the tangent of the output)
Value jvpBuiltin(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "jvp", {"f", "primals", "tangents"});
  const Value& p = a.get(1);
  const Value& t = a.get(2);
  if (!p.isTuple() || !t.isTuple())
    fail("E0280", a.span(p.isTuple() ? 2 : 1), "jvp takes its primals and tangents as tuples but got " + describe(p.isTuple() ? t : p),
         "write one-element tuples with a comma: jvp(f, (x,), (dx,))");
  TracedCall tc = traceAt(ev, a.callable(0), *p.elems, {}, c.span, "jvp");
  Flat tan = flat(t, a.span(2), "jvp tangents");
  Flat prim = flat(p, a.span(1), "jvp primals");
  bool same = tan.def == prim.def;
  for (size_t j = 0; same && j < tan.leaves.size(); ++j) same = tan.leaves[j].type == prim.leaves[j].type;
  if (!same) {
    fail("E0280", a.span(2), "jvp tangents must match the primals " + treeTypes(prim.def, prim.leaves) + " but got " +
                                 treeTypes(tan.def, tan.leaves),
         "give each primal a tangent of its shape and dtype");
  }
  std::vector<bool> wrt(tc.leaves.size(), false);
  size_t nCap = tc.t.trace->captured().size();
  for (size_t i = nCap; i < wrt.size(); ++i) wrt[i] = true;
  FuncPtr j = transforming("jvp", c.span, [&] { return jvpFunc(*tc.t.func, wrt); }, a.callable(0));
  std::vector<AVal> res = ev.tracer().call(j, concatLeaves(tc.leaves, tan.leaves), c.span);
  size_t n = tc.t.outLeaves.size(), pos = 0;
  Value out = rebuild(tc.t.outTree, std::vector<AVal>(res.begin(), res.begin() + static_cast<std::ptrdiff_t>(n)), pos);
  pos = 0;
  Value tout = rebuild(tc.t.outTree, std::vector<AVal>(res.begin() + static_cast<std::ptrdiff_t>(n), res.end()), pos);
  return Value::ofTuple({out, tout});
}

// stop_gradient(x): x, with a zero derivative (Note [Stop gradient] in jit/transform/vjp.cpp).
Value stopGradient(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "stop_gradient", {"x"});
  Flat x = flat(a.get(0), a.span(0), "stop_gradient argument");
  std::vector<AVal> out;
  for (const AVal& l : x.leaves) out.push_back(ev.ops().stopGradient(l, c.span));
  size_t pos = 0;
  return rebuild(x.def, out, pos);
}

// ---- custom_jvp and custom_vjp (Note [Custom rules] in jit/transform/custom_rules.cpp) ----

// custom_jvp(f, jvp): f, differentiated by jvp(primals, tangents) -> (primal_out, tangent_out).
Value customJvp(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "custom_jvp", {"f", "jvp"});
  AutodiffFn d;
  d.kind = AutodiffFn::CustomJvp;
  d.rules = {a.callable(1)};
  return functionValue(a.callable(0), d, c.span);
}

// custom_vjp(f, fwd, bwd): f, differentiated in reverse mode by fwd(*args) -> (out, residuals)
// and bwd(residuals, cotangent) -> one cotangent per argument.
Value customVjp(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "custom_vjp", {"f", "fwd", "bwd"});
  AutodiffFn d;
  d.kind = AutodiffFn::CustomVjp;
  d.rules = {a.callable(1), a.callable(2)};
  return functionValue(a.callable(0), d, c.span);
}

/// The type-only stand-ins of a tree's leaves, in its structure.
Value abstractTree(const TreeDef& def, const std::vector<AVal>& leaves, size_t from = 0) {
  std::vector<AVal> ph;
  for (size_t i = from; i < leaves.size(); ++i) ph.push_back(placeholder(leaves[i]));
  size_t pos = 0;
  return rebuild(def, ph, pos);
}

/// Whether `got` (a rule's output part) has the structure and leaf types of `want`.
bool sameTree(const TreeDef& gotDef, const std::vector<AVal>& got, size_t at, const TreeDef& wantDef,
              const std::vector<AVal>& want, size_t wantAt = 0) {
  if (!(gotDef == wantDef)) return false;
  for (size_t j = 0; j < want.size() - wantAt; ++j)
    if (at + j >= got.size() || got[at + j].type != want[wantAt + j].type) return false;
  return true;
}

std::vector<AVal> leavesFrom(const std::vector<AVal>& v, size_t from, size_t n) {
  return std::vector<AVal>(v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(from + n));
}

/// A rule that returned the wrong structure: at the custom_jvp / custom_vjp that gave it, with a
/// note at the call where it was traced.
[[noreturn]] void badRule(const char* code, Span given, Span call, std::string message, std::string help) {
  Diagnostic d = makeDiagnostic(code, given, std::move(message), std::move(help));
  d.notes.push_back({call, "the rule was traced for this call"});
  throw UserError(std::move(d));
}

// A call of a custom_jvp / custom_vjp function inside a trace: a one-branch cond running f that
// carries the traced rules (outside a trace, f runs as it is).
Value applyCustom(Evaluator& ev, const VmapFn& v, const AutodiffFn& d, CallArgs& c) {
  if (!ev.tracer().tracing() || d.tracingRules) return ev.call(v.fn, c);
  TracedCall tf = traceAt(ev, v.fn, c.pos, c.posSpans, v.span, d.name());
  const std::vector<AVal>& fCaps = tf.t.trace->captured();
  std::vector<AVal> argLeaves = leavesFrom(tf.leaves, fCaps.size(), tf.leaves.size() - fCaps.size());
  std::vector<Value> abstractArgs;
  for (const Flat& f : tf.args) abstractArgs.push_back(abstractTree(f.def, f.leaves));
  const TreeDef& outDef = tf.t.outTree;
  const std::vector<AVal>& outs = tf.t.outLeaves;
  std::string outTypes = treeTypes(outDef, outs);
  auto rule = std::make_shared<CustomRule>();
  rule->numArgs = static_cast<int>(argLeaves.size());
  rule->span = v.span;
  std::vector<AVal> ruleCaps;
  struct RulesTraced {
    const AutodiffFn& d;
    explicit RulesTraced(const AutodiffFn& fn) : d(fn) { d.tracingRules = true; }
    ~RulesTraced() { d.tracingRules = false; }
  } guard(d);
  if (d.kind == AutodiffFn::CustomJvp) {
    rule->kind = CustomRule::Jvp;
    Value primals = Value::ofTuple(abstractArgs);
    Evaluator::Traced r = ev.traceFunction(d.rules[0], {primals, primals}, v.span, "custom_jvp rule", "a primal");
    bool pair = r.outTree.kind == TreeDef::Tuple && r.outTree.children.size() == 2;
    if (!pair || !sameTree(r.outTree.children[0], r.outLeaves, 0, outDef, outs) ||
        !sameTree(r.outTree.children[1], r.outLeaves, outs.size(), outDef, outs))
      badRule("E0363", v.span, c.span,
           "the custom_jvp rule must return (primal_out, tangent_out), each like the function's output " + outTypes +
               ", but it returned " + treeTypes(r.outTree, r.outLeaves),
           "return a pair: the output of f and its tangent, both of f's output shape and dtype");
    ruleCaps = r.trace->captured();
    rule->jvp = withUnusedParams(*r.func, 0, fCaps);
  } else {
    rule->kind = CustomRule::Vjp;
    Evaluator::Traced fw = ev.traceFunction(d.rules[0], abstractArgs, v.span, "custom_vjp fwd", "a primal");
    bool pair = fw.outTree.kind == TreeDef::Tuple && fw.outTree.children.size() == 2;
    if (!pair || !sameTree(fw.outTree.children[0], fw.outLeaves, 0, outDef, outs))
      badRule("E0364", v.span, c.span,
           "the custom_vjp fwd must return (out, residuals) with out like the function's output " + outTypes +
               ", but it returned " + treeTypes(fw.outTree, fw.outLeaves),
           "return a pair: the output of f and the values bwd needs");
    rule->numResiduals = static_cast<int>(fw.outLeaves.size() - outs.size());
    Value residuals = abstractTree(fw.outTree.children[1], fw.outLeaves, outs.size());
    Value ct = abstractTree(outDef, outs);
    Evaluator::Traced bw = ev.traceFunction(d.rules[1], {residuals, ct}, v.span, "custom_vjp bwd", "a residual");
    bool perArg = bw.outTree.kind == TreeDef::Tuple && bw.outTree.children.size() == tf.args.size();
    size_t at = 0;
    for (size_t i = 0; perArg && i < tf.args.size(); ++i) {
      perArg = sameTree(bw.outTree.children[i], bw.outLeaves, at, tf.args[i].def, tf.args[i].leaves);
      at += tf.args[i].leaves.size();
    }
    if (!perArg) {
      std::string argTypes = "(";
      for (size_t i = 0; i < tf.args.size(); ++i)
        argTypes += (i ? ", " : "") + treeTypes(tf.args[i].def, tf.args[i].leaves);
      argTypes += tf.args.size() == 1 ? ",)" : ")";
      badRule("E0365", v.span, c.span,
           "the custom_vjp bwd must return a tuple of one cotangent per argument, like " + argTypes +
               ", but it returned " + treeTypes(bw.outTree, bw.outLeaves),
           "return a tuple with a cotangent of each argument's shape and dtype: (ct_x,) for one argument");
    }
    const std::vector<AVal>& fwCaps = fw.trace->captured();
    const std::vector<AVal>& bwCaps = bw.trace->captured();
    ruleCaps = concatLeaves(fwCaps, bwCaps);
    rule->fwd = withUnusedParams(*withUnusedParams(*fw.func, 0, fCaps), fCaps.size() + fwCaps.size(), bwCaps);
    rule->bwd = withUnusedParams(*bw.func, 0, concatLeaves(fCaps, fwCaps));
  }
  FuncPtr branch = withUnusedParams(*tf.t.func, fCaps.size(), ruleCaps);
  branch->name = v.fn.kind == ValueKind::Closure ? v.fn.closure->name : d.name();
  Attrs at;
  at.custom = rule;
  std::vector<AVal> operands = concatLeaves(concatLeaves(fCaps, ruleCaps), argLeaves);
  std::vector<AVal> in = concatLeaves({AVal::of(Array::scalarInt(DType::I32, 0))}, operands);
  std::vector<AVal> res = ev.tracer().apply(Op::Cond, in, at, c.span, {branch});
  size_t pos = 0;
  return rebuild(outDef, res, pos);
}

}  // namespace

Value applyAutodiff(Evaluator& ev, const VmapFn& v, CallArgs& c) {
  const AutodiffFn& d = *v.autodiff;
  if (d.kind != AutodiffFn::VjpFn && !c.kw.empty())
    fail("E0221", c.kwSpans[0], std::string("a function made by ") + d.name() + " takes positional arguments only");
  switch (d.kind) {
    case AutodiffFn::Grad: case AutodiffFn::ValueAndGrad: return applyGrad(ev, v, d, c);
    case AutodiffFn::Jacfwd: case AutodiffFn::Jacrev: return applyJacobian(ev, v, d, c);
    case AutodiffFn::VjpFn: return applyVjpFn(ev, v, d, c);
    case AutodiffFn::CustomJvp: case AutodiffFn::CustomVjp: return applyCustom(ev, v, d, c);
    case AutodiffFn::Checkpoint: return applyCheckpoint(ev, v, d, c);
  }
  return Value::none();
}

BuiltinDefs autodiffBuiltins() {
  return {{},
          {
              {"grad(f, argnums=0, has_aux=false, holomorphic=false)", "the function computing the gradient of the scalar f with respect to its argnums arguments", grad},
              {"value_and_grad(f, argnums=0, has_aux=false, holomorphic=false)", "the function computing f and its gradient together: (value, grad)", valueAndGrad},
              {"jacfwd(f, argnums=0, holomorphic=false)", "the function computing the Jacobian of f by forward mode (output shape ++ input shape)", jacfwd},
              {"jacrev(f, argnums=0, holomorphic=false)", "the function computing the Jacobian of f by reverse mode (output shape ++ input shape)", jacrev},
              {"hessian(f, argnums=0)", "the function computing the Hessian of the scalar f: jacfwd(jacrev(f))", hessian},
              {"jvp(f, primals, tangents)", "f at the primals (a tuple) and its directional derivative along the tangents: (out, tangent_out)", jvpBuiltin},
              {"vjp(f, primals...)", "f at the primals and the function mapping an output cotangent to the primals' cotangents: (out, vjp_fn)", vjpBuiltin},
              {"stop_gradient(x)", "x, treated as a constant by differentiation", stopGradient},
              {"custom_jvp(f, jvp)", "f, differentiated by the rule jvp(primals, tangents) -> (primal_out, tangent_out)", customJvp},
              {"custom_vjp(f, fwd, bwd)", "f, differentiated in reverse mode by fwd(*args) -> (out, residuals) and bwd(residuals, ct) -> a cotangent per argument", customVjp},
          }};
}

}  // namespace scn
