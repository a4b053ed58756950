// Scopes and the compile cache free what nothing can reach any more (Note [Scope cycles],
// Note [Cache lifetime]): an array bound next to a closure in a loop body, a block or a call
// is released when the scope ends, on every backend.
#include <gtest/gtest.h>

#include "test_backends.hpp"

#include <memory>
#include <string>

#include "driver/session.hpp"

namespace scn {
namespace {

class Scopes : public ::testing::TestWithParam<std::string> {
 protected:
  Scopes() {
    SessionOptions o;
    o.backend = GetParam();
    o.onDiagnostic = [this](const Diagnostic& d) {
      if (!errorExpected) ADD_FAILURE() << render(d);
    };
    s = std::make_unique<Session>(o);
  }

  /// Binds `big` to a fresh array and returns a weak reference to its value.
  std::weak_ptr<AVal> bindBig() {
    EXPECT_TRUE(s->run("<test>", "let big = zeros((1000,))"));
    const Value* v = s->evaluator().globals()->lookup("big");
    EXPECT_TRUE(v && v->isArray());
    return v ? std::weak_ptr<AVal>(v->array) : std::weak_ptr<AVal>();
  }

  /// Runs `code` (which may keep `big` in scopes), rebinds `big` and says whether the old
  /// value was freed.
  bool freedAfter(const std::string& code) {
    std::weak_ptr<AVal> big = bindBig();
    EXPECT_TRUE(s->run("<test>", code)) << code;
    EXPECT_TRUE(s->run("<test>", "let big = 0"));
    return big.expired();
  }

