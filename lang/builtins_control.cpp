// Control-flow builtins: scan, fori_loop, while_loop, cond (vmap: builtins_vmap.cpp).
#include <functional>
#include <tuple>

#include "jit/batch.hpp"
#include "lang/builtin_args.hpp"

namespace scn {

namespace {

/// The body's carry for a given initial carry (a new trace); used only to word an E0233.
using CarryStep = std::function<std::vector<AVal>(const std::vector<AVal>&)>;

// Note [Growing carries]
// When a loop body returns a carry of another type than the initial one, "start with the
// body's type" is the right help when that type does not depend on the carry's (`c + ones(3)`
// from a scalar `0.0`: start with zeros(3)), and the wrong one when it does: a body that
// appends to its carry (`concat((c, x[None]))` from zeros(0)) makes f32[1] of f32[0], f32[2] of
// f32[1], and so on, so zeros(1) fails one step later. So the check traces the body once more on
// the carry it returned: if the same type comes back, it is a fixed point and the help suggests
// it; otherwise the carry grows (or shrinks), which a loop's carry cannot, and the help says to
// keep its shape fixed: preallocate the final array and write each step's part into it (scan
// can also stack per-step values as its ys).

/// The carry types the body returns when it starts from `carry`; empty when that trace fails.
std::vector<Type> carryTypesAfter(const CarryStep& step, const std::vector<AVal>& carry) {
  std::vector<Type> types;
  try {
    for (const AVal& l : step(carry)) types.push_back(l.type);
  } catch (const UserError&) {  // the body does not take its own result: not a fixed point
    types.clear();
  }
  return types;
}

std::string growingCarryHelp(const char* fn, const Type& init, const Type& body, const std::vector<Type>& next,
                             size_t i) {
  std::string changes = typeString(init) + " becomes " + typeString(body);
  if (i < next.size()) changes += ", then " + typeString(next[i]);
  std::string stack = std::string(fn) == "scan" ? "return each step's value as the `y` of the pair (scan stacks the ys), or " : "";
  return "the carry's shape must stay fixed, but this body changes it every iteration (" + changes + "); " +
         stack + "preallocate the carry at its final size, e.g. `zeros((n,), dtype=" + dtypeName(body.dtype) +
         ")`, and write step i's part with `c.at[i].set(v)` or `dynamic_update_slice(c, v[None], (i,))`";
}

/// Checks that a loop body returned a carry with the structure and types of the initial one;
/// `step` retraces the body to tell a growing carry from a fixed one (Note [Growing carries]).
void checkCarry(const char* fn, const TreeDef& initDef, const std::vector<AVal>& init,
                const TreeDef& outDef, const std::vector<AVal>& out, size_t outOffset, Span span,
                const CarryStep& step) {
  if (!(initDef == outDef))
    fail("E0233", span,
         std::string(fn) + " body returned a carry of structure " + outDef.str() +
             " but the initial carry has structure " + initDef.str());
  for (size_t i = 0; i < init.size(); ++i) {
    const Type& a = init[i].type;
    const Type& b = out[outOffset + i].type;
    if (a == b) continue;
    std::vector<AVal> bodyCarry;
    for (size_t k = 0; k < init.size(); ++k) bodyCarry.push_back(placeholder(out[outOffset + k]));
    std::vector<Type> next = carryTypesAfter(step, bodyCarry);
    bool fixedPoint = next.size() == init.size() && next[i] == b;
    fail("E0233", span,
         std::string(fn) + " carry component " + std::to_string(i) + " has type " + typeString(a) +
             " in the initial value but the body returns " + typeString(b),
         fixedPoint ? "the carry must keep its shape and dtype across iterations; give the initial value the "
                      "body's type, e.g. `" + std::string(dtypeName(b.dtype)) + "(init)` or `zeros(" +
                          shapeString(b.shape) + ", dtype=" + dtypeName(b.dtype) + ")`"
                    : growingCarryHelp(fn, a, b, next, i));
  }
}

// Note [Weak carries]
// As in JAX (`_promote_weak_typed_inputs` in lax's control flow), a weak initial carry leaf takes
// the dtype that the body returns for it: `scan(|c, x| (c + x, c), 0, arange(3.0))` carries f32.
// The body is traced with the carry as given; if a weak leaf comes back with its shape but
// another dtype, that leaf is converted to the body's dtype (and weakness) and the body traced
// once more. The second trace sees strong or matching leaves, so checkCarry decides: a body that
// changes the dtype again (or a strong carry) is E0233. Shapes are never promoted.

/// Promotes the weak leaves of `init` whose body results (out[outOffset + i]) differ only in
/// dtype (Note [Weak carries]); whether any changed.
bool promoteWeakCarry(Evaluator& ev, const TreeDef& initDef, std::vector<AVal>& init,
                      const TreeDef& outDef, const std::vector<AVal>& out, size_t outOffset, Span span) {
  if (!(initDef == outDef)) return false;
  bool changed = false;
  for (size_t i = 0; i < init.size(); ++i) {
    const AVal& o = out[outOffset + i];
    if (!init[i].weak || o.type.shape != init[i].type.shape || o.type.dtype == init[i].type.dtype) continue;
    init[i] = ev.ops().convert(init[i], o.type.dtype, span);
    init[i].weak = o.weak;
    changed = true;
  }
  return changed;
}

/// A weak body result (a literal such as `0.5`) of the carry's shape but another dtype than a
/// strong initial carry leaf takes the carry's dtype, as a weak operand takes the other
/// operand's: a conversion is appended to the body (Note [Weak carries]).
void castWeakResults(Evaluator::Traced& t, const std::vector<AVal>& init, size_t outOffset, Span span) {
  Func& f = *t.func;
  for (size_t i = 0; i < init.size() && outOffset + i < t.outLeaves.size(); ++i) {
    AVal& o = t.outLeaves[outOffset + i];
    if (!o.weak || init[i].weak || o.type.shape != init[i].type.shape || o.type.dtype == init[i].type.dtype) continue;
    Eqn cast;
    cast.op = Op::Convert;
    cast.inputs = {f.results.at(outOffset + i)};
    cast.attrs.dtype = init[i].type.dtype;
    cast.outputs = {f.newVar(init[i].type)};
    cast.span = span;
    f.results[outOffset + i] = cast.outputs[0];
    f.eqns.push_back(std::move(cast));
    o.type.dtype = init[i].type.dtype;
    o.weak = false;
  }
}

AVal sliceType(const AVal& x) {  // the per-iteration slice of a scanned array
  AVal s = placeholder(x);
  s.type.shape.erase(s.type.shape.begin());
  return s;
}

/// What a scan of `length` steps stores in reverse mode, from its `checkpoints=` argument at `i`.
struct Checkpoints {
  int64_t carries = 0;    // Attrs::checkpoints
  bool binomial = false;  // Attrs::binomial
};

/// An integer k >= 1 (E0360), at most `length`: k carries with the binomial schedule (Note
/// [Binomial checkpointing] in jit/transform/binomial_schedule.cpp); "sqrt" (E0361): the
/// segments of ceil(sqrt(length)) steps (Note [Scan checkpoints] in vjp_control.cpp);
/// kStoreEveryCarry for 0 (every carry is stored); 0 when absent or None (the grad memory budget
/// decides, Note [Grad memory budget]).
Checkpoints scanCheckpoints(const Args& a, size_t i, int64_t length, const char* fn) {
  if (!a.has(i) || a.get(i).isNone()) return {};
  const Value& v = a.get(i);
  std::string what = std::string(fn) + " checkpoints";
  const char* help = "pass a positive integer number of stored carries, \"sqrt\" for ceil(sqrt(n)) of n steps, "
                     "or 0 to store every carry";
  int64_t k = 0;
  if (v.kind == ValueKind::String) {
    if (v.str != "sqrt") fail("E0361", a.span(i), what + " must be an integer >= 0 or \"sqrt\", got \"" + v.str + "\"", help);
    while (k * k < length) ++k;  // ceil(sqrt(length)), exact in integers
    return {k, false};
  }
  if (!v.isArray() || isFloat(v.array->type.dtype) || v.array->type.dtype == DType::Bool || !v.array->type.shape.empty())
    fail("E0361", a.span(i), what + " must be an integer >= 0 or \"sqrt\", got " + describe(v), help);
  k = a.integer(i, std::nullopt);
  if (k < 0) fail("E0360", a.span(i), what + " must be >= 0, got " + std::to_string(k), help);
  return {k == 0 ? kStoreEveryCarry : std::min(k, length), k != 0};
}

// scan(f, init, xs=None, length=None, reverse=false, unroll=1, checkpoints=None)
Value scan(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "scan", {"f", "init", "xs=", "length=", "reverse=", "unroll=", "checkpoints="});
  const Value& f = a.callable(0);
  Flat init = flat(a.get(1), a.span(1), "scan init");
  Flat xs;
  bool haveXs = a.has(2) && !a.get(2).isNone();
  if (haveXs) xs = flat(a.get(2), a.span(2), "scan xs");
  std::optional<int64_t> length;
  if (a.has(3) && !a.get(3).isNone()) {
    length = a.integer(3, std::nullopt, StaticUse::ScanLength);
    if (*length < 0) fail("E0231", a.span(3), "scan length must be >= 0, got " + std::to_string(*length));
  }
  for (size_t i = 0; i < xs.leaves.size(); ++i) {
    const Shape& s = xs.leaves[i].type.shape;
    if (s.empty())
      fail("E0231", a.span(2), "scan xs leaf " + std::to_string(i) + " is a scalar; xs are scanned along their first axis");
    if (!length) length = s[0];
    if (s[0] != *length)
      fail("E0231", a.span(2),
           "scan xs leaf " + std::to_string(i) + " has leading dimension " + std::to_string(s[0]) +
               " but the scan length is " + std::to_string(*length));
  }
  if (!length)
    fail("E0230", c.span, "scan with xs=None needs a static `length=`",
         "pass `length=n`, or an xs array whose first axis has the length");
  bool reverse = a.boolean(4, false);
  int64_t unroll = a.integer(5, 1);
  if (unroll < 1) fail("E0231", a.span(5), "scan unroll must be >= 1, got " + std::to_string(unroll));
  Checkpoints checkpoints = scanCheckpoints(a, 6, *length, "scan");

