// The shape rule of every op (inferTypes): operand counts, type classes, shapes and attributes.
#include <algorithm>
#include <string>

#include "jit/linalg.hpp"
#include "jit/combiner.hpp"
#include "jit/collectives.hpp"
#include "jit/ir.hpp"

namespace scn {

namespace {

// ---- message helpers ----

std::string typesString(const std::vector<Type>& ts) {
  std::string s;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (i) s += ", ";
    s += typeString(ts[i]);
  }
  return s;
}

std::string listString(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + ")";
}

// "1 operand", "2 operands"; `many` overrides the plural ("branches", "start indices").
std::string plural(int64_t n, const char* one, const char* many = nullptr) {
  return std::to_string(n) + " " + (n == 1 ? one : many ? many : std::string(one) + "s");
}

InferResult error(std::string msg) { return InferResult{{}, std::move(msg)}; }
InferResult ok(std::vector<Type> ts) { return InferResult{std::move(ts), {}}; }

const char* classDescription(TypeClass tc) {
  switch (tc) {
    case TypeClass::Any: return "an operand of any dtype";
    case TypeClass::Real: return "a real (not complex) operand";
    case TypeClass::Num: return "a real numeric operand (not bool, not complex)";
    case TypeClass::NumC: return "a numeric operand (not bool)";
    case TypeClass::Float: return "a real floating-point operand";
    case TypeClass::FloatC: return "a floating-point or complex operand";
    case TypeClass::Complex: return "a complex operand";
    case TypeClass::Int: return "an integer operand";
    case TypeClass::IntBool: return "an integer or bool operand";
  }
  return "?";
}

// Axes must lie in [0, rank), be unique and (when `sorted`) increasing. "" when they do.
std::string checkAxes(const char* op, const std::vector<int64_t>& axes, size_t rank, bool sorted,
                      const Type& t) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(rank))
      return std::string(op) + " axis " + std::to_string(axes[i]) + " is out of range for " +
             typeString(t);
    for (size_t j = 0; j < i; ++j)
      if (axes[j] == axes[i])
        return std::string(op) + " axes " + listString(axes) + " repeat axis " +
               std::to_string(axes[i]);
    if (sorted && i > 0 && axes[i] < axes[i - 1])
      return std::string(op) + " axes " + listString(axes) + " are not sorted";
  }
  return "";
}

Shape removeAxes(const Shape& s, const std::vector<int64_t>& axes) {
  Shape out;
  for (size_t i = 0; i < s.size(); ++i)
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) == axes.end())
      out.push_back(s[i]);
  return out;
}

bool isIntScalar(const Type& t) { return t.shape.empty() && isInteger(t.dtype); }

// Compares a sub-function's parameters with the expected types; "" when they match.
std::string checkParams(const std::string& what, const Func& f, const std::vector<Type>& expected,
                        const std::vector<std::string>& roles) {
  if (f.params.size() != expected.size())
    return what + " takes " + plural(f.params.size(), "parameter") + " but is given " +
           std::to_string(expected.size()) + " (" + typesString(expected) + ")";
  for (size_t i = 0; i < expected.size(); ++i)
    if (f.type(f.params[i]) != expected[i])
      return what + "'s parameter " + std::to_string(i) + " has type " +
             typeString(f.type(f.params[i])) + " but " + roles[i] + " has type " +
             typeString(expected[i]);
  return "";
}

// ---- irregular ops: each keeps its whole rule together ----

InferResult inferBroadcastInDim(const Type& x, const Attrs& a) {
  if (a.axes.size() != x.shape.size())
    return error("broadcast_in_dim of " + typeString(x) +
                 " needs one axis per operand dimension but got axes=" + listString(a.axes));
  for (int64_t d : a.shape)
    if (d < 0) return error("broadcast_in_dim to shape " + listString(a.shape) + " has a negative dimension");
  for (size_t i = 0; i < a.axes.size(); ++i) {
    int64_t ax = a.axes[i];
    if (ax < 0 || ax >= static_cast<int64_t>(a.shape.size()))
      return error("broadcast_in_dim axis " + std::to_string(ax) + " is out of range for the output shape " +
                   listString(a.shape));
    if (i > 0 && ax <= a.axes[i - 1])
      return error("broadcast_in_dim axes " + listString(a.axes) + " are not strictly increasing");
    if (x.shape[i] != 1 && x.shape[i] != a.shape[ax])
      return error("broadcast_in_dim cannot broadcast " + typeString(x) + " to shape " +
                   listString(a.shape) + ": operand dimension " + std::to_string(i) + " has size " +
                   std::to_string(x.shape[i]) + " but output dimension " + std::to_string(ax) +
                   " has size " + std::to_string(a.shape[ax]));
  }
  return ok({Type{x.dtype, a.shape}});
}

