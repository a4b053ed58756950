// Oracle tests of vmap (batchFunc): for every op and every batch-axis position of every operand,
// the batched function equals the original run lane by lane and stacked (JAX's lax_vmap_op_test).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

#include "jit/backend.hpp"
#include "jit/batch.hpp"
#include "base/diagnostics.hpp"

namespace scn {

void PrintTo(Op op, std::ostream* os) { *os << opName(op); }

namespace {

using Axes = std::vector<std::optional<int>>;

// ---- building small functions ----

struct Builder {
  FuncPtr f = std::make_shared<Func>();
  Span span;  // put on every equation

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
    Eqn e{op, std::move(in), {}, std::move(a), std::move(subs), span};
    for (Type& t : r.types) e.outputs.push_back(f->newVar(t));
    f->eqns.push_back(e);
    return e.outputs;
  }
  int eqn1(Op op, std::vector<int> in, Attrs a = {}, std::vector<FuncPtr> subs = {}) {
    return eqn(op, std::move(in), std::move(a), std::move(subs)).at(0);
  }
  int constant(DType dt, int64_t v) {
    Attrs a;
    a.dtype = dt;
    a.value = std::make_shared<Array>(Array::scalarInt(dt, v));
    return eqn1(Op::Constant, {}, a);
  }
  FuncPtr ret(std::vector<int> results) {
    f->results = std::move(results);
    return f;
  }
};

Attrs axesAttr(std::vector<int64_t> axes) {
  Attrs a;
  a.axes = std::move(axes);
  return a;
}

// How to draw a parameter's values: integers in [lo, hi] (floats: multiples of 1/4 in it, so
// that ties and exact zeros occur), NaN now and then when `nans`.
struct Gen {
  double lo = -2, hi = 2;
  bool nans = false;
};

struct Case {
  std::string name;
  FuncPtr f;
  std::vector<Gen> gens;  // one per parameter
};

// ---- arrays: drawing, slicing out a lane, stacking lanes ----

Array randomArray(const Type& t, const Gen& g, std::mt19937& rng) {
  Array a(t.dtype, t.shape);
  for (int64_t i = 0; i < a.size(); ++i) {
    if (t.dtype == DType::Bool) {
      a.setInt(i, rng() % 2);
    } else if (t.dtype == DType::C64) {
      std::uniform_int_distribution<int> d(static_cast<int>(g.lo * 4), static_cast<int>(g.hi * 4));
      float re = d(rng) / 4.0f;
      a.data<c64>()[i] = c64{re, d(rng) / 4.0f};
    } else if (isFloat(t.dtype)) {
      std::uniform_int_distribution<int> d(static_cast<int>(g.lo * 4), static_cast<int>(g.hi * 4));
      a.setDouble(i, g.nans && rng() % 5 == 0 ? std::nan("") : d(rng) / 4.0);
    } else {
      std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(g.lo), static_cast<int64_t>(g.hi));
      a.setInt(i, d(rng));
    }
  }
  return a;
}

// Elements before and after `axis` (the array viewed as [outer, shape[axis], inner]).
std::pair<int64_t, int64_t> outerInner(const Shape& s, int axis) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= s[i];
  for (size_t i = axis + 1; i < s.size(); ++i) inner *= s[i];
  return {outer, inner};
}

// Index `lane` along `axis`, dropping that axis.
Array take(const Array& a, int axis, int64_t lane) {
  Shape s = a.shape;
  int64_t n = s.at(axis);
  s.erase(s.begin() + axis);
  Array r(a.dtype, s);
  auto [outer, inner] = outerInner(a.shape, axis);
  size_t es = dtypeSize(a.dtype), block = inner * es;
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(static_cast<char*>(r.raw()) + o * block,
                static_cast<const char*>(a.raw()) + (o * n + lane) * block, block);
  return r;
}

// Stacks equally shaped arrays along a new axis `axis`.
Array stack(const std::vector<Array>& lanes, int axis) {
  Shape s = lanes.at(0).shape;
  int64_t n = static_cast<int64_t>(lanes.size());
  s.insert(s.begin() + axis, n);
  Array r(lanes[0].dtype, s);
  auto [outer, inner] = outerInner(s, axis);
  size_t es = dtypeSize(r.dtype), block = inner * es;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t l = 0; l < n; ++l)
      std::memcpy(static_cast<char*>(r.raw()) + (o * n + l) * block,
                  static_cast<const char*>(lanes[l].raw()) + o * block, block);
  return r;
}

// Exact for integers and bool; floats to 1e-6 relative (and 1e-6 absolute near zero), NaN equal.
::testing::AssertionResult sameArray(const Array& got, const Array& want) {
  if (got.dtype != want.dtype || got.shape != want.shape)
    return ::testing::AssertionFailure() << "got " << dtypeName(got.dtype) << shapeString(got.shape)
                                         << ", want " << dtypeName(want.dtype) << shapeString(want.shape);
  for (int64_t i = 0; i < got.size(); ++i) {
    bool ok;
    if (isFloat(got.dtype)) {
      double a = got.getDouble(i), b = want.getDouble(i);
      ok = (std::isnan(a) && std::isnan(b)) || a == b ||
           std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b)) + 1e-6;
    } else if (isUnsignedInt(got.dtype)) {
      ok = got.getUInt(i) == want.getUInt(i);
    } else {
      ok = got.getInt(i) == want.getInt(i);
    }
    if (!ok)
      return ::testing::AssertionFailure() << "element " << i << ": got\n" << formatArray(got)
                                           << "\nwant\n" << formatArray(want);
  }
  return ::testing::AssertionSuccess();
}

std::string axesString(const Axes& axes) {
  std::string s = "(";
  for (size_t i = 0; i < axes.size(); ++i)
    s += (i ? ", " : "") + (axes[i] ? std::to_string(*axes[i]) : std::string("None"));
  return s + ")";
}

