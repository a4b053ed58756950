// The trace stack, op application (fold or emit) and concretization errors.
#include "lang/tracer.hpp"

#include "lang/array_ops.hpp"
#include "base/diagnostics.hpp"

namespace scn {

// Note [Origins]
// Every traced value carries the Origin of the first traced operand it was computed from: a fn
// parameter, a scan carry, a loop index. When a static value is demanded and a traced one is
// found, the error names that origin and points a second caret at its declaration, which is
// what users need to find the fix (JAX can only say "argument n").

// Note [Folding]
// Ops whose inputs are all static are evaluated at once with the reference kernels: at top level
// (eager execution) always; inside a trace when the result is small (host-scalar arithmetic,
// shapes, indices), so `x.shape[0] * 2` stays static. Larger static arrays inside a trace are
// staged as constants; broadcasts, iotas and control flow inside a trace are always staged.

// Note [Staging weak values]
// The result of an op is weak when its value operands are all weak (Select's predicate and the
// start indices of the dynamic slices are not value operands). Folded, such a result keeps the
// 64-bit storage of static weak values (Note [Weak types] in array_ops.cpp). Staged, it becomes
// a traced weak value, and traced weak values have the default dtype: so before staging, each
// static weak operand is materialised at its default dtype (`defaultize`, which checks that an
// integer fits i32: E0228 at the op). The staged op then computes what the eager op would show:
// `broadcast_to(k, (3,))` of a static weak `k` is i32[3] in a fn and at the top level.
// Only all-weak ops are touched: a weak operand that met a strong one has been converted to the
// strong dtype and made strong by the promotion (ArrayOps::binary, select, concat, matmul), so
// `x_i64 + 3` stays i64. A Convert of a static weak value is always folded (it only changes the
// host storage, as promotion between weak values does), and ArrayOps::convert makes a traced
// weak value strong when it goes to a dtype other than i32/f32 (only a strong operand asks for
// one), so no traced weak value ever has a 64-bit dtype. Control flow keeps its operands: loop
// carries and branch operands were defaultized when the bodies were traced.

namespace {
constexpr int64_t kFoldLimit = 1024;  // elements of a folded result inside a trace

// Whether input `i` of `op` is a value operand, whose weakness the result inherits.
bool isValueOperand(Op op, size_t i) {
  if (op == Op::Select) return i != 0;
  if (op == Op::DynamicSlice) return i == 0;
  if (op == Op::DynamicUpdateSlice) return i <= 1;
  if (opInfo(op).category == OpCategory::Gather) return i == 0;
  if (opInfo(op).category == OpCategory::Scatter) return i <= 1;
  return true;
}

// The name of an op as a program writes it, for E0373: its builtin, or its operator.
std::string surfaceName(Op op) {
  switch (op) {
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::FloorDiv: return "//";
    case Op::Rem: return "%";
    case Op::Pow: return "**";
    case Op::Not: return "~";
    case Op::And: return "&";
    case Op::Or: return "|";
    case Op::Xor: return "^";
    case Op::Shl: return "<<";
    case Op::Shr: return ">>";
    default: break;
  }
  std::string s = opInfo(op).surface;
  return s.empty() ? opName(op) : s.substr(0, s.find('('));
}

// E0373 when a complex operand reaches an op whose type class does not admit complex
// (Note [Complex numbers] in jit/scalar/complex.inc).
void checkComplexOperand(Op op, const std::vector<AVal>& in, Span span) {
  if (in.empty() || !isComplex(in[0].type.dtype) || inTypeClass(in[0].type.dtype, opInfo(op).typeClass)) return;
  TypeClass tc = opInfo(op).typeClass;
  bool ordered = tc == TypeClass::Real;
  fail("E0373", span,
       "`" + surfaceName(op) + "` does not support complex operands, got " + surfaceTypeString(in[0]),
       ordered ? "complex numbers have no order; compare real parts (`real(z)`) or magnitudes (`abs(z)`)"
               : "complex arrays support + - * / ** == != exp log sqrt sin cos sum prod mean cumsum "
                 "cumprod matmul and real imag conj abs angle sign isnan; take a real part first "
                 "(`real(z)`, `abs(z)`)");
}

bool isWide(DType t) { return t == DType::I64 || t == DType::F64 || t == DType::C128; }
}  // namespace

Trace::Trace(Trace* parent, std::string name) : parent_(parent), func_(std::make_shared<Func>()) {
  func_->name = std::move(name);
}

AVal Trace::newParam(const Type& t, bool weak, std::shared_ptr<const Origin> origin) {
  AVal v;
  v.type = t;
  v.weak = weak;
  v.trace = this;
  v.var = func_->newVar(t);
  v.origin = std::move(origin);
  func_->params.push_back(v.var);
  return v;
}

int Trace::localVar(const AVal& v) {
  SCN_ASSERT(!v.isStatic(), "localVar of a static value");
  if (v.trace == this) return v.var;
  auto key = std::make_pair(v.trace, v.var);
  auto it = captureMap_.find(key);
  if (it != captureMap_.end()) return it->second;
  if (parent_ == nullptr)
    fail("E0103", Span{}, "a traced value escaped the function that traced it",
         "return the value from the function instead of storing it in an outer variable");
  // Make sure the parent can name it (capturing it there in turn), then capture it here.
  AVal outer = v;
  outer.var = parent_->localVar(v);
  outer.trace = parent_;
  int local = func_->newVar(v.type);
  captured_.push_back(outer);
  captureParams_.push_back(local);
  captureMap_[key] = local;
  return local;
}

void Trace::finish(const std::vector<int>& explicitParams, const std::vector<int>& results) {
  func_->params = captureParams_;
  func_->params.insert(func_->params.end(), explicitParams.begin(), explicitParams.end());
  func_->results = results;
}

int Tracer::varOf(const AVal& v) {
  SCN_ASSERT(current_ != nullptr, "varOf outside a trace");
  if (!v.isStatic()) return current_->localVar(v);
  const void* key = v.concrete->raw();
  auto& consts = current_->constants;
  auto it = consts.find(key);
  if (it != consts.end() && current_->func().type(it->second) == v.type) return it->second;
  Eqn e{Op::Constant, {}, {}, {}, {}, {}};
  e.attrs.value = std::make_shared<Array>(*v.concrete);
  int out = current_->func().newVar(v.type);
  e.outputs.push_back(out);
  current_->func().eqns.push_back(std::move(e));
  consts[key] = out;
  return out;
}

std::vector<AVal> Tracer::apply(Op op, const std::vector<AVal>& inputs, const Attrs& attrs, Span span,
                                const std::vector<FuncPtr>& subs) {
  std::vector<AVal> in = inputs;
  std::vector<Type> inTypes;
  bool allStatic = true, allWeak = true, anyValue = false;
  for (size_t i = 0; i < in.size(); ++i) {
    inTypes.push_back(in[i].type);
    allStatic = allStatic && in[i].isStatic();
    if (!isValueOperand(op, i)) continue;
    anyValue = true;
    allWeak = allWeak && in[i].weak;
  }
  allWeak = allWeak && anyValue;
  bool controlFlow = op == Op::Scan || op == Op::While || op == Op::Cond;
  // Note [Staging weak values]: a staged all-weak op sees its static weak operands at their
  // default dtype. With a traced operand the op is staged for sure, so before type inference
  // (the traced operands already have the default dtype); otherwise once folding is ruled out.
  auto materialiseWeak = [&] {
    bool changed = false;
    if (!allWeak || controlFlow || !tracing()) return changed;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!in[i].isStatic() || !in[i].weak || !isWide(in[i].type.dtype)) continue;
      in[i] = defaultize(in[i], span);
      inTypes[i] = in[i].type;
      changed = true;
    }
    return changed;
  };
  checkComplexOperand(op, in, span);
  if (!allStatic) materialiseWeak();
  InferResult r = inferTypes(op, inTypes, attrs, subs);
  if (!r.ok()) fail("E0201", span, r.error);
  Eqn e;
  e.op = op;
  e.attrs = attrs;
  e.subs = subs;
  e.span = span;
  // Broadcasts and iotas stay symbolic inside a trace: folding them would only trade a scalar
  // for a materialised constant array.
  bool expands = op == Op::BroadcastInDim || op == Op::Iota;
  bool small = !expands;
  for (const Type& t : r.types) small = small && numElements(t.shape) <= kFoldLimit;
  // Converting a static weak value only changes its host storage (Note [Staging weak values]).
  bool hostConvert = op == Op::Convert && allWeak;
  // A collective is consumed by its axis's batching rule: it is never folded inside a trace.
  bool collective = opInfo(op).category == OpCategory::Collective;
  if (allStatic && (!tracing() || (small && !controlFlow && !collective) || hostConvert)) return fold(e, in, allWeak);
  if (allStatic && materialiseWeak()) {
    r = inferTypes(op, inTypes, attrs, subs);
    if (!r.ok()) fail("E0201", span, r.error);
  }
  return emit(std::move(e), r.types, in, allWeak);
}

