// Differential tests of the CPU JIT against the reference interpreter: every op of the table,
// control flow, matmul, the parallel path, the compile cache and the emitters.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "jit/collectives.hpp"
#include "jit/cpu/cpu_backend.hpp"
#include "jit/cpu/gemm.hpp"
#include "jit/cpu/gemm_bf16.hpp"
#include "jit/lowp.hpp"
#include "jit/cpu/host_blocks.hpp"
#include "jit/kernel/kernel_ir.hpp"
#include "kernel_test_util.hpp"

namespace scn {
namespace {

using ktest::axesAttr;
using ktest::Builder;
using ktest::closeArrays;
using ktest::randomArray;
using ktest::ty;
const DType F32 = DType::F32, F64 = DType::F64, I32 = DType::I32, I64 = DType::I64,
            U32 = DType::U32, Bool = DType::Bool;

struct Case {
  std::string name;
  FuncPtr f;
  std::vector<Array> args;
};

Backend& backend() {
  static std::unique_ptr<Backend> b = makeCpuBackend(2);
  return *b;
}

/// Runs f on the JIT and the interpreter and compares every result.
void check(const Case& c, RunStats* stats = nullptr) {
  SCOPED_TRACE(c.name);
  ASSERT_EQ(verify(*c.f), "");
  std::vector<Array> want = interpret(*c.f, c.args);
  std::unique_ptr<Executable> exe = backend().compile(c.f);
  std::vector<Array> got = exe->run(c.args, stats);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(closeArrays(got[i], want[i])) << "result " << i;
}

std::vector<DType> dtypesOf(TypeClass tc) {
  switch (tc) {
    case TypeClass::Any: return {Bool, I32, I64, U32, DType::U64, F32, F64, DType::C64, DType::C128};
    case TypeClass::Real: return {Bool, I32, I64, U32, DType::U64, F32, F64};
    case TypeClass::Num: return {I32, I64, U32, DType::U64, F32, F64};
    case TypeClass::NumC: return {I32, I64, U32, DType::U64, F32, F64, DType::C64, DType::C128};
    case TypeClass::Float: return {F32, F64};
    case TypeClass::FloatC: return {F32, F64, DType::C64, DType::C128};
    case TypeClass::Complex: return {DType::C64, DType::C128};
    case TypeClass::Int: return {I32, I64, U32, DType::U64};
    case TypeClass::IntBool: return {Bool, I32, I64, U32, DType::U64};
  }
  return {};
}

uint32_t seed = 1;

Case unaryCase(Op op, DType t, Shape s, Attrs a = {}) {
  Builder b(std::string(opName(op)) + "_" + dtypeName(t));
  int x = b.param(ty(t, s));
  return {b.f->name, b.ret({b.emit1(op, {x}, a, test::opSubs(op, t))}), {randomArray(t, s, seed++)}};
}

/// Cases for one op, chosen by its category.
std::vector<Case> casesFor(Op op) {
  const OpInfo& info = opInfo(op);
  std::vector<Case> cs;
  Shape s = {3, 5};
  switch (info.category) {
    case OpCategory::Unary: case OpCategory::Predicate:
      for (DType t : dtypesOf(info.typeClass)) cs.push_back(unaryCase(op, t, s));
      break;
    case OpCategory::Binary: case OpCategory::Compare:
      for (DType t : dtypesOf(info.typeClass)) {
        Builder b(std::string(opName(op)) + "_" + dtypeName(t));
        int x = b.param(ty(t, s)), y = b.param(ty(t, s));
        Array ya = randomArray(t, s, seed++);
        if (op == Op::Shl || op == Op::Shr)  // counts around and beyond the width
          for (int64_t i = 0; i < ya.size(); ++i) ya.setInt(i, (i * 7) % 70 - 3);
        cs.push_back({b.f->name, b.ret({b.emit1(op, {x, y})}), {randomArray(t, s, seed++), ya}});
      }
      break;
    case OpCategory::ComplexPart:  // complex(re, im) of two real arrays, the others of a complex one
      for (DType t : dtypesOf(info.typeClass)) {
        if (op != Op::Complex) {
          cs.push_back(unaryCase(op, t, s));
          continue;
        }
        Builder b(std::string("complex_") + dtypeName(t));
        int x = b.param(ty(t, s)), y = b.param(ty(t, s));
        cs.push_back({b.f->name, b.ret({b.emit1(op, {x, y})}), {randomArray(t, s, seed++), randomArray(t, s, seed++)}});
      }
      break;
    case OpCategory::Select:
      for (DType t : dtypesOf(info.typeClass)) {
        Builder b(std::string("select_") + dtypeName(t));
        int p = b.param(ty(Bool, s)), x = b.param(ty(t, s)), y = b.param(ty(t, s));
        cs.push_back({b.f->name, b.ret({b.emit1(op, {p, x, y})}),
                      {randomArray(Bool, s, seed++), randomArray(t, s, seed++), randomArray(t, s, seed++)}});
      }
      break;
    case OpCategory::Convert:
      for (DType from : kAllDTypes)
        for (DType to : kAllDTypes) {
          Attrs a;
          a.dtype = to;
          Case c = unaryCase(op, from, s, a);
          if (isFloat(from))  // out-of-range values saturate
            for (int64_t i = 0; i < 4; ++i) c.args[0].setDouble(i, i % 2 ? 1e20 : -3e9);
          c.name += std::string("_to_") + dtypeName(to);
          cs.push_back(c);
        }
      break;
    case OpCategory::Constant: {
      Builder b("constant");
      int x = b.param(ty(F32, {2, 3}));
      Attrs a;
      a.value = std::make_shared<Array>(randomArray(F32, {2, 3}, seed++, false));
      int c = b.emit1(op, {}, a);
      int one = b.constant(F32, 1.5, {2, 3});
      cs.push_back({"constant", b.ret({b.emit1(Op::Add, {b.emit1(Op::Mul, {x, c}), one}), c}),
                    {randomArray(F32, {2, 3}, seed++)}});
      break;
    }
    case OpCategory::Iota:
      for (DType t : {I32, F32, U32})
        for (int64_t axis : {0, 1}) {
          Builder b("iota");
          Attrs a;
          a.dtype = t;
          a.shape = {3, 4};
          a.axes = {axis};
          cs.push_back({"iota", b.ret({b.emit1(op, {}, a)}), {}});
        }
      break;
    case OpCategory::Reduce:
      // Every dtype on one axis set; every axis set on the first and last dtype of the class.
      for (DType t : dtypesOf(info.typeClass))
        for (std::vector<int64_t> axes : std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {0, 2}, {0, 1, 2}, {}}) {
          if (axes != std::vector<int64_t>{1} && t != dtypesOf(info.typeClass).front() &&
              t != dtypesOf(info.typeClass).back())
            continue;
          Case c = unaryCase(op, t, {4, 5, 6}, axesAttr(axes));
          c.args[0] = randomArray(t, {4, 5, 6}, seed++, axes.size() == 1 && axes[0] == 1);
          cs.push_back(c);
        }
      break;
    case OpCategory::ArgReduce:
      for (DType t : dtypesOf(info.typeClass))
        for (int64_t axis : {0, 1, 2})
          if (axis == 2 || isFloat(t)) cs.push_back(unaryCase(op, t, {4, 5, 6}, axesAttr({axis})));
      break;
    case OpCategory::Cumulative: case OpCategory::AssocScan:
      for (DType t : dtypesOf(info.typeClass))
        for (int64_t axis : {0, 1})
          for (bool rev : {false, true}) {
            if (t != F32 && axis != static_cast<int64_t>(rev)) continue;
            Attrs a = axesAttr({axis});
            a.reverse = rev;
            Case c = unaryCase(op, t, {4, 6}, a);
            c.args[0] = randomArray(t, {4, 6}, seed++, false);
            cs.push_back(c);
          }
      break;
    case OpCategory::BroadcastInDim: {
      Attrs a;
      a.shape = {2, 3, 4};
      a.axes = {1, 2};
      cs.push_back(unaryCase(op, F32, {3, 1}, a));
      a.axes = {0, 2};
      cs.push_back(unaryCase(op, I32, {2, 4}, a));
      break;
    }
    case OpCategory::Reshape:
      for (Shape to : std::vector<Shape>{{2, 6}, {12}, {2, 2, 3}}) {
        Attrs a;
        a.shape = to;
        cs.push_back(unaryCase(op, F32, {3, 4}, a));
        // reshape of a transpose, fused
        Builder b("reshape_of_transpose");
        int x = b.param(ty(I64, {4, 3}));
        int t = b.emit1(Op::Transpose, {x}, axesAttr({1, 0}));
        cs.push_back({b.f->name, b.ret({b.emit1(Op::Neg, {b.emit1(op, {t}, a)})}),
                      {randomArray(I64, {4, 3}, seed++)}});
      }
      break;
    case OpCategory::Transpose:
      cs.push_back(unaryCase(op, F32, {2, 3, 4}, axesAttr({2, 0, 1})));
      cs.push_back(unaryCase(op, Bool, {2, 3}, axesAttr({1, 0})));
      break;
    case OpCategory::Concat:
      for (int64_t axis : {0, 1}) {
        Builder b("concat");
        Shape s1 = axis == 1 ? Shape{2, 3} : Shape{3, 2}, s2 = axis == 1 ? Shape{2, 1} : Shape{1, 2};
        int x = b.param(ty(F32, s1)), y = b.param(ty(F32, s2)), z = b.param(ty(F32, s1));
        int ez = b.emit1(Op::Exp, {z});
        cs.push_back({"concat", b.ret({b.emit1(op, {x, y, ez}, axesAttr({axis}))}),
                      {randomArray(F32, s1, seed++), randomArray(F32, s2, seed++), randomArray(F32, s1, seed++)}});
      }
      break;
    case OpCategory::Slice: {
      Attrs a;
      a.starts = {1, 2};
      a.limits = {5, 7};
      a.strides = {2, 3};
      cs.push_back(unaryCase(op, F32, {6, 7}, a));
      a.strides = {1, 1};
      cs.push_back(unaryCase(op, U32, {6, 7}, a));
      break;
    }
    case OpCategory::Reverse:
      cs.push_back(unaryCase(op, F32, {3, 4}, axesAttr({0, 1})));
      cs.push_back(unaryCase(op, I32, {3, 4}, axesAttr({1})));
      break;
    case OpCategory::DynamicSlice:
      for (int64_t s0 : {-3, 1, 10}) {
        Builder b("dynamic_slice");
        int x = b.param(ty(F32, {6, 7})), i = b.param(ty(I32)), j = b.param(ty(I64));
        Attrs a;
        a.shape = {2, 3};
        cs.push_back({b.f->name, b.ret({b.emit1(op, {x, i, j}, a)}),
                      {randomArray(F32, {6, 7}, seed++), Array::scalarInt(I32, s0), Array::scalarInt(I64, 2)}});
      }
      break;
    case OpCategory::DynamicUpdateSlice:
      for (int64_t s0 : {-3, 1, 10})
        for (bool fusedOperand : {false, true}) {
          Builder b("dynamic_update_slice");
          int x = b.param(ty(F32, {6, 7})), u = b.param(ty(F32, {2, 3})), i = b.param(ty(I32)),
              j = b.param(ty(I32));
          int o = fusedOperand ? b.emit1(Op::Neg, {x}) : x;
          cs.push_back({b.f->name, b.ret({b.emit1(op, {o, u, i, j})}),
                        {randomArray(F32, {6, 7}, seed++), randomArray(F32, {2, 3}, seed++),
                         Array::scalarInt(I32, s0), Array::scalarInt(I32, 3)}});
        }
      break;
    case OpCategory::Gather: case OpCategory::Scatter:
      for (DType t : {F32, I32, DType::U64, DType::C64}) {
        if (t == DType::C64 && !inTypeClass(t, opInfo(op).typeClass)) continue;
        Array idx(I32, {5});
        for (int64_t k = 0; k < 5; ++k) idx.setInt(k, std::vector<int64_t>{3, -1, 8, 3, -7}[k]);
        Builder b(std::string(opName(op)) + "_" + dtypeName(t));
        int x = b.param(ty(t, {4, 3})), i = b.param(ty(I32, {5}));
        if (opInfo(op).category == OpCategory::Gather) {
          int n = b.emit1(Op::Neg, {x});  // a fused operand
          cs.push_back({b.f->name, b.ret({b.emit1(op, {n, i})}), {randomArray(t, {4, 3}, seed++), idx}});
        } else {
          int u = b.param(ty(t, {5, 3}));
          cs.push_back({b.f->name, b.ret({b.emit1(op, {x, u, i})}),
                        {randomArray(t, {4, 3}, seed++), idx, randomArray(t, {5, 3}, seed++)}});
        }
      }
      break;
    case OpCategory::DotGeneral:
      for (DType t : {F32, F64, I32, I64, DType::C64, DType::C128}) {
        struct Dims {
          Shape l, r;
          std::vector<int64_t> lc, rc, lb, rb;
        };
        for (const Dims& d : std::vector<Dims>{
                 {{4, 5}, {5, 6}, {1}, {0}, {}, {}},          // matmul
                 {{5, 4}, {5, 6}, {0}, {0}, {}, {}},          // lhs transposed
                 {{4, 5}, {6, 5}, {1}, {1}, {}, {}},          // rhs transposed
                 {{3, 4, 5}, {3, 5, 2}, {2}, {1}, {0}, {0}},  // batched
                 {{4, 3, 5}, {5, 3, 2}, {2}, {0}, {1}, {1}},  // batch dims elsewhere
                 {{5}, {5}, {0}, {0}, {}, {}},                // vector dot
                 {{2, 3}, {4}, {}, {}, {}, {}}}) {            // outer product
          Builder b("dot");
          int x = b.param(ty(t, d.l)), y = b.param(ty(t, d.r));
          Attrs a;
          a.lhsContract = d.lc;
          a.rhsContract = d.rc;
          a.lhsBatch = d.lb;
          a.rhsBatch = d.rb;
          cs.push_back({std::string("dot_") + dtypeName(t), b.ret({b.emit1(op, {x, y}, a)}),
                        {randomArray(t, d.l, seed++, false), randomArray(t, d.r, seed++, false)}});
        }
      }
      break;
    case OpCategory::Scan: {
      // Fibonacci with swapped carries; ys = a (a carry passed through).
      Builder body("fib");
      int x = body.param(ty(I32)), y = body.param(ty(I32));
      body.ret({y, body.emit1(Op::Add, {x, y}), x});
      for (bool rev : {false, true}) {
        Builder b("fib_scan");
        int a0 = b.param(ty(I32)), b0 = b.param(ty(I32));
        Attrs a;
        a.length = 12;
        a.numCarry = 2;
        a.reverse = rev;
        cs.push_back({"fib_scan", b.ret(b.emit(op, {a0, b0}, a, {body.f})),
                      {Array::scalarInt(I32, 0), Array::scalarInt(I32, 1)}});
      }
      // A const, a carry vector, xs matrix, two ys; reverse both ways.
      Builder step("step");
      int k = step.param(ty(F32, {4})), c = step.param(ty(F32, {4})), xi = step.param(ty(F32, {4}));
      int nc = step.emit1(Op::Add, {step.emit1(Op::Mul, {c, k}), xi});
      int total = step.emit1(Op::ReduceSum, {nc}, axesAttr({0}));
      step.ret({nc, step.emit1(Op::Tanh, {nc}), total});
      for (bool rev : {false, true}) {
        Builder b("vector_scan");
        int kk = b.param(ty(F32, {4})), c0 = b.param(ty(F32, {4})), xs = b.param(ty(F32, {7, 4}));
        Attrs a;
        a.length = 7;
        a.numConsts = 1;
        a.numCarry = 1;
        a.reverse = rev;
        cs.push_back({"vector_scan", b.ret(b.emit(op, {kk, b.emit1(Op::Exp, {c0}), xs}, a, {step.f})),
                      {randomArray(F32, {4}, seed++, false), randomArray(F32, {4}, seed++, false),
                       randomArray(F32, {7, 4}, seed++, false)}});
      }
      // Nested: the outer body scans each row of its x slice.
      Builder inner("inner");
      int ic = inner.param(ty(F32)), ix = inner.param(ty(F32));
      int is = inner.emit1(Op::Add, {ic, ix});
      inner.ret({is, is});
      Builder outer("outer");
      int oc = outer.param(ty(F32)), ox = outer.param(ty(F32, {5}));
      Attrs ia;
      ia.length = 5;
      ia.numCarry = 1;
      std::vector<int> r = outer.emit(op, {oc, ox}, ia, {inner.f});
      outer.ret({r[0], r[1]});
      Builder b("nested_scan");
      int c0 = b.param(ty(F32)), xs = b.param(ty(F32, {3, 5}));
      Attrs oa;
      oa.length = 3;
      oa.numCarry = 1;
      cs.push_back({"nested_scan", b.ret(b.emit(op, {c0, xs}, oa, {outer.f})),
                    {Array::scalar(F32, 0.5), randomArray(F32, {3, 5}, seed++, false)}});
      break;
    }
    case OpCategory::While: {
      // while i < n: (i, s) = (i + 1, s * 2 + v)
      Builder cond("cond");
      int n = cond.param(ty(I32)), ci = cond.param(ty(I32));
      cond.param(ty(F32, {3}));
      cond.ret({cond.emit1(Op::Lt, {ci, n})});
      Builder body("body");
      int one = body.param(ty(I32)), bi = body.param(ty(I32)), bs = body.param(ty(F32, {3}));
      body.ret({body.emit1(Op::Add, {bi, one}),
                body.emit1(Op::Add, {body.emit1(Op::Add, {bs, bs}), body.constant(F32, 0.25, {3})})});
      for (int limit : {-1, 0, 6}) {
        Builder b("while");
        int pn = b.param(ty(I32)), pone = b.param(ty(I32)), pi = b.param(ty(I32)), ps = b.param(ty(F32, {3}));
        Attrs a;
        a.numConsts = 1;
        a.numBodyConsts = 1;
        cs.push_back({"while", b.ret(b.emit(op, {pn, pone, pi, ps}, a, {cond.f, body.f})),
                      {Array::scalarInt(I32, limit), Array::scalarInt(I32, 1), Array::scalarInt(I32, 0),
                       randomArray(F32, {3}, seed++, false)}});
      }
      break;
    }
    case OpCategory::Cond: {
      auto branch = [](const char* name, Op o) {
        Builder b(name);
        int x = b.param(ty(F32, {2})), y = b.param(ty(F32, {2}));
        return b.ret({b.emit1(o, {x}), y});
      };
      std::vector<FuncPtr> three = {branch("neg", Op::Neg), branch("abs", Op::Abs), branch("floor", Op::Floor)};
      for (int64_t i : {-3, 0, 1, 2, 7}) {
        Builder b("cond");
        int p = b.param(ty(I32)), x = b.param(ty(F32, {2})), y = b.param(ty(F32, {2}));
        cs.push_back({"cond3", b.ret(b.emit(op, {p, x, y}, {}, three)),
                      {Array::scalarInt(I32, i), randomArray(F32, {2}, seed++), randomArray(F32, {2}, seed++)}});
      }
      for (int64_t i : {0, 1}) {
        Builder b("cond_bool");
        int p = b.param(ty(Bool)), x = b.param(ty(F32, {2})), y = b.param(ty(F32, {2}));
        cs.push_back({"cond2", b.ret(b.emit(op, {p, x, y}, {}, {three[0], three[1]})),
                      {Array::scalarInt(Bool, i), randomArray(F32, {2}, seed++), randomArray(F32, {2}, seed++)}});
      }
      break;
    }
    case OpCategory::Collective:
      break;  // never compiled: consumed by batching (Note [Named axes])
    case OpCategory::ProcessCollective:  // a Collective step over this process alone
      for (DType t : dtypesOf(info.typeClass)) {
        Builder b(std::string(opName(op)) + "_" + dtypeName(t));
        Attrs a;
        a.group = singleProcessGroup();
        if (op == Op::ProcessPermute) a.axes = {1, 0};  // lane 1's row to lane 0, zeros in lane 1
        cs.push_back({b.f->name, b.ret(b.emit(op, {b.param(ty(t, {2, 3}))}, a)), {randomArray(t, {2, 3}, seed++)}});
      }
      break;
    case OpCategory::Sort:  // keys (NaNs, signed zeros, ties) and an i32 payload, rows short and radix-sorted
      for (DType t : dtypesOf(info.typeClass))
        for (Shape s : {Shape{5, 3}, Shape{3, 700}})
          for (int64_t axis : {0, 1}) {
            Builder b(std::string("sort_") + dtypeName(t));
            int k = b.param(ty(t, s)), v = b.param(ty(I32, s));
            cs.push_back({b.f->name, b.ret(b.emit(op, {k, v}, axesAttr({axis}))),
                          {randomArray(t, s, seed++), randomArray(I32, s, seed++)}});
          }
      break;
    case OpCategory::Linalg:  // LAPACK against the reference implementation, batches of 0, 1 and 3
      for (DType t : dtypesOf(info.typeClass))
        for (int64_t batch : {0, 1, 3}) {
          Attrs a;
          std::vector<Array> in = test::linalgExample(op, t, batch, &a);
          Builder b(std::string(opName(op)) + "_" + dtypeName(t));
          std::vector<int> ps;
          for (const Array& x : in) ps.push_back(b.param(ty(x.dtype, x.shape)));
          cs.push_back({b.f->name, b.ret(b.emit(op, ps, a)), in});
        }
      break;
  }
  return cs;
}

TEST(CpuBackend, EveryOpMatchesTheInterpreter) {
  for (Op op : allOps()) {
    SCOPED_TRACE(opName(op));
    std::vector<Case> cs = casesFor(op);
    if (opInfo(op).category == OpCategory::Collective) continue;
    EXPECT_FALSE(cs.empty()) << "no CPU test for " << opName(op);
    for (const Case& c : cs) check(c);
  }
}

TEST(CpuBackend, ALongTransformRunsOnThePoolAndMatchesTheReference) {
  // A batch of one with n >= 2^15 takes FFTW's threaded plans on scn's pool (Note [Calling
  // FFTW]); each result must equal the reference FFT to the rounding of an f32 sum of n terms.
  struct Long { Op op; DType t; int64_t n, len; };
  for (Long l : {Long{Op::Fft, DType::C64, 1 << 16, 1 << 16}, Long{Op::Rfft, F32, 3 << 14, 3 << 14},
                 Long{Op::Irfft, DType::C128, (1 << 15) + 1, 1 << 16}, Long{Op::Ifft, DType::C128, 40000, 40000}}) {
    SCOPED_TRACE(std::string(opName(l.op)) + " of " + std::to_string(l.len));
    Builder b("long_fft");
    Attrs a;
    a.length = l.len;
    int x = b.param(ty(l.t, {l.n}));
    FuncPtr f = b.ret({b.emit1(l.op, {x}, a)});
    Array in = randomArray(l.t, {l.n}, 31, false);
    Array want = interpret(*f, {in})[0];
    Array got = backend().compile(f)->run({in}, nullptr)[0];
    ASSERT_EQ(got.size(), want.size());
    double err = 0, scale = 0;
    int64_t parts = isComplex(want.dtype) ? 2 : 1;
    for (int64_t i = 0; i < want.size() * parts; ++i) {
      double w = componentType(want.dtype) == F32 ? static_cast<const float*>(want.raw())[i] : static_cast<const double*>(want.raw())[i];
      double g = componentType(got.dtype) == F32 ? static_cast<const float*>(got.raw())[i] : static_cast<const double*>(got.raw())[i];
      err = std::max(err, std::fabs(w - g));
      scale = std::max(scale, std::fabs(w));
    }
    EXPECT_LT(err, (componentType(want.dtype) == F32 ? 1e-5 : 1e-12) * scale) << "scale " << scale;
  }
}

TEST(CpuBackend, ScanCarriesAreNotCopiedPerIteration) {
  Builder body("step");
  int c = body.param(ty(F32, {64})), x = body.param(ty(F32, {64}));
  int half = body.constant(F32, 0.5, {64});
  body.ret({body.emit1(Op::Add, {body.emit1(Op::Mul, {c, half}), x}), body.emit1(Op::Sin, {c})});
  Builder b("scan");
  int c0 = b.param(ty(F32, {64})), xs = b.param(ty(F32, {50, 64}));
  Attrs a;
  a.length = 50;
  a.numCarry = 1;
  int init = b.emit1(Op::Cos, {c0});  // a dead temporary: becomes the carry buffer, no copy
  Case cs{"scan", b.ret(b.emit(Op::Scan, {init, xs}, a, {body.f})),
          {randomArray(F32, {64}, 7, false), randomArray(F32, {50, 64}, 8, false)}};
  RunStats stats;
  check(cs, &stats);
  EXPECT_EQ(stats.copiedBytes, 0u);
}

TEST(CpuBackend, PeeledScanReadsItsParameterInPlaceAndLeavesItAlone) {
  // W1 in small: x = sqrt(x @ x) as a scan over a parameter; the first iteration reads the
  // parameter's own buffer (no copy) and must not write it.
  for (int64_t reps : {1, 2, 5}) {
    Array in = randomArray(F32, {3, 8, 8}, 21, false);
    for (int64_t i = 0; i < in.size(); ++i) in.setDouble(i, std::fabs(in.getDouble(i)) * 0.1);
    Array before = randomArray(F32, {3, 8, 8}, 21, false);
    for (int64_t i = 0; i < in.size(); ++i) before.setDouble(i, in.getDouble(i));
    RunStats stats;
    check({"mat_scan", ktest::matmulSqrtScan(F32, 3, 8, reps), {in}}, &stats);
    EXPECT_EQ(stats.copiedBytes, 0u) << reps;
    EXPECT_TRUE(closeArrays(in, before)) << "the parameter was overwritten";
  }
}

TEST(CpuBackend, ConcatsWrittenOneBlockAtATimeMatchTheInterpreter) {
  // Note [Concat blocks]: fused operands written into their blocks along the last, a middle and
  // the first axis, an empty operand among them, f32 and i64.
  for (int64_t ax : {2, 1, 0})
    for (DType t : {F32, I64}) {
      Builder b("blocks_" + std::to_string(ax) + "_" + dtypeName(t));
      Shape sx = {3, 4, 5}, sy = sx, se = sx;
      sy[ax] = 2;
      se[ax] = 0;
      int x = b.param(ty(t, sx)), y = b.param(ty(t, sy)), e = b.param(ty(t, se));
      int fx = b.emit1(Op::Neg, {x}), fy = b.emit1(Op::Mul, {y, y});
      FuncPtr f = b.ret({b.emit1(Op::Concat, {fx, e, fy, x}, axesAttr({ax}))});
      check({b.f->name, f, {randomArray(t, sx, seed++), randomArray(t, sy, seed++), randomArray(t, se, seed++)}});
    }
}

TEST(CpuBackend, RowsSharedWithAFlatKernelMatchTheInterpreter) {
  // Note [Row fusion]: a [rows, 48] kernel and a flat kernel over its [rows, 16] column blocks,
  // run as one kernel over the rows (and, at 8 rows, as two kernels); with a product between
  // them (x @ w, independent of the first kernel), the first kernel runs after the product.
  for (int64_t rows : {32, 8})
    for (bool product : {false, true}) {
      Builder b("gates_" + std::to_string(rows) + (product ? "_product" : ""));
      int x = b.param(ty(F32, {rows, 48})), bias = b.param(ty(F32, {48})), w = b.param(ty(F32, {48, 48}));
      Attrs bc;
      bc.shape = {rows, 48};
      bc.axes = {1};
      int e = b.emit1(Op::Add, {x, b.emit1(Op::BroadcastInDim, {bias}, bc)});
      Attrs d;
      d.lhsContract = {1};
      d.rhsContract = {0};
      if (product) e = b.emit1(Op::Add, {e, b.emit1(Op::DotGeneral, {x, w}, d)});
      auto block = [&](int64_t c) {
        Attrs sl;
        sl.starts = {0, c};
        sl.limits = {rows, c + 16};
        sl.strides = {1, 1};
        return b.emit1(Op::Slice, {e}, sl);
      };
      int gate = b.emit1(Op::Sigmoid, {block(0)});
      FuncPtr f = b.ret({b.emit1(Op::Mul, {gate, block(16)}), b.emit1(Op::Add, {gate, block(32)}), e});
      check({b.f->name, f, {randomArray(F32, {rows, 48}, seed++), randomArray(F32, {48}, seed++),
                            randomArray(F32, {48, 48}, seed++)}});
    }
}

TEST(CpuBackend, ScanYsPlacedInAConcatMatchTheInterpreter) {
  // W3: concat((x0[None], ys)) with the ys written at offset 1; forward and reverse.
  for (bool rev : {false, true}) {
    Builder body("step");
    int a = body.param(ty(F64)), c = body.param(ty(F64));
    int nc = body.emit1(Op::Mul, {a, c});
    body.ret({nc, body.emit1(Op::Add, {nc, c})});
    Builder b("gp");
    int x0 = b.param(ty(F64)), pa = b.param(ty(F64));
    Attrs s;
    s.length = 300;
    s.numConsts = 1;
    s.numCarry = 1;
    s.reverse = rev;
    std::vector<int> r = b.emit(Op::Scan, {pa, x0}, s, {body.f});
    Attrs one;
    one.shape = {1};
    int out = b.emit1(Op::Concat, {b.emit1(Op::Reshape, {x0}, one), r[1], b.emit1(Op::Reshape, {r[0]}, one)},
                      axesAttr({0}));
    RunStats stats;
    check({"gp", b.ret({out}), {Array::scalar(F64, 1.5), Array::scalar(F64, 1.001)}}, &stats);
    EXPECT_EQ(stats.copiedBytes, 0u);
    EXPECT_EQ(stats.peakBytes, 302u * 8 + 2 * 8) << "result + two scalar carry slots";
  }
}

TEST(CpuBackend, BigArraysTakeTheParallelPath) {
  Builder b("big");
  int x = b.param(ty(F32, {512, 512}));
  int s = b.emit1(Op::Mul, {b.emit1(Op::Sin, {x}), b.emit1(Op::Exp, {x})});
  int rows = b.emit1(Op::ReduceSum, {s}, axesAttr({1}));
  int cols = b.emit1(Op::ReduceMax, {s}, axesAttr({0}));
  int cum = b.emit1(Op::CumSum, {x}, axesAttr({1}));
  check({"big", b.ret({s, rows, cols, cum}), {randomArray(F32, {512, 512}, 11, false)}});

  Builder m("big_matmul");
  int l = m.param(ty(F64, {128, 96})), r = m.param(ty(F64, {96, 160}));
  Attrs a;
  a.lhsContract = {1};
  a.rhsContract = {0};
  check({"big_matmul", m.ret({m.emit1(Op::DotGeneral, {l, r}, a)}),
         {randomArray(F64, {128, 96}, 12, false), randomArray(F64, {96, 160}, 13, false)}});
}

TEST(CpuBackend, GemmSplitIntoRowBlocksAndBatchesMatchesTheInterpreter) {
  // Products big enough for the pool (Note [One thread pool for GEMM]): one matrix cut into row
  // blocks (m = 100 is no multiple of a block), transposed operands (a block of op(A) = A^T is
  // a column range of A), a batch of 3 also cut into blocks, and products with too few rows for
  // row blocks cut into column blocks (m = 20; a block of op(B) = B^T is a row range of B,
  // n = 520 is no multiple of a block). Entries are multiples of 1/4
  // in [-3, 3], so every sum is exact in f32 and any order of accumulation gives the same bits.
  auto quarters = [](DType t, Shape s) {
    Array x = randomArray(t, s, seed++, false);
    for (int64_t i = 0; i < x.size(); ++i) x.setDouble(i, std::round(x.getDouble(i) * 4) / 4);
    return x;
  };
  struct Dims {
    Shape l, r;
    std::vector<int64_t> lc, rc, lb, rb;
  };
  // bf16 too: its products stay bf16 on the CPU (Note [bf16 products]); quarters in [-3, 3] and
  // their exact sums round to the same bf16 whatever multiplies them.
  for (DType t : {F32, F64, DType::BF16})
    for (const Dims& d : std::vector<Dims>{{{100, 96}, {96, 130}, {1}, {0}, {}, {}},
                                           {{96, 100}, {96, 130}, {0}, {0}, {}, {}},
                                           {{100, 96}, {130, 96}, {1}, {1}, {}, {}},
                                           {{3, 100, 64}, {3, 64, 70}, {2}, {1}, {0}, {0}},
                                           {{3, 64, 100}, {3, 70, 64}, {1}, {2}, {0}, {0}},
                                           {{20, 128}, {128, 520}, {1}, {0}, {}, {}},
                                           {{128, 20}, {520, 128}, {0}, {1}, {}, {}}}) {
      Builder b("gemm_blocks");
      int x = b.param(ty(t, d.l)), y = b.param(ty(t, d.r));
      Attrs a;
      a.lhsContract = d.lc;
      a.rhsContract = d.rc;
      a.lhsBatch = d.lb;
      a.rhsBatch = d.rb;
      check({std::string("gemm_blocks_") + dtypeName(t), b.ret({b.emit1(Op::DotGeneral, {x, y}, a)}),
             {quarters(t, d.l), quarters(t, d.r)}});
    }
}

TEST(CpuBackend, AccumulatingProductsMatchTheInterpreter) {
  // Note [Accumulating products]: a scan adding x^T @ y into its carry (k = 700 is past
  // OpenBLAS's k-block, so the carry joins the first block's sum), the same with the old carry
  // also returned (not fused), and a product added to another product's dead temporary.
  // Entries are multiples of 1/4 in [-3, 3]: every sum is exact, in any order.
  auto quarters = [](DType t, Shape s) {
    Array x = randomArray(t, s, seed++, false);
    for (int64_t i = 0; i < x.size(); ++i) x.setDouble(i, std::round(x.getDouble(i) * 4) / 4);
    return x;
  };
  for (DType t : {F32, F64}) {
    for (int64_t k : {3, 700})
      for (bool showAcc : {false, true})
        check({"acc_scan", ktest::accumulatingScan(t, 40, 300, k, 4, showAcc),
               {quarters(t, {40, 300}), quarters(t, {4, k, 40}), quarters(t, {4, k, 300})}});
    Builder b("two_products");
    int x = b.param(ty(t, {30, 50})), y = b.param(ty(t, {50, 70})), z = b.param(ty(t, {30, 20})),
        w = b.param(ty(t, {20, 70}));
    Attrs d;
    d.lhsContract = {1};
    d.rhsContract = {0};
    int sum = b.emit1(Op::Add, {b.emit1(Op::DotGeneral, {x, y}, d), b.emit1(Op::DotGeneral, {z, w}, d)});
    FuncPtr f = b.ret({sum});
    EXPECT_NE(kir::printKernels(kir::lower(*f)).find(" += "), std::string::npos);
    check({"two_products", f, {quarters(t, {30, 50}), quarters(t, {50, 70}), quarters(t, {30, 20}), quarters(t, {20, 70})}});
  }
}

TEST(CpuBackend, Bf16ProductsAreRoundedOnceFromF32AndUseNativeKernelsWhereTheyAreFaster) {
  // Each layout (transposes, a row block, a batch entry) through bf16GemmRows (oneDNN where it has
  // a native kernel) and through the widened reference: both accumulate in f32 and round once,
  // so they may differ only by the order of summation: at most one bf16 ulp, rarely.
  const int64_t m = 70, n = 90, k = 200, batch = 2;
  std::vector<uint16_t> a(batch * m * k), b(batch * k * n), c1(batch * m * n), c2(batch * m * n);
  uint32_t state = 7;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return lowp::f32ToBf16(static_cast<float>(static_cast<int32_t>(state >> 8) % 2001) / 1000.0f - 1.0f);
  };
  for (uint16_t& x : a) x = next();
  for (uint16_t& x : b) x = next();
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      cpu::GemmCall g{cpu::GemmType::BF16, ta, tb, m, n, k, a.data(), ta ? m : k, m * k, b.data(), tb ? k : n, k * n,
                      nullptr, n, m * n, batch};
      std::fill(c1.begin(), c1.end(), 0xFFFF);  // NaN: an element left unwritten shows
      g.c = c1.data();
      cpu::bf16GemmRows(g, 1, 10, 60);
      g.c = c2.data();
      cpu::bf16GemmRowsWidened(g, 1, 10, 60);
      int farApart = 0, differ = 0, wrong = 0;
      for (int64_t i = 10; i < 60; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int64_t at = m * n + i * n + j;
          float x = lowp::bf16ToF32(c1[at]), y = lowp::bf16ToF32(c2[at]);
          differ += c1[at] != c2[at];
          farApart += !(std::fabs(x - y) <= std::fabs(y) * 0x1p-7f + 1e-6f);
          double want = 0;  // the widened form against the product computed here
          for (int64_t p = 0; p < k; ++p)
            want += static_cast<double>(lowp::bf16ToF32(a[m * k + (ta ? p * m + i : i * k + p)])) *
                    lowp::bf16ToF32(b[k * n + (tb ? j * k + p : p * n + j)]);
          wrong += !(std::fabs(y - want) <= std::fabs(want) * 0x1p-8 + 1e-6);
        }
      EXPECT_EQ(farApart, 0) << "transA " << ta << " transB " << tb;
      EXPECT_EQ(wrong, 0) << "widened, transA " << ta << " transB " << tb;
      EXPECT_LE(differ, 50 * n / 10) << "transA " << ta << " transB " << tb;  // rare, not systematic
      EXPECT_EQ(c1[0], 0xFFFF) << "a row outside the block was written";
    }
  std::string what = cpu::bf16GemmDescription();
  RecordProperty("bf16_gemm", what);
