// Parser tests: every contract form, precedence, line breaks, spans, and the print round trip.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "lang/syntax/ast_print.hpp"
#include "lang/syntax/parser.hpp"

namespace scn {
namespace {

Program parse(const std::string& text, DiagnosticSink& sink) {
  return parseProgram(std::make_shared<SourceFile>("t.scn", text), sink);
}

// The AST dump of `text`, failing the test on any diagnostic.
std::string ast(const std::string& text) {
  DiagnosticSink sink;
  Program p = parse(text, sink);
  for (const Diagnostic& d : sink.all()) ADD_FAILURE() << render(d);
  return printAst(p);
}

// The code block of the language contract (/work/shared/LANGUAGE.md, "Syntax"), with its `...`
// placeholders filled in.
const char* kContract = R"(# a comment
let x = 1.0                        # binding; `x = e` rebinds an existing local
let (c, ys) = scan(step, c0, xs)   # tuple destructuring, nestable; `_` ignores
fn add(a, b) = a + b               # one-expression function
fn gp(static n, x0, a) {           # block body: statements, last expression is the result
  let (_, xs) = scan(|c, _| (a * c, a * c), x0, None, length=n - 1)
  concat((x0[None], xs))
}
|c, x| (c + x, c)                  # lambda (a block body works too: |x| { ... })
                                   # `fn` and lambdas nest and close over outer values
for i in 0..n { x = sqrt(x @ x) }  # static-length loop: n must be static; unrolled at trace time
if n > 2 { x } else { -x }         # condition must be static inside a fn
print(x)
assert(all(x >= 0), "message")
assert_close(a, b, rtol=1e-5, atol=0)  # NumPy's rule: |a-b| <= atol + rtol*|b|, defaults 1e-5, 1e-8
import "file.scn"                  # definitions of another file
)";

TEST(Parser, ContractSyntaxBlock) {
  EXPECT_EQ(ast(kContract),
            "(let x (float 1.0))\n"
            "(let (tuple c ys) (call scan step c0 xs))\n"
            "(fn add (a b) (+ a b))\n"
            "(fn gp ((static n) x0 a) (block\n"
            "  (let (tuple _ xs) (call scan (lambda (c _) (tuple (* a c) (* a c))) x0 None "
            "(kw length (- n (int 1)))))\n"
            "  (result (call concat (tuple (index x0 None) xs)))))\n"
            "(lambda (c x) (tuple (+ c x) c))\n"
            "(for i (int 0) n (block\n"
            "  (assign x (call sqrt (@ x x)))))\n"
            "(if (> n (int 2)) (block\n"
            "  (result x)) (block\n"
            "  (result (neg x))))\n"
            "(call print x)\n"
            "(call assert (call all (>= x (int 0))) (str \"message\"))\n"
            "(call assert_close a b (kw rtol (float 1e-05)) (kw atol (int 0)))\n"
            "(import \"file.scn\")\n");
}

TEST(Parser, ContractOperatorsAndIndexing) {
  EXPECT_EQ(ast("x[i]; x[1:5]; x[:, 0]; x[None]; x[-1]; x[::2]; x[1:]; x[:5:-1]; t.0; t.0.1\n"
                "x.shape; x.shape[0]; f(a, k=v); f(); f(k=1,); len(x)\n"
                "let y = 1.5f64 + 3u64 - 7i64 * 2f32 / a // b % c ** d @ e"),
            "(index x i)\n"
            "(index x (slice (int 1) (int 5) _))\n"
            "(index x (slice _ _ _) (int 0))\n"
            "(index x None)\n"
            "(index x (neg (int 1)))\n"
            "(index x (slice _ _ (int 2)))\n"
            "(index x (slice (int 1) _ _))\n"
            "(index x (slice _ (int 5) (neg (int 1))))\n"
            "(field t 0)\n"
            "(field (field t 0) 1)\n"
            "(attr x shape)\n"
            "(index (attr x shape) (int 0))\n"
            "(call f a (kw k v))\n"
            "(call f)\n"
            "(call f (kw k (int 1)))\n"
            "(call len x)\n"
            "(let y (- (+ (float 1.5 f64) (int 3 u64)) (@ (% (// (/ (* (int 7 i64) (float 2.0 "
            "f32)) a) b) (** c d)) e)))\n");
  EXPECT_EQ(ast("a == b; a != b; a < b; a <= b; a > b; a >= b; a && b || !c; true; false; "
                "None; \"s\"; (); (a,); (a, b,); ((a))"),
            "(== a b)\n(!= a b)\n(< a b)\n(<= a b)\n(> a b)\n(>= a b)\n"
            "(|| (&& a b) (not c))\ntrue\nfalse\nNone\n(str \"s\")\n"
            "(tuple)\n(tuple a)\n(tuple a b)\na\n");
}

// `[` starts an array literal where an expression starts and indexes after one on the same
// line; `...` is an index item of its own.
TEST(Parser, ListsAndEllipsis) {
  EXPECT_EQ(ast("[1, 2.5]; []; [[a], [b,],]; f([3, 4], axis=[0]); [1, 2][0]; -[1]\n"
                "x[..., 0]; x[1, ..., ::-1]\nlet y = x\n[1]"),
            "(list (int 1) (float 2.5))\n"
            "(list)\n"
            "(list (list a) (list b))\n"
            "(call f (list (int 3) (int 4)) (kw axis (list (int 0))))\n"
            "(index (list (int 1) (int 2)) (int 0))\n"
            "(neg (list (int 1)))\n"
            "(index x ... (int 0))\n"
            "(index x (int 1) ... (slice _ _ (neg (int 1))))\n"
            "(let y x)\n"
            "(list (int 1))\n");
}

TEST(Parser, Precedence) {
  EXPECT_EQ(ast("-2**2"), "(neg (** (int 2) (int 2)))\n");  // -2**2 == -4
  EXPECT_EQ(ast("2**-1"), "(** (int 2) (neg (int 1)))\n");
  EXPECT_EQ(ast("2**3**2"), "(** (int 2) (** (int 3) (int 2)))\n");  // right-associative
  EXPECT_EQ(ast("(-2)**2"), "(** (neg (int 2)) (int 2))\n");
  EXPECT_EQ(ast("a - b - c"), "(- (- a b) c)\n");
  EXPECT_EQ(ast("a + b * c"), "(+ a (* b c))\n");
  EXPECT_EQ(ast("a @ b * c"), "(* (@ a b) c)\n");  // @ sits with * / // %
  EXPECT_EQ(ast("a * b @ c"), "(@ (* a b) c)\n");
  EXPECT_EQ(ast("a || b && c"), "(|| a (&& b c))\n");
  EXPECT_EQ(ast("a && b == c"), "(&& a (== b c))\n");
  EXPECT_EQ(ast("a == b + c"), "(== a (+ b c))\n");
  EXPECT_EQ(ast("!a && b"), "(&& (not a) b)\n");
  EXPECT_EQ(ast("-a * b"), "(* (neg a) b)\n");
  EXPECT_EQ(ast("-x.shape[0]"), "(neg (index (attr x shape) (int 0)))\n");
  EXPECT_EQ(ast("--x"), "(neg (neg x))\n");
  EXPECT_EQ(ast("!-x"), "(not (neg x))\n");
  EXPECT_EQ(ast("f(x)(y)[0].1.z"), "(attr (field (index (call (call f x) y) (int 0)) 1) z)\n");
}

// Bitwise operators in Python's order: | below ^ below & below the shifts below + -, all above
// the comparisons; ~ with the other prefix operators.
TEST(Parser, BitwisePrecedence) {
  EXPECT_EQ(ast("a | b ^ c & d"), "(| a (^ b (& c d)))\n");
  EXPECT_EQ(ast("a & b << c + d"), "(& a (<< b (+ c d)))\n");
  EXPECT_EQ(ast("a & 7 == b | c"), "(== (& a (int 7)) (| b c))\n");
  EXPECT_EQ(ast("a || b | c && d"), "(|| a (&& (| b c) d))\n");
  EXPECT_EQ(ast("a >> b >> c"), "(>> (>> a b) c)\n");
  EXPECT_EQ(ast("~a & -b ** 2"), "(& (invert a) (neg (** b (int 2))))\n");
  EXPECT_EQ(ast("!~-x"), "(not (invert (neg x)))\n");
}

// Note [Pipes]: `|` opens a lambda where an operand starts and is an or after one.
TEST(Parser, PipesAsLambdasAndOr) {
  EXPECT_EQ(ast("let f = |x| x | m"), "(let f (lambda (x) (| x m)))\n");
  EXPECT_EQ(ast("g(|x| x, a | b)"), "(call g (lambda (x) x) (| a b))\n");
  EXPECT_EQ(ast("(|x| x) | y"), "(| (lambda (x) x) y)\n");
  EXPECT_EQ(ast("a || || b"), "(|| a (lambda () b))\n");
  EXPECT_EQ(ast("a |\nb"), "(| a b)\n");                    // the operator ends the line
  EXPECT_EQ(ast("a\n|x| x"), "a\n(lambda (x) x)\n");         // a line starting with `|`
  EXPECT_EQ(ast("for x in t { }\nfor r in m[0] { }"), "(for x (in t) (block))\n(for r (in (index m (int 0))) (block))\n");
}

TEST(Parser, LambdasIfAndBlocks) {
  EXPECT_EQ(ast("let f = |a, b| a + b\nlet g = || 1\nlet h = |static n, _| {\n  let y = n\n"
                "  y * 2\n}\nlet k = |x| |y| x + y"),
            "(let f (lambda (a b) (+ a b)))\n"
            "(let g (lambda () (int 1)))\n"
            "(let h (lambda ((static n) _) (block\n"
            "  (let y n)\n"
            "  (result (* y (int 2))))))\n"
            "(let k (lambda (x) (lambda (y) (+ x y))))\n");
  EXPECT_EQ(ast("let v = if a { 1 } else if b { 2 } else { 3 }\nif c { print(c) }\n"
                "let w = { let t = 1; t + 1 }\nlet u = { f(x); }\n{}"),
            "(let v (if a (block\n  (result (int 1))) (if b (block\n  (result (int 2))) (block\n"
            "  (result (int 3))))))\n"
            "(if c (block\n  (result (call print c))))\n"
            "(let w (block\n  (let t (int 1))\n  (result (+ t (int 1)))))\n"
            "(let u (block\n  (call f x)))\n"
            "(block)\n");
}

TEST(Parser, FunctionsLoopsPatterns) {
  EXPECT_EQ(ast("fn outer(x) {\n  fn inner(static k, _) = x * k\n  for _ in 0..3 { x = inner(2, "
                "x) }\n  x\n}\nlet ((a, _), (b,), ()) = t\nlet (p) = q\nfn nothing() {}"),
            "(fn outer (x) (block\n"
            "  (fn inner ((static k) _) (* x k))\n"
            "  (for _ (int 0) (int 3) (block\n"
            "    (assign x (call inner (int 2) x))))\n"
            "  (result x)))\n"
            "(let (tuple (tuple a _) (tuple b) (tuple)) t)\n"
            "(let p q)\n"
            "(fn nothing () (block))\n");
}

TEST(Parser, LineBreaks) {
  // Note [Newlines]: a line break ends a statement except inside ( ) [ ] and after an operator.
  EXPECT_EQ(ast("let x = a +\n  b\nf(a,\n  b)\nlet y = a\n-b\nf\n(x)\nx[1,\n  2]\n"
                "let t = (1,\n  2)\nfn f(a,\n  b)\n= a"),
            "(let x (+ a b))\n(call f a b)\n(let y a)\n(neg b)\nf\nx\n"
            "(index x (int 1) (int 2))\n(let t (tuple (int 1) (int 2)))\n(fn f (a b) a)\n");
  // Inside a block inside parentheses line breaks separate statements again.
  EXPECT_EQ(ast("g(|x| {\n  let y = x\n  y\n})"),
            "(call g (lambda (x) (block\n  (let y x)\n  (result y))))\n");
  // `else` may start a line; `;` separates statements on one line.
  EXPECT_EQ(ast("if c {\n  1\n}\nelse {\n  2\n}\na; b;; c;"),
            "(if c (block\n  (result (int 1))) (block\n  (result (int 2))))\na\nb\nc\n");
  EXPECT_EQ(ast("{ a; }\n{ a }\n{ a; b }\n{\n  a\n  b\n}"),
            "(block\n  a)\n(block\n  (result a))\n(block\n  a\n  (result b))\n"
            "(block\n  a\n  (result b))\n");
}

TEST(Parser, NegatedLiteralEdges) {
  EXPECT_EQ(ast("-2147483648i32; -9223372036854775808; 4294967295u32; 3.4e38f32"),
            "(neg (int 2147483648 i32))\n(neg (int 9223372036854775808))\n"
            "(int 4294967295 u32)\n(float 3.4e+38 f32)\n");
}

// Every node's span is valid and lies inside its parent's span.
void checkSpans(const Expr& e, const Span& parent);
void checkStmtSpans(const Stmt& s, const Span& parent) {
  ASSERT_TRUE(s.span.valid());
  EXPECT_GE(s.span.begin, parent.begin);
  EXPECT_LE(s.span.end, parent.end);
  switch (s.kind) {
    case StmtKind::Let: checkSpans(*static_cast<const LetStmt&>(s).value, s.span); break;
    case StmtKind::Assign: checkSpans(*static_cast<const AssignStmt&>(s).value, s.span); break;
    case StmtKind::Expr: checkSpans(*static_cast<const ExprStmt&>(s).expr, s.span); break;
    case StmtKind::Fn: checkSpans(*static_cast<const FnStmt&>(s).body, s.span); break;
    case StmtKind::For: {
      const auto& f = static_cast<const ForStmt&>(s);
      if (f.iterable) {
        checkSpans(*f.iterable, s.span);
      } else {
        checkSpans(*f.lo, s.span);
        checkSpans(*f.hi, s.span);
      }
      checkSpans(*f.body, s.span);
      break;
    }
    case StmtKind::Import: break;
  }
}

void checkSpans(const Expr& e, const Span& parent) {
  ASSERT_TRUE(e.span.valid());
  EXPECT_GE(e.span.begin, parent.begin) << e.span.text();
  EXPECT_LE(e.span.end, parent.end) << e.span.text();
  EXPECT_LT(e.span.begin, e.span.end);
  auto sub = [&](const ExprPtr& x) {
    if (x) checkSpans(*x, e.span);
  };
  switch (e.kind) {
    case ExprKind::Number: case ExprKind::String: case ExprKind::Bool: case ExprKind::None:
    case ExprKind::Name:
      break;
    case ExprKind::Tuple: for (const ExprPtr& x : static_cast<const TupleExpr&>(e).elems) sub(x); break;
    case ExprKind::List: for (const ExprPtr& x : static_cast<const ListExpr&>(e).elems) sub(x); break;
    case ExprKind::Unary: sub(static_cast<const UnaryExpr&>(e).operand); break;
    case ExprKind::Binary: {
      const auto& b = static_cast<const BinaryExpr&>(e);
      sub(b.lhs);
      sub(b.rhs);
      EXPECT_EQ(b.opSpan.text(), spelling(b.op));
      break;
    }
    case ExprKind::Call: {
      const auto& c = static_cast<const CallExpr&>(e);
      sub(c.callee);
      for (const Argument& a : c.args) {
        sub(a.value);
        if (!a.keyword.empty()) {
          EXPECT_EQ(a.keywordSpan.text(), a.keyword);
        }
      }
      break;
    }
    case ExprKind::Index: {
      const auto& x = static_cast<const IndexExpr&>(e);
      sub(x.base);
      for (const IndexItem& it : x.items) {
        sub(it.index);
        sub(it.start);
        sub(it.stop);
        sub(it.step);
      }
      break;
    }
    case ExprKind::Field: sub(static_cast<const FieldExpr&>(e).base); break;
    case ExprKind::Attr: sub(static_cast<const AttrExpr&>(e).base); break;
    case ExprKind::Lambda: sub(static_cast<const LambdaExpr&>(e).body); break;
    case ExprKind::Block: {
      const auto& b = static_cast<const BlockExpr&>(e);
      for (const StmtPtr& s : b.stmts) checkStmtSpans(*s, e.span);
      sub(b.result);
      break;
    }
    case ExprKind::If: {
      const auto& i = static_cast<const IfExpr&>(e);
      sub(i.cond);
      sub(i.thenBlock);
      sub(i.elseBlock);
      break;
    }
  }
}

TEST(Parser, Spans) {
  DiagnosticSink sink;
  std::string text = "let y = foo(a, k=b)[1:2]\nfn f(static n, x) {\n  x ** n\n}\n(t.0).1";
  Program p = parse(text, sink);
  ASSERT_EQ(sink.errorCount(), 0);
  ASSERT_EQ(p.stmts.size(), 3u);
  Span whole{p.source.get(), 0, uint32_t(text.size())};
  for (const StmtPtr& s : p.stmts) checkStmtSpans(*s, whole);

  const auto& let = static_cast<const LetStmt&>(*p.stmts[0]);
  EXPECT_EQ(let.span.text(), "let y = foo(a, k=b)[1:2]");
  EXPECT_EQ(let.pattern.span.text(), "y");
  const auto& index = static_cast<const IndexExpr&>(*let.value);
  EXPECT_EQ(index.span.text(), "foo(a, k=b)[1:2]");
  EXPECT_EQ(index.items[0].span.text(), "1:2");
  EXPECT_EQ(index.base->span.text(), "foo(a, k=b)");
  const auto& fn = static_cast<const FnStmt&>(*p.stmts[1]);
  EXPECT_EQ(fn.nameSpan.text(), "f");
  EXPECT_EQ(fn.params[0].span.text(), "static n");
  EXPECT_EQ(p.source->lineCol(fn.body->span.begin), std::make_pair(2u, 19u));
  const auto& pow = static_cast<const BinaryExpr&>(*static_cast<const BlockExpr&>(*fn.body).result);
  EXPECT_EQ(pow.span.text(), "x ** n");
  EXPECT_EQ(p.source->lineCol(pow.opSpan.begin), std::make_pair(3u, 5u));
  const auto& field = static_cast<const FieldExpr&>(*static_cast<const ExprStmt&>(*p.stmts[2]).expr);
  EXPECT_EQ(field.span.text(), "(t.0).1");
  EXPECT_EQ(field.base->span.text(), "(t.0)");  // a grouped expression's span has its parentheses
}

TEST(Parser, SplitTupleFieldSpans) {
  DiagnosticSink sink;
  Program p = parse("t.0.12", sink);
  const auto& outer = static_cast<const FieldExpr&>(*static_cast<const ExprStmt&>(*p.stmts[0]).expr);
  EXPECT_EQ(outer.field, 12u);
  EXPECT_EQ(outer.span.text(), "t.0.12");
  EXPECT_EQ(static_cast<const FieldExpr&>(*outer.base).span.text(), "t.0");
}

TEST(Parser, ParseExpression) {
  auto file = std::make_shared<SourceFile>("<-e>", "sum(x ** 2, axis=0)");
  DiagnosticSink sink;
  ExprPtr e = parseExpression(file, sink);
  ASSERT_TRUE(e);
  EXPECT_EQ(printAst(*e), "(call sum (** x (int 2)) (kw axis (int 0)))\n");
  auto bad = std::make_shared<SourceFile>("<-e>", "1 2");
  EXPECT_FALSE(parseExpression(bad, sink));
  ASSERT_EQ(sink.all().size(), 1u);
  EXPECT_EQ(render(sink.all()[0]),
            "<-e>:1:3: error[E0010]: expected the end of the input after the expression, found "
            "`2`\n 1 | 1 2\n   |   ^\n");
}

// ---- round trip: parse, print as source, parse again: the same AST ----

void expectRoundTrip(const std::string& text) {
  DiagnosticSink sink;
  Program first = parse(text, sink);
  ASSERT_EQ(sink.errorCount(), 0) << text;
  std::string source = printSource(first);
  Program second = parse(source, sink);
  ASSERT_EQ(sink.errorCount(), 0) << source;
  EXPECT_EQ(printAst(first), printAst(second)) << source;
  EXPECT_EQ(printSource(second), source);  // printing is a fixpoint
}

TEST(Parser, RoundTripContract) { expectRoundTrip(kContract); }

TEST(Parser, RoundTripTrickyForms) {
  expectRoundTrip("let a = -2**2; let b = (-2)**2; let c = 2**-x; let d = (a < b) == (c < d)");
  expectRoundTrip("let e = (|x| x)(1) + (|y| y * 2)(3); let f = (if a { 1 } else { 2 }) + 1");
  expectRoundTrip("let g = (1).0 + (2.5).x + t.0.1 + (a, b).1 + ().0");
  expectRoundTrip("let h = a - (b - c) + (a + b) * c ** (d ** e) ** f");
  expectRoundTrip("let s = \"quote \\\" backslash \\\\ tab \\t line \\n\"");
  expectRoundTrip("let n = 1e-5 + 1e20 + 2.5f32 + 0x10 + 7i64 + 3u64 + 0.1f64 + 2f32");
  expectRoundTrip("fn f(x) { g(x); }\nfn g(x) {\n  let y = { x; }\n  y\n}\n{ }\n{ a; b }");
  expectRoundTrip("x[::2, 1:, :3, ::, None, -1, a:b:c]\nf(|a| { a }, k=|| 1, j={ 2 })");
  expectRoundTrip("if a { b } else if c { d } else { e }\nlet v = !(a && b) || !!c");
  expectRoundTrip("for i in -1..(n + 1) { for j in 0..i { x = x + j } }");
  expectRoundTrip("let ((a, _), (b,), ()) = t\nlet k = |static n, _| n");
  expectRoundTrip("let a = [1, [2, 3], []] + [x][0]\nx[..., 1:, ::-2]");
  expectRoundTrip("let b = (a | b) & ~c ^ (d << 2 >> e) | f(|x| x | 1)\nfor x in (1, 2) { y = y | x }");
  expectRoundTrip("let c = (a + b) << 1; let d = -(a & b); let e = (a == b) & (c < d)");
  expectRoundTrip("fn f(x, static n = 3, eps = 1e-5, b = None, g = |y| y + 1, t = (1, 2)) = x");
}

// Every program under tests/programs (and the examples) parses and round-trips.
TEST(Parser, RoundTripGoldenPrograms) {
  std::string list[] = {"tests/programs/syntax/forms.scn", "tests/programs/syntax/layout.scn"};
  for (const std::string& rel : list) {
    std::ifstream in(std::string(SCN_SOURCE_DIR) + "/" + rel, std::ios::binary);
    ASSERT_TRUE(in) << rel;
    std::stringstream ss;
    ss << in.rdbuf();
    expectRoundTrip(ss.str());
  }
}

// The golden AST dumps next to the syntax programs (`forms.scn` -> `forms.ast`).
TEST(Parser, GoldenAstDumps) {
  for (const char* name : {"forms", "layout"}) {
    std::string base = std::string(SCN_SOURCE_DIR) + "/tests/programs/syntax/" + name;
    std::ifstream src(base + ".scn", std::ios::binary), dump(base + ".ast", std::ios::binary);
    ASSERT_TRUE(src && dump) << base;
    std::stringstream s, d;
    s << src.rdbuf();
    d << dump.rdbuf();
    EXPECT_EQ(ast(s.str()), d.str()) << name;
  }
}

}  // namespace
}  // namespace scn
