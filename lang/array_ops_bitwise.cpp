// Bitwise operators and their builtins' shared rules: `& | ^ ~ << >>` on integers and bool.
#include "lang/array_ops.hpp"

#include "base/diagnostics.hpp"

namespace scn {

namespace {

/// E0261 when a bitwise operand is a float (JAX: "and does not accept dtype float32").
void requireIntOrBool(const AVal& x, Span span, const char* what) {
  if (!isFloat(x.type.dtype) && !isComplex(x.type.dtype)) return;
  fail("E0261", span,
       std::string("`") + what + "` needs integer or bool operands, got " + surfaceTypeString(x),
       "bitwise operators take integers or bool; to combine conditions use `&&`/`||` or the "
       "bool results of comparisons, or convert first with `astype(x, i32)`");
}

}  // namespace

AVal ArrayOps::bitwise(Op op, AVal a, AVal b, Span span, const char* what) {
  requireIntOrBool(a, span, what);
  requireIntOrBool(b, span, what);
  bool shift = op == Op::Shl || op == Op::Shr;
  if (shift && a.type.dtype == DType::Bool) a = convert(a, DType::I32, span);
  if (shift && b.type.dtype == DType::Bool) b = convert(b, DType::I32, span);
  return binary(op, a, b, span, what);
}

AVal ArrayOps::invert(AVal x, Span span, const char* what) {
  requireIntOrBool(x, span, what);
  return unary(Op::Not, x, span);
}

}  // namespace scn
