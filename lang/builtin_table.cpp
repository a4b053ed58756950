// The builtin table: every builtin's name, signature, description and implementation.
#include <map>

#include "lang/builtin_args.hpp"

namespace scn {

// Note [Builtin records]
// Every builtin has one record: its name, its signature ("sum(x, axis=None)") and a one-line
// description, which the REPL's `:help NAME` shows. A builtin that is one op has its record in
// that op's row of jit/ops.def (the surface and description columns; Reshape's row names
// reshape, expand_dims and squeeze); its C++ function, which binds and checks the arguments,
// is an OpBuiltin naming it. The builtins of the elementwise categories (Unary, Predicate,
// Binary) need no function: elementwiseBuiltin serves them all. A builtin that is not one op
// (creation, random numbers, loops over several ops, print and checks) is an OtherBuiltin row
// in its lang/builtins_*.cpp file, with the same record. makeTable joins the two and stops
// with an internal error when a surface name has no function or a function no surface name,
// so the table and the op table cannot drift apart (lang_op_coverage_test checks it too).

namespace {

/// One builtin signature and its description, from a ';'-separated list: "maximum(x, y)".
struct Signature {
  std::string text, name, description;
  std::vector<std::string> params;
};

std::vector<std::string> splitList(const std::string& all, char sep) {
  std::vector<std::string> parts;
  for (size_t at = 0; at <= all.size();) {
    size_t end = std::min(all.find(sep, at), all.size());
    std::string part = all.substr(at, end - at);
    while (!part.empty() && part.front() == ' ') part.erase(0, 1);
    parts.push_back(part);
    at = end + 1;
  }
  return parts;
}

std::vector<Signature> parseSignatures(const std::string& surface, const std::string& descriptions) {
  if (surface.empty()) return {};
  std::vector<std::string> texts = splitList(surface, ';'), lines = splitList(descriptions, ';');
  if (texts.size() != lines.size())
    internalError("builtin table: `" + surface + "` has " + std::to_string(lines.size()) +
                  " descriptions, one per signature needed");
  std::vector<Signature> sigs;
  for (size_t i = 0; i < texts.size(); ++i) {
    Signature s;
    s.text = texts[i];
    s.description = lines[i];
    size_t open = s.text.find('(');
    if (open == std::string::npos || s.text.back() != ')') internalError("builtin table: bad signature `" + s.text + "`");
    s.name = s.text.substr(0, open);
    s.params = splitList(s.text.substr(open + 1, s.text.size() - open - 2), ',');
    sigs.push_back(s);
  }
  return sigs;
}

/// The signatures of `op`'s surface column, parsed once (they live as long as the program).
const std::vector<Signature>& surfaceSignatures(Op op) {
  static std::map<Op, std::vector<Signature>> cache;
  auto [it, fresh] = cache.try_emplace(op);
  if (fresh) it->second = parseSignatures(opInfo(op).surface, opInfo(op).description);
  return it->second;
}

/// The builtin of an elementwise op with a surface column; messages use its first name.
template <Op op>
Value elementwiseBuiltin(Evaluator& ev, CallArgs& c) {
  const Signature& s = surfaceSignatures(op).at(0);
  Args a(ev, c, s.name.c_str(), s.params);
  if (opInfo(op).numInputs == 1) return arr(ev.ops().unary(op, a.array(0), c.span));
  return arr(ev.ops().binary(op, a.array(0), a.array(1), c.span, s.name.c_str()));
}

template <OpCategory c>
constexpr bool kElementwiseBuiltin = c == OpCategory::Unary || c == OpCategory::Predicate || c == OpCategory::Binary;

/// elementwiseBuiltin<op> for an op of the elementwise categories; null for others.
BuiltinFn elementwiseFn(Op op) {
  switch (op) {
#define OP(Enum, name, cat, tc, nin, nout, comb, surface, description) \
  case Op::Enum:                                                       \
    if constexpr (kElementwiseBuiltin<OpCategory::cat>) return elementwiseBuiltin<Op::Enum>; \
    return nullptr;
#include "jit/ops.def"
#undef OP
  }
  return nullptr;
}

std::map<std::string, Builtin> makeTable() {
  std::map<std::string, Builtin> table;
  auto add = [&](const Signature& s, BuiltinFn fn) {
    if (!table.emplace(s.name, Builtin{s.name, fn, s.text, s.description}).second)
      internalError("builtin table: `" + s.name + "` is defined twice");
  };
  std::map<std::string, BuiltinFn> opFns;
  for (BuiltinDefs (*defs)() : {creationBuiltins, mathBuiltins, shapeBuiltins, checkBuiltins, controlBuiltins, vmapBuiltins,
                                assocScanBuiltins, randomBuiltins, ioBuiltins, printingBuiltins,
                                reductionBuiltins, buildingBuiltins, matrixBuiltins, elementwiseMathBuiltins, complexBuiltins,
                                nnBuiltins, gatherBuiltins, sortBuiltins, laxBuiltins, nonzeroBuiltins,
                                autodiffBuiltins, checkpointBuiltins, randomDrawBuiltins, orderStatBuiltins, linalgBuiltins, fftBuiltins,
                                contractBuiltins, convBuiltins, ufuncBuiltins, windowBuiltins, distBuiltins}) {
    BuiltinDefs d = defs();
    for (const OpBuiltin& b : d.ops) opFns[b.name] = b.fn;
    for (const OtherBuiltin& b : d.others) add(parseSignatures(b.signature, b.description).at(0), b.fn);
  }
  for (Op op : allOps())
    for (const Signature& s : surfaceSignatures(op)) {
      BuiltinFn fn = elementwiseFn(op);
      if (!fn) {
        auto it = opFns.find(s.name);
        if (it == opFns.end()) internalError("builtin table: `" + s.name + "` (ops.def) has no function");
        fn = it->second;
        opFns.erase(it);
      }
      add(s, fn);
    }
  if (!opFns.empty())
    internalError("builtin table: `" + opFns.begin()->first + "` is no name of an op's surface column");
  return table;
}

}  // namespace

const std::map<std::string, Builtin>& builtins() {
  static const std::map<std::string, Builtin> table = makeTable();
  return table;
}

}  // namespace scn
