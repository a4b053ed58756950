// Calling values: dispatch on the callee's kind, binding arguments to parameters, inlining a
// closure (the call depth limit, E0104), and tracing a function or a C++ body into a child trace.
#include "lang/eval.hpp"
#include "lang/number_text.hpp"

#include "base/diagnostics.hpp"
#include "base/suggest.hpp"
#include "lang/eval_internal.hpp"

namespace scn {

namespace {
constexpr int kMaxCallDepth = 200;  // nested calls while tracing (recursion guard)

// The builtin that traces a body named `name` ("scan body", "vmapped function"): its first word.
std::string builtinTracing(const std::string& name) {
  std::string first = name.substr(0, name.find(' '));
  return first == "vmapped" ? "vmap" : first;
}

std::vector<std::string> parameterNames(const Closure& c) {
  std::vector<std::string> names;
  for (const Param& p : *c.params) names.push_back(p.name);
  return names;
}
}  // namespace

Value Evaluator::call(const Value& callee, CallArgs& args) {
  switch (callee.kind) {
    case ValueKind::Closure: return callClosure(callee.closure, args);
    case ValueKind::Builtin: return callee.builtin->fn(*this, args);
    case ValueKind::Vmap: return callVmap(*callee.vmap, args);
    case ValueKind::DType: {
      if (args.pos.size() != 1 || !args.kw.empty())
        fail("E0220", args.span, std::string(dtypeName(callee.dtype)) + "(x) takes one argument");
      if (args.pos[0].kind == ValueKind::String)  // i32(args[0]): a number from text
        return Value::ofArray(parseNumberText(args.pos[0].str, callee.dtype, false, args.posSpans[0], dtypeName(callee.dtype)));
      if (args.pos[0].isTuple()) {  // f64([0.1, 2.675]): the elements as written, as array(..., dtype=f64)
        args.kw.emplace_back("dtype", callee);
        args.kwSpans.push_back(args.span);
        return call(Value::ofBuiltin(builtins().at("array")), args);
      }
      AVal x = toArray(args.pos[0], args.posSpans[0], dtypeName(callee.dtype));
      if (const Array* written = x.literalValues()) x = AVal::of(*written, true);  // a literal bound to a name
      return Value::ofArray(ops_.cast(x, callee.dtype, args.span));
    }
    case ValueKind::Array: case ValueKind::Tuple: case ValueKind::None: case ValueKind::String:
      break;
  }
  fail("E0216", args.span, describe(callee) + " is not callable");
}

std::vector<Value> Evaluator::bindParams(const Closure& c, CallArgs& args) {
  const auto& params = *c.params;
  std::vector<std::optional<Value>> bound(params.size());
  std::vector<Span> spans(params.size(), args.span);
  if (args.pos.size() > params.size())
    fail("E0220", args.span,
         "`" + c.name + "` takes " + std::to_string(params.size()) + " argument" +
             (params.size() == 1 ? "" : "s") + " but " + std::to_string(args.pos.size()) + " were given");
  for (size_t i = 0; i < args.pos.size(); ++i) {
    bound[i] = args.pos[i];
    if (i < args.posSpans.size()) spans[i] = args.posSpans[i];
  }
  for (size_t k = 0; k < args.kw.size(); ++k) {
    size_t i = 0;
    while (i < params.size() && params[i].name != args.kw[k].first) ++i;
    if (i == params.size())
      fail("E0221", args.kwSpans[k], "`" + c.name + "` has no parameter `" + args.kw[k].first + "`",
           didYouMean(closestNames(args.kw[k].first, parameterNames(c)), "="));
    if (bound[i]) fail("E0215", args.kwSpans[k], "argument `" + args.kw[k].first + "` given twice");
    bound[i] = args.kw[k].second;
    spans[i] = args.kwSpans[k];
  }
  std::vector<Value> out;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!bound[i] && params[i].defaultValue) {  // evaluated in the function's scope, at each call
      bound[i] = eval(*params[i].defaultValue, c.env);
      spans[i] = params[i].defaultValue->span;
    }
    if (!bound[i])
      fail("E0220", args.span, "`" + c.name + "` is missing the argument `" + params[i].name + "`",
           "pass it by position or as `" + params[i].name + "=...`");
    out.push_back(*bound[i]);
  }
  // Static parameters need static values: checked here, once, for both call paths.
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].isStatic) continue;
    std::vector<AVal> leaves;
    TreeDef def;
    Span argSpan = spans[i];
    if (out[i].isArray() || out[i].isTuple()) {
      flatten(out[i], leaves, def, argSpan, "a static argument");
      for (const AVal& l : leaves)
        concreteOrError(l, StaticUse::StaticParam, argSpan, "`" + params[i].name + "` of `" + c.name + "`");
    }
  }
  return out;
}

Value Evaluator::callClosure(const std::shared_ptr<Closure>& c, CallArgs& args) {
  std::vector<Value> bound = bindParams(*c, args);
  Span site = args.fromHost ? Span{} : args.span;
  if (tracer_.tracing()) return inlineClosure(*c, std::move(bound), site);
  return callCompiled(c, std::move(bound), args.span, site);
}