InferResult inferReshape(const Type& x, const Attrs& a) {
  int64_t n = 1, m = 1;
  for (int64_t d : a.shape) {
    if (d < 0) return error("reshape to shape " + listString(a.shape) + " has a negative dimension");
    if (__builtin_mul_overflow(m, d, &m))
      return error("reshape to shape " + listString(a.shape) + " has too many elements");
  }
  for (int64_t d : x.shape) n *= d;  // x's shape is a valid type: its count fits
  if (n != m)
    return error("reshape cannot change " + typeString(x) + " (" + plural(n, "element") +
                 ") to shape " + listString(a.shape) + " (" + plural(m, "element") + ")");
  return ok({Type{x.dtype, a.shape}});
}

InferResult inferTranspose(const Type& x, const Attrs& a) {
  if (a.axes.size() != x.shape.size())
    return error("transpose permutation " + listString(a.axes) + " does not match " + typeString(x));
  std::vector<int64_t> sorted = a.axes;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      return error("transpose permutation " + listString(a.axes) + " is not a permutation of the axes of " +
                   typeString(x));
  Shape out;
  for (int64_t p : a.axes) out.push_back(x.shape[p]);
  return ok({Type{x.dtype, out}});
}

InferResult inferConcat(const std::vector<Type>& in, const Attrs& a) {
  if (in.empty()) return error("concat needs at least one operand");
  if (a.axes.size() != 1) return error("concat needs exactly one axis but got axes=" + listString(a.axes));
  const Type& first = in[0];
  int64_t axis = a.axes[0];
  if (axis < 0 || axis >= static_cast<int64_t>(first.shape.size()))
    return error("concat axis " + std::to_string(axis) + " is out of range for " + typeString(first));
  Shape out = first.shape;
  for (size_t i = 1; i < in.size(); ++i) {
    const Type& t = in[i];
    bool same = t.dtype == first.dtype && t.shape.size() == first.shape.size();
    for (size_t d = 0; same && d < t.shape.size(); ++d)
      if (static_cast<int64_t>(d) != axis && t.shape[d] != first.shape[d]) same = false;
    if (!same)
      return error("concat along axis " + std::to_string(axis) +
                   " needs operands of one dtype with equal dimensions except that axis but got " +
                   typesString(in));
    if (__builtin_add_overflow(out[axis], t.shape[axis], &out[axis]))
      return error("concat along axis " + std::to_string(axis) + " of " + typesString(in) +
                   " gives a dimension that does not fit in a signed 64-bit integer");
  }
  return ok({Type{first.dtype, out}});
}

InferResult inferSlice(const Type& x, const Attrs& a) {
  size_t r = x.shape.size();
  if (a.starts.size() != r || a.limits.size() != r || (!a.strides.empty() && a.strides.size() != r))
    return error("slice of " + typeString(x) +
                 " needs one start, limit and stride per dimension but got starts=" + listString(a.starts) +
                 ", limits=" + listString(a.limits) + ", strides=" + listString(a.strides));
  Shape out;
  for (size_t d = 0; d < r; ++d) {
    int64_t start = a.starts[d], limit = a.limits[d], stride = a.strides.empty() ? 1 : a.strides[d];
    if (start < 0 || start > limit || limit > x.shape[d])
      return error("slice of " + typeString(x) + " has bounds " + std::to_string(start) + ":" +
                   std::to_string(limit) + " out of range in dimension " + std::to_string(d));
    if (stride < 1)
      return error("slice of " + typeString(x) + " has stride " + std::to_string(stride) +
                   " in dimension " + std::to_string(d) + "; strides must be at least 1");
    out.push_back((limit - start + stride - 1) / stride);
  }
  return ok({Type{x.dtype, out}});
}

