// Oracle tests of autodiff (jvpFunc, vjpFunc): for every differentiable op, the JVP equals
// central finite differences in f64, and the VJP is the transpose of the JVP
// (<vjp(u), v> == <u, jvp(v)>); every op of the table has a differentiation kind.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>

#include "jit/autodiff.hpp"
#include "jit/backend.hpp"
#include "jit/transform/ad.hpp"
#include "jit/transform/binomial_schedule.hpp"
#include "jit/transform/passes.hpp"

namespace scn {
namespace {

struct Builder {
  FuncPtr f = std::make_shared<Func>();
  int param(Type t) {
    int v = f->newVar(std::move(t));
    f->params.push_back(v);
    return v;
  }
  std::vector<int> eqn(Op op, std::vector<int> in, Attrs a = {}, std::vector<FuncPtr> subs = {}) {
    std::vector<Type> types;
    for (int v : in) types.push_back(f->type(v));
    InferResult r = inferTypes(op, types, a, subs);
    if (!r.ok()) throw std::runtime_error("test built an ill-typed " + std::string(opName(op)) + ": " + r.error);
    Eqn e{op, std::move(in), {}, std::move(a), std::move(subs), Span{}};
    for (Type& t : r.types) e.outputs.push_back(f->newVar(t));
    f->eqns.push_back(e);
    return e.outputs;
  }
  int eqn1(Op op, std::vector<int> in, Attrs a = {}) { return eqn(op, std::move(in), std::move(a)).at(0); }
  int index(DType dt, Shape shape, std::vector<int64_t> values) {
    Attrs a;
    a.dtype = dt;
    a.value = std::make_shared<Array>(dt, shape);
    for (size_t i = 0; i < values.size(); ++i) a.value->setInt(static_cast<int64_t>(i), values[i]);
    return eqn1(Op::Constant, {}, a);
  }
  FuncPtr ret(std::vector<int> results) {
    f->results = std::move(results);
    return f;
  }
};

const Type kVec{DType::F64, {5}};
const Type kMat{DType::F64, {3, 4}};

struct Case {
  std::string name;
  FuncPtr f;
  double lo = -2, hi = 2;  // where the inputs are drawn (inside the op's domain)
  double h = 1e-6, tol = 1e-5;  // the finite-difference step and the relative tolerance
};

Attrs withAxes(std::vector<int64_t> axes, bool reverse = false) {
  Attrs a;
  a.axes = std::move(axes);
  a.reverse = reverse;
  return a;
}

std::vector<Case> cases() {
  std::vector<Case> cs;
  for (Op op : allOps()) {
    const OpInfo& info = opInfo(op);
    if (diffKind(op) != DiffKind::Smooth) continue;
    if (info.category == OpCategory::Unary) {
      Builder b;
      int x = b.param(kVec);
      Case c{info.name, b.ret({b.eqn1(op, {x})})};
      switch (op) {
        case Op::Log: case Op::Sqrt: case Op::Rsqrt: case Op::Log2: case Op::Log10: case Op::Lgamma:
        case Op::Reciprocal: case Op::Cbrt:
          c.lo = 0.3, c.hi = 3; break;
        case Op::Asin: case Op::Acos: case Op::Atanh: case Op::ErfInv: c.lo = -0.8, c.hi = 0.8; break;
        case Op::Acosh: c.lo = 1.2, c.hi = 3; break;
        case Op::Log1p: c.lo = -0.5, c.hi = 2; break;
        case Op::Tan: c.lo = -1.2, c.hi = 1.2; break;
        default: break;
      }
      cs.push_back(c);
    } else if (info.category == OpCategory::Binary) {
      Builder b;
      int x = b.param(kVec), y = b.param(kVec);
      Case c{info.name, b.ret({b.eqn1(op, {x, y})})};
      if (op == Op::Pow || op == Op::Div || op == Op::Rem || op == Op::Fmod) c.lo = 0.4, c.hi = 3;
      cs.push_back(c);
    }
  }
  auto unaryCase = [&](const std::string& name, Type t, const std::function<int(Builder&, int)>& body, double lo = -2,
                       double hi = 2) {
    Builder b;
    int x = b.param(t);
    cs.push_back({name, b.ret({body(b, x)}), lo, hi});
  };
  for (Op op : {Op::ReduceSum, Op::ReduceProd, Op::ReduceMax, Op::ReduceMin})
    unaryCase(opName(op), kMat, [op](Builder& b, int x) { return b.eqn1(op, {x}, withAxes({1})); });
  for (Op op : {Op::CumSum, Op::CumProd, Op::CumMax, Op::CumMin})
    for (bool rev : {false, true})
      unaryCase(std::string(opName(op)) + (rev ? "_reverse" : ""), kMat,
                [op, rev](Builder& b, int x) { return b.eqn1(op, {x}, withAxes({1}, rev)); }, 0.3, 2);
  unaryCase("broadcast_in_dim", kVec, [](Builder& b, int x) {
    Attrs a;
    a.shape = {3, 5};
    a.axes = {1};
    return b.eqn1(Op::BroadcastInDim, {x}, a);
  });
  unaryCase("reshape", kMat, [](Builder& b, int x) {
    Attrs a;
    a.shape = {2, 6};
    return b.eqn1(Op::Reshape, {x}, a);
  });
  unaryCase("transpose", kMat, [](Builder& b, int x) { return b.eqn1(Op::Transpose, {x}, withAxes({1, 0})); });
  unaryCase("reverse", kMat, [](Builder& b, int x) { return b.eqn1(Op::Reverse, {x}, withAxes({1})); });
  unaryCase("slice_strided", kMat, [](Builder& b, int x) {
    Attrs a;
    a.starts = {0, 1};
    a.limits = {3, 4};
    a.strides = {2, 2};
    return b.eqn1(Op::Slice, {x}, a);
  });
  unaryCase("slice", kMat, [](Builder& b, int x) {
    Attrs a;
    a.starts = {1, 1};
    a.limits = {3, 3};
    a.strides = {1, 1};
    return b.eqn1(Op::Slice, {x}, a);
  });
  unaryCase("concat", kMat, [](Builder& b, int x) { return b.eqn1(Op::Concat, {x, x}, withAxes({1})); });
  unaryCase("dynamic_slice", kMat, [](Builder& b, int x) {
    Attrs a;
    a.shape = {2, 2};
    return b.eqn1(Op::DynamicSlice, {x, b.index(DType::I32, {}, {1}), b.index(DType::I32, {}, {5})}, a);
  });
  unaryCase("gather", kMat, [](Builder& b, int x) {
    return b.eqn1(Op::Gather, {x, b.index(DType::I32, {4}, {2, 0, 2, -1})});
  });
  unaryCase("sort", kVec, [](Builder& b, int x) { return b.eqn(Op::Sort, {x}, withAxes({0})).at(0); });
  unaryCase("select", kVec, [](Builder& b, int x) {
    int p = b.eqn1(Op::Gt, {x, b.eqn1(Op::Sin, {x})});
    return b.eqn1(Op::Select, {p, x, b.eqn1(Op::Exp, {x})});
  });
  {  // through f32 and back: a step large enough for f32's rounding
    Builder b;
    int x = b.param(kVec);
    Attrs to32, to64;
    to32.dtype = DType::F32;
    to64.dtype = DType::F64;
    int y = b.eqn1(Op::Convert, {b.eqn1(Op::Convert, {x}, to32)}, to64);
    cs.push_back({"convert", b.ret({b.eqn1(Op::Mul, {y, y})}), -2, 2, 1e-2, 1e-4});
  }
  auto binaryCase = [&](const std::string& name, Type t, Type u, const std::function<int(Builder&, int, int)>& body) {
    Builder b;
    int x = b.param(t), y = b.param(u);
    cs.push_back({name, b.ret({body(b, x, y)})});
  };
  binaryCase("dynamic_update_slice", kMat, Type{DType::F64, {2, 2}}, [](Builder& b, int x, int y) {
    return b.eqn1(Op::DynamicUpdateSlice, {x, y, b.index(DType::I32, {}, {1}), b.index(DType::I32, {}, {-7})});
  });
  binaryCase("scatter", kMat, Type{DType::F64, {2, 4}}, [](Builder& b, int x, int y) {
    return b.eqn1(Op::Scatter, {x, y, b.index(DType::I32, {2}, {2, 0})});
  });
  binaryCase("scatter_add", kMat, Type{DType::F64, {3, 4}}, [](Builder& b, int x, int y) {
    return b.eqn1(Op::ScatterAdd, {x, y, b.index(DType::I32, {3}, {2, 0, 2})});
  });
  binaryCase("dot_general", kMat, Type{DType::F64, {4, 2}}, [](Builder& b, int x, int y) {
    Attrs a;
    a.lhsContract = {1};
    a.rhsContract = {0};
    return b.eqn1(Op::DotGeneral, {x, y}, a);
  });
  binaryCase("dot_general_batched", Type{DType::F64, {2, 3, 4}}, Type{DType::F64, {4, 2, 5}},
             [](Builder& b, int x, int y) {
               Attrs a;
               a.lhsContract = {2};
               a.rhsContract = {0};
               a.lhsBatch = {0};
               a.rhsBatch = {1};
               return b.eqn1(Op::DotGeneral, {x, y}, a);
             });
  // Linear algebra (jit/transform/jvp_linalg.cpp), batched over a leading axis of 2 where the op
  // allows: triangular solves in each form, on diagonals drawn in [1, 2] so they are well
  // conditioned; cholesky of x x^T; lu of x; eigh of x + x^T (distinct eigenvalues).
  const Type kMats{DType::F64, {2, 3, 3}};
  for (bool lower : {true, false})
    for (bool transpose : {false, true})
      for (bool unit : {false, true}) {
        Builder b;
        int x = b.param(kMats), y = b.param(Type{DType::F64, {2, 3, 2}});
        Attrs a;
        a.lower = lower;
        a.transpose = transpose;
        a.unitDiagonal = unit;
        cs.push_back({std::string("triangular_solve") + (lower ? "_lower" : "_upper") + (transpose ? "_t" : "") +
                          (unit ? "_unit" : ""),
                      b.ret({b.eqn1(Op::TriangularSolve, {x, y}, a)}), 1, 2});
      }
  auto gram = [](Builder& b, int x) {  // x x^T, batched
    Attrs a;
    a.lhsContract = {2};
    a.rhsContract = {2};
    a.lhsBatch = {0};
    a.rhsBatch = {0};
    return b.eqn1(Op::DotGeneral, {x, x}, a);
  };
  unaryCase("cholesky", kMats, [&](Builder& b, int x) { return b.eqn1(Op::Cholesky, {gram(b, x)}); });
  unaryCase("lu", kMats, [](Builder& b, int x) { return b.eqn(Op::Lu, {x}).at(0); });
  {
    Builder b;
    int x = b.param(kMats);
    int symmetric = b.eqn1(Op::Add, {x, b.eqn1(Op::Transpose, {x}, withAxes({0, 2, 1}))});
    std::vector<int> wv = b.eqn(Op::Eigh, {symmetric});
    cs.push_back({"eigh", b.ret({wv[0], wv[1]})});
  }
  // scan: carry c' = sin(c) * x + w, ys = c * w (consts w, carry c, xs x).
  {
    Builder body;
    int w = body.param(Type{DType::F64, {}}), c = body.param(Type{DType::F64, {}}), x = body.param(Type{DType::F64, {}});
    int next = body.eqn1(Op::Add, {body.eqn1(Op::Mul, {body.eqn1(Op::Sin, {c}), x}), w});
    FuncPtr bf = body.ret({next, body.eqn1(Op::Mul, {c, w})});
    for (bool rev : {false, true})
      for (int64_t checkpoints : {0, 2}) {  // 2 of 5 steps: segments of 3 and 2 (Note [Scan checkpoints])
        Builder b;
        int pw = b.param(Type{DType::F64, {}}), pc = b.param(Type{DType::F64, {}}), px = b.param(kVec);
        Attrs a;
        a.numConsts = 1;
        a.numCarry = 1;
        a.length = 5;
        a.reverse = rev;
        a.checkpoints = checkpoints;
        std::vector<int> out = b.eqn(Op::Scan, {pw, pc, px}, a, {bf});
        cs.push_back({std::string(rev ? "scan_reverse" : "scan") + (checkpoints ? "_checkpointed" : ""), b.ret(out)});
      }
  }
  // The parts of complex numbers between real inputs and outputs (Note [Complex derivatives]):
  // z = complex(x, y), w = sin(z) * conj(z); real(w), imag(w), |z|, angle(z).
  {
    Builder b;
    int x = b.param(kVec), y = b.param(kVec);
    int z = b.eqn1(Op::Complex, {x, y});
    int w = b.eqn1(Op::Mul, {b.eqn1(Op::Sin, {z}), b.eqn1(Op::Conj, {z})});
    cs.push_back({"complex_parts", b.ret({b.eqn1(Op::Real, {w}), b.eqn1(Op::Imag, {w}), b.eqn1(Op::ComplexAbs, {z}),
                                          b.eqn1(Op::Angle, {z})})});
  }
  // The Fourier transforms between real inputs and outputs: irfft(ifft(fft(rfft(x)))) and the
  // parts of the spectra on the way.
  {
    Builder b;
    int x = b.param(kVec);
    int r = b.eqn1(Op::Rfft, {x});
    int f = b.eqn1(Op::Fft, {b.eqn1(Op::Mul, {r, r})});
    int g = b.eqn1(Op::Ifft, {f});
    Attrs n;
    n.length = kVec.shape.back();
    cs.push_back({"fourier_transforms", b.ret({b.eqn1(Op::Irfft, {g}, n), b.eqn1(Op::Real, {f}), b.eqn1(Op::Imag, {g})})});
  }
  // cond: index by a constant, branches x * y and sin(x) + y.
  {
    Builder t, f;
    int tx = t.param(kVec), ty = t.param(kVec);
    int fx = f.param(kVec), fy = f.param(kVec);
    FuncPtr bt = t.ret({t.eqn1(Op::Mul, {tx, ty})}), bf = f.ret({f.eqn1(Op::Add, {f.eqn1(Op::Sin, {fx}), fy})});
    for (int64_t which : {0, 1}) {
      Builder b;
      int x = b.param(kVec), y = b.param(kVec);
      std::vector<int> out = b.eqn(Op::Cond, {b.index(DType::I32, {}, {which}), x, y}, {}, {bf, bt});
      cs.push_back({"cond_" + std::to_string(which), b.ret(out)});
    }
  }
  return cs;
}

Array draw(const Type& t, double lo, double hi, std::mt19937& rng) {
  Array a(t.dtype, t.shape);
  std::uniform_real_distribution<double> d(lo, hi);
  for (int64_t i = 0; i < a.size(); ++i) a.setDouble(i, d(rng));
  return a;
}

Array axpy(const Array& x, double h, const Array& v) {
  Array r(x.dtype, x.shape);
  for (int64_t i = 0; i < x.size(); ++i) r.setDouble(i, x.getDouble(i) + h * v.getDouble(i));
  return r;
}

double dot(const Array& a, const Array& b) {
  double s = 0;
  for (int64_t i = 0; i < a.size(); ++i) s += a.getDouble(i) * b.getDouble(i);
  return s;
}

class AutodiffOracle : public ::testing::TestWithParam<Case> {};

TEST_P(AutodiffOracle, JvpMatchesFiniteDifferencesAndVjpIsItsTranspose) {
  const Case& c = GetParam();
  const Func& f = *c.f;
  std::mt19937 rng(7);
  std::vector<Array> x, v, u;
  for (Type t : f.paramTypes()) {
    x.push_back(draw(t, c.lo, c.hi, rng));
    v.push_back(draw(t, -1, 1, rng));
  }
  for (Type t : f.resultTypes()) u.push_back(draw(t, -1, 1, rng));
  std::vector<bool> all(f.params.size(), true);
  FuncPtr j = jvpFunc(f, all);
  ASSERT_EQ(verify(*j), "") << printFunc(*j);
  std::vector<Array> args = x;
  args.insert(args.end(), v.begin(), v.end());
  std::vector<Array> jout = interpret(*j, args);
  size_t nr = f.results.size();
  const double h = c.h;
  std::vector<Array> xp, xm;
  for (size_t i = 0; i < x.size(); ++i) {
    xp.push_back(axpy(x[i], h, v[i]));
    xm.push_back(axpy(x[i], -h, v[i]));
  }
  std::vector<Array> fp = interpret(f, xp), fm = interpret(f, xm);
  for (size_t r = 0; r < nr; ++r)
    for (int64_t k = 0; k < fp[r].size(); ++k) {
      double fd = (fp[r].getDouble(k) - fm[r].getDouble(k)) / (2 * h);
      double got = jout[nr + r].getDouble(k);
      EXPECT_NEAR(got, fd, c.tol * (1 + std::fabs(fd))) << c.name << " result " << r << " element " << k;
    }
  FuncPtr g = vjpFunc(f, all);
  ASSERT_EQ(verify(*g), "") << printFunc(*g);
  std::vector<Array> vargs = x;
  vargs.insert(vargs.end(), u.begin(), u.end());
  std::vector<Array> vout = interpret(*g, vargs);
  double lhs = 0, rhs = 0;
  for (size_t i = 0; i < x.size(); ++i) lhs += dot(vout[nr + i], v[i]);
  for (size_t r = 0; r < nr; ++r) rhs += dot(u[r], jout[nr + r]);
  EXPECT_NEAR(lhs, rhs, (c.tol > 1e-5 ? 1e-5 : 1e-9) * (1 + std::fabs(rhs))) << c.name;
}

INSTANTIATE_TEST_SUITE_P(EveryDifferentiableOp, AutodiffOracle, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// The arrays `got` equal `want` bit for bit (as doubles), shape for shape.
void expectBitForBit(const std::vector<Array>& got, const std::vector<Array>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape, want[i].shape) << i;
    for (int64_t j = 0; j < got[i].size(); ++j) EXPECT_EQ(got[i].getDouble(j), want[i].getDouble(j)) << i << "[" << j << "]";
  }
}

// A scan of n steps with a const matrix, a vector carry, xs and ys, and `checkpoints`.
FuncPtr rnnScan(int64_t n, int64_t checkpoints, bool reverse) {
  const Type vec{DType::F64, {3}};
  Builder body;
  int w = body.param(Type{DType::F64, {3, 3}}), c = body.param(vec), x = body.param(vec);
  Attrs dot;
  dot.lhsContract = {1};
  dot.rhsContract = {0};
  int h = body.eqn1(Op::Tanh, {body.eqn1(Op::Add, {body.eqn1(Op::DotGeneral, {w, c}, dot), x})});
  FuncPtr bf = body.ret({h, body.eqn1(Op::Mul, {h, c})});
  Builder b;
  int pw = b.param(Type{DType::F64, {3, 3}}), pc = b.param(vec), px = b.param(Type{DType::F64, {n, 3}});
  Attrs a;
  a.numConsts = 1;
  a.numCarry = 1;
  a.length = n;
  a.reverse = reverse;
  a.checkpoints = checkpoints;
  return b.ret(b.eqn(Op::Scan, {pw, pc, px}, a, {bf}));
}

TEST(ScanCheckpoints, GradientsEqualTheStoredResidualGradientsBitForBit) {
  const int64_t n = 10;
  std::mt19937 rng(3);
  for (bool reverse : {false, true}) {
    FuncPtr plain = vjpFunc(*rnnScan(n, 0, reverse), {true, true, true});
    std::vector<Array> args;
    for (Type t : plain->paramTypes()) args.push_back(draw(t, -1, 1, rng));
    std::vector<Array> want = interpret(*plain, args);
    for (int64_t k : {1, 3, 4, 9, 10, 25}) {
      SCOPED_TRACE("checkpoints=" + std::to_string(k) + (reverse ? " reverse" : ""));
      FuncPtr ck = vjpFunc(*rnnScan(n, k, reverse), {true, true, true});
      ASSERT_EQ(verify(*ck), "") << printFunc(*ck);
      std::vector<Array> got = interpret(*ck, args);
      expectBitForBit(got, want);
    }
  }
}

TEST(ScanCheckpoints, TheForwardPassStoresOnlySegmentBoundaries) {
  // 10 steps, 3 checkpoints: segments of 4 steps, two full ones and one of 2. No top-level scan
  // runs (or stores) all 10 steps; the stored carries are (2, 3) and (1, 3).
  FuncPtr g = vjpFunc(*rnnScan(10, 3, false), {true, true, true});
  std::vector<int64_t> lengths;
  for (const Eqn& e : g->eqns)
    if (e.op == Op::Scan) lengths.push_back(e.attrs.length);
  EXPECT_EQ(lengths, (std::vector<int64_t>{2, 1, 1, 2}));  // forward runs, then backward in reverse
  EXPECT_NE(printFunc(*g).find("f64[2,3]"), std::string::npos);
  // What --stats shows: 3 stored carries, each of the 10 steps recomputed once.
  CheckpointCounts counts = checkpointCounts(*g);
  EXPECT_EQ(counts.storedCarries, 3);
  EXPECT_EQ(counts.recomputedSteps, 10);
  EXPECT_EQ(checkpointCounts(*vjpFunc(*rnnScan(10, 0, false), {true, true, true})).storedCarries, 0);
}

// The fewest forward steps that reverse n steps from a stored c_0 with s free slots, by trying
// every split (Note [Binomial checkpointing]): the reference the schedule must meet.
int64_t fewestForwardSteps(int64_t n, int64_t s, std::vector<std::vector<int64_t>>& memo) {
  if (n == 1) return 0;
  if (s == 0) return n * (n - 1) / 2;
  int64_t& m = memo[static_cast<size_t>(n)][static_cast<size_t>(s)];
  if (m >= 0) return m;
  int64_t best = INT64_MAX;
  for (int64_t first = 1; first < n; ++first)
    best = std::min(best, first + fewestForwardSteps(n - first, s - 1, memo) + fewestForwardSteps(first, s, memo));
  return m = best;
}

TEST(BinomialSchedule, RunsEveryStepBackwardsFromTheRightCarryWithTheFewestRecomputations) {
  const int64_t maxSteps = 90, maxSlots = 8;
  std::vector<std::vector<int64_t>> memo(maxSteps + 1, std::vector<int64_t>(maxSlots + 1, -1));
  for (int64_t n = 1; n <= maxSteps; ++n)
    for (int64_t k = 1; k <= maxSlots; ++k) {
      SCOPED_TRACE(std::to_string(n) + " steps, " + std::to_string(k) + " slots");
      ad::BinomialSchedule s = ad::binomialSchedule(n, k);
      // Replay it on positions: what each slot holds, the carry in hand.
      std::vector<int64_t> slot(static_cast<size_t>(k), -1);
      slot[0] = 0;
      int64_t forwardAdvance = 0;
      for (const ad::BinomialSchedule::Store& st : s.forwardStores) {
        ASSERT_GT(st.position, forwardAdvance);
        ASSERT_LT(st.slot, k);
        slot[static_cast<size_t>(st.slot)] = forwardAdvance = st.position;
      }
      ASSERT_EQ(s.groups.size(), static_cast<size_t>(n));
      int64_t advanced = 0;
      for (size_t g = 0; g < s.groups.size(); ++g) {
        const ad::BinomialSchedule::Group& group = s.groups[g];
        ASSERT_EQ(group.step, n - 1 - static_cast<int64_t>(g)) << "steps run backwards in order";
        ASSERT_EQ(slot.at(static_cast<size_t>(group.restoreSlot)), group.restorePosition);
        int64_t at = group.restorePosition;
        for (const ad::BinomialSchedule::Store& st : group.stores) {
          ASSERT_GT(st.position, at);
          ASSERT_LE(st.position, group.step);
          slot.at(static_cast<size_t>(st.slot)) = at = st.position;
        }
        advanced += group.step - group.restorePosition;
      }
      EXPECT_EQ(advanced, s.recomputedSteps);
      EXPECT_LE(s.slotsUsed, k);
      // The whole schedule, the forward pass's part included, is the optimum.
      EXPECT_EQ(s.recomputedSteps + forwardAdvance, fewestForwardSteps(n, k - 1, memo));
    }
  // Long scans: 19 free slots reverse C(19 + r + 1, r) steps running each forwards at most r
  // times; 10^6 steps need r = 8 (C(27, 7) = 888030 < 10^6 <= C(28, 8)).
  ad::BinomialSchedule big = ad::binomialSchedule(1000000, 20);
  EXPECT_EQ(big.groups.size(), 1000000u);
  EXPECT_LE(big.recomputedSteps, 8 * 1000000);
}

TEST(ScanCheckpoints, TheBinomialScheduleGivesTheStoredResidualGradientsBitForBit) {
  const int64_t n = 10;
  std::mt19937 rng(4);
  for (bool reverse : {false, true}) {
    FuncPtr plain = vjpFunc(*rnnScan(n, 0, reverse), {true, true, true});
    std::vector<Array> args;
    for (Type t : plain->paramTypes()) args.push_back(draw(t, -1, 1, rng));
    std::vector<Array> want = interpret(*plain, args);
    for (int64_t k = 1; k < n; ++k) {
      SCOPED_TRACE("binomial checkpoints=" + std::to_string(k) + (reverse ? " reverse" : ""));
      FuncPtr f = rnnScan(n, k, reverse);
      const_cast<Attrs&>(f->eqns[0].attrs).binomial = true;
      FuncPtr ck = vjpFunc(*f, {true, true, true});
      ASSERT_EQ(verify(*ck), "") << printFunc(*ck);
      expectBitForBit(interpret(*ck, args), want);
      // --stats: the slots it keeps and the steps its reverse pass reruns, as scheduled.
      ad::BinomialSchedule s = ad::binomialSchedule(n, k);
      CheckpointCounts counts = checkpointCounts(*ck);
      EXPECT_EQ(counts.storedCarries, s.slotsUsed);
      EXPECT_LE(counts.storedCarries, k);
      EXPECT_EQ(counts.recomputedSteps, s.recomputedSteps);
      // Differentiated again: its bounded while loops have a reverse mode.
      FuncPtr twice = vjpFunc(*ck, std::vector<bool>(ck->params.size(), true));
      ASSERT_EQ(verify(*twice), "") << printFunc(*twice);
    }
  }
}

TEST(GradMemoryBudget, AScanOverTheBudgetIsCheckpointedWithTheSameGradients) {
  // 10 steps of an f64[3] carry (24 bytes) and its product (tanh's derivative reads it) store
  // 480 bytes. Under a 300-byte budget reverse mode checkpoints the scan itself with segments
  // (ceil(sqrt(10)) = 4 carries and a 3-step segment: 240 bytes). Under 100 bytes even those do
  // not fit: the binomial schedule with the 2 carries that fit beside one step's 48 bytes. The
  // gradients are the stored ones bit for bit either way.
  std::mt19937 rng(5);
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    FuncPtr plain = vjpFunc(*rnnScan(10, 0, reverse), {true, true, true});
    EXPECT_EQ(checkpointCounts(*plain).automaticScans, 0);
    std::vector<Array> args;
    for (Type t : plain->paramTypes()) args.push_back(draw(t, -1, 1, rng));
    std::vector<Array> want = interpret(*plain, args);
    FuncPtr binomial2 = rnnScan(10, 2, reverse);
    const_cast<Attrs&>(binomial2->eqns[0].attrs).binomial = true;
    struct Expected {
      uint64_t budget;
      FuncPtr same;  // the scan with the checkpoints= the budget should choose
      int64_t carries;
    };
    for (const Expected& x : {Expected{300, rnnScan(10, 4, reverse), 4}, Expected{100, binomial2, 2}}) {
      SCOPED_TRACE("budget " + std::to_string(x.budget));
      VjpOptions small;
      small.gradMemoryBudget = x.budget;
      FuncPtr budgeted = vjpFunc(*rnnScan(10, 0, reverse), {true, true, true}, small);
      ASSERT_EQ(verify(*budgeted), "") << printFunc(*budgeted);
      FuncPtr chosen = vjpFunc(*x.same, {true, true, true});
      CheckpointCounts auto_ = checkpointCounts(*budgeted), explicit_ = checkpointCounts(*chosen);
      EXPECT_EQ(auto_.automaticScans, 1);
      EXPECT_EQ(auto_.residualBytes, 480u);
      EXPECT_EQ(auto_.budgetBytes, x.budget);
      EXPECT_EQ(auto_.storedCarries, x.carries);
      EXPECT_EQ(auto_.recomputedSteps, explicit_.recomputedSteps);
      EXPECT_EQ(explicit_.automaticScans, 0);
      expectBitForBit(interpret(*budgeted, args), want);
      expectBitForBit(interpret(*chosen, args), want);
    }
  }
}

