// The parser's expressions: precedence climbing over the binary operators, then unary, `**`,
// postfix calls/indexing/fields, and the primary forms (literals, tuples, lambdas, if, blocks).
#include "lang/syntax/literals.hpp"
#include "lang/syntax/parser.hpp"
#include "lang/syntax/parser_impl.hpp"

namespace scn {

namespace {

// The binary operators by token; `**` is not here: parsePower handles it, above the unary
// operators. Precedences come from precedence(BinaryOp).
constexpr std::pair<TokenKind, BinaryOp> kBinaryOps[] = {
    {TokenKind::Plus, BinaryOp::Add},      {TokenKind::Minus, BinaryOp::Sub},
    {TokenKind::Star, BinaryOp::Mul},      {TokenKind::Slash, BinaryOp::Div},
    {TokenKind::SlashSlash, BinaryOp::FloorDiv}, {TokenKind::Percent, BinaryOp::Mod},
    {TokenKind::At, BinaryOp::MatMul},     {TokenKind::EqEq, BinaryOp::Eq},
    {TokenKind::BangEq, BinaryOp::Ne},     {TokenKind::Lt, BinaryOp::Lt},
    {TokenKind::Le, BinaryOp::Le},         {TokenKind::Gt, BinaryOp::Gt},
    {TokenKind::Ge, BinaryOp::Ge},         {TokenKind::AmpAmp, BinaryOp::And},
    {TokenKind::PipePipe, BinaryOp::Or},   {TokenKind::Pipe, BinaryOp::BitOr},
    {TokenKind::Caret, BinaryOp::BitXor},  {TokenKind::Amp, BinaryOp::BitAnd},
    {TokenKind::LtLt, BinaryOp::Shl},      {TokenKind::GtGt, BinaryOp::Shr},
};

std::optional<BinaryOp> binaryOpOf(TokenKind k) {
  for (const auto& [token, op] : kBinaryOps)
    if (token == k) return op;
  return std::nullopt;
}

constexpr int kComparison = 3;

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Counts the operators of a left-leaning chain (a + b + c, f(x)(y), t.0.1) towards the tree
// depth while the chain is being built.
struct ChainDepth {
  int& depth;
  int added = 0;
  explicit ChainDepth(int& d) : depth(d) {}
  ~ChainDepth() { depth -= added; }
};

}  // namespace

Parser::Nest::Nest(Parser& parser, Span at, int treeLevels) : p(parser), weight(treeLevels) {
  ++p.nesting_;
  p.treeDepth_ += weight;
  if (p.nesting_ > kMaxNesting || p.treeDepth_ > kMaxTreeDepth) {
    bool nesting = p.nesting_ > kMaxNesting;
    --p.nesting_;
    p.treeDepth_ -= weight;
    if (nesting)
      p.fail("E0013", at,
             "nesting too deep: more than " + std::to_string(kMaxNesting) +
                 " levels of brackets, blocks and prefix operators",
             "split the expression into smaller parts with `let`");
    p.fail("E0013", at,
           "expression too deep: more than " + std::to_string(kMaxTreeDepth) +
               " nested operations",
           "split the expression into smaller parts with `let`");
  }
}

Parser::Nest::~Nest() {
  --p.nesting_;
  p.treeDepth_ -= weight;
}

// expr := binary(1)          (lambdas, `if` and blocks are primaries)
ExprPtr Parser::parseExpr() {
  Nest nest(*this, peek().span);
  return parseBinary(1);
}

// binary(p) := unary { OP binary(prec(OP) + 1) }   for the operators OP with prec(OP) >= p;
// levels: `||` 1, `&&` 2, `== != < <= > >=` 3 (not chainable), `|` 4, `^` 5, `&` 6, `<< >>` 7,
// `+ -` 8, `* / // % @` 9. A `|` or `||` here follows an operand, so it is an or; where an
// operand starts, parsePrimary takes it as a lambda (Note [Pipes]).
ExprPtr Parser::parseBinary(int minPrecedence) {
  ExprPtr lhs = parseUnary();
  ChainDepth chain(treeDepth_);
  for (;;) {
    if (!continues()) break;
    std::optional<BinaryOp> op = binaryOpOf(peek().kind);
    if (!op || precedence(*op) < minPrecedence) break;
    int prec = precedence(*op);
    Token opTok = take();
    ++chain.added;
    if (++treeDepth_ > kMaxTreeDepth) {
      --treeDepth_;
      --chain.added;
      fail("E0013", opTok.span,
           "expression too deep: more than " + std::to_string(kMaxTreeDepth) +
               " nested operations",
           "split the expression into smaller parts with `let`");
    }
    ExprPtr rhs = parseBinary(prec + 1);
    auto node = std::make_unique<BinaryExpr>(lhs->span.to(rhs->span), *op);
    node->opSpan = opTok.span;
    node->lhs = std::move(lhs);
    node->rhs = std::move(rhs);
    lhs = std::move(node);
    if (prec == kComparison && continues()) {
      std::optional<BinaryOp> next = binaryOpOf(peek().kind);
      if (next && precedence(*next) == kComparison)
        fail("E0017", peek().span, "comparison operators cannot be chained",
             "write `a < b && b < c` to compare three values",
             {DiagNote{opTok.span, "the first comparison is here"}});
    }
  }
  return lhs;
}

// unary := ( '-' | '!' | '~' ) unary | power
ExprPtr Parser::parseUnary() {
  if (!at(TokenKind::Minus) && !at(TokenKind::Bang) && !at(TokenKind::Tilde)) return parsePower();
  Token op = take();
  Nest nest(*this, op.span);
  if (op.kind == TokenKind::Minus && at(TokenKind::Number)) {
    TokenKind after = peek(1).kind;
    negateNextLiteral_ = after != TokenKind::StarStar && after != TokenKind::Dot &&
                         after != TokenKind::LParen && after != TokenKind::LBracket;
  }
  ExprPtr operand = parseUnary();
  UnaryOp uop = op.kind == TokenKind::Minus ? UnaryOp::Neg
                : op.kind == TokenKind::Bang  ? UnaryOp::Not
                                              : UnaryOp::Invert;
  auto node = std::make_unique<UnaryExpr>(op.span.to(operand->span), uop);
  node->operand = std::move(operand);
  return node;
}

// power := postfix [ '**' unary ]        (right-associative; `-2**2` is `-(2**2)`)
ExprPtr Parser::parsePower() {
  ExprPtr base = parsePostfix(parsePrimary());
  if (!continues() || !at(TokenKind::StarStar)) return base;
  Token op = take();
  Nest nest(*this, op.span);
  ExprPtr exponent = parseUnary();
  auto node = std::make_unique<BinaryExpr>(base->span.to(exponent->span), BinaryOp::Pow);
  node->opSpan = op.span;
  node->lhs = std::move(base);
  node->rhs = std::move(exponent);
  return node;
}

// postfix := primary { '(' args ')' | '[' items ']' | '.' ( NUMBER | IDENT ) }
ExprPtr Parser::parsePostfix(ExprPtr base) {
  ChainDepth chain(treeDepth_);
  for (;;) {
    if (!continues()) return base;
    TokenKind k = peek().kind;
    if (k != TokenKind::LParen && k != TokenKind::LBracket && k != TokenKind::Dot) return base;
    ++chain.added;
    if (++treeDepth_ > kMaxTreeDepth) {
      --treeDepth_;
      --chain.added;
      fail("E0013", peek().span,
           "expression too deep: more than " + std::to_string(kMaxTreeDepth) +
               " nested operations",
           "split the expression into smaller parts with `let`");
    }
    if (k == TokenKind::LParen) base = parseCall(std::move(base));
    else if (k == TokenKind::LBracket) base = parseIndex(std::move(base));
    else base = parseField(std::move(base));
  }
}

// args := [ arg { ',' arg } [ ',' ] ]       arg := [ IDENT '=' ] expr
// Positional arguments come first (E0014); a keyword is given once (E0015).
ExprPtr Parser::parseCall(ExprPtr callee) {
  Token open = take();
  Restore<bool> nl(ignoreNewlines_, true);
  auto call = std::make_unique<CallExpr>(callee->span);
  std::vector<Argument> keywords;
  while (!at(TokenKind::RParen)) {
    Argument a;
    Span start = peek().span;
    rejectStarArgument();
    if (at(TokenKind::Ident) && peek(1).kind == TokenKind::Eq) {
      Token k = take();
      take();
      a.keyword = std::string(k.span.text());
      a.keywordSpan = k.span;
    }
    a.value = parseExpr();
    if (a.keyword.empty()) {
      if (!keywords.empty()) {
        const Argument& kw = keywords.front();
        report("E0014", from(start), "positional argument after keyword argument",
               "put the positional arguments first, or give this one a keyword too",
               {DiagNote{kw.keywordSpan, "keyword argument `" + kw.keyword + "` is here"}});
      } else {
        call->args.push_back(std::move(a));
      }
    } else {
      const Argument* dup = nullptr;
      for (const Argument& k : keywords)
        if (k.keyword == a.keyword) dup = &k;
      if (dup)
        report("E0015", a.keywordSpan, "keyword argument `" + a.keyword + "` is given twice",
               "remove one of them", {DiagNote{dup->keywordSpan, "first given here"}});
      else
        keywords.push_back(std::move(a));
    }
    if (!accept(TokenKind::Comma)) break;
  }
  expectClose(open, "arguments");
  for (Argument& k : keywords) call->args.push_back(std::move(k));
  call->span = from(callee->span);
  call->callee = std::move(callee);
  return call;
}

// index := '[' item { ',' item } [ ',' ] ']'
ExprPtr Parser::parseIndex(ExprPtr base) {
  Token open = take();
  Restore<bool> nl(ignoreNewlines_, true);
  auto node = std::make_unique<IndexExpr>(base->span);
  if (at(TokenKind::RBracket))
    expected("an index", "an index is an expression, `None` or a slice such as `1:5`");
  while (!at(TokenKind::RBracket)) {
    node->items.push_back(parseIndexItem());
    if (!accept(TokenKind::Comma)) break;
  }
  expectClose(open, "indices");
  node->span = from(base->span);
  node->base = std::move(base);
  return node;
}

// item := '...' | expr | [ expr ] ':' [ expr ] [ ':' [ expr ] ]
IndexItem Parser::parseIndexItem() {
  IndexItem item;
  Span start = peek().span;
  if (at(TokenKind::Ellipsis)) {
    item.isEllipsis = true;
    item.span = take().span;
    return item;
  }
  auto ends = [&] {
    return at(TokenKind::Colon) || at(TokenKind::Comma) || at(TokenKind::RBracket);
  };
  if (!at(TokenKind::Colon)) item.index = parseExpr();
  if (accept(TokenKind::Colon)) {
    item.isSlice = true;
    item.start = std::move(item.index);
    if (!ends()) item.stop = parseExpr();
    if (accept(TokenKind::Colon) && !ends()) item.step = parseExpr();
  }
  item.span = from(start);
  return item;
}

// field := '.' NUMBER | '.' IDENT
// `t.0.1` lexes as `t` `.` `0.1` (a float); the numeral is split back into two fields.
ExprPtr Parser::parseField(ExprPtr base) {
  take();  // the `.`
  if (at(TokenKind::Ident)) {
    Token name = take();
    auto node = std::make_unique<AttrExpr>(from(base->span));
    node->attr = std::string(name.span.text());
    node->base = std::move(base);
    return node;
  }
  if (!at(TokenKind::Number)) expected("a field name or number after `.`");
  Token num = take();
  if (num.malformed) throw ParseAbort{};
  std::string_view text = num.span.text();
  size_t point = text.find('.');
  std::string_view parts[2] = {text.substr(0, point),
                               point == std::string_view::npos ? "" : text.substr(point + 1)};
  int count = point == std::string_view::npos ? 1 : 2;
  for (int i = 0; i < count; ++i) {
    if (!allDigits(parts[i]) || parts[i].size() > 9)
      fail("E0018", num.span, "invalid tuple field `" + std::string(text) + "`",
           "tuple fields are numbered from 0 and written as plain digits, as in `t.0` or "
           "`t.1.0`");
  }
  for (int i = 0; i < count; ++i) {
    uint32_t end = i == 0 && count == 2 ? num.span.begin + uint32_t(parts[0].size())
                                        : num.span.end;
    auto node = std::make_unique<FieldExpr>(Span{base->span.file, base->span.begin, end});
    node->field = uint32_t(std::stoul(std::string(parts[i])));
    node->base = std::move(base);
    base = std::move(node);
  }
  return base;
}

// primary := NUMBER | STRING | 'true' | 'false' | 'None' | IDENT | paren | list | block | lambda | if
ExprPtr Parser::parsePrimary() {
  const Token& t = peek();
  if (t.newlineBefore && !ignoreNewlines_ && binaryOpOf(t.kind) && t.kind != TokenKind::Minus &&
      t.kind != TokenKind::PipePipe && t.kind != TokenKind::Pipe)
    expected("an expression",
             "a line break ends a statement; to go on with an expression on the next line, "
             "end the line with the operator or put the expression in parentheses");
  using K = TokenKind;
  K k = t.kind;
  if (k == K::Number) return parseNumber();
  if (k == K::String) {
    Token s = take();
    auto node = std::make_unique<StringExpr>(s.span);
    node->value = stringValue(s);
    return node;
  }
  if (k == K::KwTrue || k == K::KwFalse) {
    Token b = take();
    auto node = std::make_unique<BoolExpr>(b.span);
    node->value = b.kind == K::KwTrue;
    return node;
  }
  if (k == K::KwNone) return std::make_unique<NoneExpr>(take().span);
  if (k == K::Ident) {
    Token n = take();
    rejectPythonKeyword(n);
    auto node = std::make_unique<NameExpr>(n.span);
    node->name = std::string(n.span.text());
    return node;
  }
  if (k == K::LParen) return parseParenOrTuple();
  if (k == K::LBracket) return parseList();
  if (k == K::LBrace) return parseBlock();
  if (k == K::Pipe || k == K::PipePipe) return parseLambda();
  if (k == K::KwIf) return parseIf();
  // Not an expression: say what would have been right where it is likely.
  if (k == K::Plus) expected("an expression", "scn has no unary `+`; remove it");
  if (k == K::Underscore)
    expected("an expression",
             "`_` can only stand for an ignored value in a pattern or a parameter list");
  if (k == K::KwFn) expected("an expression", "an anonymous function is written `|x| x + 1`");
  if (k == K::Ellipsis)
    expected("an expression", "`...` can only appear between the brackets of an index: `x[..., 0]`");
  if (k == K::DotDot)
    expected("an expression", "a range `a..b` can only appear in `for i in a..b { ... }`");
  if (k == K::KwElse) expected("an expression", "`else` must follow the `}` of an `if`");
  expected("an expression");
}

// number := NUMBER
// The value was decoded by the lexer; here it is checked against its dtype's range, now that
// it is known whether a unary minus applies to it directly.
ExprPtr Parser::parseNumber() {
  bool negated = negateNextLiteral_;
  negateNextLiteral_ = false;
  Token t = take();
  RangeError r = checkNumberRange(t, negated);
  if (!r.code.empty()) report(r.code, t.span, r.message, r.help);
  auto node = std::make_unique<NumberExpr>(t.span);
  node->isFloat = t.isFloat;
  node->intValue = t.intValue;
  node->floatValue = t.isFloat ? t.floatValue : double(t.intValue);
  node->suffix = std::string(t.suffix());
  return node;
}

// paren := '(' ')' | '(' expr ')' | '(' expr ',' [ expr { ',' expr } [ ',' ] ] ')'
ExprPtr Parser::parseParenOrTuple() {
  Token open = take();
  Restore<bool> nl(ignoreNewlines_, true);
  if (accept(TokenKind::RParen)) return std::make_unique<TupleExpr>(from(open.span));
  ExprPtr first = parseExpr();
  if (accept(TokenKind::RParen)) {
    first->span = from(open.span);  // a parenthesized expression's span takes in the parentheses
    return first;
  }
  if (!at(TokenKind::Comma)) expectClose(open, "tuple elements");
  auto tuple = std::make_unique<TupleExpr>(open.span);
  tuple->elems.push_back(std::move(first));
  while (accept(TokenKind::Comma)) {
    if (at(TokenKind::RParen)) break;
    tuple->elems.push_back(parseExpr());
  }
  expectClose(open, "tuple elements");
  tuple->span = from(open.span);
  return tuple;
}

// list := '[' [ expr { ',' expr } [ ',' ] ] ']'
// An array literal. `[` after an expression on the same line indexes it instead (postfix).
ExprPtr Parser::parseList() {
  Token open = take();
  Nest nest(*this, open.span);
  Restore<bool> nl(ignoreNewlines_, true);
  auto list = std::make_unique<ListExpr>(open.span);
  while (!at(TokenKind::RBracket)) {
    list->elems.push_back(parseExpr());
    if (!accept(TokenKind::Comma)) break;
  }
  expectClose(open, "array elements");
  list->span = from(open.span);
  return list;
}

// lambda := '|' params '|' expr | '||' expr
//
// Note [Pipes]
// `|` and `||` are each two things: where an operand starts (after `(`, `,`, `=`, an operator,
// at the start of a statement) they open a lambda, `|x| x + 1` and `|| e`; after an operand they
// are the binary operators bitwise or and logical or (`a | b`, `a || b`). The two never compete:
// parsePrimary sees only the first kind, parseBinary only the second, and a lambda's parameters
// are names, so its closing `|` cannot be read as an or. As elsewhere the body extends as far
// right as it can: `|x| x | m` is `|x| (x | m)`, and `f(|x| x) | m` needs the parentheses it has.
ExprPtr Parser::parseLambda() {
  Token open = take();
  Nest nest(*this, open.span);
  auto node = std::make_unique<LambdaExpr>(open.span);
  if (open.kind == TokenKind::Pipe) {
    Restore<bool> nl(ignoreNewlines_, true);
    node->params = parseParams(TokenKind::Pipe);
    expect(TokenKind::Pipe, "to close the parameters of the lambda",
           "a lambda is written `|a, b| a + b`");
  }
  node->body = parseExpr();
  node->span = from(open.span);
  return node;
}

// if := 'if' expr block [ 'else' ( if | block ) ]     (`else` may start a new line)
ExprPtr Parser::parseIf() {
  Token kw = take();
  Nest nest(*this, kw.span);
  auto node = std::make_unique<IfExpr>(kw.span);
  node->cond = parseExpr();
  if (!at(TokenKind::LBrace))
    expected("`{` after the condition of `if`",
             at(TokenKind::Eq) ? "to compare two values, write `==`" : "");
  node->thenBlock = parseBlock();
  if (accept(TokenKind::KwElse)) {
    if (at(TokenKind::KwIf)) node->elseBlock = parseIf();
    else if (at(TokenKind::LBrace)) node->elseBlock = parseBlock();
    else expected("`{` or `if` after `else`");
  }
  node->span = from(kw.span);
  return node;
}

// block := '{' statements '}'   The last statement is the block's value when it is an
// expression not followed by `;`.
ExprPtr Parser::parseBlock() {
  Token open = take();
  Nest nest(*this, open.span);
  Restore<bool> nl(ignoreNewlines_, false);
  Restore<int> blocks(blockDepth_, blockDepth_ + 1);
  auto block = std::make_unique<BlockExpr>(open.span);
  bool trailingSemi = false;
  parseStatements(block->stmts, true, &trailingSemi);
  expectClose(open);
  if (!trailingSemi && !block->stmts.empty() && block->stmts.back()->kind == StmtKind::Expr) {
    block->result = std::move(static_cast<ExprStmt&>(*block->stmts.back()).expr);
    block->stmts.pop_back();
  }
  block->span = from(open.span);
  return block;
}

}  // namespace scn
