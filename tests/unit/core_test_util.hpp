// Helpers for the core unit tests: build IR functions by hand and make/read small arrays.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "jit/backend.hpp"
#include "jit/fft.hpp"
#include "jit/ir.hpp"
#include "base/diagnostics.hpp"

namespace scn::test {

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
    std::vector<int> out = emit(op, std::move(in), std::move(attrs), std::move(subs));
    return out.empty() ? -1 : out[0];
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

/// An array of `dtype` and `shape` holding `values` (converted from double).
inline Array arr(DType dtype, Shape shape, const std::vector<double>& values) {
  Array a(dtype, std::move(shape));
  EXPECT_EQ(static_cast<int64_t>(values.size()), a.size());
  for (size_t i = 0; i < values.size(); ++i) a.setDouble(static_cast<int64_t>(i), values[i]);
  return a;
}

inline std::vector<double> values(const Array& a) {
  std::vector<double> v;
  for (int64_t i = 0; i < a.size(); ++i) v.push_back(a.getDouble(i));
  return v;
}

inline Attrs axesAttr(std::vector<int64_t> axes) {
  Attrs a;
  a.axes = std::move(axes);
  return a;
}

/// The sub-functions a generic test of `op` on dtype t needs: associative_scan's combiner (a
/// maximum written as a compare and a select, so it is not cummax in disguise; exact, for every
/// dtype); none for the ops without sub-functions.
inline std::vector<FuncPtr> opSubs(Op op, DType t) {
  if (op != Op::AssocScan) return {};
  if (isComplex(t)) {  // complex numbers have no order: a sum
    Builder b("add");
    int a = b.param(ty(t)), x = b.param(ty(t));
    return {b.ret({b.emit1(Op::Add, {a, x})})};
  }
  Builder b("max_by_select");
  int a = b.param(ty(t)), x = b.param(ty(t));
  return {b.ret({b.emit1(Op::Select, {b.emit1(Op::Gt, {x, a}), x, a})})};
}

/// A use of Linalg op `op` on `batch` well-conditioned matrices of dtype t (symmetric positive
/// definite with distinct eigenvalues: the Hilbert matrix plus a diagonal that grows with the
/// batch index; Qr and Svd get tall [batch, 4, 3] matrices): its attrs and inputs. Every op's
/// results are then unique (eigenvector and singular vector signs by Note [Linear algebra ops]),
/// so any two implementations must agree; Svd uses the reduced factors (a full u is not unique).
/// FFT ops (Note [FFT ops]) get [batch, 2, 6] operands (irfft: 4 terms to 7 points), complex ones
/// with distinct real and imaginary parts: lengths that are not powers of two, so the reference
/// takes Bluestein's path.
inline std::vector<Array> linalgExample(Op op, DType t, int64_t batch, Attrs* attrs) {
  if (isFftOp(op)) {
    *attrs = Attrs{};
    attrs->length = 7;
    Array a(t, {batch, 2, op == Op::Irfft ? 4 : 6});
    int64_t parts = isComplex(t) ? 2 : 1;
    for (int64_t i = 0; i < a.size() * parts; ++i) {
      double v = std::sin(1.0 + 0.7 * static_cast<double>(i)) + 0.1 * static_cast<double>(i % 3);
      if (!isComplex(t)) a.setDouble(i, v);
      else if (t == DType::C64) static_cast<float*>(a.raw())[i] = static_cast<float>(v);
      else static_cast<double*>(a.raw())[i] = v;
    }
    return {a};
  }
  bool tall = op == Op::Qr || op == Op::Svd;
  int64_t m = tall ? 4 : 3, n = 3;
  Array a(t, {batch, m, n});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        a.setDouble((b * m + i) * n + j, 1.0 / (1 + i + j) + (i == j ? 0.5 * (1 + b) + 0.1 * i : 0) + (tall ? 0.05 * i * j : 0));
  *attrs = Attrs{};
  attrs->fullMatrices = op != Op::Svd;
  attrs->lower = true;
  if (op != Op::TriangularSolve) return {a};
  Array rhs(t, {batch, n, 2});
  for (int64_t i = 0; i < rhs.size(); ++i) rhs.setDouble(i, 1 + 0.25 * i);
  return {a, rhs};
}

}  // namespace scn::test