TEST(GradMemoryBudget, AnExplicitCheckpointsWinsAndAScanThatFitsIsStored) {
  VjpOptions small;
  small.gradMemoryBudget = 100;
  // checkpoints=0 (kStoreEveryCarry) stores every carry whatever the budget.
  FuncPtr stored = vjpFunc(*rnnScan(10, kStoreEveryCarry, false), {true, true, true}, small);
  EXPECT_EQ(checkpointCounts(*stored).storedCarries, 0);
  EXPECT_EQ(printFunc(*stored), printFunc(*vjpFunc(*rnnScan(10, 0, false), {true, true, true})));
  // An explicit k is k, and not counted as automatic.
  CheckpointCounts explicitK = checkpointCounts(*vjpFunc(*rnnScan(10, 2, false), {true, true, true}, small));
  EXPECT_EQ(explicitK.storedCarries, 2);
  EXPECT_EQ(explicitK.automaticScans, 0);
  // 480 bytes fit a 480-byte budget; 3 steps would not store fewer carries checkpointed (2 + 2).
  small.gradMemoryBudget = 480;
  EXPECT_EQ(checkpointCounts(*vjpFunc(*rnnScan(10, 0, false), {true, true, true}, small)).automaticScans, 0);
  small.gradMemoryBudget = 1;
  EXPECT_EQ(checkpointCounts(*vjpFunc(*rnnScan(3, 0, false), {true, true, true}, small)).automaticScans, 0);
}

