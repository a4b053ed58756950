// The abstract syntax tree produced by the parser; every node carries its source span.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/source.hpp"

namespace scn {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

enum class ExprKind {
  Number,  // 1, 1.5, 3u64, 1e-5f64
  String,  // "text"
  Bool,    // true / false
  None,    // None
  Name,    // x
  Tuple,   // (a, b), (), (a,)
  List,    // [1.0, 2.0], [[1, 2], [3, 4]], []  (an array literal)
  Unary,   // -x, !x
  Binary,  // a + b ...
  Call,    // f(a, k=v)
  Index,   // x[i, 1:5, None]
  Field,   // t.0  (tuple field)
  Attr,    // x.shape
  Lambda,  // |a, b| expr
  Block,   // { stmts; expr }
  If,      // if c { } else { }
};

enum class UnaryOp { Neg, Not, Invert };
enum class BinaryOp {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul,
  Eq, Ne, Lt, Le, Gt, Ge, And, Or,
  BitAnd, BitOr, BitXor, Shl, Shr,
};

/// The surface spelling of an operator ("+", "//", "&&"...).
const char* spelling(UnaryOp op);
const char* spelling(BinaryOp op);
/// Binding strength of a binary operator, loosest first: `||` 1, `&&` 2, comparisons 3, `|` 4,
/// `^` 5, `&` 6, `<< >>` 7, `+ -` 8, `* / // % @` 9, `**` 11 (unary `-`, `!` and `~` sit at 10,
/// between `*` and `**`). From `|` on, Python's order.
int precedence(BinaryOp op);

struct Expr {
  ExprKind kind;
  Span span;
  explicit Expr(ExprKind k, Span s) : kind(k), span(s) {}
  virtual ~Expr() = default;
};

/// A numeric literal. `isFloat` says whether it was written with '.', an exponent or a float
/// suffix; `suffix` is the dtype suffix as written ("f64", "u32", ...) or empty (weakly typed).
struct NumberExpr : Expr {
  bool isFloat = false;
  double floatValue = 0;
  uint64_t intValue = 0;  // magnitude for integer literals (the sign is a unary minus)
  std::string suffix;
  explicit NumberExpr(Span s) : Expr(ExprKind::Number, s) {}
};

struct StringExpr : Expr {
  std::string value;  // escapes already decoded
  explicit StringExpr(Span s) : Expr(ExprKind::String, s) {}
};

struct BoolExpr : Expr {
  bool value = false;
  explicit BoolExpr(Span s) : Expr(ExprKind::Bool, s) {}
};

struct NoneExpr : Expr {
  explicit NoneExpr(Span s) : Expr(ExprKind::None, s) {}
};

struct NameExpr : Expr {
  std::string name;
  explicit NameExpr(Span s) : Expr(ExprKind::Name, s) {}
};

struct TupleExpr : Expr {
  std::vector<ExprPtr> elems;
  explicit TupleExpr(Span s) : Expr(ExprKind::Tuple, s) {}
};

struct ListExpr : Expr {
  std::vector<ExprPtr> elems;
  explicit ListExpr(Span s) : Expr(ExprKind::List, s) {}
};

struct UnaryExpr : Expr {
  UnaryOp op;
  ExprPtr operand;
  UnaryExpr(Span s, UnaryOp o) : Expr(ExprKind::Unary, s), op(o) {}
};

struct BinaryExpr : Expr {
  BinaryOp op;
  Span opSpan;
  ExprPtr lhs, rhs;
  BinaryExpr(Span s, BinaryOp o) : Expr(ExprKind::Binary, s), op(o) {}
};

struct Argument {
  std::string keyword;  // empty for a positional argument
  Span keywordSpan;
  ExprPtr value;
};

struct CallExpr : Expr {
  ExprPtr callee;
  std::vector<Argument> args;  // positional first, then keywords (the parser enforces it)
  explicit CallExpr(Span s) : Expr(ExprKind::Call, s) {}
};

/// One item between brackets: an expression (an index, or None for a new axis) or a slice.
struct IndexItem {
  Span span;
  bool isEllipsis = false;  // `...`: as many full slices as the other items leave
  bool isSlice = false;
  ExprPtr index;                     // when !isSlice
  ExprPtr start, stop, step;         // when isSlice; each may be null
};

struct IndexExpr : Expr {
  ExprPtr base;
  std::vector<IndexItem> items;
  explicit IndexExpr(Span s) : Expr(ExprKind::Index, s) {}
};

struct FieldExpr : Expr {
  ExprPtr base;
  uint32_t field = 0;
  FieldExpr(Span s) : Expr(ExprKind::Field, s) {}
};

struct AttrExpr : Expr {
  ExprPtr base;
  std::string attr;
  AttrExpr(Span s) : Expr(ExprKind::Attr, s) {}
};

struct Param {
  std::string name;  // "_" ignores the argument
  bool isStatic = false;
  Span span;
  /// `fn f(x, eps=1e-5)`: evaluated in the function's scope at each call that omits the argument.
  std::shared_ptr<const Expr> defaultValue;
};

struct BlockExpr : Expr {
  std::vector<StmtPtr> stmts;
  ExprPtr result;  // the last expression; null when the block ends with a statement
  explicit BlockExpr(Span s) : Expr(ExprKind::Block, s) {}
};

struct LambdaExpr : Expr {
  std::vector<Param> params;
  ExprPtr body;  // an expression or a BlockExpr
  explicit LambdaExpr(Span s) : Expr(ExprKind::Lambda, s) {}
};

struct IfExpr : Expr {
  ExprPtr cond;
  ExprPtr thenBlock;  // BlockExpr
  ExprPtr elseBlock;  // BlockExpr, IfExpr (else if), or null
  explicit IfExpr(Span s) : Expr(ExprKind::If, s) {}
};

// ---- patterns (left of `let`) ----

enum class PatternKind { Name, Wildcard, Tuple };

struct Pattern {
  PatternKind kind = PatternKind::Name;
  Span span;
  std::string name;               // for Name
  std::vector<Pattern> elems;     // for Tuple
};

// ---- statements ----

enum class StmtKind { Let, Assign, Expr, Fn, For, Import };

struct Stmt {
  StmtKind kind;
  Span span;
  explicit Stmt(StmtKind k, Span s) : kind(k), span(s) {}
  virtual ~Stmt() = default;
};

/// let PATTERN = EXPR
struct LetStmt : Stmt {
  Pattern pattern;
  ExprPtr value;
  explicit LetStmt(Span s) : Stmt(StmtKind::Let, s) {}
};

/// NAME = EXPR (rebinds an existing local)
struct AssignStmt : Stmt {
  std::string name;
  Span nameSpan;
  ExprPtr value;
  explicit AssignStmt(Span s) : Stmt(StmtKind::Assign, s) {}
};

struct ExprStmt : Stmt {
  ExprPtr expr;
  explicit ExprStmt(Span s) : Stmt(StmtKind::Expr, s) {}
};

/// fn NAME(params) = EXPR   |   fn NAME(params) { ... }
struct FnStmt : Stmt {
  std::string name;
  Span nameSpan;
  std::vector<Param> params;
  ExprPtr body;  // an expression or a BlockExpr
  explicit FnStmt(Span s) : Stmt(StmtKind::Fn, s) {}
};

/// for VAR in LO..HI { ... }
struct ForStmt : Stmt {
  std::string var;
  Span varSpan;
  ExprPtr lo, hi;    // for i in lo..hi
  ExprPtr iterable;  // for x in iterable (a tuple, or an array's first axis); lo/hi are null
  ExprPtr body;  // BlockExpr
  explicit ForStmt(Span s) : Stmt(StmtKind::For, s) {}
};

/// import "path.scn"
struct ImportStmt : Stmt {
  std::string path;
  explicit ImportStmt(Span s) : Stmt(StmtKind::Import, s) {}
};

/// A parsed file: its statements, in order. Owns the source text the spans point into.
struct Program {
  std::shared_ptr<SourceFile> source;
  std::vector<StmtPtr> stmts;
};

}  // namespace scn
