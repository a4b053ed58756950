// The sin(x ** 2 + 1) loop compiled with -O3 -march=native -ffast-math, so GCC vectorises it
// with glibc's libmvec (_ZGVdN8v_sinf): the best a single-threaded hand-written loop does.
#include <cmath>
#include <cstdint>

#include "bench/harness.hpp"

namespace scn::bench {

void plainSinLoopFastMath(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::sin(x[i] * x[i] + 1.0f);
}

}  // namespace scn::bench