// A 10-step scan over a vector carry c and xs x whose step is `step(w, c, x)` (w: a const
// f64[3,3]); its only output is the carry.
FuncPtr carryScan(const std::function<int(Builder&, int, int, int)>& step) {
  const Type vec{DType::F64, {3}}, mat{DType::F64, {3, 3}};
  Builder body;
  int w = body.param(mat), c = body.param(vec), x = body.param(vec);
  FuncPtr bf = body.ret({step(body, w, c, x)});
  Builder b;
  int pw = b.param(mat), pc = b.param(vec), px = b.param(Type{DType::F64, {10, 3}});
  Attrs a;
  a.numConsts = 1;
  a.numCarry = 1;
  a.length = 10;
  return b.ret(b.eqn(Op::Scan, {pw, pc, px}, a, {bf}));
}

Attrs matVec() {
  Attrs dot;
  dot.lhsContract = {1};
  dot.rhsContract = {0};
  return dot;
}

int countDots(const Func& f);

TEST(ScanResiduals, TheProductsTheBackwardPassReadsAreStoredNotRecomputed) {
  // tanh(w @ c + x): the forward product, stored (tanh's derivative reads it), and the two
  // transposed products of the backward pass. A checkpointed schedule stores no residuals: its
  // segments' recomputation and the backward body recompute the product (five in its IR).
  FuncPtr stored = vjpFunc(*rnnScan(10, 0, false), {true, true, true});
  ASSERT_EQ(verify(*stored), "") << printFunc(*stored);
  EXPECT_EQ(countDots(*stored), 3);
  EXPECT_EQ(countDots(*vjpFunc(*rnnScan(10, 10, false), {true, true, true})), 5);
  EXPECT_EQ(ad::scanResiduals(*rnnScan(10, 0, false)->eqns[0].subs[0], rnnScan(10, 0, false)->eqns[0].attrs, {}).bytesPerStep,
            48u);
}

