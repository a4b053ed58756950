// The NumPy-level layer over IR ops: dtype promotion, weak types, broadcasting, conversions.
// Builtins and operators are written with these; each ends in Tracer::apply.
#pragma once

#include <optional>
#include <vector>

#include "lang/tracer.hpp"

namespace scn {

/// A weakly typed host scalar (a literal without suffix). Stored at 64 bits so that combining it
/// with an f64/i64 array loses nothing; see Note [Weak types] in array_ops.cpp.
AVal weakInt(int64_t v);
AVal weakFloat(double v);
/// A weak complex scalar (a Python complex such as `2.5j`), stored as c128, c64 by default.
AVal weakComplex(double re, double im);
/// E0376 for an explicit conversion of a complex x to a real dtype other than bool (JAX warns
/// that it drops the imaginary part and will refuse it; real(x) is the op that does).
void checkComplexCast(const AVal& x, DType to, Span span);
AVal strongScalar(DType t, double v);

/// A weak static value at its default dtype (i32 / f32); other values unchanged. Applied where a
/// value materialises: printing, function arguments and results, loop carries, stored arrays,
/// staged ops. A weak integer outside the i32 range is E0228 at `span` (Note [Weak types]).
AVal defaultize(AVal v, Span span);
/// For showing a value only (formatting a value, the REPL's `:type`): defaultize that never
/// fails; a weak integer outside the i32 range keeps its exact i64 storage.
AVal defaultize(AVal v);
/// Whether the integer v is a value of dtype t (always true for bool and float dtypes).
bool fitsIn(int64_t v, DType t);

/// The dtype a weak static value takes when it stands alone: i32 for i64 storage, f32 for f64;
/// other dtypes unchanged.
DType defaultDType(DType storage);

/// The type a value shows the user: a weak static value at its default dtype (what
/// `defaultize` would give), without converting any data. For messages and `:type`.
Type surfaceType(const AVal& v);
/// typeString(surfaceType(v)): "f32[3]".
std::string surfaceTypeString(const AVal& v);

/// The dtype two operands promote to (docs/language.md "Type promotion").
DType promoteTypes(const AVal& a, const AVal& b);

/// The float dtype in which integer or bool values compute where a float is needed (mean,
/// median, sqrt, `/`): f64 for 64-bit integers, f32 for the others; floats and complex
/// dtypes are their own.
inline DType inexactDType(DType t) {
  if (isFloat(t) || isComplex(t)) return t;
  return t == DType::I64 || t == DType::U64 ? DType::F64 : DType::F32;
}

class ArrayOps {
 public:
  explicit ArrayOps(Tracer& t) : t_(t) {}
  Tracer& tracer() { return t_; }

  /// Implicit conversion (promotion, `dtype=` of creation functions): a weak static integer that
  /// does not fit `to` is E0228 at `span`. The result keeps x's weakness.
  AVal convert(const AVal& x, DType to, Span span);
  /// Explicit conversion (`i32(x)`, `astype`): a cast that wraps integers like any
  /// integer-to-integer conversion (`u32(-1)` is 4294967295); the result is strong.
  AVal cast(const AVal& x, DType to, Span span);
  /// Broadcasts to `shape` (NumPy rules: trailing dims, size-1 stretches); `what` names the op
  /// for the error message.
  AVal broadcastTo(const AVal& x, const Shape& shape, Span span, const char* what = "broadcast_to");
  /// NumPy's broadcast shape of several operands or E0203 naming `what` and every shape.
  Shape broadcastShapes(const std::vector<AVal>& xs, Span span, const char* what);

  /// Elementwise binary op with promotion and broadcasting (arithmetic ops keep the dtype;
  /// comparisons give bool). `what` is the surface name used in messages ("add", "*").
  AVal binary(Op op, AVal a, AVal b, Span span, const char* what);
  AVal trueDivide(AVal a, AVal b, Span span);
  AVal logical(Op op, AVal a, AVal b, Span span);
  /// Bitwise `& | ^` (And, Or, Xor) and shifts `<< >>` (Shl, Shr), as jnp: logical on bool,
  /// bitwise on integers, E0261 on floats; shifts take bool as i32. `what` is the operator or
  /// builtin named in messages (lang/array_ops_bitwise.cpp).
  AVal bitwise(Op op, AVal a, AVal b, Span span, const char* what);
  /// `~x` / invert: logical not on bool, bitwise not on integers, E0261 on floats.
  AVal invert(AVal x, Span span, const char* what);
  /// Elementwise unary op; float-only ops convert integer inputs to a float dtype first.
  AVal unary(Op op, AVal x, Span span);
  /// An op of the ComplexPart category on a complex x (real, imag, conj, complex_abs, angle).
  AVal complexPart(Op op, AVal x, Span span);
  /// abs, sign and the predicates isnan/isinf/isfinite of a complex x, from its parts as jnp.
  AVal complexUnary(Op op, AVal x, Span span);
  /// x ** y with a complex side: an integer scalar y by repeated multiplication (jnp's
  /// integer_pow), else exp(y * log(x)).
  AVal complexPow(AVal x, AVal y, Span span);
  /// complex(re, im): the parts promoted to one float dtype (integers to f32) and broadcast.
  AVal makeComplex(AVal re, AVal im, Span span, const char* what);
  AVal select(AVal c, AVal a, AVal b, Span span, const char* what = "select");
  /// stop_gradient(x): x with a zero derivative, a convert to its own dtype (Note [Stop
  /// gradient] in jit/transform/vjp.cpp); static and non-float values are returned as they are.
  AVal stopGradient(const AVal& x, Span span) {
    if (x.isStatic() || !(isFloat(x.type.dtype) || isComplex(x.type.dtype))) return x;
    Attrs same;
    same.dtype = x.type.dtype;
    return t_.apply1(Op::Convert, {x}, same, span);
  }

  /// `what` names the builtin in messages (default: the op's name).
  AVal reduce(Op op, const AVal& x, std::optional<std::vector<int64_t>> axes, Span span,
              const char* what = nullptr);
  AVal reshape(const AVal& x, const Shape& shape, Span span);
  AVal transpose(const AVal& x, const std::vector<int64_t>& perm, Span span);
  AVal expandDims(const AVal& x, int64_t axis, Span span);
  AVal matmul(AVal a, AVal b, Span span);
  /// NumPy's dot: `*` with a scalar, matmul for vectors and matrices, and for N-d operands the
  /// contraction of a's last axis with b's second-to-last.
  AVal dot(AVal a, AVal b, Span span);
  AVal concat(std::vector<AVal> xs, int64_t axis, Span span);
  AVal slice(const AVal& x, std::vector<int64_t> starts, std::vector<int64_t> limits,
             std::vector<int64_t> strides, Span span);
  AVal iota(DType t, const Shape& shape, int64_t dim, Span span);
  AVal full(const Shape& shape, AVal value, Span span);
  AVal constant(Array a);

  /// Normalises a possibly negative axis for rank `rank`, or E0204.
  static int64_t normAxis(int64_t axis, size_t rank, Span span, const char* what);

 private:
  /// The common dtype of matmul's and dot's operands (bool multiplies as i32).
  void promoteProductOperands(AVal& a, AVal& b, Span span);
  Tracer& t_;
};

}  // namespace scn