#if defined(__x86_64__)
  // Native where it is faster than the widened SGEMM: with AMX, or AVX512-BF16 on an AMD core.
  __builtin_cpu_init();
  bool native = what.rfind("oneDNN", 0) == 0;
  if (!__builtin_cpu_supports("avx512bf16"))
    EXPECT_FALSE(native) << what;
  else if (__builtin_cpu_is("amd"))
    EXPECT_TRUE(native) << what;
  else
    EXPECT_EQ(native, what.find("amx") != std::string::npos) << what;
#endif
}

TEST(CpuBackend, Bf16PrimitivesOfManyLayoutsStayBoundedAndCorrect) {
  // 300 row-block sizes are 300 layouts: the cache keeps the ones used last, and a product
  // whose layout was evicted is made again, still right (ones times ones: k).
  const int64_t m = 300, n = 8, k = 16;
  std::vector<uint16_t> a(m * k, lowp::f32ToBf16(1.0f)), b(k * n, lowp::f32ToBf16(1.0f)), c(m * n);
  cpu::GemmCall g{cpu::GemmType::BF16, false, false, m, n, k, a.data(), k, 0, b.data(), n, 0, c.data(), n, 0, 1};
  for (int round = 0; round < 2; ++round)
    for (int64_t rows = 1; rows <= m; ++rows) {
      std::fill(c.begin(), c.end(), 0);
      cpu::bf16GemmRows(g, 0, 0, rows);
      ASSERT_EQ(lowp::bf16ToF32(c[(rows - 1) * n + n - 1]), static_cast<float>(k)) << rows << " rows";
    }
  EXPECT_GT(cpu::bf16PrimitivesCached(), 0u);
  EXPECT_LE(cpu::bf16PrimitivesCached(), 256u);
}

