// The token dump (`--emit=tokens`) and the S-expression AST dump (`--emit=ast`).
#include "lang/syntax/ast_print.hpp"

#include "lang/syntax/lexer.hpp"
#include "lang/syntax/literals.hpp"

namespace scn {

// ---- tokens ----

std::string printTokens(const SourceFile& file, DiagnosticSink& sink) {
  std::string out;
  bool first = true;
  for (const Token& t : lexAll(file, sink)) {
    if (t.newlineBefore && !first && t.kind != TokenKind::End) out += "newline\n";
    first = false;
    auto [line, col] = file.lineCol(t.span.begin);
    out += std::to_string(line) + ":" + std::to_string(col) + " ";
    if (t.kind == TokenKind::End) {
      out += "end";
    } else if (t.kind == TokenKind::Error) {
      out += "error";
    } else if (t.kind == TokenKind::Ident) {
      out += "ident " + std::string(t.span.text());
    } else if (t.kind == TokenKind::String) {
      out += "string " + quoteString(stringValue(t));
    } else if (t.kind == TokenKind::Number) {
      out += "number " + std::string(t.span.text()) + " ";
      std::string suffix;
      if (!t.suffix().empty()) suffix.append(" ").append(t.suffix());
      if (t.malformed) out += "(invalid)";
      else if (t.overflow) out += "(out of range)";
      else if (t.isFloat) out += "(float " + formatFloat(t.floatValue) + suffix + ")";
      else out += "(int " + std::to_string(t.intValue) + suffix + ")";
    } else {
      out += std::string(tokenKindName(t.kind)) + " " + tokenSpelling(t.kind);
    }
    out += "\n";
  }
  return out;
}

std::string printTokens(const SourceFile& file) {
  DiagnosticSink sink;
  return printTokens(file, sink);
}

// ---- AST ----

namespace {

// Note [AST dump]
// Every node prints as an atom or a parenthesized form whose head names the node kind:
//   names, `true`, `false`, `None` and `_` (a wildcard, or a missing slice bound) are atoms;
//   (int 3 u64) (float 1.5) (str "a") (tuple ...) (neg x) (not x) (+ a b) ... (** a b)
//   (call f a (kw k v)) (index x i (slice lo hi step)) (field t 0) (attr x shape)
//   (lambda (a (static n)) body) (if c then else) (block stmt... (result e))
//   (let pattern value) (assign x value) (fn f (params) body) (for i lo hi body) (import "p")
// An expression statement prints as its expression. Blocks put each statement on its own line,
// indented two spaces past the line that opened the block.
class AstPrinter {
 public:
  std::string out;

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Let: {
        const auto& n = static_cast<const LetStmt&>(s);
        out += "(let ";
        pattern(n.pattern);
        out += " ";
        expr(*n.value);
        out += ")";
        return;
      }
      case StmtKind::Assign: {
        const auto& n = static_cast<const AssignStmt&>(s);
        out += "(assign " + n.name + " ";
        expr(*n.value);
        out += ")";
        return;
      }
      case StmtKind::Expr: expr(*static_cast<const ExprStmt&>(s).expr); return;
      case StmtKind::Fn: {
        const auto& n = static_cast<const FnStmt&>(s);
        out += "(fn " + n.name + " ";
        params(n.params);
        out += " ";
        expr(*n.body);
        out += ")";
        return;
      }
      case StmtKind::For: {
        const auto& n = static_cast<const ForStmt&>(s);
        out += "(for " + n.var + " ";
        if (n.iterable) {
          out += "(in ";
          expr(*n.iterable);
          out += ") ";
        } else {
          expr(*n.lo);
          out += " ";
          expr(*n.hi);
          out += " ";
        }
        expr(*n.body);
        out += ")";
        return;
      }
      case StmtKind::Import:
        out += "(import " + quoteString(static_cast<const ImportStmt&>(s).path) + ")";
        return;
    }
  }