// ---- the oracle ----

// Checks batchFunc(f, inAxes, n, outAxes) against f run on each lane; returns the batched func.
// `given`, when not empty, are the stacked arguments (else they are drawn from `gens`).
FuncPtr checkBatched(const Func& f, const std::vector<Gen>& gens, const Axes& inAxes, int64_t n,
                     const Axes& outAxes, std::mt19937& rng, std::vector<Array> given = {}) {
  SCOPED_TRACE("in_axes=" + axesString(inAxes) + " out_axes=" + axesString(outAxes) +
               " n=" + std::to_string(n));
  FuncPtr g;
  try {
    g = batchFunc(f, inAxes, n, outAxes, Span{});
  } catch (const UserError& e) {
    ADD_FAILURE() << e.what() << "\nwhile batching\n" << printFunc(f);
    return nullptr;
  }
  std::string err = verify(*g);
  EXPECT_EQ(err, "") << printFunc(*g);
  if (!err.empty()) return g;
  std::vector<Array> stacked = std::move(given);
  for (size_t i = stacked.size(); i < f.params.size(); ++i) {
    Type t = f.type(f.params[i]);
    if (inAxes[i]) t.shape.insert(t.shape.begin() + *inAxes[i], n);
    stacked.push_back(randomArray(t, gens.at(i), rng));
  }
  std::vector<std::vector<Array>> perLane(f.results.size());
  for (int64_t l = 0; l < n; ++l) {
    std::vector<Array> args;
    for (size_t i = 0; i < stacked.size(); ++i)
      args.push_back(inAxes[i] ? take(stacked[i], *inAxes[i], l) : stacked[i]);
    std::vector<Array> out = interpret(f, args);
    for (size_t j = 0; j < out.size(); ++j) perLane[j].push_back(out[j]);
  }
  std::vector<Array> got = interpret(*g, stacked);
  EXPECT_EQ(got.size(), f.results.size());
  for (size_t j = 0; j < got.size() && j < perLane.size(); ++j) {
    if (outAxes[j]) {
      EXPECT_TRUE(sameArray(got[j], stack(perLane[j], *outAxes[j])))
          << "result " << j << " of\n" << printFunc(*g) << "from\n" << printFunc(f);
    } else {
      for (int64_t l = 0; l < n; ++l)
        EXPECT_TRUE(sameArray(got[j], perLane[j][l])) << "result " << j << " lane " << l;
    }
  }
  return g;
}

// Every in-axis choice for every parameter (None, 0..rank); out axes cycle over 0..rank of each
// result so that every position is exercised across the combinations.
void checkAllAxes(const Case& c, int64_t n = 3) {
  SCOPED_TRACE(c.name);
  std::mt19937 rng(1234);
  const Func& f = *c.f;
  std::vector<int> choices;
  for (int p : f.params) choices.push_back(static_cast<int>(f.type(p).shape.size()) + 2);
  std::vector<int> pick(choices.size(), 0);
  for (int combo = 0;; ++combo) {
    Axes in;
    for (size_t i = 0; i < pick.size(); ++i)
      in.push_back(pick[i] == 0 ? std::nullopt : std::optional<int>(pick[i] - 1));
    Axes out;
    for (int r : f.results) out.push_back(combo % (static_cast<int>(f.type(r).shape.size()) + 1));
    checkBatched(f, c.gens, in, n, out, rng);
    if (::testing::Test::HasFailure()) return;  // one failing combination says enough
    size_t i = 0;
    while (i < pick.size() && ++pick[i] == choices[i]) pick[i++] = 0;
    if (i == pick.size()) break;
  }
}

// ---- a small function per op, for every op of the table ----

Type T(DType dt, Shape s) { return Type{dt, std::move(s)}; }

// The dtype an op of this type class is tested with.
DType dtypeFor(TypeClass tc) {
  switch (tc) {
    case TypeClass::Any: case TypeClass::Real: case TypeClass::Num: case TypeClass::NumC:
    case TypeClass::Float: case TypeClass::FloatC: return DType::F32;
    case TypeClass::Complex: return DType::C64;
    case TypeClass::Int: case TypeClass::IntBool: return DType::I32;
  }
  return DType::F32;
}

// f(x...) = op(x...) for operands of the given types and attributes.
Case single(Op op, const std::string& what, std::vector<Type> in, Attrs a = {},
            std::vector<Gen> gens = {}) {
  Builder b;
  std::vector<int> ps;
  for (Type& t : in) ps.push_back(b.param(t));
  if (gens.empty()) gens.assign(in.size(), Gen{});
  std::vector<FuncPtr> subs;
  if (op == Op::AssocScan) {  // its combiner: a maximum by compare and select (not cummax)
    Builder c;
    int acc = c.param(T(in[0].dtype, {})), x = c.param(T(in[0].dtype, {}));
    subs = {c.ret({c.eqn1(Op::Select, {c.eqn1(Op::Gt, {x, acc}), x, acc})})};
  }
  return Case{std::string(opName(op)) + " " + what, b.ret(b.eqn(op, ps, std::move(a), subs)), gens};
}

// scan(c, h0, xs): h = h * c + x, y = sum(h); consts, carry and xs all exercised.
Case scanCase(Op op, bool reverse) {
  Builder body;
  int c = body.param(T(DType::F32, {3})), h = body.param(T(DType::F32, {3}));
  int x = body.param(T(DType::F32, {3}));
  int h2 = body.eqn1(Op::Add, {body.eqn1(Op::Mul, {h, c}), x});
  body.ret({h2, body.eqn1(Op::ReduceSum, {h2}, axesAttr({0}))});
  Builder b;
  std::vector<int> ps{b.param(T(DType::F32, {3})), b.param(T(DType::F32, {3})),
                      b.param(T(DType::F32, {4, 3}))};
  Attrs a;
  a.numConsts = 1;
  a.numCarry = 1;
  a.length = 4;
  a.reverse = reverse;
  return Case{std::string(opName(op)) + (reverse ? " reverse" : ""),
              b.ret(b.eqn(op, ps, a, {body.f})), {Gen{}, Gen{}, Gen{}}};
}

