// The lexer: re2c rules that turn source bytes into tokens, with lexical error reporting.
#include "lang/syntax/lexer.hpp"

#include <algorithm>

#include "lang/syntax/literals.hpp"

namespace scn {

// Valid multi-byte UTF-8 sequences (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
/*!re2c
  re2c:define:YYCTYPE = "unsigned char";
  re2c:define:YYCURSOR = cur_;
  re2c:define:YYMARKER = mar_;
  re2c:define:YYLIMIT = lim_;
  re2c:yyfill:enable = 0;
  re2c:eof = 0;

  mb = [\xc2-\xdf] [\x80-\xbf]
     | [\xe0] [\xa0-\xbf] [\x80-\xbf]
     | [\xe1-\xec\xee\xef] [\x80-\xbf] [\x80-\xbf]
     | [\xed] [\x80-\x9f] [\x80-\xbf]
     | [\xf0] [\x90-\xbf] [\x80-\xbf] [\x80-\xbf]
     | [\xf1-\xf3] [\x80-\xbf] [\x80-\xbf] [\x80-\xbf]
     | [\xf4] [\x80-\x8f] [\x80-\xbf] [\x80-\xbf];
  ctrl = [\x00-\x08\x0b\x0c\x0e-\x1f\x7f];
*/

Lexer::Lexer(const SourceFile& file, DiagnosticSink& sink)
    : file_(file),
      sink_(sink),
      base_(reinterpret_cast<const unsigned char*>(file.text().c_str())),
      cur_(base_),
      lim_(base_ + file.text().size()) {
  // A UTF-8 byte order mark at the start is not part of the program.
  if (lim_ - cur_ >= 3 && cur_[0] == 0xef && cur_[1] == 0xbb && cur_[2] == 0xbf) cur_ += 3;
}

Span Lexer::spanOf(const unsigned char* b, const unsigned char* e) const {
  return Span{&file_, static_cast<uint32_t>(b - base_), static_cast<uint32_t>(e - base_)};
}

void Lexer::error(const std::string& code, const unsigned char* b, const unsigned char* e,
                  std::string message, std::string help) {
  Diagnostic d;
  d.code = code;
  d.span = spanOf(b, e);
  d.message = std::move(message);
  d.help = std::move(help);
  sink_.report(std::move(d));
}

Token Lexer::make(TokenKind k, const unsigned char* begin) {
  Token t;
  t.kind = k;
  t.span = spanOf(begin, cur_);
  t.newlineBefore = newline_;
  newline_ = false;
  lastEnd_ = t.span.end;
  return t;
}

Token Lexer::next() {
  for (;;) {
    const unsigned char* start = cur_;
    /*!re2c
      $ {
        Token t;
        t.kind = TokenKind::End;
        t.newlineBefore = true;
        t.span = Span{&file_, lastEnd_, lastEnd_};
        return t;
      }
      [ \t\r]+ { continue; }
      "\n"     { newline_ = true; continue; }
      "#"      { lexComment(); continue; }
      ["]      { return lexString(start); }

      "let"    { return make(TokenKind::KwLet, start); }
      "fn"     { return make(TokenKind::KwFn, start); }
      "static" { return make(TokenKind::KwStatic, start); }
      "for"    { return make(TokenKind::KwFor, start); }
      "in"     { return make(TokenKind::KwIn, start); }
      "if"     { return make(TokenKind::KwIf, start); }
      "else"   { return make(TokenKind::KwElse, start); }
      "import" { return make(TokenKind::KwImport, start); }
      "true"   { return make(TokenKind::KwTrue, start); }
      "false"  { return make(TokenKind::KwFalse, start); }
      "None"   { return make(TokenKind::KwNone, start); }
      "_"      { return make(TokenKind::Underscore, start); }
      [a-zA-Z_][a-zA-Z0-9_]* { return make(TokenKind::Ident, start); }

      // One rule for every numeral; lexNumber splits digits, fraction, exponent and suffix.
      // There is no leading-dot form (`.5`), so `t.0` is a field access, and `1..n` a range.
      [0-9]+ ("." [0-9]+)? ([eE] [+-]? [0-9]*)? [a-zA-Z0-9_]* { return lexNumber(start); }
      // Python's `1.` (a float with no fraction digits), when no digit, name or dot follows:
      // `[1., 2.]`, `x * 2.`; `1..n` stays a range and `1.e5` is not this form.
      [0-9]+ "." / [^.0-9a-zA-Z_] { return lexNumber(start); }

      "**" { return make(TokenKind::StarStar, start); }
      "//" { return make(TokenKind::SlashSlash, start); }
      "==" { return make(TokenKind::EqEq, start); }
      "!=" { return make(TokenKind::BangEq, start); }
      "<=" { return make(TokenKind::Le, start); }
      ">=" { return make(TokenKind::Ge, start); }
      "&&" { return make(TokenKind::AmpAmp, start); }
      "||" { return make(TokenKind::PipePipe, start); }
      "<<" { return make(TokenKind::LtLt, start); }
      ">>" { return make(TokenKind::GtGt, start); }
      "..." { return make(TokenKind::Ellipsis, start); }
      ".." { return make(TokenKind::DotDot, start); }
      "+"  { return make(TokenKind::Plus, start); }
      "-"  { return make(TokenKind::Minus, start); }
      "*"  { return make(TokenKind::Star, start); }
      "/"  { return make(TokenKind::Slash, start); }
      "%"  { return make(TokenKind::Percent, start); }
      "@"  { return make(TokenKind::At, start); }
      "<"  { return make(TokenKind::Lt, start); }
      ">"  { return make(TokenKind::Gt, start); }
      "!"  { return make(TokenKind::Bang, start); }
      "&"  { return make(TokenKind::Amp, start); }
      "^"  { return make(TokenKind::Caret, start); }
      "~"  { return make(TokenKind::Tilde, start); }
      "="  { return make(TokenKind::Eq, start); }
      ","  { return make(TokenKind::Comma, start); }
      ":"  { return make(TokenKind::Colon, start); }
      ";"  { return make(TokenKind::Semi, start); }
      "."  { return make(TokenKind::Dot, start); }
      "|"  { return make(TokenKind::Pipe, start); }
      "("  { return make(TokenKind::LParen, start); }
      ")"  { return make(TokenKind::RParen, start); }
      "["  { return make(TokenKind::LBracket, start); }
      "]"  { return make(TokenKind::RBracket, start); }
      "{"  { return make(TokenKind::LBrace, start); }
      "}"  { return make(TokenKind::RBrace, start); }

      * { return lexInvalid(start); }
    */
  }
}

// Skips a `#` comment up to (and including) its line break. The text must still be UTF-8
// without control characters.
void Lexer::lexComment() {
  for (;;) {
    const unsigned char* s = cur_;
    /*!re2c
      $ { return; }
      "\n" { newline_ = true; return; }
      [\t\r\x20-\x7e]+ { continue; }
      mb { continue; }
      ctrl {
        error("E0001", s, cur_, "invalid character " + codePointName(*s) + " in comment",
              "remove it; source text may not contain control characters");
        continue;
      }
      * {
        error("E0002", s, cur_, "invalid UTF-8 byte " + hexByte(*s) + " in comment",
              "scn source files must be encoded in UTF-8");
        continue;
      }
    */
  }
}

// Lexes the rest of a string literal whose opening quote is at `begin`, checking its escapes
// (stringValue decodes them later).
// Strings may span lines. A bad escape or byte is reported and lexing goes on to the closing
// quote, so one bad character does not turn the rest of the file into errors.
Token Lexer::lexString(const unsigned char* begin) {
  for (;;) {
    const unsigned char* s = cur_;
    /*!re2c
      ["] { return make(TokenKind::String, begin); }
      "\\" [ntr\\"] { continue; }  // the escapes decodeEscape knows
      "\\" {
        if (cur_ >= lim_) continue;  // the next round reports the missing quote
        const unsigned char* e = cur_ + utf8Length(cur_, lim_);
        error("E0004", s, e,
              "unknown escape sequence `\\" + printableChar(cur_, e) + "` in string",
              "the escapes are \\n \\t \\r \\\\ and \\\"; write a backslash as \\\\");
        cur_ = e;
        continue;
      }
      [\t\n\r\x20-\x21\x23-\x5b\x5d-\x7e]+ | mb { continue; }
      $ {
        error("E0003", begin, begin + 1, "unterminated string",
              "add a closing `\"`; the string runs to the end of the file");
        Token t = make(TokenKind::Error, begin);
        return t;
      }
      ctrl {
        error("E0001", s, cur_, "invalid character " + codePointName(*s) + " in string",
              "write a line break as \\n and a tab as \\t");
        continue;
      }
      * {
        error("E0002", s, cur_, "invalid UTF-8 byte " + hexByte(*s) + " in string",
              "scn source files must be encoded in UTF-8");
        continue;
      }
    */
  }
}

// Reports a character that cannot start a token. A run of non-ASCII or control characters is
// one error (binary junk gives one diagnostic per run, not one per byte).
Token Lexer::lexInvalid(const unsigned char* begin) {
  cur_ = begin;
  auto isJunk = [](unsigned char c) { return c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f; };
  const unsigned char* first = begin + utf8Length(begin, lim_);
  int cp = decodeUtf8(begin, lim_);
  cur_ = first;
  if (isJunk(*begin))
    while (cur_ < lim_ && isJunk(*cur_)) cur_ += utf8Length(cur_, lim_);
  if (cp < 0) {
    error("E0002", begin, cur_, "invalid UTF-8 byte " + hexByte(*begin),
          "scn source files must be encoded in UTF-8");
  } else if (cp < 0x20 || cp == 0x7f) {
    error("E0001", begin, cur_, "invalid character " + codePointName(*begin),
          "remove it; source text may not contain control characters");
  } else if (cp < 0x80) {
    std::string help;
    switch (cp) {
      case '\'': help = "strings are written in double quotes: \"text\""; break;
      case '&': help = "logical and is written `&&`"; break;
      case '^': help = "powers are written `**`"; break;
      case '~': help = "logical not is written `!`"; break;
      default: help = "remove it"; break;
    }
    error("E0001", begin, first, "invalid character `" + std::string(1, char(cp)) + "`", help);
  } else {
    error("E0001", begin, cur_,
          "invalid character `" + printableChar(begin, first) + "` (" + codePointHex(cp) + ")",
          "names and operators are ASCII; other characters may appear only in strings and "
          "comments");
  }
  return make(TokenKind::Error, begin);
}

// Splits a numeral into digits, fraction, exponent and dtype suffix and decodes its value.
// Range checks against the dtype happen in the parser, which knows whether a unary minus
// precedes the literal (so `-2147483648i32` is allowed).
Token Lexer::lexNumber(const unsigned char* begin) {
  // `1.` as the last characters of the input, which the trailing context of its rule cannot see.
  bool digitsOnly = std::all_of(begin, cur_, [](unsigned char c) { return c >= '0' && c <= '9'; });
  if (digitsOnly && cur_ + 1 == lim_ && *cur_ == '.') ++cur_;
  Token t = make(TokenKind::Number, begin);
  NumberDecode d = decodeNumber(t.span.text());
  t.isFloat = d.isFloat;
  t.overflow = d.overflow;
  t.intValue = d.intValue;
  t.floatValue = d.floatValue;
  t.suffixBegin = t.span.end - uint32_t(d.suffix.size());
  if (!d.errorCode.empty()) {
    t.malformed = true;
    error(d.errorCode, begin + d.errorBegin, begin + d.errorEnd, d.errorMessage, d.errorHelp);
  }
  return t;
}

std::vector<Token> lexAll(const SourceFile& file, DiagnosticSink& sink) {
  Lexer lexer(file, sink);
  std::vector<Token> out;
  for (;;) {
    out.push_back(lexer.next());
    if (out.back().kind == TokenKind::End) break;
  }
  return out;
}

}  // namespace scn
