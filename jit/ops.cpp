// The op table (rows from ops.def) and small queries over it.
#include <string>

#include "jit/ir.hpp"

namespace scn {

namespace {
const OpInfo kOpTable[] = {
#define OP(Enum, name, cat, tc, nin, nout) \
  {Op::Enum, name, OpCategory::cat, TypeClass::tc, nin, nout},
#include "jit/ops.def"
#undef OP
};
}  // namespace

const OpInfo& opInfo(Op op) { return kOpTable[static_cast<size_t>(op)]; }

const std::vector<Op>& allOps() {
  static const std::vector<Op> ops = [] {
    std::vector<Op> v;
    for (const OpInfo& info : kOpTable) v.push_back(info.op);
    return v;
  }();
  return ops;
}

bool isElementwise(Op op) {
  switch (opInfo(op).category) {
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary:
    case OpCategory::Compare: case OpCategory::Select: case OpCategory::Convert:
      return true;
    case OpCategory::Constant: case OpCategory::Iota: case OpCategory::Reduce:
    case OpCategory::ArgReduce: case OpCategory::Cumulative: case OpCategory::BroadcastInDim:
    case OpCategory::Reshape: case OpCategory::Transpose: case OpCategory::Concat:
    case OpCategory::Slice: case OpCategory::Reverse: case OpCategory::DynamicSlice:
    case OpCategory::DynamicUpdateSlice: case OpCategory::DotGeneral: case OpCategory::Scan:
    case OpCategory::While: case OpCategory::Cond:
      return false;
  }
  return false;
}

std::string typeString(const Type& t) {
  std::string s = dtypeName(t.dtype);
  s += "[";
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(t.shape[i]);
  }
  return s + "]";
}

std::vector<Type> Func::paramTypes() const {
  std::vector<Type> v;
  for (int p : params) v.push_back(types.at(p));
  return v;
}

std::vector<Type> Func::resultTypes() const {
  std::vector<Type> v;
  for (int r : results) v.push_back(types.at(r));
  return v;
}

}  // namespace scn
