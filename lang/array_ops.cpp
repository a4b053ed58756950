// Promotion, weak types and broadcasting: the NumPy-level rules in front of the IR's strict ops.
#include "lang/array_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>

#include "base/diagnostics.hpp"

namespace scn {

// Note [Weak types]
// As in JAX, a literal without a suffix is weakly typed: `x * 2.0` keeps x's dtype. A static
// weak value is stored as i64 / f64 (a "Python number"); it takes the other operand's dtype when
// combined, and its default dtype (i32 / f32) when it stands alone (`defaultize`). Static
// arithmetic on weak values is exact at 64 bits (`2**40 // 2**20` is 1048576; leaving i64 is
// E0402), so only the value that finally materialises has to fit.
//
// Materialising. A weak integer materialises when it takes a concrete dtype: its default i32
// (`defaultize`: printing, a fn argument or result, a loop carry, `array`, `full`, a staged op,
// below) or the dtype of the array it meets (`convert`: `x_i32 + 2**40`, `x_u32 + (-1)`). If
// the value does not fit that dtype it is E0228 at the expression, as JAX raises OverflowError
// for a Python int too large for int32: never a silent wrap. Shapes, axes and lengths read the
// i64 storage directly (`staticInt`) and never materialise. Explicit conversions (`i32(x)`,
// `astype`; `cast`) are casts and wrap as documented. Weak floats are not checked: `1e300 * x`
// with an f32 `x` gives inf, as in JAX.
//
// Traced weak values always have the default dtype: a weak fn argument is traced after
// `defaultize`, and a staged op whose value operands are all weak (Tracer::apply, Note [Staging
// weak values] in tracer.cpp) materialises its static weak operands at their default dtype
// first, so its weak result is i32 / f32 like the eager result's surface type. Inside a fn
// `broadcast_to(k, (3,))` of a `static k` is i32[3], as at the top level. A weak operand that
// meets a strong one is converted to the strong dtype and made strong by the promotion
// (binary, select, concat, matmul), so that rule never narrows it: `x_i64 + 3` stays i64.
//
// The rule, in short: the result of an op is weak when its value operands are all weak; weak
// results are i32 / f32 wherever they are computed (static ones only show that dtype, staged
// ones have it); a weak operand next to a strong one takes the strong dtype, as before.

namespace {

int kindRank(DType t) {  // bool < integers < floats < complex
  if (t == DType::Bool) return 0;
  if (isInteger(t)) return 1;
  if (isComplex(t)) return 3;
  return 2;
}

DType promoteStrong(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if (isComplex(a) || isComplex(b))  // c128 next to f64 or c128 (as jnp), else c64
    return a == DType::C128 || b == DType::C128 || a == DType::F64 || b == DType::F64 ? DType::C128 : DType::C64;
  if (isFloat(a) || isFloat(b)) {  // two different floats: bf16 next to f16 is f32, as in JAX
    if (isFloat(a) && isFloat(b)) return (a == DType::F64 || b == DType::F64) ? DType::F64 : DType::F32;
    return isFloat(a) ? a : b;
  }
  // Two integer types. Same signedness: the wider one. Mixed: the smallest signed type holding
  // both, and i64 for u64 with a signed type (JAX goes to float there; we keep integers exact).
  if (isSignedInt(a) == isSignedInt(b))
    return dtypeSize(a) >= dtypeSize(b) ? a : b;
  return DType::I64;
}

}  // namespace

AVal weakInt(int64_t v) { return AVal::of(Array::scalarInt(DType::I64, v), true); }
AVal weakFloat(double v) { return AVal::of(Array::scalar(DType::F64, v), true); }
AVal strongScalar(DType t, double v) { return AVal::of(Array::scalar(t, v), false); }

DType defaultDType(DType storage) {
  return storage == DType::I64 ? DType::I32 : storage == DType::F64 ? DType::F32
         : storage == DType::C128 ? DType::C64 : storage;
}

bool fitsIn(int64_t v, DType t) {
  switch (t) {
    case DType::I32: return v >= INT32_MIN && v <= INT32_MAX;
    case DType::U32: return v >= 0 && v <= static_cast<int64_t>(UINT32_MAX);
    case DType::U64: return v >= 0;
    default: return true;  // i64, bool, floats and complex
  }
}

namespace {

// E0228 when a weak static integer materialises at an integer dtype that cannot hold one of its
// values (Note [Weak types]). `defaulting`: it stands alone and takes the default i32.
void checkWeakIntFits(const AVal& v, DType to, Span span, bool defaulting) {
  if (!v.weak || !v.isStatic() || !isInteger(v.type.dtype) || !isInteger(to)) return;
  const Array& a = *v.concrete;
  for (int64_t i = 0; i < a.size(); ++i) {
    int64_t x = a.getInt(i);
    if (fitsIn(x, to)) continue;
    std::string n = std::to_string(x);
    std::string where = a.size() == 1 ? "" : " (element " + std::to_string(i) + " of a weak " +
                                                 shapeString(a.shape) + " array)";
    if (defaulting)
      fail("E0228", span,
           "integer " + n + " does not fit in i32, the default integer type" + where,
           "a number without a suffix is i32 when it stands alone; give it a dtype that holds it: "
           "`i64(...)` around the expression, or an i64 literal such as `" + n + "i64`");
    fail("E0228", span,
         "integer " + n + " does not fit in " + dtypeName(to) +
             ", the dtype it takes here" + where,
         std::string("a number without a suffix takes the dtype of the array it meets (or of "
                     "`dtype=`); use a value ") + dtypeName(to) +
             " can hold, or convert the array to a wider dtype first (`i64(x)`)");
  }
}

}  // namespace

AVal defaultize(AVal v) {
  if (!v.weak || !v.isStatic() || !isInteger(v.type.dtype)) return defaultize(std::move(v), Span{});
  for (int64_t i = 0; i < v.concrete->size(); ++i)
    if (!fitsIn(v.concrete->getInt(i), DType::I32)) return v;
  return defaultize(std::move(v), Span{});
}

AVal defaultize(AVal v, Span span) {
  if (!v.weak || !v.isStatic()) return v;
  DType to = defaultDType(v.type.dtype);
  if (to == v.type.dtype) return v;
  checkWeakIntFits(v, to, span, true);
  Array out(to, v.type.shape);
  for (int64_t i = 0; i < out.size(); ++i) {
    if (to == DType::C64) {
      c128 z = v.concrete->data<c128>()[i];
      out.data<c64>()[i] = c64{static_cast<float>(z.re), static_cast<float>(z.im)};
    } else if (isFloat(to)) out.setDouble(i, v.concrete->getDouble(i));
    else out.setInt(i, v.concrete->getInt(i));
  }
  return AVal::of(std::move(out), true);
}

Type surfaceType(const AVal& v) {
  Type t = v.type;
  if (v.weak && v.isStatic()) t.dtype = defaultDType(t.dtype);
  return t;
}

std::string surfaceTypeString(const AVal& v) { return typeString(surfaceType(v)); }

DType promoteTypes(const AVal& a, const AVal& b) {
  DType ta = a.type.dtype, tb = b.type.dtype;
  if (a.weak && b.weak) {
    if (a.isStatic() != b.isStatic()) {  // a traced weak value fixes the width
      const AVal& traced = a.isStatic() ? b : a;
      const AVal& other = a.isStatic() ? a : b;
      if (kindRank(traced.type.dtype) >= kindRank(other.type.dtype)) return traced.type.dtype;
      return isComplex(other.type.dtype) ? DType::C64 : DType::F32;
    }
    return kindRank(ta) >= kindRank(tb) ? ta : tb;
  }
  if (a.weak || b.weak) {
    const AVal& weak = a.weak ? a : b;
    const AVal& strong = a.weak ? b : a;
    if (kindRank(weak.type.dtype) > kindRank(strong.type.dtype)) {
      // A weak complex takes a float array's precision (f64 -> c128, as jnp), else c64.
      if (isComplex(weak.type.dtype)) return complexOf(strong.type.dtype);
      return weak.type.dtype == DType::Bool ? strong.type.dtype
             : kindRank(weak.type.dtype) == 2 ? DType::F32 : DType::I32;
    }
    return strong.type.dtype;
  }
  return promoteStrong(ta, tb);
}

AVal ArrayOps::constant(Array a) { return AVal::of(std::move(a)); }

AVal ArrayOps::convert(const AVal& x, DType to, Span span) {
  checkWeakIntFits(x, to, span, false);
  checkComplexCast(x, to, span);
  if (x.type.dtype == to) return x;
  // A static weak value converted for promotion stays weak (Tracer::apply folds it: a host
  // number). A traced weak value has its default dtype; converted to any other dtype it is
  // meeting a strong operand, and is strong from here (Note [Staging weak values]).
  AVal in = x;
  if (!x.isStatic() && to != DType::I32 && to != DType::F32) in.weak = false;
  Attrs at;
  at.dtype = to;
  AVal r = t_.apply1(Op::Convert, {in}, at, span);
  r.weak = in.weak;
  return r;
}

AVal ArrayOps::cast(const AVal& x, DType to, Span span) {
  checkComplexCast(x, to, span);
  AVal r = x;
  if (x.type.dtype != to) {
    Attrs at;
    at.dtype = to;
    r = t_.apply1(Op::Convert, {x}, at, span);
  }
  r.weak = false;
  return r;
}

int64_t ArrayOps::normAxis(int64_t axis, size_t rank, Span span, const char* what) {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    fail("E0204", span,
         std::string(what) + " got axis " + std::to_string(axis) + " for an array of rank " +
             std::to_string(rank),
         rank == 0 ? "a scalar has no axes" : "axes go from " + std::to_string(-r) + " to " + std::to_string(r - 1));
  return axis < 0 ? axis + r : axis;
}

Shape ArrayOps::broadcastShapes(const std::vector<AVal>& xs, Span span, const char* what) {
  size_t rank = 0;
  for (const AVal& x : xs) rank = std::max(rank, x.type.shape.size());
  Shape out(rank, 1);
  for (const AVal& x : xs) {
    const Shape& s = x.type.shape;
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o == 1) {
        o = s[i];
        continue;
      }
      std::string shapes;
      for (size_t k = 0; k < xs.size(); ++k) shapes += (k ? ", " : "") + shapeString(xs[k].type.shape);
      fail("E0203", span, std::string(what) + " got incompatible shapes for broadcasting: " + shapes,
           "dimensions are compared from the right; each pair must be equal or one of them 1");
    }
  }
  return out;
}

