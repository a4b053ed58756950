// The reference FFT (Note [FFT ops] in jit/fft.hpp): radix-2 for powers of two, Bluestein
// otherwise, in double precision; written for clarity, not speed.
#include "jit/fft.hpp"

#include <cmath>
#include <complex>
#include <vector>

#include "base/diagnostics.hpp"

namespace scn {

namespace {

using Cx = std::complex<double>;
constexpr double kPi = 3.14159265358979323846;

bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/// exp(sign * 2 pi i * num / den), with num reduced modulo den first so that large products
/// k * t keep their accuracy.
Cx twiddle(int sign, int64_t num, int64_t den) {
  num %= den;
  double angle = sign * 2.0 * kPi * static_cast<double>(num) / static_cast<double>(den);
  return {std::cos(angle), std::sin(angle)};
}

/// In-place unnormalised DFT with exp(sign * 2 pi i k t / n), n a power of two.
void radix2(std::vector<Cx>& x, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  for (int64_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    std::vector<Cx> w(len / 2);
    for (int64_t k = 0; k < len / 2; ++k) w[k] = twiddle(sign, k, len);
    for (int64_t start = 0; start < n; start += len)
      for (int64_t k = 0; k < len / 2; ++k) {
        Cx u = x[start + k], v = x[start + k + len / 2] * w[k];
        x[start + k] = u + v;
        x[start + k + len / 2] = u - v;
      }
  }
}

/// In-place unnormalised DFT of any length: radix-2, or Bluestein's identity
/// k t = (k^2 + t^2 - (k - t)^2) / 2, which makes the DFT a convolution with the chirp
/// exp(sign pi i m^2 / n), done by radix-2 transforms of a power-of-two length >= 2n - 1.
void dft(std::vector<Cx>& x, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (n <= 1) return;
  if (isPowerOfTwo(n)) return radix2(x, sign);
  int64_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  std::vector<Cx> chirp(n);  // exp(sign pi i t^2 / n) = twiddle(sign, t^2 mod 2n, 2n)
  for (int64_t t = 0; t < n; ++t) chirp[t] = twiddle(sign, (t * t) % (2 * n), 2 * n);
  std::vector<Cx> a(m), b(m);
  for (int64_t t = 0; t < n; ++t) a[t] = x[t] * chirp[t];
  b[0] = std::conj(chirp[0]);
  for (int64_t t = 1; t < n; ++t) b[t] = b[m - t] = std::conj(chirp[t]);
  radix2(a, -1);
  radix2(b, -1);
  for (int64_t i = 0; i < m; ++i) a[i] *= b[i];
  radix2(a, +1);
  for (int64_t k = 0; k < n; ++k) x[k] = chirp[k] * a[k] / static_cast<double>(m);
}

template <typename R>
void run(const LinalgCall& c, const void* in, void* out) {
  using C = std::complex<R>;
  const int64_t n = c.n, inLen = c.inputElems(0), outLen = c.outputElems(0);
  std::vector<Cx> x(n);
  for (int64_t b = 0; b < c.batch; ++b) {
    std::fill(x.begin(), x.end(), Cx{});
    if (c.op == Op::Rfft) {
      const R* src = static_cast<const R*>(in) + b * inLen;
      for (int64_t t = 0; t < n; ++t) x[t] = src[t];
    } else if (c.op == Op::Irfft) {  // the Hermitian extension of the n/2+1 given terms
      const C* src = static_cast<const C*>(in) + b * inLen;
      for (int64_t k = 0; k < inLen; ++k) x[k] = Cx(src[k].real(), src[k].imag());
      x[0] = x[0].real();
      if (n % 2 == 0) x[n / 2] = x[n / 2].real();
      for (int64_t k = inLen; k < n; ++k) x[k] = std::conj(x[n - k]);
    } else {
      const C* src = static_cast<const C*>(in) + b * inLen;
      for (int64_t t = 0; t < n; ++t) x[t] = Cx(src[t].real(), src[t].imag());
    }
    bool inverse = c.op == Op::Ifft || c.op == Op::Irfft;
    dft(x, inverse ? +1 : -1);
    double scale = inverse ? 1.0 / static_cast<double>(n) : 1.0;
    if (c.op == Op::Irfft) {
      R* dst = static_cast<R*>(out) + b * outLen;
      for (int64_t t = 0; t < n; ++t) dst[t] = static_cast<R>(x[t].real() * scale);
    } else {
      C* dst = static_cast<C*>(out) + b * outLen;
      for (int64_t k = 0; k < outLen; ++k)
        dst[k] = C(static_cast<R>(x[k].real() * scale), static_cast<R>(x[k].imag() * scale));
    }
  }
}

}  // namespace

void fftReference(const LinalgCall& c, const void* in, void* out) {
  SCN_ASSERT(isFftOp(c.op), "not an FFT op");
  if (componentType(c.dtype) == DType::F32) return run<float>(c, in, out);
  SCN_ASSERT(componentType(c.dtype) == DType::F64, "an FFT of a dtype that is not float or complex");
  run<double>(c, in, out);
}

}  // namespace scn