// Start indices: operands [first, in.size()) must be one integer scalar per dimension of `x`.
std::string checkStarts(const char* op, const std::vector<Type>& in, size_t first, const Type& x) {
  if (in.size() - first != x.shape.size())
    return std::string(op) + " of " + typeString(x) + " needs " +
           plural(x.shape.size(), "start index", "start indices") + " but got " +
           std::to_string(in.size() - first);
  for (size_t i = first; i < in.size(); ++i)
    if (!isIntScalar(in[i]))
      return std::string(op) + " start index " + std::to_string(i - first) +
             " must be an integer scalar but has type " + typeString(in[i]);
  return "";
}

InferResult inferDynamicSlice(const std::vector<Type>& in, const Attrs& a) {
  if (in.empty()) return error("dynamic_slice needs an operand");
  const Type& x = in[0];
  std::string e = checkStarts("dynamic_slice", in, 1, x);
  if (!e.empty()) return error(e);
  if (a.shape.size() != x.shape.size())
    return error("dynamic_slice of " + typeString(x) + " needs one size per dimension but got sizes=" +
                 listString(a.shape));
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (a.shape[d] < 0 || a.shape[d] > x.shape[d])
      return error("dynamic_slice sizes " + listString(a.shape) + " do not fit in " + typeString(x));
  return ok({Type{x.dtype, a.shape}});
}

InferResult inferDynamicUpdateSlice(const std::vector<Type>& in) {
  if (in.size() < 2) return error("dynamic_update_slice needs an operand and an update");
  const Type& x = in[0];
  const Type& u = in[1];
  if (u.dtype != x.dtype || u.shape.size() != x.shape.size())
    return error("dynamic_update_slice cannot write an update of type " + typeString(u) + " into " +
                 typeString(x));
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (u.shape[d] > x.shape[d])
      return error("dynamic_update_slice update " + typeString(u) + " does not fit in " + typeString(x));
  std::string e = checkStarts("dynamic_update_slice", in, 2, x);
  if (!e.empty()) return error(e);
  return ok({x});
}

// Gather: operand, k index arrays of one integer shape B (Note [Gather and scatter]).
std::string checkIndexArrays(const std::string& op, const std::vector<Type>& in, size_t first,
                             const Type& x) {
  size_t k = in.size() - first;
  if (k == 0 || k > x.shape.size())
    return op + " of " + typeString(x) + " needs 1 to " + std::to_string(x.shape.size()) +
           " index arrays but got " + std::to_string(k);
  for (size_t i = first; i < in.size(); ++i) {
    if (!isInteger(in[i].dtype))
      return op + " index " + std::to_string(i - first) + " must be an integer array but has type " +
             typeString(in[i]);
    if (in[i].shape != in[first].shape)
      return op + " needs index arrays of one shape but got " +
             typesString(std::vector<Type>(in.begin() + first, in.end()));
  }
  return "";
}

/// B ++ x.shape[k:]: the shape a gather of x by k index arrays of shape B gives.
Shape gatheredShape(const Shape& b, const Shape& x, size_t k) {
  Shape out = b;
  out.insert(out.end(), x.begin() + static_cast<std::ptrdiff_t>(k), x.end());
  return out;
}

InferResult inferGather(const std::vector<Type>& in) {
  if (in.size() < 2) return error("gather needs an operand and index arrays");
  const Type& x = in[0];
  if (std::string e = checkIndexArrays("gather", in, 1, x); !e.empty()) return error(e);
  size_t k = in.size() - 1;
  for (size_t d = 0; d < k; ++d)
    if (x.shape[d] == 0)
      return error("gather of " + typeString(x) + " indexes the empty axis " + std::to_string(d));
  return ok({Type{x.dtype, gatheredShape(in[1].shape, x.shape, k)}});
}

InferResult inferScatter(const std::string& name, const std::vector<Type>& in) {
  if (in.size() < 3) return error(name + " needs an operand, updates and index arrays");
  const Type &x = in[0], &u = in[1];
  if (std::string e = checkIndexArrays(name, in, 2, x); !e.empty()) return error(e);
  Type want{x.dtype, gatheredShape(in[2].shape, x.shape, in.size() - 2)};
  if (u != want)
    return error(name + " into " + typeString(x) + " at indices of shape " + listString(in[2].shape) +
                 " needs updates of type " + typeString(want) + " but got " + typeString(u));
  return ok({x});
}

