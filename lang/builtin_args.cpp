// Binding builtin arguments by name, and the static conversions builtins need.
#include "lang/builtin_args.hpp"

#include "base/suggest.hpp"
#include "lang/name_hints.hpp"

namespace scn {

namespace {
std::string signatureOf(const char* fn, const std::vector<std::string>& names) {
  std::string s = std::string(fn) + "(";
  for (size_t i = 0; i < names.size(); ++i) {
    s += (i ? ", " : "") + names[i];
    if (!names[i].empty() && names[i].back() == '=') s += "...";
  }
  return s + ")";
}

// "did you mean `axis=`? " before `rest` when a parameter is close to the unknown keyword.
std::string withSuggestion(const std::string& key, std::vector<std::string> names, const std::string& rest) {
  for (std::string& n : names)
    if (!n.empty() && n.back() == '=') n.pop_back();
  std::string close = didYouMean(closestNames(key, names), "=");
  return close.empty() ? rest : close + " " + rest;
}
}  // namespace

Args::Args(Evaluator& ev, CallArgs& call, const char* fn, std::vector<std::string> names)
    : ev_(ev), call_(call), fn_(fn), names_(std::move(names)) {
  values_.resize(names_.size());
  spans_.assign(names_.size(), call.span);
  // A trailing "*" name collects nothing: builtins with varargs read call.pos themselves.
  if (call.pos.size() > names_.size())
    fail("E0220", call.posSpans[names_.size()],
         std::string(fn) + " takes at most " + std::to_string(names_.size()) + " positional argument" +
             (names_.size() == 1 ? "" : "s") + ", got " + std::to_string(call.pos.size()),
         "signature: " + signatureOf(fn, names_));
  for (size_t i = 0; i < call.pos.size(); ++i) {
    values_[i] = call.pos[i];
    spans_[i] = call.posSpans[i];
  }
  for (size_t k = 0; k < call.kw.size(); ++k) {
    const std::string& key = call.kw[k].first;
    size_t i = 0;
    while (i < names_.size() && names_[i] != key && names_[i] != key + "=") ++i;
    if (i == names_.size())
      fail("E0221", call.kwSpans[k], std::string(fn) + " has no parameter `" + key + "`",
           withSuggestion(key, names_, "signature: " + signatureOf(fn, names_)));
    if (values_[i]) fail("E0215", call.kwSpans[k], "argument `" + key + "` given twice");
    values_[i] = call.kw[k].second;
    spans_[i] = call.kwSpans[k];
  }
  for (size_t i = 0; i < names_.size(); ++i) {
    bool optional = !names_[i].empty() && names_[i].back() == '=';
    if (!optional && !values_[i])
      fail("E0220", call.span, std::string(fn) + " is missing the argument `" + names_[i] + "`",
           "signature: " + signatureOf(fn, names_));
    if (optional) names_[i].pop_back();
  }
}

const Value& Args::get(size_t i) const {
  SCN_ASSERT(values_[i].has_value(), "missing builtin argument");
  return *values_[i];
}

AVal Args::array(size_t i) const {
  return toArray(get(i), spans_[i], (std::string(fn_) + " argument `" + names_[i] + "`").c_str());
}

int64_t Args::integer(size_t i, std::optional<int64_t> dflt, StaticUse use) const {
  if (!has(i) || get(i).isNone()) {
    SCN_ASSERT(dflt.has_value(), "integer argument without default");
    return *dflt;
  }
  return staticInt(array(i), use, spans_[i], use == StaticUse::ScanLength ? "" : "`" + names_[i] + "` of " + fn_);
}

bool Args::boolean(size_t i, bool dflt) const {
  if (!has(i)) return dflt;
  Array a = concreteOrError(array(i), StaticUse::Other, spans_[i], "`" + names_[i] + "` of " + fn_);
  return a.getDouble(0) != 0;
}

double Args::number(size_t i, double dflt) const {
  if (!has(i)) return dflt;
  Array a = concreteOrError(array(i), StaticUse::Other, spans_[i], "`" + names_[i] + "` of " + fn_);
  if (a.rank() != 0) fail("E0222", spans_[i], "`" + names_[i] + "` of " + fn_ + " must be a scalar");
  return a.getDouble(0);
}

Value Args::sequence(size_t i) const {
  const Value& v = get(i);
  if (!v.isArray() || v.array->type.shape.size() != 1 || !v.array->isStatic()) return v;
  const Array& a = *v.array->concrete;
  if (a.size() > 0 && !isInteger(a.dtype)) return v;
  std::vector<Value> elems;
  for (int64_t k = 0; k < a.size(); ++k) elems.push_back(Value::ofArray(weakInt(a.getInt(k))));
  return Value::ofTuple(std::move(elems));
}

Shape Args::shape(size_t i) const {
  Value v = sequence(i);
  Shape s;
  auto dimOf = [&](const Value& d) {
    int64_t n = staticInt(toArray(d, spans_[i], fn_), StaticUse::Shape, spans_[i], "`" + names_[i] + "` of " + fn_);
    if (n < 0) fail("E0223", spans_[i], std::string(fn_) + " got a negative dimension " + std::to_string(n));
    return n;
  };
  if (v.isTuple()) {
    for (const Value& d : *v.elems) s.push_back(dimOf(d));
  } else {
    s.push_back(dimOf(v));
  }
  numElements(s);  // overflow check
  return s;
}

std::optional<std::vector<int64_t>> Args::axes(size_t i) const {
  if (!has(i) || get(i).isNone()) return std::nullopt;
  Value v = sequence(i);
  std::vector<int64_t> out;
  auto axisOf = [&](const Value& d) {
    return staticInt(toArray(d, spans_[i], fn_), StaticUse::Axis, spans_[i], "`" + names_[i] + "` of " + fn_);
  };
  if (v.isTuple()) {
    for (const Value& d : *v.elems) out.push_back(axisOf(d));
  } else {
    out.push_back(axisOf(v));
  }
  return out;
}

std::optional<DType> Args::dtype(size_t i) const {
  if (!has(i) || get(i).isNone()) return std::nullopt;
  const Value& v = get(i);
  if (v.kind == ValueKind::DType) return v.dtype;
  if (v.kind == ValueKind::String)
    if (auto t = dtypeFromName(v.str)) return t;
  std::string help = "dtypes are " + dtypeNameList();
  if (v.kind == ValueKind::String)
    if (auto t = foreignDTypeName(v.str))
      help = std::string("scn calls this dtype `") + dtypeName(*t) + "`: write `" + names_[i] + "=" + dtypeName(*t) + "`";
  fail("E0224", spans_[i], std::string(fn_) + ": `" + names_[i] + "` must be a dtype, got " + describe(v), help);
}

const Value& Args::callable(size_t i) const {
  const Value& v = get(i);
  if (!v.isCallable())
    fail("E0216", spans_[i], std::string(fn_) + ": `" + names_[i] + "` must be a function, got " + describe(v));
  return v;
}

Flat flat(const Value& v, Span span, const char* what) {
  Flat f;
  Evaluator::flatten(v, f.leaves, f.def, span, what);
  for (AVal& l : f.leaves) l = defaultize(l, span);
  return f;
}

AVal placeholder(AVal x) {
  x.concrete.reset();
  x.trace = nullptr;
  x.var = -1;
  return x;
}

}  // namespace scn