TEST(ScanResiduals, OnlyStepVaryingValuesTheBackwardPassReadsAreStored) {
  // w @ c + x is linear: its cotangent never reads the product, so only the carry is stored.
  FuncPtr linear = carryScan([](Builder& b, int w, int c, int x) { return b.eqn1(Op::Add, {b.eqn1(Op::DotGeneral, {w, c}, matVec()), x}); });
  ad::ScanResiduals r = ad::scanResiduals(*linear->eqns[0].subs[0], linear->eqns[0].attrs, {});
  EXPECT_EQ(r.saved, (std::vector<bool>{false, false}));
  EXPECT_EQ(r.bytesPerStep, 24u);
  // tanh((w @ w) @ c): w @ w reads only the const, so it is not stacked; its product with c is.
  FuncPtr invariant = carryScan([](Builder& b, int w, int c, int) {
    Attrs mm;
    mm.lhsContract = {1};
    mm.rhsContract = {0};
    int ww = b.eqn1(Op::DotGeneral, {w, w}, mm);
    return b.eqn1(Op::Tanh, {b.eqn1(Op::DotGeneral, {ww, c}, matVec())});
  });
  r = ad::scanResiduals(*invariant->eqns[0].subs[0], invariant->eqns[0].attrs, {});
  EXPECT_EQ(r.saved, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(r.bytesPerStep, 48u);
  // The gradients equal the recomputing schedule's bit for bit (the same values, read back).
  std::mt19937 rng(9);
  for (const FuncPtr& f : {linear, invariant}) {
    FuncPtr plain = vjpFunc(*f, {true, true, true});
    Func ckf = *f;
    ckf.eqns[0].attrs.checkpoints = 10;
    FuncPtr ck = vjpFunc(ckf, {true, true, true});
    std::vector<Array> args;
    for (Type t : plain->paramTypes()) args.push_back(draw(t, -1, 1, rng));
    std::vector<Array> want = interpret(*ck, args), got = interpret(*plain, args);
    expectBitForBit(got, want);
  }
}

TEST(DotGeneralTranspose, TheWeightCotangentIsOneProductInTheWeightsLayout) {
  // y = x @ w: ct_w = x^T @ ct is dot_general(x, ct) contracting the rows, already w's (3, 4);
  // ct_x = ct @ w^T keeps the (ct, w) order. Neither needs a transpose after the product.
  Builder b;
  int x = b.param(Type{DType::F64, {2, 3}}), w = b.param(Type{DType::F64, {3, 4}});
  FuncPtr f = b.ret({b.eqn1(Op::DotGeneral, {x, w}, matVec())});
  FuncPtr g = vjpFunc(*f, {true, true});
  ASSERT_EQ(verify(*g), "") << printFunc(*g);
  for (const Eqn& e : g->eqns) EXPECT_NE(e.op, Op::Transpose) << printFunc(*g);
  EXPECT_EQ(countDots(*g), 3);
  std::mt19937 rng(11);
  std::vector<Array> args;
  for (Type t : g->paramTypes()) args.push_back(draw(t, -1, 1, rng));
  std::vector<Array> out = interpret(*g, args);  // (y, ct_x, ct_w) from (x, w, ct)
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j) {
      double want = 0;
      for (int64_t r = 0; r < 2; ++r) want += args[0].getDouble(r * 3 + i) * args[2].getDouble(r * 4 + j);
      EXPECT_DOUBLE_EQ(out[2].getDouble(i * 4 + j), want) << i << "," << j;
    }
}