InferResult inferDotGeneral(const Type& l, const Type& r, const Attrs& a) {
  std::string both = typeString(l) + " and " + typeString(r);
  if (l.dtype != r.dtype) return error("dot_general needs operands of one dtype but got " + both);
  if (a.lhsContract.size() != a.rhsContract.size() || a.lhsBatch.size() != a.rhsBatch.size())
    return error("dot_general of " + both + " needs as many lhs as rhs contracting and batch dimensions");
  auto side = [](const std::vector<int64_t>& c, const std::vector<int64_t>& b) {
    std::vector<int64_t> v = b;
    v.insert(v.end(), c.begin(), c.end());
    return v;
  };
  std::vector<int64_t> lUsed = side(a.lhsContract, a.lhsBatch), rUsed = side(a.rhsContract, a.rhsBatch);
  std::string e = checkAxes("dot_general lhs", lUsed, l.shape.size(), false, l);
  if (e.empty()) e = checkAxes("dot_general rhs", rUsed, r.shape.size(), false, r);
  if (!e.empty()) return error(e);
  for (size_t i = 0; i < a.lhsContract.size(); ++i)
    if (l.shape[a.lhsContract[i]] != r.shape[a.rhsContract[i]])
      return error("dot_general of " + both + " contracts lhs dimension " + std::to_string(a.lhsContract[i]) +
                   " (size " + std::to_string(l.shape[a.lhsContract[i]]) + ") with rhs dimension " +
                   std::to_string(a.rhsContract[i]) + " (size " +
                   std::to_string(r.shape[a.rhsContract[i]]) + ")");
  for (size_t i = 0; i < a.lhsBatch.size(); ++i)
    if (l.shape[a.lhsBatch[i]] != r.shape[a.rhsBatch[i]])
      return error("dot_general of " + both + " has batch dimensions of different sizes: lhs dimension " +
                   std::to_string(a.lhsBatch[i]) + " (size " + std::to_string(l.shape[a.lhsBatch[i]]) +
                   ") and rhs dimension " + std::to_string(a.rhsBatch[i]) + " (size " +
                   std::to_string(r.shape[a.rhsBatch[i]]) + ")");
  Shape out;
  for (int64_t b : a.lhsBatch) out.push_back(l.shape[b]);
  Shape lFree = removeAxes(l.shape, lUsed), rFree = removeAxes(r.shape, rUsed);
  out.insert(out.end(), lFree.begin(), lFree.end());
  out.insert(out.end(), rFree.begin(), rFree.end());
  return ok({Type{l.dtype, out}});
}

// Note [Control-flow signatures]: operands are split by the counts in Attrs (see ir.hpp); each
// body is checked against the types it will be called with, and a carry that changes type
// across an iteration is reported component by component.

InferResult inferScan(const std::vector<Type>& in, const Attrs& a, const std::vector<FuncPtr>& subs) {
  if (subs.size() != 1 || !subs[0]) return error("scan needs exactly one body function");
  if (a.numConsts < 0 || a.numCarry < 0 || a.numConsts + a.numCarry > static_cast<int>(in.size()))
    return error("scan has " + plural(in.size(), "operand") + " but num_consts=" +
                 std::to_string(a.numConsts) + " and num_carry=" + std::to_string(a.numCarry));
  if (a.length < 0) return error("scan length " + std::to_string(a.length) + " is negative");
  const Func& body = *subs[0];
  size_t nc = a.numConsts, nk = a.numCarry;
  std::vector<Type> expected;
  std::vector<std::string> roles;
  for (size_t i = 0; i < in.size(); ++i) {
    Type t = in[i];
    if (i < nc) {
      roles.push_back("the const " + std::to_string(i));
    } else if (i < nc + nk) {
      roles.push_back("the carry component " + std::to_string(i - nc));
    } else {
      if (t.shape.empty() || t.shape[0] != a.length)
        return error("scan of length " + std::to_string(a.length) + " got xs component " +
                     std::to_string(i - nc - nk) + " of type " + typeString(t) +
                     "; its leading dimension must be the length");
      t.shape.erase(t.shape.begin());
      roles.push_back("the slice of xs component " + std::to_string(i - nc - nk));
    }
    expected.push_back(t);
  }
  std::string e = checkParams("scan body", body, expected, roles);
  if (!e.empty()) return error(e);
  std::vector<Type> res = body.resultTypes();
  if (res.size() < nk)
    return error("scan body returns " + plural(res.size(), "value") + " but the carry has " +
                 plural(nk, "component"));
  std::vector<Type> out;
  for (size_t i = 0; i < nk; ++i) {
    if (res[i] != in[nc + i])
      return error("scan body's carry output component " + std::to_string(i) + " has type " +
                   typeString(res[i]) + " but the input carry has type " + typeString(in[nc + i]));
    out.push_back(res[i]);
  }
  for (size_t i = nk; i < res.size(); ++i) {
    Type y = res[i];
    y.shape.insert(y.shape.begin(), a.length);
    out.push_back(y);
  }
  return ok(out);
}

