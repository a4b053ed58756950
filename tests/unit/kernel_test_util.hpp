// Helpers for the kernel-lowering and CPU JIT tests: build IR by hand, make deterministic
// inputs, compare a backend's results with the reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "jit/backend.hpp"
#include "jit/ir.hpp"
#include "lang/diagnostics.hpp"

namespace scn::ktest {

/// Builds a Func eqn by eqn; each emit runs the shape rule, so a built function is well typed.
struct Builder {
  FuncPtr f = std::make_shared<Func>();
  explicit Builder(std::string name = "f") { f->name = std::move(name); }
  int param(Type t) {
    int v = f->newVar(std::move(t));
    f->params.push_back(v);
    return v;
  }
  std::vector<int> emit(Op op, std::vector<int> in, Attrs attrs = {}, std::vector<FuncPtr> subs = {}) {
    std::vector<Type> types;
    for (int v : in) types.push_back(f->type(v));
    InferResult r = inferTypes(op, types, attrs, subs);
    EXPECT_TRUE(r.ok()) << opName(op) << ": " << r.error;
    Eqn e{op, std::move(in), {}, std::move(attrs), std::move(subs), Span{}};
    for (const Type& t : r.types) e.outputs.push_back(f->newVar(t));
    f->eqns.push_back(e);
    return e.outputs;
  }
  int emit1(Op op, std::vector<int> in, Attrs attrs = {}, std::vector<FuncPtr> subs = {}) {
    return emit(op, std::move(in), std::move(attrs), std::move(subs)).at(0);
  }
  /// A scalar constant broadcast to `shape`.
  int constant(DType t, double v, Shape shape = {}) {
    Attrs a;
    a.value = std::make_shared<Array>(Array::scalar(t, v));
    int c = emit1(Op::Constant, {}, a);
    if (shape.empty()) return c;
    Attrs b;
    b.shape = shape;
    return emit1(Op::BroadcastInDim, {c}, b);
  }
  FuncPtr ret(std::vector<int> results) {
    f->results = std::move(results);
    return f;
  }
};

inline Type ty(DType d, Shape s = {}) { return Type{d, std::move(s)}; }

inline Attrs axesAttr(std::vector<int64_t> axes) {
  Attrs a;
  a.axes = std::move(axes);
  return a;
}

/// Deterministic inputs for dtype t: small values around 0 with the interesting ones mixed in
/// (zeros, negatives, NaN/inf/-0 for floats when `special`, extremes for integers).
inline Array randomArray(DType t, const Shape& shape, uint32_t seed, bool special = true) {
  Array a(t, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3, 3);
  std::uniform_int_distribution<int> pick(0, 15);
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
