// The JVP rule of every data op (the control-flow ops are in jvp_control.cpp): the tangent of
// an equation's outputs as a linear function of its input tangents, with coefficients computed
// from the primals, so that reverse mode can transpose it (Note [Autodiff design] in vjp.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "base/diagnostics.hpp"
#include "jit/fft.hpp"
#include "jit/transform/expand_assoc_scan.hpp"
#include "jit/transform/ad.hpp"

namespace scn {

DiffKind diffKind(Op op) {
  switch (op) {
    case Op::Not: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::Round:
    case Op::IsNan: case Op::IsInf: case Op::IsFinite:
    case Op::FloorDiv: case Op::And: case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr:
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
    case Op::Constant: case Op::Iota: case Op::ReduceAnd: case Op::ReduceOr:
    case Op::ArgMax: case Op::ArgMin: case Op::AxisIndex:
      return DiffKind::ZeroTangent;
    case Op::Neg: case Op::Abs: case Op::Sqrt: case Op::Rsqrt: case Op::Exp: case Op::Log:
    case Op::Log1p: case Op::Expm1: case Op::Sin: case Op::Cos: case Op::Tan: case Op::Tanh:
    case Op::Sigmoid: case Op::Asin: case Op::Acos: case Op::Atan: case Op::Asinh: case Op::Acosh:
    case Op::Atanh: case Op::Log2: case Op::Log10: case Op::Exp2: case Op::Cbrt: case Op::Reciprocal:
    case Op::Erf: case Op::Erfc: case Op::ErfInv: case Op::Lgamma:
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::Pow:
    case Op::Max: case Op::Min: case Op::Atan2: case Op::Hypot: case Op::Copysign: case Op::Fmod:
    case Op::LogAddExp: case Op::Select: case Op::Convert:
    case Op::Cholesky: case Op::TriangularSolve: case Op::Lu: case Op::Eigh:
    case Op::ReduceSum: case Op::ReduceProd: case Op::ReduceMax: case Op::ReduceMin:
    case Op::CumSum: case Op::CumProd: case Op::CumMax: case Op::CumMin:
    case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Concat: case Op::Slice:
    case Op::Reverse: case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather:
    case Op::Scatter: case Op::ScatterAdd: case Op::DotGeneral: case Op::Sort:
    case Op::Scan: case Op::Cond:
    SCN_AD_COMPLEX_OPS
      return DiffKind::Smooth;
    case Op::While:
      return DiffKind::ForwardOnly;
    case Op::Digamma: case Op::AssocScan: case Op::ScatterMul: case Op::ScatterMin: case Op::ScatterMax:
    SCN_AD_OPS_WITHOUT_RULES
      return DiffKind::Unsupported;
  }
  return DiffKind::Unsupported;
}

}  // namespace scn

