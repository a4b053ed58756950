// Reference kernels of the elementwise categories: a loop over elements around jit/scalar.hpp.
#include "jit/interp_kernels.hpp"
#include "jit/scalar.hpp"

namespace scn::interp {

Array unaryOp(Op op, const Array& x, const Type& out) {
  Array r(out.dtype, out.shape);
  dispatchWithComplex(x.dtype, [&]<typename T>() {
    const T* p = x.data<T>();
    T* o = r.data<T>();
    for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = scalar::unary<T>(op, p[i]);
  });
  return r;
}

Array predicateOp(Op op, const Array& x, const Type& out) {
  Array r(out.dtype, out.shape);
  bool* o = r.data<bool>();
  dispatchDType(x.dtype, [&]<typename T>() {
    const T* p = x.data<T>();
    for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = scalar::predicate<T>(op, p[i]);
  });
  return r;
}

Array binaryOp(Op op, const Array& a, const Array& b, const Type& out) {
  Array r(out.dtype, out.shape);
  dispatchWithComplex(a.dtype, [&]<typename T>() {
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* o = r.data<T>();
    for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = scalar::binary<T>(op, pa[i], pb[i]);
  });
  return r;
}

Array compareOp(Op op, const Array& a, const Array& b, const Type& out) {
  Array r(out.dtype, out.shape);
  bool* o = r.data<bool>();
  dispatchWithComplex(a.dtype, [&]<typename T>() {
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = scalar::compare<T>(op, pa[i], pb[i]);
  });
  return r;
}

Array selectOp(const Array& pred, const Array& a, const Array& b, const Type& out) {
  Array r(out.dtype, out.shape);
  const bool* c = pred.data<bool>();
  dispatchWithComplex(a.dtype, [&]<typename T>() {
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* o = r.data<T>();
    for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = c[i] ? pa[i] : pb[i];
  });
  return r;
}

Array convertOp(const Array& x, const Type& out) {
  Array r(out.dtype, out.shape);
  dispatchWithLowPrecision(x.dtype, [&]<typename From>() {
    dispatchWithLowPrecision(out.dtype, [&]<typename To>() {
      const From* p = x.data<From>();
      To* o = r.data<To>();
      for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = scalar::convert<To, From>(p[i]);
    });
  });
  return r;
}

Array complexPartOp(Op op, const std::vector<Array>& in, const Type& out) {
  Array r(out.dtype, out.shape);
  auto each = [&]<typename C>() {
    using T = scalar::PartOf<C>;
    const int64_t n = r.size();
    if (op == Op::Complex) {
      const T* re = in[0].data<T>();
      const T* im = in[1].data<T>();
      C* o = r.data<C>();
      for (int64_t i = 0; i < n; ++i) o[i] = ::scn_complex(re[i], im[i]);
      return;
    }
    const C* p = in[0].data<C>();
    if (op == Op::Conj) {
      C* o = r.data<C>();
      for (int64_t i = 0; i < n; ++i) o[i] = ::scn_conj(p[i]);
      return;
    }
    T* o = r.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      switch (op) {
        case Op::Real: o[i] = ::scn_real(p[i]); break;
        case Op::Imag: o[i] = ::scn_imag(p[i]); break;
        case Op::ComplexAbs: o[i] = ::scn_complex_abs(p[i]); break;
        case Op::Angle: o[i] = ::scn_angle(p[i]); break;
        default: internalError(std::string("complexPartOp: ") + opName(op));
      }
    }
  };
  if (out.dtype == DType::C128 || in[0].dtype == DType::C128) each.template operator()<c128>();
  else each.template operator()<c64>();
  return r;
}

}  // namespace scn::interp