  size_t pos = 0;
  std::vector<AVal> xSlices;
  for (const AVal& x : xs.leaves) xSlices.push_back(sliceType(x));
  pos = 0;
  Value xVal = haveXs ? rebuild(xs.def, xSlices, pos) : Value::none();
  auto traceScanBody = [&] {
    size_t p = 0;
    Value carry = rebuild(init.def, init.leaves, p);
    Evaluator::Traced t = ev.traceFunction(f, {carry, xVal}, a.span(0), "scan body", "the scan carry");
    if (t.outTree.kind != TreeDef::Tuple || t.outTree.children.size() != 2)
      fail("E0232", a.span(0), "a scan body must return a pair (carry, y), got " + t.outTree.str());
    return t;
  };
  Evaluator::Traced t = traceScanBody();
  if (promoteWeakCarry(ev, init.def, init.leaves, t.outTree.children[0], t.outLeaves, 0, a.span(1)))
    t = traceScanBody();
  CarryStep scanStep = [&](const std::vector<AVal>& carryLeaves) {
    size_t p = 0;
    Value carry = rebuild(init.def, carryLeaves, p);
    Evaluator::Traced again = ev.traceFunction(f, {carry, xVal}, a.span(0), "scan body", "the scan carry");
    return std::vector<AVal>(again.outLeaves.begin(), again.outLeaves.begin() + static_cast<long>(std::min(carryLeaves.size(), again.outLeaves.size())));
  };
  castWeakResults(t, init.leaves, 0, a.span(0));
  checkCarry("scan", init.def, init.leaves, t.outTree.children[0], t.outLeaves, 0, a.span(0), scanStep);

