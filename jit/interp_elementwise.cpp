// Reference kernels of the elementwise categories: a loop over elements around jit/scalar.hpp.
#include "jit/interp_kernels.hpp"
#include "jit/scalar.hpp"

namespace scn::interp {

Array unaryOp(Op op, const Array& x, const Type& out) {
  Array r(out.dtype, out.shape);
  dispatchDType(x.dtype, [&]<typename T>() {
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
  dispatchDType(a.dtype, [&]<typename T>() {
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
  dispatchDType(a.dtype, [&]<typename T>() {
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = scalar::compare<T>(op, pa[i], pb[i]);
  });
  return r;
}

Array selectOp(const Array& pred, const Array& a, const Array& b, const Type& out) {
  Array r(out.dtype, out.shape);
  const bool* c = pred.data<bool>();
  dispatchDType(a.dtype, [&]<typename T>() {
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* o = r.data<T>();
    for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = c[i] ? pa[i] : pb[i];
  });
  return r;
}

Array convertOp(const Array& x, const Type& out) {
  Array r(out.dtype, out.shape);
  dispatchDType(x.dtype, [&]<typename From>() {
    dispatchDType(out.dtype, [&]<typename To>() {
      const From* p = x.data<From>();
      To* o = r.data<To>();
      for (int64_t i = 0, n = r.size(); i < n; ++i) o[i] = scalar::convert<To, From>(p[i]);
    });
  });
  return r;
}

}  // namespace scn::interp