TEST(CpuBackend, OpenBlasRunsOneThreadPerCallWithKernelsForTheCpusFeatures) {
  std::string what = cpu::gemmLibraryDescription();
  EXPECT_EQ(cpu::openBlasThreads(), 1) << what;
  // The kernels OpenBLAS runs are at the CPU's vector level (Note [Choosing OpenBLAS's kernels]).
  if (!std::getenv("OPENBLAS_CORETYPE")) {
    EXPECT_EQ(cpu::betterOpenBlasCore(cpu::openBlasCore(), cpu::hostVectorFeatures()), "") << what;
  }
}

TEST(CpuBackend, AnOpenBlasPickBelowTheCpuIsRaisedBeforeProducts) {
  // Issue 21's Xeon: OpenBLAS's model table gave it the Prescott kernels. Make OpenBLAS pick
  // those here through its own start-up path, then let scn check the pick.
  auto quit = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
  auto init = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
  if (!quit || !init || !cpu::hostVectorFeatures().avx2Fma || std::getenv("OPENBLAS_CORETYPE"))
    GTEST_SKIP() << "needs a DYNAMIC_ARCH OpenBLAS and an AVX2 CPU";
  std::string before = cpu::openBlasCore();
  setenv("OPENBLAS_CORETYPE", "Prescott", 1);
  quit();
  init();
  unsetenv("OPENBLAS_CORETYPE");
  ASSERT_EQ(cpu::openBlasCore(), "Prescott");
  std::string what = cpu::raiseOpenBlasKernels();
  EXPECT_EQ(cpu::openBlasCore(), cpu::hostVectorFeatures().avx512 ? "SkylakeX" : "Haswell") << what;
  EXPECT_NE(what.find("OpenBLAS picked Prescott"), std::string::npos) << what;
  Builder m("matmul_after_rechoice");
  int l = m.param(ty(F32, {64, 48})), r = m.param(ty(F32, {48, 80}));
  Attrs a;
  a.lhsContract = {1};
  a.rhsContract = {0};
  check({"matmul_after_rechoice", m.ret({m.emit1(Op::DotGeneral, {l, r}, a)}),
         {randomArray(F32, {64, 48}, 31, false), randomArray(F32, {48, 80}, 32, false)}});
  setenv("OPENBLAS_CORETYPE", before.c_str(), 1);  // leave OpenBLAS as the process had it
  quit();
  init();
  unsetenv("OPENBLAS_CORETYPE");
}

