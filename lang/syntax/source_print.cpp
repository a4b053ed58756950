// printSource: the AST back to scn text, with parentheses only where precedence needs them.
#include "lang/syntax/ast_print.hpp"
#include "lang/syntax/literals.hpp"

namespace scn {

namespace {

// Binding levels of printed forms, loosest first. A form printed where a tighter level is
// needed gets parentheses. Lambdas, `if` and blocks sit at kAny: as an operand they are always
// parenthesized (a lambda's body would otherwise swallow what follows).
constexpr int kAny = 0;
constexpr int kUnary = 10;
constexpr int kPostfix = 12;

int levelOf(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Binary: return precedence(static_cast<const BinaryExpr&>(e).op);
    case ExprKind::Unary: return kUnary;
    case ExprKind::Lambda: case ExprKind::Block: case ExprKind::If: return kAny;
    case ExprKind::Number: case ExprKind::String: case ExprKind::Bool: case ExprKind::None:
    case ExprKind::Name: case ExprKind::Tuple: case ExprKind::List: case ExprKind::Call: case ExprKind::Index:
    case ExprKind::Field: case ExprKind::Attr:
      return kPostfix;
  }
  return kAny;
}

class SourcePrinter {
 public:
  std::string out;

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Let: {
        const auto& n = static_cast<const LetStmt&>(s);
        out += "let ";
        pattern(n.pattern);
        out += " = ";
        expr(*n.value, kAny);
        return;
      }
      case StmtKind::Assign: {
        const auto& n = static_cast<const AssignStmt&>(s);
        out += n.name + " = ";
        expr(*n.value, kAny);
        return;
      }
      case StmtKind::Expr: expr(*static_cast<const ExprStmt&>(s).expr, kAny); return;
      case StmtKind::Fn: {
        const auto& n = static_cast<const FnStmt&>(s);
        out += "fn " + n.name + "(";
        params(n.params);
        out += ")";
        if (n.body->kind == ExprKind::Block) {
          out += " ";
          block(static_cast<const BlockExpr&>(*n.body));
        } else {
          out += " = ";
          expr(*n.body, kAny);
        }
        return;
      }
      case StmtKind::For: {
        const auto& n = static_cast<const ForStmt&>(s);
        out += "for " + n.var + " in ";
        if (n.iterable) {
          expr(*n.iterable, kAny);
        } else {
          expr(*n.lo, kAny);
          out += "..";
          expr(*n.hi, kAny);
        }
        out += " ";
        expr(*n.body, kAny);
        return;
      }
      case StmtKind::Import:
        out += "import " + quoteString(static_cast<const ImportStmt&>(s).path);
        return;
    }
  }

  // Prints `e` where a form of level `need` or tighter is required.
  void expr(const Expr& e, int need) {
    bool parens = levelOf(e) < need;
    if (parens) out += "(";
    bare(e);
    if (parens) out += ")";
  }

  void block(const BlockExpr& b) {
    if (b.stmts.empty() && !b.result) {
      out += "{}";
      return;
    }
    out += "{";
    indent_ += 2;
    for (size_t i = 0; i < b.stmts.size(); ++i) {
      newline();
      stmt(*b.stmts[i]);
      // A final expression statement keeps its `;` so that it does not become the result.
      if (i + 1 == b.stmts.size() && !b.result && b.stmts[i]->kind == StmtKind::Expr) out += ";";
    }
    if (b.result) {
      newline();
      expr(*b.result, kAny);
    }
    indent_ -= 2;
    newline();
    out += "}";
  }

 private:
  int indent_ = 0;

  void newline() { out.append(1, '\n').append(indent_, ' '); }

  void bare(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Number: {
        const auto& n = static_cast<const NumberExpr&>(e);
        out += n.isFloat ? formatFloat(n.floatValue) : std::to_string(n.intValue);
        out += n.suffix;
        return;
      }
      case ExprKind::String: out += quoteString(static_cast<const StringExpr&>(e).value); return;
      case ExprKind::Bool: out += static_cast<const BoolExpr&>(e).value ? "true" : "false"; return;
      case ExprKind::None: out += "None"; return;
      case ExprKind::Name: out += static_cast<const NameExpr&>(e).name; return;
      case ExprKind::Tuple: {
        const auto& n = static_cast<const TupleExpr&>(e);
        out += "(";
        list(n.elems);
        if (n.elems.size() == 1) out += ",";
        out += ")";
        return;
      }
      case ExprKind::List:
        out += "[";
        list(static_cast<const ListExpr&>(e).elems);
        out += "]";
        return;
      case ExprKind::Unary: {
        const auto& n = static_cast<const UnaryExpr&>(e);
        out += spelling(n.op);
        expr(*n.operand, kUnary);
        return;
      }
      case ExprKind::Binary: {
        const auto& n = static_cast<const BinaryExpr&>(e);
        int p = precedence(n.op);
        bool pow = n.op == BinaryOp::Pow;
        bool comparison = p == 3;
        expr(*n.lhs, pow ? kPostfix : comparison ? p + 1 : p);
        out += std::string(" ") + spelling(n.op) + " ";
        expr(*n.rhs, pow ? kUnary : p + 1);
        return;
      }
      case ExprKind::Call: {
        const auto& n = static_cast<const CallExpr&>(e);
        expr(*n.callee, kPostfix);
        out += "(";
        for (size_t i = 0; i < n.args.size(); ++i) {
          if (i) out += ", ";
          if (!n.args[i].keyword.empty()) out += n.args[i].keyword + "=";
          expr(*n.args[i].value, kAny);
        }
        out += ")";
        return;
      }
      case ExprKind::Index: {
        const auto& n = static_cast<const IndexExpr&>(e);
        expr(*n.base, kPostfix);
        out += "[";
        for (size_t i = 0; i < n.items.size(); ++i) {
          if (i) out += ", ";
          const IndexItem& it = n.items[i];
          if (it.isEllipsis) {
            out += "...";
            continue;
          }
          if (!it.isSlice) {
            expr(*it.index, kAny);
            continue;
          }
          if (it.start) expr(*it.start, kAny);
          out += ":";
          if (it.stop) expr(*it.stop, kAny);
          if (it.step) {
            out += ":";
            expr(*it.step, kAny);
          }
        }
        out += "]";
        return;
      }
      case ExprKind::Field: {
        const auto& n = static_cast<const FieldExpr&>(e);
        postfixBase(*n.base);
        out.append(".").append(std::to_string(n.field));
        return;
      }
      case ExprKind::Attr: {
        const auto& n = static_cast<const AttrExpr&>(e);
        postfixBase(*n.base);
        out += "." + n.attr;
        return;
      }
      case ExprKind::Lambda: {
        const auto& n = static_cast<const LambdaExpr&>(e);
        out += "|";
        params(n.params);
        out += "| ";
        expr(*n.body, kAny);
        return;
      }
      case ExprKind::Block: block(static_cast<const BlockExpr&>(e)); return;
      case ExprKind::If: {
        const auto& n = static_cast<const IfExpr&>(e);
        out += "if ";
        expr(*n.cond, kAny);
        out += " ";
        expr(*n.thenBlock, kAny);
        if (n.elseBlock) {
          out += " else ";
          expr(*n.elseBlock, kAny);
        }
        return;
      }
    }
  }

  // The base of `.field`: a number literal is parenthesized, or `1 .0` would lex as `1.0`.
  void postfixBase(const Expr& base) {
    if (base.kind == ExprKind::Number) {
      out += "(";
      bare(base);
      out += ")";
      return;
    }
    expr(base, kPostfix);
  }

  void list(const std::vector<ExprPtr>& xs) {
    for (size_t i = 0; i < xs.size(); ++i) {
      if (i) out += ", ";
      expr(*xs[i], kAny);
    }
  }

  void params(const std::vector<Param>& ps) {
    for (size_t i = 0; i < ps.size(); ++i) {
      if (i) out += ", ";
      if (ps[i].isStatic) out += "static ";
      out += ps[i].name;
      if (ps[i].defaultValue) {
        out += " = ";
        expr(*ps[i].defaultValue, kAny);
      }
    }
  }

  void pattern(const Pattern& p) {
    switch (p.kind) {
      case PatternKind::Name: out += p.name; return;
      case PatternKind::Wildcard: out += "_"; return;
      case PatternKind::Tuple:
        out += "(";
        for (size_t i = 0; i < p.elems.size(); ++i) {
          if (i) out += ", ";
          pattern(p.elems[i]);
        }
        if (p.elems.size() == 1) out += ",";
        out += ")";
        return;
    }
  }
};

}  // namespace

std::string printSource(const Program& program) {
  SourcePrinter p;
  for (const StmtPtr& s : program.stmts) {
    p.stmt(*s);
    p.out += "\n";
  }
  return p.out;
}

std::string printSource(const Expr& expr) {
  SourcePrinter p;
  p.expr(expr, kAny);
  return p.out;
}

}  // namespace scn
