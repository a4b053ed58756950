// Evaluation of statements and expressions; function calls trace, compile, cache and run.
#include "lang/eval.hpp"
#include "lang/number_text.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "base/diagnostics.hpp"
#include "lang/syntax/parser.hpp"

namespace scn {

namespace {
constexpr int kMaxCallDepth = 200;  // nested calls while tracing (recursion guard)
constexpr size_t kUnrollBudget = 200000;  // equations a trace may grow to through `for` unrolling
constexpr size_t kMaxImportDepth = 64;  // files importing files (E0509): each level is C++ stack

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

// ---------------------------------------------------------------- environments and values

const Value* Env::lookup(const std::string& name, const Env** where) const {
  for (const Env* e = this; e; e = e->parent_.get()) {
    auto it = e->vars_.find(name);
    if (it != e->vars_.end()) {
      if (where) *where = e;
      return &it->second;
    }
  }
  return nullptr;
}

int Env::assign(const std::string& name, Value v) {
  for (Env* e = this; e; e = e->parent_.get()) {
    auto it = e->vars_.find(name);
    if (it != e->vars_.end()) {
      it->second = std::move(v);
      return 0;
    }
    if (e->fnBoundary_) return e->parent_ && e->parent_->lookup(name) ? 2 : 1;
  }
  return 1;
}

std::string describe(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: return surfaceTypeString(*v.array);
    case ValueKind::Tuple: return "a tuple of " + std::to_string(v.elems->size());
    case ValueKind::None: return "None";
    case ValueKind::String: return "a string";
    case ValueKind::Closure: return "the function `" + v.closure->name + "`";
    case ValueKind::Builtin: return std::string("the builtin `") + v.builtin->name + "`";
    case ValueKind::Vmap: return "a vmapped function";
    case ValueKind::DType: return std::string("the dtype ") + dtypeName(v.dtype);
  }
  return "a value";
}

AVal toArray(const Value& v, Span span, const char* what) {
  if (v.isArray()) return *v.array;
  fail("E0208", span, std::string(what) + " expects an array, got " + describe(v));
}

std::string TreeDef::str() const {
  switch (kind) {
    case Leaf: return "array";
    case None: return "None";
    case Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < children.size(); ++i) s += (i ? ", " : "") + children[i].str();
      return s + (children.size() == 1 ? ",)" : ")");
    }
  }
  return "?";
}

void Evaluator::flatten(const Value& v, std::vector<AVal>& leaves, TreeDef& def, Span span,
                        const char* what) {
  switch (v.kind) {
    case ValueKind::Array:
      def.kind = TreeDef::Leaf;
      leaves.push_back(*v.array);
      return;
    case ValueKind::None:
      def.kind = TreeDef::None;
      return;
    case ValueKind::Tuple:
      def.kind = TreeDef::Tuple;
      def.children.resize(v.elems->size());
      for (size_t i = 0; i < v.elems->size(); ++i) flatten((*v.elems)[i], leaves, def.children[i], span, what);
      return;
    case ValueKind::String: case ValueKind::Closure: case ValueKind::Builtin:
    case ValueKind::Vmap: case ValueKind::DType:
      fail("E0209", span, std::string(what) + " can only hold arrays, tuples and None, got " + describe(v));
  }
}

const void* identity(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: return v.array.get();
    case ValueKind::Tuple: return v.elems.get();
    case ValueKind::Closure: return v.closure.get();
    case ValueKind::Builtin: return v.builtin;
    case ValueKind::Vmap: return v.vmap.get();
    case ValueKind::None: case ValueKind::String: case ValueKind::DType: return nullptr;
  }
  return nullptr;
}

std::shared_ptr<const void> payload(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: return v.array;
    case ValueKind::Tuple: return v.elems;
    case ValueKind::Closure: return v.closure;
    case ValueKind::Vmap: return v.vmap;
    case ValueKind::Builtin: case ValueKind::None: case ValueKind::String: case ValueKind::DType:
      return nullptr;
  }
  return nullptr;
}

bool isPytree(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: case ValueKind::None: return true;
    case ValueKind::Tuple:
      for (const Value& e : *v.elems)
        if (!isPytree(e)) return false;
      return true;
    case ValueKind::String: case ValueKind::Closure: case ValueKind::Builtin:
    case ValueKind::Vmap: case ValueKind::DType:
      return false;
  }
  return false;
}

Value Evaluator::unflatten(const TreeDef& def, const std::vector<AVal>& leaves, size_t& pos) {
  switch (def.kind) {
    case TreeDef::Leaf: return Value::ofArray(leaves.at(pos++));
    case TreeDef::None: return Value::none();
    case TreeDef::Tuple: {
      std::vector<Value> xs;
      for (const TreeDef& c : def.children) xs.push_back(unflatten(c, leaves, pos));
      return Value::ofTuple(std::move(xs));
    }
  }
  return Value::none();
}

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

std::string Evaluator::format(const Value& v) {
  switch (v.kind) {
    case ValueKind::Array: {
      AVal a = defaultize(*v.array);
      if (!a.isStatic()) return "traced " + typeString(a.type);
      return formatArray(*a.concrete);
    }
    case ValueKind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < v.elems->size(); ++i) s += (i ? ", " : "") + format((*v.elems)[i]);
      return s + (v.elems->size() == 1 ? ",)" : ")");
    }
    case ValueKind::None: return "None";
    case ValueKind::String: return v.str;
    case ValueKind::Closure: return "<fn " + v.closure->name + ">";
    case ValueKind::Builtin: return std::string("<builtin ") + v.builtin->name + ">";
    case ValueKind::Vmap: return "<vmapped fn>";
    case ValueKind::DType: return dtypeName(v.dtype);
  }
  return "?";
}