// while (i < limit) { i += 1; x = x * 0.5 + step }: the trip count differs per lane when limit
// or i0 is batched.
Case whileCase(Op op) {
  Builder cond;
  int limit = cond.param(T(DType::I32, {})), ci = cond.param(T(DType::I32, {}));
  cond.param(T(DType::F32, {3}));
  cond.ret({cond.eqn1(Op::Lt, {ci, limit})});
  Builder body;
  int step = body.param(T(DType::F32, {3})), i = body.param(T(DType::I32, {}));
  int x = body.param(T(DType::F32, {3}));
  int half = body.eqn1(Op::Convert, {body.constant(DType::I32, 2)}, [] {
    Attrs a;
    a.dtype = DType::F32;
    return a;
  }());
  Attrs bc;
  bc.shape = {3};
  int x2 = body.eqn1(Op::Add, {body.eqn1(Op::Div, {x, body.eqn1(Op::BroadcastInDim, {half}, bc)}), step});
  body.ret({body.eqn1(Op::Add, {i, body.constant(DType::I32, 1)}), x2});
  Builder b;
  std::vector<int> ps{b.param(T(DType::I32, {})), b.param(T(DType::F32, {3})),
                      b.param(T(DType::I32, {})), b.param(T(DType::F32, {3}))};
  Attrs a;
  a.numConsts = 1;
  a.numBodyConsts = 1;
  return Case{opName(op), b.ret(b.eqn(op, ps, a, {cond.f, body.f})),
              {Gen{0, 6}, Gen{}, Gen{0, 3}, Gen{}}};
}

// cond(index, a, b) over branches (a+b, a), (a*b, b), (a-b, -a); the index is drawn out of range
// too (clamped). A bool index selects of the first two.
Case condCase(Op op, DType indexType) {
  Op ops[] = {Op::Add, Op::Mul, Op::Sub};
  std::vector<FuncPtr> branches;
  int numBranches = indexType == DType::Bool ? 2 : 3;
  for (int k = 0; k < numBranches; ++k) {
    Builder br;
    int a = br.param(T(DType::F32, {3})), bb = br.param(T(DType::F32, {3}));
    int second = k == 0 ? a : k == 1 ? bb : br.eqn1(Op::Neg, {a});
    branches.push_back(br.ret({br.eqn1(ops[k], {a, bb}), second}));
  }
  Builder b;
  std::vector<int> ps{b.param(T(indexType, {})), b.param(T(DType::F32, {3})),
                      b.param(T(DType::F32, {3}))};
  return Case{std::string(opName(op)) + " " + dtypeName(indexType), b.ret(b.eqn(op, ps, {}, branches)),
              {Gen{-1, 3}, Gen{}, Gen{}}};
}

