// Values as text: `describe` for diagnostics ("a tuple of 2"), Evaluator::format for `print`
// and the REPL.
#include "lang/eval.hpp"

namespace scn {

std::string describe(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: return surfaceTypeString(*v.array);
    case ValueKind::Tuple: return "a tuple of " + std::to_string(v.elems->size());
    case ValueKind::None: return "None";
    case ValueKind::String: return "a string";
    case ValueKind::Closure: return "the function `" + v.closure->name + "`";
    case ValueKind::Builtin: return std::string("the builtin `") + v.builtin->name + "`";
    case ValueKind::Vmap: return v.vmap->autodiff ? std::string("a function made by ") + v.vmap->autodiff->name() : "a vmapped function";
    case ValueKind::DType: return std::string("the dtype ") + dtypeName(v.dtype);
  }
  return "a value";
}

std::string Evaluator::format(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: {
      AVal a = defaultize(*v.array);
      if (!a.isStatic()) return "traced " + typeString(a.type);
      return formatArray(*a.concrete, printOptions_);
    }
    case ValueKind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < v.elems->size(); ++i) s += (i ? ", " : "") + format((*v.elems)[i]);
      return s + (v.elems->size() == 1 ? ",)" : ")");
    }
    case ValueKind::None: return "None";
    case ValueKind::String: return v.str;
    case ValueKind::Closure: return "<fn " + v.closure->name + ">";
    case ValueKind::Builtin: return std::string("<builtin ") + v.builtin->name + ">";
    case ValueKind::Vmap: return v.vmap->autodiff ? std::string("<") + v.vmap->autodiff->name() + " fn>" : "<vmapped fn>";
    case ValueKind::DType: return dtypeName(v.dtype);
  }
  return "?";
}

namespace {
// NumPy leaves out the dtypes an array literal gets by default; these are scn's.
bool shownWithoutDType(DType t) { return t == DType::F32 || t == DType::I32 || t == DType::Bool; }
}  // namespace

std::string Evaluator::display(const Value& v) {
  if (v.isArray()) {
    AVal a = defaultize(*v.array);
    if (!a.isStatic() || a.type.shape.empty()) return format(v);
    std::string text = displayArray(*a.concrete, printOptions_);
    if (shownWithoutDType(a.type.dtype)) return text;
    return typeString(a.type) + ":" + (text.find('\n') == std::string::npos ? " " : "\n") + text;
  }
  if (v.isTuple()) {
    std::string s = "(";
    for (size_t i = 0; i < v.elems->size(); ++i) {
      const Value& e = (*v.elems)[i];
      s += (i ? ", " : "") + (e.kind == ValueKind::String ? "\"" + e.str + "\"" : format(e));
    }
    return s + (v.elems->size() == 1 ? ",)" : ")");
  }
  return format(v);
}

}  // namespace scn