// ---------------------------------------------------------------- statements

// Note [Source lifetime]
// Spans, closures and the IR point into a file's AST and text by plain pointers. What owns them
// is shared: a Program (its AST, holding its SourceFile) lives while the code running it does
// (Session::run, importFile: `running_`), and after that as long as a function it defined lives,
// since each Closure holds the Program its body is in. A session therefore keeps nothing of a
// program that defined nothing (a REPL line, a failed load), and a redefined function's old file
// goes with it. A diagnostic outlives the code that threw it, so on the way out each frame that
// owns a Program (importFile, a closure call) adds it to errorSources_; Session::run keeps those
// with the diagnostics it reports, until they are cleared.

namespace {
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

/// Sets the program whose AST is evaluated for as long as it lives (Note [Source lifetime]).
struct Running {
  std::shared_ptr<const Program>& slot;
  std::shared_ptr<const Program> saved;
  Running(std::shared_ptr<const Program>& s, const std::shared_ptr<const Program>& p)
      : slot(s), saved(std::exchange(s, p)) {}
  ~Running() { slot = std::move(saved); }
};
}  // namespace

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

void Evaluator::exec(const Stmt& s, const std::shared_ptr<Env>& env) {
  try {
    execStmt(s, env);
  } catch (UserError& e) {
    // A compiled call stopped by an interrupt (Note [Interrupting compiled code]) knows no
    // location: it gets the statement's.
    if (e.diag.code == "E0507" && !e.diag.span.valid()) e.diag.span = s.span;
    throw;
  }
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
    case StmtKind::For: {
      const auto& f = static_cast<const ForStmt&>(s);
      int64_t lo = staticInt(toArray(eval(*f.lo, env), f.lo->span, "for"), StaticUse::ForBound,
                             f.lo->span, "");
      int64_t hi = staticInt(toArray(eval(*f.hi, env), f.hi->span, "for"), StaticUse::ForBound,
                             f.hi->span, "");
      for (int64_t i = lo; i < hi; ++i) {
        checkInterrupt(f.span);
        if (tracer_.tracing() && tracer_.current()->func().eqns.size() > kUnrollBudget)
          fail("E0105", f.span,
               "this `for` loop unrolls into more than " + std::to_string(kUnrollBudget) +
                   " operations",
               "a `for` loop is unrolled at trace time; use `scan` or `fori_loop` for long loops");
        auto scope = std::make_shared<Env>(env, false);
        ScopeEnd end{scopes_, scope};
        scope->define(f.var, Value::ofArray(weakInt(i)));
        const auto& body = static_cast<const BlockExpr&>(*f.body);
        for (const StmtPtr& st : body.stmts) exec(*st, scope);
        if (body.result) eval(*body.result, scope);
      }
      return;
    }
    case StmtKind::Import: importFile(static_cast<const ImportStmt&>(s), env); return;
  }
}

namespace {
/// The identity of a file for "each file runs once": its canonical path when it has one.
std::string importKey(const std::filesystem::path& p) {
  std::error_code ec;
  std::filesystem::path canon = std::filesystem::weakly_canonical(p, ec);
  return ec ? p.string() : canon.string();
}
}  // namespace

void Evaluator::noteFileRun(const std::string& path, bool ran) {
  if (ran) importedPaths_.insert(importKey(path));
  else importedPaths_.erase(importKey(path));
}

// Note [Import cycles]
// A file runs once per session: the first `import` of it runs it, later ones (and the script
// itself, Session::runFile) do nothing. It counts as imported from the moment it starts, so in a
// cycle (a imports b imports a) the inner `import "a"` does nothing and b goes on with the names
// a defined before its `import "b"` line; the rest of a's names appear when a goes on (a function
// of b that reads one at call time sees it). This is Python's rule for a partly run module, with
// one file one module. A file that fails is forgotten, so importing it again (after fixing it,
// in the REPL) runs it anew.
void Evaluator::importFile(const ImportStmt& s, const std::shared_ptr<Env>& env) {
  namespace fs = std::filesystem;
  fs::path base = s.span.file ? fs::path(s.span.file->name()).parent_path() : fs::path();
  std::string path = (base / s.path).string();
  std::string key = importKey(path);
  if (importedPaths_.count(key)) return;  // Note [Import cycles]
  if (importChain_.size() >= kMaxImportDepth)
    fail("E0509", s.span, "imports nest deeper than " + std::to_string(kMaxImportDepth) + " files",
         "import the files side by side from one file, not each from the one before",
         {DiagNote{importChain_.front(), "the chain of imports starts here"}});
  std::shared_ptr<const Program> prog = parseImport(s, path);
  importedPaths_.insert(key);
  importChain_.push_back(s.span);
  struct Pop {
    std::vector<Span>& chain;
    ~Pop() { chain.pop_back(); }
  } pop{importChain_};
  try {
    Running running{running_, prog};
    for (const StmtPtr& st : prog->stmts) exec(*st, env);
  } catch (UserError& e) {
    importedPaths_.erase(key);
    keepForError(prog);
    if (e.diag.span.file == prog->source.get()) e.diag.notes.push_back(DiagNote{s.span, "in the file imported here"});
    throw;
  }
}