// checkpoint(f)'s scan (Note [Rematerialisation]): one step over consts w (3, 3) and x (3) whose
// body is tanh(w @ x) * x, with `save` as its policy.
FuncPtr checkpointScan(Attrs::Remat save) {
  const Type mat{DType::F64, {3, 3}}, vec{DType::F64, {3}};
  Builder body;
  int w = body.param(mat), x = body.param(vec);
  Attrs dot;
  dot.lhsContract = {1};
  dot.rhsContract = {0};
  FuncPtr bf = body.ret({body.eqn1(Op::Mul, {body.eqn1(Op::Tanh, {body.eqn1(Op::DotGeneral, {w, x}, dot)}), x})});
  Builder b;
  int pw = b.param(mat), px = b.param(vec);
  Attrs a;
  a.numConsts = 2;
  a.length = 1;
  a.remat = save;
  return b.ret(b.eqn(Op::Scan, {pw, px}, a, {bf}));
}

// The dot_generals of f and of every body in it.
int countDots(const Func& f) {
  int n = 0;
  for (const Eqn& e : f.eqns) {
    n += e.op == Op::DotGeneral;
    for (const FuncPtr& s : e.subs) n += countDots(*s);
  }
  return n;
}

TEST(Rematerialisation, DotsSaveableStoresTheProductsAndRecomputesTheRest) {
  FuncPtr nothing = vjpFunc(*checkpointScan(Attrs::Remat::Nothing), {true, true});
  FuncPtr dots = vjpFunc(*checkpointScan(Attrs::Remat::Dots), {true, true});
  ASSERT_EQ(verify(*dots), "") << printFunc(*dots);
  // The forward scan of dots_saveable has one more output: the product it stores.
  auto scanOutputs = [](const Func& g) { return g.eqns.front().op == Op::Scan ? g.eqns.front().outputs.size() : 0u; };
  EXPECT_EQ(scanOutputs(*nothing), 1u);
  EXPECT_EQ(scanOutputs(*dots), 2u);
  // nothing_saveable: the forward product, its recomputation and the two transposed products;
  // dots_saveable does not recompute it.
  EXPECT_EQ(countDots(*nothing), 4);
  EXPECT_EQ(countDots(*dots), 3);
  std::mt19937 rng(7);
  std::vector<Array> args;
  for (Type t : dots->paramTypes()) args.push_back(draw(t, -1, 1, rng));
  std::vector<Array> want = interpret(*nothing, args), got = interpret(*dots, args);
  expectBitForBit(got, want);
}

