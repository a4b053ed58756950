// Values as arrays and pytrees: toArray (E0208), flattening a tree of arrays, tuples and None
// into its leaves and structure (E0209), and building it again.
#include "lang/eval.hpp"

#include "base/diagnostics.hpp"

namespace scn {

AVal toArray(const Value& v, Span span, const char* what) {
  if (v.isArray()) return *v.array;
  fail("E0208", span, std::string(what) + " expects an array, got " + describe(v));
}

std::string TreeDef::str() const {
  switch (kind) {
    case Leaf: return "array";
    case None: return "None";
    case Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < children.size(); ++i) s += (i ? ", " : "") + children[i].str();
      return s + (children.size() == 1 ? ",)" : ")");
    }
  }
  return "?";
}

void Evaluator::flatten(const Value& v, std::vector<AVal>& leaves, TreeDef& def, Span span,
                        const char* what) {
  switch (v.kind) {
    case ValueKind::Array:
      def.kind = TreeDef::Leaf;
      leaves.push_back(*v.array);
      return;
    case ValueKind::None:
      def.kind = TreeDef::None;
      return;
    case ValueKind::Tuple:
      def.kind = TreeDef::Tuple;
      def.children.resize(v.elems->size());
      for (size_t i = 0; i < v.elems->size(); ++i) flatten((*v.elems)[i], leaves, def.children[i], span, what);
      return;
    case ValueKind::String: case ValueKind::Closure: case ValueKind::Builtin:
    case ValueKind::Vmap: case ValueKind::DType:
      fail("E0209", span, std::string(what) + " can only hold arrays, tuples and None, got " + describe(v));
  }
}

bool isPytree(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: case ValueKind::None: return true;
    case ValueKind::Tuple:
      for (const Value& e : *v.elems)
        if (!isPytree(e)) return false;
      return true;
    case ValueKind::String: case ValueKind::Closure: case ValueKind::Builtin:
    case ValueKind::Vmap: case ValueKind::DType:
      return false;
  }
  return false;
}

Value Evaluator::unflatten(const TreeDef& def, const std::vector<AVal>& leaves, size_t& pos) {
  switch (def.kind) {
    case TreeDef::Leaf: return Value::ofArray(leaves.at(pos++));
    case TreeDef::None: return Value::none();
    case TreeDef::Tuple: {
      std::vector<Value> xs;
      for (const TreeDef& c : def.children) xs.push_back(unflatten(c, leaves, pos));
      return Value::ofTuple(std::move(xs));
    }
  }
  return Value::none();
}

}  // namespace scn