/// Reads and parses the file an `import` names (a stdlib file by name when no file is there);
/// a syntax error points into that file, with a note at the import.
std::shared_ptr<const Program> Evaluator::parseImport(const ImportStmt& s, const std::string& path) {
  std::optional<std::string> text;
  std::string name = path;
  try {
    text = host_.readFile(path);
  } catch (UserError& e) {
    if (!e.diag.span.valid()) e.diag.span = s.span;
    throw;
  }
  if (!text) {
    // Not beside the importing file: a stdlib file by name ("prelude" or "prelude.scn").
    for (const auto& [file, body] : host_.stdlib) {
      if (file == s.path || file == s.path + ".scn") {
        text = std::string(body);
        name = "<stdlib>/" + std::string(file);
        break;
      }
    }
    if (!text)
      fail("E0502", s.span, "cannot import \"" + s.path + "\": no such file (looked for " + path + ")",
           "paths are relative to the importing file; stdlib files are imported by name");
  }
  DiagnosticSink sink;
  auto prog = std::make_shared<const Program>(
      parseProgram(std::make_shared<SourceFile>(std::move(name), std::move(*text)), sink));
  if (sink.errorCount() > 0) {
    keepForError(prog);
    Diagnostic d = sink.all().front();
    d.notes.push_back(DiagNote{s.span, "in the file imported here"});
    throw UserError(std::move(d));
  }
  return prog;
}

// ---------------------------------------------------------------- expressions

Value Evaluator::eval(const Expr& e, const std::shared_ptr<Env>& env) {
  switch (e.kind) {
    case ExprKind::Number: {
      const auto& n = static_cast<const NumberExpr&>(e);
      if (n.suffix.empty())
        return Value::ofArray(n.isFloat ? weakFloat(n.floatValue)
                                        : weakInt(static_cast<int64_t>(n.intValue)));
      DType t = *dtypeFromName(n.suffix);
      if (n.isFloat) return Value::ofArray(strongScalar(t, n.floatValue));
      Array a(t, {});
      if (t == DType::U64) a.data<uint64_t>()[0] = n.intValue;
      else a.setInt(0, static_cast<int64_t>(n.intValue));
      return Value::ofArray(AVal::of(a));
    }
    case ExprKind::String: return Value::ofString(static_cast<const StringExpr&>(e).value);
    case ExprKind::Bool:
      return Value::ofArray(strongScalar(DType::Bool, static_cast<const BoolExpr&>(e).value));
    case ExprKind::None: return Value::none();
    case ExprKind::Name: {
      const auto& n = static_cast<const NameExpr&>(e);
      const Env* where = nullptr;
      if (const Value* v = env->lookup(n.name, &where)) {
        if (captures_ && captures_->outer.count(where))
          captures_->deps.push_back({where, n.name, identity(*v), payload(*v), payload(*v) != nullptr});
        return *v;
      }
      if (auto t = dtypeFromName(n.name)) return Value::ofDType(*t);
      auto it = builtins().find(n.name);
      if (it != builtins().end()) {
        Value v;
        v.kind = ValueKind::Builtin;
        v.builtin = &it->second;
        return v;
      }
      fail("E0106", e.span, "unknown name `" + n.name + "`",
           "define it with `let " + n.name + " = ...` or `fn " + n.name + "(...)` before this line");
    }
    case ExprKind::Tuple: {
      std::vector<Value> xs;
      for (const ExprPtr& x : static_cast<const TupleExpr&>(e).elems) xs.push_back(eval(*x, env));
      Value t = Value::ofTuple(std::move(xs));
      if (t.depth > kMaxTupleDepth)  // Note [Deep values]
        fail("E0108", e.span, "this tuple nests more than " + std::to_string(kMaxTupleDepth) + " levels deep",
             "keep tuples flat (concatenate them with `+`) or stack the values into an array");
      return t;
    }
    case ExprKind::Unary: {
      const auto& u = static_cast<const UnaryExpr&>(e);
      AVal x = toArray(eval(*u.operand, env), u.operand->span, spelling(u.op));
      if (u.op == UnaryOp::Neg) return Value::ofArray(ops_.unary(Op::Neg, x, e.span));
      if (x.type.dtype != DType::Bool) x = ops_.binary(Op::Ne, x, weakInt(0), e.span, "!");
      return Value::ofArray(ops_.unary(Op::Not, x, e.span));
    }
    case ExprKind::Binary: return evalBinary(static_cast<const BinaryExpr&>(e), env);
    case ExprKind::Call: return evalCall(static_cast<const CallExpr&>(e), env);
    case ExprKind::Index: return evalIndex(static_cast<const IndexExpr&>(e), env);
    case ExprKind::Field: {
      const auto& f = static_cast<const FieldExpr&>(e);
      Value base = eval(*f.base, env);
      if (!base.isTuple())
        fail("E0212", e.span, "`." + std::to_string(f.field) + "` needs a tuple, got " + describe(base),
             base.isArray() ? "index arrays with brackets: `x[" + std::to_string(f.field) + "]`" : "");
      if (f.field >= base.elems->size())
        fail("E0212", e.span, "tuple field " + std::to_string(f.field) + " out of range for a tuple of " +
                                  std::to_string(base.elems->size()));
      return (*base.elems)[f.field];
    }
    case ExprKind::Attr: return evalAttr(static_cast<const AttrExpr&>(e), env);
    case ExprKind::Lambda: {
      const auto& l = static_cast<const LambdaExpr&>(e);
      return makeClosure("<lambda>", l.params, *l.body, l.span, env, running_);
    }
    case ExprKind::Block: {
      const auto& b = static_cast<const BlockExpr&>(e);
      auto scope = std::make_shared<Env>(env, false);
      ScopeEnd end{scopes_, scope};
      for (const StmtPtr& s : b.stmts) exec(*s, scope);
      return b.result ? eval(*b.result, scope) : Value::none();
    }
    case ExprKind::If: {
      const auto& i = static_cast<const IfExpr&>(e);
      AVal c = toArray(eval(*i.cond, env), i.cond->span, "if");
      Array a = concreteOrError(c, StaticUse::IfCondition, i.cond->span, "");
      if (a.rank() != 0)
        fail("E0213", i.cond->span, "an `if` condition must be a scalar, got " + surfaceTypeString(c),
             "reduce it first, e.g. `all(x)` or `any(x)`");
      if (a.getDouble(0) != 0) return eval(*i.thenBlock, env);
      return i.elseBlock ? eval(*i.elseBlock, env) : Value::none();
    }
  }
  return Value::none();
}