std::vector<Case> casesFor(Op op) {
  const OpInfo& info = opInfo(op);
  DType dt = dtypeFor(info.typeClass);
  Gen g;
  if (info.typeClass == TypeClass::Int) g = Gen{0, 9};  // shift counts
  std::vector<Case> cs;
  switch (info.category) {
    case OpCategory::Unary:
      cs.push_back(single(op, "2x3", {T(dt, {2, 3})}));
      if (info.typeClass == TypeClass::IntBool) cs.push_back(single(op, "bool", {T(DType::Bool, {2})}));
      break;
    case OpCategory::Predicate:
      cs.push_back(single(op, "2x3", {T(dt, {2, 3})}, {}, {Gen{-2, 2, true}}));
      break;
    case OpCategory::ComplexPart:
      if (op == Op::Complex) cs.push_back(single(op, "2x3", {T(dt, {2, 3}), T(dt, {2, 3})}));
      else cs.push_back(single(op, "2x3", {T(dt, {2, 3})}));
      break;
    case OpCategory::Binary: case OpCategory::Compare:
      cs.push_back(single(op, "2x3", {T(dt, {2, 3}), T(dt, {2, 3})}, {}, {g, g}));
      cs.push_back(single(op, "scalar", {T(dt, {}), T(dt, {})}, {}, {g, g}));
      if (info.typeClass == TypeClass::IntBool)
        cs.push_back(single(op, "bool", {T(DType::Bool, {2}), T(DType::Bool, {2})}));
      break;
    case OpCategory::Select:
      cs.push_back(single(op, "2x3", {T(DType::Bool, {2, 3}), T(dt, {2, 3}), T(dt, {2, 3})}));
      break;
    case OpCategory::Convert: {
      Attrs toInt, toF64;
      toInt.dtype = DType::I32;
      toF64.dtype = DType::F64;
      cs.push_back(single(op, "f32->i32", {T(DType::F32, {2, 3})}, toInt));
      cs.push_back(single(op, "i32->f64", {T(DType::I32, {3})}, toF64));
      break;
    }
    case OpCategory::Constant: {  // f(x) = c, with an unused parameter so that it can be mapped
      Builder b;
      b.param(T(dt, {2}));
      Attrs a;
      a.value = std::make_shared<Array>(DType::F32, Shape{2, 3});
      for (int64_t i = 0; i < 6; ++i) a.value->setDouble(i, i * 0.5);
      a.dtype = DType::F32;
      a.shape = {2, 3};
      cs.push_back(Case{opName(op), b.ret({b.eqn1(op, {}, a)}), {Gen{}}});
      break;
    }
    case OpCategory::Iota: {
      Builder b;
      b.param(T(dt, {2}));
      Attrs a = axesAttr({1});
      a.dtype = DType::I32;
      a.shape = {2, 3};
      cs.push_back(Case{opName(op), b.ret({b.eqn1(op, {}, a)}), {Gen{}}});
      break;
    }
    case OpCategory::Reduce:
      for (auto axes : std::vector<std::vector<int64_t>>{{1}, {0, 2}, {0, 1, 2}, {}})
        cs.push_back(single(op, "axes " + std::to_string(axes.size()), {T(dt, {2, 3, 2})}, axesAttr(axes)));
      if (info.typeClass == TypeClass::IntBool)
        cs.push_back(single(op, "bool", {T(DType::Bool, {2, 3})}, axesAttr({1})));
      break;
    case OpCategory::ArgReduce:
      cs.push_back(single(op, "axis 0", {T(dt, {3, 2})}, axesAttr({0})));
      cs.push_back(single(op, "axis 1", {T(dt, {3, 2})}, axesAttr({1})));
      break;
    case OpCategory::Cumulative: case OpCategory::AssocScan:
      for (int64_t axis : {0, 1})
        for (bool rev : {false, true}) {
          Attrs a = axesAttr({axis});
          a.reverse = rev;
          cs.push_back(single(op, "axis " + std::to_string(axis) + (rev ? " reverse" : ""),
                              {T(dt, {2, 3})}, a, {Gen{-1, 1}}));
        }
      break;
    case OpCategory::BroadcastInDim: {
      Attrs a = axesAttr({0});
      a.shape = {3, 2};
      cs.push_back(single(op, "3->3x2", {T(dt, {3})}, a));
      Attrs s = axesAttr({});
      s.shape = {2, 3};
      cs.push_back(single(op, "scalar", {T(dt, {})}, s));
      break;
    }
    case OpCategory::Reshape: {
      Attrs a, flat;
      a.shape = {3, 2};
      flat.shape = {6};
      cs.push_back(single(op, "2x3->3x2", {T(dt, {2, 3})}, a));
      cs.push_back(single(op, "2x3->6", {T(dt, {2, 3})}, flat));
      break;
    }
    case OpCategory::Transpose:
      cs.push_back(single(op, "201", {T(dt, {2, 3, 4})}, axesAttr({2, 0, 1})));
      break;
    case OpCategory::Concat:
      cs.push_back(single(op, "axis 1", {T(dt, {2, 3}), T(dt, {2, 2})}, axesAttr({1})));
      cs.push_back(single(op, "axis 0 of 3", {T(dt, {1, 3}), T(dt, {2, 3}), T(dt, {1, 3})}, axesAttr({0})));
      break;
    case OpCategory::Slice: {
      Attrs a;
      a.starts = {1, 0};
      a.limits = {3, 5};
      a.strides = {1, 2};
      cs.push_back(single(op, "strided", {T(dt, {4, 5})}, a));
      break;
    }
    case OpCategory::Reverse:
      cs.push_back(single(op, "axis 1", {T(dt, {2, 3})}, axesAttr({1})));
      cs.push_back(single(op, "both", {T(dt, {2, 3})}, axesAttr({0, 1})));
      break;
    case OpCategory::DynamicSlice: {
      Attrs a;
      a.shape = {2, 3};
      cs.push_back(single(op, "2x3 of 4x5", {T(dt, {4, 5}), T(DType::I32, {}), T(DType::I32, {})}, a,
                          {Gen{}, Gen{-1, 4}, Gen{-1, 4}}));
      // Row reads (Note [Row reads as gathers]), starts before and past the rows.
      a.shape = {1, 5};
      cs.push_back(single(op, "row of 4x5", {T(dt, {4, 5}), T(DType::I32, {}), T(DType::I32, {})}, a,
                          {Gen{}, Gen{-3, 6}, Gen{-2, 3}}));
      a.shape = {1, 1, 3};
      cs.push_back(single(op, "1x1x3 of 2x4x3",
                          {T(dt, {2, 4, 3}), T(DType::I64, {}), T(DType::I32, {}), T(DType::I32, {})}, a,
                          {Gen{}, Gen{-2, 3}, Gen{-3, 6}, Gen{0, 1}}));
      break;
    }
    case OpCategory::DynamicUpdateSlice:
      cs.push_back(single(op, "2x3 into 4x5",
                          {T(dt, {4, 5}), T(dt, {2, 3}), T(DType::I32, {}), T(DType::I32, {})}, {},
                          {Gen{}, Gen{}, Gen{-1, 4}, Gen{-1, 4}}));
      break;
    case OpCategory::Gather:
      cs.push_back(single(op, "rows of 4x3", {T(dt, {4, 3}), T(DType::I32, {2, 2})}, {}, {Gen{}, Gen{-5, 6}}));
      cs.push_back(single(op, "elements of 4x3", {T(dt, {4, 3}), T(DType::I32, {5}), T(DType::I32, {5})}, {},
                          {Gen{}, Gen{-5, 6}, Gen{-4, 5}}));
      break;
    case OpCategory::Scatter:
      cs.push_back(single(op, "rows into 4x3", {T(dt, {4, 3}), T(dt, {2, 2, 3}), T(DType::I32, {2, 2})}, {},
                          {Gen{}, Gen{}, Gen{-5, 6}}));
      cs.push_back(single(op, "elements into 4x3",
                          {T(dt, {4, 3}), T(dt, {6}), T(DType::I32, {6}), T(DType::I32, {6})}, {},
                          {Gen{}, Gen{}, Gen{-5, 6}, Gen{-4, 5}}));
      break;
    case OpCategory::DotGeneral: {
      Attrs mm;
      mm.lhsContract = {1};
      mm.rhsContract = {0};
      cs.push_back(single(op, "matmul", {T(dt, {2, 3}), T(dt, {3, 4})}, mm));
      Attrs bmm;
      bmm.lhsBatch = {0};
      bmm.rhsBatch = {0};
      bmm.lhsContract = {2};
      bmm.rhsContract = {1};
      cs.push_back(single(op, "batched matmul", {T(dt, {2, 3, 4}), T(dt, {2, 4, 2})}, bmm));
      Attrs tr;  // contract the lhs's first axis with the rhs's last
      tr.lhsContract = {0};
      tr.rhsContract = {1};
      cs.push_back(single(op, "transposed", {T(dt, {3, 2}), T(dt, {4, 3})}, tr));
      break;
    }
    case OpCategory::Scan:
      cs.push_back(scanCase(op, false));
      cs.push_back(scanCase(op, true));
      break;
    case OpCategory::While:
      cs.push_back(whileCase(op));
      break;
    case OpCategory::Cond:
      cs.push_back(condCase(op, DType::I32));
      cs.push_back(condCase(op, DType::Bool));
      break;
    case OpCategory::Sort:  // small integer keys: ties, which the payload's order shows
      for (int64_t axis : {0, 1})
        cs.push_back(single(op, "axis " + std::to_string(axis), {T(dt, {3, 4}), T(DType::I32, {3, 4})}, axesAttr({axis}),
                            {Gen{-2, 2, true}, Gen{0, 9}}));
      break;
    case OpCategory::Linalg: {  // one matrix and a stack of two; qr and svd also wide
      std::vector<Shape> shapes = {{3, 3}, {2, 3, 3}};
      if (op == Op::Qr || op == Op::Svd) shapes.push_back({2, 2, 4});
      for (const Shape& s : shapes) {
        Attrs a;
        a.lower = s.size() == 2;
        a.length = 5;  // irfft: 3 terms to 5 points
        a.fullMatrices = op == Op::Qr;
        std::vector<Type> in = {T(dt, s)};
        if (op == Op::TriangularSolve) {
          Shape b = s;
          b.back() = 2;
          in.push_back(T(dt, b));
        }
        cs.push_back(single(op, shapeString(s), in, a));
      }
      break;
    }
    case OpCategory::Collective:  // not lane by lane: NamedAxes tests below
      break;
    case OpCategory::ProcessCollective: {  // over this process alone: lane by lane, a copy
      Attrs a;
      a.group = singleProcessGroup();
      if (op == Op::ProcessPermute) a.axes = {0, 1};  // lane 0's row to lane 1, zeros in lane 0
      cs.push_back(single(op, "one process", {T(dt, {2, 3})}, a));
      break;
    }
  }
  return cs;
}