namespace scn::ad {

namespace {

constexpr double kLn2 = 0.69314718055994530942, kLn10 = 2.30258509299404568402;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390, kSqrtPiOverTwo = 0.88622692545275801365;

int constantLike(Builder& b, int like, double v) { return b.like(like, v); }
int square(Builder& b, int v) { return b.mul(v, v); }
// 1 / sqrt(v): rsqrt, which has no complex form.
int invSqrt(Builder& b, int v) {
  return isComplex(b.type(v).dtype) ? b.un(Op::Reciprocal, b.un(Op::Sqrt, v)) : b.un(Op::Rsqrt, v);
}

// d out / d x of each smooth unary op but neg, from its input x and output y: the rule table.
using UnaryDerivative = int (*)(Builder& b, int x, int y);
const std::map<Op, UnaryDerivative>& unaryDerivatives() {
  static const std::map<Op, UnaryDerivative> table = {
      // JAX's: 1 where x >= 0 (so at 0 and -0.0 too, which L1 penalties rely on), else -1.
      {Op::Abs, [](Builder& b, int x, int y) {
         return b.select(b.emit1(Op::Ge, {x, constantLike(b, x, 0)}), constantLike(b, x, 1), constantLike(b, x, -1));
       }},
      {Op::Sqrt, [](Builder& b, int x, int y) { return b.div(constantLike(b, x, 0.5), y); }},
      {Op::Rsqrt, [](Builder& b, int x, int y) { return b.div(b.mul(constantLike(b, x, -0.5), y), x); }},
      {Op::Exp, [](Builder& b, int x, int y) { return y; }},
      {Op::Log, [](Builder& b, int x, int y) { return b.div(constantLike(b, x, 1), x); }},
      {Op::Log1p, [](Builder& b, int x, int y) { return b.div(constantLike(b, x, 1), b.add(constantLike(b, x, 1), x)); }},
      {Op::Expm1, [](Builder& b, int x, int y) { return b.add(y, constantLike(b, x, 1)); }},
      {Op::Sin, [](Builder& b, int x, int y) { return b.un(Op::Cos, x); }},
      {Op::Cos, [](Builder& b, int x, int y) { return b.neg(b.un(Op::Sin, x)); }},
      {Op::Tan, [](Builder& b, int x, int y) { return b.add(constantLike(b, x, 1), square(b, y)); }},
      {Op::Tanh, [](Builder& b, int x, int y) { return b.sub(constantLike(b, x, 1), square(b, y)); }},
      {Op::Sigmoid, [](Builder& b, int x, int y) { return b.mul(y, b.sub(constantLike(b, x, 1), y)); }},
      {Op::Asin, [](Builder& b, int x, int y) { return invSqrt(b, b.sub(constantLike(b, x, 1), square(b, x))); }},
      {Op::Acos, [](Builder& b, int x, int y) { return b.neg(invSqrt(b, b.sub(constantLike(b, x, 1), square(b, x)))); }},
      {Op::Atan, [](Builder& b, int x, int y) { return b.div(constantLike(b, x, 1), b.add(constantLike(b, x, 1), square(b, x))); }},
      {Op::Asinh, [](Builder& b, int x, int y) { return invSqrt(b, b.add(square(b, x), constantLike(b, x, 1))); }},
      {Op::Acosh, [](Builder& b, int x, int y) { return invSqrt(b, b.mul(b.sub(x, constantLike(b, x, 1)), b.add(x, constantLike(b, x, 1)))); }},
      {Op::Atanh, [](Builder& b, int x, int y) { return b.div(constantLike(b, x, 1), b.sub(constantLike(b, x, 1), square(b, x))); }},
      {Op::Log2, [](Builder& b, int x, int y) { return b.div(constantLike(b, x, 1), b.mul(x, constantLike(b, x, kLn2))); }},
      {Op::Log10, [](Builder& b, int x, int y) { return b.div(constantLike(b, x, 1), b.mul(x, constantLike(b, x, kLn10))); }},
      {Op::Exp2, [](Builder& b, int x, int y) { return b.mul(y, constantLike(b, x, kLn2)); }},
      {Op::Cbrt, [](Builder& b, int x, int y) { return b.div(constantLike(b, x, 1), b.mul(constantLike(b, x, 3), square(b, y))); }},
      {Op::Reciprocal, [](Builder& b, int x, int y) { return b.neg(square(b, y)); }},
      {Op::Erf, [](Builder& b, int x, int y) { return b.mul(constantLike(b, x, kTwoOverSqrtPi), b.un(Op::Exp, b.neg(square(b, x)))); }},
      {Op::Erfc, [](Builder& b, int x, int y) { return b.mul(constantLike(b, x, -kTwoOverSqrtPi), b.un(Op::Exp, b.neg(square(b, x)))); }},
      {Op::ErfInv, [](Builder& b, int x, int y) { return b.mul(constantLike(b, x, kSqrtPiOverTwo), b.un(Op::Exp, square(b, y))); }},
      {Op::Lgamma, [](Builder& b, int x, int y) { return b.un(Op::Digamma, x); }},
  };
  return table;
}

int unaryCoefficient(Builder& b, Op op, int x, int y) {
  auto it = unaryDerivatives().find(op);
  if (it == unaryDerivatives().end()) internalError(std::string("no unary derivative for ") + opName(op));
  return it->second(b, x, y);
}

// JAX's balanced equality for max/min: 1 where x alone is the result, 1/2 on ties, else 0.
int balanced(Builder& b, int x, int other, int y) {
  int one = b.like(x, 1), half = b.like(x, 0.5), zero = b.like(x, 0);
  int xIs = b.emit1(Op::Eq, {x, y}), otherIs = b.emit1(Op::Eq, {other, y});
  return b.select(xIs, b.select(otherIs, half, one), zero);
}

int truncate(Builder& b, int z) {
  return b.select(b.emit1(Op::Lt, {z, b.like(z, 0)}), b.un(Op::Ceil, z), b.un(Op::Floor, z));
}

// Tangent of a binary op: ta * da + tb * db (either tangent may be zero).
std::vector<Tan> binary(Builder& b, Op op, int x, int y, Tan tx, Tan ty, int out) {
  auto c = [&](double v) { return b.like(x, v); };
  auto scaled = [&](Tan t, auto coefficient) -> Tan {
    if (!t) return std::nullopt;
    return b.mul(*t, coefficient());
  };
  // The terms are built in order (a braced list is evaluated left to right,
  // call arguments are not), so the IR does not depend on the compiler.
  auto sum = [&](std::array<Tan, 2> terms) -> std::vector<Tan> { return {b.addTan(terms[0], terms[1])}; };
  switch (op) {
    case Op::Add: return sum({tx, ty});
    case Op::Sub: return sum({tx, ty ? Tan(b.neg(*ty)) : std::nullopt});
    case Op::Mul: return sum({scaled(tx, [&] { return y; }), scaled(ty, [&] { return x; })});
    case Op::Div:
      return sum({tx ? Tan(b.div(*tx, y)) : std::nullopt, scaled(ty, [&] { return b.neg(b.div(out, y)); })});
    case Op::Pow:
      return sum({scaled(tx,
                         [&] {
                           int d = b.mul(y, b.emit1(Op::Pow, {x, b.sub(y, c(1))}));
                           return b.select(b.emit1(Op::Eq, {y, c(0)}), c(0), d);
                         }),
                  scaled(ty, [&] {
                    int d = b.mul(b.un(Op::Log, x), out);
                    return b.select(b.emit1(Op::Eq, {x, c(0)}), c(0), d);
                  })});
    case Op::Max: case Op::Min:
      return sum({scaled(tx, [&] { return balanced(b, x, y, out); }),
                  scaled(ty, [&] { return balanced(b, y, x, out); })});
    case Op::Atan2: {  // atan2(x, y): the angle of (y, x)
      auto den = [&] { return b.add(b.mul(x, x), b.mul(y, y)); };
      return sum({scaled(tx, [&] { return b.div(y, den()); }),
                  scaled(ty, [&] { return b.neg(b.div(x, den())); })});
    }
    case Op::Hypot:
      return sum({scaled(tx, [&] { return b.div(x, out); }), scaled(ty, [&] { return b.div(y, out); })});
    case Op::Copysign:
      return {scaled(tx, [&] {
        return b.mul(b.emit1(Op::Copysign, {c(1), x}), b.emit1(Op::Copysign, {c(1), y}));
      })};
    case Op::Fmod:
      return sum({tx, scaled(ty, [&] { return b.neg(truncate(b, b.div(x, y))); })});
    case Op::Rem:
      return sum({tx, scaled(ty, [&] { return b.neg(b.un(Op::Floor, b.div(x, y))); })});
    case Op::LogAddExp:
      return sum({scaled(tx, [&] { return b.un(Op::Exp, b.sub(x, out)); }),
                  scaled(ty, [&] { return b.un(Op::Exp, b.sub(y, out)); })});
    case Op::Neg: case Op::Not: case Op::Abs: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::Round:
    case Op::Sqrt: case Op::Rsqrt: case Op::Exp: case Op::Log: case Op::Log1p: case Op::Expm1: case Op::Sin:
    case Op::Cos: case Op::Tan: case Op::Tanh: case Op::Sigmoid: case Op::Asin: case Op::Acos: case Op::Atan:
    case Op::Asinh: case Op::Acosh: case Op::Atanh: case Op::Log2: case Op::Log10: case Op::Exp2:
    case Op::Cbrt: case Op::Reciprocal: case Op::Erf: case Op::Erfc: case Op::ErfInv: case Op::Lgamma:
    case Op::Digamma: case Op::IsNan: case Op::IsInf: case Op::IsFinite: case Op::FloorDiv: case Op::And:
    case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr: case Op::Eq: case Op::Ne: case Op::Lt:
    case Op::Le: case Op::Gt: case Op::Ge: case Op::Select: case Op::Convert: case Op::Constant:
    case Op::Iota: case Op::ReduceSum: case Op::ReduceProd: case Op::ReduceMax: case Op::ReduceMin:
    case Op::ReduceAnd: case Op::ReduceOr: case Op::ArgMax: case Op::ArgMin: case Op::CumSum:
    case Op::CumProd: case Op::CumMax: case Op::CumMin: case Op::AssocScan: case Op::BroadcastInDim:
    case Op::Reshape: case Op::Transpose: case Op::Concat: case Op::Slice: case Op::Reverse:
    case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter:
    case Op::ScatterAdd: case Op::ScatterMul: case Op::ScatterMin: case Op::ScatterMax: case Op::DotGeneral:
    case Op::Scan: case Op::While: case Op::Cond: case Op::Sort: case Op::AxisIndex:
    SCN_AD_OPS_WITHOUT_RULES
    SCN_AD_LINALG_OPS
    SCN_AD_COMPLEX_OPS
      break;  // only the smooth binary ops reach here
  }
  internalError(std::string("no binary derivative for ") + opName(op));
}

// The reduced axes of x put back (size 1 and broadcast): y in x's shape.
int unreduce(Builder& b, int y, const Type& x, const std::vector<int64_t>& axes) {
  std::vector<int64_t> kept;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    bool reduced = false;
    for (int64_t a : axes) reduced = reduced || a == static_cast<int64_t>(d);
    if (!reduced) kept.push_back(static_cast<int64_t>(d));
  }
  return b.broadcast(y, x.shape, kept);
}

// Note [Products with zeros]
// The tangent of prod(x) is sum_j t_j prod_{k != j} x_k. Dividing the product by x_j, the
// textbook shortcut, gives NaN wherever x_j is 0, where jax.grad(jnp.prod) is finite. So the
// product of the others is the exclusive running product from the left times the one from the
// right (the reduced axes flattened into one). cumprod's tangent is the linear recurrence
// dy_i = x_i dy_{i-1} + t_i prod_{k<i} x_k, which JAX differentiates through its associative
// scan: the inclusive scan of the pairs (x_i, t_i prod_{k<i} x_k) under the composition of
// affine maps (a, u) . (b, v) = (a b, u b + v). It is emitted as its odd-even rounds (Note
// [Odd-even associative scan]): slices, concats, products by primals and sums, all linear in
// the tangent, so reverse mode transposes them like any other tangent equations.

Attrs cumulativeAttrs(int64_t axis, bool reverse) {
  Attrs a;
  a.axes = {axis};
  a.reverse = reverse;
  return a;
}

// prod_{k<i} x_k along `axis` (prod_{k>i} with `reverse`): the running product shifted by one,
// a 1 coming in at the start.
int exclusiveProduct(Builder& b, int x, int64_t axis, bool reverse) {
  Type t = b.type(x);
  const int64_t n = t.shape.at(axis);
  if (n == 0) return x;
  int running = b.emit1(Op::CumProd, {x}, cumulativeAttrs(axis, reverse));
  Type edge = t;
  edge.shape[axis] = 1;
  int one = b.full(edge, 1);
  if (n == 1) return one;
  int kept = b.sliceAxis(running, axis, reverse ? 1 : 0, reverse ? n : n - 1);
  Attrs cat;
  cat.axes = {axis};
  return b.emit1(Op::Concat, reverse ? std::vector<int>{kept, one} : std::vector<int>{one, kept}, cat);
}

// Per element of x, the product of the other elements of its reduction over `axes`.
int productOfOthers(Builder& b, int x, const std::vector<int64_t>& axes) {
  const Type tx = b.type(x);
  const int64_t rank = static_cast<int64_t>(tx.shape.size());
  std::vector<int64_t> perm;
  Shape flat;
  int64_t reduced = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) {
      perm.push_back(d);
      flat.push_back(tx.shape[d]);
    }
  for (int64_t d : axes) {
    perm.push_back(d);
    reduced *= tx.shape[d];
  }
  flat.push_back(reduced);
  Shape moved;
  for (int64_t d : perm) moved.push_back(tx.shape[d]);
  int rows = b.reshape(b.transpose(x, perm), flat);
  int64_t last = static_cast<int64_t>(flat.size()) - 1;
  int others = b.mul(exclusiveProduct(b, rows, last, false), exclusiveProduct(b, rows, last, true));
  std::vector<int64_t> back(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) back[perm[i]] = static_cast<int64_t>(i);
  return b.transpose(b.reshape(others, moved), back);
}