// checkpoint(f)'s scan over w (3, 3) and x (3) whose body is sin(h) * x with
// h = checkpoint_name(w @ x, "h") (Note [Checkpoint names]), under `save` with `names`.
FuncPtr namedCheckpointScan(Attrs::Remat save, std::vector<std::string> names) {
  const Type mat{DType::F64, {3, 3}}, vec{DType::F64, {3}};
  Builder body;
  int w = body.param(mat), x = body.param(vec);
  Attrs dot;
  dot.lhsContract = {1};
  dot.rhsContract = {0};
  Attrs tag;
  tag.shape = vec.shape;
  tag.checkpointName = "h";
  int h = body.eqn1(Op::Reshape, {body.eqn1(Op::DotGeneral, {w, x}, dot)}, tag);
  FuncPtr bf = body.ret({body.eqn1(Op::Mul, {body.eqn1(Op::Sin, {h}), x})});
  Builder b;
  int pw = b.param(mat), px = b.param(vec);
  Attrs a;
  a.numConsts = 2;
  a.length = 1;
  a.remat = save;
  a.rematNames = std::move(names);
  return b.ret(b.eqn(Op::Scan, {pw, px}, a, {bf}));
}

// The equations of op in f that its results read, with those in their bodies.
int countLiveOps(const Func& f, Op op) {
  std::vector<bool> live = neededBy(f, f.results);
  int n = 0;
  for (const Eqn& e : f.eqns) {
    if (!std::any_of(e.outputs.begin(), e.outputs.end(), [&](int o) { return live[o]; })) continue;
    n += e.op == op;
    for (const FuncPtr& s : e.subs) n += countLiveOps(*s, op);
  }
  return n;
}