// ---- every op of the table ----

class BatchEveryOp : public ::testing::TestWithParam<Op> {};

TEST_P(BatchEveryOp, MatchesLaneByLane) {
  if (opInfo(GetParam()).category == OpCategory::Collective) GTEST_SKIP() << "a collective combines the lanes";
  std::vector<Case> cases = casesFor(GetParam());
  ASSERT_FALSE(cases.empty()) << "no test case for " << opName(GetParam());
  for (const Case& c : cases) checkAllAxes(c);
}

INSTANTIATE_TEST_SUITE_P(AllOps, BatchEveryOp, ::testing::ValuesIn(allOps()),
                         [](const ::testing::TestParamInfo<Op>& p) {
                           return std::string(opName(p.param));
                         });

// ---- the irregular cases, one by one ----

Case caseNamed(Op op, const std::string& name) {
  for (Case& c : casesFor(op))
    if (c.name == name) return c;
  throw std::runtime_error("no case " + name);
}

Array arrayOf(DType dt, Shape shape, std::vector<double> values) {
  Array a(dt, std::move(shape));
  EXPECT_EQ(a.size(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) a.setDouble(static_cast<int64_t>(i), values[i]);
  return a;
}

TEST(BatchFunc, DotGeneralEachSideBatched) {
  std::mt19937 rng(7);
  for (const char* name : {"matmul", "batched matmul", "transposed"}) {
    Case c = caseNamed(Op::DotGeneral, std::string("dot_general ") + name);
    SCOPED_TRACE(c.name);
    checkBatched(*c.f, c.gens, {0, std::nullopt}, 3, {0}, rng);
    checkBatched(*c.f, c.gens, {std::nullopt, 1}, 3, {0}, rng);
    checkBatched(*c.f, c.gens, {2, 0}, 3, {1}, rng);
  }
}

TEST(BatchFunc, OutAxesInTheMiddleAndLast) {
  std::mt19937 rng(8);
  Case c = caseNamed(Op::Add, "add 2x3");
  checkBatched(*c.f, c.gens, {0, 1}, 4, {1}, rng);
  checkBatched(*c.f, c.gens, {2, std::nullopt}, 4, {2}, rng);  // out_axes=-1 normalised
  checkBatched(*c.f, c.gens, {std::nullopt, std::nullopt}, 4, {2}, rng);  // broadcast result
}

TEST(BatchFunc, NestedBatching) {
  std::mt19937 rng(9);
  Case mm = caseNamed(Op::DotGeneral, "dot_general matmul");
  FuncPtr g1 = checkBatched(*mm.f, mm.gens, {0, std::nullopt}, 3, {0}, rng);  // [3,2,3] x [3,4]
  ASSERT_TRUE(g1);
  FuncPtr g2 = checkBatched(*g1, mm.gens, {1, 0}, 2, {2}, rng);
  ASSERT_TRUE(g2);
  checkBatched(*g2, mm.gens, {std::nullopt, 2}, 2, {0}, rng);
  Case sc = caseNamed(Op::Scan, "scan");
  FuncPtr s1 = checkBatched(*sc.f, sc.gens, {std::nullopt, std::nullopt, 1}, 3, {0, 1}, rng);
  ASSERT_TRUE(s1);
  checkBatched(*s1, sc.gens, {0, std::nullopt, 2}, 2, {1, 0}, rng);
  Case wh = caseNamed(Op::While, "while");
  FuncPtr w1 = checkBatched(*wh.f, wh.gens, {0, std::nullopt, std::nullopt, 0}, 3, {0, 0}, rng);
  ASSERT_TRUE(w1);
  checkBatched(*w1, wh.gens, {1, 0, std::nullopt, 2}, 2, {0, 2}, rng);
}

// The only batched input is xs; the carry starts unbatched and becomes batched in the body,
// so it must be broadcast at the init.
TEST(BatchFunc, ScanCarryBecomesBatched) {
  std::mt19937 rng(10);
  Case c = caseNamed(Op::Scan, "scan");
  FuncPtr g = checkBatched(*c.f, c.gens, {std::nullopt, std::nullopt, 0}, 3, {0, 0}, rng);
  ASSERT_TRUE(g);
  const Eqn* scan = nullptr;
  for (const Eqn& e : g->eqns)
    if (e.op == Op::Scan) scan = &e;
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(g->type(scan->inputs.at(1)).shape, (Shape{3, 3})) << printFunc(*g);
}

// Lanes whose loops run 0, 5 and 2 iterations.
TEST(BatchFunc, WhileWithBatchedPredicate) {
  std::mt19937 rng(11);
  Case c = caseNamed(Op::While, "while");
  std::vector<Array> args{arrayOf(DType::I32, {3}, {0, 5, 2}), arrayOf(DType::F32, {3}, {1, 2, 3}),
                          arrayOf(DType::I32, {}, {0}), arrayOf(DType::F32, {3}, {4, 5, 6})};
  checkBatched(*c.f, c.gens, {0, std::nullopt, std::nullopt, std::nullopt}, 3, {0, 0}, rng, args);
  // The predicate is batched through the carry instead: i0 per lane.
  std::vector<Array> args2{arrayOf(DType::I32, {}, {4}), arrayOf(DType::F32, {3}, {1, 2, 3}),
                           arrayOf(DType::I32, {3}, {4, 0, 3}), arrayOf(DType::F32, {3}, {4, 5, 6})};
  checkBatched(*c.f, c.gens, {std::nullopt, std::nullopt, 0, std::nullopt}, 3, {0, 1}, rng, args2);
}

TEST(BatchFunc, CondWithBatchedPredicate) {
  std::mt19937 rng(12);
  Case c = caseNamed(Op::Cond, "cond i32");
  std::vector<Array> args{arrayOf(DType::I32, {5}, {0, 1, 2, -1, 7})};
  checkBatched(*c.f, c.gens, {0, std::nullopt, 0}, 5, {0, 1}, rng, args);
  Case b = caseNamed(Op::Cond, "cond bool");
  std::vector<Array> bargs{arrayOf(DType::Bool, {3}, {1, 0, 1})};
  checkBatched(*b.f, b.gens, {0, std::nullopt, std::nullopt}, 3, {0, 0}, rng, bargs);
}

// A scan whose body holds a cond (index from the x slice) and a dynamic_slice whose start is the
// carry: mapped xs batch the cond's index inside the loop; a mapped init batches the slice start.
TEST(BatchFunc, ControlFlowInsideScan) {
  std::vector<FuncPtr> branches;
  for (Op op : {Op::Add, Op::Mul}) {
    Builder br;
    int a = br.param(T(DType::F32, {2})), x = br.param(T(DType::F32, {}));
    Attrs bc = axesAttr({});
    bc.shape = {2};
    branches.push_back(br.ret({br.eqn1(op, {a, br.eqn1(Op::BroadcastInDim, {x}, bc)})}));
  }
  Builder body;
  int c = body.param(T(DType::F32, {5})), i = body.param(T(DType::I32, {}));
  int x = body.param(T(DType::F32, {}));
  Attrs two;
  two.shape = {2};
  int window = body.eqn1(Op::DynamicSlice, {c, i}, two);
  int zero = body.eqn1(Op::Convert, {body.constant(DType::I32, 0)}, [] {
    Attrs a;
    a.dtype = DType::F32;
    return a;
  }());
  int pos = body.eqn1(Op::Gt, {x, zero});
  int y = body.eqn1(Op::Cond, {pos, window, x}, {}, branches);
  body.ret({body.eqn1(Op::Add, {i, body.constant(DType::I32, 1)}), y});
  Builder b;
  std::vector<int> ps{b.param(T(DType::F32, {5})), b.param(T(DType::I32, {})),
                      b.param(T(DType::F32, {4}))};
  Attrs a;
  a.numConsts = 1;
  a.numCarry = 1;
  a.length = 4;
  Case cs{"scan of cond and dynamic_slice", b.ret(b.eqn(Op::Scan, ps, a, {body.f})),
          {Gen{}, Gen{-1, 3}, Gen{}}};
  checkAllAxes(cs);
}

// ---- errors ----

UserError batchError(const Func& f, const Axes& in, const Axes& out) {
  try {
    batchFunc(f, in, 3, out, Span{});
  } catch (const UserError& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return UserError(Diagnostic{});
}

TEST(BatchFunc, ARowReadAtABatchedIndexIsOneGather) {
  // x[i] of an unbatched x at a batched i: a gather of rows, no lane loop (Note [Row reads as
  // gathers]); a block that is not whole rows keeps the lane loop.
  for (int64_t cols : {5, 2}) {
    Builder b;
    int x = b.param(T(DType::F32, {4, 5})), i = b.param(T(DType::I32, {}));
    Attrs a;
    a.shape = {1, cols};
    FuncPtr f = b.ret({b.eqn1(Op::DynamicSlice, {x, i, b.constant(DType::I32, 0)}, a)});
    FuncPtr g = batchFunc(*f, {std::nullopt, 0}, 3, {0}, Span{});
    int gathers = 0, scans = 0;
    for (const Eqn& e : g->eqns) {
      gathers += e.op == Op::Gather;
      scans += e.op == Op::Scan;
    }
    EXPECT_EQ(gathers, cols == 5 ? 1 : 0) << cols;
    EXPECT_EQ(scans, cols == 5 ? 0 : 1) << cols;
  }
}

TEST(BatchFunc, OutAxesNoneForABatchedResult) {
  Builder b;
  int x = b.param(T(DType::F32, {2})), y = b.param(T(DType::F32, {2}));
  FuncPtr f = b.ret({b.eqn1(Op::Neg, {y}), b.eqn1(Op::Neg, {x})});
  UserError e = batchError(*f, {0, std::nullopt}, {std::nullopt, std::nullopt});
  EXPECT_EQ(e.diag.code, "E0301");
  EXPECT_EQ(e.diag.message, "vmap out_axes=None for result 1, but it depends on the mapped inputs");
  std::mt19937 rng(13);
  checkBatched(*f, {Gen{}, Gen{}}, {0, std::nullopt}, 3, {std::nullopt, 0}, rng);
}

TEST(BatchFunc, AxesOutOfRange) {
  Builder b;
  int x = b.param(T(DType::F32, {2}));
  FuncPtr f = b.ret({b.eqn1(Op::Neg, {x})});
  UserError in = batchError(*f, {2}, {0});
  EXPECT_EQ(in.diag.code, "E0305");
  EXPECT_EQ(in.diag.message,
            "vmap in_axes=2 for argument 0 is out of range for the batched argument of rank 2");
  UserError out = batchError(*f, {0}, {2});
  EXPECT_EQ(out.diag.code, "E0306");
  EXPECT_EQ(out.diag.message,
            "vmap out_axes=2 for result 0 is out of range for the batched result of rank 2");
}

// ---- spans ----

void setSpans(Func& f, Span s) {
  for (Eqn& e : f.eqns) {
    e.span = s;
    for (const FuncPtr& sub : e.subs) setSpans(*sub, s);
  }
}

void expectSpans(const Func& f, const SourceFile* file) {
  for (const Eqn& e : f.eqns) {
    EXPECT_EQ(e.span.file, file) << opName(e.op) << " in\n" << printFunc(f);
    for (const FuncPtr& sub : e.subs) expectSpans(*sub, file);
  }
}

TEST(BatchFunc, EquationsKeepTheirSpans) {
  SourceFile src("t.scn", "vmap(f)(x)");
  Span whole{&src, 0, 10};
  for (Op op : {Op::While, Op::Scan, Op::Cond, Op::DynamicSlice, Op::Add}) {
    for (Case& c : casesFor(op)) {
      SCOPED_TRACE(c.name);
      setSpans(*c.f, Span{&src, 0, 4});
      Axes in(c.f->params.size(), std::optional<int>(0)), out(c.f->results.size(), 0);
      expectSpans(*batchFunc(*c.f, in, 2, out, whole), &src);
    }
  }
}

}  // namespace
}  // namespace scn

