// Complex numbers in the tracer's array operations: weak complex literals, the parts of a
// complex array and complex(re, im) (Note [Complex numbers] in jit/scalar/complex.inc).
#include "lang/array_ops.hpp"

#include <optional>

#include "base/diagnostics.hpp"

namespace scn {

void checkComplexCast(const AVal& x, DType to, Span span) {
  if (!isComplex(x.type.dtype) || isComplex(to) || to == DType::Bool) return;
  fail("E0376", span,
       std::string("converting ") + surfaceTypeString(x) + " to " + dtypeName(to) +
           " would drop the imaginary part",
       std::string("take the part you mean first: `real(z)`, `imag(z)` or `abs(z)` (then `astype(..., ") +
           dtypeName(to) + ")` if needed); JAX warns here and will refuse the cast");
}

AVal weakComplex(double re, double im) {
  Array a(DType::C128, {});
  a.data<c128>()[0] = c128{re, im};
  return AVal::of(std::move(a), true);
}

AVal ArrayOps::complexPart(Op op, AVal x, Span span) {
  AVal r = t_.apply1(op, {x}, {}, span);
  r.weak = x.weak;
  return r;
}

AVal ArrayOps::complexUnary(Op op, AVal x, Span span) {
  if (op == Op::Abs) return complexPart(Op::ComplexAbs, x, span);
  if (op == Op::Sign) {  // each part divided by |z|, and 0 for 0 (jnp.sign, XLA's)
    AVal m = complexPart(Op::ComplexAbs, x, span);
    AVal zero = convert(weakInt(0), x.type.dtype, span);
    AVal isZero = binary(Op::Eq, x, zero, span, "sign");
    AVal q = makeComplex(binary(Op::Div, complexPart(Op::Real, x, span), m, span, "sign"),
                         binary(Op::Div, complexPart(Op::Imag, x, span), m, span, "sign"), span, "sign");
    AVal s = select(isZero, zero, q, span, "sign");
    AVal r = stopGradient(s, span);  // sign's derivative is zero, as JAX's
    r.weak = s.weak;
    return r;
  }
  // isnan / isinf: either part; isfinite: both parts.
  AVal re = unary(op, complexPart(Op::Real, x, span), span);
  AVal im = unary(op, complexPart(Op::Imag, x, span), span);
  return binary(op == Op::IsFinite ? Op::And : Op::Or, re, im, span, opName(op));
}

AVal ArrayOps::complexPow(AVal x, AVal y, Span span) {
  bool intExponent = isComplex(x.type.dtype) && y.isStatic() && y.type.shape.empty() && isInteger(y.type.dtype);
  if (intExponent) {
    // jnp's integer_pow: binary exponentiation, acc * x^(2^k) for each set bit; 1 / that for a
    // negative exponent; ones for 0.
    int64_t n = y.concrete->getInt(0);
    uint64_t k = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
    std::optional<AVal> acc;
    AVal base = x;
    while (k > 0) {
      if (k & 1) acc = acc ? binary(Op::Mul, *acc, base, span, "**") : base;
      k >>= 1;
      if (k) base = binary(Op::Mul, base, base, span, "**");
    }
    AVal one = convert(weakInt(1), x.type.dtype, span);
    if (!acc) return full(x.type.shape, one, span);
    return n < 0 ? binary(Op::Div, one, *acc, span, "**") : *acc;
  }
  DType t = promoteTypes(x, y);
  bool weak = x.weak && y.weak;
  x = convert(x, t, span);
  y = convert(y, t, span);
  if (!weak) x.weak = y.weak = false;
  return unary(Op::Exp, binary(Op::Mul, y, unary(Op::Log, x, span), span, "**"), span);
}

AVal ArrayOps::makeComplex(AVal re, AVal im, Span span, const char* what) {
  DType t = promoteTypes(re, im);
  t = inexactDType(t);
  bool weak = re.weak && im.weak;
  re = convert(re, t, span);
  im = convert(im, t, span);
  if (!weak) re.weak = im.weak = false;
  Shape shape = broadcastShapes({re, im}, span, what);
  AVal r = t_.apply1(Op::Complex, {broadcastTo(re, shape, span, what), broadcastTo(im, shape, span, what)}, {}, span);
  r.weak = weak;
  return r;
}

}  // namespace scn