Value Evaluator::inlineClosure(const Closure& c, std::vector<Value> bound, Span site) {
  if (frames_.size() >= static_cast<size_t>(kMaxCallDepth))
    fail("E0104", c.span, "calls nest deeper than " + std::to_string(kMaxCallDepth) +
                              " levels while tracing `" + c.name + "` (recursion?)",
         "functions are inlined when traced; recursion needs a static base case, or use "
         "`while_loop` / `scan`");
  frames_.push_back({&c, &bound, site, std::exchange(givenTo_, {})});
  struct FrameEnd {
    Evaluator& ev;
    ~FrameEnd() {
      ev.givenTo_ = std::move(ev.frames_.back().givenTo);  // for the body's next call
      ev.frames_.pop_back();
    }
  } frameEnd{*this};
  Running running{running_, c.program};
  auto scope = std::make_shared<Env>(c.env, true);
  ScopeEnd end{scopes_, scope};
  for (size_t i = 0; i < bound.size(); ++i)
    if ((*c.params)[i].name != "_") scope->define((*c.params)[i].name, bound[i]);
  try {
    return eval(*c.body, scope);
  } catch (UserError& e) {
    addCallChain(e.diag);
    keepForError(c.program);  // the closure may be a temporary that the unwinding frees
    throw;
  }
}

Evaluator::Traced Evaluator::traceFunction(const Value& fn, const std::vector<Value>& abstractArgs,
                                           Span span, const std::string& name,
                                           const std::string& originWhat, bool keepStatic) {
  return traceBody(
      [&](const std::vector<Value>& params) {
        CallArgs args;
        args.pos = params;
        args.posSpans.assign(params.size(), span);
        args.span = span;
        return call(fn, args);
      },
      abstractArgs, span, name, originWhat, keepStatic);
}

namespace {

// Note [Static arguments of a transformation]
// A transformation passes the arguments it does not transform (grad's outside argnums, vmap's
// in_axes=None, checkpoint's all) to the function. Static scalars reach it as they are, so a
// `static` parameter (a count, a shape's entry) accepts them as a direct call does. Static
// arrays are traced: kept static they would be baked into the traced code as constants, a new
// compilation for every value and a copy of every array in the code (and a host's borrowed
// array held by it); JAX, which runs them op by op, needs no such line.
bool staysStatic(const AVal& leaf) { return leaf.isStatic() && leaf.type.shape.empty(); }

}  // namespace

Evaluator::Traced Evaluator::traceBody(const std::function<Value(const std::vector<Value>&)>& body,
                                       const std::vector<Value>& abstractArgs, Span span,
                                       const std::string& name, const std::string& originWhat,
                                       bool keepStatic) {
  int depth = 0;
  for (Trace* p = tracer_.current(); p; p = p->parent()) ++depth;
  if (depth >= kMaxCallDepth)  // each level costs stack: 2000 nested grads overflowed it
    fail("E0104", span, "transformations and loop bodies nest deeper than " + std::to_string(kMaxCallDepth) +
                            " levels while tracing the " + name,
         "each grad, vmap, scan or loop body is traced inside the one around it; build fewer levels (a "
         "loop that wraps a function in grad over and over nests one level per iteration)");
  Traced t;
  t.trace = std::make_unique<Trace>(tracer_.current(), name);
  std::vector<Value> params;
  std::vector<int> paramVars;
  auto origin = std::make_shared<Origin>();
  origin->description = originWhat;
  origin->declSpan = span;
  for (const Value& a : abstractArgs) {
    std::vector<AVal> leaves;
    TreeDef def;
    flatten(a, leaves, def, span, name.c_str());
    std::vector<AVal> abs;
    for (const AVal& leaf : leaves) {
      AVal l = defaultize(leaf, span);
      AVal param = t.trace->newParam(l.type, l.weak, l.origin ? l.origin : origin);
      paramVars.push_back(param.var);
      abs.push_back(keepStatic && staysStatic(leaf) ? leaf : param);
    }
    size_t pos = 0;
    params.push_back(unflatten(def, abs, pos));
  }
  t.trace->func().params.clear();
  Value result;
  std::string saved = std::exchange(givenTo_, builtinTracing(name));
  struct Restore {
    std::string& slot;
    std::string saved;
    ~Restore() { slot = std::move(saved); }
  } restore{givenTo_, std::move(saved)};
  tracer_.withTrace(*t.trace, [&] {
    result = body(params);
    flatten(result, t.outLeaves, t.outTree, span, (name + " result").c_str());
    std::vector<int> results;
    // A weak literal result is materialised in its default dtype (0.5 as f32, 7 as i32), as
    // anywhere else a weak value becomes an array; it stays weak for the caller's promotion.
    for (AVal& l : t.outLeaves) {
      l = defaultize(l, span);
      results.push_back(tracer_.varOf(l));
    }
    t.trace->finish(paramVars, results);
  });
  t.func = t.trace->funcPtr();
  return t;
}

Value Evaluator::callVmap(const VmapFn& v, CallArgs& args) {
  extern Value applyVmap(Evaluator & ev, const VmapFn& v, CallArgs& args);
  extern Value applyAutodiff(Evaluator & ev, const VmapFn& v, CallArgs& args);
  return v.autodiff ? applyAutodiff(*this, v, args) : applyVmap(*this, v, args);
}

}  // namespace scn
