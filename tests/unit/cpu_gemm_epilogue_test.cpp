// Note [GEMM epilogues]: which launches become a product's epilogue, and that the CPU runs them
// piece by piece (or after the product when the pieces are not whole points) with the
// interpreter's results.
#include <gtest/gtest.h>

#include "jit/cpu/cpu_backend.hpp"
#include "jit/kernel/kernel_ir.hpp"
#include "kernel_test_util.hpp"

namespace scn {
namespace {

using ktest::Builder;
using ktest::ty;
constexpr DType F32 = DType::F32;
constexpr DType F64 = DType::F64;

struct Product {
  Shape l, r;
  std::vector<int64_t> lc, rc, lb, rb;
  Shape out;
};

int dot(Builder& b, int x, int y, const Product& d) {
  Attrs a;
  a.lhsContract = d.lc;
  a.rhsContract = d.rc;
  a.lhsBatch = d.lb;
  a.rhsBatch = d.rb;
  return b.emit1(Op::DotGeneral, {x, y}, a);
}

/// How often `what` occurs in text.
int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// The kernel IR with epilogues alone (CUDA's lowering and the CPU's without them keep launches).
kir::Program withEpilogues(const FuncPtr& f) {
  kir::LowerOptions o;
  o.gemmEpilogues = true;
  return kir::lowerStage(*f, o);
}

/// Runs f on the CPU backend (two threads) and the interpreter, and compares.
void matchesTheInterpreter(const FuncPtr& f, const std::vector<Array>& args) {
  static std::unique_ptr<Backend> cpu = makeCpuBackend(2);
  std::vector<Array> want = interpret(*f, args);
  std::vector<Array> got = cpu->compile(f)->run(args, nullptr);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(ktest::closeArrays(got[i], want[i])) << "result " << i;
}

/// Multiples of 1/4 in [-3, 3]: every sum of products is exact in f32, in any order of the
/// library's accumulation, so results compare elementwise.
Array inputs(DType t, const Shape& s, uint32_t seed) {
  Array x = ktest::randomArray(t, s, seed, false);
  for (int64_t i = 0; i < x.size(); ++i) x.setDouble(i, std::round(x.getDouble(i) * 4) / 4);
  return x;
}

// Products the runtime cuts into batch entries, into row blocks (m = 100: blocks of unequal
// rows), and into column blocks (m = 20: the epilogue then runs after the whole product).
const std::vector<Product> kProducts = {
    {{100, 96}, {96, 130}, {1}, {0}, {}, {}, {100, 130}},
    {{3, 100, 64}, {3, 64, 70}, {2}, {1}, {0}, {0}, {3, 100, 70}},
    {{16, 64, 64}, {16, 64, 64}, {2}, {1}, {0}, {0}, {16, 64, 64}},
    {{20, 128}, {128, 520}, {1}, {0}, {}, {}, {20, 520}},
};

TEST(GemmEpilogue, AnElementwiseKernelOverTheProductRunsInsideIt) {
  for (DType t : {F32, F64})
    for (const Product& d : kProducts) {
      Builder b("sqrt_abs_product");
      int x = b.param(ty(t, d.l)), y = b.param(ty(t, d.r));
      FuncPtr f = b.ret({b.emit1(Op::Sqrt, {b.emit1(Op::Abs, {dot(b, x, y, d)})})});
      std::string cpu = emitKernels(f);
      EXPECT_EQ(count(cpu, " then k0\n"), 1) << cpu;
      EXPECT_EQ(count(cpu, "launch"), 0) << cpu;
      // Without the option (CUDA's lowering) the kernel stays a launch after the product.
      std::string plain = kir::printKernels(kir::lowerStage(*f, {}));
      EXPECT_EQ(count(plain, " then k"), 0) << plain;
      EXPECT_EQ(count(plain, "launch k0"), 1) << plain;
      matchesTheInterpreter(f, {inputs(t, d.l, 1), inputs(t, d.r, 2)});
    }
}

TEST(GemmEpilogue, AKernelOverRowsOfTheProductRunsInsideItOrAfterIt) {
  // product + bias[None, :] lowers to a kernel over (m, n) (two dims: a point is an element, its
  // flat index i0 * n + i1); a per-entry scale s[:, None, None] of a batched product too.
  for (const Product& d : kProducts) {
    Builder b("product_plus_bias");
    int x = b.param(ty(F32, d.l)), y = b.param(ty(F32, d.r));
    int64_t n = d.out.back();
    int bias = b.param(ty(F32, {n}));
    Attrs bc;
    bc.shape = d.out;
    bc.axes = {static_cast<int64_t>(d.out.size()) - 1};
    FuncPtr f = b.ret({b.emit1(Op::Add, {dot(b, x, y, d), b.emit1(Op::BroadcastInDim, {bias}, bc)})});
    std::string cpu = emitKernels(f);
    EXPECT_EQ(count(cpu, " then k0\n"), 1) << cpu;
    matchesTheInterpreter(f, {inputs(F32, d.l, 3), inputs(F32, d.r, 4), inputs(F32, {n}, 5)});
  }
}

/// softmax(x @ y) over the last axis, or over the first (`overColumns`).
FuncPtr productSoftmax(const Product& d, bool overColumns) {
  Builder b("product_softmax");
  int x = b.param(ty(F32, d.l)), y = b.param(ty(F32, d.r));
  int s = dot(b, x, y, d);
  int64_t axis = overColumns ? 0 : static_cast<int64_t>(d.out.size()) - 1;
  std::vector<int64_t> kept;
  for (int64_t a = 0; a < static_cast<int64_t>(d.out.size()); ++a)
    if (a != axis) kept.push_back(a);
  Attrs bc;
  bc.shape = d.out;
  bc.axes = kept;
  auto spread = [&](int v) { return b.emit1(Op::BroadcastInDim, {v}, bc); };
  int m = b.emit1(Op::ReduceMax, {s}, test::axesAttr({axis}));
  int e = b.emit1(Op::Exp, {b.emit1(Op::Sub, {s, spread(m)})});
  int sum = b.emit1(Op::ReduceSum, {e}, test::axesAttr({axis}));
  return b.ret({b.emit1(Op::Div, {e, spread(sum)})});
}

TEST(GemmEpilogue, ARowKernelOverTheProductsRowsRunsInsideIt) {
  // Attention's scores: softmax over each row of the product is one row kernel (Note [Row
  // fusion]) whose point i0 touches C[i0 * n, (i0 + 1) * n) only.
  for (const Product& d : kProducts) {
    FuncPtr f = productSoftmax(d, false);
    std::string cpu = emitKernels(f);
    EXPECT_EQ(count(cpu, " then k0\n"), 1) << cpu;
    EXPECT_EQ(count(cpu, "launch"), 0) << cpu;
    matchesTheInterpreter(f, {inputs(F32, d.l, 11), inputs(F32, d.r, 12)});
  }
  // Over the first axis a point reads a column: the kernels stay launches.
  FuncPtr f = productSoftmax(kProducts[0], true);
  std::string cpu = emitKernels(f);
  EXPECT_EQ(count(cpu, " then k"), 0) << cpu;
  matchesTheInterpreter(f, {inputs(F32, kProducts[0].l, 13), inputs(F32, kProducts[0].r, 14)});
}

TEST(GemmEpilogue, KernelsThatReadOtherElementsOrWriteAnOperandStayLaunches) {
  Product d = kProducts[0];
  {  // (x @ y)[::-1]: a point reads another row's element
    Builder b("reversed_product");
    int x = b.param(ty(F32, d.l)), y = b.param(ty(F32, d.r));
    FuncPtr f = b.ret({b.emit1(Op::Exp, {b.emit1(Op::Reverse, {dot(b, x, y, d)}, test::axesAttr({0}))})});
    std::string cpu = emitKernels(f);
    EXPECT_EQ(count(cpu, " then k"), 0) << cpu;
    matchesTheInterpreter(f, {inputs(F32, d.l, 6), inputs(F32, d.r, 7)});
  }
  for (int64_t axis : {0, 1}) {  // sums of the product's columns (a point reads a column) and rows
    Builder b("product_sums");
    int x = b.param(ty(F32, d.l)), y = b.param(ty(F32, d.r));
    FuncPtr f = b.ret({b.emit1(Op::ReduceSum, {dot(b, x, y, d)}, test::axesAttr({axis}))});
    std::string cpu = emitKernels(f);
    EXPECT_EQ(count(cpu, " then k"), axis == 0 ? 0 : 1) << cpu;  // a row's sum reads only its row
    matchesTheInterpreter(f, {inputs(F32, d.l, 8), inputs(F32, d.r, 9)});
  }
  {  // (sqrt(y), y) for y = (x + x) @ w: the sqrt is written into x + x's dead buffer, operand A
    Product sq = kProducts[2];  // A and C of one type: C may take A's buffer
    Builder b("sqrt_into_operand");
    int x = b.param(ty(F32, sq.l)), w = b.param(ty(F32, sq.r));
    int twice = b.emit1(Op::Add, {x, x});
    int y = dot(b, twice, w, sq);
    FuncPtr f = b.ret({b.emit1(Op::Sqrt, {y}), y});
    std::string cpu = emitKernels(f);
    EXPECT_NE(cpu.find("b2[i0] = sqrt(b3[i0])"), std::string::npos) << cpu;  // A is b2
    EXPECT_EQ(count(cpu, " then k"), 0) << cpu;
    matchesTheInterpreter(f, {inputs(F32, sq.l, 15), inputs(F32, sq.r, 16)});
  }
  {  // W1's scan: the carry's two buffers ping-pong; the step's sqrt writes the product's output
    FuncPtr f = ktest::matmulSqrtScan(F32, 4, 64, 5);
    std::string cpu = emitKernels(f);
    EXPECT_EQ(count(cpu, "launch"), 0) << cpu;
    EXPECT_EQ(count(cpu, "gemm"), count(cpu, " then k")) << cpu;
    Array x = inputs(F32, {4, 64, 64}, 10);
    for (int64_t i = 0; i < x.size(); ++i) x.setDouble(i, std::fabs(x.getDouble(i)) / 64);
    matchesTheInterpreter(f, {x});  // sums of 64 products of floats, compared to tolerance
  }
}

TEST(GemmEpilogue, TheVerifierRejectsAnEpilogueThatIsNotOverTheProductsElements) {
  Product d = kProducts[0];
  Builder b("sqrt_product");
  int x = b.param(ty(F32, d.l)), y = b.param(ty(F32, d.r));
  kir::Program p = withEpilogues(b.ret({b.emit1(Op::Sqrt, {dot(b, x, y, d)})}));
  ASSERT_EQ(kir::verifyProgram(p), "");
  p.kernels[0].dims = {7};  // 13000 elements in 7 windows
  EXPECT_NE(kir::verifyProgram(p).find("epilogue k0"), std::string::npos);
}

}  // namespace
}  // namespace scn