namespace {
// Note [Comparing values]
// `==` of two values that are not arrays (tuples, None, strings, functions, dtypes; an array
// beside one of them is E0208) asks whether they are the same value, at trace time, giving a
// static bool: the same kind and structure, arrays of the same type (dtype and shape as the
// language reports them) with equal elements (NaN equals nothing, as elementwise `==`),
// functions the same function. A traced array inside a tuple has no value yet: E0101, as an
// `if` on it would be. (Comparing printed forms, as before, called any two traced arrays of a
// type equal and missed differences that printing elides.) The walk recurses over tuples, which
// nest at most kMaxTupleDepth levels (Note [Deep values]).
bool sameArray(const AVal& a, const AVal& b, Span span) {
  Array x = concreteOrError(a, StaticUse::TupleComparison, span, "");
  Array y = concreteOrError(b, StaticUse::TupleComparison, span, "");
  Type t = surfaceType(a);
  if (t != surfaceType(b)) return false;
  for (int64_t i = 0; i < x.size(); ++i) {
    bool same = isFloat(t.dtype)         ? x.getDouble(i) == y.getDouble(i)
                : isUnsignedInt(t.dtype) ? x.getUInt(i) == y.getUInt(i)
                                         : x.getInt(i) == y.getInt(i);
    if (!same) return false;
  }
  return true;
}

bool sameValue(const Value& a, const Value& b, Span span) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case ValueKind::Array: return sameArray(*a.array, *b.array, span);
    case ValueKind::Tuple:
      if (a.elems->size() != b.elems->size()) return false;
      for (size_t i = 0; i < a.elems->size(); ++i)
        if (!sameValue((*a.elems)[i], (*b.elems)[i], span)) return false;
      return true;
    case ValueKind::None: return true;
    case ValueKind::String: return a.str == b.str;
    case ValueKind::Closure: return a.closure == b.closure;
    case ValueKind::Builtin: return a.builtin == b.builtin;
    case ValueKind::Vmap: return a.vmap == b.vmap;
    case ValueKind::DType: return a.dtype == b.dtype;
  }
  return false;
}
}  // namespace

Value Evaluator::evalBinary(const BinaryExpr& e, const std::shared_ptr<Env>& env) {
  Value lv = eval(*e.lhs, env);
  Value rv = eval(*e.rhs, env);
  const char* sp = spelling(e.op);
  if ((e.op == BinaryOp::Eq || e.op == BinaryOp::Ne) && !lv.isArray() && !rv.isArray()) {
    bool eq = sameValue(lv, rv, e.span);  // Note [Comparing values]
    return Value::ofArray(strongScalar(DType::Bool, (e.op == BinaryOp::Eq) == eq));
  }
  if (e.op == BinaryOp::Add && lv.isTuple() && rv.isTuple()) {  // tuple concatenation
    std::vector<Value> xs = *lv.elems;
    xs.insert(xs.end(), rv.elems->begin(), rv.elems->end());
    return Value::ofTuple(std::move(xs));  // no deeper than the operands
  }
  AVal a = toArray(lv, e.lhs->span, sp), b = toArray(rv, e.rhs->span, sp);
  Span s = e.span;
  switch (e.op) {
    case BinaryOp::Add: return Value::ofArray(ops_.binary(Op::Add, a, b, s, "add"));
    case BinaryOp::Sub: return Value::ofArray(ops_.binary(Op::Sub, a, b, s, "sub"));
    case BinaryOp::Mul: return Value::ofArray(ops_.binary(Op::Mul, a, b, s, "mul"));
    case BinaryOp::Div: return Value::ofArray(ops_.trueDivide(a, b, s));
    case BinaryOp::FloorDiv: return Value::ofArray(ops_.binary(Op::FloorDiv, a, b, s, "floor_divide"));
    case BinaryOp::Mod: return Value::ofArray(ops_.binary(Op::Rem, a, b, s, "remainder"));
    case BinaryOp::Pow: return Value::ofArray(ops_.binary(Op::Pow, a, b, s, "pow"));
    case BinaryOp::MatMul: return Value::ofArray(ops_.matmul(a, b, s));
    case BinaryOp::Eq: return Value::ofArray(ops_.binary(Op::Eq, a, b, s, "=="));
    case BinaryOp::Ne: return Value::ofArray(ops_.binary(Op::Ne, a, b, s, "!="));
    case BinaryOp::Lt: return Value::ofArray(ops_.binary(Op::Lt, a, b, s, "<"));
    case BinaryOp::Le: return Value::ofArray(ops_.binary(Op::Le, a, b, s, "<="));
    case BinaryOp::Gt: return Value::ofArray(ops_.binary(Op::Gt, a, b, s, ">"));
    case BinaryOp::Ge: return Value::ofArray(ops_.binary(Op::Ge, a, b, s, ">="));
    case BinaryOp::And: return Value::ofArray(ops_.logical(Op::And, a, b, s));
    case BinaryOp::Or: return Value::ofArray(ops_.logical(Op::Or, a, b, s));
  }
  return Value::none();
}

