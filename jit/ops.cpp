// The op table (rows from ops.def) and small queries over it.
#include <string>

#include "jit/ir.hpp"

namespace scn {

namespace {

constexpr CategoryFlags kCategoryFlags[] = {
#define SCN_CATEGORY_ROW(Cat, e, f, i, b, m, fl, u, w, s) {e, f, i, b, m, fl, u, w, s},
    SCN_OP_CATEGORIES(SCN_CATEGORY_ROW)
#undef SCN_CATEGORY_ROW
};

// The Combiner column's values: each op's name as a combiner, and None.
namespace combiner {
#define OP(Enum, name, cat, tc, nin, nout, comb, surface, description) constexpr std::optional<Op> Enum{Op::Enum};
#include "jit/ops.def"
#undef OP
constexpr std::optional<Op> None{};
}  // namespace combiner

const OpInfo kOpTable[] = {
#define OP(Enum, name, cat, tc, nin, nout, comb, surface, description)                                   \
  {Op::Enum,     #name,   OpCategory::cat, TypeClass::tc, nin, nout, combiner::comb, surface, description, \
   kCategoryFlags[static_cast<size_t>(OpCategory::cat)]},
#include "jit/ops.def"
#undef OP
};

}  // namespace

const OpInfo& opInfo(Op op) { return kOpTable[static_cast<size_t>(op)]; }

const CategoryFlags& categoryFlags(OpCategory c) { return kCategoryFlags[static_cast<size_t>(c)]; }

const std::vector<Op>& allOps() {
  static const std::vector<Op> ops = [] {
    std::vector<Op> v;
    for (const OpInfo& info : kOpTable) v.push_back(info.op);
    return v;
  }();
  return ops;
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