  void expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Number: {
        const auto& n = static_cast<const NumberExpr&>(e);
        out += n.isFloat ? "(float " + formatFloat(n.floatValue)
                         : "(int " + std::to_string(n.intValue);
        if (!n.suffix.empty()) out += " " + n.suffix;
        out += ")";
        return;
      }
      case ExprKind::String:
        out += "(str " + quoteString(static_cast<const StringExpr&>(e).value) + ")";
        return;
      case ExprKind::Bool: out += static_cast<const BoolExpr&>(e).value ? "true" : "false"; return;
      case ExprKind::None: out += "None"; return;
      case ExprKind::Name: out += static_cast<const NameExpr&>(e).name; return;
      case ExprKind::Tuple: {
        out += "(tuple";
        for (const ExprPtr& x : static_cast<const TupleExpr&>(e).elems) {
          out += " ";
          expr(*x);
        }
        out += ")";
        return;
      }
      case ExprKind::List: {
        out += "(list";
        for (const ExprPtr& x : static_cast<const ListExpr&>(e).elems) {
          out += " ";
          expr(*x);
        }
        out += ")";
        return;
      }
      case ExprKind::Unary: {
        const auto& n = static_cast<const UnaryExpr&>(e);
        out += n.op == UnaryOp::Neg ? "(neg " : n.op == UnaryOp::Not ? "(not " : "(invert ";
        expr(*n.operand);
        out += ")";
        return;
      }
      case ExprKind::Binary: {
        const auto& n = static_cast<const BinaryExpr&>(e);
        out += std::string("(") + spelling(n.op) + " ";
        expr(*n.lhs);
        out += " ";
        expr(*n.rhs);
        out += ")";
        return;
      }
      case ExprKind::Call: {
        const auto& n = static_cast<const CallExpr&>(e);
        out += "(call ";
        expr(*n.callee);
        for (const Argument& a : n.args) {
          out += " ";
          if (!a.keyword.empty()) out += "(kw " + a.keyword + " ";
          expr(*a.value);
          if (!a.keyword.empty()) out += ")";
        }
        out += ")";
        return;
      }
      case ExprKind::Index: {
        const auto& n = static_cast<const IndexExpr&>(e);
        out += "(index ";
        expr(*n.base);
        for (const IndexItem& it : n.items) {
          out += " ";
          if (it.isEllipsis) {
            out += "...";
            continue;
          }
          if (!it.isSlice) {
            expr(*it.index);
            continue;
          }
          out += "(slice ";
          optional(it.start.get());
          out += " ";
          optional(it.stop.get());
          out += " ";
          optional(it.step.get());
          out += ")";
        }
        out += ")";
        return;
      }
      case ExprKind::Field: {
        const auto& n = static_cast<const FieldExpr&>(e);
        out += "(field ";
        expr(*n.base);
        out.append(" ").append(std::to_string(n.field)).append(")");
        return;
      }
      case ExprKind::Attr: {
        const auto& n = static_cast<const AttrExpr&>(e);
        out += "(attr ";
        expr(*n.base);
        out += " " + n.attr + ")";
        return;
      }
      case ExprKind::Lambda: {
        const auto& n = static_cast<const LambdaExpr&>(e);
        out += "(lambda ";
        params(n.params);
        out += " ";
        expr(*n.body);
        out += ")";
        return;
      }
      case ExprKind::Block: {
        const auto& n = static_cast<const BlockExpr&>(e);
        out += "(block";
        indent_ += 2;
        for (const StmtPtr& s : n.stmts) {
          newline();
          stmt(*s);
        }
        if (n.result) {
          newline();
          out += "(result ";
          expr(*n.result);
          out += ")";
        }
        indent_ -= 2;
        out += ")";
        return;
      }
      case ExprKind::If: {
        const auto& n = static_cast<const IfExpr&>(e);
        out += "(if ";
        expr(*n.cond);
        out += " ";
        expr(*n.thenBlock);
        if (n.elseBlock) {
          out += " ";
          expr(*n.elseBlock);
        }
        out += ")";
        return;
      }
    }
  }

 private:
  int indent_ = 0;

  void newline() { out.append(1, '\n').append(indent_, ' '); }

  void optional(const Expr* e) {
    if (e) expr(*e);
    else out += "_";
  }

  void params(const std::vector<Param>& ps) {
    out += "(";
    for (size_t i = 0; i < ps.size(); ++i) {
      if (i) out += " ";
      std::string name = ps[i].isStatic ? "(static " + ps[i].name + ")" : ps[i].name;
      if (!ps[i].defaultValue) {
        out += name;
        continue;
      }
      out += "(default " + name + " ";
      expr(*ps[i].defaultValue);
      out += ")";
    }
    out += ")";
  }

  void pattern(const Pattern& p) {
    switch (p.kind) {
      case PatternKind::Name: out += p.name; return;
      case PatternKind::Wildcard: out += "_"; return;
      case PatternKind::Tuple:
        out += "(tuple";
        for (const Pattern& q : p.elems) {
          out += " ";
          pattern(q);
        }
        out += ")";
        return;
    }
  }
};

}  // namespace

std::string printAst(const Program& program) {
  AstPrinter p;
  for (const StmtPtr& s : program.stmts) {
    p.stmt(*s);
    p.out += "\n";
  }
  return p.out;
}

std::string printAst(const Expr& expr) {
  AstPrinter p;
  p.expr(expr);
  return p.out + "\n";
}

}  // namespace scn
