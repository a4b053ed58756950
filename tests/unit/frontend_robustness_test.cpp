// Robustness of the front end: any bytes give diagnostics (never a crash, hang or deep
// recursion) and big inputs parse quickly. Includes a randomized junk and token-soup loop.
#include <gtest/gtest.h>

#include <ctime>
#include <random>

#include "lang/syntax/ast_print.hpp"
#include "lang/syntax/parser.hpp"

namespace scn {
namespace {

#ifdef NDEBUG
constexpr double kBigFileSeconds = 3;  // "well under a few seconds" for 10 MB, optimized
#else
constexpr double kBigFileSeconds = 30;  // unoptimized builds are about ten times slower
#endif

struct Parsed {
  std::shared_ptr<SourceFile> file;
  DiagnosticSink sink;
  Program program;
  double seconds = 0;
};

// Parses `text` and checks what every front end result must satisfy: each diagnostic has a
// syntax code (or is the final note), a span inside the file, and renders.
std::unique_ptr<Parsed> parseChecked(std::string text) {
  auto r = std::make_unique<Parsed>();
  r->file = std::make_shared<SourceFile>("t.scn", std::move(text));
  std::clock_t start = std::clock();
  r->program = parseProgram(r->file, r->sink);
  r->seconds = double(std::clock() - start) / CLOCKS_PER_SEC;
  EXPECT_LE(r->sink.errorCount(), kMaxSyntaxErrors);
  for (const Diagnostic& d : r->sink.all()) {
    if (d.severity == Severity::Error) {
      EXPECT_EQ(d.code.substr(0, 3), "E00") << d.message;
    }
    if (d.span.valid()) {
      EXPECT_EQ(d.span.file, r->file.get());
      EXPECT_LE(d.span.begin, d.span.end);
      EXPECT_LE(d.span.end, r->file->text().size());
    }
    EXPECT_FALSE(render(d).empty());
  }
  return r;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * n);
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string codes(const Parsed& r) {
  std::string out;
  for (const Diagnostic& d : r.sink.all()) out += (out.empty() ? "" : " ") + d.code;
  return out;
}

TEST(Robustness, HundredThousandOpenParentheses) {
  auto r = parseChecked(repeat("(", 100000));
  EXPECT_EQ(codes(*r), "E0013");
  EXPECT_LT(r->seconds, kBigFileSeconds);
}

TEST(Robustness, DeepNestingOfEveryKind) {
  struct Case {
    std::string prefix, unit, suffix, expected;
  } cases[] = {
      {"", "{", "", "E0013 E0011"},          // blocks (the missing `}` is reported once)
      {"", "x[", "", "E0013"},               // index inside index
      {"let y = ", "-", "x", "E0013"},       // prefix operators
      {"let y = ", "!", "x", "E0013"},
      {"let y = x", " ** x", "", "E0013"},   // right-associative power
      {"let y = ", "|a| ", "a", "E0013"},    // lambdas returning lambdas
      {"let y = ", "if a {} else ", "{}", "E0013"},
      {"", "fn f() {", "", "E0013 E0011"},   // functions nested in blocks
      {"", "for i in 0..n {", "", "E0013 E0011"},
      {"let ", "(", "x", "E0013"},           // tuple patterns
      {"f(", "g(x, ", "", "E0013"},
      {"let y = x", "(1)", "", "E0013"},     // a left-leaning chain of calls
      {"let y = t", ".0", "", "E0013"},
      {"let y = 1", "+1", "", "E0013"},
  };
  for (const Case& c : cases) {
    auto r = parseChecked(c.prefix + repeat(c.unit, 100000) + c.suffix);
    EXPECT_EQ(codes(*r), c.expected) << c.unit;
    EXPECT_LT(r->seconds, kBigFileSeconds) << c.unit;
  }
}

TEST(Robustness, NestingJustInsideTheLimitParses) {
  std::string text = "let y = " + repeat("(", 200) + "1" + repeat(")", 200);
  auto r = parseChecked(text);
  EXPECT_EQ(codes(*r), "");
  EXPECT_EQ(printAst(r->program), "(let y (int 1))\n");
  auto chain = parseChecked("let y = 1" + repeat(" + 1", 1000));
  EXPECT_EQ(codes(*chain), "");
}

TEST(Robustness, TenMegabyteProgram) {
  std::string text;
  text.reserve(10'500'000);
  for (int i = 0; text.size() < 10'000'000; ++i) {
    std::string n = std::to_string(i);
    text += "let x" + n + " = scan(|c, x| (c + x * 2.5, c), " + n + ", xs, length=n - 1)[0]\n";
    text += "fn f" + n + "(static k, a) {\n  let (p, _) = (a[1:, ::2], a.shape)  # note\n";
    text += "  if k > 2 { p @ p } else { -p ** 2 }\n}\n";
  }
  auto r = parseChecked(text);
  EXPECT_EQ(codes(*r), "");
  EXPECT_GT(r->program.stmts.size(), 100000u);
  EXPECT_LT(r->seconds, kBigFileSeconds);
}

TEST(Robustness, TenMegabytesOfRandomBytes) {
  std::mt19937 rng(12345);
  std::string text(10'000'000, '\0');
  for (char& c : text) c = char(rng());
  auto r = parseChecked(std::move(text));
  EXPECT_EQ(r->sink.errorCount(), kMaxSyntaxErrors);  // it stops after the limit
  EXPECT_LT(r->seconds, kBigFileSeconds);
}

TEST(Robustness, UnterminatedStringInABigFile) {
  auto r = parseChecked("let x = 1\nlet s = \"" + repeat("abc def\n", 1'000'000));
  EXPECT_EQ(codes(*r), "E0003");
  EXPECT_EQ(printAst(r->program), "(let x (int 1))\n");
}

TEST(Robustness, GiantNumberLiterals) {
  std::string digits = repeat("9", 100000);
  auto r = parseChecked("let a = " + digits + "\nlet b = " + digits + "u64\nlet c = " + digits +
                        ".5\nlet d = 0." + digits + "e-99999999999999999999\nlet e = 0x" +
                        repeat("f", 100000) + "\nlet f = " + digits + "f32\nlet g = 1e" + digits);
  EXPECT_EQ(codes(*r), "E0006 E0006 E0007 E0006 E0007 E0007");
  EXPECT_EQ(r->program.stmts.size(), 7u);  // range errors do not abandon the statement
}

TEST(Robustness, NulBytesEverywhere) {
  const char bytes[] = "let\0x = \"a\0\" # \0\n\0\0\0";
  std::string text(bytes, sizeof bytes - 1);
  auto r = parseChecked(text);
  EXPECT_EQ(codes(*r), "E0001 E0001 E0001 E0001");
}

// Random bytes, random printable ASCII, and soups of real tokens: no crash, every diagnostic
// well-formed, and whenever a soup parses cleanly it survives the print round trip.
TEST(Robustness, RandomizedJunkAndTokenSoup) {
  std::mt19937 rng(2024);
  const char* vocabulary[] = {
      "let", "fn", "static", "for", "in", "if", "else", "import", "true", "false", "None", "_",
      "x", "y", "f", "1", "2.5", "1e3", "3u64", "7i32", "0x1f", "\"s\"", "\"a\\n\"", "+", "-",
      "*", "/", "//", "%", "**", "@", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "!", "=",
      ",", ":", ";", ".", "..", "|", "(", ")", "[", "]", "{", "}", "\n", "#c\n", "0", ".0",
      "$", "\xff", "é", "\"open"};
  int clean = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    int length = int(rng() % 60);
    switch (round % 3) {
      case 0:
        for (int i = 0; i < length; ++i) text += char(rng());
        break;
      case 1:
        for (int i = 0; i < length; ++i) text += char(32 + rng() % 95);
        break;
      case 2:
        for (int i = 0; i < length; ++i) {
          text += vocabulary[rng() % (sizeof vocabulary / sizeof *vocabulary)];
          text += rng() % 2 ? " " : "";
        }
        break;
    }
    auto r = parseChecked(text);
    (void)isIncomplete(text);
    (void)printTokens(*r->file);
    if (r->sink.all().empty()) {
      ++clean;
      std::string source = printSource(r->program);
      auto again = parseChecked(source);
      EXPECT_TRUE(again->sink.all().empty()) << text << "\n--- printed as ---\n" << source;
      EXPECT_EQ(printAst(again->program), printAst(r->program)) << text;
    }
  }
  EXPECT_GT(clean, 100);  // the soup produces enough valid programs to test the round trip
}

}  // namespace
}  // namespace scn
