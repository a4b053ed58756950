// Evaluating expressions: literals, names (recording captures for the compile cache), tuples,
// operators and `==` of non-arrays (Note [Comparing values]), attributes, blocks, `if`, calls.
#include "lang/eval.hpp"

#include <limits>
#include <optional>

#include "base/diagnostics.hpp"
#include "lang/eval_internal.hpp"
#include "lang/name_hints.hpp"
#include "lang/methods.hpp"
#include "lang/namespaces.hpp"

namespace scn {

namespace {
// `pi`, `e`, `inf`, `nan` as jnp.pi ...: weakly typed float scalars (Python floats in JAX), so
// `x * pi` keeps x's dtype. Looked up after the environment, so a binding shadows them.
std::optional<double> namedConstant(const std::string& name) {
  if (name == "pi") return 3.141592653589793;
  if (name == "e") return 2.718281828459045;
  if (name == "inf") return std::numeric_limits<double>::infinity();
  if (name == "nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}
}  // namespace

Value Evaluator::eval(const Expr& e, const std::shared_ptr<Env>& env) {
  switch (e.kind) {
    case ExprKind::Number: {
      const auto& n = static_cast<const NumberExpr&>(e);
      if (n.suffix == "j" || n.suffix == "J") return Value::ofArray(weakComplex(0.0, n.floatValue));
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
      if (auto c = namedConstant(n.name)) return Value::ofArray(weakFloat(*c));
      auto it = builtins().find(n.name);
      if (it != builtins().end()) return Value::ofBuiltin(it->second);
      fail("E0106", e.span, "unknown name `" + n.name + "`", unknownNameHelp(n.name, *env));
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
    case ExprKind::List: return evalList(static_cast<const ListExpr&>(e), env);
    case ExprKind::Unary: {
      const auto& u = static_cast<const UnaryExpr&>(e);
      AVal x = toArray(eval(*u.operand, env), u.operand->span, spelling(u.op));
      if (u.op == UnaryOp::Neg) return Value::ofArray(ops_.unary(Op::Neg, x, e.span));
      if (u.op == UnaryOp::Invert) return Value::ofArray(ops_.invert(x, e.span, "~"));
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

// Note [Array literals]
// `[a, b, ...]` is `jnp.array([a, b, ...])`: the elements are arrays of one shape (a nested
// list is an array itself), stacked along a new first axis with concat's promotion, so a weak
// element takes a strong one's dtype and `[1, 2.0]` is f32. Like jnp.array's, the result is
// strongly typed at the default dtype (`[1, 2]` is i32, and `[1, 2] * x_i64` is i64 by
// promotion, not by weakness). Traced elements stage the stack (a literal inside a `fn` may hold
// parameters); static ones fold, so `[n, 3]` of a static `n` is a static shape. `[]` is f32[0].
// A literal of weak numbers (nested ones too) keeps its values as written beside the result
// (AVal::literal), so that `array([0.1, 2**40], dtype=f64)` converts them exactly, as
// jnp.array with an explicit dtype does under x64, instead of through f32 (or failing on an
// integer past i32). The literals written as `array`'s argument are not even stacked
// (evalCall: `listRows`): array gets their rows, nested ones too, as a tuple of the elements as
// written, and converts each element to its `dtype=` before stacking, as jnp.array does, so
// `array([x_i32, 3000000000], dtype=i64)` and `array([x_f32, 0.1], dtype=f64)` are exact;
// without a dtype the elements promote as here (E0228 for an integer past i32, as JAX's
// OverflowError without x64).
namespace {
[[noreturn]] void failRagged(const ListExpr& e, size_t row, const Shape& first, const Shape& got) {
  std::string message =
      first.size() == 1 && got.size() == 1
          ? "ragged array literal: row " + std::to_string(row) + " has length " +
                std::to_string(got[0]) + ", but row 0 has length " + std::to_string(first[0])
          : "ragged array literal: element " + std::to_string(row) + " has shape " +
                shapeString(got) + ", but element 0 has shape " + shapeString(first);
  fail("E0250", e.elems[row]->span, message,
       "every element of an array literal must have the same shape; pad the short rows, or "
       "join arrays of different lengths with `concat`",
       {DiagNote{e.elems[0]->span, "row 0 is here"}});
}

// The shape an element of a literal's rows has: an array's, or of a tuple of rows (n, first...).
Shape rowShapeOf(const Value& v, Span span) {
  if (!v.isTuple()) return toArray(v, span, "an array literal").type.shape;
  Shape s{static_cast<int64_t>(v.elems->size())};
  if (v.elems->empty()) return s;
  Shape inner = rowShapeOf(v.elems->front(), span);
  s.insert(s.end(), inner.begin(), inner.end());
  return s;
}
}  // namespace

Value Evaluator::evalListRows(const ListExpr& e, const std::shared_ptr<Env>& env) {
  if (e.elems.empty()) return evalList(e, env);
  std::vector<Value> rows;
  Shape first;
  for (size_t i = 0; i < e.elems.size(); ++i) {
    const Expr& elem = *e.elems[i];
    Value v = elem.kind == ExprKind::List ? evalListRows(static_cast<const ListExpr&>(elem), env) : eval(elem, env);
    Shape shape = rowShapeOf(v, elem.span);
    if (i == 0) first = shape;
    else if (shape != first) failRagged(e, i, first, shape);
    rows.push_back(std::move(v));
  }
  return Value::ofTuple(std::move(rows));
}

Value Evaluator::evalList(const ListExpr& e, const std::shared_ptr<Env>& env) {
  if (e.elems.empty()) return Value::ofArray(AVal::of(Array(DType::F32, {0})));
  std::vector<AVal> rows;
  Shape rowShape;
  bool asWritten = true;  // every element a weak static number or a literal of them
  for (size_t i = 0; i < e.elems.size(); ++i) {
    AVal x = toArray(eval(*e.elems[i], env), e.elems[i]->span, "an array literal");
    if (i == 0) rowShape = x.type.shape;
    else if (x.type.shape != rowShape) failRagged(e, i, rowShape, x.type.shape);
    if (const Array* written = x.literalValues()) x = AVal::of(*written, true);
    asWritten = asWritten && x.weak && x.isStatic();
    rows.push_back(ops_.expandDims(x, 0, e.elems[i]->span));
  }
  AVal r = rows.size() == 1 ? rows[0] : ops_.concat(std::move(rows), 0, e.span);
  std::optional<Array> written;
  if (asWritten && r.weak && r.isStatic()) written = *r.concrete;
  r = defaultize(std::move(r), e.span);
  r.weak = false;
  if (written) r.literal = std::make_shared<const AVal::Literal>(AVal::Literal{r.concrete->raw(), std::move(*written)});
  return Value::ofArray(std::move(r));
}

namespace {
// Note [Comparing values]
// `==` of two values that are not arrays (tuples, None, strings, functions, dtypes; an array
// beside one of them is E0208, except beside None: `b == None` tests for a default) asks whether
// they are the same value, at trace time, giving a static bool: the same kind and structure, arrays of the same type (dtype and shape as the
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
  bool againstNone = lv.isNone() || rv.isNone();  // `b == None`: a static bool, arrays included
  if ((e.op == BinaryOp::Eq || e.op == BinaryOp::Ne) && ((!lv.isArray() && !rv.isArray()) || againstNone)) {
    bool eq = sameValue(lv, rv, e.span);  // Note [Comparing values]
    return Value::ofArray(strongScalar(DType::Bool, (e.op == BinaryOp::Eq) == eq));
  }
  if (e.op == BinaryOp::Mul && (lv.isTuple() != rv.isTuple()) && (lv.isArray() || rv.isArray())) {
    // (1,) * 3: the tuple repeated, as Python's (a shape of ones)
    const Value& t = lv.isTuple() ? lv : rv;
    const ExprPtr& countExpr = lv.isTuple() ? e.rhs : e.lhs;
    int64_t count = staticInt(*(lv.isTuple() ? rv : lv).array, StaticUse::Other, countExpr->span, "a tuple's repeat count");
    if (count > 0 && static_cast<uint64_t>(count) * t.elems->size() > (1u << 20))
      fail("E0402", e.span, "a tuple of " + std::to_string(t.elems->size()) + " repeated " + std::to_string(count) +
                                " times is too long", "tuples hold shapes and a few values; use an array (`full`, `tile`)");
    std::vector<Value> xs;
    for (int64_t k = 0; k < count; ++k) xs.insert(xs.end(), t.elems->begin(), t.elems->end());
    return Value::ofTuple(std::move(xs));
  }
  if (e.op == BinaryOp::Add && lv.isTuple() && rv.isTuple()) {  // tuple concatenation
    std::vector<Value> xs = *lv.elems;
    xs.insert(xs.end(), rv.elems->begin(), rv.elems->end());
    return Value::ofTuple(std::move(xs));  // no deeper than the operands
  }
  return arrayOperator(e.op, toArray(lv, e.lhs->span, sp), toArray(rv, e.rhs->span, sp), e.span);
}

Value Evaluator::arrayOperator(BinaryOp op, const AVal& a, const AVal& b, Span s) {
  switch (op) {
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
    case BinaryOp::BitAnd: return Value::ofArray(ops_.bitwise(Op::And, a, b, s, "&"));
    case BinaryOp::BitOr: return Value::ofArray(ops_.bitwise(Op::Or, a, b, s, "|"));
    case BinaryOp::BitXor: return Value::ofArray(ops_.bitwise(Op::Xor, a, b, s, "^"));
    case BinaryOp::Shl: return Value::ofArray(ops_.bitwise(Op::Shl, a, b, s, "<<"));
    case BinaryOp::Shr: return Value::ofArray(ops_.bitwise(Op::Shr, a, b, s, ">>"));
  }
  return Value::none();
}

Value Evaluator::evalAttr(const AttrExpr& e, const std::shared_ptr<Env>& env) {
  if (std::optional<Value> member = resolveModulePath(e, *env)) return *member;  // Note [Module namespaces]
  rejectModulePrefix(e, *env);  // `jnp.sum`: Note [Name hints]
  Value base = eval(*e.base, env);
  if (!base.isArray())
    fail("E0214", e.span, "`." + e.attr + "` needs an array, got " + describe(base),
         shadowedModuleHelp(e, *env).value_or(""));
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
  if (e.attr == "real" || e.attr == "imag") {  // as jax.Array's properties
    CallArgs args;
    args.pos = {base};
    args.posSpans = {e.base->span};
    args.span = e.span;
    return call(Value::ofBuiltin(builtins().at(e.attr)), args);
  }
  if (e.attr == "at")
    fail("E0247", e.span, "`x.at` must be indexed and updated: `x.at[i].set(v)`",
         "the methods of `x.at[...]` are .set(v) .add(v) .mul(v) .min(v) .max(v) and .get()");
  if (isArrayMethod(e.attr))
    fail("E0214", e.span, "`." + e.attr + "` is a method of arrays: call it, `x." + e.attr + "()`");
  fail("E0214", e.span, "arrays have no attribute `" + e.attr + "`",
       shadowedModuleHelp(e, *env).value_or(arrayMemberHelp(e.attr)));
}

CallArgs evalArguments(Evaluator& ev, const std::vector<Argument>& args, Span span, const std::shared_ptr<Env>& env,
                       bool listRows) {
  CallArgs c;
  c.span = span;
  for (const Argument& a : args) {
    if (a.keyword.empty()) {
      bool rows = listRows && a.value->kind == ExprKind::List;
      c.pos.push_back(rows ? ev.evalListRows(static_cast<const ListExpr&>(*a.value), env) : ev.eval(*a.value, env));
      c.posSpans.push_back(a.value->span);
    } else {
      c.kw.emplace_back(a.keyword, ev.eval(*a.value, env));
      c.kwSpans.push_back(a.keywordSpan.to(a.value->span));
    }
  }
  return c;
}

Value Evaluator::evalCall(const CallExpr& e, const std::shared_ptr<Env>& env) {
  return locatedAt(e.span, [&] { return evalCallHere(e, env); });
}

Value Evaluator::evalCallHere(const CallExpr& e, const std::shared_ptr<Env>& env) {
  std::optional<Value> member;  // `linalg.solve(a, b)` calls a module's member (Note [Module namespaces])
  if (e.callee->kind == ExprKind::Attr) {
    member = resolveModulePath(static_cast<const AttrExpr&>(*e.callee), *env);
    if (!member) return evalMethodCall(e, env);
  }
  Value callee = member ? *member : eval(*e.callee, env);
  // array(...) converts the elements of its list literals as written (Note [Array literals])
  bool listRows = (callee.kind == ValueKind::Builtin && callee.builtin->name == "array") || callee.kind == ValueKind::DType;
  CallArgs args = evalArguments(*this, e.args, e.span, env, listRows);
  if (!callee.isCallable())
    fail("E0216", e.callee->span, describe(callee) + " is not callable");
  return call(callee, args);
}

}  // namespace scn
