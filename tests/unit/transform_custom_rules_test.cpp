// The custom rules of custom_jvp / custom_vjp calls in the IR (Note [Custom rules] in
// jit/transform/custom_rules.cpp): run undifferentiated, the call is its branch; jvpFunc applies
// the JVP rule, vjpFunc transposes it or runs fwd and bwd, batchFunc batches the rules. The
// rules here deliberately differ from the true derivatives so that the tests see which is used.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "base/diagnostics.hpp"
#include "jit/autodiff.hpp"
#include "jit/backend.hpp"
#include "jit/batch.hpp"
#include "jit/transform/passes.hpp"

namespace scn {
namespace {

const Type kScalar{DType::F64, {}};

/// Appends op(in) to f (types from inferTypes); returns its outputs.
std::vector<int> emit(Func& f, Op op, std::vector<int> in, Attrs a = {}, std::vector<FuncPtr> subs = {}) {
  std::vector<Type> types;
  for (int v : in) types.push_back(f.type(v));
  InferResult r = inferTypes(op, types, a, subs);
  EXPECT_TRUE(r.ok()) << r.error;
  Eqn e{op, std::move(in), {}, std::move(a), std::move(subs), Span{}};
  for (Type& t : r.types) e.outputs.push_back(f.newVar(t));
  f.eqns.push_back(e);
  return e.outputs;
}

int constant(Func& f, double v) {
  Attrs a;
  a.dtype = DType::F64;
  a.value = std::make_shared<Array>(Array::scalar(DType::F64, v));
  return emit(f, Op::Constant, {}, a).at(0);
}

/// A function of `n` f64 scalars whose body `body` builds its results.
FuncPtr scalarFunc(size_t n, const std::function<std::vector<int>(Func&, const std::vector<int>&)>& body) {
  auto f = std::make_shared<Func>();
  std::vector<int> ps;
  for (size_t i = 0; i < n; ++i) f->params.push_back(ps.emplace_back(f->newVar(kScalar)));
  f->results = body(*f, ps);
  return f;
}

/// g(x) = the call of a custom function of x whose branch is exp(x), with `rule` attached.
FuncPtr customCall(std::shared_ptr<CustomRule> rule) {
  FuncPtr branch = scalarFunc(1, [](Func& f, const std::vector<int>& p) { return emit(f, Op::Exp, {p[0]}); });
  rule->numArgs = 1;
  return scalarFunc(1, [&](Func& f, const std::vector<int>& p) {
    Attrs a;
    a.dtype = DType::I32;
    a.value = std::make_shared<Array>(Array::scalarInt(DType::I32, 0));
    int index = emit(f, Op::Constant, {}, a).at(0);
    Attrs c;
    c.custom = rule;
    return emit(f, Op::Cond, {index, p[0]}, c, {branch});
  });
}

/// custom_jvp with the rule (x, t) -> (exp(x), 3 t).
FuncPtr customJvp() {
  auto r = std::make_shared<CustomRule>();
  r->kind = CustomRule::Jvp;
  r->jvp = scalarFunc(2, [](Func& f, const std::vector<int>& p) {
    return std::vector<int>{emit(f, Op::Exp, {p[0]}).at(0), emit(f, Op::Mul, {constant(f, 3), p[1]}).at(0)};
  });
  return customCall(r);
}

/// custom_vjp with fwd x -> (exp(x), x) and bwd (r, ct) -> 5 r ct.
FuncPtr customVjp() {
  auto r = std::make_shared<CustomRule>();
  r->kind = CustomRule::Vjp;
  r->numResiduals = 1;
  r->fwd = scalarFunc(1, [](Func& f, const std::vector<int>& p) {
    return std::vector<int>{emit(f, Op::Exp, {p[0]}).at(0), p[0]};
  });
  r->bwd = scalarFunc(2, [](Func& f, const std::vector<int>& p) {
    return emit(f, Op::Mul, {emit(f, Op::Mul, {constant(f, 5), p[0]}).at(0), p[1]});
  });
  return customCall(r);
}

double run1(const Func& f, std::vector<double> args, size_t result) {
  std::vector<Array> in;
  for (double a : args) in.push_back(Array::scalar(DType::F64, a));
  return interpret(f, in).at(result).getDouble(0);
}

TEST(CustomRules, UndifferentiatedTheCallRunsItsBranch) {
  EXPECT_DOUBLE_EQ(run1(*customJvp(), {0.5}, 0), std::exp(0.5));
  EXPECT_DOUBLE_EQ(run1(*customVjp(), {0.5}, 0), std::exp(0.5));
  EXPECT_NE(printFunc(*customJvp()).find("rule=custom_jvp"), std::string::npos) << printFunc(*customJvp());
}

TEST(CustomRules, ForwardModeAppliesTheJvpRule) {
  FuncPtr j = jvpFunc(*customJvp(), {true});
  ASSERT_EQ(verify(*j), "") << printFunc(*j);
  EXPECT_DOUBLE_EQ(run1(*j, {0.5, 2.0}, 0), std::exp(0.5));
  EXPECT_DOUBLE_EQ(run1(*j, {0.5, 2.0}, 1), 6.0);
}

TEST(CustomRules, ReverseModeTransposesTheJvpRule) {
  FuncPtr g = vjpFunc(*customJvp(), {true});
  ASSERT_EQ(verify(*g), "") << printFunc(*g);
  EXPECT_DOUBLE_EQ(run1(*g, {0.5, 2.0}, 1), 6.0);
}

TEST(CustomRules, ReverseModeRunsFwdAndBwd) {
  FuncPtr g = vjpFunc(*customVjp(), {true});
  ASSERT_EQ(verify(*g), "") << printFunc(*g);
  EXPECT_DOUBLE_EQ(run1(*g, {0.5, 2.0}, 0), std::exp(0.5));
  EXPECT_DOUBLE_EQ(run1(*g, {0.5, 2.0}, 1), 5.0);  // 5 * x * ct
}

TEST(CustomRules, ForwardModeOfACustomVjpCallIsE0366) {
  try {
    jvpFunc(*customVjp(), {true});
    FAIL() << "expected E0366";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code, "E0366");
  }
}

TEST(CustomRules, BatchingBatchesTheRules) {
  // vmap over 3 lanes, then differentiate: each lane uses the rule.
  for (bool jvpRule : {true, false}) {
    FuncPtr b = batchFunc(*(jvpRule ? customJvp() : customVjp()), {0}, 3, {0}, Span{});
    ASSERT_EQ(verify(*b), "") << printFunc(*b);
    FuncPtr g = vjpFunc(*b, {true});
    ASSERT_EQ(verify(*g), "") << printFunc(*g);
    Array x(DType::F64, {3}), ct(DType::F64, {3});
    for (int64_t i = 0; i < 3; ++i) {
      x.setDouble(i, 0.5 * static_cast<double>(i));
      ct.setDouble(i, 1.0 + static_cast<double>(i));
    }
    Array grad = interpret(*g, {x, ct}).at(1);
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_DOUBLE_EQ(grad.getDouble(i), jvpRule ? 3.0 * ct.getDouble(i) : 5.0 * x.getDouble(i) * ct.getDouble(i));
  }
}

TEST(CustomRules, ANonLinearTangentIsE0367UnderReverseMode) {
  auto r = std::make_shared<CustomRule>();
  r->kind = CustomRule::Jvp;
  r->jvp = scalarFunc(2, [](Func& f, const std::vector<int>& p) {
    return std::vector<int>{emit(f, Op::Exp, {p[0]}).at(0), emit(f, Op::Exp, {p[1]}).at(0)};
  });
  FuncPtr g = customCall(r);
  EXPECT_NO_THROW(jvpFunc(*g, {true}));  // forward mode accepts any rule
  try {
    vjpFunc(*g, {true});
    FAIL() << "expected E0367";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code, "E0367");
  }
}

TEST(CustomRules, ThePipelineInlinesTheCallsBeforeCompiling) {
  PipelineOptions opts;
  opts.verifyEach = true;
  for (FuncPtr f : {customJvp(), customVjp()}) {
    FuncPtr g = runPipeline(*f, opts);
    ASSERT_EQ(g->eqns.size(), 1u) << printFunc(*g);  // exp(x): no cond, no constant index
    EXPECT_EQ(g->eqns[0].op, Op::Exp);
    EXPECT_DOUBLE_EQ(run1(*g, {0.5}, 0), std::exp(0.5));
  }
}

}  // namespace
}  // namespace scn
