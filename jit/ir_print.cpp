// The stable text form of the IR (--emit=ir): one line per equation, bodies nested and indented.
#include <algorithm>
#include <string>
#include <vector>

#include "jit/collectives.hpp"
#include "jit/ir.hpp"

namespace scn {

namespace {

std::string var(int v) { return "%" + std::to_string(v); }

std::string list(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + ")";
}

std::string vars(const std::vector<int>& vs) {
  std::string s;
  for (size_t i = 0; i < vs.size(); ++i) {
    if (i) s += ", ";
    s += var(vs[i]);
  }
  return s;
}

const char* boolText(bool b) { return b ? "true" : "false"; }

// The attributes an op reads, as "name=value" items (empty when it reads none).
std::vector<std::string> attrItems(const Eqn& e) {
  const Attrs& a = e.attrs;
  auto axis = [&] { return std::string("axis=") + (a.axes.empty() ? "?" : std::to_string(a.axes[0])); };
  switch (opInfo(e.op).category) {
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary: case OpCategory::ComplexPart:
    case OpCategory::Compare: case OpCategory::Select: case OpCategory::DynamicUpdateSlice:
    case OpCategory::Gather: case OpCategory::Scatter:
      return {};
    case OpCategory::Cond:
      if (!a.custom) return {};
      return {a.custom->kind == CustomRule::Jvp ? "rule=custom_jvp" : "rule=custom_vjp"};
    case OpCategory::Convert: return {std::string("dtype=") + dtypeName(a.dtype)};
    case OpCategory::Constant: return {"value=" + (a.value ? formatArray(*a.value) : std::string("?"))};
    case OpCategory::Iota:
      return {std::string("dimension=") + (a.axes.empty() ? "?" : std::to_string(a.axes[0]))};
    case OpCategory::Reduce: case OpCategory::Reverse: return {"axes=" + list(a.axes)};
    case OpCategory::ArgReduce: case OpCategory::Concat: case OpCategory::Sort: return {axis()};
    case OpCategory::Cumulative: case OpCategory::AssocScan: return {axis(), std::string("reverse=") + boolText(a.reverse)};
    case OpCategory::BroadcastInDim: return {"shape=" + list(a.shape), "axes=" + list(a.axes)};
    case OpCategory::Reshape:
      if (!a.checkpointName.empty()) return {"shape=" + list(a.shape), "name=" + a.checkpointName};
      return {"shape=" + list(a.shape)};
    case OpCategory::Transpose: return {"permutation=" + list(a.axes)};
    case OpCategory::Slice: {
      std::vector<int64_t> strides = a.strides;
      if (strides.empty()) strides.assign(a.starts.size(), 1);
      return {"starts=" + list(a.starts), "limits=" + list(a.limits), "strides=" + list(strides)};
    }
    case OpCategory::DynamicSlice: return {"sizes=" + list(a.shape)};
    case OpCategory::DotGeneral:
      return {"lhs_contract=" + list(a.lhsContract), "rhs_contract=" + list(a.rhsContract),
              "lhs_batch=" + list(a.lhsBatch), "rhs_batch=" + list(a.rhsBatch)};
    case OpCategory::Scan: {
      std::vector<std::string> r{"length=" + std::to_string(a.length), std::string("reverse=") + boolText(a.reverse),
                                 "unroll=" + std::to_string(a.unroll), "num_consts=" + std::to_string(a.numConsts),
                                 "num_carry=" + std::to_string(a.numCarry)};
      if (a.checkpoints != 0) r.push_back("checkpoints=" + std::to_string(std::max<int64_t>(a.checkpoints, 0)));
      if (a.binomial) r.push_back("binomial=true");
      if (a.remat != Attrs::Remat::None)
        r.push_back(a.remat == Attrs::Remat::Nothing     ? "remat=nothing"
                    : a.remat == Attrs::Remat::Dots      ? "remat=dots"
                    : a.remat == Attrs::Remat::OnlyNames ? "remat=only_names"
                    : a.remat == Attrs::Remat::AnyNamesBut ? "remat=any_names_but"
                                                         : "remat=dots_with_no_batch_dims");
      if (!a.rematNames.empty()) {
        std::string names;
        for (const std::string& n : a.rematNames) names += (names.empty() ? "" : ",") + n;
        r.push_back("remat_names=[" + names + "]");
      }
      return r;
    }
    case OpCategory::While: {
      std::vector<std::string> r{"num_cond_consts=" + std::to_string(a.numConsts),
                                 "num_body_consts=" + std::to_string(a.numBodyConsts)};
      if (a.length > 0) r.push_back("max_steps=" + std::to_string(a.length));
      return r;
    }
    case OpCategory::Linalg:
      if (e.op == Op::TriangularSolve)
        return {std::string("lower=") + boolText(a.lower), std::string("transpose=") + boolText(a.transpose),
                std::string("unit_diagonal=") + boolText(a.unitDiagonal)};
      if (e.op == Op::Qr || e.op == Op::Svd) return {std::string("full_matrices=") + boolText(a.fullMatrices)};
      if (e.op == Op::Irfft) return {"length=" + std::to_string(a.length)};
      return {};
    case OpCategory::Collective: {
      std::vector<std::string> items{"axis_name=" + a.axisName};
      if (e.op == Op::AllGather) items.push_back("size=" + std::to_string(a.length));
      if (e.op == Op::PPermute) items.push_back("pairs=" + list(a.axes));
      return items;
    }
    case OpCategory::ProcessCollective: {
      std::vector<std::string> items{"group=" + (a.group ? a.group->describe() : std::string("?"))};
      if (e.op == Op::ProcessPermute) items.push_back("pairs=" + list(a.axes));
      return items;
    }
  }
  return {};
}

// The name a sub-function is printed with when it has none of its own.
std::string subRole(const Eqn& e, size_t i) {
  switch (opInfo(e.op).category) {
    case OpCategory::Scan: return "body";
    case OpCategory::While: return i == 0 ? "cond" : "body";
    case OpCategory::Cond: return "branch" + std::to_string(i);
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary: case OpCategory::ComplexPart:
    case OpCategory::Compare: case OpCategory::Select: case OpCategory::Convert:
    case OpCategory::Constant: case OpCategory::Iota: case OpCategory::Reduce:
    case OpCategory::ArgReduce: case OpCategory::Cumulative: case OpCategory::AssocScan: case OpCategory::BroadcastInDim:
    case OpCategory::Reshape: case OpCategory::Transpose: case OpCategory::Concat:
    case OpCategory::Slice: case OpCategory::Reverse: case OpCategory::DynamicSlice:
    case OpCategory::DynamicUpdateSlice: case OpCategory::Gather: case OpCategory::Scatter:
    case OpCategory::DotGeneral: case OpCategory::Sort: case OpCategory::Linalg: case OpCategory::Collective:
    case OpCategory::ProcessCollective:
      break;
  }
  return "sub" + std::to_string(i);
}

void printIn(const Func& f, const std::string& name, const std::string& indent, std::string& out) {
  out += indent + "func " + name + "(";
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (i) out += ", ";
    out += var(f.params[i]) + ": " + typeString(f.type(f.params[i]));
  }
  out += ") -> (";
  for (size_t i = 0; i < f.results.size(); ++i) {
    if (i) out += ", ";
    out += typeString(f.type(f.results[i]));
  }
  out += ") {\n";
  std::string inner = indent + "  ";
  for (const Eqn& e : f.eqns) {
    out += inner;
    if (!e.outputs.empty()) out += vars(e.outputs) + " = ";
    out += opName(e.op);
    std::vector<std::string> items = attrItems(e);
    if (!items.empty()) {
      out += "[";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
      out += "]";
    }
    if (!e.inputs.empty()) out += " " + vars(e.inputs);
    out += " : ";
    if (e.outputs.empty()) out += "()";
    for (size_t i = 0; i < e.outputs.size(); ++i) out += (i ? ", " : "") + typeString(f.type(e.outputs[i]));
    out += "\n";
    for (size_t s = 0; s < e.subs.size(); ++s) {
      if (!e.subs[s]) {
        out += inner + "  <null sub-function>\n";
        continue;
      }
      printIn(*e.subs[s], e.subs[s]->name.empty() ? subRole(e, s) : e.subs[s]->name, inner + "  ", out);
    }
  }
  out += inner + "return";
  if (!f.results.empty()) out += " " + vars(f.results);
  out += "\n" + indent + "}\n";
}

}  // namespace

std::string printFunc(const Func& f) {
  std::string out;
  printIn(f, f.name.empty() ? "main" : f.name, "", out);
  return out;
}

}  // namespace scn
