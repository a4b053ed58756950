// Helpers for the kernel-lowering and backend tests: the core tests' Builder, W1's scan,
// deterministic inputs, and comparing a backend's results with the reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "jit/backend.hpp"
#include "jit/ir.hpp"
#include "base/diagnostics.hpp"
#include "core_test_util.hpp"

namespace scn::ktest {

using test::axesAttr;
using test::Builder;
using test::ty;

/// W1's scan: x = sqrt(x @ x) on (b, n, n), `reps` times, as a scan over a parameter init
/// (a batched GEMM and an elementwise op in the body).
inline FuncPtr matmulSqrtScan(DType t, int64_t b, int64_t n, int64_t reps, std::string name = "mat_scan") {
  Builder body("step");
  int c = body.param(ty(t, {b, n, n}));
  Attrs d;
  d.lhsContract = {2};
  d.rhsContract = {1};
  d.lhsBatch = {0};
  d.rhsBatch = {0};
  body.ret({body.emit1(Op::Sqrt, {body.emit1(Op::DotGeneral, {c, c}, d)})});
  Builder f(std::move(name));
  int x = f.param(ty(t, {b, n, n}));
  Attrs a;
  a.length = reps;
  a.numCarry = 1;
  return f.ret(f.emit(Op::Scan, {x}, a, {body.f}));
}

/// A scan accumulating products into its carry, as reverse mode's weight cotangent does:
/// body(acc (m, n), x (k, m), y (k, n)) -> acc + x^T @ y, over `steps` slices of xs X and Y;
/// with `showAcc` the body also returns acc as a ys (read again: no accumulating GEMM).
inline FuncPtr accumulatingScan(DType t, int64_t m, int64_t n, int64_t k, int64_t steps, bool showAcc) {
  Builder body("acc_step");
  int acc = body.param(ty(t, {m, n})), x = body.param(ty(t, {k, m})), y = body.param(ty(t, {k, n}));
  Attrs d;
  d.lhsContract = {0};
  d.rhsContract = {0};
  int sum = body.emit1(Op::Add, {acc, body.emit1(Op::DotGeneral, {x, y}, d)});
  body.ret(showAcc ? std::vector<int>{sum, acc} : std::vector<int>{sum});
  Builder f("acc_scan");
  int a0 = f.param(ty(t, {m, n})), xs = f.param(ty(t, {steps, k, m})), ys = f.param(ty(t, {steps, k, n}));
  Attrs a;
  a.length = steps;
  a.numCarry = 1;
  return f.ret(f.emit(Op::Scan, {a0, xs, ys}, a, {body.f}));
}

/// Deterministic inputs for dtype t: small values around 0 with the interesting ones mixed in
/// (zeros, negatives, NaN/inf/-0 for floats when `special`, extremes for integers).
inline Array randomArray(DType t, const Shape& shape, uint32_t seed, bool special = true) {
  Array a(t, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3, 3);
  std::uniform_int_distribution<int> pick(0, 15);
  if (isComplex(t)) {  // both parts as a float array's elements (NaN, inf, -0 mixed in)
    Array parts = randomArray(componentType(t), {2 * a.size()}, seed, special);
    std::memcpy(a.raw(), parts.raw(), a.bytes());
    return a;
  }
  for (int64_t i = 0; i < a.size(); ++i) {
    int p = pick(rng);
    if (isFloat(t)) {
      double v = u(rng);
      if (special && p == 0) v = NAN;
      if (special && p == 1) v = (i % 2) ? INFINITY : -INFINITY;
      if (special && p == 2) v = -0.0;
      if (p == 3) v = 0.5;  // round's halfway case
      a.setDouble(i, v);
    } else if (t == DType::Bool) {
      a.setInt(i, p % 2);
    } else {
      int64_t v = static_cast<int64_t>(std::floor(u(rng) * 7));
      if (p == 0) v = 0;
      if (special && p == 1) {
        v = t == DType::I32 ? INT32_MIN : t == DType::U32 ? UINT32_MAX : t == DType::I64 ? INT64_MIN : -1;
      }
      if (isUnsignedInt(t) && v < 0) v = -v;
      a.setInt(i, v);
    }
  }
  return a;
}

/// Per-dtype tolerance (docs/backend-cpu.md): exact for integers and bool; floats compare with
/// NumPy's rule |a - b| <= atol + rtol * |b|, NaN equal to NaN, infinities exactly.
inline ::testing::AssertionResult closeArrays(const Array& got, const Array& want) {
  if (got.dtype != want.dtype || got.shape != want.shape)
    return ::testing::AssertionFailure() << "type " << dtypeName(got.dtype) << shapeString(got.shape)
                                         << " vs " << dtypeName(want.dtype) << shapeString(want.shape);
  if (isComplex(want.dtype)) {  // each part as an element of a float array
    auto parts = [](const Array& x) {
      Array r(componentType(x.dtype), {2 * x.size()});
      std::memcpy(r.raw(), x.raw(), x.bytes());
      return r;
    };
    return closeArrays(parts(got), parts(want));
  }
  double rtol = want.dtype == DType::F32 ? 2e-5 : 1e-12;
  double atol = want.dtype == DType::F32 ? 1e-5 : 1e-12;
  for (int64_t i = 0; i < want.size(); ++i) {
    if (isFloat(want.dtype)) {
      double g = got.getDouble(i), w = want.getDouble(i);
      bool ok = (std::isnan(g) && std::isnan(w)) || g == w ||
                (std::isfinite(g) && std::isfinite(w) && std::fabs(g - w) <= atol + rtol * std::fabs(w));
      if (!ok)
        return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", want " << w;
    } else if (got.getUInt(i) != want.getUInt(i)) {
      return ::testing::AssertionFailure() << "element " << i << ": got " << got.getInt(i)
                                           << ", want " << want.getInt(i);
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace scn::ktest
