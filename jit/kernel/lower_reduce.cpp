// Reductions (one loop per output, or a tree of blocked passes) and argmax / argmin.
#include <algorithm>
#include <functional>

#include "jit/kernel/lower_impl.hpp"
#include "jit/scalar.hpp"

namespace scn::kir {

// Note [Blocked reductions]
// A reduction of n elements per output position as one loop would combine them in a chain: a
// float sum is off by up to n eps * sum |x| (f32 ones stop at 2^24, or at 2^24 per vector lane
// once LLVM reassociates the loop into its 32 lanes; a sum of 0.1s drifts long before), and a
// full reduction runs on one thread (on the GPU, one CUDA thread). Past
// LowerOptions::reduceSerialMax elements the reduction is a tree of blocked passes instead:
//   level k: a kernel over [output, blocks] in which block b of each output position combines
//            elements b*B .. b*B+B-1 (B = LowerOptions::reduceBlock) of the input (level 0; a
//            fused producer is computed in place) or of the previous level's partials; a kernel
//            over [output] combines the last n mod B into one more partial, so every partial is
//            a contiguous run; until at most reduceSerialMax are left;
//   final:   one loop per output position over the last partials.
// Partials live in temporaries, freed once the next level has read them. The blocks run in
// parallel: on every core, or a GPU thread each. The float error is about (chain + tree) eps *
// sum |x| per level, where the chain is the longest serial run of adds: on the CPU a block of
// 256 is 32 lanes of 8 then a tree over the lanes; a GPU thread runs its block of 16 serially.
// (The interpreter's pairwise tree: Note [Reduction order] in jit/interp_reduce.cpp.) Integer
// reductions and max/min give exactly the serial result.

void FuncLowering::kernelReduce(const Eqn& e, const Loc& out) {
  int u = e.inputs[0];
  const Shape& S = f_.type(u).shape;
  const Type& t = f_.type(e.outputs[0]);
  const std::vector<int64_t>& R = e.attrs.axes;
  if (product(S, R) > pb_.opts.reduceSerialMax) return kernelReduceBlocked(e, out);
  Op comb = scalar::combinerOf(e.op);
  Kernel k;
  std::vector<ExprP> oix = parallelIndex(t.shape, k);
  int acc = newLocal(k, t.dtype);
  k.body.push_back(let(acc, identityExpr(comb, t.dtype)));
  bool suffix = true;
  for (size_t i = 0; i < R.size(); ++i)
    suffix = suffix && R[i] == static_cast<int64_t>(S.size() - R.size() + i);
  if (suffix && flatOK(u)) {
    // The reduced axes are contiguous: one flat inner loop (vectorisable).
    int l = newLocal(k, DType::I64);
    int64_t extent = product(S, R);
    ExprP L = arith(Arith::Add, arith(Arith::Mul, linearIndex(oix, t.shape), idx(extent)),
                    local(l, DType::I64));
    ExprP x = genFlat(u, L);
    k.body.push_back(loop(l, extent, {let(acc, opExpr(comb, t.dtype, {local(acc, t.dtype), x}), true)}));
  } else {
    std::vector<ExprP> full(S.size());
    std::vector<int> loopLocals;
    size_t o = 0;
    for (size_t d = 0; d < S.size(); ++d) {
      if (std::find(R.begin(), R.end(), static_cast<int64_t>(d)) != R.end()) {
        int l = newLocal(k, DType::I64);
        loopLocals.push_back(l);
        full[d] = local(l, DType::I64);
      } else {
        full[d] = oix[o++];
      }
    }
    std::vector<Stmt> inner = {
        let(acc, opExpr(comb, t.dtype, {local(acc, t.dtype), gen(u, full)}), true)};
    for (size_t i = R.size(); i-- > 0;) inner = {loop(loopLocals[i], S[R[i]], std::move(inner))};
    for (Stmt& s : inner) k.body.push_back(std::move(s));
  }
  k.body.push_back(store(out, linearIndex(oix, t.shape), local(acc, t.dtype)));
  pb_.launch(std::move(k));
}

void FuncLowering::kernelReduceBlocked(const Eqn& e, const Loc& out) {
  int u = e.inputs[0];
  const Shape& S = f_.type(u).shape;
  const Type& t = f_.type(e.outputs[0]);
  const std::vector<int64_t>& R = e.attrs.axes;
  Op comb = scalar::combinerOf(e.op);
  bool suffix = true;
  for (size_t i = 0; i < R.size(); ++i)
    suffix = suffix && R[i] == static_cast<int64_t>(S.size() - R.size() + i);
  Shape reduced;
  for (int64_t a : R) reduced.push_back(S[a]);
  const int64_t rows = numElements(t.shape);
  // Element r (an i64 expression, in reduction order) of the output position oix: of the input
  // at level 0, then of the previous level's partials.
  std::function<ExprP(const std::vector<ExprP>&, const ExprP&)> element;
  int64_t count = product(S, R);
  if (suffix && flatOK(u)) {
    element = [&, count](const std::vector<ExprP>& oix, const ExprP& r) {
      return genFlat(u, arith(Arith::Add, arith(Arith::Mul, linearIndex(oix, t.shape), idx(count)), r));
    };
  } else {
    element = [&](const std::vector<ExprP>& oix, const ExprP& r) {
      std::vector<ExprP> rix = delinearise(r, reduced), full;
      for (size_t d = 0, o = 0, q = 0; d < S.size(); ++d)
        full.push_back(std::find(R.begin(), R.end(), static_cast<int64_t>(d)) != R.end() ? rix[q++] : oix[o++]);
      return gen(u, full);
    };
  }
  // One loop combining elements first .. first+n-1 of oix into a fresh accumulator.
  auto combineRun = [&](Kernel& k, const std::vector<ExprP>& oix, const ExprP& first, int64_t n) {
    int acc = newLocal(k, t.dtype), l = newLocal(k, DType::I64);
    k.body.push_back(let(acc, identityExpr(comb, t.dtype)));
    ExprP x = element(oix, arith(Arith::Add, first, local(l, DType::I64)));
    k.body.push_back(loop(l, n, {let(acc, opExpr(comb, t.dtype, {local(acc, t.dtype), x}), true)}));
    return local(acc, t.dtype);
  };
  int previous = -1;  // the partials buffer that `element` reads above level 0
  const int64_t block = pb_.opts.reduceBlock;
  while (count > pb_.opts.reduceSerialMax) {
    int64_t full = count / block, tail = count % block, partials = full + (tail > 0);
    Loc next{pb_.newTemp(t.dtype, rows * partials), idx(0)};
    auto slot = [&](const std::vector<ExprP>& oix, const ExprP& b) {
      return arith(Arith::Add, arith(Arith::Mul, linearIndex(oix, t.shape), idx(partials)), b);
    };
    {  // the full blocks
      Kernel k;
      Shape grid = t.shape;
      grid.push_back(full);
      std::vector<ExprP> gix = parallelIndex(grid, k);
      std::vector<ExprP> oix(gix.begin(), gix.end() - 1);
      ExprP run = combineRun(k, oix, arith(Arith::Mul, gix.back(), idx(block)), block);
      k.body.push_back(store(next, slot(oix, gix.back()), run));
      pb_.launch(std::move(k));
    }
    if (tail > 0) {  // the last, shorter block
      Kernel k;
      std::vector<ExprP> oix = parallelIndex(t.shape, k);
      ExprP run = combineRun(k, oix, idx(full * block), tail);
      k.body.push_back(store(next, slot(oix, idx(full)), run));
      pb_.launch(std::move(k));
    }
    if (previous >= 0) pb_.freeTemp(previous);
    previous = next.buffer;
    count = partials;
    element = [next, partials, &t](const std::vector<ExprP>& oix, const ExprP& r) {
      ExprP at = arith(Arith::Add, arith(Arith::Mul, linearIndex(oix, t.shape), idx(partials)), r);
      return load(next.buffer, t.dtype, at);
    };
  }
  Kernel k;
  std::vector<ExprP> oix = parallelIndex(t.shape, k);
  k.body.push_back(store(out, linearIndex(oix, t.shape), combineRun(k, oix, idx(0), count)));
  pb_.launch(std::move(k));
  pb_.freeTemp(previous);
}

void FuncLowering::kernelArgReduce(const Eqn& e, const Loc& out) {
  int u = e.inputs[0];
  const Type& in = f_.type(u);
  const Type& t = f_.type(e.outputs[0]);
  int64_t ax = e.attrs.axes.at(0);
  bool isMax = e.op == Op::ArgMax;
  Kernel k;
  std::vector<ExprP> oix = parallelIndex(t.shape, k);
  int best = newLocal(k, in.dtype), bi = newLocal(k, t.dtype), l = newLocal(k, DType::I64);
  int x = newLocal(k, in.dtype), take = newLocal(k, DType::Bool);
  k.body.push_back(let(best, identityExpr(isMax ? Op::Max : Op::Min, in.dtype)));
  k.body.push_back(let(bi, constInt(t.dtype, 0)));
  std::vector<ExprP> full;
  size_t o = 0;
  for (size_t d = 0; d < in.shape.size(); ++d)
    full.push_back(static_cast<int64_t>(d) == ax ? local(l, DType::I64) : oix[o++]);
  ExprP X = local(x, in.dtype), B = local(best, in.dtype);
  // The first extreme wins; a NaN counts as the extreme (the first NaN wins), as in JAX.
  ExprP better = opExpr(isMax ? Op::Gt : Op::Lt, DType::Bool, {X, B});
  if (isFloat(in.dtype)) {
    ExprP nanX = opExpr(Op::IsNan, DType::Bool, {X});
    ExprP notNanB = opExpr(Op::Not, DType::Bool, {opExpr(Op::IsNan, DType::Bool, {B})});
    better = opExpr(Op::Or, DType::Bool, {better, opExpr(Op::And, DType::Bool, {nanX, notNanB})});
  }
  ExprP T = local(take, DType::Bool);
  k.body.push_back(loop(l, in.shape[ax],
                        {let(x, gen(u, full)), let(take, better),
                         let(best, opExpr(Op::Select, in.dtype, {T, X, B})),
                         let(bi, opExpr(Op::Select, t.dtype,
                                        {T, convert(t.dtype, local(l, DType::I64)),
                                         local(bi, t.dtype)}))}));
  k.body.push_back(store(out, linearIndex(oix, t.shape), local(bi, t.dtype)));
  pb_.launch(std::move(k));
}

}  // namespace scn::kir