std::vector<AVal> Tracer::fold(const Eqn& e, const std::vector<AVal>& in, bool weak) {
  std::vector<Array> args;
  for (const AVal& v : in) args.push_back(*v.concrete);
  std::vector<Array> outs;
  bool controlFlow = e.op == Op::Scan || e.op == Op::While || e.op == Op::Cond;
  if (controlFlow) {
    // Loops run compiled even at top level: wrap the equation in a one-equation function.
    auto f = std::make_shared<Func>();
    f->name = opName(e.op);
    Eqn copy = e;
    copy.inputs.clear();
    for (const AVal& v : in) {
      int p = f->newVar(v.type);
      f->params.push_back(p);
      copy.inputs.push_back(p);
    }
    InferResult r = inferTypes(e.op, [&] {
      std::vector<Type> ts;
      for (const AVal& v : in) ts.push_back(v.type);
      return ts;
    }(), e.attrs, e.subs);
    for (const Type& t : r.types) copy.outputs.push_back(f->newVar(t));
    f->results = copy.outputs;
    f->eqns.push_back(std::move(copy));
    outs = run_(f, args);
  } else {
    outs = evalEqn(e, args);
  }
  std::vector<AVal> result;
  for (Array& a : outs) result.push_back(AVal::of(std::move(a), weak));
  return result;
}

