// The compile cache: a closure called outside a trace is traced once per signature, compiled and
// reused while its captured variables (Note [Captured variables]) and keyed functions live (Note
// [Cache lifetime]).
#include "lang/eval.hpp"
#include "lang/eval_internal.hpp"

#include <chrono>
#include <cstdint>
#include <string>

#include "base/diagnostics.hpp"
#include "lang/array_ops.hpp"

namespace scn {

std::string shownArgument(const Value& v, bool isStatic) {
  switch (v.kind) {
    case ValueKind::Array:
      return isStatic && v.array->concrete ? formatArray(*v.array->concrete) : surfaceTypeString(*v.array);
    case ValueKind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < v.elems->size(); ++i) s += (i ? ", " : "") + shownArgument((*v.elems)[i], isStatic);
      return s + (v.elems->size() == 1 ? ",)" : ")");
    }
    case ValueKind::None: return "None";
    case ValueKind::String: return "\"" + v.str + "\"";
    case ValueKind::Closure: return v.closure->name == "<lambda>" ? "a lambda" : "fn " + v.closure->name;
    case ValueKind::Builtin: return v.builtin->name;
    case ValueKind::Vmap: return "a vmapped function";
    case ValueKind::DType: return dtypeName(v.dtype);
  }
  return "";
}

namespace {
double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

const void* identity(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: return v.array.get();
    case ValueKind::Tuple: return v.elems.get();
    case ValueKind::Closure: return v.closure.get();
    case ValueKind::Builtin: return v.builtin;
    case ValueKind::Vmap: return v.vmap.get();
    case ValueKind::None: case ValueKind::String: case ValueKind::DType: return nullptr;
  }
  return nullptr;
}

std::shared_ptr<const void> payload(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: return v.array;
    case ValueKind::Tuple: return v.elems;
    case ValueKind::Closure: return v.closure;
    case ValueKind::Vmap: return v.vmap;
    case ValueKind::Builtin: case ValueKind::None: case ValueKind::String: case ValueKind::DType:
      return nullptr;
  }
  return nullptr;
}