  Attrs at;
  at.numConsts = static_cast<int>(t.trace->captured().size());
  at.numCarry = static_cast<int>(init.leaves.size());
  at.length = *length;
  at.reverse = reverse;
  at.unroll = unroll;
  at.checkpoints = checkpoints.carries;
  at.binomial = checkpoints.binomial;
  std::vector<AVal> in = concatLeaves(concatLeaves(t.trace->captured(), init.leaves), xs.leaves);
  std::vector<AVal> outs = ev.tracer().apply(Op::Scan, in, at, c.span, {t.func});
  std::vector<AVal> carryOut(outs.begin(), outs.begin() + at.numCarry);
  std::vector<AVal> ys(outs.begin() + at.numCarry, outs.end());
  pos = 0;
  Value carryV = rebuild(init.def, carryOut, pos);
  pos = 0;
  Value ysV = rebuild(t.outTree.children[1], ys, pos);
  return Value::ofTuple({carryV, ysV});
}

/// A branch of a cond: its result for the operands (a tuple of the cond's operands).
using Branch = std::function<Value(const Value& operands)>;

/// Emits a cond on a traced scalar `p` whose branches take the tuple `operands`; both branches
/// are traced and must agree in structure and types (E0236).
Value emitCond(Evaluator& ev, const AVal& p, const Branch& onTrue, Span trueSpan, const Branch& onFalse,
               Span falseSpan, const Value& operands, Span span) {
  Flat in = flat(operands, span, "cond operands");
  size_t pos = 0;
  Value opVal = rebuild(in.def, in.leaves, pos);
  auto traceBranch = [&](const Branch& fn, Span s) {
    return ev.traceBody([&](const std::vector<Value>& params) { return fn(params[0]); }, {opVal}, s, "cond branch",
                        "a cond operand");
  };
  Evaluator::Traced tt = traceBranch(onTrue, trueSpan);
  Evaluator::Traced tf = traceBranch(onFalse, falseSpan);
  if (!(tt.outTree == tf.outTree))
    fail("E0236", span, "cond branches return different structures: " + tt.outTree.str() + " and " + tf.outTree.str());
  for (size_t i = 0; i < tt.outLeaves.size(); ++i)
    if (tt.outLeaves[i].type != tf.outLeaves[i].type)
      fail("E0236", span, "cond branches return different types for output " + std::to_string(i) + ": " +
                                typeString(tt.outLeaves[i].type) + " (true) and " + typeString(tf.outLeaves[i].type) + " (false)",
           "both branches must return the same shapes and dtypes");
  const auto& capF = tf.trace->captured();
  const auto& capT = tt.trace->captured();
  // Both branches take (capturesOfFalse..., capturesOfTrue..., operands...).
  FuncPtr fF = withUnusedParams(*tf.func, capF.size(), capT);
  FuncPtr fT = withUnusedParams(*tt.func, 0, capF);
  AVal pred = p.type.dtype == DType::Bool ? p : ev.ops().binary(Op::Ne, p, weakInt(0), span, "cond");
  std::vector<AVal> inputs = concatLeaves(concatLeaves(concatLeaves({pred}, capF), capT), in.leaves);
  std::vector<AVal> outs = ev.tracer().apply(Op::Cond, inputs, {}, span, {fF, fT});
  pos = 0;
  return rebuild(tt.outTree, outs, pos);
}

/// f(args...): a call of a user function from a builtin, every argument at `span`.
Value callAt(Evaluator& ev, const Value& f, std::vector<Value> args, Span span) {
  CallArgs c;
  c.pos = std::move(args);
  c.posSpans.assign(c.pos.size(), span);
  c.span = span;
  return ev.call(f, c);
}

// Note [Bounded while loops]
// while_loop(cond, body, init, max_steps=N) is a scan of N steps whose body is
// `cond(cond_fn(x), body, identity, x)`: a step after the condition turned false keeps the carry.
// Its result is the while loop's when the loop ends within N steps (else the carry after N
// steps, as Equinox's bounded while loop), and reverse mode differentiates it like any scan
// (stored carries; the cond differentiates the branch taken), which a while loop cannot
// (E0274); `checkpoints=` checkpoints that scan (Note [Scan checkpoints]). Forward it costs N
// steps of the condition however early the loop ends.

[[noreturn]] void notABoolCondition(const std::string& got, Span span) {
  fail("E0235", span, "a while_loop condition must return a bool scalar, got " + got, "compare to get a bool, e.g. `|c| c.0 < n`");
}

/// The carry a while_loop body (argument 1) returns for given carry leaves, traced on its own
/// (checkCarry's retrace of a body that changed the carry's type).
CarryStep whileBodyStep(Evaluator& ev, const Args& a, const TreeDef& def) {
  return [&ev, &a, &def](const std::vector<AVal>& leaves) {
    size_t p = 0;
    return ev.traceFunction(a.callable(1), {rebuild(def, leaves, p)}, a.span(1), "while_loop body", "the while_loop carry").outLeaves;
  };
}

/// The scan of a bounded while loop (Note [Bounded while loops]).
Value boundedWhileLoop(Evaluator& ev, Args& a, Flat& init, int64_t maxSteps, Checkpoints checkpoints, Span span) {
  const Value cond = a.callable(0), body = a.callable(1);
  Span condSpan = a.span(0), bodySpan = a.span(1);
  auto step = [&](const Value& carry) {
    Value p = callAt(ev, cond, {carry}, condSpan);
    if (!p.isArray() || p.array->type != Type{DType::Bool, {}}) notABoolCondition(describe(p), condSpan);
    if (p.array->isStatic())  // a static condition picks the step at trace time
      return p.array->concrete->getDouble(0) != 0 ? callAt(ev, body, {carry}, bodySpan) : carry;
    Branch run = [&](const Value& ops) { return callAt(ev, body, {(*ops.elems)[0]}, bodySpan); };
    Branch keep = [](const Value& ops) { return (*ops.elems)[0]; };
    return emitCond(ev, *p.array, run, bodySpan, keep, bodySpan, Value::ofTuple({carry}), span);
  };
  auto traceStep = [&] {
    size_t p = 0;
    Value carry = rebuild(init.def, init.leaves, p);
    return ev.traceBody([&](const std::vector<Value>& ps) { return Value::ofTuple({step(ps[0]), Value::none()}); },
                        {carry}, bodySpan, "while_loop body", "the while_loop carry");
  };
  Evaluator::Traced t = traceStep();
  if (promoteWeakCarry(ev, init.def, init.leaves, t.outTree.children[0], t.outLeaves, 0, a.span(2))) t = traceStep();
  castWeakResults(t, init.leaves, 0, bodySpan);
  checkCarry("while_loop", init.def, init.leaves, t.outTree.children[0], t.outLeaves, 0, bodySpan,
             whileBodyStep(ev, a, init.def));
  Attrs at;
  at.numConsts = static_cast<int>(t.trace->captured().size());
  at.numCarry = static_cast<int>(init.leaves.size());
  at.length = maxSteps;
  at.checkpoints = checkpoints.carries;
  at.binomial = checkpoints.binomial;
  std::vector<AVal> outs = ev.tracer().apply(Op::Scan, concatLeaves(t.trace->captured(), init.leaves), at, span, {t.func});
  size_t pos = 0;
  return rebuild(init.def, outs, pos);
}

// while_loop(cond, body, init, max_steps=None, checkpoints=None)
Value whileLoop(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "while_loop", {"cond", "body", "init", "max_steps=", "checkpoints="});
  Flat init = flat(a.get(2), a.span(2), "while_loop init");
  if (a.has(3) && !a.get(3).isNone()) {
    int64_t maxSteps = a.integer(3, std::nullopt, StaticUse::Other);
    if (maxSteps < 0) fail("E0345", a.span(3), "while_loop max_steps must be >= 0, got " + std::to_string(maxSteps));
    return boundedWhileLoop(ev, a, init, maxSteps, scanCheckpoints(a, 4, maxSteps, "while_loop"), c.span);
  }
  if (a.has(4) && !a.get(4).isNone())
    fail("E0362", a.span(4), "while_loop checkpoints needs max_steps=N, a static step bound",
         "checkpointing splits the loop's steps into segments: give `max_steps=N`, or drop `checkpoints=`");
  auto traceLoop = [&] {
    size_t p = 0;
    Value carry = rebuild(init.def, init.leaves, p);
    Evaluator::Traced tc = ev.traceFunction(a.callable(0), {carry}, a.span(0), "while_loop cond", "the while_loop carry");
    if (tc.outTree.kind != TreeDef::Leaf || tc.outLeaves[0].type != Type{DType::Bool, {}})
      notABoolCondition(tc.outTree.kind == TreeDef::Leaf ? typeString(tc.outLeaves[0].type) : tc.outTree.str(), a.span(0));
    Evaluator::Traced tb = ev.traceFunction(a.callable(1), {carry}, a.span(1), "while_loop body", "the while_loop carry");
    return std::make_pair(std::move(tc), std::move(tb));
  };
  auto [tc, tb] = traceLoop();
  if (promoteWeakCarry(ev, init.def, init.leaves, tb.outTree, tb.outLeaves, 0, a.span(2)))
    std::tie(tc, tb) = traceLoop();
  castWeakResults(tb, init.leaves, 0, a.span(1));
  checkCarry("while_loop", init.def, init.leaves, tb.outTree, tb.outLeaves, 0, a.span(1), whileBodyStep(ev, a, init.def));
  Attrs at;
  at.numConsts = static_cast<int>(tc.trace->captured().size());
  at.numBodyConsts = static_cast<int>(tb.trace->captured().size());
  std::vector<AVal> in = concatLeaves(concatLeaves(tc.trace->captured(), tb.trace->captured()), init.leaves);
  std::vector<AVal> outs = ev.tracer().apply(Op::While, in, at, c.span, {tc.func, tb.func});
  size_t pos = 0;
  return rebuild(init.def, outs, pos);
}

