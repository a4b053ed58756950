// Programs for the CUDA backend tests: every op of the op table (walked, per dtype of its type
// class) plus fusion chains, scan (nested, reverse), while and cond, each with its inputs.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "kernel_test_util.hpp"

namespace scn::cudatest {

using ktest::axesAttr;
using ktest::Builder;
using ktest::randomArray;
using ktest::ty;

/// One program with its inputs.
struct TestProgram {
  std::string name;
  FuncPtr f;
  std::vector<Array> args;
};

inline bool inClass(DType t, TypeClass c) { return inTypeClass(t, c); }

/// Whether inputs with infinities and NaNs make `op`'s result depend on the order of its
/// combining steps: a complex product of infinities is NaN or inf by the order the partial
/// products meet (the textbook formula, Note [Complex numbers]), and the emulated kernels and the
/// interpreter multiply in different orders. Such ops get finite inputs.
inline bool orderSensitive(Op op, DType t) { return isComplex(t) && (op == Op::ReduceProd || op == Op::CumProd); }

inline Array scalarI32(int64_t v) { return Array::scalarInt(DType::I32, v); }

/// A vector of `t` holding `values`.
inline Array arr(DType t, const std::vector<double>& values) {
  Array a(t, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) a.setDouble(static_cast<int64_t>(i), values[i]);
  return a;
}

/// Collects programs and which ops they use.
struct ProgramSet {
  std::vector<TestProgram> programs;
  std::set<Op> used;
  uint32_t seed = 1;

