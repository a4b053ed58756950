// The recursive-descent parser's state, shared by parser.cpp (statements) and parse_expr.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "lang/syntax/ast.hpp"
#include "lang/syntax/lexer.hpp"

namespace scn {

// Note [Error recovery]
// A syntax error is reported once and then abandons the statement being parsed: `fail`
// reports and throws ParseAbort, which the statement loop of the enclosing block (or of the
// file) catches. That loop calls `synchronize`, which skips to where the next statement
// probably starts: a line break or `;` outside any bracket opened in the abandoned statement,
// a line starting with `let`/`fn`/`for`/`import`, or the `}` that closes the block. Error tokens
// (bytes the lexer rejected) abandon the statement without a second message, and so does an
// end of file that was already reported once. After kMaxSyntaxErrors errors parsing stops.

/// Thrown to abandon the current statement after its error was reported.
struct ParseAbort {};

/// Whether `k` is one of `kinds` (token predicates are lists, not switches with a default).
template <size_t N>
bool oneOf(TokenKind k, const TokenKind (&kinds)[N]) {
  for (TokenKind x : kinds)
    if (x == k) return true;
  return false;
}

/// Sets a parser flag or counter for one scope, restoring it on exit (also when unwinding).
template <typename T>
struct Restore {
  T& ref;
  T saved;
  Restore(T& r, T value) : ref(r), saved(r) { r = value; }
  ~Restore() { ref = saved; }
};

class Parser {
 public:
  Parser(std::shared_ptr<SourceFile> file, DiagnosticSink& sink);

  Program parseProgram();
  ExprPtr parseSingleExpression();

 private:
  // ---- tokens (parser.cpp) ----
  const Token& peek(size_t n = 0) {
    return n < aheadCount_ ? ahead_[(aheadStart_ + n) % kLookahead] : fill(n);
  }
  /// Lexes tokens until `n` are waiting (n < kLookahead).
  const Token& fill(size_t n);
  Token take();
  bool at(TokenKind k) { return peek().kind == k; }
  bool accept(TokenKind k);
  /// Consumes a `k` or fails with "expected `k` <context>, found ...".
  Token expect(TokenKind k, const std::string& context, const std::string& help = {});
  /// Consumes the bracket that closes `open`, or fails with E0011 pointing at both.
  Token expectClose(const Token& open, const char* items = nullptr);
  /// The span from `begin` to the end of the last consumed token.
  Span from(const Span& begin) const;
  /// Whether the next token continues an expression in the current context: Note [Newlines].
  bool continues();

  // ---- errors (parser.cpp) ----
  void report(const std::string& code, Span span, std::string message, std::string help = {},
              std::vector<DiagNote> notes = {});
  [[noreturn]] void fail(const std::string& code, Span span, std::string message,
                         std::string help = {}, std::vector<DiagNote> notes = {});
  /// Fails with "expected <what>, found <next token>" (E0010).
  [[noreturn]] void expected(const std::string& what, std::string help = {});
  void synchronize(int openBrackets);
  bool tooManyErrors() const;

  // ---- statements (parser.cpp) ----
  /// Parses statements until `}` (inBlock) or the end of the file.
  void parseStatements(std::vector<StmtPtr>& out, bool inBlock, bool* trailingSemi);
  StmtPtr parseStatement(bool topLevel);
  StmtPtr parseLet();
  StmtPtr parseFn();
  StmtPtr parseFor();
  StmtPtr parseImport(bool topLevel);
  StmtPtr parseExprOrAssign();
  Pattern parsePattern();
  std::vector<Param> parseParams(TokenKind close);

  // ---- expressions (parse_expr.cpp) ----
  ExprPtr parseExpr();
  ExprPtr parseBinary(int minPrecedence);
  ExprPtr parseUnary();
  ExprPtr parsePower();
  ExprPtr parsePostfix(ExprPtr base);
  ExprPtr parsePrimary();
  ExprPtr parseNumber();
  ExprPtr parseParenOrTuple();
  ExprPtr parseList();
  ExprPtr parseLambda();
  ExprPtr parseIf();
  ExprPtr parseBlock();
  ExprPtr parseCall(ExprPtr callee);
  ExprPtr parseIndex(ExprPtr base);
  ExprPtr parseField(ExprPtr base);
  IndexItem parseIndexItem();

  // ---- Python forms (python_forms.cpp) ----
  /// E0027 for `def f`, `lambda x:` and `return x`, which Python writes and scn does not.
  void rejectPythonKeyword(const Token& name);
  /// What scn writes for the Python operator or form at `t`, or "" (Note [Python operators]).
  std::string pythonOperatorHelp(const Token& t) const;
  bool afterString(const Token& t) const;
  /// E0027 for `*args` / `**kwargs` at the start of a parameter.
  void rejectStarParameter();
  /// E0027 for `*xs` / `**kw` at the start of a call argument.
  void rejectStarArgument();

  // ---- nesting (parse_expr.cpp) ----
  /// Counts one level of nesting (and of tree depth) while alive; fails past the limits.
  struct Nest {
    Parser& p;
    int weight;
    Nest(Parser& parser, Span at, int treeLevels = 1);
    ~Nest();
  };

  std::shared_ptr<SourceFile> file_;
  DiagnosticSink& sink_;
  Lexer lexer_;
  // Lookahead: a ring of up to kLookahead tokens (a fixed array is much cheaper than a deque in
  // unoptimized builds, and the parser looks at most two tokens ahead).
  static constexpr size_t kLookahead = 4;
  Token ahead_[kLookahead];
  size_t aheadStart_ = 0, aheadCount_ = 0;
  uint64_t consumed_ = 0;      // tokens taken so far (progress check in recovery)
  uint32_t prevEnd_ = 0;       // end offset of the last token taken
  int brackets_ = 0;           // ( [ { taken minus ) ] } taken
  int blockDepth_ = 0;         // enclosing `{ }` blocks
  bool ignoreNewlines_ = false;  // inside ( ) or [ ] directly: Note [Newlines]
  int nesting_ = 0;
  int treeDepth_ = 0;
  int errorsAtStart_ = 0;
  bool eofReported_ = false;
  bool stopped_ = false;       // too many errors
  bool negateNextLiteral_ = false;  // a unary minus applies directly to the next number
};

}  // namespace scn