namespace {

// The part of a signature one argument contributes to the compile-cache key. Built on every
// call of a compiled function, so a plain string (an ostringstream costs a locale per call).
void keyOf(const Value& v, bool isStatic, std::string& key) {
  auto address = [&key](const void* p) { key += std::to_string(reinterpret_cast<uintptr_t>(p)); };
  switch (v.kind) {
    case ValueKind::Array: {
      const AVal& a = *v.array;
      key += typeString(a.type);
      if (a.weak) key += 'w';
      if (isStatic) key += "=" + formatArray(*a.concrete);
      key += ';';
      return;
    }
    case ValueKind::Tuple:
      key += '(';
      for (const Value& x : *v.elems) keyOf(x, isStatic, key);
      key += ')';
      return;
    case ValueKind::None: key += "None;"; return;
    case ValueKind::String: key += "s:" + v.str + ";"; return;
    case ValueKind::Closure: key += "fn@"; address(v.closure.get()); key += ';'; return;
    case ValueKind::Builtin: key += "b:" + std::string(v.builtin->name) + ";"; return;
    case ValueKind::Vmap: key += "vmap@"; address(v.vmap.get()); key += ';'; return;
    case ValueKind::DType: key += "dt:" + std::string(dtypeName(v.dtype)) + ";"; return;
  }
}

// Whether the compiled code takes an argument as arrays (its leaves become parameters of the
// trace); any other (static, None, a function, a string, a dtype) is in the key and the trace
// sees it as it is.
bool passedAsArrays(const Param& p, const Value& v) { return !p.isStatic && (v.isArray() || v.isTuple()); }

// The compile-cache key of a call: each argument's type, and its value when static (one part
// per parameter in `sig`, with how it shows). Weak array arguments take their default dtype
// first, in `bound` too, so the trace sees what the key says.
std::string signatureKey(const std::vector<Param>& params, std::vector<Value>& bound, Span span,
                         CallSignature& sig) {
  std::string key;
  for (size_t i = 0; i < bound.size(); ++i) {
    if (passedAsArrays(params[i], bound[i])) {
      std::vector<AVal> leaves;
      TreeDef def;
      Evaluator::flatten(bound[i], leaves, def, span, "a function argument");
      std::vector<AVal> dl;
      for (AVal& l : leaves) dl.push_back(defaultize(l, span));
      size_t pos = 0;
      bound[i] = Evaluator::unflatten(def, dl, pos);
    }
    std::string part;
    keyOf(bound[i], params[i].isStatic, part);
    sig.keyParts.push_back(std::move(part));
    sig.shown.push_back(shownArgument(bound[i], params[i].isStatic || !passedAsArrays(params[i], bound[i])));
    key += sig.keyParts.back();
  }
  return key;
}

// "f(f32[8], n=3)": the signature as --stats and :help show it.
std::string signatureText(const Closure& c, const CallSignature& sig) {
  std::string s = c.name + "(";
  for (size_t i = 0; i < sig.shown.size(); ++i) {
    const Param& p = (*c.params)[i];
    s += i ? ", " : "";
    if (p.isStatic) s += p.name + "=";
    s += sig.shown[i];
  }
  return s + ")";
}

// Note [Retrace reasons]
// --stats says why a function that was compiled before is traced again, as JAX's
// explain-cache-misses does: the first parameter whose part of the key differs from the last
// signature traced (a new shape or dtype, or a new static value: a static parameter, a string,
// a dtype or a function passed in), or the outer variable that was rebound since (Note
// [Captured variables]). The first trace of a function has no reason.
std::string retraceReason(const Closure& c, const CallSignature& now, const CallSignature& last) {
  for (size_t i = 0; i < now.keyParts.size() && i < last.keyParts.size(); ++i) {
    if (now.keyParts[i] == last.keyParts[i]) continue;
    const Param& p = (*c.params)[i];
    bool value = p.isStatic || now.keyParts[i].find('=') != std::string::npos ||
                 now.keyParts[i].find(':') != std::string::npos || now.keyParts[i].find('@') != std::string::npos;
    return std::string(value ? "new static value" : "new shape or dtype") + " of `" + p.name + "`: " +
           now.shown[i] + " (was " + last.shown[i] + ")";
  }
  return "new signature";
}

// The arguments a trace of `c` is made on: each array leaf a new parameter of `trace` (listed in
// `paramVars`) that remembers which parameter of `c` it came from; the rest as they are.
std::vector<Value> abstractArguments(const Closure& c, const std::vector<Value>& bound, Span span,
                                     Trace& trace, std::vector<int>& paramVars) {
  const auto& params = *c.params;
  std::vector<Value> abstractArgs;
  for (size_t i = 0; i < bound.size(); ++i) {
    if (!passedAsArrays(params[i], bound[i])) {
      abstractArgs.push_back(bound[i]);
      continue;
    }
    std::vector<AVal> leaves;
    TreeDef def;
    Evaluator::flatten(bound[i], leaves, def, span, "a function argument");
    auto origin = std::make_shared<Origin>();
    origin->paramName = params[i].name;
    origin->fnName = c.name;
    origin->declSpan = params[i].span;
    origin->description = "the parameter `" + params[i].name + "` of `" + c.name + "`";
    std::vector<AVal> abs;
    for (const AVal& l : leaves) {
      abs.push_back(trace.newParam(l.type, l.weak, origin));
      paramVars.push_back(abs.back().var);
    }
    size_t pos = 0;
    abstractArgs.push_back(Evaluator::unflatten(def, abs, pos));
  }
  return abstractArgs;
}

// Where a function's result is written: its block's final expression, else its body.
Span resultSpanOf(const Closure& c) {
  Span resultSpan = c.body->span;
  if (c.body->kind == ExprKind::Block) {
    const auto& block = static_cast<const BlockExpr&>(*c.body);
    if (block.result) resultSpan = block.result->span;
  }
  return resultSpan;
}

// The concrete leaves of the arguments the compiled code takes, in parameter order.
std::vector<Array> concreteArguments(const std::vector<Param>& params, const std::vector<Value>& bound,
                                     Span span) {
  std::vector<Array> in;
  for (size_t i = 0; i < bound.size(); ++i) {
    if (!passedAsArrays(params[i], bound[i])) continue;
    std::vector<AVal> leaves;
    TreeDef def;
    Evaluator::flatten(bound[i], leaves, def, span, "a function argument");
    for (const AVal& l : leaves) in.push_back(*l.concrete);
  }
  return in;
}

}  // namespace

