// Token kinds' names and spellings, and token descriptions for diagnostics.
#include "lang/syntax/lexer.hpp"

namespace scn {

const char* tokenSpelling(TokenKind k) {
  switch (k) {
    case TokenKind::End: return "";
    case TokenKind::Error: return "";
    case TokenKind::Number: return "";
    case TokenKind::String: return "";
    case TokenKind::Ident: return "";
    case TokenKind::KwLet: return "let";
    case TokenKind::KwFn: return "fn";
    case TokenKind::KwStatic: return "static";
    case TokenKind::KwFor: return "for";
    case TokenKind::KwIn: return "in";
    case TokenKind::KwIf: return "if";
    case TokenKind::KwElse: return "else";
    case TokenKind::KwImport: return "import";
    case TokenKind::KwTrue: return "true";
    case TokenKind::KwFalse: return "false";
    case TokenKind::KwNone: return "None";
    case TokenKind::Underscore: return "_";
    case TokenKind::Plus: return "+";
    case TokenKind::Minus: return "-";
    case TokenKind::Star: return "*";
    case TokenKind::Slash: return "/";
    case TokenKind::SlashSlash: return "//";
    case TokenKind::Percent: return "%";
    case TokenKind::StarStar: return "**";
    case TokenKind::At: return "@";
    case TokenKind::EqEq: return "==";
    case TokenKind::BangEq: return "!=";
    case TokenKind::Lt: return "<";
    case TokenKind::Le: return "<=";
    case TokenKind::Gt: return ">";
    case TokenKind::Ge: return ">=";
    case TokenKind::AmpAmp: return "&&";
    case TokenKind::PipePipe: return "||";
    case TokenKind::Bang: return "!";
    case TokenKind::Amp: return "&";
    case TokenKind::Caret: return "^";
    case TokenKind::Tilde: return "~";
    case TokenKind::LtLt: return "<<";
    case TokenKind::GtGt: return ">>";
    case TokenKind::Eq: return "=";
    case TokenKind::Comma: return ",";
    case TokenKind::Colon: return ":";
    case TokenKind::Semi: return ";";
    case TokenKind::Dot: return ".";
    case TokenKind::DotDot: return "..";
    case TokenKind::Ellipsis: return "...";
    case TokenKind::Pipe: return "|";
    case TokenKind::LParen: return "(";
    case TokenKind::RParen: return ")";
    case TokenKind::LBracket: return "[";
    case TokenKind::RBracket: return "]";
    case TokenKind::LBrace: return "{";
    case TokenKind::RBrace: return "}";
  }
  return "";
}

const char* tokenKindName(TokenKind k) {
  switch (k) {
    case TokenKind::End: return "end of file";
    case TokenKind::Error: return "invalid input";
    case TokenKind::Number: return "number";
    case TokenKind::String: return "string";
    case TokenKind::Ident: return "identifier";
    case TokenKind::KwLet: case TokenKind::KwFn: case TokenKind::KwStatic:
    case TokenKind::KwFor: case TokenKind::KwIn: case TokenKind::KwIf: case TokenKind::KwElse:
    case TokenKind::KwImport: case TokenKind::KwTrue: case TokenKind::KwFalse:
    case TokenKind::KwNone: case TokenKind::Underscore:
      return "keyword";
    case TokenKind::Plus: case TokenKind::Minus: case TokenKind::Star: case TokenKind::Slash:
    case TokenKind::SlashSlash: case TokenKind::Percent: case TokenKind::StarStar:
    case TokenKind::At: case TokenKind::EqEq: case TokenKind::BangEq: case TokenKind::Lt:
    case TokenKind::Le: case TokenKind::Gt: case TokenKind::Ge: case TokenKind::AmpAmp:
    case TokenKind::PipePipe: case TokenKind::Bang: case TokenKind::Eq: case TokenKind::Comma:
    case TokenKind::Amp: case TokenKind::Caret: case TokenKind::Tilde: case TokenKind::LtLt:
    case TokenKind::GtGt:
    case TokenKind::Colon: case TokenKind::Semi: case TokenKind::Dot: case TokenKind::DotDot: case TokenKind::Ellipsis:
    case TokenKind::Pipe: case TokenKind::LParen: case TokenKind::RParen:
    case TokenKind::LBracket: case TokenKind::RBracket: case TokenKind::LBrace:
    case TokenKind::RBrace:
      return "punctuation";
  }
  return "token";
}

std::string describe(const Token& t) {
  std::string_view text = t.span.text();
  if (t.kind == TokenKind::End || t.kind == TokenKind::Error) return tokenKindName(t.kind);
  if (t.kind == TokenKind::String) return "a string";
  if (t.kind == TokenKind::Number && text.size() > 24) return "a number";
  if (t.kind == TokenKind::Ident || t.kind == TokenKind::Number)
    return std::string("`").append(text).append("`");
  std::string s = std::string("`") + tokenSpelling(t.kind) + "`";
  if (std::string_view(tokenKindName(t.kind)) == "keyword") return "keyword " + s;
  return s;
}

}  // namespace scn
