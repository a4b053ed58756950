// Running programs and statements (`let` with its patterns, assignment, `fn`, `for`, `import`),
// and what keeps a program's AST alive while code from it runs or lives (Note [Source lifetime]).
// Expressions are evaluated in expressions.cpp, calls in calls.cpp and compile_cache.cpp.
#include "lang/eval.hpp"

#include "base/diagnostics.hpp"
#include "lang/eval_internal.hpp"

namespace scn {

namespace {
constexpr size_t kUnrollBudget = 200000;  // equations a trace may grow to through `for` unrolling
}  // namespace

Evaluator::Evaluator(EvalHost host)
    : host_(std::move(host)),
      tracer_([this](const FuncPtr& f, const std::vector<Array>& args) {
        CallRecord rec;
        rec.fn = f->name;
        auto out = host_.run(f, args, &rec);
        return out;
      }),
      ops_(tracer_),
      globals_(std::make_shared<Env>(nullptr, false)) {}

// A `fn` defined in a scope is a closure over that scope, stored in it: a reference cycle. The
// evaluator owns the global scope, so it breaks that cycle when it goes.
Evaluator::~Evaluator() {
  cache_.clear();
  if (globals_) globals_->clear();
}

// Note [Source lifetime]
// Spans, closures and the IR point into a file's AST and text by plain pointers. What owns them
// is shared: a Program (its AST, holding its SourceFile) lives while the code running it does
// (Session::run, importFile: `running_`), and after that as long as a function it defined lives,
// since each Closure holds the Program its body is in. A session therefore keeps nothing of a
// program that defined nothing (a REPL line, a failed load), and a redefined function's old file
// goes with it. A diagnostic outlives the code that threw it, so on the way out each frame that
// owns a Program (importFile, a closure call) adds it to errorSources_; Session::run keeps those
// with the diagnostics it reports, until they are cleared.

/// A function value for a `fn` or a lambda, closing over `env`; `program` holds its AST.
Value makeClosure(std::string name, const std::vector<Param>& params, const Expr& body, Span span,
                  const std::shared_ptr<Env>& env, const std::shared_ptr<const Program>& program) {
  auto c = std::make_shared<Closure>();
  c->name = std::move(name);
  c->params = &params;
  c->body = &body;
  c->span = span;
  c->env = env;
  c->program = program;
  Value v;
  v.kind = ValueKind::Closure;
  v.closure = std::move(c);
  return v;
}

void Evaluator::keepForError(const std::shared_ptr<const Program>& p) {
  if (p && (errorSources_.empty() || errorSources_.back() != p)) errorSources_.push_back(p);
}

Value Evaluator::runProgram(const std::shared_ptr<const Program>& program, const std::shared_ptr<Env>& env) {
  Running running{running_, program};
  const Program& p = *program;
  Value last;
  for (size_t i = 0; i < p.stmts.size(); ++i) {
    const Stmt& s = *p.stmts[i];
    if (s.kind == StmtKind::Expr && i + 1 == p.stmts.size()) {
      last = eval(*static_cast<const ExprStmt&>(s).expr, env);
    } else {
      exec(s, env);
    }
  }
  scopes_.collect();  // Note [Scope cycles]: escaped closures dropped by this program
  return last;
}

void Evaluator::bindPattern(const Pattern& p, const Value& v, Env& env, Span span) {
  switch (p.kind) {
    case PatternKind::Wildcard: return;
    case PatternKind::Name: env.define(p.name, v); return;
    case PatternKind::Tuple: {
      std::vector<Value> parts;
      if (v.isTuple()) {
        parts = *v.elems;
      } else if (v.isArray() && v.array->type.shape.size() >= 1) {
        // Unpacking an array splits it along its first axis, as in Python.
        const AVal& a = *v.array;
        int64_t n = a.type.shape[0];
        if (n == static_cast<int64_t>(p.elems.size())) {
          for (int64_t i = 0; i < n; ++i) {
            std::vector<int64_t> st(a.type.shape.size(), 0), li = a.type.shape, sd(a.type.shape.size(), 1);
            st[0] = i;
            li[0] = i + 1;
            AVal s = ops_.slice(a, st, li, sd, p.span);
            Shape rest(a.type.shape.begin() + 1, a.type.shape.end());
            parts.push_back(Value::ofArray(ops_.reshape(s, rest, p.span)));
          }
        } else {
          parts.resize(static_cast<size_t>(n));
        }
      } else {
        fail("E0210", p.span, "cannot destructure " + describe(v) + " into " +
                                  std::to_string(p.elems.size()) + " names");
      }
      if (parts.size() != p.elems.size())
        fail("E0210", p.span,
             std::string("cannot destructure ") + (v.isTuple() ? "a tuple" : "an array") + " of " +
                 std::to_string(parts.size()) + " parts into " + std::to_string(p.elems.size()) + " names");
      for (size_t i = 0; i < parts.size(); ++i) bindPattern(p.elems[i], parts[i], env, span);
      return;
    }
  }
}

void Evaluator::checkInterrupt(Span span) {
  if (host_.interrupted && host_.interrupted())
    failInterrupted(span);
}

// A compiled call stopped by an interrupt (Note [Interrupting compiled code]) and an allocation
// outside any call know no location: they get the statement's (Note [Errors without a location]).
void Evaluator::exec(const Stmt& s, const std::shared_ptr<Env>& env) {
  locatedAt(s.span, [&] { execStmt(s, env); });
}

void Evaluator::execStmt(const Stmt& s, const std::shared_ptr<Env>& env) {
  checkInterrupt(s.span);
  switch (s.kind) {
    case StmtKind::Let: {
      const auto& l = static_cast<const LetStmt&>(s);
      bindPattern(l.pattern, eval(*l.value, env), *env, l.span);
      return;
    }
    case StmtKind::Assign: {
      const auto& a = static_cast<const AssignStmt&>(s);
      Value v = eval(*a.value, env);
      int r = env->assign(a.name, std::move(v));
      if (r == 1)
        fail("E0211", a.nameSpan, "cannot assign to `" + a.name + "`: it is not defined",
             "declare it first with `let " + a.name + " = ...`");
      if (r == 2)
        fail("E0211", a.nameSpan,
             "cannot assign to `" + a.name + "`: it is defined outside this function",
             "functions cannot change outer variables; return the new value instead");
      return;
    }
    case StmtKind::Expr: eval(*static_cast<const ExprStmt&>(s).expr, env); return;
    case StmtKind::Fn: {
      const auto& f = static_cast<const FnStmt&>(s);
      env->define(f.name, makeClosure(f.name, f.params, *f.body, f.nameSpan, env, running_));
      return;
    }
    case StmtKind::For: execFor(static_cast<const ForStmt&>(s), env); return;
    case StmtKind::Import: importFile(static_cast<const ImportStmt&>(s), env); return;
  }
}

// A `for` loop is unrolled: its body runs once per value, the integers lo..hi (static bounds),
// the elements of a tuple, or the rows of an array (its first axis, static in every shape).
void Evaluator::execFor(const ForStmt& f, const std::shared_ptr<Env>& env) {
  int64_t lo = 0, hi = 0;
  std::function<Value(int64_t)> item;
  if (!f.iterable) {
    lo = staticInt(toArray(eval(*f.lo, env), f.lo->span, "for"), StaticUse::ForBound, f.lo->span, "");
    hi = staticInt(toArray(eval(*f.hi, env), f.hi->span, "for"), StaticUse::ForBound, f.hi->span, "");
    item = [](int64_t i) { return Value::ofArray(weakInt(i)); };
  } else {
    const Expr& it = *f.iterable;
    if (it.kind == ExprKind::Call) {  // Python's `for i in range(n)`, where scn has no range()
      const Expr& callee = *static_cast<const CallExpr&>(it).callee;
      if (callee.kind == ExprKind::Name && static_cast<const NameExpr&>(callee).name == "range" &&
          !env->lookup("range"))
        fail("E0262", it.span, "scn has no `range` function: a `for` loop counts over a range `a..b`",
             "write `for i in 0..n { ... }` (n excluded, as Python's range(n))");
    }
    Value v = eval(it, env);
    if (v.isTuple()) {
      hi = static_cast<int64_t>(v.elems->size());
      item = [v](int64_t i) { return (*v.elems)[i]; };
    } else if (v.isArray() && !v.array->type.shape.empty()) {
      AVal x = *v.array;
      hi = x.type.shape[0];
      item = [this, x, span = it.span](int64_t i) {
        Shape limits = x.type.shape, rest(x.type.shape.begin() + 1, x.type.shape.end());
        std::vector<int64_t> starts(limits.size(), 0), strides(limits.size(), 1);
        starts[0] = i;
        limits[0] = i + 1;
        AVal row = ops_.reshape(ops_.slice(x, starts, limits, strides, span), rest, span);
        row.weak = x.weak;
        return Value::ofArray(row);
      };
    } else {
      fail("E0262", it.span,
           "a `for` loop runs over a range `a..b`, a tuple or an array with at least one axis, got " +
               describe(v),
           "write `for i in 0..n { ... }` to count, or loop over a tuple or the rows of an array");
    }
  }
  for (int64_t i = lo; i < hi; ++i) {
    checkInterrupt(f.span);
    if (tracer_.tracing() && tracer_.current()->func().eqns.size() > kUnrollBudget)
      fail("E0105", f.span,
           "this `for` loop unrolls into more than " + std::to_string(kUnrollBudget) + " operations",
           "a `for` loop is unrolled at trace time; use `scan` or `fori_loop` for long loops");
    auto scope = std::make_shared<Env>(env, false);
    ScopeEnd end{scopes_, scope};
    scope->define(f.var, item(i));
    const auto& body = static_cast<const BlockExpr&>(*f.body);
    for (const StmtPtr& st : body.stmts) exec(*st, scope);
    if (body.result) eval(*body.result, scope);
  }
}

}  // namespace scn

namespace scn {

const std::shared_ptr<Collectives>& Evaluator::processes() {
  if (!host_.processes) host_.processes = singleProcessGroup();
  return host_.processes;
}

}  // namespace scn
