// Complex conjugation that is the identity on real scalars, so one text of a matrix algorithm
// runs on real and std::complex elements alike (the reference linear algebra in jit/linalg.cpp,
// the LAPACK driver in jit/cpu/lapack.cpp).
#pragma once

#include <complex>

namespace scn {

template <typename T> constexpr bool kIsStdComplex = false;
template <typename T> constexpr bool kIsStdComplex<std::complex<T>> = true;

template <typename T> T conjugate(T x) {
  if constexpr (kIsStdComplex<T>) return std::conj(x);
  else return x;
}

}  // namespace scn
