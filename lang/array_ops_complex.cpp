// Complex numbers in the tracer's array operations: weak complex literals, the parts of a
// complex array and complex(re, im) (Note [Complex numbers] in jit/scalar/complex.inc).
#include "lang/array_ops.hpp"

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

AVal ArrayOps::makeComplex(AVal re, AVal im, Span span, const char* what) {
  DType t = promoteTypes(re, im);
  if (!isFloat(t)) t = t == DType::I64 || t == DType::U64 ? DType::F64 : DType::F32;
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