AVal ArrayOps::broadcastTo(const AVal& x, const Shape& shape, Span span, const char* what) {
  if (x.type.shape == shape) return x;
  const Shape& s = x.type.shape;
  if (s.size() > shape.size())
    fail("E0203", span,
         std::string(what) + " cannot broadcast shape " + shapeString(s) + " to " + shapeString(shape));
  size_t off = shape.size() - s.size();
  Attrs at;
  at.shape = shape;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != shape[off + i] && s[i] != 1)
      fail("E0203", span,
           std::string(what) + " cannot broadcast shape " + shapeString(s) + " to " + shapeString(shape));
    at.axes.push_back(static_cast<int64_t>(off + i));
  }
  AVal r = t_.apply1(Op::BroadcastInDim, {x}, at, span);
  r.weak = x.weak;
  return r;
}

namespace {
// Host integers (weak static scalars: sizes, counts) are exact: arithmetic that leaves i64 is
// an error instead of wrapping into a wrong size.
constexpr const char* kHostIntHelp =
    "integers without a suffix are exact 64-bit host values; use a float (2.0**64) for a large number";

bool isHostInt(const AVal& v) {
  return v.weak && v.isStatic() && v.type.dtype == DType::I64 && v.type.shape.empty();
}

// The exact arithmetic of host integers: for each binary op whose i64 result can leave i64,
// `checked_<name>` (the op's name in ops.def) gives the operator and whether x op y overflows.
// checkedOp dispatches by the op table, as scalar::binary does; an op without a checked_
// function cannot overflow on host integers (a comparison, max, a bitwise op, a shift).
struct Checked {
  bool overflow;
  const char* symbol;
};
Checked checked_add(int64_t x, int64_t y) {
  int64_t r;
  return {__builtin_add_overflow(x, y, &r), "+"};
}
Checked checked_sub(int64_t x, int64_t y) {
  int64_t r;
  return {__builtin_sub_overflow(x, y, &r), "-"};
}
Checked checked_mul(int64_t x, int64_t y) {
  int64_t r;
  return {__builtin_mul_overflow(x, y, &r), "*"};
}
Checked checked_floordiv(int64_t x, int64_t y) { return {x == INT64_MIN && y == -1, "//"}; }
Checked checked_pow(int64_t x, int64_t y) {
  int64_t r = 1;
  bool overflow = false;
  for (int64_t k = 0; k < y && !overflow && r != 0; ++k) overflow = __builtin_mul_overflow(r, x, &r);
  return {overflow, "**"};
}
// Every op's checked_<name> as an overload no integer matches, so that checkedOp can ask.
struct NotChecked {};
#define OP(Enum, name, ...) void checked_##name(NotChecked) = delete;
#include "jit/ops.def"
#undef OP

template <typename Int>
std::optional<Checked> checkedOp(Op op, Int x, Int y) {
  switch (op) {
#define OP(Enum, name, ...) \
  case Op::Enum: if constexpr (requires { Checked{checked_##name(x, y)}; }) return checked_##name(x, y); break;
#include "jit/ops.def"
#undef OP
  }
  return std::nullopt;
}

void checkHostIntOverflow(Op op, const AVal& a, const AVal& b, Span span) {
  if (!(isHostInt(a) && isHostInt(b))) return;
  int64_t x = a.concrete->getInt(0), y = b.concrete->getInt(0);
  std::optional<Checked> c = checkedOp(op, x, y);
  if (c && c->overflow)
    fail("E0402", span,
         "integer overflow: " + std::to_string(x) + " " + c->symbol + " " +
             std::to_string(y) + " does not fit in a signed 64-bit integer",
         kHostIntHelp);
}
// -x and abs(x) of the host integer INT64_MIN have no i64 value either.
void checkHostIntNegation(Op op, const AVal& x, Span span) {
  if (!(op == Op::Neg || op == Op::Abs) || !isHostInt(x) || x.concrete->getInt(0) != INT64_MIN) return;
  fail("E0402", span,
       std::string("integer overflow: ") + (op == Op::Neg ? "-(" : "abs(") + std::to_string(INT64_MIN) +
           ") does not fit in a signed 64-bit integer",
       kHostIntHelp);
}
}  // namespace

AVal ArrayOps::binary(Op op, AVal a, AVal b, Span span, const char* what) {
  checkHostIntOverflow(op, a, b, span);
  DType t = promoteTypes(a, b);
  if (op == Op::Pow && isComplex(t)) return complexPow(a, b, span);
  if (TypeClass btc = opInfo(op).typeClass; (btc == TypeClass::Float || btc == TypeClass::FloatC) && !isFloat(t) && !isComplex(t))  // float math on integers, as unary
    t = (a.weak && b.weak && a.isStatic() && b.isStatic()) || t == DType::I64 || t == DType::U64 ? DType::F64 : DType::F32;
  bool weak = a.weak && b.weak;
  a = convert(a, t, span);
  b = convert(b, t, span);
  if (!weak) a.weak = b.weak = false;  // a weak operand that met a strong one takes its dtype
  Shape shape = broadcastShapes({a, b}, span, what);
  a = broadcastTo(a, shape, span, what);
  b = broadcastTo(b, shape, span, what);
  AVal r = t_.apply1(op, {a, b}, {}, span);
  r.weak = weak && opInfo(op).category != OpCategory::Compare;
  return r;
}

AVal ArrayOps::trueDivide(AVal a, AVal b, Span span) {
  DType t = promoteTypes(a, b);
  if (!isFloat(t) && !isComplex(t)) {
    bool wide = t == DType::I64 || t == DType::U64;
    // Two static weak numbers divide at f64 (Python numbers, shown as f32); a traced weak one has
    // the default width, so f32.
    bool hostNumbers = a.weak && b.weak && a.isStatic() && b.isStatic();
    DType f = (wide && !(a.weak && b.weak)) || hostNumbers ? DType::F64 : DType::F32;
    bool weak = a.weak && b.weak;
    a = convert(a, f, span);
    b = convert(b, f, span);
    a.weak = b.weak = weak;
  }
  return binary(Op::Div, a, b, span, "/");
}

AVal ArrayOps::logical(Op op, AVal a, AVal b, Span span) {
  auto toBool = [&](AVal x) {
    if (x.type.dtype == DType::Bool) return x;
    AVal zero = convert(weakInt(0), x.type.dtype, span);
    return binary(Op::Ne, x, zero, span, "!=");
  };
  return binary(op, toBool(a), toBool(b), span, op == Op::And ? "&&" : "||");
}

AVal ArrayOps::unary(Op op, AVal x, Span span) {
  TypeClass tc = opInfo(op).typeClass;
  // Integers and bools are already whole: floor, ceil and round keep them (dtype and value), as
  // jnp does, instead of rounding them through f32.
  bool rounding = op == Op::Floor || op == Op::Ceil || op == Op::Round;
  if (rounding && !isFloat(x.type.dtype) && !isComplex(x.type.dtype)) return x;
  checkHostIntNegation(op, x, span);
  if (isComplex(x.type.dtype) && (op == Op::Abs || op == Op::Sign || opInfo(op).category == OpCategory::Predicate)) return complexUnary(op, x, span);
  if ((tc == TypeClass::Float || tc == TypeClass::FloatC) && !isFloat(x.type.dtype) && !isComplex(x.type.dtype))
    x = convert(x, x.weak && x.isStatic() ? DType::F64 : (x.type.dtype == DType::I64 || x.type.dtype == DType::U64) ? DType::F64 : DType::F32, span);
  if (op == Op::Neg && x.type.dtype == DType::Bool)
    fail("E0205", span, "unary `-` is not defined for bool", "use `!x` for logical negation");
  AVal r = t_.apply1(op, {x}, {}, span);
  r.weak = x.weak && opInfo(op).category != OpCategory::Predicate;
  return r;
}

AVal ArrayOps::select(AVal c, AVal a, AVal b, Span span, const char* what) {
  if (c.type.dtype != DType::Bool) c = binary(Op::Ne, c, weakInt(0), span, what);
  DType t = promoteTypes(a, b);
  bool weak = a.weak && b.weak;
  a = convert(a, t, span);
  b = convert(b, t, span);
  if (!weak) a.weak = b.weak = false;
  Shape shape = broadcastShapes({c, a, b}, span, what);
  AVal r = t_.apply1(Op::Select,
                     {broadcastTo(c, shape, span, what), broadcastTo(a, shape, span, what),
                      broadcastTo(b, shape, span, what)},
                     {}, span);
  r.weak = weak;
  return r;
}

AVal ArrayOps::reduce(Op op, const AVal& x, std::optional<std::vector<int64_t>> axes, Span span,
                      const char* what) {
  if (!what) what = opName(op);
  Attrs at;
  size_t rank = x.type.shape.size();
  if (!axes) {
    for (size_t i = 0; i < rank; ++i) at.axes.push_back(static_cast<int64_t>(i));
  } else {
    for (int64_t a : *axes) at.axes.push_back(normAxis(a, rank, span, what));
    std::sort(at.axes.begin(), at.axes.end());
    if (std::adjacent_find(at.axes.begin(), at.axes.end()) != at.axes.end())
      fail("E0204", span, std::string(what) + " got a repeated axis");
  }
  AVal in = x;
  if ((op == Op::ReduceAnd || op == Op::ReduceOr) && in.type.dtype != DType::Bool)
    in = binary(Op::Ne, in, weakInt(0), span, what);
  if ((op == Op::ReduceSum || op == Op::ReduceProd) && in.type.dtype == DType::Bool)
    in = convert(in, DType::I32, span);
  AVal r = t_.apply1(op, {in}, at, span);
  r.weak = in.weak;
  return r;
}

AVal ArrayOps::reshape(const AVal& x, const Shape& shape, Span span) {
  if (x.type.shape == shape) return x;
  Attrs at;
  at.shape = shape;
  AVal r = t_.apply1(Op::Reshape, {x}, at, span);
  r.weak = x.weak;
  return r;
}

AVal ArrayOps::transpose(const AVal& x, const std::vector<int64_t>& perm, Span span) {
  Attrs at;
  at.axes = perm;
  AVal r = t_.apply1(Op::Transpose, {x}, at, span);
  r.weak = x.weak;
  return r;
}

AVal ArrayOps::expandDims(const AVal& x, int64_t axis, Span span) {
  Shape s = x.type.shape;
  axis = normAxis(axis, s.size() + 1, span, "expand_dims");
  s.insert(s.begin() + axis, 1);
  return reshape(x, s, span);
}

void ArrayOps::promoteProductOperands(AVal& a, AVal& b, Span span) {
  DType t = promoteTypes(a, b);
  if (t == DType::Bool) t = DType::I32;
  a = convert(a, t, span);
  b = convert(b, t, span);
  if (!(a.weak && b.weak)) a.weak = b.weak = false;
}

AVal ArrayOps::dot(AVal a, AVal b, Span span) {
  size_t ra = a.type.shape.size(), rb = b.type.shape.size();
  if (ra == 0 || rb == 0) return binary(Op::Mul, a, b, span, "dot");
  if (ra == 1 || rb == 1 || (ra == 2 && rb == 2)) return matmul(a, b, span);  // the same contraction
  // NumPy's N-d dot: a's last axis with b's second-to-last, no batch axes; dot_general puts a's
  // free axes, then b's, in order: a.shape[:-1] + b.shape[:-2] + b.shape[-1:].
  promoteProductOperands(a, b, span);
  const Shape &sa = a.type.shape, &sb = b.type.shape;
  if (sa.back() != sb[rb - 2])
    fail("E0206", span, "dot got incompatible shapes " + shapeString(sa) + " and " + shapeString(sb),
         "the last axis of the left operand must equal the second-to-last of the right (" +
             std::to_string(sa.back()) + " != " + std::to_string(sb[rb - 2]) + ")");
  Attrs at;
  at.lhsContract = {static_cast<int64_t>(ra - 1)};
  at.rhsContract = {static_cast<int64_t>(rb - 2)};
  AVal r = t_.apply1(Op::DotGeneral, {a, b}, at, span);
  r.weak = a.weak && b.weak;
  return r;
}

AVal ArrayOps::matmul(AVal a, AVal b, Span span) {
  promoteProductOperands(a, b, span);
  size_t ra = a.type.shape.size(), rb = b.type.shape.size();
  if (ra == 0 || rb == 0)
    fail("E0206", span, "matmul needs arrays of rank >= 1, got shapes " + shapeString(a.type.shape) +
                            " and " + shapeString(b.type.shape),
         "use `*` to multiply by a scalar");
  // Vectors are promoted to matrices as in NumPy and the added axis removed afterwards; the
  // message names the shapes as written.
  const Shape written[2] = {a.type.shape, b.type.shape};
  bool aVec = ra == 1, bVec = rb == 1;
  if (aVec) a = reshape(a, {1, a.type.shape[0]}, span);
  if (bVec) b = reshape(b, {b.type.shape[0], 1}, span);
  Shape sa = a.type.shape, sb = b.type.shape;
  if (sa.back() != sb[sb.size() - 2])
    fail("E0206", span, "matmul got incompatible shapes " + shapeString(written[0]) + " and " + shapeString(written[1]),
         "the last axis of the left operand must equal the second-to-last of the right (" +
             std::to_string(sa.back()) + " != " + std::to_string(sb[sb.size() - 2]) + ")");
  // A stack of matrices times one matrix: a's last axis with b's first and no batch axes (as
  // jnp.matmul), which is one GEMM over every row of a rather than a batch of GEMMs of a
  // broadcast copy of b.
  if (sb.size() == 2 && sa.size() > 2) {
    Attrs at;
    at.lhsContract = {static_cast<int64_t>(sa.size() - 1)};
    at.rhsContract = {0};
    AVal r = t_.apply1(Op::DotGeneral, {a, b}, at, span);
    Shape rs = r.type.shape;
    if (bVec) rs.erase(rs.end() - 1);
    return reshape(r, rs, span);
  }
  // Broadcast the batch dimensions, then one dot_general with batch dims in front.
  Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  AVal pa = AVal::of(Array(DType::Bool, ba)), pb = AVal::of(Array(DType::Bool, bb));
  Shape batch = broadcastShapes({pa, pb}, span, "matmul");
  Shape ta = batch, tb = batch;
  ta.insert(ta.end(), sa.end() - 2, sa.end());
  tb.insert(tb.end(), sb.end() - 2, sb.end());
  a = broadcastTo(a, ta, span, "matmul");
  b = broadcastTo(b, tb, span, "matmul");
  Attrs at;
  int64_t nb = static_cast<int64_t>(batch.size());
  for (int64_t i = 0; i < nb; ++i) {
    at.lhsBatch.push_back(i);
    at.rhsBatch.push_back(i);
  }
  at.lhsContract = {nb + 1};
  at.rhsContract = {nb};
  AVal r = t_.apply1(Op::DotGeneral, {a, b}, at, span);
  Shape rs = r.type.shape;
  if (aVec) rs.erase(rs.end() - 2);
  if (bVec) rs.erase(rs.end() - 1);
  return reshape(r, rs, span);
}

AVal ArrayOps::concat(std::vector<AVal> xs, int64_t axis, Span span) {
  if (xs.empty()) fail("E0207", span, "concat needs at least one array");
  // Promote left to right as a chain of binary ops would: the running operand stays weak while
  // every operand so far is, and traced if any is (a traced weak value fixes a weak width).
  AVal acc = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) {
    DType t = promoteTypes(acc, xs[i]);
    AVal next = xs[i].isStatic() ? acc : xs[i];
    next.weak = acc.weak && xs[i].weak;
    next.type.dtype = t;
    acc = next;
  }
  for (AVal& x : xs) {
    x = convert(x, acc.type.dtype, span);
    if (!acc.weak) x.weak = false;  // a weak array that met a strong one takes its dtype
  }
  size_t rank = xs[0].type.shape.size();
  if (rank == 0) fail("E0207", span, "concat cannot join scalars", "use `stack` to make a new axis");
  Attrs at;
  at.axes = {normAxis(axis, rank, span, "concat")};
  for (const AVal& x : xs) {
    bool ok = x.type.shape.size() == rank;
    for (size_t d = 0; ok && d < rank; ++d)
      ok = static_cast<int64_t>(d) == at.axes[0] || x.type.shape[d] == xs[0].type.shape[d];
    if (!ok) {
      std::string shapes;
      for (size_t k = 0; k < xs.size(); ++k) shapes += (k ? ", " : "") + shapeString(xs[k].type.shape);
      fail("E0207", span, "concat along axis " + std::to_string(at.axes[0]) + " got shapes " + shapes,
           "all dimensions but the joined one must agree");
    }
  }
  int64_t joined = 0;
  for (const AVal& x : xs)
    if (__builtin_add_overflow(joined, x.type.shape[at.axes[0]], &joined)) {
      std::string shapes;
      for (size_t k = 0; k < xs.size(); ++k) shapes += (k ? ", " : "") + shapeString(xs[k].type.shape);
      fail("E0402", span, "concat along axis " + std::to_string(at.axes[0]) + " of shapes " + shapes +
                              " gives a dimension that does not fit in a signed 64-bit integer",
           "every dimension must fit in a signed 64-bit integer");
    }
  if (xs.size() == 1) return xs[0];
  return t_.apply1(Op::Concat, xs, at, span);
}

AVal ArrayOps::slice(const AVal& x, std::vector<int64_t> starts, std::vector<int64_t> limits,
                     std::vector<int64_t> strides, Span span) {
  Attrs at;
  at.starts = std::move(starts);
  at.limits = std::move(limits);
  at.strides = std::move(strides);
  AVal r = t_.apply1(Op::Slice, {x}, at, span);
  r.weak = x.weak;
  return r;
}

AVal ArrayOps::iota(DType t, const Shape& shape, int64_t dim, Span span) {
  Attrs at;
  at.dtype = t;
  at.shape = shape;
  at.axes = {dim};
  return t_.apply1(Op::Iota, {}, at, span);
}

AVal ArrayOps::full(const Shape& shape, AVal value, Span span) {
  return broadcastTo(value, shape, span, "full");
}

}  // namespace scn
