// The parser: token handling, error recovery, statements, and the public entry points.
#include "lang/syntax/parser.hpp"

#include "lang/syntax/literals.hpp"
#include "lang/syntax/parser_impl.hpp"

namespace scn {

namespace {

using K = TokenKind;

TokenKind closerOf(TokenKind open) {
  if (open == K::LParen) return K::RParen;
  if (open == K::LBracket) return K::RBracket;
  return K::RBrace;
}

bool isOpener(TokenKind k) { return oneOf(k, {K::LParen, K::LBracket, K::LBrace}); }
bool isCloser(TokenKind k) { return oneOf(k, {K::RParen, K::RBracket, K::RBrace}); }

// Keywords that start a statement; a line starting with one ends error recovery.
bool startsStatementLine(TokenKind k) {
  return oneOf(k, {K::KwLet, K::KwFn, K::KwFor, K::KwImport});
}

bool canStartExpression(TokenKind k) {
  return oneOf(k, {K::Number, K::String, K::Ident, K::KwTrue, K::KwFalse, K::KwNone, K::KwIf,
                   K::LParen, K::LBracket, K::LBrace, K::Minus, K::Bang, K::Tilde, K::Pipe,
                   K::PipePipe});
}

// Tokens after which a line cannot end: the REPL reads another line (isIncomplete).
bool needsContinuation(TokenKind k) {
  return oneOf(k, {K::Plus, K::Minus, K::Star, K::Slash, K::SlashSlash, K::Percent, K::StarStar,
                   K::At, K::EqEq, K::BangEq, K::Lt, K::Le, K::Gt, K::Ge, K::AmpAmp,
                   K::PipePipe, K::Bang, K::Amp, K::Caret, K::Tilde, K::LtLt, K::GtGt, K::Eq,
                   K::Comma, K::DotDot, K::Pipe, K::Dot, K::KwLet,
                   K::KwFn, K::KwStatic, K::KwFor, K::KwIn, K::KwIf, K::KwElse, K::KwImport});
}

std::string lineColText(const Span& s) {
  auto [line, col] = s.file->lineCol(s.begin);
  return std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace

Parser::Parser(std::shared_ptr<SourceFile> file, DiagnosticSink& sink)
    : file_(std::move(file)), sink_(sink), lexer_(*file_, sink) {
  errorsAtStart_ = sink_.errorCount();
}

// ---- tokens ----

const Token& Parser::fill(size_t n) {
  SCN_ASSERT(n < kLookahead, "parser lookahead too far");
  while (aheadCount_ <= n) {
    Token& slot = ahead_[(aheadStart_ + aheadCount_) % kLookahead];
    slot = lexer_.next();
    ++aheadCount_;
    if (!stopped_ && tooManyErrors()) fail("", slot.span, "");
  }
  return ahead_[(aheadStart_ + n) % kLookahead];
}

Token Parser::take() {
  peek();
  Token t = std::move(ahead_[aheadStart_]);
  aheadStart_ = (aheadStart_ + 1) % kLookahead;
  --aheadCount_;
  ++consumed_;
  if (t.kind != TokenKind::End) prevEnd_ = t.span.end;
  if (isOpener(t.kind)) ++brackets_;
  if (isCloser(t.kind)) --brackets_;
  return t;
}

bool Parser::accept(TokenKind k) {
  if (!at(k)) return false;
  take();
  return true;
}

Token Parser::expect(TokenKind k, const std::string& context, const std::string& help) {
  if (at(k)) return take();
  expected(std::string("`") + tokenSpelling(k) + "` " + context, help);
}

Token Parser::expectClose(const Token& open, const char* items) {
  TokenKind close = closerOf(open.kind);
  if (at(close)) return take();
  const Token& t = peek();
  if (t.kind == TokenKind::Error) throw ParseAbort{};
  if (t.kind == TokenKind::End) {
    if (eofReported_) throw ParseAbort{};
    eofReported_ = true;
  }
  std::string help = pythonOperatorHelp(t);
  if (help.empty() && items && canStartExpression(t.kind) && !t.newlineBefore)
    help = std::string("separate the ") + items + " with `,`";
  std::string o = tokenSpelling(open.kind), c = tokenSpelling(close);
  fail("E0011", t.span,
       "expected `" + c + "` to close `" + o + "` opened at " + lineColText(open.span) +
           ", found " + describe(t),
       help, {DiagNote{open.span, "`" + o + "` opened here"}});
}

Span Parser::from(const Span& begin) const {
  return Span{begin.file, begin.begin, prevEnd_ > begin.begin ? prevEnd_ : begin.end};
}

bool Parser::continues() { return ignoreNewlines_ || !peek().newlineBefore; }

// ---- errors ----

bool Parser::tooManyErrors() const {
  return sink_.errorCount() - errorsAtStart_ >= kMaxSyntaxErrors;
}

void Parser::report(const std::string& code, Span span, std::string message, std::string help,
                    std::vector<DiagNote> notes) {
  if (stopped_) throw ParseAbort{};
  if (!code.empty()) {
    sink_.report(makeDiagnostic(code, span, std::move(message), std::move(help), std::move(notes)));
  }
  if (tooManyErrors()) {
    stopped_ = true;
    Diagnostic d;
    d.severity = Severity::Note;
    d.span = span;
    d.message = "stopping after " + std::to_string(kMaxSyntaxErrors) + " errors";
    sink_.report(std::move(d));
    throw ParseAbort{};
  }
}

void Parser::fail(const std::string& code, Span span, std::string message, std::string help,
                  std::vector<DiagNote> notes) {
  report(code, span, std::move(message), std::move(help), std::move(notes));
  throw ParseAbort{};
}

void Parser::expected(const std::string& what, std::string help) {
  const Token& t = peek();
  if (t.kind == TokenKind::Error) throw ParseAbort{};  // the lexer reported it
  if (t.kind == TokenKind::End) {
    if (eofReported_) throw ParseAbort{};
    eofReported_ = true;
  }
  if (std::string python = pythonOperatorHelp(t); !python.empty()) help = python;
  if (t.kind == TokenKind::Colon && what.rfind("`{`", 0) == 0)
    help = "scn's blocks are in braces, not after `:`: `if c { ... } else { ... }`";
  fail("E0010", t.span, "expected " + what + ", found " + describe(t), std::move(help));
}

// Whether a string literal ends right before t (spaces aside): `"w":` is a dict's key.
bool Parser::afterString(const Token& t) const {
  std::string_view text = t.span.file->text();
  size_t i = t.span.begin;
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  return i > 0 && (text[i - 1] == '"' || text[i - 1] == '\'');
}

// Skips what is left of an abandoned statement: Note [Error recovery]. `openBrackets` is the
// number of brackets the statement opened and did not close.
void Parser::synchronize(int openBrackets) {
  int depth = openBrackets > 0 ? openBrackets : 0;
  for (;;) {
    const Token& t = peek();
    if (t.kind == TokenKind::End) return;
    if (t.newlineBefore && (depth == 0 || startsStatementLine(t.kind))) return;
    if (depth == 0 && t.kind == TokenKind::Semi) return;
    if (depth == 0 && t.kind == TokenKind::RBrace && blockDepth_ > 0) return;
    if (isOpener(t.kind)) ++depth;
    if (isCloser(t.kind) && depth > 0) --depth;
    take();
  }
}

// ---- statements ----

// statements := { ';' } [ statement { (';' | NEWLINE) { ';' } statement } ] { ';' }
void Parser::parseStatements(std::vector<StmtPtr>& out, bool inBlock, bool* trailingSemi) {
  bool lastSemi = false;
  for (;;) {
    while (at(TokenKind::Semi)) {
      take();
      lastSemi = true;
    }
    if (at(TokenKind::End) || (inBlock && at(TokenKind::RBrace))) break;
    uint64_t start = consumed_;
    int mark = brackets_;
    try {
      const Token& first = peek();
      if (isCloser(first.kind))
        fail("E0012", first.span, "unmatched `" + std::string(tokenSpelling(first.kind)) + "`",
             "remove it, or check the brackets before it");
      StmtPtr s = parseStatement(!inBlock);
      lastSemi = false;
      if (s) out.push_back(std::move(s));
      const Token& t = peek();
      if (t.kind == TokenKind::Semi || t.kind == TokenKind::End || t.newlineBefore ||
          (inBlock && t.kind == TokenKind::RBrace))
        continue;
      if (t.kind == TokenKind::Error) throw ParseAbort{};  // the lexer reported it
      if (isCloser(t.kind))
        fail("E0012", t.span, "unmatched `" + std::string(tokenSpelling(t.kind)) + "`",
             "remove it, or check the brackets before it");
      std::string python = pythonOperatorHelp(t);
      if (t.kind == TokenKind::Colon && afterString(t))  // {"w": 1.0}
        python = "scn has no dicts: keep the values in a tuple and destructure it, `let (w, b) = params`";
      fail("E0019", t.span, "expected `;` or a line break after the statement, found " + describe(t),
           python.empty() ? "put each statement on its own line, or separate them with `;`" : python);
    } catch (ParseAbort&) {
      if (stopped_) throw;
      synchronize(brackets_ - mark);
      brackets_ = mark;
      if (consumed_ == start && !at(TokenKind::End) && !(inBlock && at(TokenKind::RBrace)))
        take();
      lastSemi = false;
    }
  }
  if (trailingSemi) *trailingSemi = lastSemi;
}

// statement := let | fn | for | import | expr [ '=' expr ]
StmtPtr Parser::parseStatement(bool topLevel) {
  TokenKind k = peek().kind;
  if (k == TokenKind::KwLet) return parseLet();
  if (k == TokenKind::KwFn) return parseFn();
  if (k == TokenKind::KwFor) return parseFor();
  if (k == TokenKind::KwImport) return parseImport(topLevel);
  return parseExprOrAssign();
}

// let := 'let' pattern '=' expr
StmtPtr Parser::parseLet() {
  Token kw = take();
  auto s = std::make_unique<LetStmt>(kw.span);
  s->pattern = parsePattern();
  expect(TokenKind::Eq, "after the pattern of `let`",
         at(TokenKind::EqEq) ? "a binding is written with one `=`" : "");
  s->value = parseExpr();
  s->span = from(kw.span);
  return s;
}

// pattern := IDENT | '_' | '(' [ pattern { ',' pattern } [ ',' ] ] ')'
// `(p)` is just `p`; `(p,)` is a one-element tuple.
Pattern Parser::parsePattern() {
  Pattern p;
  p.span = peek().span;
  if (at(TokenKind::Ident)) {
    p.kind = PatternKind::Name;
    p.name = std::string(take().span.text());
    return p;
  }
  if (accept(TokenKind::Underscore)) {
    p.kind = PatternKind::Wildcard;
    return p;
  }
  if (!at(TokenKind::LParen)) expected("a name, `_` or `(` in a pattern");
  Nest nest(*this, p.span);
  Restore<bool> nl(ignoreNewlines_, true);
  Token open = take();
  p.kind = PatternKind::Tuple;
  bool comma = false;
  while (!at(TokenKind::RParen)) {
    p.elems.push_back(parsePattern());
    if (!accept(TokenKind::Comma)) break;
    comma = true;
  }
  expectClose(open, "patterns");
  if (p.elems.size() == 1 && !comma) return std::move(p.elems[0]);
  p.span = from(open.span);
  return p;
}

// params := [ param { ',' param } [ ',' ] ]
// param := [ 'static' ] ( IDENT | '_' ) [ '=' expr ]     (a default: `fn` parameters only, since
//                                                        `|` would end a lambda's default early)
std::vector<Param> Parser::parseParams(TokenKind close) {
  std::vector<Param> params;
  while (!at(close)) {
    Param p;
    p.span = peek().span;
    p.isStatic = accept(TokenKind::KwStatic);
    rejectStarParameter();
    if (!at(TokenKind::Ident) && !at(TokenKind::Underscore))
      expected(p.isStatic ? "a parameter name after `static`" : "a parameter name");
    Token name = take();
    p.name = std::string(name.span.text());
    if (close == TokenKind::RParen && accept(TokenKind::Eq)) p.defaultValue = parseExpr();
    p.span = from(p.span);
    for (const Param& q : params)
      if (q.name == p.name && p.name != "_")
        report("E0020", name.span, "parameter `" + p.name + "` is declared twice",
               "rename one of them, or write `_` for a parameter that is not used",
               {DiagNote{q.span, "first declared here"}});
    params.push_back(std::move(p));
    if (!accept(TokenKind::Comma)) break;
  }
  return params;
}

// fn := 'fn' IDENT '(' params ')' ( '=' expr | block )
StmtPtr Parser::parseFn() {
  Token kw = take();
  if (!at(TokenKind::Ident)) expected("a function name after `fn`");
  Token name = take();
  auto s = std::make_unique<FnStmt>(kw.span);
  s->name = std::string(name.span.text());
  s->nameSpan = name.span;
  if (!at(TokenKind::LParen))
    expected("`(` after the function name", "a function is written `fn " + s->name +
                                                 "(a, b) = a + b` or `fn " + s->name +
                                                 "(a, b) { ... }`");
  {
    Token open = take();
    Restore<bool> nl(ignoreNewlines_, true);
    s->params = parseParams(TokenKind::RParen);
    expectClose(open, "parameters");
  }
  if (accept(TokenKind::Eq)) {
    s->body = parseExpr();
  } else if (at(TokenKind::LBrace)) {
    s->body = parseBlock();
  } else {
    expected("`=` or `{` after the parameters of `" + s->name + "`");
  }
  s->span = from(kw.span);
  return s;
}

// for := 'for' ( IDENT | '_' ) 'in' expr [ '..' expr ] block
// Without `..` the loop runs over the elements of a tuple or the rows of an array.
StmtPtr Parser::parseFor() {
  Token kw = take();
  const char* form = "a loop is written `for i in 0..n { ... }` or `for x in t { ... }`";
  if (!at(TokenKind::Ident) && !at(TokenKind::Underscore))
    expected("a loop variable after `for`", form);
  Token var = take();
  auto s = std::make_unique<ForStmt>(kw.span);
  s->var = std::string(var.span.text());
  s->varSpan = var.span;
  expect(TokenKind::KwIn, "after the loop variable", form);
  ExprPtr first = parseExpr();
  if (accept(TokenKind::DotDot)) {
    s->lo = std::move(first);
    s->hi = parseExpr();
  } else {
    s->iterable = std::move(first);
  }
  if (!at(TokenKind::LBrace)) expected("`{` to start the loop body", form);
  s->body = parseBlock();
  s->span = from(kw.span);
  return s;
}

// import := 'import' STRING          (only at the top level of a file)
StmtPtr Parser::parseImport(bool topLevel) {
  Token kw = take();
  if (!at(TokenKind::String))
    expected("a file name in quotes after `import`", "write `import \"file.scn\"`");
  Token path = take();
  auto s = std::make_unique<ImportStmt>(from(kw.span));
  s->path = stringValue(path);
  if (!topLevel) {
    report("E0021", s->span, "`import` is only allowed at the top level of a file",
           "move the import to the top of the file");
    return nullptr;
  }
  return s;
}

// exprOrAssign := expr [ '=' expr ]          (the left side of `=` must be a name)
StmtPtr Parser::parseExprOrAssign() {
  ExprPtr e = parseExpr();
  if (at(TokenKind::Eq) && continues()) {
    take();
    if (e->kind != ExprKind::Name) {
      std::string help = "only a name can be rebound with `=`";
      if (e->kind == ExprKind::Tuple)
        help = "to bind several names, write `let (a, b) = ...`";
      else if (e->kind == ExprKind::Index || e->kind == ExprKind::Field ||
               e->kind == ExprKind::Attr)
        help = e->kind == ExprKind::Index
                   ? "arrays are immutable: write `x = x.at[i].set(v)` (JAX's functional update)"
                   : "values are immutable; bind the updated value to a name";
      fail("E0016", e->span, "cannot assign to this expression", help);
    }
    auto s = std::make_unique<AssignStmt>(e->span);
    s->name = static_cast<NameExpr&>(*e).name;
    s->nameSpan = e->span;
    s->value = parseExpr();
    s->span = from(e->span);
    return s;
  }
  auto s = std::make_unique<ExprStmt>(e->span);
  s->expr = std::move(e);
  return s;
}

// program := statements END
Program Parser::parseProgram() {
  Program p;
  p.source = file_;
  try {
    if (file_->text().size() >= UINT32_MAX)
      fail("E0022", Span{}, "source file `" + file_->name() + "` is too large (4 GiB or more)");
    parseStatements(p.stmts, false, nullptr);
  } catch (ParseAbort&) {
  }
  return p;
}

// single := expr END
ExprPtr Parser::parseSingleExpression() {
  try {
    ExprPtr e = parseExpr();
    if (!at(TokenKind::End)) expected("the end of the input after the expression");
    if (sink_.errorCount() > errorsAtStart_) return nullptr;
    return e;
  } catch (ParseAbort&) {
    return nullptr;
  }
}

// ---- public entry points ----

Program parseProgram(std::shared_ptr<SourceFile> file, DiagnosticSink& sink) {
  Parser p(std::move(file), sink);
  return p.parseProgram();
}

ExprPtr parseExpression(const std::shared_ptr<SourceFile>& file, DiagnosticSink& sink) {
  Parser p(file, sink);
  return p.parseSingleExpression();
}

bool isIncomplete(const std::string& text) {
  SourceFile file("<input>", text);
  DiagnosticSink sink;
  Lexer lexer(file, sink);
  int open = 0;
  Token last;
  for (;;) {
    Token t = lexer.next();
    if (t.kind == TokenKind::End) break;
    if (isOpener(t.kind)) ++open;
    if (isCloser(t.kind) && open > 0) --open;
    last = std::move(t);
  }
  for (const Diagnostic& d : sink.all())
    if (d.code == "E0003") return true;  // unterminated string
  if (open > 0) return true;
  return needsContinuation(last.kind);
}

}  // namespace scn
