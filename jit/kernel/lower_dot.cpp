// dot_general: a (batched) GEMM step for floats, with operands transposed into temporaries
// where the GEMM cannot read their layout; generated loops for integers.
#include <algorithm>

#include "jit/kernel/lower_impl.hpp"
#include "base/diagnostics.hpp"

namespace scn::kir {

// Note [Accumulating products]
// `acc + a @ b` where acc is a dead buffer of the product's type (reverse mode's cotangent of a
// weight in a backward scan, `ct_w + h^T @ dg` each step, carried) is one GEMM with beta 1 into
// acc's buffer, not a product into a temporary (which the library first zeroes) and an add
// kernel over both: the zeroing pass, the add's pass and the temporary go, and a carry is left
// in its own slot (no swap). f32 and f64 only (sgemm/dgemm and cuBLAS take a beta). For k up
// to the library's k-block the result has the unfused form's rounding (the block's sum is added
// to acc once); beyond it, acc joins the sum of the first block, a change of summation order.
// acc must be materialised at offset 0, stealable, and read by nothing from the product on
// but the add (nor by the product's operands), and the product by nothing but the add.
int FuncLowering::accumulatorOf(size_t ei, const Eqn& e, size_t* addEqn) {
  int d = e.outputs[0];
  const Type& t = f_.type(d);
  if ((t.dtype != DType::F32 && t.dtype != DType::F64) ||
      std::find(f_.results.begin(), f_.results.end(), d) != f_.results.end())
    return -1;
  int readers = 0;
  size_t j = 0;
  for (size_t k = ei + 1; k < f_.eqns.size(); ++k)
    for (int u : f_.eqns[k].inputs)
      if (u == d) ++readers, j = k;
  if (readers != 1 || f_.eqns[j].op != Op::Add) return -1;
  const Eqn& add = f_.eqns[j];
  int acc = add.inputs[0] == d ? add.inputs[1] : add.inputs[0], sum = add.outputs[0];
  if (f_.type(acc) != t || f_.type(sum) != t || !mat_[sum] || placed_[sum]) return -1;
  if (def_[acc] >= static_cast<int>(ei) || !mat_[acc] || !canSteal_[acc] || loc_[acc].buffer < 0 ||
      placed_[acc] || lastUse_[acc] != static_cast<int>(j) ||
      !isConstIdx(loc_[acc].offset ? loc_[acc].offset : idx(0), 0))
    return -1;
  for (size_t k = ei; k < j; ++k) {  // nothing reads acc between the product and the add
    const Eqn& r = f_.eqns[k];
    if (isFusibleEqn(r) && !mat_[r.outputs[0]]) continue;  // read where its consumer is
    for (int u : r.inputs)
      for (int m : leaves(u))
        if (m == acc) return -1;
  }
  *addEqn = j;
  return acc;
}

void FuncLowering::lowerDotEqn(size_t ei, const Eqn& e) {
  size_t add = 0;
  int acc = accumulatorOf(ei, e, &add);
  if (acc < 0) return lowerDot(e, outputLoc(e.outputs[0]));
  lowerDot(e, loc_[acc], true);
  int product = e.outputs[0], sum = f_.eqns[add].outputs[0];
  takeOverBuffer(sum, acc);
  loc_[product] = loc_[sum];  // read by nothing but the add
  doneByGemm_[add] = true;
}

void FuncLowering::lowerDot(const Eqn& e, const Loc& out, bool accumulate) {
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
    g.accumulate = accumulate;
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
      if (K == 0 && !accumulate) {  // an empty sum; added to acc, it changes nothing
        Kernel k;
        k.dims = {numElements(t.shape)};
        k.body.push_back(store(out, index(0), constFloat(t.dtype, 0)));
        pb_.launch(std::move(k));
      } else if (K > 0) {
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