InferResult inferWhile(const std::vector<Type>& in, const Attrs& a, const std::vector<FuncPtr>& subs) {
  if (subs.size() != 2 || !subs[0] || !subs[1])
    return error("while needs a cond function and a body function");
  if (a.numConsts < 0 || a.numBodyConsts < 0 ||
      a.numConsts + a.numBodyConsts > static_cast<int>(in.size()))
    return error("while has " + plural(in.size(), "operand") + " but num_consts=" +
                 std::to_string(a.numConsts) + " and num_body_consts=" + std::to_string(a.numBodyConsts));
  size_t nc = a.numConsts, nb = a.numBodyConsts;
  std::vector<Type> carry(in.begin() + nc + nb, in.end());
  std::vector<Type> condIn(in.begin(), in.begin() + nc), bodyIn(in.begin() + nc, in.begin() + nc + nb);
  std::vector<std::string> condRoles, bodyRoles;
  for (size_t i = 0; i < nc; ++i) condRoles.push_back("the cond const " + std::to_string(i));
  for (size_t i = 0; i < nb; ++i) bodyRoles.push_back("the body const " + std::to_string(i));
  for (size_t i = 0; i < carry.size(); ++i) {
    condIn.push_back(carry[i]);
    bodyIn.push_back(carry[i]);
    condRoles.push_back("the carry component " + std::to_string(i));
    bodyRoles.push_back("the carry component " + std::to_string(i));
  }
  std::string e = checkParams("while cond", *subs[0], condIn, condRoles);
  if (e.empty()) e = checkParams("while body", *subs[1], bodyIn, bodyRoles);
  if (!e.empty()) return error(e);
  std::vector<Type> condOut = subs[0]->resultTypes();
  if (condOut.size() != 1 || condOut[0] != Type{DType::Bool, {}})
    return error("while cond must return one bool[] but returns (" + typesString(condOut) + ")");
  std::vector<Type> bodyOut = subs[1]->resultTypes();
  if (bodyOut.size() != carry.size())
    return error("while body returns " + plural(bodyOut.size(), "value") + " but the carry has " +
                 plural(carry.size(), "component"));
  for (size_t i = 0; i < carry.size(); ++i)
    if (bodyOut[i] != carry[i])
      return error("while body's carry output component " + std::to_string(i) + " has type " +
                   typeString(bodyOut[i]) + " but the input carry has type " + typeString(carry[i]));
  return ok(carry);
}

InferResult inferCond(const std::vector<Type>& in, const std::vector<FuncPtr>& subs) {
  if (subs.empty()) return error("cond needs at least one branch");
  if (in.empty()) return error("cond needs an index operand");
  const Type& index = in[0];
  bool boolIndex = index == Type{DType::Bool, {}} && subs.size() == 2;
  if (!boolIndex && index != Type{DType::I32, {}})
    return error("cond index must be i32[] (or bool[] with two branches) but has type " +
                 typeString(index) + " with " + plural(subs.size(), "branch", "branches"));
  std::vector<Type> operands(in.begin() + 1, in.end());
  std::vector<std::string> roles;
  for (size_t i = 0; i < operands.size(); ++i) roles.push_back("operand " + std::to_string(i));
  std::vector<Type> out;
  for (size_t b = 0; b < subs.size(); ++b) {
    if (!subs[b]) return error("cond branch " + std::to_string(b) + " is missing");
    std::string what = "cond branch " + std::to_string(b);
    std::string e = checkParams(what, *subs[b], operands, roles);
    if (!e.empty()) return error(e);
    std::vector<Type> res = subs[b]->resultTypes();
    if (b == 0) {
      out = res;
    } else if (res != out) {
      return error("cond branch " + std::to_string(b) + " returns (" + typesString(res) +
                   ") but branch 0 returns (" + typesString(out) + ")");
    }
  }
  return ok(out);
}