// The combiner of the affine maps h -> a h + u: (a, u) then (b, v) is (a b, u b + v).
FuncPtr affineComposition(DType d, Span span) {
  auto f = std::make_shared<Func>();
  f->name = "affine_composition";
  Type scalar{d, {}};
  int a = f->newVar(scalar), u = f->newVar(scalar), c = f->newVar(scalar), v = f->newVar(scalar);
  f->params = {a, u, c, v};
  Builder fb{*f, span};
  f->results = {fb.mul(a, c), fb.add(fb.mul(u, c), v)};
  return f;
}

Tan cumprodTangent(Builder& b, const Eqn& e, int x, int t) {
  int64_t axis = e.attrs.axes.at(0);
  Eqn pairs;
  pairs.op = Op::AssocScan;
  pairs.inputs = {x, b.mul(t, exclusiveProduct(b, x, axis, e.attrs.reverse))};
  pairs.attrs = cumulativeAttrs(axis, e.attrs.reverse);
  pairs.subs = {affineComposition(b.type(x).dtype, b.span)};
  pairs.span = b.span;
  return emitAssociativeScanRounds(b.dst, pairs).at(1);
}

Tan reduction(Builder& b, const Eqn& e, int x, int t, int y) {
  const Type& tx = b.type(x);
  switch (e.op) {
    case Op::ReduceSum: return b.reduceSum(t, e.attrs.axes);
    case Op::ReduceProd: return b.reduceSum(b.mul(t, productOfOthers(b, x, e.attrs.axes)), e.attrs.axes);
    case Op::ReduceMax: case Op::ReduceMin: {
      // The tangent of the extreme element, averaged over ties (as JAX).
      int mask = b.convert(b.emit1(Op::Eq, {x, unreduce(b, y, tx, e.attrs.axes)}), tx.dtype);
      int count = unreduce(b, b.reduceSum(mask, e.attrs.axes), tx, e.attrs.axes);
      return b.reduceSum(b.mul(t, b.div(mask, count)), e.attrs.axes);
    }
    case Op::Neg: case Op::Not: case Op::Abs: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::Round:
    case Op::Sqrt: case Op::Rsqrt: case Op::Exp: case Op::Log: case Op::Log1p: case Op::Expm1: case Op::Sin:
    case Op::Cos: case Op::Tan: case Op::Tanh: case Op::Sigmoid: case Op::Asin: case Op::Acos: case Op::Atan:
    case Op::Asinh: case Op::Acosh: case Op::Atanh: case Op::Log2: case Op::Log10: case Op::Exp2:
    case Op::Cbrt: case Op::Reciprocal: case Op::Erf: case Op::Erfc: case Op::ErfInv: case Op::Lgamma:
    case Op::Digamma: case Op::IsNan: case Op::IsInf: case Op::IsFinite: case Op::Add: case Op::Sub:
    case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Rem: case Op::Pow: case Op::Max: case Op::Min:
    case Op::And: case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr: case Op::Atan2: case Op::Hypot:
    case Op::Copysign: case Op::Fmod: case Op::LogAddExp: case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le:
    case Op::Gt: case Op::Ge: case Op::Select: case Op::Convert: case Op::Constant: case Op::Iota:
    case Op::ReduceAnd: case Op::ReduceOr: case Op::ArgMax: case Op::ArgMin: case Op::CumSum:
    case Op::CumProd: case Op::CumMax: case Op::CumMin: case Op::AssocScan: case Op::BroadcastInDim:
    case Op::Reshape: case Op::Transpose: case Op::Concat: case Op::Slice: case Op::Reverse:
    case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter:
    case Op::ScatterAdd: case Op::ScatterMul: case Op::ScatterMin: case Op::ScatterMax: case Op::DotGeneral:
    case Op::Scan: case Op::While: case Op::Cond: case Op::Sort: case Op::AxisIndex:
    SCN_AD_OPS_WITHOUT_RULES
    SCN_AD_LINALG_OPS
    SCN_AD_COMPLEX_OPS
      break;  // only the smooth reductions reach here
  }
  internalError("no reduction derivative");
}

