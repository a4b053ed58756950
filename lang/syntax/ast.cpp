// Operator spellings and precedences for the AST.
#include "lang/syntax/ast.hpp"

namespace scn {

const char* spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Not: return "!";
    case UnaryOp::Invert: return "~";
  }
  return "?";
}

const char* spelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::FloorDiv: return "//";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
    case BinaryOp::MatMul: return "@";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::And: return "&&";
    case BinaryOp::Or: return "||";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::Shl: return "<<";
    case BinaryOp::Shr: return ">>";
  }
  return "?";
}

int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::Or: return 1;
    case BinaryOp::And: return 2;
    case BinaryOp::Eq: case BinaryOp::Ne: case BinaryOp::Lt: case BinaryOp::Le:
    case BinaryOp::Gt: case BinaryOp::Ge:
      return 3;
    case BinaryOp::BitOr: return 4;
    case BinaryOp::BitXor: return 5;
    case BinaryOp::BitAnd: return 6;
    case BinaryOp::Shl: case BinaryOp::Shr: return 7;
    case BinaryOp::Add: case BinaryOp::Sub: return 8;
    case BinaryOp::Mul: case BinaryOp::Div: case BinaryOp::FloorDiv: case BinaryOp::Mod:
    case BinaryOp::MatMul:
      return 9;
    case BinaryOp::Pow: return 11;
  }
  return 0;
}

}  // namespace scn