Value Evaluator::evalAttr(const AttrExpr& e, const std::shared_ptr<Env>& env) {
  Value base = eval(*e.base, env);
  if (!base.isArray())
    fail("E0214", e.span, "`." + e.attr + "` needs an array, got " + describe(base));
  const AVal& a = *base.array;
  if (e.attr == "shape") {
    std::vector<Value> dims;
    for (int64_t d : a.type.shape) dims.push_back(Value::ofArray(weakInt(d)));
    return Value::ofTuple(std::move(dims));
  }
  if (e.attr == "ndim") return Value::ofArray(weakInt(static_cast<int64_t>(a.type.shape.size())));
  if (e.attr == "size") return Value::ofArray(weakInt(numElements(a.type.shape)));
  if (e.attr == "dtype") return Value::ofDType(surfaceType(a).dtype);
  if (e.attr == "T") {
    std::vector<int64_t> perm;
    for (size_t i = a.type.shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    return Value::ofArray(ops_.transpose(a, perm, e.span));
  }
  fail("E0214", e.span, "arrays have no attribute `" + e.attr + "`",
       "available: .shape .ndim .size .dtype .T");
}

Value Evaluator::evalCall(const CallExpr& e, const std::shared_ptr<Env>& env) {
  Value callee = eval(*e.callee, env);
  CallArgs args;
  args.span = e.span;
  for (const Argument& a : e.args) {
    if (a.keyword.empty()) {
      args.pos.push_back(eval(*a.value, env));
      args.posSpans.push_back(a.value->span);
    } else {
      for (const auto& kv : args.kw)
        if (kv.first == a.keyword)
          fail("E0215", a.keywordSpan, "keyword argument `" + a.keyword + "` given twice");
      args.kw.emplace_back(a.keyword, eval(*a.value, env));
      args.kwSpans.push_back(a.keywordSpan.to(a.value->span));
    }
  }
  if (!callee.isCallable())
    fail("E0216", e.callee->span, describe(callee) + " is not callable");
  try {
    return call(callee, args);
  } catch (UserError& err) {
    // Errors raised below the language (an allocation, a shape overflow) have no location of
    // their own: they belong to the innermost call that caused them.
    if (!err.diag.span.valid() && err.diag.code != "E9999") err.diag.span = e.span;
    throw;
  }
}

// ---------------------------------------------------------------- indexing

Value Evaluator::evalIndex(const IndexExpr& e, const std::shared_ptr<Env>& env) {
  Value base = eval(*e.base, env);
  if (base.isTuple()) {
    if (e.items.size() != 1 || e.items[0].isSlice)
      fail("E0217", e.span, "a tuple takes one integer index");
    AVal i = toArray(eval(*e.items[0].index, env), e.items[0].span, "tuple index");
    int64_t k = staticInt(i, StaticUse::TupleIndex, e.items[0].span, "");
    int64_t n = static_cast<int64_t>(base.elems->size());
    if (k < -n || k >= n)
      fail("E0217", e.items[0].span, "tuple index " + std::to_string(k) + " out of range for a tuple of " + std::to_string(n));
    return (*base.elems)[static_cast<size_t>(k < 0 ? k + n : k)];
  }
  AVal x = toArray(base, e.base->span, "indexing");
  // Pass 1: basic indexing (static ints, slices, None) through slice + reshape; traced integer
  // indices collected for a dynamic_slice.
  const Shape& shape = x.type.shape;
  size_t consumed = 0;
  for (const IndexItem& it : e.items)
    if (it.isSlice || it.index->kind != ExprKind::None) ++consumed;
  if (consumed > shape.size())
    fail("E0217", e.span, "too many indices: " + std::to_string(consumed) + " for an array of rank " +
                              std::to_string(shape.size()) + " " + shapeString(shape));
  size_t rank = shape.size();
  std::vector<int64_t> starts(rank, 0), limits = shape, strides(rank, 1);
  std::vector<std::optional<AVal>> dynStart(rank);
  std::vector<bool> dropped(rank, false);
  std::vector<int64_t> newAxes;  // positions (in output dims) of None
  size_t dim = 0, outDim = 0;
  for (const IndexItem& it : e.items) {
    if (!it.isSlice && it.index->kind == ExprKind::None) {
      newAxes.push_back(static_cast<int64_t>(outDim++));
      continue;
    }
    int64_t n = shape[dim];
    if (it.isSlice) {
      auto bound = [&](const ExprPtr& p, int64_t dflt) -> int64_t {
        if (!p) return dflt;
        AVal v = toArray(eval(*p, env), p->span, "slice");
        return staticInt(v, StaticUse::SliceBound, p->span, "");
      };
      int64_t step = bound(it.step, 1);
      if (step <= 0)
        fail("E0218", it.span, "slice step must be positive, got " + std::to_string(step),
             "use `flip(x, axis)` to reverse");
      int64_t lo = bound(it.start, 0), hi = bound(it.stop, n);
      if (lo < 0) lo += n;
      if (hi < 0) hi += n;
      lo = std::clamp<int64_t>(lo, 0, n);
      hi = std::clamp<int64_t>(hi, lo, n);
      starts[dim] = lo;
      limits[dim] = hi;
      strides[dim] = step;
      ++dim;
      ++outDim;
      continue;
    }
    AVal idx = toArray(eval(*it.index, env), it.span, "index");
    if (idx.type.shape.size() != 0 || !(isInteger(idx.type.dtype)))
      fail("E0217", it.span, "an index must be an integer scalar, got " + surfaceTypeString(idx),
           "gather by an integer array is not supported yet; use a `for` loop or `vmap`");
    if (idx.isStatic()) {
      int64_t k = idx.concrete->getInt(0);
      if (k < -n || k >= n)
        fail("E0219", it.span, "index " + std::to_string(k) + " is out of bounds for axis " +
                                   std::to_string(dim) + " with size " + std::to_string(n));
      if (k < 0) k += n;
      starts[dim] = k;
      limits[dim] = k + 1;
    } else {
      dynStart[dim] = idx;
    }
    dropped[dim] = true;
    ++dim;
  }
  AVal r = x;
  bool anyDyn = false;
  for (auto& d : dynStart) anyDyn = anyDyn || d.has_value();
  bool trivial = true;
  for (size_t d = 0; d < rank; ++d)
    trivial = trivial && starts[d] == 0 && limits[d] == shape[d] && strides[d] == 1;
  if (!trivial) r = ops_.slice(r, starts, limits, strides, e.span);
  if (anyDyn) {
    // Negative traced indices wrap as in NumPy; out-of-range ones clamp (dynamic_slice semantics).
    std::vector<AVal> in{r};
    Attrs at;
    at.shape = r.type.shape;
    for (size_t d = 0; d < rank; ++d) {
      if (dynStart[d]) {
        AVal k = ops_.convert(*dynStart[d], DType::I32, e.span);
        AVal n = strongScalar(DType::I32, static_cast<double>(shape[d]));
        AVal neg = ops_.binary(Op::Lt, k, weakInt(0), e.span, "index");
        k = ops_.select(neg, ops_.binary(Op::Add, k, n, e.span, "index"), k, e.span);
        in.push_back(k);
        at.shape[d] = 1;
      } else {
        in.push_back(strongScalar(DType::I32, 0));
      }
    }
    r = tracer_.apply1(Op::DynamicSlice, in, at, e.span);
    r.weak = x.weak;
  }
  Shape out;
  for (size_t d = 0; d < rank; ++d)
    if (!dropped[d]) out.push_back(r.type.shape[d]);
  for (int64_t a : newAxes) out.insert(out.begin() + std::min<int64_t>(a, out.size()), 1);
  return Value::ofArray(ops_.reshape(r, out, e.span));
}

// ---------------------------------------------------------------- calls

Value Evaluator::call(const Value& callee, CallArgs& args) {
  switch (callee.kind) {
    case ValueKind::Closure: return callClosure(callee.closure, args);
    case ValueKind::Builtin: return callee.builtin->fn(*this, args);
    case ValueKind::Vmap: return callVmap(*callee.vmap, args);
    case ValueKind::DType: {
      if (args.pos.size() != 1 || !args.kw.empty())
        fail("E0220", args.span, std::string(dtypeName(callee.dtype)) + "(x) takes one argument");
      if (args.pos[0].kind == ValueKind::String)  // i32(args[0]): a number from text
        return Value::ofArray(parseNumberText(args.pos[0].str, callee.dtype, false, args.posSpans[0], dtypeName(callee.dtype)));
      AVal x = toArray(args.pos[0], args.posSpans[0], dtypeName(callee.dtype));
      return Value::ofArray(ops_.cast(x, callee.dtype, args.span));
    }
    case ValueKind::Array: case ValueKind::Tuple: case ValueKind::None: case ValueKind::String:
      break;
  }
  fail("E0216", args.span, describe(callee) + " is not callable");
}

std::vector<Value> Evaluator::bindParams(const Closure& c, CallArgs& args) {
  const auto& params = *c.params;
  std::vector<std::optional<Value>> bound(params.size());
  std::vector<Span> spans(params.size(), args.span);
  if (args.pos.size() > params.size())
    fail("E0220", args.span,
         "`" + c.name + "` takes " + std::to_string(params.size()) + " argument" +
             (params.size() == 1 ? "" : "s") + " but " + std::to_string(args.pos.size()) + " were given");
  for (size_t i = 0; i < args.pos.size(); ++i) {
    bound[i] = args.pos[i];
    if (i < args.posSpans.size()) spans[i] = args.posSpans[i];
  }
  for (size_t k = 0; k < args.kw.size(); ++k) {
    size_t i = 0;
    while (i < params.size() && params[i].name != args.kw[k].first) ++i;
    if (i == params.size())
      fail("E0221", args.kwSpans[k], "`" + c.name + "` has no parameter `" + args.kw[k].first + "`");
    if (bound[i]) fail("E0215", args.kwSpans[k], "argument `" + args.kw[k].first + "` given twice");
    bound[i] = args.kw[k].second;
    spans[i] = args.kwSpans[k];
  }
  std::vector<Value> out;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!bound[i])
      fail("E0220", args.span, "`" + c.name + "` is missing the argument `" + params[i].name + "`");
    out.push_back(*bound[i]);
  }
  // Static parameters need static values: checked here, once, for both call paths.
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i].isStatic) continue;
    std::vector<AVal> leaves;
    TreeDef def;
    Span argSpan = spans[i];
    if (out[i].isArray() || out[i].isTuple()) {
      flatten(out[i], leaves, def, argSpan, "a static argument");
      for (const AVal& l : leaves)
        concreteOrError(l, StaticUse::StaticParam, argSpan, "`" + params[i].name + "` of `" + c.name + "`");
    }
  }
  return out;
}