// ---- named axes (Note [Named axes]) ----
namespace scn {
namespace {

// Process `index` of `count`, where every other process holds the same values as this one.
class MirroredProcesses : public Collectives {
 public:
  MirroredProcesses(int index, int count) : index_(index), count_(count) {}
  int processIndex() const override { return index_; }
  int processCount() const override { return count_; }
  std::string describe() const override { return "mirrored(" + std::to_string(count_) + ")"; }
  std::unique_ptr<CollectiveFailure> allReduce(const Array& x, Array& out, ProcessCombine how) override {
    ++counters.calls;
    for (int64_t i = 0; i < x.size(); ++i) out.setDouble(i, how == ProcessCombine::Sum ? x.getDouble(i) * count_ : x.getDouble(i));
    return nullptr;
  }
  std::unique_ptr<CollectiveFailure> allGather(const Array& x, Array& out, bool) override {
    ++counters.calls;
    for (int64_t i = 0; i < out.size(); ++i) out.setDouble(i, x.getDouble(i % x.size()));
    return nullptr;
  }
  // A peer's rows are x's rows of the same local index.
  std::unique_ptr<CollectiveFailure> permute(const Array& x, Array& out, const std::vector<int64_t>& pairs) override {
    ++counters.calls;
    PermutePlan mine = planPermute(pairs, x.shape[0], index_, count_);
    permuteLocally(mine, index_, x, out);
    for (int peer = 0; peer < count_; ++peer) {
      if (peer == index_) continue;
      std::vector<int64_t> sent = planPermute(pairs, x.shape[0], peer, count_).sendRows[index_];
      for (size_t k = 0; k < sent.size(); ++k) out.setDouble(mine.receiveRows[peer][k], x.getDouble(sent[k]));
    }
    return nullptr;
  }

