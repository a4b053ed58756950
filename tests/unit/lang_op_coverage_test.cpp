// Walks the op table and names the rule an op lacks (docs/adding-an-op.md). The rules of a
// category (shape, batching, lowering) are switches over OpCategory that -Werror=switch keeps
// complete; what a new row can still lack is per op: its scalar function in
// jit/scalar/scalar.inc (interpreter, LLVM bitcode, CUDA prelude), its combiner, its builtin.
// Every builtin has a record (Note [Builtin records] in lang/builtin_table.cpp) that its
// argument binding agrees with.
#include <gtest/gtest.h>

#include "core_test_util.hpp"
#include "jit/batch.hpp"
#ifdef SCN_HAVE_LLVM
#include "jit/cpu/cpu_backend.hpp"
#endif
#include "jit/scalar.hpp"
#include "driver/session.hpp"
#include "lang/eval.hpp"
#ifdef SCN_HAVE_CUDA
#include "jit/cuda/emulation.hpp"
#endif

namespace scn {
namespace {

using test::Builder;
using test::ty;

/// The dtypes of a type class, complex ones included.
std::vector<DType> dtypesOf(TypeClass tc) {
  std::vector<DType> out;
  for (DType t : kAllDTypes)
    if (inTypeClass(t, tc)) out.push_back(t);
  return out;
}

/// Small positive values (valid for every op: log, division, shift counts, ...).
Array sample(DType d) {
  Array a(d, {4});
  for (int64_t i = 0; i < a.size(); ++i) a.setDouble(i, d == DType::Bool ? i % 2 : 1 + i);
  return a;
}

bool hasScalarFunction(OpCategory c) {
  return c == OpCategory::Unary || c == OpCategory::Predicate || c == OpCategory::Binary ||
         c == OpCategory::Compare || c == OpCategory::ComplexPart;
}

/// f(x0, y0, x1, y1, ...) = (op(x0, y0), op(x1, y1), ...): one result per dtype of the op's class.
FuncPtr example(Op op, std::vector<Array>& args) {
  const OpInfo& info = opInfo(op);
  Builder b(std::string("every_") + info.name);
  std::vector<int> results;
  for (DType d : dtypesOf(info.typeClass)) {
    std::vector<int> in;
    for (int k = 0; k < info.numInputs; ++k) {
      in.push_back(b.param(ty(d, {4})));
      args.push_back(sample(d));
    }
    results.push_back(b.emit1(op, in));
  }
  return b.ret(results);
}

TEST(OpCoverage, EveryOpHasEveryRule) {
#ifdef SCN_HAVE_LLVM
  std::unique_ptr<Backend> cpu = makeCpuBackend(2);
#endif
#ifdef SCN_HAVE_CUDA
  std::unique_ptr<Backend> cudaEmu = cuda::makeCudaEmulationBackend();
#endif
  std::vector<std::string> missing;
  auto check = [&](Op op, const std::string& rule, const auto& body) {
    try {
      body();
    } catch (const std::exception& e) {
      missing.push_back(std::string(opName(op)) + " has no " + rule + ": " + e.what());
    }
  };
  for (Op op : allOps()) {
    const OpInfo& info = opInfo(op);
    if (info.category == OpCategory::Reduce || info.category == OpCategory::Cumulative)
      check(op, "combiner (the Combiner column of jit/ops.def)", [&] { scalar::combinerOf(op); });
    for (std::string s = info.surface; !s.empty();) {
      std::string name = s.substr(0, s.find('('));
      if (!builtins().count(name)) missing.push_back(std::string(opName(op)) + " has no builtin " + name);
      s = s.find(';') == std::string::npos ? "" : s.substr(s.find(';') + 1);
      while (!s.empty() && s[0] == ' ') s.erase(0, 1);
    }
    if (!hasScalarFunction(info.category)) continue;
    std::vector<Array> args;
    FuncPtr f = example(op, args);
    const std::string fn = std::string("scn_") + info.name;
    check(op, "interpreter rule (" + fn + " in jit/scalar/scalar.inc)", [&] { interpret(*f, args); });
    check(op, "batching rule", [&] {
      batchFunc(*f, std::vector<std::optional<int>>(f->params.size(), 0), 2,
                std::vector<std::optional<int>>(f->results.size(), 0), Span{});
    });
#ifdef SCN_HAVE_LLVM
    check(op, "LLVM rule (" + fn + " in jit/scalar/scalar.inc, linked from its bitcode)",
          [&] { cpu->compile(f)->run(args); });
#endif
#ifdef SCN_HAVE_CUDA
    check(op, "CUDA rule (" + fn + " in jit/scalar/scalar.inc, the CUDA prelude)",
          [&] { cudaEmu->compile(f)->run(args); });
#endif
  }
  std::string all;
  for (const std::string& m : missing) all += m + "\n";
  EXPECT_TRUE(missing.empty()) << all;
}

TEST(Builtins, EveryBuiltinHasASignatureAndADescription) {
  ASSERT_FALSE(builtins().empty());
  for (const auto& [name, b] : builtins()) {
    EXPECT_EQ(b.name, name);
    EXPECT_EQ(b.signature.rfind(name + "(", 0), 0u) << name << ": " << b.signature;
    EXPECT_FALSE(b.signature.empty() || b.signature.back() != ')') << name << ": " << b.signature;
    EXPECT_FALSE(b.description.empty()) << name;
    EXPECT_FALSE(!b.description.empty() && b.description.back() == '.') << name << ": " << b.description;
  }
}

/// The text an arity error gives as help for a documented signature: "sum(x, axis=None)" binds
/// "sum(x, axis=...)" (Args); nullopt for a signature with varargs ("print(values...)").
std::optional<std::string> bindingOf(const std::string& signature) {
  if (signature.find("...") != std::string::npos) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < signature.size(); ++i) {
    out += signature[i];
    if (signature[i] != '=') continue;
    out += "...";
    // skip the default, which may be a tuple: `axes=(-2, -1)`
    for (int depth = 0; i + 1 < signature.size(); ++i) {
      char next = signature[i + 1];
      if (depth == 0 && (next == ',' || next == ')')) break;
      depth += next == '(' ? 1 : next == ')' ? -1 : 0;
    }
  }
  return out;
}

TEST(Builtins, TheDocumentedSignatureIsTheBinding) {
  std::vector<Diagnostic> diags;
  SessionOptions o;
  o.backend = "interp";
  o.onDiagnostic = [&](const Diagnostic& d) { diags.push_back(d); };
  Session s(o);
  for (const auto& [name, b] : builtins()) {
    std::optional<std::string> binding = bindingOf(b.signature);
    if (!binding) continue;
    diags.clear();
    s.run("<test>", name + "(no_such_parameter=1)");
    ASSERT_EQ(diags.size(), 1u) << name;
    EXPECT_EQ(diags[0].code, "E0221") << name << ": " << diags[0].message;
    // The parameters (an alias's messages name the op's first builtin: atan2 says arctan2).
    const std::string& help = diags[0].help;
    EXPECT_EQ(help.substr(std::min(help.find('('), help.size())), binding->substr(binding->find('('))) << name << ": " << help;
  }
}

}  // namespace
}  // namespace scn
