// Hand-written C++ loops for the seed arithmetic, compiled with -O3 -march=native (see
// bench/CMakeLists.txt): the baselines scn's generated code is measured against.
#include <cmath>
#include <cstdint>

#include "bench/harness.hpp"

namespace scn::bench {

void plainSinLoop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::sin(x[i] * x[i] + 1.0f);
}

void plainSqrt(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::sqrt(x[i]);
}

void plainGeometric(double* out, int64_t n, double x0, double a) {
  double c = x0;
  out[0] = c;
  for (int64_t i = 1; i < n; ++i) {
    c *= a;
    out[i] = c;
  }
}

}  // namespace scn::bench
