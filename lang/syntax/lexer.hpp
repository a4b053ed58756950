// Tokens and the lexer that produces them from source bytes (the re2c rules live in lexer.re).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "base/source.hpp"

namespace scn {

// Note [Newlines]
// The lexer emits no newline tokens. Instead every token records whether a line break (or the
// start of the file) comes before it, in `Token::newlineBefore`, and the parser decides what a
// line break means:
//   - at the top level of a file and directly inside `{ }`, a line break ends the current
//     statement: a token on a new line never continues an expression as a binary operator or as
//     a postfix `(`, `[` or `.`;
//   - inside `( )`, `[ ]` and a lambda's `| |`, line breaks are ignored;
//   - wherever an operand is still required (after a binary or unary operator, `=`, `,`, `|x|`,
//     `in`, `..`), the line break is ignored because the expression cannot end there;
//   - `else` may start a new line after the `}` of an `if`.
// A `;` ends a statement too, so `a = 1; b = 2` is two statements on one line.

/// The kinds of token. Keywords and punctuation each have their own kind.
enum class TokenKind : uint8_t {
  End,     // end of the file
  Error,   // bytes the lexer rejected (already reported)
  Number,  // 1, 1.5, 1e-5, 1.5f64, 3u64, 0xff
  String,  // "text" (escapes decoded into Token::text)
  Ident,   // x, f64, scan
  // keywords
  KwLet, KwFn, KwStatic, KwFor, KwIn, KwIf, KwElse, KwImport, KwTrue, KwFalse, KwNone,
  Underscore,  // _
  // operators and punctuation
  Plus, Minus, Star, Slash, SlashSlash, Percent, StarStar, At,
  EqEq, BangEq, Lt, Le, Gt, Ge, AmpAmp, PipePipe, Bang,
  Amp, Caret, Tilde, LtLt, GtGt,
  Eq, Comma, Colon, Semi, Dot, DotDot, Ellipsis, Pipe,
  LParen, RParen, LBracket, RBracket, LBrace, RBrace,
};

/// "`(`", "keyword `let`", "identifier", ... for messages ("expected X, found Y").
const char* tokenKindName(TokenKind k);
/// The fixed spelling of a keyword or punctuation kind ("let", "**"); empty for the others.
const char* tokenSpelling(TokenKind k);

/// One token: its kind, where it is, and for number literals their decoded value. Tokens are
/// plain values (no owned memory), so the parser can move them around cheaply.
struct Token {
  TokenKind kind = TokenKind::End;
  bool newlineBefore = false;  // a line break (or the file start) precedes it: Note [Newlines]
  // Number literals (see lang/syntax/literals.hpp for the rules):
  bool isFloat = false;    // written with '.', an exponent or a float suffix
  bool overflow = false;   // the digits do not fit a u64 / are infinite as an f64
  bool malformed = false;  // a lexical error was already reported for this literal
  Span span;
  uint64_t intValue = 0;
  double floatValue = 0;
  uint32_t suffixBegin = 0;  // Number: offset where the dtype suffix starts (span.end if none)

  /// A Number's dtype suffix as written ("f64"), or empty.
  std::string_view suffix() const {
    return span.text().substr(suffixBegin - span.begin);
  }
};

/// The value of a String token: quotes removed, escapes decoded (the lexer checked them).
std::string stringValue(const Token& t);

/// Describes a token for a message: "`)`", "identifier `x`", "number `1.5`", "end of file".
std::string describe(const Token& t);

/// Turns one source file into tokens, one at a time. Lexical errors (E0001-E0009) go to the
/// sink as they are found; the lexer then goes on after the bad bytes, so every error in a file
/// is reported. After the end it keeps returning End.
class Lexer {
 public:
  Lexer(const SourceFile& file, DiagnosticSink& sink);

  /// The next token.
  Token next();

 private:
  Token make(TokenKind k, const unsigned char* begin);
  Token lexString(const unsigned char* begin);
  void lexComment();
  Token lexNumber(const unsigned char* begin);
  Token lexInvalid(const unsigned char* begin);
  void error(const std::string& code, const unsigned char* b, const unsigned char* e,
             std::string message, std::string help = {});
  Span spanOf(const unsigned char* b, const unsigned char* e) const;

  const SourceFile& file_;
  DiagnosticSink& sink_;
  const unsigned char* base_;
  const unsigned char* cur_;
  const unsigned char* lim_;
  const unsigned char* mar_ = nullptr;
  bool newline_ = true;  // the next token starts a line
  uint32_t lastEnd_ = 0; // end offset of the previous token, where End points
};

/// Lexes a whole file (for `--emit=tokens` and tests); the last token is End.
std::vector<Token> lexAll(const SourceFile& file, DiagnosticSink& sink);

}  // namespace scn