TEST(CpuBackend, OpenBlasCoresBelowTheCpusFeaturesAreRaised) {
  cpu::CpuVectorFeatures avx2{true, false}, avx512{true, true}, sse{false, false};
  EXPECT_EQ(cpu::betterOpenBlasCore("Prescott", avx512), "SkylakeX");  // issue 21's Xeon
  EXPECT_EQ(cpu::betterOpenBlasCore("Haswell", avx512), "SkylakeX");
  EXPECT_EQ(cpu::betterOpenBlasCore("Zen", avx512), "SkylakeX");  // a Zen 4 the table lacks
  EXPECT_EQ(cpu::betterOpenBlasCore("Cooperlake", avx512), "");
  EXPECT_EQ(cpu::betterOpenBlasCore("Sandybridge", avx2), "Haswell");
  EXPECT_EQ(cpu::betterOpenBlasCore("Prescott", avx2), "Haswell");
  EXPECT_EQ(cpu::betterOpenBlasCore("Zen", avx2), "");
  EXPECT_EQ(cpu::betterOpenBlasCore("SkylakeX", avx2), "");  // never lowered
  EXPECT_EQ(cpu::betterOpenBlasCore("Prescott", sse), "");
}

TEST(CpuBackend, LargeBlocksAreRecycledWithinTheLimit) {
  // Note [Recycled blocks]: a freed block of 4 MiB or more goes to the next request of its
  // rounded size; small buffers, blocks over half the limit and blocks past the limit do not.
  const size_t mib = size_t(1) << 20;
  cpu::setRecycleLimit(64 * mib);
  void* first = cpu::allocateRunBuffer(5 * mib)->data();  // rounded to 6 MiB, then freed
  EXPECT_EQ(cpu::recycledBytes(), 6 * mib);
  auto again = cpu::allocateRunBuffer(6 * mib);
  EXPECT_EQ(again->data(), first) << "the same rounded size takes the freed block";
  EXPECT_EQ(again->bytes(), 6 * mib);
  EXPECT_EQ(cpu::recycledBytes(), 0u);
  auto other = cpu::allocateRunBuffer(8 * mib);
  EXPECT_NE(other->data(), first);
  again.reset();
  other.reset();
  EXPECT_EQ(cpu::recycledBytes(), 14 * mib);
  cpu::allocateRunBuffer(40 * mib).reset();  // over half the limit: freed at once
  EXPECT_EQ(cpu::recycledBytes(), 14 * mib);
  std::vector<std::shared_ptr<Buffer>> many;
  for (int i = 0; i < 8; ++i) many.push_back(cpu::allocateRunBuffer(10 * mib));
  many.clear();  // 14 + 80 MiB > 64 MiB: the oldest blocks are freed first
  EXPECT_LE(cpu::recycledBytes(), 64 * mib);
  EXPECT_GE(cpu::recycledBytes(), 60 * mib);
  cpu::allocateRunBuffer(1 * mib).reset();  // small: a plain heap buffer
  EXPECT_LE(cpu::recycledBytes(), 64 * mib);
  cpu::setRecycleLimit(0);
  EXPECT_EQ(cpu::recycledBytes(), 0u);
  cpu::setRecycleLimit(cpu::kDefaultRecycleLimit);
}

