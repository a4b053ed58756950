// Python forms that scn writes differently (`def`, `lambda`, `return`, `*args`, `**kwargs`):
// each gets E0027 with the scn spelling, instead of a puzzling "expected ..." further on.
#include "lang/syntax/parser_impl.hpp"

namespace scn {

// A Python keyword is caught where it stands as a name followed, on its line, by what Python
// would put after it (`def f`, `lambda x:`, `return x`): alone it is an ordinary unknown name,
// which the evaluator explains (lang/name_hints.cpp).
void Parser::rejectPythonKeyword(const Token& name) {
  const Token& next = peek();
  if (next.newlineBefore) return;
  std::string_view word = name.span.text();
  if (word == "def" && next.kind == TokenKind::Ident) {
    std::string f(next.span.text());
    fail("E0027", name.span, "`def` is Python; scn defines a function with `fn`",
         "write `fn " + f + "(a, b) = a + b`, or `fn " + f + "(a, b) { ... }` for a body of several lines");
  }
  if (word == "lambda" && (next.kind == TokenKind::Ident || next.kind == TokenKind::Colon))
    fail("E0027", name.span, "`lambda` is Python; scn writes a function value between bars",
         "write `|x| x + 1`, `|a, b| a * b`, or `|| 0` for no parameters");
  using K = TokenKind;
  K k = next.kind;
  bool startsValue = k == K::Ident || k == K::Number || k == K::String || k == K::LParen ||
                     k == K::LBracket || k == K::KwTrue || k == K::KwFalse || k == K::KwNone ||
                     k == K::Pipe || k == K::PipePipe || k == K::Bang || k == K::KwIf;
  if (word == "return" && startsValue)
    fail("E0027", name.span, "scn has no `return`",
         "the last expression of a block is its value: write the value alone as the block's last line");
  if (word == "not" && startsValue)
    fail("E0027", name.span, "`not` is Python; scn writes `!`", "write `!c` (and `~x` elementwise on arrays)");
  if (word == "while" && startsValue)
    fail("E0027", name.span, "scn has no `while` statement",
         "write `while_loop(|c| cond, |c| next, init)` (lax.while_loop), or `for i in 0..n` for a static count");
}

// Note [Python operators]
// A Python word where scn expects an operator, a `)` or the end of a statement (`a and b`,
// `x is None`, `} elif c {`, `1 if c else 2`) and `+=` fail with an "expected ..." error whose
// help says what scn writes instead (and a block opened with `:`, in Parser::expected). The parser asks here, with the
// token it found, before it reports that error.
std::string Parser::pythonOperatorHelp(const Token& t) const {
  std::string_view word = t.span.text();
  if (t.kind == TokenKind::Ident) {
    if (word == "and") return "`and` is Python: scn writes `a && b` (and `a & b` elementwise on arrays)";
    if (word == "or") return "`or` is Python: scn writes `a || b` (and `a | b` elementwise on arrays)";
    if (word == "is") return "`is` is Python: compare with `==` or `!=`";
    if (word == "not") return "`not in` and `is not` are Python: scn writes `!` before a condition";
    if (word == "elif") return "`elif` is Python: scn writes `else if c { ... }`";
  }
  if (t.kind == TokenKind::KwIf && !t.newlineBefore)
    return "scn's conditional expression is `if c { a } else { b }` (or `where(c, a, b)` elementwise)";
  if (t.kind == TokenKind::Eq && t.span.begin > 0) {
    char before = t.span.file->text()[t.span.begin - 1];
    if (std::string_view("+-*/%&|^@").find(before) != std::string_view::npos)
      return std::string("scn has no `") + before + "=`: write `x = x " + before + " y`";
  }
  return "";
}

// `*args` and `**kwargs` in a parameter list: scn's functions have a fixed list of parameters.
void Parser::rejectStarParameter() {
  const Token& star = peek();
  if (star.kind != TokenKind::Star && star.kind != TokenKind::StarStar) return;
  std::string name = peek(1).kind == TokenKind::Ident ? std::string(peek(1).span.text()) : "args";
  Span where = peek(1).kind == TokenKind::Ident ? star.span.to(peek(1).span) : star.span;
  if (star.kind == TokenKind::Star)
    fail("E0027", where, "scn functions have no `*" + name + "` parameters",
         "take one tuple and destructure it: `fn f(" + name + ") { let (a, b) = " + name + "; ... }`");
  fail("E0027", where, "scn functions have no `**" + name + "` parameters",
       "give each keyword its own parameter: `fn f(x, scale) = ...`, called as `f(x, scale=2.0)`");
}

// `f(*xs)` and `f(**kw)`: scn passes arguments one by one.
void Parser::rejectStarArgument() {
  const Token& star = peek();
  if (star.kind != TokenKind::Star && star.kind != TokenKind::StarStar) return;
  bool named = peek(1).kind == TokenKind::Ident;
  std::string name = named ? std::string(peek(1).span.text()) : "xs";
  Span where = named ? star.span.to(peek(1).span) : star.span;
  if (star.kind == TokenKind::Star)
    fail("E0027", where, "scn has no argument unpacking `*" + name + "`",
         "pass the arguments one by one, e.g. `f(" + name + ".0, " + name + ".1)`");
  fail("E0027", where, "scn has no keyword-argument unpacking `**" + name + "`",
       "pass each keyword argument by name, e.g. `f(x, axis=0)`");
}

}  // namespace scn