Tan cumulative(Builder& b, const Eqn& e, int x, int t, int y) {
  const Type& tx = b.type(x);
  int64_t axis = e.attrs.axes.at(0);
  switch (e.op) {
    case Op::CumSum: return b.emit1(Op::CumSum, {t}, e.attrs);
    case Op::CumProd: return cumprodTangent(b, e, x, t);
    case Op::CumMax: case Op::CumMin: {
      // The tangent of the element where the running extreme was last attained.
      Attrs io;
      io.dtype = DType::I32;
      io.shape = tx.shape;
      io.axes = {axis};
      int iota = b.emit1(Op::Iota, {}, std::move(io));
      int64_t fill = e.attrs.reverse ? tx.shape.at(axis) - 1 : 0;
      int at = b.select(b.emit1(Op::Eq, {x, y}), iota, b.full(b.type(iota), static_cast<double>(fill)));
      int last = b.emit1(e.attrs.reverse ? Op::CumMin : Op::CumMax, {at}, e.attrs);
      return b.takeAlongAxis(t, last, axis);
    }
    case Op::Neg: case Op::Not: case Op::Abs: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::Round:
    case Op::Sqrt: case Op::Rsqrt: case Op::Exp: case Op::Log: case Op::Log1p: case Op::Expm1: case Op::Sin:
    case Op::Cos: case Op::Tan: case Op::Tanh: case Op::Sigmoid: case Op::Asin: case Op::Acos: case Op::Atan:
    case Op::Asinh: case Op::Acosh: case Op::Atanh: case Op::Log2: case Op::Log10: case Op::Exp2:
    case Op::Cbrt: case Op::Reciprocal: case Op::Erf: case Op::Erfc: case Op::ErfInv: case Op::Lgamma:
    case Op::Digamma: case Op::IsNan: case Op::IsInf: case Op::IsFinite: case Op::Add: case Op::Sub:
    case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Rem: case Op::Pow: case Op::Max: case Op::Min:
    case Op::And: case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr: case Op::Atan2: case Op::Hypot:
    case Op::Copysign: case Op::Fmod: case Op::LogAddExp: case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le:
    case Op::Gt: case Op::Ge: case Op::Select: case Op::Convert: case Op::Constant: case Op::Iota:
    case Op::ReduceSum: case Op::ReduceProd: case Op::ReduceMax: case Op::ReduceMin: case Op::ReduceAnd:
    case Op::ReduceOr: case Op::ArgMax: case Op::ArgMin: case Op::AssocScan: case Op::BroadcastInDim:
    case Op::Reshape: case Op::Transpose: case Op::Concat: case Op::Slice: case Op::Reverse:
    case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter:
    case Op::ScatterAdd: case Op::ScatterMul: case Op::ScatterMin: case Op::ScatterMax: case Op::DotGeneral:
    case Op::Scan: case Op::While: case Op::Cond: case Op::Sort: case Op::AxisIndex:
    SCN_AD_OPS_WITHOUT_RULES
    SCN_AD_LINALG_OPS
    SCN_AD_COMPLEX_OPS
      break;  // only the smooth cumulative ops reach here
  }
  internalError("no cumulative derivative");
}