// Collective and ProcessCollective (Note [Named axes] in jit/transform/batch_collectives.cpp).
InferResult inferCollective(const OpInfo& info, const std::vector<Type>& in, const Attrs& attrs) {
  const std::string name = info.name;
  if (info.category == OpCategory::Collective && attrs.axisName.empty())
    return error(name + " needs an axis name");
  if (info.category == OpCategory::ProcessCollective && !attrs.group) return error(name + " needs a process group");
  if (info.op == Op::AxisIndex) return ok({Type{DType::I32, {}}});
  Type t = in[0];
  if (info.op == Op::AllGather) {
    if (attrs.length < 0) return error("all_gather over an axis of negative size " + std::to_string(attrs.length));
    t.shape.insert(t.shape.begin(), attrs.length);
  }
  if (info.op == Op::ProcessGather) {
    if (t.shape.empty()) return error("process_gather needs an operand of rank 1 or more but got " + typeString(t));
    t.shape[0] *= attrs.group->processCount();
  }
  if ((info.op == Op::PPermute || info.op == Op::ProcessPermute) && attrs.axes.size() % 2 != 0)
    return error(name + " needs (source, destination) pairs");
  if (info.op == Op::ProcessPermute) {
    if (t.shape.empty()) return error("process_permute needs an operand of rank 1 or more but got " + typeString(t));
    int64_t lanes = t.shape[0] * attrs.group->processCount();
    for (int64_t lane : attrs.axes)
      if (lane < 0 || lane >= lanes)
        return error("process_permute pairs name lane " + std::to_string(lane) + " of " + std::to_string(lanes));
  }
  return ok({t});  // the others are elementwise over the lanes or the processes
}

}  // namespace

bool inTypeClass(DType t, TypeClass tc) {
  switch (tc) {
    case TypeClass::Any: return true;
    case TypeClass::Real: return !isComplex(t);
    case TypeClass::Num: return t != DType::Bool && !isComplex(t);
    case TypeClass::NumC: return t != DType::Bool;
    case TypeClass::Float: return isFloat(t);
    case TypeClass::FloatC: return isFloat(t) || isComplex(t);
    case TypeClass::Complex: return isComplex(t);
    case TypeClass::Int: return isInteger(t);
    case TypeClass::IntBool: return isInteger(t) || t == DType::Bool;
  }
  return false;
}

