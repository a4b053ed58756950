// Method calls on arrays: `x.sum(axis=0)` is `sum(x, axis=0)` for the builtins JAX has as array
// methods, and the functional updates `x.at[i].set(v)` (lang/gather_index.cpp).
#include <algorithm>
#include <limits>

#include "base/diagnostics.hpp"
#include "base/suggest.hpp"
#include "lang/builtin_args.hpp"
#include "lang/eval_internal.hpp"
#include "lang/gather_index.hpp"
#include "lang/methods.hpp"
#include "lang/name_hints.hpp"
#include "lang/namespaces.hpp"

namespace scn {

namespace {

// Note [Methods]
// `x.f(args)` is sugar for the builtin `f(x, args)` when JAX has `f` as an array method (the
// list below) and scn has the builtin; anything else after the dot is an attribute (`.shape`,
// `.T`, ...), the update reference `.at`, or an error that lists the close names. The list
// only names methods whose first parameter is the array, so the sugar never reorders arguments;
// `reshape` and `transpose` also take their shape or axes as separate arguments, as in JAX.
const char* const kMethodNames[] = {
    "all",     "any",     "argmax",  "argmin",  "argsort", "astype",  "clip",   "conj",
    "conjugate", "cummax", "cummin", "cumprod", "cumsum",  "diagonal", "dot",   "flatten",
    "max",     "mean",    "min",     "nonzero", "prod",    "ravel",   "repeat", "reshape",
    "round",   "searchsorted", "sort", "squeeze", "std",   "sum",     "swapaxes", "take",
    "trace",   "transpose", "var",
};
const char* const kAttributeNames[] = {"shape", "ndim", "size", "dtype", "T", "real", "imag", "at"};

// The builtin a method calls: its own name, or for jax.Array's flatten (jnp has no function of
// that name) ravel.
std::string builtinOfMethod(const std::string& name) { return name == "flatten" ? "ravel" : name; }

bool isMethod(const std::string& name) {
  return std::find(std::begin(kMethodNames), std::end(kMethodNames), name) != std::end(kMethodNames) &&
         builtins().count(builtinOfMethod(name));
}

bool isAttribute(const std::string& name) {
  return std::find(std::begin(kAttributeNames), std::end(kAttributeNames), name) != std::end(kAttributeNames);
}

}  // namespace

bool isArrayMethod(const std::string& name) { return isMethod(name); }

std::string arrayMemberHelp(const std::string& name) {
  std::vector<std::string> all, close;
  for (const char* m : kAttributeNames) all.push_back(m);
  for (const char* m : kMethodNames)
    if (builtins().count(builtinOfMethod(m))) all.push_back(std::string(m) + "()");
  for (const std::string& m : all) {
    std::string bare = m.substr(0, m.find('('));
    if (name.size() <= kLongestSuggested && editDistance(bare, name) <= std::max<size_t>(1, name.size() / 3))
      close.push_back("`." + m + "`");
  }
  if (close.empty())
    return "arrays have .shape .ndim .size .dtype .T .real .imag .at and the methods of the array builtins JAX has "
           "as methods (`x.sum()`, `x.reshape(...)`; docs/language.md, Methods)";
  std::string dym;
  for (size_t i = 0; i < close.size(); ++i) dym += (i ? " or " : "") + close[i];
  return "did you mean " + dym + "?";
}

Value Evaluator::evalMethodCall(const CallExpr& e, const std::shared_ptr<Env>& env) {
  const auto& m = static_cast<const AttrExpr&>(*e.callee);
  rejectModulePrefix(m, *env);  // `jnp.mean(x)`: E0273 before `jnp` is an unknown name
  if (m.base->kind == ExprKind::Index) {
    const auto& ix = static_cast<const IndexExpr&>(*m.base);
    if (ix.base->kind == ExprKind::Attr && static_cast<const AttrExpr&>(*ix.base).attr == "at")
      return evalAtUpdate(e, ix, env);
  }
  if (isAttribute(m.attr) || !isMethod(m.attr)) {
    Value self = eval(*m.base, env);
    if (self.isArray() && !isAttribute(m.attr))
      fail("E0214", m.span, surfaceTypeString(*self.array) + " has no method `" + m.attr + "`",
           shadowedModuleHelp(m, *env).value_or(arrayMemberHelp(m.attr)));
    Value callee = evalAttr(m, env);  // an attribute: not callable (E0216 below)
    fail("E0216", e.callee->span, describe(callee) + " is not callable");
  }
  Value self = eval(*m.base, env);
  if (!self.isArray())
    fail("E0214", m.span, "`." + m.attr + "(...)` needs an array, got " + describe(self),
         shadowedModuleHelp(m, *env).value_or(""));
  CallArgs args = evalArguments(*this, e.args, e.span, env);
  // x.reshape(2, 3) and x.transpose(1, 0) take the shape or axes as separate arguments too.
  if ((m.attr == "reshape" || m.attr == "transpose") && args.pos.size() > 1) {
    Span all = args.posSpans.front().to(args.posSpans.back());
    args.pos = {Value::ofTuple(std::move(args.pos))};
    args.posSpans = {all};
  }
  args.pos.insert(args.pos.begin(), self);
  args.posSpans.insert(args.posSpans.begin(), m.base->span);
  return call(Value::ofBuiltin(builtins().at(builtinOfMethod(m.attr))), args);
}

namespace {

/// The fill value of `.get(mode='fill')` when none is given: NaN for floats, the lowest signed
/// integer, the highest unsigned one, true (as JAX).
AVal defaultFill(DType t) {
  switch (t) {
    case DType::BF16: case DType::F16: case DType::F32: case DType::F64: case DType::C64: case DType::C128:
      return strongScalar(t, std::numeric_limits<double>::quiet_NaN());
    case DType::I32: return AVal::of(Array::scalarInt(t, std::numeric_limits<int32_t>::min()));
    case DType::I64: return AVal::of(Array::scalarInt(t, std::numeric_limits<int64_t>::min()));
    case DType::U32: return AVal::of(Array::scalarInt(t, std::numeric_limits<uint32_t>::max()));
    case DType::U64: return AVal::of(Array::scalarInt(t, -1));
    case DType::Bool: return AVal::of(Array::scalarInt(t, 1));
  }
  return strongScalar(t, 0);
}

/// JAX's `mode=` of an update or a read: whether out-of-range indices are clamped into range
/// (`clip`, `promise_in_bounds`; the default of reads) or dropped / filled (`drop`, `fill`; the
/// default of updates).
bool clampsIndices(const Args& a, size_t i, bool isRead, const std::string& what) {
  if (!a.has(i) || a.get(i).isNone()) return isRead;
  const Value& v = a.get(i);
  std::string mode = v.kind == ValueKind::String ? v.str : "";
  if (mode == "clip" || mode == "promise_in_bounds") return true;
  if (mode == "drop" || mode == "fill") return false;
  fail("E0248", a.span(i), what + " got an unknown mode " + (v.kind == ValueKind::String ? "\"" + mode + "\"" : describe(v)),
       "mode is one of \"clip\", \"drop\", \"fill\", \"promise_in_bounds\"");
}

Op scatterOpOf(const std::string& method) {
  if (method == "set") return Op::Scatter;
  if (method == "add") return Op::ScatterAdd;
  if (method == "mul" || method == "multiply") return Op::ScatterMul;
  if (method == "min") return Op::ScatterMin;
  return Op::ScatterMax;
}

}  // namespace

Value Evaluator::evalAtUpdate(const CallExpr& e, const IndexExpr& ix, const std::shared_ptr<Env>& env) {
  const auto& m = static_cast<const AttrExpr&>(*e.callee);
  const auto& at = static_cast<const AttrExpr&>(*ix.base);
  static const std::vector<std::string> kUpdates{"set",    "add",    "subtract", "mul", "multiply",
                                                  "divide", "power",  "min",      "max", "get"};
  if (std::find(kUpdates.begin(), kUpdates.end(), m.attr) == kUpdates.end())
    fail("E0248", m.span, "`x.at[...]` has no method `" + m.attr + "`",
         "the methods of `x.at[...]` are .set(v) .add(v) .subtract(v) .multiply(v) (.mul) .divide(v) .power(v) "
         ".min(v) .max(v) and .get()");
  Value base = eval(*at.base, env);
  if (!base.isArray()) fail("E0214", at.span, "`.at` needs an array, got " + describe(base));
  AVal x = *base.array;
  std::vector<IndexArg> idx = evalIndexArgs(ix.items, env);
  CallArgs c = evalArguments(*this, e.args, e.span, env);
  const std::string what = "x.at[...]." + m.attr;
  if (m.attr == "get") {
    Args a(*this, c, what.c_str(), {"mode=", "fill_value=", "indices_are_sorted=", "unique_indices="});
    if (clampsIndices(a, 0, true, what)) return Value::ofArray(gatherIndexed(*this, x, idx, std::nullopt, false, e.span));
    AVal fill = a.has(1) && !a.get(1).isNone() ? a.array(1) : defaultFill(surfaceType(x).dtype);
    return Value::ofArray(gatherIndexed(*this, x, idx, fill, false, e.span));
  }
  Args a(*this, c, what.c_str(), {"values", "mode=", "indices_are_sorted=", "unique_indices="});
  bool clip = clampsIndices(a, 1, false, what);
  AVal values = a.array(0);
  if (m.attr == "subtract")  // as JAX: add the negated values
    return Value::ofArray(scatterIndexed(*this, x, idx, Op::ScatterAdd, ops_.unary(Op::Neg, values, e.span), clip, e.span));
  if (m.attr == "divide" || m.attr == "power") {
    // As JAX: x / (or **) the ones with the values multiplied in at idx, so a repeated index
    // divides (or raises) by the product of its values.
    AVal ones = ops_.full(x.type.shape, strongScalar(surfaceType(x).dtype, 1), e.span);
    AVal factors = scatterIndexed(*this, ones, idx, Op::ScatterMul, values, clip, e.span);
    return Value::ofArray(m.attr == "divide" ? ops_.trueDivide(x, factors, e.span)
                                             : ops_.binary(Op::Pow, x, factors, e.span, "power"));
  }
  return Value::ofArray(scatterIndexed(*this, x, idx, scatterOpOf(m.attr), values, clip, e.span));
}

}  // namespace scn