Value Evaluator::callClosure(const std::shared_ptr<Closure>& c, CallArgs& args) {
  std::vector<Value> bound = bindParams(*c, args);
  if (tracer_.tracing()) return inlineClosure(*c, std::move(bound));
  return callCompiled(c, std::move(bound), args.span);
}

Value Evaluator::inlineClosure(const Closure& c, std::vector<Value> bound) {
  if (++depth_ > kMaxCallDepth) {
    depth_ = 0;
    fail("E0104", c.span, "calls nest deeper than " + std::to_string(kMaxCallDepth) +
                              " levels while tracing `" + c.name + "` (recursion?)",
         "functions are inlined when traced; recursion needs a static base case, or use "
         "`while_loop` / `scan`");
  }
  struct DepthGuard {
    int& d;
    ~DepthGuard() { if (d > 0) --d; }
  } guard{depth_};
  Running running{running_, c.program};
  auto scope = std::make_shared<Env>(c.env, true);
  ScopeEnd end{scopes_, scope};
  for (size_t i = 0; i < bound.size(); ++i)
    if ((*c.params)[i].name != "_") scope->define((*c.params)[i].name, bound[i]);
  try {
    return eval(*c.body, scope);
  } catch (const UserError&) {
    keepForError(c.program);  // the closure may be a temporary that the unwinding frees
    throw;
  }
}