TEST(CpuBackend, ARepeatedCallReusesTheResultBlockItDropped) {
  // sin(x * x + 1) over 2^21 f32 (8 MiB): the second call's result lands in the first call's
  // block once that result is dropped, and while it is alive it gets a block of its own.
  Builder b("w2");
  int x = b.param(ty(F32, {1 << 21}));
  int one = b.constant(F32, 1.0, {1 << 21});
  FuncPtr f = b.ret({b.emit1(Op::Sin, {b.emit1(Op::Add, {b.emit1(Op::Mul, {x, x}), one})})});
  std::unique_ptr<Executable> exe = backend().compile(f);
  std::vector<Array> args = {randomArray(F32, {1 << 21}, 31, false)};
  std::vector<Array> want = interpret(*f, args);
  std::vector<Array> r1 = exe->run(args, nullptr);
  const void* block = r1[0].buffer->data();
  std::vector<Array> r2 = exe->run(args, nullptr);
  EXPECT_NE(r2[0].buffer->data(), block) << "r1 is alive";
  EXPECT_TRUE(closeArrays(r2[0], want[0]));
  r1.clear();
  std::vector<Array> r3 = exe->run(args, nullptr);
  EXPECT_EQ(r3[0].buffer->data(), block);
  EXPECT_TRUE(closeArrays(r3[0], want[0]));
}