// fori_loop(lo, hi, f, init): a scan when the bounds are static, else a while loop.
Value foriLoop(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "fori_loop", {"lo", "hi", "f", "init"});
  AVal lo = a.array(0), hi = a.array(1);
  const Value& f = a.callable(2);
  Flat init = flat(a.get(3), a.span(3), "fori_loop init");
  DType it = DType::I32;
  if (!lo.weak && isInteger(lo.type.dtype)) it = lo.type.dtype;
  else if (!hi.weak && isInteger(hi.type.dtype)) it = hi.type.dtype;
  lo = ev.ops().convert(lo, it, a.span(0));
  hi = ev.ops().convert(hi, it, a.span(1));
  lo.weak = hi.weak = false;
  auto step = [&](const AVal& i, const Value& x) {
    CallArgs args;
    args.pos = {arr(i), x};
    args.posSpans = {a.span(2), a.span(2)};
    args.span = a.span(2);
    return ev.call(f, args);
  };
  size_t pos = 0;
  auto initCarry = [&] {
    size_t p = 0;
    return rebuild(init.def, init.leaves, p);
  };
  // One step of the user's function from a given carry: what a fori_loop carry becomes.
  CarryStep foriStep = [&](const std::vector<AVal>& carryLeaves) {
    size_t p = 0;
    Evaluator::Traced again = ev.traceBody(
        [&](const std::vector<Value>& params) { return step(*params[0].array, params[1]); },
        {arr(lo), rebuild(init.def, carryLeaves, p)}, a.span(2), "fori_loop body", "the fori_loop carry");
    return again.outLeaves;
  };
  if (lo.isStatic() && hi.isStatic()) {
    int64_t n = std::max<int64_t>(0, hi.concrete->getInt(0) - lo.concrete->getInt(0));
    auto traceStep = [&] {
      return ev.traceBody(
          [&](const std::vector<Value>& p) {
            const Value& carry = p[0];
            AVal i = *(*carry.elems)[0].array;
            Value next = step(i, (*carry.elems)[1]);
            AVal i1 = ev.ops().binary(Op::Add, i, weakInt(1), c.span, "fori_loop");
            return Value::ofTuple({Value::ofTuple({arr(i1), next}), Value::none()});
          },
          {Value::ofTuple({arr(lo), initCarry()}), Value::none()}, a.span(2), "fori_loop body", "the fori_loop carry");
    };
    Evaluator::Traced t = traceStep();
    if (promoteWeakCarry(ev, init.def, init.leaves, t.outTree.children[0].children[1], t.outLeaves, 1, a.span(3)))
      t = traceStep();
    std::vector<AVal> initLeaves = concatLeaves({lo}, init.leaves);
    // The user's carry is the second part of ((i, x), None); the index is ours.
    castWeakResults(t, init.leaves, 1, a.span(2));
    checkCarry("fori_loop", init.def, init.leaves, t.outTree.children[0].children[1], t.outLeaves, 1, a.span(2),
               foriStep);
    Attrs at;
    at.numConsts = static_cast<int>(t.trace->captured().size());
    at.numCarry = static_cast<int>(initLeaves.size());
    at.length = n;
    std::vector<AVal> outs = ev.tracer().apply(Op::Scan, concatLeaves(t.trace->captured(), initLeaves), at, c.span, {t.func});
    std::vector<AVal> xs(outs.begin() + 1, outs.begin() + at.numCarry);
    pos = 0;
    return rebuild(init.def, xs, pos);
  }
  // Traced bounds: while (i < hi) { x = f(i, x); i += 1 }.
  auto traceLoop = [&] {
    Value carry = Value::ofTuple({arr(lo), arr(hi), initCarry()});
    Evaluator::Traced tc = ev.traceBody(
        [&](const std::vector<Value>& p) {
          const auto& e = *p[0].elems;
          return arr(ev.ops().binary(Op::Lt, *e[0].array, *e[1].array, c.span, "fori_loop"));
        },
        {carry}, a.span(2), "fori_loop cond", "the fori_loop counter");
    Evaluator::Traced tb = ev.traceBody(
        [&](const std::vector<Value>& p) {
          const auto& e = *p[0].elems;
          AVal i = *e[0].array;
          Value next = step(i, e[2]);
          return Value::ofTuple({arr(ev.ops().binary(Op::Add, i, weakInt(1), c.span, "fori_loop")), e[1], next});
        },
        {carry}, a.span(2), "fori_loop body", "the fori_loop carry");
    return std::make_pair(std::move(tc), std::move(tb));
  };
  auto [tc, tb] = traceLoop();
  if (promoteWeakCarry(ev, init.def, init.leaves, tb.outTree.children[2], tb.outLeaves, 2, a.span(3)))
    std::tie(tc, tb) = traceLoop();
  std::vector<AVal> initLeaves = concatLeaves({lo, hi}, init.leaves);
  castWeakResults(tb, init.leaves, 2, a.span(2));
  checkCarry("fori_loop", init.def, init.leaves, tb.outTree.children[2], tb.outLeaves, 2, a.span(2), foriStep);
  Attrs at;
  at.numConsts = static_cast<int>(tc.trace->captured().size());
  at.numBodyConsts = static_cast<int>(tb.trace->captured().size());
  std::vector<AVal> in = concatLeaves(concatLeaves(tc.trace->captured(), tb.trace->captured()), initLeaves);
  std::vector<AVal> outs = ev.tracer().apply(Op::While, in, at, c.span, {tc.func, tb.func});
  std::vector<AVal> xs(outs.begin() + 2, outs.end());
  pos = 0;
  return rebuild(init.def, xs, pos);
}