namespace {

// The part of a signature one argument contributes to the compile-cache key.
void keyOf(const Value& v, bool isStatic, std::ostringstream& key) {
  switch (v.kind) {
    case ValueKind::Array: {
      const AVal& a = *v.array;
      key << typeString(a.type) << (a.weak ? "w" : "");
      if (isStatic) key << "=" << formatArray(*a.concrete);
      key << ";";
      return;
    }
    case ValueKind::Tuple:
      key << "(";
      for (const Value& x : *v.elems) keyOf(x, isStatic, key);
      key << ")";
      return;
    case ValueKind::None: key << "None;"; return;
    case ValueKind::String: key << "s:" << v.str << ";"; return;
    case ValueKind::Closure: key << "fn@" << v.closure.get() << ";"; return;
    case ValueKind::Builtin: key << "b:" << v.builtin->name << ";"; return;
    case ValueKind::Vmap: key << "vmap@" << v.vmap.get() << ";"; return;
    case ValueKind::DType: key << "dt:" << dtypeName(v.dtype) << ";"; return;
  }
}

}  // namespace

Value Evaluator::callCompiled(const std::shared_ptr<Closure>& closure, std::vector<Value> bound, Span span) {
  const Closure& c = *closure;
  const auto& params = *c.params;
  std::ostringstream keyStream;
  for (size_t i = 0; i < bound.size(); ++i) {
    if (!params[i].isStatic && (bound[i].isArray() || bound[i].isTuple())) {
      std::vector<AVal> leaves;
      TreeDef def;
      flatten(bound[i], leaves, def, span, "a function argument");
      std::vector<AVal> dl;
      for (AVal& l : leaves) dl.push_back(defaultize(l, span));
      size_t pos = 0;
      bound[i] = unflatten(def, dl, pos);
    }
    keyOf(bound[i], params[i].isStatic, keyStream);
  }
  std::string key = keyStream.str();
  CallRecord rec;
  rec.fn = c.name;
  auto& perFn = cacheOf(closure).entries;
  auto it = perFn.find(key);
  if (it != perFn.end() && (!capturesUnchanged(it->second.captured) || !keyedAlive(it->second))) {
    perFn.erase(it);  // a captured outer variable was rebound: its new value must be seen
    it = perFn.end();
  }
  if (it == perFn.end()) {
    auto t0 = std::chrono::steady_clock::now();
    // Record every outer variable the body reads (Note [Captured variables]).
    CaptureLog log;
    for (const Env* e = c.env.get(); e; e = e->parent().get()) log.outer.insert(e);
    CaptureLog* savedLog = captures_;
    captures_ = &log;
    struct Restore {
      CaptureLog*& slot;
      CaptureLog* saved;
      ~Restore() { slot = saved; }
    } restore{captures_, savedLog};
    Trace trace(nullptr, c.name);
    std::vector<Value> abstractArgs;
    std::vector<int> paramVars;
    for (size_t i = 0; i < bound.size(); ++i) {
      if (params[i].isStatic || !(bound[i].isArray() || bound[i].isTuple())) {
        abstractArgs.push_back(bound[i]);
        continue;
      }
      std::vector<AVal> leaves;
      TreeDef def;
      flatten(bound[i], leaves, def, span, "a function argument");
      auto origin = std::make_shared<Origin>();
      origin->paramName = params[i].name;
      origin->fnName = c.name;
      origin->declSpan = params[i].span;
      origin->description = "the parameter `" + params[i].name + "` of `" + c.name + "`";
      std::vector<AVal> abs;
      for (const AVal& l : leaves) {
        abs.push_back(trace.newParam(l.type, l.weak, origin));
        paramVars.push_back(abs.back().var);
      }
      size_t pos = 0;
      abstractArgs.push_back(unflatten(def, abs, pos));
    }
    Value result;
    tracer_.withTrace(trace, [&] { result = inlineClosure(c, abstractArgs); });
    if (!isPytree(result)) {
      // A function that returns functions (a combinator such as `|f| |v| f(f(v))`) has nothing
      // to compile: it runs eagerly, as Python code around jax.jit would.
      return inlineClosure(c, bound);
    }
    std::vector<AVal> outLeaves;
    TreeDef outTree;
    flatten(result, outLeaves, outTree, c.span, "a function result");
    std::vector<int> results;
    std::vector<bool> outWeak;
    // A static weak result materialises at its default dtype; E0228 points at the result.
    Span resultSpan = c.body->span;
    if (c.body->kind == ExprKind::Block) {
      const auto& block = static_cast<const BlockExpr&>(*c.body);
      if (block.result) resultSpan = block.result->span;
    }
    tracer_.withTrace(trace, [&] {
      for (const AVal& l : outLeaves) {
        results.push_back(tracer_.varOf(defaultize(l, resultSpan)));
        outWeak.push_back(l.weak);
      }
    });
    SCN_ASSERT(trace.captured().empty(), "top-level trace captured values");
    trace.finish(paramVars, results);
    std::string err = verify(trace.func());
    if (!err.empty()) internalError("IR of `" + c.name + "` fails verification: " + err);
    rec.traced = true;
    rec.traceMs = msSince(t0);
    // Function-valued arguments are keyed by identity (Note [Cache lifetime]).
    std::vector<std::weak_ptr<const void>> keyed;
    for (const Value& b : bound)
      if (b.isCallable() && payload(b)) keyed.push_back(payload(b));
    sweepCache();
    it = perFn.emplace(key, Compiled{trace.funcPtr(), outTree, outWeak, std::move(log.deps), std::move(keyed)}).first;
  }
  // Run: flatten the non-static arguments in parameter order.
  std::vector<Array> in;
  for (size_t i = 0; i < bound.size(); ++i) {
    if (params[i].isStatic || !(bound[i].isArray() || bound[i].isTuple())) continue;
    std::vector<AVal> leaves;
    TreeDef def;
    flatten(bound[i], leaves, def, span, "a function argument");
    for (const AVal& l : leaves) in.push_back(*l.concrete);
  }
  std::vector<Array> out = host_.run(it->second.func, in, &rec);
  records_.push_back(rec);
  std::vector<AVal> leaves;
  for (size_t i = 0; i < out.size(); ++i) leaves.push_back(AVal::of(std::move(out[i]), false));
  size_t pos = 0;
  return unflatten(it->second.outTree, leaves, pos);
}