  std::unique_ptr<Session> s;
  bool errorExpected = false;
};

TEST_P(Scopes, AClosureBoundInALoopBodyDoesNotKeepTheBody) {
  EXPECT_TRUE(freedAfter("for i in 0..3 { let b = big\n let g = |a| a + b }"));
  EXPECT_TRUE(freedAfter("for i in 0..3 { let b = big\n fn g(a) = a + b\n print(g(1.0)[0]) }"));
}

TEST_P(Scopes, AClosureBoundInABlockOrACallDoesNotKeepIt) {
  EXPECT_TRUE(freedAfter("let r = { let b = big\n let g = |a| a + b\n g(1.0) }"));
  EXPECT_TRUE(freedAfter("fn use(x) { let b = x\n let g = |a| a + b\n g(1.0) }\nlet r = use(big)"));
  // A closure made in a block and stored in the scope around it: a cycle through two scopes.
  EXPECT_TRUE(freedAfter("let r = { let b = big\n let g = { let c = b\n |a| a + c }\n g(1.0) }"));
}

TEST_P(Scopes, AnEscapingClosureKeepsItsScope) {
  std::weak_ptr<AVal> big = bindBig();
  ASSERT_TRUE(s->run("<test>", "let keep = { let b = big\n |a| a + b }\nlet big = 0"));
  EXPECT_FALSE(big.expired()) << "`keep` still reads b";
  ASSERT_TRUE(s->run("<test>", "print(keep(1.0)[999])"));
  ASSERT_TRUE(s->run("<test>", "let keep = 0"));
  EXPECT_TRUE(big.expired());
}

TEST_P(Scopes, AnEscapedClosureInACycleIsFreedOnceDropped) {
  // `add` is bound in make's scope and returned: the scope stays while `adder` lives.
  std::weak_ptr<AVal> big = bindBig();
  ASSERT_TRUE(s->run("<test>", "fn make() { let b = big\n fn add(a) = a + b[0]\n add }\nlet adder = make()\nlet big = 0"));
  EXPECT_FALSE(big.expired());
  ASSERT_TRUE(s->run("<test>", "print(adder(1.0))"));
  EXPECT_FALSE(big.expired());
  ASSERT_TRUE(s->run("<test>", "let adder = 0"));
  EXPECT_TRUE(big.expired());
  // Many at once, dropped inside one program: collected when they double, and at its end.
  std::weak_ptr<AVal> big2 = bindBig();
  ASSERT_TRUE(s->run("<test>", "fn make2() { let b = big\n fn add(a) = a + b[0]\n add }\n"
                               "for i in 0..200 { let f = make2()\n let y = f(1.0) }"));
  ASSERT_TRUE(s->run("<test>", "let big = 0"));
  EXPECT_TRUE(big2.expired());
}

TEST_P(Scopes, AnErrorEndsItsScopesToo) {
  std::weak_ptr<AVal> big = bindBig();
  errorExpected = true;
  EXPECT_FALSE(s->run("<test>", "for i in 0..3 { let b = big\n let g = |a| a + b\n undefined_name }"));
  errorExpected = false;
  ASSERT_TRUE(s->run("<test>", "let big = 0"));
  EXPECT_TRUE(big.expired());
}

TEST_P(Scopes, TheCompileCacheDoesNotKeepDeadFunctions) {
  // Each iteration defines a new function over the array and calls it (a compile each time).
  EXPECT_TRUE(freedAfter("for i in 0..3 { let b = big\n fn g(x) = x + b[0] + i\n print(g(1.0)) }"));
  // A function-valued argument is keyed by address but not kept alive.
  EXPECT_TRUE(freedAfter("fn apply(f, x) = f(x)\nfor i in 0..3 { let b = big\n print(apply(|a| a + b[i], 1.0)) }"));
}

TEST_P(Scopes, ARecycledAddressNeverServesAStaleTrace) {
  // Many short-lived functions with different bodies in turn: whatever addresses they reuse,
  // each call must see its own function and its own capture.
  ASSERT_TRUE(s->run("<test>", "let total = 0.0\nfor i in 0..40 { fn g(x) = x * i\n total = total + g(1.0) }\n"
                               "assert_close(total, 780.0)"));
  ASSERT_TRUE(s->run("<test>", "fn apply(f, x) = f(x)\nlet t2 = 0.0\n"
                               "for i in 0..40 { t2 = t2 + apply(|a| a + i, 0.0) }\nassert_close(t2, 780.0)"));
}

// The compiled code of a redefined function, or of a top-level loop, goes once nothing can call
// it: a session that loads the same program again and again (a host, the REPL) keeps one copy.
// Every compiled function used to be kept for the session's lifetime.
TEST_P(Scopes, CompiledCodeOfDeadFunctionsIsDropped) {
  const std::string program = "fn twice(x) = x * 2.0\nlet r = twice(arange(4.0))\n"
                              "let l = fori_loop(0, 3, |i, c| c + 1.0, 0.0)";
  ASSERT_TRUE(s->run("<test>", program));
  size_t once = s->compiledFunctions();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(s->run("<test>", program));
  EXPECT_LE(s->compiledFunctions(), once);
  // A function still defined keeps its code: the call is served from the compile cache.
  ASSERT_TRUE(s->run("<test>", "twice(arange(4.0))"));
  ASSERT_FALSE(s->records().empty());
  EXPECT_FALSE(s->records().back().traced);
}

// A top-level loop that calls grad traces and compiles a function per iteration; the code of the
// earlier iterations goes while the loop runs, not only when the program ends (a training loop
// at the top level once held every iteration's code, 59 MB each with 4 MB arguments).
TEST_P(Scopes, CodeOfATopLevelLoopIsDroppedWhileItRuns) {
  SessionOptions o;
  o.backend = GetParam();
  size_t most = 0;
  Session* session = nullptr;
  o.onCompile = [&](const FuncPtr&) { most = std::max(most, session->compiledFunctions()); };
  Session looping(o);
  session = &looping;
  ASSERT_TRUE(looping.run("<test>", "fn loss(w, x) = sum(w * x)\nlet w = ones([8])\n"
                                    "for i in 0..400 { let g = grad(loss)(w, arange(8.0) * i) }"));
  EXPECT_GT(most, 0u);
  EXPECT_LT(most, 200u);
}

INSTANTIATE_TEST_SUITE_P(Backends, Scopes, ::testing::ValuesIn(scn::test::builtBackends({"interp", "cpu"})));

}  // namespace
}  // namespace scn
