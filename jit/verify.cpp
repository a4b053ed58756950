// The IR verifier: SSA form, recorded types against the shape rules, sub-functions recursively.
#include <string>
#include <vector>

#include "jit/ir.hpp"

namespace scn {

namespace {

std::string var(int v) { return "%" + std::to_string(v); }

std::string funcLabel(const Func& f) {
  return "func " + (f.name.empty() ? std::string("<anonymous>") : f.name);
}

// Verifies `f`; `where` prefixes the message (the path of enclosing eqns for sub-functions).
std::string verifyIn(const Func& f, const std::string& where) {
  std::string at = where + funcLabel(f) + ": ";
  std::vector<bool> defined(f.types.size(), false);
  auto valid = [&](int v) { return v >= 0 && static_cast<size_t>(v) < f.types.size(); };

  for (size_t i = 0; i < f.params.size(); ++i) {
    int p = f.params[i];
    if (!valid(p))
      return at + "parameter " + std::to_string(i) + " is variable " + var(p) + ", which has no type";
    if (defined[p]) return at + "parameter " + std::to_string(i) + " redefines " + var(p);
    defined[p] = true;
  }

  for (size_t k = 0; k < f.eqns.size(); ++k) {
    const Eqn& e = f.eqns[k];
    std::string eq = at + "eqn " + std::to_string(k) + " (" + opName(e.op) + "): ";
    std::vector<Type> in;
    for (int v : e.inputs) {
      if (!valid(v)) return eq + "operand " + var(v) + " has no type";
      if (!defined[v]) return eq + "uses " + var(v) + " before it is defined";
      in.push_back(f.types[v]);
    }
    for (size_t s = 0; s < e.subs.size(); ++s) {
      if (!e.subs[s]) return eq + "sub-function " + std::to_string(s) + " is null";
      std::string sub = verifyIn(*e.subs[s], eq + "sub-function " + std::to_string(s) + ": ");
      if (!sub.empty()) return sub;
    }
    InferResult r = inferTypes(e.op, in, e.attrs, e.subs);
    if (!r.ok()) return eq + r.error;
    if (r.types.size() != e.outputs.size())
      return eq + "defines " + std::to_string(e.outputs.size()) + " outputs but the shape rule gives " +
             std::to_string(r.types.size());
    for (size_t o = 0; o < e.outputs.size(); ++o) {
      int v = e.outputs[o];
      if (!valid(v)) return eq + "output " + var(v) + " has no type";
      if (defined[v]) return eq + "redefines " + var(v);
      if (f.types[v] != r.types[o])
        return eq + "output " + var(v) + " is recorded as " + typeString(f.types[v]) +
               " but the shape rule gives " + typeString(r.types[o]);
      defined[v] = true;
    }
  }

  for (size_t i = 0; i < f.results.size(); ++i) {
    int v = f.results[i];
    if (!valid(v))
      return at + "result " + std::to_string(i) + " is variable " + var(v) + ", which has no type";
    if (!defined[v]) return at + "result " + std::to_string(i) + " (" + var(v) + ") is never defined";
  }
  return "";
}

}  // namespace

std::string verify(const Func& f) { return verifyIn(f, ""); }

}  // namespace scn
