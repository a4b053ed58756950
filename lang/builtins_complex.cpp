// Builtins of complex numbers: real, imag, conj, angle and complex (Note [Complex numbers] in
// jit/scalar/complex.inc). abs(z) is the op table's abs (ArrayOps::unary gives complex_abs).
#include <cmath>

#include "lang/builtin_args.hpp"

namespace scn {

namespace {

// real(x), as jnp.real: the real part of a complex x (f32 of c64, f64 of c128); a real x itself.
Value real(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "real", {"x"});
  AVal x = a.array(0);
  return arr(isComplex(x.type.dtype) ? ev.ops().complexPart(Op::Real, x, c.span) : x);
}

// imag(x), as jnp.imag: the imaginary part of a complex x; zeros of x's dtype for a real x.
Value imag(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "imag", {"x"});
  AVal x = a.array(0);
  if (isComplex(x.type.dtype)) return arr(ev.ops().complexPart(Op::Imag, x, c.span));
  AVal zero = ev.ops().convert(weakInt(0), x.type.dtype, c.span);
  zero.weak = x.weak;
  return arr(ev.ops().full(x.type.shape, zero, c.span));
}

// conj(x) / conjugate(x), as jnp.conj: re - im*1j; a real x itself.
Value conj(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "conj", {"x"});
  AVal x = a.array(0);
  return arr(isComplex(x.type.dtype) ? ev.ops().complexPart(Op::Conj, x, c.span) : x);
}

// angle(x, deg=false), as jnp.angle: atan2(imag(x), real(x)) in radians (degrees with deg);
// a real x is treated as x + 0j (0 or pi; integers give f32).
Value angle(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "angle", {"x", "deg="});
  AVal x = a.array(0);
  bool deg = a.boolean(1, false);
  AVal r;
  if (isComplex(x.type.dtype)) {
    r = ev.ops().complexPart(Op::Angle, x, c.span);
  } else {
    AVal zero = ev.ops().convert(weakInt(0), x.type.dtype, c.span);
    zero.weak = x.weak;
    r = ev.ops().binary(Op::Atan2, ev.ops().full(x.type.shape, zero, c.span), x, c.span, "angle");
  }
  if (deg) r = ev.ops().binary(Op::Mul, r, weakFloat(180.0 / M_PI), c.span, "angle");
  return arr(r);
}

// complex(x, y), as lax.complex: x + y*1j from two real arrays (broadcast; integers as f32).
Value complexFn(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "complex", {"x", "y"});
  AVal x = a.array(0), y = a.array(1);
  for (size_t i = 0; i < 2; ++i) {
    const AVal& v = i == 0 ? x : y;
    if (isComplex(v.type.dtype))
      fail("E0374", a.span(i),
           std::string("complex(x, y) takes two real arrays, got ") + surfaceTypeString(v) + " for " + (i == 0 ? "x" : "y"),
           "complex builds x + y*1j from real parts; for complex arrays write `x + y * 1j` directly");
  }
  return arr(ev.ops().makeComplex(x, y, c.span, "complex"));
}

}  // namespace

BuiltinDefs complexBuiltins() {
  return {{},
          {
              {"real(x)", "the real part of x, elementwise (x itself when x is real)", real},
              {"imag(x)", "the imaginary part of x, elementwise (zeros when x is real)", imag},
              {"conj(x)", "the complex conjugate of x, elementwise (x itself when x is real)", conj},
              {"conjugate(x)", "the same as conj", conj},
              {"angle(x, deg=false)", "the argument of x, atan2(imag(x), real(x)), in radians (degrees with deg), elementwise", angle},
              {"complex(x, y)", "x + y*1j from the real arrays x and y (lax.complex), elementwise", complexFn},
          }};
}

}  // namespace scn