// Note [Cache lifetime]
// The compile cache is keyed by the closure's address and by the addresses of function-valued
// arguments (`apply(|a| a * 2, x)`), but it does not keep them alive: a closure made in a loop
// body would otherwise be pinned forever, with its scope and every array the scope binds. It
// holds weak references instead. Once one of them is gone, its address may be reused by
// another function, so an entry whose closure or keyed function died is never used (cacheOf,
// keyedAlive), and each new trace sweeps the dead entries out (sweepCache).
Evaluator::FnCache& Evaluator::cacheOf(const std::shared_ptr<Closure>& closure) {
  FnCache& fc = cache_[closure.get()];
  if (fc.closure.expired()) {  // new, or left by a dead closure at the same address
    fc.entries.clear();
    fc.closure = closure;
  }
  return fc;
}

bool Evaluator::keyedAlive(const Compiled& entry) {
  for (const std::weak_ptr<const void>& k : entry.keyedFunctions)
    if (k.expired()) return false;
  return true;
}

void Evaluator::sweepCache() {
  for (auto fn = cache_.begin(); fn != cache_.end();) {
    if (fn->second.closure.expired()) {
      fn = cache_.erase(fn);
      continue;
    }
    auto& entries = fn->second.entries;
    for (auto e = entries.begin(); e != entries.end();) e = keyedAlive(e->second) ? std::next(e) : entries.erase(e);
    ++fn;
  }
}

// Note [Captured variables]
// A function body may read variables of enclosing scopes (globals, the REPL's definitions);
// their values are baked into the trace as constants. Each cache entry remembers which
// variables it read and which value each held; a later call whose captured variable was
// rebound (`scale = 2.0`, or a new `let scale`) traces again instead of returning stale
// results (a JAX footgun we do not copy).
bool Evaluator::capturesUnchanged(const std::vector<CaptureDep>& deps) const {
  for (const CaptureDep& d : deps) {
    const Env* where = nullptr;
    const Value* v = d.env->lookup(d.name, &where);
    if (!v || where != d.env || identity(*v) != d.identity) return false;
    if (d.owned && d.held.expired()) return false;  // another value took the old one's address
  }
  return true;
}

Evaluator::Traced Evaluator::traceFunction(const Value& fn, const std::vector<Value>& abstractArgs,
                                           Span span, const std::string& name,
                                           const std::string& originWhat) {
  return traceBody(
      [&](const std::vector<Value>& params) {
        CallArgs args;
        args.pos = params;
        args.posSpans.assign(params.size(), span);
        args.span = span;
        return call(fn, args);
      },
      abstractArgs, span, name, originWhat);
}

Evaluator::Traced Evaluator::traceBody(const std::function<Value(const std::vector<Value>&)>& body,
                                       const std::vector<Value>& abstractArgs, Span span,
                                       const std::string& name, const std::string& originWhat) {
  Traced t;
  t.trace = std::make_unique<Trace>(tracer_.current(), name);
  std::vector<Value> params;
  std::vector<int> paramVars;
  auto origin = std::make_shared<Origin>();
  origin->description = originWhat;
  origin->declSpan = span;
  for (const Value& a : abstractArgs) {
    std::vector<AVal> leaves;
    TreeDef def;
    flatten(a, leaves, def, span, name.c_str());
    std::vector<AVal> abs;
    for (const AVal& leaf : leaves) {
      AVal l = defaultize(leaf, span);
      abs.push_back(t.trace->newParam(l.type, l.weak, l.origin ? l.origin : origin));
      paramVars.push_back(abs.back().var);
    }
    size_t pos = 0;
    params.push_back(unflatten(def, abs, pos));
  }
  t.trace->func().params.clear();
  Value result;
  tracer_.withTrace(*t.trace, [&] {
    result = body(params);
    flatten(result, t.outLeaves, t.outTree, span, (name + " result").c_str());
    std::vector<int> results;
    for (AVal& l : t.outLeaves) results.push_back(tracer_.varOf(l));
    t.trace->finish(paramVars, results);
  });
  t.func = t.trace->funcPtr();
  return t;
}

Value Evaluator::callVmap(const VmapFn& v, CallArgs& args) {
  extern Value applyVmap(Evaluator & ev, const VmapFn& v, CallArgs& args);
  return applyVmap(*this, v, args);
}

}  // namespace scn