// A call of a closure outside a trace: the key of its signature, the compiled entry for it
// (traced now when there is none), and a run of that entry.
Value Evaluator::callCompiled(const std::shared_ptr<Closure>& closure, std::vector<Value> bound, Span span,
                              Span site) {
  CallSignature sig;
  std::string key = signatureKey(*closure->params, bound, span, sig);
  CallRecord rec;
  rec.fn = closure->name;
  rec.signature = signatureText(*closure, sig);
  FnCache& fnCache = cacheOf(closure);
  std::string stale;
  const Compiled* entry = lookUpCompiled(fnCache, key, stale);
  if (!entry) {
    if (!stale.empty()) rec.retrace = stale;
    else if (!fnCache.lastTraced.keyParts.empty() || fnCache.traces > 0)
      rec.retrace = retraceReason(*closure, sig, fnCache.lastTraced);
    entry = traceCompiled(*closure, bound, span, site, key, fnCache, rec);
    fnCache.lastTraced = sig;
    ++fnCache.traces;
  }
  // A function that returns functions (a combinator such as `|f| |v| f(f(v))`) has nothing
  // to compile: it runs eagerly, as Python code around jax.jit would.
  if (!entry) return inlineClosure(*closure, bound, site);
  return runCompiled(*entry, *closure->params, bound, span, rec);
}

const Evaluator::Compiled* Evaluator::lookUpCompiled(FnCache& fnCache, const std::string& key, std::string& stale) {
  auto it = fnCache.entries.find(key);
  if (it == fnCache.entries.end()) return nullptr;
  std::string rebound = reboundCapture(it->second.captured);
  if (rebound.empty() && keyedAlive(it->second)) return &it->second;
  // A captured outer variable was rebound: its new value must be seen (Note [Retrace reasons]).
  stale = rebound.empty() ? "a function argument was redefined" : "rebound global `" + rebound + "`";
  fnCache.entries.erase(it);
  return nullptr;
}

std::vector<std::string> Evaluator::compiledSignatures(const Closure* c) const {
  std::vector<std::string> out;
  auto it = cache_.find(c);
  if (it == cache_.end() || it->second.closure.expired()) return out;
  for (const auto& [key, entry] : it->second.entries) out.push_back(entry.signature);
  return out;
}