std::vector<AVal> Tracer::emit(Eqn e, const std::vector<Type>& outTypes,
                               const std::vector<AVal>& in, bool weak) {
  SCN_ASSERT(tracing(), "emit outside a trace");
  std::shared_ptr<const Origin> origin;
  for (const AVal& v : in)
    if (!v.isStatic() && v.origin) {
      origin = v.origin;
      break;
    }
  for (const AVal& v : in) e.inputs.push_back(varOf(v));
  std::vector<AVal> result;
  for (const Type& t : outTypes) {
    AVal o;
    o.type = t;
    o.weak = weak;
    o.trace = current_;
    o.var = current_->func().newVar(t);
    o.origin = origin;
    e.outputs.push_back(o.var);
    result.push_back(std::move(o));
  }
  current_->func().eqns.push_back(std::move(e));
  return result;
}

std::vector<AVal> Tracer::call(const FuncPtr& f, const std::vector<AVal>& args, Span span) {
  SCN_ASSERT(f->params.size() == args.size(), "call arity");
  bool allStatic = true;
  for (const AVal& a : args) allStatic = allStatic && a.isStatic();
  if (!tracing()) {
    SCN_ASSERT(allStatic, "traced value at top level");
    std::vector<Array> in;
    for (const AVal& a : args) in.push_back(*a.concrete);
    std::vector<AVal> out;
    for (Array& a : run_(f, in)) out.push_back(AVal::of(std::move(a)));
    return out;
  }
  // Inline: map f's variables to values of the current trace, re-applying each equation.
  std::vector<std::optional<AVal>> env(f->types.size());
  for (size_t i = 0; i < args.size(); ++i) env[f->params[i]] = args[i];
  for (const Eqn& e : f->eqns) {
    std::vector<AVal> in;
    for (int v : e.inputs) in.push_back(*env.at(v));
    std::vector<AVal> outs = apply(e.op, in, e.attrs, e.span.valid() ? e.span : span, e.subs);
    for (size_t i = 0; i < outs.size(); ++i) env[e.outputs[i]] = outs[i];
  }
  std::vector<AVal> results;
  for (int r : f->results) results.push_back(*env.at(r));
  return results;
}

