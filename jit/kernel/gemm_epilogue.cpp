// GEMM epilogues: the elementwise launch after a product runs inside it (Note [GEMM epilogues]).
#include "jit/kernel/accesses.hpp"
#include "jit/kernel/kernel_ir.hpp"
#include "jit/kernel/lower_impl.hpp"

namespace scn::kir {

// Note [GEMM epilogues]
// W1's step is `sqrt(c @ c)`: a product of 16 x 256x256 matrices, then a kernel taking the square
// root of every element of it. As two steps, the kernel reads the product back from memory
// after the product has finished (4 MiB written, then read and written again): 0.6 ms of a
// 3.2 ms step on the Xeon of issue 21. A thread that has just computed a piece of the product
// (a batch entry, a block of rows) holds it in its cache; if the kernel runs on that piece there
// and then, the second pass costs only the arithmetic. This is what XLA and cuBLASLt call an
// epilogue, with the library's product left as it is.
// A launch right after a product becomes the product's epilogue (Gemm::epilogue, the launch
// removed) when running its points piece by piece as the product finishes them computes what the
// launch did after the whole product:
// - every access of the kernel to C stays in its point's window of C (C dense at offset 0): the
//   element of its own point (the flat index of its parallel indices), or, for a row kernel
//   (Note [Row fusion]: attention's softmax after the scores' product), its own row of C
//   (c * i0 + e, e in [0, c)); so a point needs only its own part of C, done by the time its
//   piece is;
// - it writes neither operand of the product (the product's other pieces still read them);
// - its first dim's points cut C into equal windows, in order.
// The runtime (runGemm in jit/cpu/gemm.cpp) runs the kernel on each piece of rows that is a
// whole number of its points, and after the whole product when the pieces are not (column
// blocks, or points spanning pieces). Kernels never depend on the order of their points, so both
// are the launch's results. The CPU asks for it (LowerOptions::gemmEpilogues); cuBLAS takes no
// epilogue, so CUDA keeps its launches.

namespace {

/// The flat index of a kernel's point over dims: i0 for one dim, row-major otherwise.
ExprP pointIndex(const std::vector<int64_t>& dims) {
  std::vector<ExprP> ix;
  for (size_t d = 0; d < dims.size(); ++d) ix.push_back(index(static_cast<int>(d)));
  return linearIndex(ix, dims);
}

/// Whether an access of kernel k at `index` stays in its point's window of C: for every point
/// p of dims[0], within C[p * window, (p + 1) * window). One element per point (a flat or a
/// multi-dim elementwise kernel): its own point's, `own` (pointIndex(k.dims)). Several (a row kernel, dims [rows]): an
/// access c * i0 + e with c the window and e inside it (Note [Row fusion]'s analysis).
bool staysInWindow(const Kernel& k, const ExprP& index, const ExprP& own, int64_t window, AccessAnalysis& rows) {
  if (window == k.points() / k.dims[0] && sameExpr(index, own)) return true;
  if (k.dims.size() != 1) return false;
  std::optional<RowAccess> a = rows.access(index);
  return a && a->rowCoef == window && a->hostCoef.empty() && a->rest.first >= 0 && a->rest.second < window;
}

/// Whether kernel k may run piece by piece as the product g computes C (the conditions of
/// Note [GEMM epilogues]).
bool canFollowPieceByPiece(const Gemm& g, const Kernel& k) {
  int64_t elems = g.batch * g.m * g.n;
  if (k.scan || k.dims.empty() || k.dims[0] < 1 || elems % k.dims[0] != 0) return false;
  if (g.ldc != g.n || (g.batch > 1 && g.strideC != g.m * g.n)) return false;
  if (g.c.offset && !isConstIdx(g.c.offset, 0)) return false;
  int64_t window = elems / k.dims[0];
  Accesses all;
  all.stmts(k.body);
  AccessAnalysis rows(all.loopExtents);
  ExprP own = pointIndex(k.dims);
  bool readsC = false;
  for (const auto& [buffer, index, store] : all.list) {
    if (store && (buffer == g.a.buffer || buffer == g.b.buffer)) return false;
    if (buffer != g.c.buffer) continue;
    if (!staysInWindow(k, index, own, window, rows)) return false;
    readsC = readsC || !store;
  }
  return readsC;  // a launch that does not read C gains nothing from running inside the product
}

void fuseSteps(Program& p, std::vector<Step>& steps) {
  std::vector<Step> out;
  for (Step& s : steps) {
    fuseSteps(p, s.body);
    fuseSteps(p, s.cond);
    for (std::vector<Step>& b : s.branches) fuseSteps(p, b);
    if (s.kind == StepKind::Launch && !out.empty() && out.back().kind == StepKind::Gemm) {
      Gemm& g = out.back().gemm;
      if (g.epilogue < 0 && canFollowPieceByPiece(g, p.kernels[s.kernel])) {
        g.epilogue = s.kernel;
        continue;
      }
    }
    out.push_back(std::move(s));
  }
  steps = std::move(out);
}

}  // namespace

void fuseGemmEpilogues(Program& p) { fuseSteps(p, p.steps); }

}  // namespace scn::kir