const Evaluator::Compiled* Evaluator::traceCompiled(const Closure& c, const std::vector<Value>& bound,
                                                    Span span, Span site, const std::string& key,
                                                    FnCache& fnCache, CallRecord& rec) {
  auto t0 = std::chrono::steady_clock::now();
  // Record every outer variable the body reads (Note [Captured variables]).
  CaptureLog log;
  for (const Env* e = c.env.get(); e; e = e->parent().get()) log.outer.insert(e);
  CaptureLog* savedLog = captures_;
  captures_ = &log;
  struct Restore {
    CaptureLog*& slot;
    CaptureLog* saved;
    ~Restore() { slot = saved; }
  } restore{captures_, savedLog};
  Trace trace(nullptr, c.name);
  std::vector<int> paramVars;
  std::vector<Value> abstractArgs = abstractArguments(c, bound, span, trace, paramVars);
  Value result;
  tracer_.withTrace(trace, [&] { result = inlineClosure(c, abstractArgs, site); });
  if (!isPytree(result)) return nullptr;
  std::vector<AVal> outLeaves;
  TreeDef outTree;
  flatten(result, outLeaves, outTree, c.span, "a function result");
  std::vector<int> results;
  std::vector<bool> outWeak;
  // A static weak result materialises at its default dtype; E0228 points at the result.
  Span resultSpan = resultSpanOf(c);
  tracer_.withTrace(trace, [&] {
    for (const AVal& l : outLeaves) {
      results.push_back(tracer_.varOf(defaultize(l, resultSpan)));
      outWeak.push_back(l.weak);
    }
  });
  SCN_ASSERT(trace.captured().empty(), "top-level trace captured values");
  trace.finish(paramVars, results);
  std::string err = verify(trace.func());
  if (!err.empty()) internalError("IR of `" + c.name + "` fails verification: " + err);
  rec.traced = true;
  rec.traceMs = msSince(t0);
  // Function-valued arguments are keyed by identity (Note [Cache lifetime]).
  std::vector<std::weak_ptr<const void>> keyed;
  for (const Value& b : bound)
    if (b.isCallable() && payload(b)) keyed.push_back(payload(b));
  sweepCache();
  Compiled entry{trace.funcPtr(), outTree, outWeak, std::move(log.deps), std::move(keyed), rec.signature};
  return &fnCache.entries.emplace(key, std::move(entry)).first->second;
}

Value Evaluator::runCompiled(const Compiled& entry, const std::vector<Param>& params,
                             const std::vector<Value>& bound, Span span, CallRecord& rec) {
  std::vector<Array> out = host_.run(entry.func, concreteArguments(params, bound, span), &rec);
  records_.push_back(rec);
  std::vector<AVal> leaves;
  for (size_t i = 0; i < out.size(); ++i) leaves.push_back(AVal::of(std::move(out[i]), false));
  size_t pos = 0;
  return unflatten(entry.outTree, leaves, pos);
}

// Note [Cache lifetime]
// The compile cache is keyed by the closure's address and by the addresses of function-valued
// arguments (`apply(|a| a * 2, x)`), but it does not keep them alive: a closure made in a loop
// body would otherwise be pinned forever, with its scope and every array the scope binds. It
// holds weak references instead. Once one of them is gone, its address may be reused by
// another function, so an entry whose closure or keyed function died is never used (cacheOf,
// keyedAlive), and each new trace sweeps the dead entries out (sweepCache).
Evaluator::FnCache& Evaluator::cacheOf(const std::shared_ptr<Closure>& closure) {
  FnCache& fc = cache_[closure.get()];
  if (fc.closure.expired()) {  // new, or left by a dead closure at the same address
    fc = FnCache{};
    fc.closure = closure;
  }
  return fc;
}

bool Evaluator::keyedAlive(const Compiled& entry) {
  for (const std::weak_ptr<const void>& k : entry.keyedFunctions)
    if (k.expired()) return false;
  return true;
}

void Evaluator::sweepCache() {
  for (auto fn = cache_.begin(); fn != cache_.end();) {
    if (fn->second.closure.expired()) {
      fn = cache_.erase(fn);
      continue;
    }
    auto& entries = fn->second.entries;
    for (auto e = entries.begin(); e != entries.end();) e = keyedAlive(e->second) ? std::next(e) : entries.erase(e);
    ++fn;
  }
}

// Note [Captured variables]
// A function body may read variables of enclosing scopes (globals, the REPL's definitions);
// their values are baked into the trace as constants. Each cache entry remembers which
// variables it read and which value each held; a later call whose captured variable was
// rebound (`scale = 2.0`, or a new `let scale`) traces again instead of returning stale
// results (a JAX footgun we do not copy).
std::string Evaluator::reboundCapture(const std::vector<CaptureDep>& deps) const {
  for (const CaptureDep& d : deps) {
    const Env* where = nullptr;
    const Value* v = d.env->lookup(d.name, &where);
    if (!v || where != d.env || identity(*v) != d.identity) return d.name;
    if (d.owned && d.held.expired()) return d.name;  // another value took the old one's address
  }
  return "";
}

}  // namespace scn