namespace {

std::string useDescription(StaticUse what) {
  switch (what) {
    case StaticUse::ScanLength: return "the `length` of a scan";
    case StaticUse::ForBound: return "a `for` loop bound";
    case StaticUse::Shape: return "a shape";
    case StaticUse::Axis: return "an axis";
    case StaticUse::StaticParam: return "a `static` parameter";
    case StaticUse::IfCondition: return "an `if` condition";
    case StaticUse::SliceBound: return "a slice bound";
    case StaticUse::HostConversion: return "a host value";
    case StaticUse::Index: return "an index";
    case StaticUse::TupleIndex: return "a tuple index";
    case StaticUse::TupleComparison: return "an element of a tuple compared with `==`";
    case StaticUse::BoolMask: return "a boolean mask index";
    case StaticUse::ResultSize: return "the size of the result";
    case StaticUse::Other: return "this argument";
  }
  return "this value";
}

std::string fixFor(StaticUse what, const Origin* o) {
  std::string param = o && !o->paramName.empty() ? o->paramName : "the parameter";
  std::string markStatic = o && !o->fnName.empty() && !o->paramName.empty()
                               ? "mark it static: `fn " + o->fnName + "(static " + param + ", ...)`"
                               : "make the value static (a `static` parameter or a top-level constant)";
  switch (what) {
    case StaticUse::ScanLength:
    case StaticUse::Shape:
      return markStatic + ", or pass an array whose shape carries the size";
    case StaticUse::ForBound:
      return markStatic + ", or use `fori_loop(lo, hi, f, init)` / `while_loop(cond, body, init)`, "
                          "which accept traced trip counts";
    case StaticUse::IfCondition:
      return "use `select(c, a, b)` or `cond(p, f_true, f_false, operands...)` to choose on a "
             "traced value, or " + markStatic;
    case StaticUse::SliceBound:
    case StaticUse::Index:
      return "use `dynamic_slice(x, starts, sizes)` for a traced start, or " + markStatic;
    case StaticUse::TupleIndex:
      return "tuples are indexed at trace time; " + markStatic + ", or use an array and `select`";
    case StaticUse::TupleComparison:
      return "tuples are compared at trace time; compare the arrays themselves (`all(a == b)`), "
             "or " + markStatic;
    case StaticUse::BoolMask:
      return "the shape of `x[mask]` is the number of true elements, so it cannot depend on a traced "
             "mask; use `where(mask, x, 0)` to keep the shape, or " + markStatic;
    case StaticUse::ResultSize:
      return "the result has one entry per nonzero element, so its size depends on the values; pass a "
             "static `size=` (the indices are truncated to it, or padded with `fill_value=`), or " + markStatic;
    case StaticUse::Axis:
    case StaticUse::StaticParam:
    case StaticUse::HostConversion:
    case StaticUse::Other:
      return markStatic;
  }
  return markStatic;
}

}  // namespace

Array concreteOrError(const AVal& v, StaticUse what, Span use, const std::string& context) {
  if (v.isStatic()) return *v.concrete;
  const Origin* o = v.origin.get();
  std::string msg = "concretization error: " + useDescription(what) +
                    (context.empty() ? "" : " (" + context + ")") + " must be static, but ";
  msg += o ? "it depends on " + o->description : "its value is traced";
  std::vector<DiagNote> notes;
  if (o && o->declSpan.valid())
    notes.push_back({o->declSpan, (o->paramName.empty() ? o->description : "`" + o->paramName + "`") +
                                      std::string(" is traced here: its value is known only when the "
                                                  "compiled code runs")});
  // A traced mask has its own code, as JAX's NonConcreteBooleanIndexError (Note [Index plans]).
  fail(what == StaticUse::BoolMask ? "E0107" : "E0101", use, msg, fixFor(what, o), std::move(notes));
}

int64_t staticInt(const AVal& v, StaticUse what, Span use, const std::string& context) {
  Array a = concreteOrError(v, what, use, context);
  if (a.rank() != 0 || !(isInteger(a.dtype) || a.dtype == DType::Bool))
    fail("E0202", use,
         useDescription(what) + (context.empty() ? "" : " (" + context + ")") +
             " must be an integer scalar, got " + surfaceTypeString(v));
  return a.getInt(0);
}

}  // namespace scn