TEST(CpuBackend, AssociativeScanCombinesBlocksInOrder) {
  // Note [Associative scans]: "the last nonzero value" is associative but not commutative; with
  // about one nonzero per 5000 elements most of the 64 blocks hold none, so their values come
  // from the prefix of earlier blocks (and the tail's from the last block). Combining blocks out
  // of order, or a block's prefix on the wrong side, changes the result.
  Builder comb("last_nonzero");
  int acc = comb.param(ty(I32)), x = comb.param(ty(I32));
  int isSet = comb.emit1(Op::Ne, {x, comb.constant(I32, 0)});
  FuncPtr lastNonzero = comb.ret({comb.emit1(Op::Select, {isSet, x, acc})});
  const int64_t n = (1 << 17) + 3;
  for (Shape s : {Shape{n}, Shape{3, n}})
    for (bool rev : {false, true}) {
      Attrs a = axesAttr({static_cast<int64_t>(s.size()) - 1});
      a.reverse = rev;
      Builder b("assoc");
      int p = b.param(ty(I32, s));
      Case k{"last nonzero", b.ret({b.emit1(Op::AssocScan, {p}, a, {lastNonzero})}), {randomArray(I32, s, seed++)}};
      Array& v = k.args[0];
      for (int64_t i = 0; i < v.size(); ++i) v.setInt(i, v.getInt(i) % 5000 == 0 ? 1 + i % 7 : 0);
      SCOPED_TRACE(std::string(rev ? "reverse" : "forward") + " rank " + std::to_string(s.size()));
      kir::Program prog = kir::lower(*k.f);
      EXPECT_EQ(prog.kernels.size(), 4u) << "block totals, their prefixes, the blocks, the tail";
      check(k);
    }
}