 private:
  int index_, count_;
};

bool hasCategory(const Func& f, OpCategory c) {
  for (const Eqn& e : f.eqns) {
    if (opInfo(e.op).category == c) return true;
    for (const FuncPtr& s : e.subs)
      if (hasCategory(*s, c)) return true;
  }
  return false;
}

Attrs named(const char* name) {
  Attrs a;
  a.axisName = name;
  return a;
}

TEST(NamedAxes, VmapConsumesItsCollectivesAndLeavesOthers) {
  Builder b;
  int x = b.param(Type{DType::I32, {2}});
  int inner = b.eqn1(Op::PSum, {x}, named("i"));
  int outer = b.eqn1(Op::PSum, {x}, named("j"));
  FuncPtr f = b.ret({b.eqn1(Op::Add, {inner, outer}), b.eqn1(Op::AxisIndex, {}, named("i"))});
  FuncPtr g = batchFunc(*f, {0}, 3, {0, 0}, Span{}, NamedAxis{"i", nullptr});
  EXPECT_EQ(verify(*g), "");
  // psum over `j` stays for an outer map; nothing of `i` is left.
  int left = 0;
  for (const Eqn& e : g->eqns) left += opInfo(e.op).category == OpCategory::Collective;
  EXPECT_EQ(left, 1);
  for (const Eqn& e : g->eqns) {
    if (opInfo(e.op).category == OpCategory::Collective) EXPECT_EQ(e.attrs.axisName, "j");
  }
  FuncPtr h = batchFunc(*g, {0}, 2, {0, 0}, Span{}, NamedAxis{"j", nullptr});
  EXPECT_FALSE(hasCategory(*h, OpCategory::Collective));
  Array xs(DType::I32, {2, 3, 2});
  for (int64_t i = 0; i < xs.size(); ++i) xs.setInt(i, i);
  std::vector<Array> out = interpret(*h, {xs});
  // lane (j, i): sum over i of x[j] + sum over j of x[., i]; axis_index is i
  EXPECT_EQ(formatArray(out[0]),
            "[[[12, 17], [16, 21], [20, 25]], [[30, 35], [34, 39], [38, 43]]]");
  EXPECT_EQ(formatArray(out[1]), "[[0, 1, 2], [0, 1, 2]]");
}

TEST(NamedAxes, PmapCombinesTheLocalLanesThenTheProcesses) {
  auto group = std::make_shared<MirroredProcesses>(1, 2);
  Builder b;
  int x = b.param(Type{DType::F32, {}});
  FuncPtr f = b.ret({b.eqn1(Op::PSum, {x}, named("i")), b.eqn1(Op::AxisIndex, {}, named("i"))});
  FuncPtr g = batchFunc(*f, {0}, 3, {0, 0}, Span{}, NamedAxis{"i", group});
  EXPECT_TRUE(hasCategory(*g, OpCategory::ProcessCollective));
  EXPECT_FALSE(hasCategory(*g, OpCategory::Collective));
  Array xs(DType::F32, {3});
  for (int64_t i = 0; i < 3; ++i) xs.setDouble(i, i + 1);
  std::vector<Array> out = interpret(*g, {xs});
  EXPECT_EQ(formatArray(out[0]), "[12.0, 12.0, 12.0]");  // (1 + 2 + 3) on each of 2 processes
  EXPECT_EQ(formatArray(out[1]), "[3, 4, 5]");           // process 1 holds lanes 3..5
  EXPECT_EQ(group->counters.calls, 1);
}

TEST(NamedAxes, PmapPermutesThroughOnePointToPointCollective) {
  auto group = std::make_shared<MirroredProcesses>(1, 2);
  Builder b;
  int x = b.param(Type{DType::F32, {}});
  Attrs shift = named("i");
  shift.axes = {0, 1, 1, 2, 2, 3, 3, 4, 4, 5};  // a shift right over 6 lanes; lane 0 gets zeros
  FuncPtr f = b.ret({b.eqn1(Op::PPermute, {x}, shift)});
  FuncPtr g = batchFunc(*f, {0}, 3, {0}, Span{}, NamedAxis{"i", group});
  int permutes = 0, gathers = 0;
  for (const Eqn& e : g->eqns) {
    permutes += e.op == Op::ProcessPermute;
    gathers += e.op == Op::ProcessGather || e.op == Op::Gather;
  }
  EXPECT_EQ(permutes, 1);
  EXPECT_EQ(gathers, 0);  // not an allgather of every lane
  Array xs(DType::F32, {3});
  for (int64_t i = 0; i < 3; ++i) xs.setDouble(i, i + 1);
  // Process 1 holds lanes 3..5: lane 3 gets lane 2 (process 0's third row), 4 and 5 its own 3, 4.
  EXPECT_EQ(formatArray(interpret(*g, {xs})[0]), "[3.0, 1.0, 2.0]");
  EXPECT_EQ(group->counters.calls, 1);
}

TEST(NamedAxes, APermutePlanPairsTheRowsEachProcessSendsWithTheRowsItsPeerReceives) {
  std::vector<int64_t> pairs{0, 5, 5, 0, 1, 2, 3, 4, 4, 1};  // 6 lanes over 3 processes of 2
  PermutePlan p0 = planPermute(pairs, 2, 0, 3), p1 = planPermute(pairs, 2, 1, 3), p2 = planPermute(pairs, 2, 2, 3);
  using Rows = std::vector<int64_t>;
  EXPECT_EQ(p0.sendRows[2], Rows{0});     // lane 0 to lane 5
  EXPECT_EQ(p2.receiveRows[0], Rows{1});  // lane 5 is process 2's row 1
  EXPECT_EQ(p0.sendRows[1], Rows{1});     // lane 1 to lane 2
  EXPECT_EQ(p1.receiveRows[0], Rows{0});
  EXPECT_EQ(p1.sendRows[2], Rows{1});     // lane 3 to lane 4
  EXPECT_EQ(p2.receiveRows[1], Rows{0});
  EXPECT_EQ(p2.sendRows[0], (Rows{1, 0}));     // lanes 5 and 4, in pair order
  EXPECT_EQ(p0.receiveRows[2], (Rows{0, 1}));  // to lanes 0 and 1
  EXPECT_TRUE(p1.sendRows[1].empty());
}

}  // namespace
}  // namespace scn