// Note [Complex derivatives]
// Complex values carry complex tangents, and the rules are JAX's: a holomorphic op's tangent is
// f'(z) t by the same formulas as the real op's (tanh' = 1 - tanh^2 holds for complex z), and
// reverse mode transposes each linear map without conjugating (the cotangent of `x * c` is
// `ct * c`), so for a real loss grad gives df/dre - i df/dim (jax.grad of |z|^2 is 2 conj(z))
// and grad(f, holomorphic=true) gives f'(z). The parts: real, imag, conj and complex are linear
// (real's transpose is complex(ct, 0), imag's complex(0, -ct), conj's conj, complex's (real(ct),
// -imag(ct))); |z| has the tangent real(conj(z) t) / |z| (0 at z = 0, as JAX), angle(z)
// imag(conj(z) t) / |z|^2. The Fourier transforms are linear, their tangents the transforms of
// the tangents; transposed as JAX does: fft and ifft are symmetric matrices (their own
// transposes), rfft's transpose is real(fft(ct padded with zeros to n)), irfft's
// conj(rfft(ct) * (1, 2, ..., 2, 1) / n) (the 1 at the end for an even n).
Tan complexPart(Builder& b, Op op, const std::vector<int>& in, const std::vector<Tan>& tin, int out) {
  switch (op) {
    case Op::Real: case Op::Imag: case Op::Conj: return b.un(op, *tin[0]);
    case Op::Complex: return b.emit1(Op::Complex, {b.instantiate(tin[0], b.type(in[0])), b.instantiate(tin[1], b.type(in[1]))});
    case Op::ComplexAbs: {
      int dot = b.un(Op::Real, b.mul(*tin[0], b.un(Op::Conj, in[0])));
      int safe = b.select(b.emit1(Op::Eq, {out, b.like(out, 0)}), b.like(out, 1), out);
      return b.div(dot, safe);
    }
    case Op::Angle: {
      int cross = b.un(Op::Imag, b.mul(*tin[0], b.un(Op::Conj, in[0])));
      int modulus = b.un(Op::ComplexAbs, in[0]);
      return b.div(cross, b.mul(modulus, modulus));
    }
    default: break;
  }
  internalError(std::string("no complex-part derivative for ") + opName(op));
}