  void add(std::string name, FuncPtr f, std::vector<Array> args) {
    noteOps(*f);
    programs.push_back({std::move(name), std::move(f), std::move(args)});
  }
  void noteOps(const Func& f) {
    for (const Eqn& e : f.eqns) {
      used.insert(e.op);
      for (const FuncPtr& s : e.subs) noteOps(*s);
    }
  }
  Array rnd(DType t, const Shape& s, bool special = true) { return randomArray(t, s, seed++, special); }
};

/// One program per op, per dtype of the op's type class, built from the op's category.
inline void addOpPrograms(ProgramSet& ps) {
  const Shape S = {3, 7};
  for (Op op : allOps()) {
    const OpInfo& info = opInfo(op);
    std::string base = info.name;
    for (DType t : kAllDTypes) {
      if (!inClass(t, info.typeClass)) continue;
      std::string name = base + "." + dtypeName(t);
      Builder b(name);
      switch (info.category) {
        case OpCategory::ComplexPart: {  // complex(re, im) of two real arrays, the others of a complex one
          int x = b.param(ty(t, S));
          if (op != Op::Complex) {
            ps.add(name, b.ret({b.emit1(op, {x})}), {ps.rnd(t, S)});
            break;
          }
          int y = b.param(ty(t, S));
          ps.add(name, b.ret({b.emit1(op, {x, y})}), {ps.rnd(t, S), ps.rnd(t, S)});
          break;
        }
        case OpCategory::Unary: case OpCategory::Predicate: {
          int x = b.param(ty(t, S));
          ps.add(name, b.ret({b.emit1(op, {x})}), {ps.rnd(t, S)});
          break;
        }
        case OpCategory::Binary: case OpCategory::Compare: {
          int x = b.param(ty(t, S)), y = b.param(ty(t, S));
          ps.add(name, b.ret({b.emit1(op, {x, y})}), {ps.rnd(t, S), ps.rnd(t, S)});
          break;
        }
        case OpCategory::Select: {
          int p = b.param(ty(DType::Bool, S)), x = b.param(ty(t, S)), y = b.param(ty(t, S));
          ps.add(name, b.ret({b.emit1(op, {p, x, y})}),
                 {ps.rnd(DType::Bool, S), ps.rnd(t, S), ps.rnd(t, S)});
          break;
        }
        case OpCategory::Convert:
          for (DType to : kAllDTypes) {
            Builder c(name + "->" + dtypeName(to));
            int x = c.param(ty(t, S));
            Attrs a;
            a.dtype = to;
            ps.add(c.f->name, c.ret({c.emit1(op, {x}, a)}), {ps.rnd(t, S)});
          }
          break;
        case OpCategory::Constant: {
          // A non-scalar constant is a Const buffer; a scalar one is folded into the kernel.
          int x = b.param(ty(t, {2, 3}));
          Attrs a;
          a.value = std::make_shared<Array>(ps.rnd(t, {2, 3}));
          int c = b.emit1(op, {}, a);
          Attrs s;
          s.value = std::make_shared<Array>(ps.rnd(t, {}, false));
          int k = b.emit1(op, {}, s);
          Attrs bc;
          bc.shape = {2, 3};
          int kb = b.emit1(Op::BroadcastInDim, {k}, bc);
          Op comb = t == DType::Bool ? Op::Xor : isComplex(t) ? Op::Add : Op::Max;
          int r = b.emit1(comb, {b.emit1(comb, {x, c}), kb});
          ps.add(name, b.ret({r, c}), {ps.rnd(t, {2, 3})});
          break;
        }
        case OpCategory::Iota: {
          if (t == DType::Bool) break;
          for (int64_t dim : {0, 1}) {
            Builder c(name + ".dim" + std::to_string(dim));
            Attrs a;
            a.dtype = t;
            a.shape = {4, 6};
            a.axes = {dim};
            int x = c.param(ty(t, {4, 6}));
            ps.add(c.f->name, c.ret({c.emit1(Op::Max, {c.emit1(op, {}, a), x})}), {ps.rnd(t, {4, 6})});
          }
          break;
        }
        case OpCategory::Reduce:
          for (std::vector<int64_t> axes : std::vector<std::vector<int64_t>>{{1}, {0}, {0, 1}, {0, 2}}) {
            std::string n = name + ".axes";
            for (int64_t ax : axes) n += std::to_string(ax);
            Builder c(n);
            int x = c.param(ty(t, {3, 4, 5}));
            ps.add(n, c.ret({c.emit1(op, {x}, axesAttr(axes))}), {ps.rnd(t, {3, 4, 5}, !orderSensitive(op, t))});
          }
          break;
        case OpCategory::ArgReduce:
          for (int64_t ax : {0, 1}) {
            Builder c(name + ".axis" + std::to_string(ax));
            int x = c.param(ty(t, S));
            ps.add(c.f->name, c.ret({c.emit1(op, {x}, axesAttr({ax}))}), {ps.rnd(t, S)});
          }
          break;
        case OpCategory::Cumulative: case OpCategory::AssocScan:
          for (int64_t ax : {0, 1})
            for (bool rev : {false, true}) {
              Builder c(name + ".axis" + std::to_string(ax) + (rev ? ".rev" : ""));
              int x = c.param(ty(t, S));
              Attrs a = axesAttr({ax});
              a.reverse = rev;
              ps.add(c.f->name, c.ret({c.emit1(op, {x}, a, test::opSubs(op, t))}), {ps.rnd(t, S, !orderSensitive(op, t))});
            }
          break;
        case OpCategory::BroadcastInDim: {
          int x = b.param(ty(t, {3, 1}));
          Attrs a;
          a.shape = {2, 3, 4};
          a.axes = {1, 2};
          ps.add(name, b.ret({b.emit1(op, {x}, a)}), {ps.rnd(t, {3, 1})});
          break;
        }
        case OpCategory::Reshape: {
          int x = b.param(ty(t, {4, 6}));
          Attrs a;
          a.shape = {3, 8};
          Attrs tr = axesAttr({1, 0});
          // A reshape of a transpose: the flat index goes through both.
          ps.add(name, b.ret({b.emit1(op, {b.emit1(Op::Transpose, {x}, tr)}, a)}), {ps.rnd(t, {4, 6})});
          break;
        }
        case OpCategory::Transpose: {
          int x = b.param(ty(t, {2, 3, 4}));
          ps.add(name, b.ret({b.emit1(op, {x}, axesAttr({2, 0, 1}))}), {ps.rnd(t, {2, 3, 4})});
          break;
        }
        case OpCategory::Concat: {
          int x = b.param(ty(t, {2, 3})), y = b.param(ty(t, {2, 1})), z = b.param(ty(t, {2, 4}));
          ps.add(name, b.ret({b.emit1(op, {x, y, z}, axesAttr({1}))}),
                 {ps.rnd(t, {2, 3}), ps.rnd(t, {2, 1}), ps.rnd(t, {2, 4})});
          break;
        }
        case OpCategory::Slice: {
          int x = b.param(ty(t, {5, 9}));
          Attrs a;
          a.starts = {1, 2};
          a.limits = {5, 9};
          a.strides = {2, 3};
          ps.add(name, b.ret({b.emit1(op, {x}, a)}), {ps.rnd(t, {5, 9})});
          break;
        }
        case OpCategory::Reverse: {
          int x = b.param(ty(t, {3, 4}));
          ps.add(name, b.ret({b.emit1(op, {x}, axesAttr({1}))}), {ps.rnd(t, {3, 4})});
          break;
        }
        case OpCategory::DynamicSlice: {
          int x = b.param(ty(t, {5, 6})), i = b.param(ty(DType::I32)), j = b.param(ty(DType::I32));
          Attrs a;
          a.shape = {2, 3};
          ps.add(name, b.ret({b.emit1(op, {x, i, j}, a)}), {ps.rnd(t, {5, 6}), scalarI32(-2), scalarI32(4)});
          break;
        }
        case OpCategory::DynamicUpdateSlice: {
          int x = b.param(ty(t, {5, 6})), u = b.param(ty(t, {2, 3}));
          int i = b.param(ty(DType::I32)), j = b.param(ty(DType::I32));
          ps.add(name, b.ret({b.emit1(op, {x, u, i, j})}),
                 {ps.rnd(t, {5, 6}), ps.rnd(t, {2, 3}), scalarI32(2), scalarI32(9)});
          break;
        }
        case OpCategory::Gather: {
          int x = b.param(ty(t, {5, 6})), i = b.param(ty(DType::I32, {2, 3}));
          Array idx(DType::I32, {2, 3});
          for (int64_t k = 0; k < 6; ++k) idx.setInt(k, std::vector<int64_t>{4, -1, 7, 0, -9, 2}[k]);
          ps.add(name, b.ret({b.emit1(op, {x, i})}), {ps.rnd(t, {5, 6}), idx});
          break;
        }
        case OpCategory::Scatter: {
          int x = b.param(ty(t, {5, 6})), u = b.param(ty(t, {4, 6})), i = b.param(ty(DType::I32, {4}));
          Array idx(DType::I32, {4});
          for (int64_t k = 0; k < 4; ++k) idx.setInt(k, std::vector<int64_t>{1, -4, 9, 1}[k]);
          ps.add(name, b.ret({b.emit1(op, {x, u, i})}), {ps.rnd(t, {5, 6}), ps.rnd(t, {4, 6}), idx});
          break;
        }
        case OpCategory::DotGeneral: {
          // Batched matmul: (2, 3, 4) x (2, 4, 5); floats become a GEMM step, integers loops.
          int x = b.param(ty(t, {2, 3, 4})), y = b.param(ty(t, {2, 4, 5}));
          Attrs a;
          a.lhsBatch = {0};
          a.rhsBatch = {0};
          a.lhsContract = {2};
          a.rhsContract = {1};
          ps.add(name, b.ret({b.emit1(op, {x, y}, a)}),
                 {ps.rnd(t, {2, 3, 4}, false), ps.rnd(t, {2, 4, 5}, false)});
          break;
        }
        case OpCategory::Sort:  // keys and an i32 payload; a row of 5 pads to 8 (Note [Bitonic sort])
          for (int64_t ax : {0, 1}) {
            Builder c(name + ".axis" + std::to_string(ax));
            int x = c.param(ty(t, {3, 5})), v = c.param(ty(DType::I32, {3, 5}));
            ps.add(c.f->name, c.ret(c.emit(op, {x, v}, axesAttr({ax}))), {ps.rnd(t, {3, 5}), ps.rnd(DType::I32, {3, 5})});
          }
          break;
        case OpCategory::Linalg: {  // a host step (Note [Linalg on the GPU]); the example of core_test_util
          Attrs a;
          std::vector<Array> in = test::linalgExample(op, t, 2, &a);
          std::vector<int> ps2;
          for (const Array& x : in) ps2.push_back(b.param(ty(x.dtype, x.shape)));
          ps.add(name, b.ret(b.emit(op, ps2, a)), in);
          break;
        }
        case OpCategory::Scan: case OpCategory::While: case OpCategory::Cond:
          break;  // control flow: addControlPrograms
        case OpCategory::Collective: case OpCategory::ProcessCollective:
          break;  // never compiled (Note [Named axes])
      }
      if (info.category == OpCategory::Scan || info.category == OpCategory::While ||
          info.category == OpCategory::Cond)
        break;
    }
  }
}

/// scan (forward, reverse, nested, with consts and ys), while and cond.
inline void addControlPrograms(ProgramSet& ps) {
  const DType F32 = DType::F32, I32 = DType::I32, Bool = DType::Bool;
  for (bool reverse : {false, true}) {
    // carry c: f32[4]; xs: f32[5, 4]; const k: f32[4]; body: c' = c * k + x, y = sum(c')
    Builder body("step");
    int k = body.param(ty(F32, {4})), c = body.param(ty(F32, {4})), x = body.param(ty(F32, {4}));
    int c2 = body.emit1(Op::Add, {body.emit1(Op::Mul, {c, k}), x});
    int y = body.emit1(Op::ReduceSum, {c2}, axesAttr({0}));
    body.ret({c2, y});
    Builder b(std::string("scan") + (reverse ? ".reverse" : ""));
    int kk = b.param(ty(F32, {4})), c0 = b.param(ty(F32, {4})), xs = b.param(ty(F32, {5, 4}));
    Attrs a;
    a.length = 5;
    a.numConsts = 1;
    a.numCarry = 1;
    a.reverse = reverse;
    ps.add(b.f->name, b.ret(b.emit(Op::Scan, {kk, c0, xs}, a, {body.f})),
           {ps.rnd(F32, {4}, false), ps.rnd(F32, {4}, false), ps.rnd(F32, {5, 4}, false)});
  }
  {
    // Nested scans over xs: i32[3, 4, 2]; the inner one reads slices at two host-var offsets.
    Builder inner("inner");
    int ic = inner.param(ty(I32, {2})), ix = inner.param(ty(I32, {2}));
    int s = inner.emit1(Op::Add, {ic, ix});
    inner.ret({s, inner.emit1(Op::Mul, {s, ix})});
    Builder outer("outer");
    int oc = outer.param(ty(I32, {2})), ox = outer.param(ty(I32, {4, 2}));
    Attrs ia;
    ia.length = 4;
    ia.numCarry = 1;
    std::vector<int> r = outer.emit(Op::Scan, {oc, ox}, ia, {inner.f});
    outer.ret({r[0], r[1]});
    Builder b("scan.nested");
    int c0 = b.param(ty(I32, {2})), xs = b.param(ty(I32, {3, 4, 2}));
    Attrs oa;
    oa.length = 3;
    oa.numCarry = 1;
    ps.add(b.f->name, b.ret(b.emit(Op::Scan, {c0, xs}, oa, {outer.f})),
           {ps.rnd(I32, {2}), ps.rnd(I32, {3, 4, 2})});
  }
  {
    // Two carries swapped each iteration (a carry whose new value is another carry).
    Builder body("swapper");
    int p = body.param(ty(F32, {3})), q = body.param(ty(F32, {3}));
    body.ret({q, body.emit1(Op::Add, {p, q})});
    Builder b("scan.fibonacci");
    int p0 = b.param(ty(F32, {3})), q0 = b.param(ty(F32, {3}));
    Attrs a;
    a.length = 6;
    a.numCarry = 2;
    ps.add(b.f->name, b.ret(b.emit(Op::Scan, {p0, q0}, a, {body.f})),
           {ps.rnd(F32, {3}, false), ps.rnd(F32, {3}, false)});
  }
  {
    // while i < n: i += 1; x = x * 2 + 1 (carry i: i32[], x: f32[3]; cond const n)
    Builder cond("cond");
    int n = cond.param(ty(I32)), i = cond.param(ty(I32)), x = cond.param(ty(F32, {3}));
    (void)x;
    cond.ret({cond.emit1(Op::Lt, {i, n})});
    Builder body("body");
    int bi = body.param(ty(I32)), bx = body.param(ty(F32, {3}));
    int one = body.constant(I32, 1);
    int two = body.constant(F32, 2, {3});
    body.ret({body.emit1(Op::Add, {bi, one}), body.emit1(Op::Add, {body.emit1(Op::Mul, {bx, two}), two})});
    Builder b("while");
    int nn = b.param(ty(I32)), i0 = b.param(ty(I32)), x0 = b.param(ty(F32, {3}));
    Attrs a;
    a.numConsts = 1;
    a.numBodyConsts = 0;
    ps.add(b.f->name, b.ret(b.emit(Op::While, {nn, i0, x0}, a, {cond.f, body.f})),
           {scalarI32(7), scalarI32(2), ps.rnd(F32, {3}, false)});
  }
  for (int64_t index : {-3, 1, 2, 9}) {
    // cond over three branches with an integer index (clamped).
    std::vector<FuncPtr> branches;
    for (int br = 0; br < 3; ++br) {
      Builder f("branch" + std::to_string(br));
      int x = f.param(ty(F32, {4})), y = f.param(ty(F32, {4}));
      int r = br == 0 ? f.emit1(Op::Add, {x, y}) : br == 1 ? f.emit1(Op::Mul, {x, y}) : x;
      f.ret({r, f.emit1(Op::ReduceMax, {r}, axesAttr({0}))});
      branches.push_back(f.f);
    }
    Builder b("cond.index" + std::to_string(index));
    int i = b.param(ty(I32)), x = b.param(ty(F32, {4})), y = b.param(ty(F32, {4}));
    ps.add(b.f->name, b.ret(b.emit(Op::Cond, {i, x, y}, {}, branches)),
           {scalarI32(index), ps.rnd(F32, {4}, false), ps.rnd(F32, {4}, false)});
  }
  for (bool pred : {false, true}) {
    std::vector<FuncPtr> branches;
    for (int br = 0; br < 2; ++br) {
      Builder f("branch" + std::to_string(br));
      int x = f.param(ty(I32, {3}));
      f.ret({br == 0 ? f.emit1(Op::Neg, {x}) : f.emit1(Op::Abs, {x})});
      branches.push_back(f.f);
    }
    Builder b(std::string("cond.bool.") + (pred ? "true" : "false"));
    int p = b.param(ty(Bool)), x = b.param(ty(I32, {3}));
    ps.add(b.f->name, b.ret(b.emit(Op::Cond, {p, x}, {}, branches)),
           {Array::scalarInt(Bool, pred), ps.rnd(I32, {3})});
  }
}

/// Fusion chains: elementwise through broadcasts and index ops, a reduction of a fused producer,
/// a value used twice (materialised), a large array (grid-stride loop with a capped grid).
inline void addFusionPrograms(ProgramSet& ps) {
  const DType F32 = DType::F32, F64 = DType::F64, I64 = DType::I64;
  {
    Builder b("fused.softmax");
    int x = b.param(ty(F32, {5, 8}));
    int m = b.emit1(Op::ReduceMax, {x}, axesAttr({1}));
    Attrs bc;
    bc.shape = {5, 8};
    bc.axes = {0};
    int e = b.emit1(Op::Exp, {b.emit1(Op::Sub, {x, b.emit1(Op::BroadcastInDim, {m}, bc)})});
    int s = b.emit1(Op::ReduceSum, {e}, axesAttr({1}));
    ps.add(b.f->name, b.ret({b.emit1(Op::Div, {e, b.emit1(Op::BroadcastInDim, {s}, bc)})}),
           {ps.rnd(F32, {5, 8}, false)});
  }
  {
    Builder b("fused.large");
    int x = b.param(ty(F64, {3000}));
    int y = b.emit1(Op::Sin, {b.emit1(Op::Mul, {x, b.constant(F64, 1.5, {3000})})});
    ps.add(b.f->name, b.ret({y, b.emit1(Op::ReduceSum, {y}, axesAttr({0}))}), {ps.rnd(F64, {3000}, false)});
  }
  {
    Builder b("fused.index.i64");
    int x = b.param(ty(I64, {4, 5}));
    int t = b.emit1(Op::Transpose, {x}, axesAttr({1, 0}));
    int r = b.emit1(Op::Reverse, {t}, axesAttr({0}));
    int s = b.emit1(Op::Mul, {r, r});
    ps.add(b.f->name, b.ret({b.emit1(Op::Add, {s, s}), b.emit1(Op::CumSum, {s}, axesAttr({1}))}),
           {ps.rnd(I64, {4, 5})});
  }
  {
    Builder b("identity.and.empty");
    int x = b.param(ty(F32, {3})), z = b.param(ty(F32, {0, 4}));
    ps.add(b.f->name, b.ret({x, b.emit1(Op::Neg, {z}), b.emit1(Op::ReduceSum, {z}, axesAttr({0}))}),
           {ps.rnd(F32, {3}), Array(F32, {0, 4})});
  }
}

/// Every program of the suite.
inline ProgramSet allPrograms() {
  ProgramSet ps;
  addOpPrograms(ps);
  addControlPrograms(ps);
  addFusionPrograms(ps);
  return ps;
}

}  // namespace scn::cudatest