TEST(Rematerialisation, SaveOnlyTheseNamesStoresTheNamedValuesAndRecomputesTheRest) {
  using R = Attrs::Remat;
  FuncPtr nothing = vjpFunc(*namedCheckpointScan(R::Nothing, {}), {true, true});
  auto scanOutputs = [](const Func& g) { return g.eqns.front().op == Op::Scan ? g.eqns.front().outputs.size() : 0u; };
  EXPECT_EQ(scanOutputs(*nothing), 1u);
  // nothing_saveable: the product runs forward and again backward (and its two transposes).
  EXPECT_EQ(countLiveOps(*nothing, Op::DotGeneral), 4);
  std::mt19937 rng(7);
  std::vector<Array> args;
  for (Type t : nothing->paramTypes()) args.push_back(draw(t, -1, 1, rng));
  std::vector<Array> want = interpret(*nothing, args);
  struct Policy {
    R remat;
    std::vector<std::string> names;
    bool storesH;
  };
  for (const Policy& p : {Policy{R::OnlyNames, {"h"}, true}, Policy{R::OnlyNames, {"g"}, false},
                          Policy{R::OnlyNames, {}, false}, Policy{R::AnyNamesBut, {"g"}, true},
                          Policy{R::AnyNamesBut, {"h"}, false}, Policy{R::AnyNamesBut, {}, true}}) {
    FuncPtr g = vjpFunc(*namedCheckpointScan(p.remat, p.names), {true, true});
    ASSERT_EQ(verify(*g), "") << printFunc(*g);
    std::string what = printFunc(*g);
    // Storing h: the forward scan returns it, and the backward pass does not recompute the
    // product (the transposed products remain).
    EXPECT_EQ(scanOutputs(*g), p.storesH ? 2u : 1u) << what;
    EXPECT_EQ(countLiveOps(*g, Op::DotGeneral), p.storesH ? 3 : 4) << what;
    std::vector<Array> got = interpret(*g, args);
    expectBitForBit(got, want);
  }
}

