// Lexer tests: every token form, values, spans, line-break flags, and isIncomplete.
#include <gtest/gtest.h>

#include "lang/syntax/ast_print.hpp"
#include "lang/syntax/lexer.hpp"
#include "lang/syntax/literals.hpp"
#include "lang/syntax/parser.hpp"

namespace scn {
namespace {

// The token dump of `text`, failing the test if the lexer reports anything.
std::string tokens(const std::string& text) {
  SourceFile file("t.scn", text);
  DiagnosticSink sink;
  std::string out = printTokens(file, sink);
  EXPECT_EQ(sink.errorCount(), 0) << text;
  return out;
}

std::vector<Token> lex(const SourceFile& file) {
  DiagnosticSink sink;
  std::vector<Token> out = lexAll(file, sink);
  EXPECT_EQ(sink.errorCount(), 0) << file.text();
  return out;
}

TEST(Lexer, KeywordsAndNames) {
  EXPECT_EQ(tokens("let fn static for in if else import true false None _ x _y f64 lets"),
            "1:1 keyword let\n"
            "1:5 keyword fn\n"
            "1:8 keyword static\n"
            "1:15 keyword for\n"
            "1:19 keyword in\n"
            "1:22 keyword if\n"
            "1:25 keyword else\n"
            "1:30 keyword import\n"
            "1:37 keyword true\n"
            "1:42 keyword false\n"
            "1:48 keyword None\n"
            "1:53 keyword _\n"
            "1:55 ident x\n"
            "1:57 ident _y\n"
            "1:60 ident f64\n"
            "1:64 ident lets\n"
            "1:68 end\n");
}

TEST(Lexer, EveryOperator) {
  std::string all = "+ - * / // % ** @ == != < <= > >= && || ! = , : ; . .. | ( ) [ ] { }";
  SourceFile file("t.scn", all);
  std::vector<Token> ts = lex(file);
  std::string spelled;
  for (const Token& t : ts) {
    if (t.kind == TokenKind::End) break;
    EXPECT_STREQ(tokenKindName(t.kind), "punctuation");
    EXPECT_EQ(t.span.text(), tokenSpelling(t.kind));
    spelled += std::string(spelled.empty() ? "" : " ") + tokenSpelling(t.kind);
  }
  EXPECT_EQ(spelled, all);
  // Longest match: no spaces needed.
  EXPECT_EQ(tokens("a**-b//c"),
            "1:1 ident a\n1:2 punctuation **\n1:4 punctuation -\n1:5 ident b\n"
            "1:6 punctuation //\n1:8 ident c\n1:9 end\n");
  EXPECT_EQ(tokens("x<=y!=z||!w"),
            "1:1 ident x\n1:2 punctuation <=\n1:4 ident y\n1:5 punctuation !=\n1:7 ident z\n"
            "1:8 punctuation ||\n1:10 punctuation !\n1:11 ident w\n1:12 end\n");
}

TEST(Lexer, Numbers) {
  EXPECT_EQ(tokens("1 1.5 1e-5 2.5E+3 1.5f64 3u64 7i64 2f32 0xff 0x10u32 007 1e400000000000"
                   "0f32"),
            "1:1 number 1 (int 1)\n"
            "1:3 number 1.5 (float 1.5)\n"
            "1:7 number 1e-5 (float 1e-05)\n"
            "1:12 number 2.5E+3 (float 2500.0)\n"
            "1:19 number 1.5f64 (float 1.5 f64)\n"
            "1:26 number 3u64 (int 3 u64)\n"
            "1:31 number 7i64 (int 7 i64)\n"
            "1:36 number 2f32 (float 2.0 f32)\n"
            "1:41 number 0xff (int 255)\n"
            "1:46 number 0x10u32 (int 16 u32)\n"
            "1:54 number 007 (int 7)\n"
            "1:58 number 1e4000000000000f32 (out of range)\n"
            "1:76 end\n");
  // Values at the edges: u64 max fits, one more overflows; tiny floats underflow to zero.
  SourceFile file("t.scn", "18446744073709551615 18446744073709551616 1e-400 5e-324");
  std::vector<Token> ts = lex(file);
  EXPECT_EQ(ts[0].intValue, UINT64_MAX);
  EXPECT_FALSE(ts[0].overflow);
  EXPECT_TRUE(ts[1].overflow);
  EXPECT_EQ(ts[2].floatValue, 0.0);
  EXPECT_FALSE(ts[2].overflow);
  EXPECT_GT(ts[3].floatValue, 0.0);
}

TEST(Lexer, NoLeadingDotFloats) {
  // `.5` is `.` then `5`, so `t.0` is a field and `0..n` a range; `t.0.1` has the float `0.1`
  // (the parser splits it into two fields).
  EXPECT_EQ(tokens("0..n t.0.1 .5"),
            "1:1 number 0 (int 0)\n1:2 punctuation ..\n1:4 ident n\n"
            "1:6 ident t\n1:7 punctuation .\n1:8 number 0.1 (float 0.1)\n"
            "1:12 punctuation .\n1:13 number 5 (int 5)\n1:14 end\n");
}

TEST(Lexer, Strings) {
  EXPECT_EQ(tokens(R"("a\n\t\r\\\"b" "" "é∑😀")"),
            "1:1 string \"a\\n\\t\\r\\\\\\\"b\"\n1:16 string \"\"\n1:19 string \"é∑😀\"\n"
            "1:30 end\n");
  SourceFile file("t.scn", "\"two\nlines\" x");
  std::vector<Token> ts = lex(file);
  EXPECT_EQ(stringValue(ts[0]), "two\nlines");
  EXPECT_FALSE(ts[1].newlineBefore);  // the line break was inside the string
}

TEST(Lexer, CommentsAndLineBreaks) {
  EXPECT_EQ(tokens("# comment é\nlet x = 1 # trailing\n\n  # only a comment\nx; y\r\nz"),
            "2:1 keyword let\n2:5 ident x\n2:7 punctuation =\n2:9 number 1 (int 1)\n"
            "newline\n5:1 ident x\n5:2 punctuation ;\n5:4 ident y\n"
            "newline\n6:1 ident z\n6:2 end\n");
  SourceFile file("t.scn", "a\nb c");
  std::vector<Token> ts = lex(file);
  EXPECT_TRUE(ts[0].newlineBefore);  // the start of the file counts as a line start
  EXPECT_TRUE(ts[1].newlineBefore);
  EXPECT_FALSE(ts[2].newlineBefore);
}

TEST(Lexer, Spans) {
  SourceFile file("t.scn", "let  xs =\n  1.5f64 + \"s\"");
  std::vector<Token> ts = lex(file);
  ASSERT_EQ(ts.size(), 7u);
  EXPECT_EQ(ts[1].span.text(), "xs");
  EXPECT_EQ(file.lineCol(ts[1].span.begin), std::make_pair(1u, 6u));
  EXPECT_EQ(ts[3].span.text(), "1.5f64");
  EXPECT_EQ(ts[3].suffix(), "f64");
  EXPECT_EQ(file.lineCol(ts[3].span.begin), std::make_pair(2u, 3u));
  EXPECT_EQ(ts[5].span.text(), "\"s\"");
  // The end token sits right after the last token, where "expected ..." errors point.
  EXPECT_EQ(ts[6].kind, TokenKind::End);
  EXPECT_EQ(ts[6].span.begin, ts[5].span.end);
  EXPECT_EQ(ts[6].span.end, ts[5].span.end);
}

TEST(Lexer, ByteOrderMarkIsSkipped) {
  EXPECT_EQ(tokens("\xef\xbb\xbfx"), "1:4 ident x\n1:5 end\n");
}

TEST(Lexer, DescribeForMessages) {
  SourceFile file("t.scn", "x 12 \"s\" let ( 123456789012345678901234567890");
  std::vector<Token> ts = lex(file);
  std::string out;
  for (const Token& t : ts) out += describe(t) + "|";
  EXPECT_EQ(out, "`x`|`12`|a string|keyword `let`|`(`|a number|end of file|");
}

TEST(Lexer, LiteralHelpers) {
  EXPECT_EQ(formatFloat(1.0), "1.0");
  EXPECT_EQ(formatFloat(0.1), "0.1");
  EXPECT_EQ(formatFloat(1e20), "1e+20");
  EXPECT_EQ(formatFloat(2.5e-7), "2.5e-07");
  EXPECT_EQ(quoteString("a\"b\\\n\t"), "\"a\\\"b\\\\\\n\\t\"");
  EXPECT_EQ(numberSuffixList(), "i32, i64, u32, u64, bf16, f16, f32, f64");
  const unsigned char bad[] = {0xc0, 0x80};
  EXPECT_EQ(decodeUtf8(bad, bad + 2), -1);  // overlong encodings are not UTF-8
  const unsigned char surrogate[] = {0xed, 0xa0, 0x80};
  EXPECT_EQ(decodeUtf8(surrogate, surrogate + 3), -1);
  const unsigned char euro[] = {0xe2, 0x82, 0xac};
  EXPECT_EQ(decodeUtf8(euro, euro + 3), 0x20ac);
  EXPECT_EQ(utf8Length(euro, euro + 2), 1);  // truncated
}

TEST(Lexer, IsIncomplete) {
  EXPECT_FALSE(isIncomplete(""));
  EXPECT_FALSE(isIncomplete("let x = 1"));
  EXPECT_FALSE(isIncomplete("f(x)[0]"));
  EXPECT_FALSE(isIncomplete("if c { 1 } else { 2 }"));
  EXPECT_FALSE(isIncomplete("let x = 1 $"));  // an error, not something to continue
  EXPECT_FALSE(isIncomplete("x)"));           // unmatched: let the parser say so
  EXPECT_TRUE(isIncomplete("fn f(x) {"));
  EXPECT_TRUE(isIncomplete("let y = f(1,"));
  EXPECT_TRUE(isIncomplete("x[1"));
  EXPECT_TRUE(isIncomplete("print(\"abc"));
  EXPECT_TRUE(isIncomplete("let s = \"a\\\""));
  EXPECT_TRUE(isIncomplete("let x = 1 +"));
  EXPECT_TRUE(isIncomplete("let x ="));
  EXPECT_TRUE(isIncomplete("let f = |a, b|"));
  EXPECT_TRUE(isIncomplete("if c { 1 } else"));
  EXPECT_TRUE(isIncomplete("a &&  # comment"));
  EXPECT_FALSE(isIncomplete("fn f(x) {\n  x\n}"));
  EXPECT_FALSE(isIncomplete("\"a { (\""));
}

}  // namespace
}  // namespace scn
