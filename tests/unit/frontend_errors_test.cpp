// Syntax error tests: the full rendered text of every syntax diagnostic (E0001-E0099), and
// recovery after errors.
#include <gtest/gtest.h>

#include "lang/syntax/ast_print.hpp"
#include "lang/syntax/parser.hpp"

namespace scn {
namespace {

// Every diagnostic `text` produces, rendered and concatenated.
std::string errors(const std::string& text) {
  auto file = std::make_shared<SourceFile>("t.scn", text);
  DiagnosticSink sink;
  Program p = parseProgram(file, sink);
  std::string out;
  for (const Diagnostic& d : sink.all()) out += render(d);
  return out;
}

TEST(SyntaxErrors, E0001_InvalidCharacter) {
  EXPECT_EQ(errors("let x = 1 $ 2"),
            "t.scn:1:11: error[E0001]: invalid character `$`\n"
            " 1 | let x = 1 $ 2\n"
            "   |           ^\n"
            "help: remove it\n");
}

TEST(SyntaxErrors, E0001_QuoteCharacter) {
  EXPECT_EQ(errors("let s = \"a\tb\" # ok\nlet c = 'a'"),
            "t.scn:2:9: error[E0001]: invalid character `'`\n"
            " 2 | let c = 'a'\n"
            "   |         ^\n"
            "help: strings are written in double quotes: \"text\"\n"
            "t.scn:2:11: error[E0001]: invalid character `'`\n"
            " 2 | let c = 'a'\n"
            "   |           ^\n"
            "help: strings are written in double quotes: \"text\"\n");
}

TEST(SyntaxErrors, E0003_UnterminatedString) {
  EXPECT_EQ(errors("let x = \"abc"),
            "t.scn:1:9: error[E0003]: unterminated string\n"
            " 1 | let x = \"abc\n"
            "   |         ^\n"
            "help: add a closing `\"`; the string runs to the end of the file\n");
}

TEST(SyntaxErrors, E0004_UnknownEscape) {
  EXPECT_EQ(errors("let s = \"a\\qb\""),
            "t.scn:1:11: error[E0004]: unknown escape sequence `\\q` in string\n"
            " 1 | let s = \"a\\qb\"\n"
            "   |           ^~\n"
            "help: the escapes are \\n \\t \\r \\\\ and \\\"; write a backslash as \\\\\n");
}

TEST(SyntaxErrors, E0005_UnknownSuffix) {
  EXPECT_EQ(errors("let x = 300u8 + 2bool"),
            "t.scn:1:12: error[E0005]: unknown suffix `u8` on a number literal\n"
            " 1 | let x = 300u8 + 2bool\n"
            "   |            ^~\n"
            "help: the dtype suffixes are i32, i64, u32, u64, bf16, f16, f32, f64, as in `1.5f64` or `3u64`\n"
            "t.scn:1:18: error[E0005]: `bool` is not a number literal suffix\n"
            " 1 | let x = 300u8 + 2bool\n"
            "   |                  ^~~~\n"
            "help: write `true` or `false`, or convert with `bool(1)`\n");
}

TEST(SyntaxErrors, E0006_IntegerOutOfRange) {
  EXPECT_EQ(errors("let x = 99999999999i32 + 5000000000u32 + -9223372036854775809"),
            "t.scn:1:9: error[E0006]: integer literal out of range for i32\n"
            " 1 | let x = 99999999999i32 + 5000000000u32 + -9223372036854775809\n"
            "   |         ^~~~~~~~~~~~~~\n"
            "help: i32 holds integers from -2147483648 to 2147483647\n"
            "t.scn:1:26: error[E0006]: integer literal out of range for u32\n"
            " 1 | let x = 99999999999i32 + 5000000000u32 + -9223372036854775809\n"
            "   |                          ^~~~~~~~~~~~~\n"
            "help: u32 holds integers from 0 to 4294967295\n"
            "t.scn:1:43: error[E0006]: integer literal out of range for i64\n"
            " 1 | let x = 99999999999i32 + 5000000000u32 + -9223372036854775809\n"
            "   |                                           ^~~~~~~~~~~~~~~~~~~\n"
            "help: i64 holds integers from -9223372036854775808 to 9223372036854775807; a literal without a suffix must fit in i64 (add a suffix)\n");
}

TEST(SyntaxErrors, E0007_FloatOutOfRange) {
  EXPECT_EQ(errors("let x = 1e999f32 + 1e400"),
            "t.scn:1:9: error[E0007]: float literal out of range for f32\n"
            " 1 | let x = 1e999f32 + 1e400\n"
            "   |         ^~~~~~~~\n"
            "help: the largest finite f32 is about 3.4e38\n"
            "t.scn:1:20: error[E0007]: float literal out of range for f64\n"
            " 1 | let x = 1e999f32 + 1e400\n"
            "   |                    ^~~~~\n"
            "help: the largest finite f64 is about 1.8e308; a literal without a suffix must fit in f64 (add a suffix)\n");
}

TEST(SyntaxErrors, E0008_FloatWithIntegerSuffix) {
  EXPECT_EQ(errors("let x = 1.5i32"),
            "t.scn:1:12: error[E0008]: float literal cannot have the integer suffix `i32`\n"
            " 1 | let x = 1.5i32\n"
            "   |            ^~~\n"
            "help: use a float suffix (`f32`, `f64`), or convert: `i32(2.5)`\n");
}

TEST(SyntaxErrors, E0009_MissingDigits) {
  EXPECT_EQ(errors("let x = 1e + 0x"),
            "t.scn:1:10: error[E0009]: missing digits in the exponent of a number literal\n"
            " 1 | let x = 1e + 0x\n"
            "   |          ^\n"
            "help: write the exponent as digits, as in `1e5` or `2.5e-3`\n"
            "t.scn:1:14: error[E0009]: hexadecimal literal has no digits\n"
            " 1 | let x = 1e + 0x\n"
            "   |              ^~\n"
            "help: write hexadecimal digits after `0x`, as in `0xff`\n");
}

TEST(SyntaxErrors, E0010_ExpectedExpression) {
  EXPECT_EQ(errors("let x = 1 +\nlet y = 2\nfn g( = 3\nlet z = )"),
            "t.scn:2:1: error[E0010]: expected an expression, found keyword `let`\n"
            " 2 | let y = 2\n"
            "   | ^~~\n"
            "t.scn:3:7: error[E0010]: expected a parameter name, found `=`\n"
            " 3 | fn g( = 3\n"
            "   |       ^\n"
            "t.scn:4:9: error[E0010]: expected an expression, found `)`\n"
            " 4 | let z = )\n"
            "   |         ^\n");
}

TEST(SyntaxErrors, E0011_UnclosedBracket) {
  EXPECT_EQ(errors("let x = f(1, 2\nlet y = 3"),
            "t.scn:2:1: error[E0011]: expected `)` to close `(` opened at 1:10, found keyword `let`\n"
            " 2 | let y = 3\n"
            "   | ^~~\n"
            "t.scn:1:10: note: `(` opened here\n"
            " 1 | let x = f(1, 2\n"
            "   |          ^\n");
}

TEST(SyntaxErrors, E0012_UnmatchedBracket) {
  EXPECT_EQ(errors("let x = 1 }"),
            "t.scn:1:11: error[E0012]: unmatched `}`\n"
            " 1 | let x = 1 }\n"
            "   |           ^\n"
            "help: remove it, or check the brackets before it\n");
}

TEST(SyntaxErrors, E0014_PositionalAfterKeyword) {
  EXPECT_EQ(errors("print(a, k=1, 2)"),
            "t.scn:1:15: error[E0014]: positional argument after keyword argument\n"
            " 1 | print(a, k=1, 2)\n"
            "   |               ^\n"
            "t.scn:1:10: note: keyword argument `k` is here\n"
            " 1 | print(a, k=1, 2)\n"
            "   |          ^\n"
            "help: put the positional arguments first, or give this one a keyword too\n");
}

TEST(SyntaxErrors, E0015_KeywordTwice) {
  EXPECT_EQ(errors("f(k=1, k=2)"),
            "t.scn:1:8: error[E0015]: keyword argument `k` is given twice\n"
            " 1 | f(k=1, k=2)\n"
            "   |        ^\n"
            "t.scn:1:3: note: first given here\n"
            " 1 | f(k=1, k=2)\n"
            "   |   ^\n"
            "help: remove one of them\n");
}

TEST(SyntaxErrors, E0016_AssignToExpression) {
  EXPECT_EQ(errors("x[0] = 1"),
            "t.scn:1:1: error[E0016]: cannot assign to this expression\n"
            " 1 | x[0] = 1\n"
            "   | ^~~~\n"
            "help: arrays are immutable: write `x = x.at[i].set(v)` (JAX's functional update)\n");
}

TEST(SyntaxErrors, E0017_ChainedComparison) {
  EXPECT_EQ(errors("a < b < c"),
            "t.scn:1:7: error[E0017]: comparison operators cannot be chained\n"
            " 1 | a < b < c\n"
            "   |       ^\n"
            "t.scn:1:3: note: the first comparison is here\n"
            " 1 | a < b < c\n"
            "   |   ^\n"
            "help: write `a < b && b < c` to compare three values\n");
}

TEST(SyntaxErrors, E0018_InvalidTupleField) {
  EXPECT_EQ(errors("let t = t.1e3 + u.99999999999"),
            "t.scn:1:11: error[E0018]: invalid tuple field `1e3`\n"
            " 1 | let t = t.1e3 + u.99999999999\n"
            "   |           ^~~\n"
            "help: tuple fields are numbered from 0 and written as plain digits, as in `t.0` or `t.1.0`\n");
}

TEST(SyntaxErrors, E0019_JunkAfterStatement) {
  EXPECT_EQ(errors("let x = 1 2"),
            "t.scn:1:11: error[E0019]: expected `;` or a line break after the statement, found `2`\n"
            " 1 | let x = 1 2\n"
            "   |           ^\n"
            "help: put each statement on its own line, or separate them with `;`\n");
}

TEST(SyntaxErrors, E0027_PythonForms) {
  EXPECT_EQ(errors("def f(x):\n  x"),
            "t.scn:1:1: error[E0027]: `def` is Python; scn defines a function with `fn`\n"
            " 1 | def f(x):\n"
            "   | ^~~\n"
            "help: write `fn f(a, b) = a + b`, or `fn f(a, b) { ... }` for a body of several lines\n");
  EXPECT_EQ(errors("let g = lambda: 0"),
            "t.scn:1:9: error[E0027]: `lambda` is Python; scn writes a function value between bars\n"
            " 1 | let g = lambda: 0\n"
            "   |         ^~~~~~\n"
            "help: write `|x| x + 1`, `|a, b| a * b`, or `|| 0` for no parameters\n");
  EXPECT_EQ(errors("f(**opts)"),
            "t.scn:1:3: error[E0027]: scn has no keyword-argument unpacking `**opts`\n"
            " 1 | f(**opts)\n"
            "   |   ^~~~~~\n"
            "help: pass each keyword argument by name, e.g. `f(x, axis=0)`\n");
  // The same words as plain names, not followed by what Python puts after them, still parse.
  EXPECT_EQ(errors("let def = 1\nlet lambda = def + 1\nprint(lambda, def)\nlet return = 2\nreturn * 2"), "");
}

TEST(SyntaxErrors, E0020_DuplicateParameter) {
  EXPECT_EQ(errors("fn f(a, a) = 1"),
            "t.scn:1:9: error[E0020]: parameter `a` is declared twice\n"
            " 1 | fn f(a, a) = 1\n"
            "   |         ^\n"
            "t.scn:1:6: note: first declared here\n"
            " 1 | fn f(a, a) = 1\n"
            "   |      ^\n"
            "help: rename one of them, or write `_` for a parameter that is not used\n");
}

TEST(SyntaxErrors, E0021_ImportNotAtTopLevel) {
  EXPECT_EQ(errors("{ import \"x\" }"),
            "t.scn:1:3: error[E0021]: `import` is only allowed at the top level of a file\n"
            " 1 | { import \"x\" }\n"
            "   |   ^~~~~~~~~~\n"
            "help: move the import to the top of the file\n");
}

TEST(SyntaxErrors, E0001_NonAsciiCharacter) {
  EXPECT_EQ(errors("let é = 2"),
            "t.scn:1:5: error[E0001]: invalid character `é` (U+00E9)\n"
            " 1 | let é = 2\n"
            "   |     ^\n"
            "help: names and operators are ASCII; other characters may appear only in strings and comments\n");
}

TEST(SyntaxErrors, RecoveryInsideBlocks) {
  EXPECT_EQ(errors("fn f(x) {\n  let a = (1 +\n  let b = 2 2\n  b\n}\nlet c = f(1\nprint(c)\nlet d = ]"),
            "t.scn:3:3: error[E0010]: expected an expression, found keyword `let`\n"
            " 3 |   let b = 2 2\n"
            "   |   ^~~\n"
            "t.scn:3:13: error[E0019]: expected `;` or a line break after the statement, found `2`\n"
            " 3 |   let b = 2 2\n"
            "   |             ^\n"
            "help: put each statement on its own line, or separate them with `;`\n"
            "t.scn:7:1: error[E0011]: expected `)` to close `(` opened at 6:10, found `print`\n"
            " 7 | print(c)\n"
            "   | ^~~~~\n"
            "t.scn:6:10: note: `(` opened here\n"
            " 6 | let c = f(1\n"
            "   |          ^\n"
            "t.scn:8:9: error[E0010]: expected an expression, found `]`\n"
            " 8 | let d = ]\n"
            "   |         ^\n");
}

TEST(SyntaxErrors, RecoveryAtClosingBrace) {
  EXPECT_EQ(errors("if x {\n  let y = \n} else {\n  z\n}\nlet w = 1"),
            "t.scn:3:1: error[E0010]: expected an expression, found `}`\n"
            " 3 | } else {\n"
            "   | ^\n");
}

// Rendered snippets are terminal-safe: invalid UTF-8 and control bytes show as '?', and carets
// count code points, not bytes.
TEST(SyntaxErrors, E0002_InvalidUtf8) {
  EXPECT_EQ(errors("let s = \"\xff\" # \xfe\n\x80\x81z = 1"),
            "t.scn:1:10: error[E0002]: invalid UTF-8 byte 0xff in string\n"
            " 1 | let s = \"?\" # ?\n"
            "   |          ^\n"
            "help: scn source files must be encoded in UTF-8\n"
            "t.scn:1:15: error[E0002]: invalid UTF-8 byte 0xfe in comment\n"
            " 1 | let s = \"?\" # ?\n"
            "   |               ^\n"
            "help: scn source files must be encoded in UTF-8\n"
            "t.scn:2:1: error[E0002]: invalid UTF-8 byte 0x80\n"
            " 2 | ??z = 1\n"
            "   | ^~\n"
            "help: scn source files must be encoded in UTF-8\n");
}

TEST(SyntaxErrors, E0001_ControlCharacters) {
  EXPECT_EQ(errors(std::string("let x = 1\x01\n\"a\0b\"", 16)),
            "t.scn:1:10: error[E0001]: invalid character U+0001\n"
            " 1 | let x = 1?\n"
            "   |          ^\n"
            "help: remove it; source text may not contain control characters\n"
            "t.scn:2:3: error[E0001]: invalid character U+0000 in string\n"
            " 2 | \"a?b\"\n"
            "   |   ^\n"
            "help: write a line break as \\n and a tab as \\t\n");
}

TEST(SyntaxErrors, E0013_NestingTooDeep) {
  std::string text = "let x = ";
  for (int i = 0; i < 300; ++i) text += "(\n";
  EXPECT_EQ(errors(text),
            "t.scn:257:1: error[E0013]: nesting too deep: more than 256 levels of brackets, "
            "blocks and prefix operators\n"
            " 257 | (\n"
            "     | ^\n"
            "help: split the expression into smaller parts with `let`\n");
}

TEST(SyntaxErrors, E0013_ExpressionTooDeep) {
  std::string text = "let y = 1";
  for (int i = 0; i < 1100; ++i) text += " +\n1";
  EXPECT_EQ(errors(text),
            "t.scn:1024:3: error[E0013]: expression too deep: more than 1024 nested operations\n"
            " 1024 | 1 +\n"
            "      |   ^\n"
            "help: split the expression into smaller parts with `let`\n");
}

TEST(SyntaxErrors, StopsAfterTooManyErrors) {
  std::string text;
  for (int i = 0; i < 150; ++i) text += "let x = $\n";
  auto file = std::make_shared<SourceFile>("t.scn", text);
  DiagnosticSink sink;
  Program p = parseProgram(file, sink);
  ASSERT_EQ(sink.all().size(), size_t(kMaxSyntaxErrors) + 1);
  EXPECT_EQ(sink.errorCount(), kMaxSyntaxErrors);
  EXPECT_EQ(render(sink.all().back()),
            "t.scn:100:9: note: stopping after 100 errors\n"
            " 100 | let x = $\n"
            "     |         ^\n");
}

TEST(SyntaxErrors, RecoveryKeepsTheGoodStatements) {
  auto file = std::make_shared<SourceFile>(
      "t.scn", "let a = 1\nlet b = (2 +\nlet c = 3\nfn f(x) {\n  x +* 2\n  x\n}\nlet d = f(a)");
  DiagnosticSink sink;
  Program p = parseProgram(file, sink);
  EXPECT_EQ(sink.errorCount(), 2);
  EXPECT_EQ(printAst(p),
            "(let a (int 1))\n(let c (int 3))\n(fn f (x) (block\n  (result x)))\n"
            "(let d (call f a))\n");
}

TEST(SyntaxErrors, EndOfFileIsReportedOnce) {
  EXPECT_EQ(errors("fn f() {\n  if x {\n    g(1,"),
            "t.scn:3:9: error[E0010]: expected an expression, found end of file\n"
            " 3 |     g(1,\n"
            "   |         ^\n");
}

TEST(SyntaxErrors, LineBreakBeforeAnOperator) {
  EXPECT_EQ(errors("let total = a\n  + b"),
            "t.scn:2:3: error[E0010]: expected an expression, found `+`\n"
            " 2 |   + b\n"
            "   |   ^\n"
            "help: a line break ends a statement; to go on with an expression on the next line, "
            "end the line with the operator or put the expression in parentheses\n");
}

TEST(SyntaxErrors, LineBreakBeforeABitwiseOperator) {
  EXPECT_EQ(errors("let m = a\n  & b"),
            "t.scn:2:3: error[E0010]: expected an expression, found `&`\n"
            " 2 |   & b\n"
            "   |   ^\n"
            "help: a line break ends a statement; to go on with an expression on the next line, "
            "end the line with the operator or put the expression in parentheses\n");
}

TEST(SyntaxErrors, HelpfulHints) {
  EXPECT_EQ(errors("if x = 1 { }"),
            "t.scn:1:6: error[E0010]: expected `{` after the condition of `if`, found `=`\n"
            " 1 | if x = 1 { }\n"
            "   |      ^\n"
            "help: to compare two values, write `==`\n");
  EXPECT_EQ(errors("for i in 0..3 print(i)"),
            "t.scn:1:15: error[E0010]: expected `{` to start the loop body, found `print`\n"
            " 1 | for i in 0..3 print(i)\n"
            "   |               ^~~~~\n"
            "help: a loop is written `for i in 0..n { ... }` or `for x in t { ... }`\n");
  EXPECT_EQ(errors("fn f(x) { return x }"),
            "t.scn:1:11: error[E0027]: scn has no `return`\n"
            " 1 | fn f(x) { return x }\n"
            "   |           ^~~~~~\n"
            "help: the last expression of a block is its value: write the value alone as the "
            "block's last line\n");
  EXPECT_EQ(errors("let f = fn(x) x"),
            "t.scn:1:9: error[E0010]: expected an expression, found keyword `fn`\n"
            " 1 | let f = fn(x) x\n"
            "   |         ^~\n"
            "help: an anonymous function is written `|x| x + 1`\n");
  EXPECT_EQ(errors("let x = |a, b a + b"),
            "t.scn:1:15: error[E0010]: expected `|` to close the parameters of the lambda, found "
            "`a`\n"
            " 1 | let x = |a, b a + b\n"
            "   |               ^\n"
            "help: a lambda is written `|a, b| a + b`\n");
  EXPECT_EQ(errors("x[]"),
            "t.scn:1:3: error[E0010]: expected an index, found `]`\n"
            " 1 | x[]\n"
            "   |   ^\n"
            "help: an index is an expression, `None` or a slice such as `1:5`\n");
  EXPECT_EQ(errors("let fn = 3"),
            "t.scn:1:5: error[E0010]: expected a name, `_` or `(` in a pattern, found keyword "
            "`fn`\n"
            " 1 | let fn = 3\n"
            "   |     ^~\n");
}

}  // namespace
}  // namespace scn
