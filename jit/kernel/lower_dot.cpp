// dot_general: a (batched) GEMM step for floats, with operands transposed into temporaries
// where the GEMM cannot read their layout; generated loops for integers.
#include <algorithm>

#include "jit/kernel/lower_impl.hpp"
#include "base/diagnostics.hpp"

namespace scn::kir {

void FuncLowering::lowerDot(const Eqn& e, const Loc& out) {
  const Attrs& a = e.attrs;
  int lhs = e.inputs[0], rhs = e.inputs[1];
  const Shape &SL = f_.type(lhs).shape, &SR = f_.type(rhs).shape;
  const Type& t = f_.type(e.outputs[0]);
  auto freeDims = [](size_t rank, const std::vector<int64_t>& b, const std::vector<int64_t>& c) {
    std::vector<int64_t> v;
    for (size_t d = 0; d < rank; ++d)
      if (std::find(b.begin(), b.end(), static_cast<int64_t>(d)) == b.end() &&
          std::find(c.begin(), c.end(), static_cast<int64_t>(d)) == c.end())
        v.push_back(static_cast<int64_t>(d));
    return v;
  };
  std::vector<int64_t> lf = freeDims(SL.size(), a.lhsBatch, a.lhsContract);
  std::vector<int64_t> rf = freeDims(SR.size(), a.rhsBatch, a.rhsContract);
  auto cat = [](std::vector<int64_t> x, const std::vector<int64_t>& y,
                const std::vector<int64_t>& z) {
    x.insert(x.end(), y.begin(), y.end());
    x.insert(x.end(), z.begin(), z.end());
    return x;
  };
  auto isIdentity = [](const std::vector<int64_t>& p) {
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] != static_cast<int64_t>(i)) return false;
    return true;
  };
  int64_t batch = product(SL, a.lhsBatch), M = product(SL, lf), N = product(SR, rf),
          K = product(SL, a.lhsContract);

  if (isFloat(t.dtype) || (isComplex(t.dtype) && pb_.opts.complexGemm)) {
    SCN_ASSERT(!isLowPrecision(t.dtype) || (t.dtype == DType::BF16 && pb_.opts.keepBf16Products),
               "a 16-bit product reached lowering unwidened");
    std::vector<int> temps;
    // An operand in layout perm1 is used as is, in perm2 transposed by the GEMM; any other
    // layout is first transposed into a temporary (a kernel).
    auto prepare = [&](int v, const std::vector<int64_t>& perm1, const std::vector<int64_t>& perm2,
                       bool& trans) -> Loc {
      trans = false;
      if (isIdentity(perm1)) return loc_[v];
      if (isIdentity(perm2)) {
        trans = true;
        return loc_[v];
      }
      const Shape& s = f_.type(v).shape;
      Shape ps;
      for (int64_t p : perm1) ps.push_back(s[p]);
      Loc tmp{pb_.newTemp(t.dtype, numElements(s)), idx(0)};
      temps.push_back(tmp.buffer);
      Kernel k;
      std::vector<ExprP> ix = parallelIndex(ps, k), j(s.size());
      for (size_t i = 0; i < perm1.size(); ++i) j[perm1[i]] = ix[i];
      k.body.push_back(store(tmp, linearIndex(ix, ps), gen(v, j)));
      pb_.launch(std::move(k));
      return tmp;
    };
    Gemm g;
    g.dtype = t.dtype;
    g.a = prepare(lhs, cat(a.lhsBatch, lf, a.lhsContract), cat(a.lhsBatch, a.lhsContract, lf),
                  g.transA);
    g.b = prepare(rhs, cat(a.rhsBatch, a.rhsContract, rf), cat(a.rhsBatch, rf, a.rhsContract),
                  g.transB);
    g.c = out;
    g.m = M;
    g.n = N;
    g.k = K;
    g.batch = batch;
    g.lda = std::max<int64_t>(1, g.transA ? M : K);
    g.ldb = std::max<int64_t>(1, g.transB ? K : N);
    g.ldc = std::max<int64_t>(1, N);
    g.strideA = M * K;
    g.strideB = K * N;
    g.strideC = M * N;
    if (M * N * batch > 0) {
      if (K == 0) {
        Kernel k;
        k.dims = {numElements(t.shape)};
        k.body.push_back(store(out, index(0), constFloat(t.dtype, 0)));
        pb_.launch(std::move(k));
      } else {
        Step s;
        s.kind = StepKind::Gemm;
        s.gemm = g;
        pb_.emit(std::move(s));
      }
    }
    for (int b : temps) pb_.freeTemp(b);
    return;
  }

  // Integer dot: generated loops, one output element per parallel index.
  Kernel k;
  std::vector<ExprP> oix = parallelIndex(t.shape, k);
  std::vector<ExprP> lix(SL.size()), rix(SR.size());
  size_t nb = a.lhsBatch.size();
  for (size_t i = 0; i < nb; ++i) {
    lix[a.lhsBatch[i]] = oix[i];
    rix[a.rhsBatch[i]] = oix[i];
  }
  for (size_t i = 0; i < lf.size(); ++i) lix[lf[i]] = oix[nb + i];
  for (size_t i = 0; i < rf.size(); ++i) rix[rf[i]] = oix[nb + lf.size() + i];
  int acc = newLocal(k, t.dtype);
  std::vector<int> ls;
  for (size_t i = 0; i < a.lhsContract.size(); ++i) {
    int l = newLocal(k, DType::I64);
    ls.push_back(l);
    lix[a.lhsContract[i]] = rix[a.rhsContract[i]] = local(l, DType::I64);
  }
  k.body.push_back(let(acc, constInt(t.dtype, 0)));
  ExprP prod = opExpr(Op::Mul, t.dtype, {gen(lhs, lix), gen(rhs, rix)});
  std::vector<Stmt> inner = {
      let(acc, opExpr(Op::Add, t.dtype, {local(acc, t.dtype), prod}), true)};
  for (size_t i = ls.size(); i-- > 0;)
    inner = {loop(ls[i], SL[a.lhsContract[i]], std::move(inner))};
  for (Stmt& s : inner) k.body.push_back(std::move(s));
  k.body.push_back(store(out, linearIndex(oix, t.shape), local(acc, t.dtype)));
  pb_.launch(std::move(k));
}

}  // namespace scn::kir