TEST(Rematerialisation, CheckpointNamesAreRemovedBeforeLowering) {
  FuncPtr g = vjpFunc(*namedCheckpointScan(Attrs::Remat::OnlyNames, {"h"}), {true, true});
  EXPECT_NE(printFunc(*g).find("name=h"), std::string::npos);
  FuncPtr optimized = runPipeline(*g, {});
  EXPECT_EQ(printFunc(*optimized).find("name=h"), std::string::npos) << printFunc(*optimized);
}

TEST(Autodiff, EveryOpHasADifferentiationKind) {
  // Smooth ops have a JVP rule (the oracle above runs one case or more for each); the few
  // without a rule are listed here so that a new one is a decision, not an accident.
  std::vector<std::string> unsupported;
  for (Op op : allOps())
    if (diffKind(op) == DiffKind::Unsupported) unsupported.push_back(opName(op));
  EXPECT_EQ(unsupported, (std::vector<std::string>{"digamma", "associative_scan", "scatter_mul", "scatter_min",
                                                   "scatter_max", "qr", "svd", "psum", "pmax", "pmin", "all_gather",
                                                   "ppermute", "process_sum", "process_max", "process_min",
                                                   "process_gather", "process_permute"}));
  std::vector<Case> cs = cases();
  for (Op op : allOps()) {
    if (diffKind(op) != DiffKind::Smooth) continue;
    bool covered = false;
    for (const Case& c : cs)
      for (const Eqn& e : c.f->eqns) covered = covered || e.op == op;
    EXPECT_TRUE(covered) << opName(op) << " is smooth but no oracle case uses it";
  }
}

TEST(Autodiff, ZeroTangentOpsGiveZeroTangents) {
  for (Op op : {Op::Floor, Op::Round, Op::Sign, Op::Ceil}) {
    Builder b;
    int x = b.param(kVec);
    FuncPtr f = b.ret({b.eqn1(op, {x})});
    FuncPtr j = jvpFunc(*f, {true});
    std::mt19937 rng(1);
    std::vector<Array> out = interpret(*j, {draw(kVec, -2, 2, rng), draw(kVec, -1, 1, rng)});
    for (int64_t k = 0; k < out[1].size(); ++k) EXPECT_EQ(out[1].getDouble(k), 0.0) << opName(op);
  }
}

}  // namespace
}  // namespace scn