// An op whose tangent is the op itself applied to the tangents (structural and linear ops):
// non-tangent operands (indices, starts, predicates) are passed as they are.
Tan sameOp(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin,
           const std::vector<size_t>& tangentOperands) {
  std::vector<int> args = in;
  for (size_t i : tangentOperands) args[i] = b.instantiate(tin[i], b.type(in[i]));
  return b.emit1(e.op, std::move(args), e.attrs);
}

std::vector<size_t> firstN(size_t n) {
  std::vector<size_t> v;
  for (size_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

}  // namespace

std::vector<Tan> jvpRule(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin,
                         const std::vector<int>& out) {
  std::vector<Tan> none(out.size(), std::nullopt);
  switch (diffKind(e.op)) {
    case DiffKind::ZeroTangent: return none;
    case DiffKind::Smooth: break;
    case DiffKind::ForwardOnly: case DiffKind::Unsupported:
      internalError(std::string("jvpRule called for ") + opName(e.op));
  }
  switch (opInfo(e.op).category) {
    case OpCategory::Unary:
      if (e.op == Op::Neg) return {b.neg(*tin[0])};
      return {b.mul(*tin[0], unaryCoefficient(b, e.op, in[0], out[0]))};
    case OpCategory::Binary: return binary(b, e.op, in[0], in[1], tin[0], tin[1], out[0]);
    case OpCategory::Select: {
      if (!tin[1] && !tin[2]) return none;
      return {sameOp(b, e, in, tin, {1, 2})};
    }
    case OpCategory::Convert: {
      DType from = b.type(in[0]).dtype;
      // Note [Stop gradient]: a convert to the same dtype is stop_gradient (the tracer never
      // emits one otherwise).
      if (from == e.attrs.dtype || !differentiable(from) || !differentiable(e.attrs.dtype)) return none;
      return {b.convert(*tin[0], e.attrs.dtype)};
    }
    case OpCategory::Reduce: return {reduction(b, e, in[0], *tin[0], out[0])};
    case OpCategory::Cumulative: return {cumulative(b, e, in[0], *tin[0], out[0])};
    case OpCategory::BroadcastInDim: case OpCategory::Reshape: case OpCategory::Transpose:
    case OpCategory::Slice: case OpCategory::Reverse: case OpCategory::DynamicSlice:
    case OpCategory::Gather:
      return {sameOp(b, e, in, tin, {0})};
    case OpCategory::Concat: return {sameOp(b, e, in, tin, firstN(in.size()))};
    case OpCategory::DynamicUpdateSlice: case OpCategory::Scatter: return {sameOp(b, e, in, tin, {0, 1})};
    case OpCategory::DotGeneral: {
      Tan l = tin[0] ? Tan(b.emit1(Op::DotGeneral, {*tin[0], in[1]}, e.attrs)) : std::nullopt;
      Tan r = tin[1] ? Tan(b.emit1(Op::DotGeneral, {in[0], *tin[1]}, e.attrs)) : std::nullopt;
      return {b.addTan(l, r)};
    }
    case OpCategory::Sort: {
      // Sorted by the primal keys: each tangent is permuted like its operand.
      const Type& t = b.type(in[0]);
      Attrs io;
      io.dtype = DType::I32;
      io.shape = t.shape;
      io.axes = e.attrs.axes;
      std::vector<int> args = in;
      args.push_back(b.emit1(Op::Iota, {}, std::move(io)));
      int perm = b.emit(Op::Sort, std::move(args), e.attrs).back();
      std::vector<Tan> r;
      for (const Tan& ti : tin) r.push_back(ti ? Tan(b.takeAlongAxis(*ti, perm, e.attrs.axes[0])) : std::nullopt);
      return r;
    }
    case OpCategory::ComplexPart: return {complexPart(b, e.op, in, tin, out[0])};
    case OpCategory::Predicate: case OpCategory::Compare: case OpCategory::Constant:
    case OpCategory::Iota: case OpCategory::ArgReduce:
      return none;
    case OpCategory::Linalg:  // the Fourier transforms are linear
      if (isFftOp(e.op)) return {sameOp(b, e, in, tin, {0})};
      return linalgJvp(b, e, in, tin, out);
    case OpCategory::AssocScan: case OpCategory::Scan: case OpCategory::While: case OpCategory::Cond:
    case OpCategory::Collective: case OpCategory::ProcessCollective:
      break;
  }
  internalError(std::string("no data JVP rule for ") + opName(e.op));
}

}  // namespace scn::ad