InferResult inferTypes(Op op, const std::vector<Type>& in, const Attrs& attrs,
                       const std::vector<FuncPtr>& subs) {
  const OpInfo& info = opInfo(op);
  const std::string name = info.name;
  if (info.numInputs >= 0 && static_cast<int>(in.size()) != info.numInputs)
    return error(name + " expects " + plural(info.numInputs, "operand") + " but got " +
                 std::to_string(in.size()));
  if (!in.empty() && !inTypeClass(in[0].dtype, info.typeClass))
    return error(name + " expects " + classDescription(info.typeClass) + " but got " + typeString(in[0]));

  switch (info.category) {
    case OpCategory::Unary:
      return ok({in[0]});
    case OpCategory::ComplexPart:
      if (info.op == Op::Complex) {
        if (in[0] != in[1]) return error(name + " needs operands of one type but got " + typesString(in));
        return ok({Type{complexOf(in[0].dtype), in[0].shape}});
      }
      if (info.op == Op::Conj) return ok({in[0]});
      return ok({Type{componentType(in[0].dtype), in[0].shape}});
    case OpCategory::Predicate:
      return ok({Type{DType::Bool, in[0].shape}});
    case OpCategory::Binary:
    case OpCategory::Compare: {
      if (in[0] != in[1])
        return error(name + " needs operands of one type but got " + typesString(in));
      if (info.category == OpCategory::Compare) return ok({Type{DType::Bool, in[0].shape}});
      return ok({in[0]});
    }
    case OpCategory::Select: {
      if (in[0].dtype != DType::Bool)
        return error("select needs a bool predicate but got " + typeString(in[0]));
      if (in[1] != in[2] || in[0].shape != in[1].shape)
        return error("select needs a predicate of the branches' shape and branches of one type but got " +
                     typesString(in));
      return ok({in[1]});
    }
    case OpCategory::Convert:
      return ok({Type{attrs.dtype, in[0].shape}});
    case OpCategory::Constant:
      if (!attrs.value) return error("constant has no value");
      return ok({Type{attrs.value->dtype, attrs.value->shape}});
    case OpCategory::Iota: {
      if (attrs.dtype == DType::Bool) return error("iota needs a numeric dtype but got bool");
      for (int64_t d : attrs.shape)
        if (d < 0) return error("iota shape " + listString(attrs.shape) + " has a negative dimension");
      if (attrs.axes.size() != 1 || attrs.axes[0] < 0 ||
          attrs.axes[0] >= static_cast<int64_t>(attrs.shape.size()))
        return error("iota needs one dimension within shape " + listString(attrs.shape) +
                     " but got axes=" + listString(attrs.axes));
      return ok({Type{attrs.dtype, attrs.shape}});
    }
    case OpCategory::Reduce: {
      std::string e = checkAxes(info.name, attrs.axes, in[0].shape.size(), true, in[0]);
      if (!e.empty()) return error(e);
      return ok({Type{in[0].dtype, removeAxes(in[0].shape, attrs.axes)}});
    }
    case OpCategory::ArgReduce:
    case OpCategory::Cumulative:
    case OpCategory::AssocScan: {
      if (in.empty()) return error(name + " needs at least one operand");
      if (attrs.axes.size() != 1)
        return error(name + " needs exactly one axis but got axes=" + listString(attrs.axes));
      std::string e = checkAxes(info.name, attrs.axes, in[0].shape.size(), true, in[0]);
      if (!e.empty()) return error(e);
      if (info.category == OpCategory::AssocScan) {
        if (subs.size() != 1 || !subs[0]) return error("associative_scan needs exactly one combiner function");
        std::vector<DType> dtypes;
        for (const Type& t : in) {
          if (t.shape != in[0].shape)
            return error("associative_scan's operands must have one shape, got " + typesString(in));
          dtypes.push_back(t.dtype);
        }
        if (std::string c = checkScalarCombiner(*subs[0], dtypes); !c.empty()) return error(c);
        return ok(in);
      }
      if (info.category == OpCategory::Cumulative) return ok({in[0]});
      if (in[0].shape[attrs.axes[0]] == 0)
        return error(name + " of " + typeString(in[0]) + " over the empty axis " +
                     std::to_string(attrs.axes[0]));
      return ok({Type{DType::I32, removeAxes(in[0].shape, attrs.axes)}});
    }
    case OpCategory::BroadcastInDim: return inferBroadcastInDim(in[0], attrs);
    case OpCategory::Reshape: return inferReshape(in[0], attrs);
    case OpCategory::Transpose: return inferTranspose(in[0], attrs);
    case OpCategory::Concat: return inferConcat(in, attrs);
    case OpCategory::Slice: return inferSlice(in[0], attrs);
    case OpCategory::Reverse: {
      std::string e = checkAxes(info.name, attrs.axes, in[0].shape.size(), false, in[0]);
      if (!e.empty()) return error(e);
      return ok({in[0]});
    }
    case OpCategory::DynamicSlice: return inferDynamicSlice(in, attrs);
    case OpCategory::DynamicUpdateSlice: return inferDynamicUpdateSlice(in);
    case OpCategory::Gather: return inferGather(in);
    case OpCategory::Scatter: return inferScatter(name, in);
    case OpCategory::DotGeneral: return inferDotGeneral(in[0], in[1], attrs);
    case OpCategory::Scan: return inferScan(in, attrs, subs);
    case OpCategory::While: return inferWhile(in, attrs, subs);
    case OpCategory::Cond: return inferCond(in, subs);
    case OpCategory::Collective:
    case OpCategory::ProcessCollective: return inferCollective(info, in, attrs);
    case OpCategory::Sort: {
      if (in.empty()) return error("sort needs at least one operand");
      for (const Type& t : in)
        if (t.shape != in[0].shape) return error("sort's operands must have one shape, got " + typesString(in));
      if (in[0].shape.empty()) return error("sort needs an operand of rank 1 or more but got " + typeString(in[0]));
      if (attrs.axes.size() != 1)
        return error("sort needs exactly one axis but got axes=" + listString(attrs.axes));
      std::string e = checkAxes(info.name, attrs.axes, in[0].shape.size(), true, in[0]);
      if (!e.empty()) return error(e);
      return ok(in);
    }
    case OpCategory::Linalg: {
      std::vector<Type> out;
      std::string e = inferLinalg(op, in, attrs, &out);
      if (!e.empty()) return error(e);
      return ok(out);
    }
  }
  return error(name + " has no shape rule");
}

}  // namespace scn