TEST(CpuBackend, AssociativeScanOfTwoOperandsMultipliesTriangularMatrices) {
  // Two operands scanned together: the products of upper triangular matrices [[a, b], [0, 1]],
  // (a1, b1) (a2, b2) = (a1 * a2, a1 * b2 + b1), affine maps composed right to left (a linear
  // recurrence run backwards). In wrapping i64 arithmetic this is exactly associative, so the
  // blocked scan (each block seeded with the product of the blocks before it) equals the
  // interpreter's fold; mixing up the two operands' locals, or updating a1 before the second
  // result reads it, does not. Only `b` is used: the `a` output is dead.
  Builder comb("upper_triangular_product");
  int a1 = comb.param(ty(I64)), b1 = comb.param(ty(I64)), a2 = comb.param(ty(I64)), b2 = comb.param(ty(I64));
  FuncPtr affine = comb.ret({comb.emit1(Op::Mul, {a1, a2}), comb.emit1(Op::Add, {comb.emit1(Op::Mul, {a1, b2}), b1})});
  const int64_t n = (1 << 17) + 3;
  for (Shape s : {Shape{n}, Shape{2, n}})
    for (bool rev : {false, true}) {
      Attrs at = axesAttr({static_cast<int64_t>(s.size()) - 1});
      at.reverse = rev;
      Builder b("linear");
      int pa = b.param(ty(I64, s)), pb = b.param(ty(I64, s));
      std::vector<int> out = b.emit(Op::AssocScan, {pa, pb}, at, {affine});
      Case k{"triangular products", b.ret({out[1]}), {randomArray(I64, s, seed++), randomArray(I64, s, seed++)}};
      for (int64_t i = 0; i < k.args[0].size(); ++i) k.args[0].setInt(i, k.args[0].getInt(i) % 5);
      SCOPED_TRACE(std::string(rev ? "reverse" : "forward") + " rank " + std::to_string(s.size()));
      EXPECT_EQ(kir::lower(*k.f).kernels.size(), 4u);
      check(k);
    }
}

TEST(CpuBackend, LongCumulativeOpsMatchTheSerialScan) {
  // Note [Blocked scans]: integer scans (wrapping sums and products are associative) and
  // cummax/cummin equal the interpreter exactly; a float cumsum/cumprod is reassociated, so
  // element i may differ from the serial loop by 2 (i + 128) eps sum_{k<=i} |x_k| (cumprod:
  // 2 (i + 128) eps |p_i|), the a-priori bound of both summation orders. Losing or repeating
  // one element or one block's total breaks it.
  const int64_t n = (1 << 17) + 3;  // 64 blocks and a tail of 3
  struct Op1 { Op op; DType t; };
  for (Op1 c : {Op1{Op::CumSum, I32}, Op1{Op::CumSum, DType::U64}, Op1{Op::CumProd, I64},
                Op1{Op::CumMax, F32}, Op1{Op::CumMax, Bool}, Op1{Op::CumMin, I64},
                Op1{Op::CumSum, F64}, Op1{Op::CumProd, F64}, Op1{Op::AssocScan, F32},
                Op1{Op::AssocScan, I64}})
    for (Shape s : {Shape{n}, Shape{2, n}})
      for (bool rev : {false, true}) {
        int64_t axis = static_cast<int64_t>(s.size()) - 1;
        Attrs a = axesAttr({axis});
        a.reverse = rev;
        Case k = unaryCase(c.op, c.t, s, a);
        k.args[0] = randomArray(c.t, s, seed++, false);
        for (int64_t i = 0; c.op == Op::CumProd && i < k.args[0].size(); ++i) {
          if (isFloat(c.t))  // factors near 1, so the product stays finite
            k.args[0].setDouble(i, 1 + 1e-4 * k.args[0].getDouble(i));
          else  // odd factors: the wrapped product never becomes 0
            k.args[0].setInt(i, 2 * k.args[0].getInt(i) + 1);
        }
        SCOPED_TRACE(k.name + (rev ? " reverse" : "") + " rank " + std::to_string(s.size()));
        if (!isFloat(c.t) || c.op == Op::CumMax || c.op == Op::AssocScan) {  // exact
          check(k);
          continue;
        }
        Array want = interpret(*k.f, k.args).at(0);
        Array got = backend().compile(k.f)->run(k.args).at(0);
        const Array& x = k.args[0];
        int64_t rows = s.size() == 2 ? 2 : 1;
        for (int64_t r = 0; r < rows; ++r) {
          double absSum = 0;
          for (int64_t j = 0; j < n; ++j) {
            int64_t e = r * n + (rev ? n - 1 - j : j);
            absSum += std::fabs(x.getDouble(e));
            double w = want.getDouble(e), g = got.getDouble(e);
            double bound = 2 * static_cast<double>(j + 128) * 0x1p-53 *
                           (c.op == Op::CumSum ? absSum : std::fabs(w));
            if (!(std::fabs(g - w) <= bound)) {
              ADD_FAILURE() << "element " << e << ": got " << g << ", want " << w
                            << ", bound " << bound;
              return;
            }
          }
        }
      }
}

