// Evaluating expressions: literals, names (recording captures for the compile cache), tuples,
// operators and `==` of non-arrays (Note [Comparing values]), attributes, blocks, `if`, calls.
#include "lang/eval.hpp"

#include "base/diagnostics.hpp"
#include "lang/eval_internal.hpp"

namespace scn {

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

}  // namespace scn