// cond(p, f_true, f_false, operands...)
Value condBuiltin(Evaluator& ev, CallArgs& c) {
  if (c.pos.size() < 3) fail("E0220", c.span, "cond needs (p, f_true, f_false, operands...)");
  if (!c.kw.empty()) fail("E0221", c.kwSpans[0], "cond takes no keyword arguments");
  AVal p = toArray(c.pos[0], c.posSpans[0], "cond");
  if (p.type.shape.size() != 0) fail("E0236", c.posSpans[0], "cond's predicate must be a scalar, got " + surfaceTypeString(p));
  for (int k = 1; k <= 2; ++k)
    if (!c.pos[k].isCallable()) fail("E0216", c.posSpans[k], "cond: branch must be a function, got " + describe(c.pos[k]));
  std::vector<Value> operands(c.pos.begin() + 3, c.pos.end());
  if (p.isStatic())  // a static predicate picks its branch at trace time
    return callAt(ev, p.concrete->getDouble(0) != 0 ? c.pos[1] : c.pos[2], operands, c.span);
  auto branch = [&](const Value& fn, Span s) {
    return [&ev, fn, s](const Value& ops) { return callAt(ev, fn, *ops.elems, s); };
  };
  return emitCond(ev, p, branch(c.pos[1], c.posSpans[1]), c.posSpans[1], branch(c.pos[2], c.posSpans[2]),
                  c.posSpans[2], Value::ofTuple(operands), c.span);
}

}  // namespace

BuiltinDefs controlBuiltins() {
  return {
      {
          {"scan", scan},
          {"while_loop", whileLoop},
          {"cond", condBuiltin},
      },
      {
          {"fori_loop(lo, hi, f, init)", "f(i, carry) for i from lo below hi: the final carry (a scan or a while loop)", foriLoop},
      }};
}

}  // namespace scn