TEST(CpuBackend, SinCosF32AreWithinFourUlps) {
  // Vectorised f32 sin/cos are libmvec's (docs/backend-cpu.md: within 4 ulp), scalar ones
  // libm's. Against sin/cos in f64 rounded to f32 (correctly rounded but for rare double
  // roundings), over a dense sweep of [-64, 64], magnitudes 2^-30..2^127 of both signs (the
  // large-argument reduction) and the special values.
  std::vector<float> xs;
  for (int i = -(1 << 17); i <= (1 << 17); ++i) xs.push_back(static_cast<float>(i) * 0x1p-11f);
  for (float m = 0x1p-30f; std::isfinite(m); m *= 1.0001f) {
    xs.push_back(m);
    xs.push_back(-m * 1.5f);
  }
  for (float v : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p30f, 16367173.0f * 0x1p72f, 1e38f})
    xs.push_back(v);
  Array x(F32, {static_cast<int64_t>(xs.size())});
  for (size_t i = 0; i < xs.size(); ++i) x.setDouble(static_cast<int64_t>(i), xs[i]);
  for (Op op : {Op::Sin, Op::Cos}) {
    Builder b(opName(op));
    int p = b.param(ty(F32, x.shape));
    Array got = backend().compile(b.ret({b.emit1(op, {p})}))->run({x}).at(0);
    int64_t worst = 0;
    float worstX = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      double xd = xs[i];
      float want = static_cast<float>(op == Op::Sin ? std::sin(xd) : std::cos(xd));
      float g = static_cast<float>(got.getDouble(static_cast<int64_t>(i)));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(g)) << xs[i];
        continue;
      }
      if (g == want) continue;
      int32_t gi, wi;
      std::memcpy(&gi, &g, 4);
      std::memcpy(&wi, &want, 4);
      int64_t ulps = (gi < 0) != (wi < 0) ? INT64_MAX : std::abs(int64_t{gi} - wi);
      if (ulps > worst) {
        worst = ulps;
        worstX = xs[i];
      }
    }
    EXPECT_LE(worst, 4) << opName(op) << " at x = " << worstX;
    std::printf("%s f32: max error %lld ulp (x = %a) over %zu arguments\n", opName(op),
                static_cast<long long>(worst), worstX, xs.size());
  }
  // Signed zero and a tiny argument come back unchanged.
  Builder b("sin_small");
  int p = b.param(ty(F32, {2}));
  Array small(F32, {2});
  small.setDouble(0, -0.0);
  small.setDouble(1, 1e-20);
  Array got = backend().compile(b.ret({b.emit1(Op::Sin, {p})}))->run({small}).at(0);
  EXPECT_TRUE(std::signbit(got.getDouble(0)));
  EXPECT_EQ(got.getDouble(1), static_cast<double>(1e-20f));
}

TEST(CpuBackend, ALongChainCompilesAndMatchesTheInterpreter) {
  // 100000 dependent adds (an unrolled `for`) overflowed the stack in the lowering and the
  // LLVM emitter (Note [Fused expression size]).
  Builder b("chain");
  int y = b.param(ty(F32, {4}));
  for (int i = 0; i < 100000; ++i) y = b.emit1(Op::Add, {y, b.constant(F32, 1.0, {4})});
  check({"chain", b.ret({y}), {randomArray(F32, {4}, 1, false)}});
}

TEST(CpuBackend, SecondCompileHitsTheCache) {
  auto make = [] {
    Builder b("cached");
    int x = b.param(ty(F32, {10}));
    return b.ret({b.emit1(Op::Exp, {x})});
  };
  std::unique_ptr<Backend> be = makeCpuBackend(2);
  CompileStats s1, s2;
  auto e1 = be->compile(make(), &s1);
  auto e2 = be->compile(make(), &s2);
  EXPECT_FALSE(s1.cacheHit);
  EXPECT_TRUE(s2.cacheHit);
  EXPECT_EQ(s1.kernels, 1);
  Array x = randomArray(F32, {10}, 3, false);
  EXPECT_TRUE(closeArrays(e2->run({x})[0], e1->run({x})[0]));
}

TEST(CpuBackend, EmitsVectorisedLLVMAndAssembly) {
  Builder b("vec");
  int x = b.param(ty(F32, {1024}));
  FuncPtr f = b.ret({b.emit1(Op::Sin, {b.emit1(Op::Mul, {x, x})})});
  std::string ir = emitLLVM(f, 2);
  EXPECT_NE(ir.find("define void @scn_main"), std::string::npos);
  EXPECT_NE(ir.find("x float>"), std::string::npos) << ir;  // vectorised
  // sin on vectors goes to libmvec (AVX2: 8 lanes; SSE: 4) rather than a scalar loop.
  EXPECT_NE(ir.find("_ZGV"), std::string::npos) << ir;
  std::string asmText = emitAsm(f, 2);
  EXPECT_NE(asmText.find("scn_main"), std::string::npos);
}

/// A group whose collectives copy their operand `okCalls` times, then fail as a timed-out
/// allreduce does (E0440): a process that stopped.
class FailingGroup : public Collectives {
 public:
  explicit FailingGroup(int okCalls) : ok_(okCalls) {}
  int processIndex() const override { return 0; }
  int processCount() const override { return 2; }
  std::string describe() const override { return "failing"; }
  std::unique_ptr<CollectiveFailure> allReduce(const Array& x, Array& out, ProcessCombine) override {
    if (++counters.calls > ok_) return std::make_unique<CollectiveFailure>(CollectiveFailure{"E0440", "an allreduce timed out", ""});
    std::memcpy(out.raw(), x.raw(), x.size() * dtypeSize(x.dtype));
    return nullptr;
  }
  std::unique_ptr<CollectiveFailure> allGather(const Array& x, Array& out, bool) override { return allReduce(x, out, {}); }
  std::unique_ptr<CollectiveFailure> permute(const Array& x, Array& out, const std::vector<int64_t>&) override {
    return allReduce(x, out, {});
  }

 private:
  int ok_;
};

/// The code of the diagnostic `run` fails with ("" when it does not).
template <typename F>
std::string failureCode(F run) {
  try {
    run();
  } catch (const UserError& e) {
    return e.diag.code;
  }
  return "";
}

TEST(CpuBackend, AProcessCollectiveCompilesToACollectiveStep) {
  Builder b("psum");
  Attrs a;
  a.group = singleProcessGroup();
  FuncPtr f = b.ret(b.emit(Op::ProcessSum, {b.param(ty(F32, {4}))}, a));
  kir::Program p = kir::lowerStage(*f, {});  // no longer UnsupportedOnBackend
  EXPECT_EQ(kir::countSteps(p.steps, kir::StepKind::Collective), 1) << kir::printKernels(p);
  EXPECT_NE(kir::printKernels(p).find("process_sum f32[4] b"), std::string::npos) << kir::printKernels(p);
}

TEST(CpuBackend, AFailedCollectiveIsItsDiagnostic) {
  auto group = std::make_shared<FailingGroup>(1);
  Builder b("psum");
  Attrs a;
  a.group = group;
  FuncPtr f = b.ret(b.emit(Op::ProcessSum, {b.param(ty(F32, {4}))}, a));
  std::unique_ptr<Executable> exe = backend().compile(f);
  Array x = randomArray(F32, {4}, 1);
  EXPECT_TRUE(closeArrays(exe->run({x}, nullptr).at(0), x));
  EXPECT_EQ(failureCode([&] { exe->run({x}, nullptr); }), "E0440");
}

TEST(CpuBackend, AWhileLoopStopsWhenItsConditionsCollectiveFails) {
  // while pmax(c) < 100: c = c, for ever unless the collective's failure ends the run.
  auto group = std::make_shared<FailingGroup>(5);
  Attrs pa;
  pa.group = group;
  Builder cond("cond");
  int c = cond.param(ty(I32));
  cond.ret({cond.emit1(Op::Lt, {cond.emit1(Op::ProcessMax, {c}, pa), cond.constant(I32, 100, {})})});
  Builder body("body");
  body.ret({body.param(ty(I32))});
  Builder b("while");
  FuncPtr f = b.ret(b.emit(Op::While, {b.param(ty(I32))}, {}, {cond.f, body.f}));
  std::unique_ptr<Executable> exe = backend().compile(f);
  EXPECT_EQ(failureCode([&] { exe->run({Array::scalarInt(I32, 0)}, nullptr); }), "E0440");
  EXPECT_EQ(group->counters.calls, 6);  // five iterations' conditions, then the failed one
}

}  // namespace
}  // namespace scn
