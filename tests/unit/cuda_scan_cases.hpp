// Cumulative programs for the CUDA backend's single-pass scans (Note [Single-pass scans] in
// jit/kernel/lower_scan.cpp), and the check of their results: exact for integers, bool and
// cummax/cummin, within the note's error bound for float cumsum/cumprod.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "cuda_test_programs.hpp"

namespace scn::cudatest {

/// One cumulative op over `shape` along `axis`, with its input.
struct ScanCase {
  std::string name;
  FuncPtr f;
  std::vector<Array> args;
  Array input;  // the scanned values (the parameter, or what the fused producer computes)
  Op op = Op::CumSum;
  Shape shape;
  int64_t axis = 0;
  bool reverse = false;
};

/// Elements of a tile of the single-pass scan for dtype t (kir::kTileScanThreads x items).
inline int64_t scanTile(DType t) { return dtypeSize(t) <= 4 ? 4096 : 2048; }

/// Sizes around the tile boundaries (1, tile - 1, tile, tile + 1, odd sizes), more than 33 tiles
/// (look-back windows of 32), reverse, several rows along the last and an earlier axis, and
/// fused producers. Float cumsum inputs are non-negative so that a tile left out of a prefix is
/// far outside the error bound; float cumprod inputs are near 1.
inline std::vector<ScanCase> tileScanCases() {
  std::vector<ScanCase> out;
  uint32_t seed = 900;
  auto input = [&](Op op, DType t, const Shape& s) {
    Array a = randomArray(t, s, seed++, op == Op::CumMax || op == Op::CumMin);
    if (isFloat(t))
      for (int64_t i = 0; i < a.size(); ++i) {
        double v = a.getDouble(i);
        if (op == Op::CumSum) a.setDouble(i, std::fabs(v));
        if (op == Op::CumProd) a.setDouble(i, 1.0 + v * 1e-3);
      }
    return a;
  };
  auto add = [&](Op op, DType t, Shape s, int64_t axis, bool rev) {
    std::string name = std::string(opName(op)) + "." + dtypeName(t) + shapeString(s) + ".axis" +
                       std::to_string(axis) + (rev ? ".rev" : "");
    Builder b(name);
    int x = b.param(ty(t, s));
    Attrs a = axesAttr({axis});
    a.reverse = rev;
    FuncPtr f = b.ret({b.emit1(op, {x}, a)});
    Array in = input(op, t, s);
    out.push_back({name, f, {in}, in, op, s, axis, rev});
  };
  for (DType t : {DType::I32, DType::F32, DType::F64, DType::U64}) {
    int64_t T = scanTile(t);
    for (int64_t n : {int64_t{1}, T - 1, T, T + 1, 3 * T + 5}) add(Op::CumSum, t, {n}, 0, false);
    for (int64_t n : {T + 1, 3 * T + 5}) add(Op::CumSum, t, {n}, 0, true);
  }
  add(Op::CumSum, DType::I32, {37 * scanTile(DType::I32) + 11}, 0, false);
  add(Op::CumSum, DType::I32, {37 * scanTile(DType::I32) + 11}, 0, true);
  add(Op::CumSum, DType::F32, {40 * scanTile(DType::F32) + 3}, 0, false);
  add(Op::CumSum, DType::F64, {70 * scanTile(DType::F64) + 1}, 0, false);
  add(Op::CumProd, DType::F64, {scanTile(DType::F64) + 1}, 0, false);
  add(Op::CumProd, DType::F64, {5 * scanTile(DType::F64) + 7}, 0, true);
  add(Op::CumProd, DType::F32, {2 * scanTile(DType::F32) + 3}, 0, false);
  add(Op::CumProd, DType::I32, {3 * scanTile(DType::I32) + 1}, 0, true);
  add(Op::CumMax, DType::F32, {3 * scanTile(DType::F32) + 2}, 0, false);
  add(Op::CumMax, DType::I64, {2 * scanTile(DType::I64) + 1}, 0, true);
  add(Op::CumMax, DType::Bool, {scanTile(DType::Bool) + 5}, 0, false);
  add(Op::CumMin, DType::F64, {4 * scanTile(DType::F64)}, 0, false);
  add(Op::CumMin, DType::U32, {scanTile(DType::U32) + 9}, 0, true);
  add(Op::CumSum, DType::F32, {3, 2 * scanTile(DType::F32) + 7}, 1, true);
  add(Op::CumSum, DType::I32, {2 * scanTile(DType::I32) + 3, 5}, 0, false);
  add(Op::CumMax, DType::F64, {2, 3, scanTile(DType::F64) + 1}, 2, false);
  {  // a fused producer: cumsum(x * 2)
    int64_t n = scanTile(DType::F32) + 1;
    Builder b("cumsum.fused");
    int x = b.param(ty(DType::F32, {n}));
    int y = b.emit1(Op::Mul, {x, b.constant(DType::F32, 2, {n})});
    Array in = input(Op::CumSum, DType::F32, {n}), twice(DType::F32, {n});
    for (int64_t i = 0; i < n; ++i) twice.setDouble(i, 2 * in.getDouble(i));
    out.push_back({"cumsum.fused", b.ret({b.emit1(Op::CumSum, {y}, axesAttr({0}))}), {in}, twice,
                   Op::CumSum, {n}, 0, false});
  }
  {  // W3: the cumprod of a constant reads no memory
    int64_t n = 3 * scanTile(DType::F64) + 1;
    Builder b("cumprod.constant");
    b.param(ty(DType::F64, {1}));
    int c = b.constant(DType::F64, 1.0001, {n});
    Array ones(DType::F64, {n});
    for (int64_t i = 0; i < n; ++i) ones.setDouble(i, 1.0001);
    out.push_back({"cumprod.constant", b.ret({b.emit1(Op::CumProd, {c}, axesAttr({0}))}),
                   {Array(DType::F64, {1})}, ones, Op::CumProd, {n}, 0, false});
  }
  return out;
}

/// The bandwidth program of the GPU bench: a scan of `length` iterations over a carry of n
/// elements broadcast from a scalar parameter, c' = op(c * 2^-30) (op CumSum, or Neg for a
/// copy-like elementwise kernel; the scale keeps a cumsum finite), returning the first element.
inline FuncPtr bandwidthProgram(Op op, DType t, int64_t n, int64_t length) {
  Builder body("step");
  int c = body.param(ty(t, {n}));
  int scaled = body.emit1(Op::Mul, {c, body.constant(t, std::ldexp(1.0, -30), {n})});
  body.ret({op == Op::Neg ? body.emit1(Op::Neg, {scaled}) : body.emit1(op, {scaled}, axesAttr({0}))});
  Builder b("bandwidth");
  int x = b.param(ty(t));
  Attrs bc;
  bc.shape = {n};
  Attrs a;
  a.length = length;
  a.numCarry = 1;
  int last = b.emit(Op::Scan, {b.emit1(Op::BroadcastInDim, {x}, bc)}, a, {body.f})[0];
  Attrs sl;
  sl.starts = {0};
  sl.limits = {1};
  sl.strides = {1};
  return b.ret({b.emit1(Op::Slice, {last}, sl)});
}

/// got against the interpreter's `want`: exact for integers, bool and cummax/cummin; for a float
/// cumsum, |got - S| <= (min(p + 1, tile) + 20 + 8 * (p / tile)) * eps * sum |x| at scan position
/// p against the exact prefix S (long double), for cumprod the same bound relative to |P| (Note
/// [Single-pass scans], with the serial order inside a tile that the emulation uses).
inline ::testing::AssertionResult checkScan(const ScanCase& c, const Array& got, const Array& want) {
  if (!isFloat(want.dtype) || c.op == Op::CumMax || c.op == Op::CumMin) return ktest::closeArrays(got, want);
  if (got.dtype != want.dtype || got.shape != want.shape) return ktest::closeArrays(got, want);
  const Array& x = c.input;
  int64_t n = c.shape[c.axis], before = 1, after = 1, tile = scanTile(want.dtype);
  for (int64_t d = 0; d < c.axis; ++d) before *= c.shape[d];
  for (size_t d = c.axis + 1; d < c.shape.size(); ++d) after *= c.shape[d];
  long double eps = want.dtype == DType::F32 ? std::ldexp(1.0L, -24) : std::ldexp(1.0L, -53);
  for (int64_t o1 = 0; o1 < before; ++o1)
    for (int64_t o2 = 0; o2 < after; ++o2) {
      long double exact = c.op == Op::CumSum ? 0 : 1, mag = 0;
      for (int64_t p = 0; p < n; ++p) {
        int64_t i = (o1 * n + (c.reverse ? n - 1 - p : p)) * after + o2;
        long double v = x.getDouble(i);
        if (c.op == Op::CumSum) {
          exact += v;
          mag += std::fabs(v);
        } else {
          exact *= v;
          mag = std::fabs(exact);
        }
        long double depth = std::min(p + 1, tile) + 20 + 8 * (p / tile);
        long double err = std::fabs(static_cast<long double>(got.getDouble(i)) - exact);
        if (!(err <= depth * eps * mag * 1.01L))
          return ::testing::AssertionFailure()
                 << "element " << i << " (scan position " << p << "): got " << got.getDouble(i)
                 << ", exact " << static_cast<double>(exact) << ", interpreter " << want.getDouble(i)
                 << ", error " << static_cast<double>(err) << " over the bound "
                 << static_cast<double>(depth * eps * mag);
      }
    }
  return ::testing::AssertionSuccess();
}

}  // namespace scn::cudatest
