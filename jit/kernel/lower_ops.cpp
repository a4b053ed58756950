// Kernels per op category: fused expressions as index arithmetic, reductions, argmax,
// cumulative ops, dot_general (GEMM or loops) and dynamic_update_slice.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "jit/kernel/lower_impl.hpp"
#include "jit/scalar.hpp"
#include "base/diagnostics.hpp"

namespace scn::kir {

namespace {

ExprP constOf(const Array& a, DType t) {
  if (isFloat(t)) return constFloat(t, a.getDouble(0));
  if (t == DType::U64) return constInt(t, static_cast<int64_t>(a.getUInt(0)));
  return constInt(t, a.getInt(0));
}

ExprP identityExpr(Op comb, DType t) {
  return dispatchDType(t, [&]<typename T>() -> ExprP {
    T v = scalar::identityOf<T>(comb);
    if constexpr (std::is_floating_point_v<T>) return constFloat(t, v);
    else return constInt(t, static_cast<int64_t>(v));
  });
}

/// e with every subexpression equal to `from` replaced by `to` (shared nodes visited once:
/// fused expressions are DAGs).
ExprP replaceExpr(const ExprP& e, const ExprP& from, const ExprP& to,
                  std::map<const Expr*, ExprP>& memo) {
  auto it = memo.find(e.get());
  if (it != memo.end()) return it->second;
  ExprP r = e;
  if (sameExpr(e, from)) {
    r = to;
  } else if (!e->args.empty()) {
    auto c = std::make_shared<Expr>(*e);
    for (ExprP& a : c->args) a = replaceExpr(a, from, to, memo);
    r = c;
  }
  memo[e.get()] = r;
  return r;
}

ExprP replaceExpr(const ExprP& e, const ExprP& from, const ExprP& to) {
  std::map<const Expr*, ExprP> memo;
  return replaceExpr(e, from, to, memo);
}

/// Whether e reads a parallel index.
bool usesIndex(const ExprP& e, std::set<const Expr*>& seen) {
  if (!seen.insert(e.get()).second) return false;
  if (e->kind == ExprKind::Index) return true;
  for (const ExprP& a : e->args)
    if (usesIndex(a, seen)) return true;
  return false;
}

bool usesIndex(const ExprP& e) {
  std::set<const Expr*> seen;
  return usesIndex(e, seen);
}

/// Row-major multi-index of flat index L in shape.
std::vector<ExprP> delinearise(const ExprP& L, const Shape& shape) {
  std::vector<ExprP> ix(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    ExprP q = arith(Arith::Div, L, idx(stride));
    ix[d] = d == 0 ? q : arith(Arith::Rem, q, idx(shape[d]));
    stride *= shape[d];
  }
  return ix;
}

/// Parallel indices for a kernel over `shape`: size-1 dims are the constant 0 and get no loop.
std::vector<ExprP> parallelIndex(const Shape& shape, Kernel& k) {
  std::vector<ExprP> ix;
  for (int64_t s : shape) {
    if (s == 1) {
      ix.push_back(idx(0));
    } else {
      ix.push_back(index(static_cast<int>(k.dims.size())));
      k.dims.push_back(s);
    }
  }
  return ix;
}

int newLocal(Kernel& k, DType t) {
  k.locals.push_back(t);
  return static_cast<int>(k.locals.size()) - 1;
}

Stmt let(int l, ExprP v, bool assoc = false) {
  Stmt s;
  s.kind = StmtKind::Let;
  s.local = l;
  s.value = std::move(v);
  s.assoc = assoc;
  return s;
}

Stmt store(const Loc& out, const ExprP& i, ExprP v) {
  Stmt s;
  s.kind = StmtKind::Store;
  s.buffer = out.buffer;
  s.index = offsetPlus(out, i);
  s.value = std::move(v);
  return s;
}

Stmt loop(int l, int64_t extent, std::vector<Stmt> body) {
  Stmt s;
  s.kind = StmtKind::Loop;
  s.local = l;
  s.extent = extent;
  s.body = std::move(body);
  return s;
}

int64_t product(const Shape& s, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= s[d];
  return n;
}

}  // namespace

ExprP FuncLowering::gen(int v, const std::vector<ExprP>& ix) {
  const Type& t = f_.type(v);
  if (mat_[v]) {
    SCN_ASSERT(loc_[v].buffer >= 0, "reading a materialised var before it is computed");
    return load(loc_[v].buffer, t.dtype, offsetPlus(loc_[v], linearIndex(ix, t.shape)));
  }
  const Eqn& e = f_.eqns.at(def_[v]);
  const Attrs& a = e.attrs;
  auto inShape = [&](size_t k) -> const Shape& { return f_.type(e.inputs[k]).shape; };
  switch (opInfo(e.op).category) {
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary:
    case OpCategory::Compare: case OpCategory::Select: {
      std::vector<ExprP> args;
      for (int in : e.inputs) args.push_back(gen(in, ix));
      return opExpr(e.op, t.dtype, std::move(args));
    }
    case OpCategory::Convert: return convert(t.dtype, gen(e.inputs[0], ix));
    case OpCategory::Constant: return constOf(*a.value, t.dtype);
    case OpCategory::Iota: return convert(t.dtype, ix.at(a.axes.at(0)));
    case OpCategory::BroadcastInDim: {
      const Shape& s = inShape(0);
      std::vector<ExprP> j(s.size());
      for (size_t i = 0; i < s.size(); ++i) j[i] = s[i] == 1 ? idx(0) : ix.at(a.axes[i]);
      return gen(e.inputs[0], j);
    }
    case OpCategory::Reshape: return genFlat(e.inputs[0], linearIndex(ix, t.shape));
    case OpCategory::Transpose: {
      std::vector<ExprP> j(ix.size());
      for (size_t i = 0; i < ix.size(); ++i) j.at(a.axes[i]) = ix[i];
      return gen(e.inputs[0], j);
    }
    case OpCategory::Slice: {
      std::vector<ExprP> j(ix.size());
      for (size_t d = 0; d < ix.size(); ++d) {
        int64_t stride = d < a.strides.size() ? a.strides[d] : 1;
        j[d] = arith(Arith::Add, idx(a.starts.at(d)), arith(Arith::Mul, ix[d], idx(stride)));
      }
      return gen(e.inputs[0], j);
    }
    case OpCategory::Reverse: {
      std::vector<ExprP> j = ix;
      for (int64_t d : a.axes) j[d] = arith(Arith::Sub, idx(t.shape[d] - 1), ix[d]);
      return gen(e.inputs[0], j);
    }
    case OpCategory::Concat: {
      int64_t ax = a.axes.at(0);
      std::vector<int64_t> begin;
      int64_t off = 0;
      for (size_t k = 0; k < e.inputs.size(); ++k) {
        begin.push_back(off);
        off += inShape(k)[ax];
      }
      // Each operand is read at a clamped index (always in bounds); selects pick the right one,
      // as a balanced tree over the non-empty operands (a stack of 65536 scalars is 16 deep).
      std::vector<size_t> nonEmpty;
      for (size_t k = 0; k < e.inputs.size(); ++k)
        if (inShape(k)[ax] > 0) nonEmpty.push_back(k);
      SCN_ASSERT(!nonEmpty.empty(), "concat of empty operands read");
      auto operand = [&](size_t k) {
        std::vector<ExprP> j = ix;
        j[ax] = arith(Arith::Min, arith(Arith::Max, arith(Arith::Sub, ix[ax], idx(begin[k])), idx(0)),
                      idx(inShape(k)[ax] - 1));
        return gen(e.inputs[k], j);
      };
      // The operands nonEmpty[lo..hi): below the first of the upper half, the lower half.
      auto pick = [&](auto& self, size_t lo, size_t hi) -> ExprP {
        if (hi - lo == 1) return operand(nonEmpty[lo]);
        size_t mid = lo + (hi - lo) / 2;
        ExprP pred = opExpr(Op::Lt, DType::Bool, {ix[ax], idx(begin[nonEmpty[mid]])});
        return opExpr(Op::Select, t.dtype, {pred, self(self, lo, mid), self(self, mid, hi)});
      };
      return pick(pick, 0, nonEmpty.size());
    }
    case OpCategory::DynamicSlice: {
      const Shape& s = inShape(0);
      std::vector<ExprP> j(ix.size());
      for (size_t d = 0; d < ix.size(); ++d) {
        ExprP st = convert(DType::I64, gen(e.inputs[1 + d], {}));
        st = arith(Arith::Min, arith(Arith::Max, st, idx(0)), idx(s[d] - t.shape[d]));
        j[d] = arith(Arith::Add, st, ix[d]);
      }
      return gen(e.inputs[0], j);
    }
    SCN_CASES_WHERE_NOT(fusible)
      break;
  }
  internalError(std::string("fused read of non-fusible op ") + opName(e.op));
}

bool FuncLowering::flatOK(int v) {
  if (mat_[v]) return true;
  const Eqn& e = f_.eqns.at(def_[v]);
  const OpInfo& info = opInfo(e.op);
  if (info.category == OpCategory::BroadcastInDim) return uniform(e.inputs[0]);
  if (!info.flags.flatThrough) return false;
  for (int in : e.inputs)
    if (!flatOK(in)) return false;
  return true;
}

// Note [Uniform values]
// A value that is the same at every index (a scalar constant, broadcasts of broadcasts of it,
// elementwise ops of such values) reads the same element wherever it is read, so an elementwise
// chain over it stays one flat loop: vmap and the scan-to-map pass broadcast a literal one axis
// at a time (`broadcast(broadcast(2.0))`), and without this W2's kernel ran over its 3-d shape
// (no vectorisation across short inner rows, 10x the LLVM time to compile).
bool FuncLowering::uniform(int v) {
  if (numElements(f_.type(v).shape) == 1) return true;
  if (mat_[v]) return false;
  const Eqn& e = f_.eqns.at(def_[v]);
  if (!opInfo(e.op).flags.uniformThrough) return false;
  for (int in : e.inputs)
    if (!uniform(in)) return false;
  return true;
}

ExprP FuncLowering::genFlat(int v, const ExprP& L) {
  const Type& t = f_.type(v);
  if (mat_[v]) return load(loc_[v].buffer, t.dtype, offsetPlus(loc_[v], L));
  const Eqn& e = f_.eqns.at(def_[v]);
  switch (opInfo(e.op).category) {
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary:
    case OpCategory::Compare: case OpCategory::Select: {
      std::vector<ExprP> args;
      for (int in : e.inputs) args.push_back(genFlat(in, L));
      return opExpr(e.op, t.dtype, std::move(args));
    }
    case OpCategory::Convert: return convert(t.dtype, genFlat(e.inputs[0], L));
    case OpCategory::Constant: return constOf(*e.attrs.value, t.dtype);
    case OpCategory::Reshape: return genFlat(e.inputs[0], L);
    case OpCategory::BroadcastInDim: {
      const Shape& s = f_.type(e.inputs[0]).shape;
      if (numElements(s) == 1) return gen(e.inputs[0], std::vector<ExprP>(s.size(), idx(0)));
      if (uniform(e.inputs[0])) return genFlat(e.inputs[0], idx(0));
      break;
    }
    case OpCategory::Iota: case OpCategory::Transpose: case OpCategory::Concat:
    case OpCategory::Slice: case OpCategory::Reverse: case OpCategory::DynamicSlice:
    SCN_CASES_WHERE_NOT(fusible)
      break;
  }
  return gen(v, delinearise(L, t.shape));
}

void FuncLowering::kernelFusible(int v, const Loc& out) {
  const Type& t = f_.type(v);
  // v's own location is being written: compute its defining expression, do not load it.
  bool wasMat = mat_[v];
  if (def_[v] >= 0) mat_[v] = false;
  Kernel k;
  if (t.shape.size() >= 1 && flatOK(v) && numElements(t.shape) != 1) {
    k.dims = {numElements(t.shape)};
    k.body.push_back(store(out, index(0), genFlat(v, index(0))));
  } else {
    std::vector<ExprP> ix = parallelIndex(t.shape, k);
    ExprP linear = linearIndex(ix, t.shape);
    ExprP value = gen(v, ix);
    // Transposes that cancel (vmap(scan) transposes its batch axis in and out again) leave
    // every read at the written element: run the kernel over one flat index after all.
    ExprP mark = hostVar(-1);  // a placeholder no kernel contains
    ExprP flat = k.dims.size() > 1 ? replaceExpr(value, linear, mark) : nullptr;
    if (flat && !usesIndex(flat)) {
      k.dims = {numElements(t.shape)};
      k.body.push_back(store(out, index(0), replaceExpr(flat, mark, index(0))));
    } else {
      k.body.push_back(store(out, linear, value));
    }
  }
  mat_[v] = wasMat;
  pb_.launch(std::move(k));
}

void FuncLowering::copyInto(int v, const Loc& out) {
  const Type& t = f_.type(v);
  Kernel k;
  if (flatOK(v)) {
    k.dims = {numElements(t.shape)};
    k.body.push_back(store(out, index(0), genFlat(v, index(0))));
  } else {
    std::vector<ExprP> ix = parallelIndex(t.shape, k);
    k.body.push_back(store(out, linearIndex(ix, t.shape), gen(v, ix)));
  }
  pb_.launch(std::move(k));
}

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

// Note [Blocked scans]
// A cumulative op over a long axis with few rows (a 1-d cumsum/cumprod: W3) would be one serial
// loop on one thread. It runs as a blocked two-pass scan instead: the axis is cut into B blocks
// of bs = n / B elements (B = kScanBlocks, fewer for shorter axes, a multiple of 4) and
//   pass 1 (kernel over [B, rows]): each block's total, reassociated (vectorised) for the
//          builtin ops;
//   prefixes (kernel over [rows]): a short serial scan turns the B totals into inclusive
//          prefixes in place (an earlier version let every block combine the totals before it:
//          64 selects per block, which LLVM unrolled at 3x the compile time);
//   pass 2 (kernel over [B / 4, rows]): block b > 0 combines the prefix of block b - 1 into its
//          first element and scans on from there; one parallel index runs 4 blocks side by
//          side, so 4 independent dependence chains hide the latency of the combining op (a
//          serial cumprod waits ~4 cycles per element);
//   tail (kernel over [rows], only when B does not divide n): the last n - B * bs < B elements,
//          seeded with the element before them.
// Both passes are parallel over the blocks, so both cores (or the GPU's threads) share the
// work; the input is read twice (recomputed when fused: W3's cumprod of a constant reads no
// memory). Integer ops and cummax/cummin give exactly the serial result. A float cumsum or
// cumprod is reassociated: element i differs from the serial loop by at most about
// (i + 2B) * eps * sum_{k<=i} |x_k| (cumprod: by (i + 2B) * eps relative to |p_i|), the same
// order as the serial loop's own error bound, so the last bits of a long float scan differ from the
// interpreter's (docs/backend-cpu.md states the accuracy; cpu_backend_test checks the bound).
// B is a constant, not the thread count, so the kernel IR (the compile-cache key) is the same
// on every machine; 16 groups of 4 blocks split evenly over 2, 4, 8 or 16 threads. The CUDA
// backend lowers these axes to single-pass scans instead (Note [Single-pass scans]); this is
// the CPU's lowering. No scan starts from an identity: associative_scan's combiner, inlined
// here as the combining op (Note [Associative scans] in jit/combiner.cpp), has none.
namespace {

constexpr int64_t kScanBlocks = 64;
constexpr int64_t kScanMinBlock = 4096;  // shorter blocks are not worth a second pass
constexpr int64_t kScanMaxRows = 16;     // more rows already parallelise over the rows
constexpr int64_t kScanChains = 4;       // blocks scanned together by one parallel index

/// Blocks of the blocked scan of an axis of n elements in `rows` rows; <= 1: a serial loop.
int64_t scanBlocks(int64_t n, int64_t rows) {
  if (rows >= kScanMaxRows) return 1;
  return std::min(kScanBlocks, n / kScanMinBlock) / kScanChains * kScanChains;
}

}  // namespace

// Note [Single-pass scans]
// On the GPU the blocked scan (Note [Blocked scans]) costs four launches and reads the input
// twice; a backend that sets LowerOptions::singlePassScanMin (CUDA: cudaLowerOptions) gets one
// kernel instead, a single-pass scan with decoupled look-back (Merrill & Garland 2016), for a
// cumulative op over an axis of at least that many elements in fewer than kScanMaxRows rows
// (more rows already run one thread per row). The op table is untouched: the kernel is an
// ordinary Kernel whose last dim is the scanned axis, with a TileScan saying how to combine
// (the combiner and its identity come from scalar::combinerOf / identityOf, as for the other
// lowerings), a body that computes one element (fused producers included) and a store of its
// prefix. The CUDA printer turns it into a call of scn_tile_scan in the prelude, where the
// algorithm lives once (jit/cuda/prelude.cpp):
// - a row of n elements is cut into tiles of kTileScanThreads threads x `items` elements (16
//   for 1- to 4-byte types, 8 for 8-byte ones); a block takes the next tile id from an atomic
//   counter (word 0 of the status buffer) and loops until none is left, so tiles start in id
//   order whatever order the hardware starts blocks in (the forward-progress guarantee: a tile
//   only waits for tiles that are already running) and a capped grid still covers them all;
// - the tile is loaded coalesced through shared memory, each thread scans its items, warps
//   scan the thread totals with shuffles; the tile publishes its aggregate in its status word,
//   then warp 0 looks back over windows of 32 predecessors (waiting while any is still
//   invalid) and combines aggregates back to the nearest inclusive prefix; it publishes its
//   own inclusive prefix and every thread combines the tile's prefix into its items. The first
//   tile of a row publishes its inclusive prefix at once, so a look-back never leaves its row.
// - status words: flag (0 invalid, 1 aggregate, 2 inclusive) and value in one 64-bit word for
//   types of at most 4 bytes (one atomic access); for 8-byte types a flag word and separate
//   aggregate and inclusive words, each value written before its flag with __threadfence()
//   between and read after it (volatile accesses, which bypass the incoherent L1).
// - the status buffer is a temporary zeroed by an ordinary kernel launched just before, so it
//   needs nothing special inside a captured graph (Note [Loops on the device]).
// Integers and cummax/cummin are exact. A float cumsum is reassociated: element i is a sum of
// the same terms along a tree of depth at most about items + 13 + 7 * (i / tile) (a serial
// thread, the warp and block scans, then 7 per chained tile prefix), so it differs from the
// exact sum by at most that many eps * sum_{k<=i} |x_k| -- smaller than the serial loop's i eps
// bound for i past a few dozen (cumprod: relative to |p_i|). The host emulation runs the same
// protocol with tiles interleaved so that look-backs cross aggregates (Note [Host emulation]).
// The CPU backend keeps the blocked two-pass scan.
namespace {

/// The single-pass scan's items per thread for a dtype (Note [Single-pass scans]).
int64_t tileScanItems(DType t) { return dtypeSize(t) <= 4 ? 16 : 8; }

}  // namespace

namespace {

using Exprs = std::vector<ExprP>;

/// f(a, b) for associative_scan's scalar combiner f of k operands (a and b hold k values each),
/// its equations inlined as expressions.
Exprs inlineCombiner(const Func& f, const Exprs& a, const Exprs& b) {
  std::vector<ExprP> v(f.types.size());
  for (size_t i = 0; i < a.size(); ++i) {
    v[f.params[i]] = a[i];
    v[f.params[a.size() + i]] = b[i];
  }
  for (const Eqn& e : f.eqns) {
    DType t = f.type(e.outputs[0]).dtype;
    std::vector<ExprP> args;
    for (int in : e.inputs) args.push_back(v[in]);
    OpCategory c = opInfo(e.op).category;
    if (c == OpCategory::Constant) {
      v[e.outputs[0]] = constOf(*e.attrs.value, t);
    } else if (c == OpCategory::Convert) {
      v[e.outputs[0]] = convert(t, args[0]);
    } else {
      SCN_ASSERT(categoryFlags(c).elementwise, "a scalar combiner holds elementwise ops only");  // checkScalarCombiner
      v[e.outputs[0]] = opExpr(e.op, t, std::move(args));
    }
  }
  Exprs out;
  for (int r : f.results) out.push_back(v[r]);
  return out;
}

}  // namespace

void FuncLowering::kernelCumulative(const Eqn& e, const std::vector<Loc>& outs) {
  const Shape& shape = f_.type(e.outputs[0]).shape;
  std::vector<DType> ts;  // the dtype of each operand (associative_scan scans k together)
  for (int o : e.outputs) ts.push_back(f_.type(o).dtype);
  const size_t operands = ts.size();
  int64_t ax = e.attrs.axes.at(0), n = shape[ax];
  if (n == 0) return;
  bool builtin = e.op != Op::AssocScan;
  Op comb = builtin ? scalar::combinerOf(e.op) : Op::Add;
  Shape outer = shape;
  outer.erase(outer.begin() + ax);
  int64_t blocks = scanBlocks(n, numElements(outer)), rows = numElements(outer);
  // The element at scan position p (0..n-1) of the row at outer index oix.
  auto at = [&](const std::vector<ExprP>& oix, const ExprP& p) {
    std::vector<ExprP> ix = oix;
    ix.insert(ix.begin() + ax, e.attrs.reverse ? arith(Arith::Sub, idx(n - 1), p) : p);
    return ix;
  };
  int64_t minSinglePass = pb_.opts.singlePassScanMin;
  if (builtin && minSinglePass > 0 && n >= minSinglePass && rows < kScanMaxRows) {
    const Loc& out = outs[0];
    DType t = ts[0];
    Kernel k;
    std::vector<ExprP> oix = parallelIndex(outer, k);
    k.dims.push_back(n);  // the last dim is the scanned axis, even when it is 1
    TileScan tsc;
    tsc.comb = comb;
    tsc.identity = identityExpr(comb, t);
    tsc.items = tileScanItems(t);
    tsc.value = newLocal(k, t);
    tsc.prefix = newLocal(k, t);
    std::vector<ExprP> ix = at(oix, index(static_cast<int>(k.dims.size()) - 1));
    k.body.push_back(let(tsc.value, gen(e.inputs[0], ix)));
    tsc.store.push_back(store(out, linearIndex(ix, shape), local(tsc.prefix, t)));
    int64_t words = tileScanStatusWords(tsc.tiles(k.dims));
    Loc status{pb_.newTemp(DType::U64, words), idx(0)};
    tsc.status = status.buffer;
    Kernel zero;
    zero.dims = {words};
    zero.body.push_back(store(status, index(0), constInt(DType::U64, 0)));
    pb_.launch(std::move(zero));
    k.scan = std::move(tsc);
    pb_.launch(std::move(k));
    pb_.freeTemp(status.buffer);
    return;
  }

  // The k values of a scan position live in k locals of a kernel ("a slot").
  auto newSlot = [&](Kernel& k) {
    std::vector<int> slot;
    for (DType t : ts) slot.push_back(newLocal(k, t));
    return slot;
  };
  auto read = [&](const std::vector<int>& slot) {
    Exprs v;
    for (size_t i = 0; i < operands; ++i) v.push_back(local(slot[i], ts[i]));
    return v;
  };
  auto set = [&](std::vector<Stmt>& body, const std::vector<int>& slot, const Exprs& v, bool assoc = false) {
    for (size_t i = 0; i < operands; ++i) body.push_back(let(slot[i], v[i], assoc));
  };
  auto elementAt = [&](const std::vector<ExprP>& ix) {
    Exprs v;
    for (int u : e.inputs) v.push_back(gen(u, ix));
    return v;
  };
  auto storeAt = [&](std::vector<Stmt>& body, const std::vector<ExprP>& ix, const std::vector<int>& slot) {
    for (size_t i = 0; i < operands; ++i) body.push_back(store(outs[i], linearIndex(ix, shape), local(slot[i], ts[i])));
  };
  // a (+) b: the builtin op, or associative_scan's combiner inlined. No scan below starts from
  // an identity (a user's combiner has none): each starts from an element.
  auto combined = [&](const Exprs& a, const Exprs& b) {
    return builtin ? Exprs{opExpr(comb, ts[0], {a[0], b[0]})} : inlineCombiner(*e.subs.at(0), a, b);
  };
  // acc <- acc (+) x. With several operands the new values go through fresh locals first: each
  // reads every old one.
  auto combineInto = [&](Kernel& k, std::vector<Stmt>& body, const std::vector<int>& acc, const Exprs& x,
                         bool assoc = false) {
    Exprs r = combined(read(acc), x);
    if (operands == 1) return set(body, acc, r, assoc);
    std::vector<int> fresh = newSlot(k);
    set(body, fresh, r);
    set(body, acc, read(fresh));
  };
  // A loop over positions first+1 .. first+count that combines each element into acc and
  // stores the prefix; elements go through locals x first (the combiner may read one twice).
  auto scanOn = [&](Kernel& k, const std::vector<int>& acc, const std::vector<ExprP>& oix, const ExprP& first,
                    int64_t count) {
    int l = newLocal(k, DType::I64);
    std::vector<int> x = newSlot(k);
    std::vector<ExprP> ix = at(oix, arith(Arith::Add, first, arith(Arith::Add, local(l, DType::I64), idx(1))));
    std::vector<Stmt> body;
    set(body, x, elementAt(ix));
    combineInto(k, body, acc, read(x));
    storeAt(body, ix, acc);
    return loop(l, count, std::move(body));
  };
  if (blocks <= 1) {  // a serial loop per row
    Kernel k;
    std::vector<ExprP> oix = parallelIndex(outer, k);
    std::vector<int> acc = newSlot(k);
    std::vector<ExprP> ix0 = at(oix, idx(0));
    set(k.body, acc, elementAt(ix0));
    storeAt(k.body, ix0, acc);
    k.body.push_back(scanOn(k, acc, oix, idx(0), n - 1));
    pb_.launch(std::move(k));
    return;
  }
  int64_t bs = n / blocks;
  Shape grid = outer;
  grid.insert(grid.begin(), blocks);
  std::vector<Loc> totals;
  for (DType t : ts) totals.push_back(Loc{pb_.newTemp(t, blocks * rows), idx(0)});
  auto loadTotals = [&](const ExprP& slot) {
    Exprs v;
    for (size_t i = 0; i < operands; ++i) v.push_back(load(totals[i].buffer, ts[i], slot));
    return v;
  };
  auto storeTotals = [&](std::vector<Stmt>& body, const ExprP& slot, const std::vector<int>& acc) {
    for (size_t i = 0; i < operands; ++i) body.push_back(store(totals[i], slot, local(acc[i], ts[i])));
  };
  // The scan position of element l of block b.
  auto pos = [&](const ExprP& b, const ExprP& l) {
    return arith(Arith::Add, arith(Arith::Mul, b, idx(bs)), l);
  };
  {  // pass 1: block totals
    Kernel k;
    std::vector<ExprP> gix = parallelIndex(grid, k);
    std::vector<ExprP> oix(gix.begin() + 1, gix.end());
    std::vector<int> acc = newSlot(k), x = newSlot(k);
    int l = newLocal(k, DType::I64);
    set(k.body, acc, elementAt(at(oix, pos(gix[0], idx(0)))));
    std::vector<Stmt> body;
    set(body, x, elementAt(at(oix, pos(gix[0], arith(Arith::Add, local(l, DType::I64), idx(1))))));
    combineInto(k, body, acc, read(x), builtin);  // a builtin op may be reassociated (vectorised)
    k.body.push_back(loop(l, bs - 1, std::move(body)));
    storeTotals(k.body, linearIndex(gix, grid), acc);
    pb_.launch(std::move(k));
  }
  {  // the totals become inclusive prefixes in place, one short serial loop per row
    Kernel k;
    std::vector<ExprP> oix = parallelIndex(outer, k);
    std::vector<int> acc = newSlot(k);
    int m = newLocal(k, DType::I64);
    auto slot = [&](const ExprP& b) {
      std::vector<ExprP> tix = oix;
      tix.insert(tix.begin(), b);
      return linearIndex(tix, grid);
    };
    ExprP T = slot(arith(Arith::Add, local(m, DType::I64), idx(1)));
    set(k.body, acc, loadTotals(slot(idx(0))));
    std::vector<Stmt> body;
    combineInto(k, body, acc, loadTotals(T));
    storeTotals(body, T, acc);
    k.body.push_back(loop(m, blocks - 1, std::move(body)));
    pb_.launch(std::move(k));
  }
  {  // pass 2: kScanChains blocks per parallel index, each seeded with the prefix before it
    Kernel k;
    Shape groups = grid;
    groups[0] = blocks / kScanChains;
    std::vector<ExprP> gix = parallelIndex(groups, k);
    std::vector<ExprP> oix(gix.begin() + 1, gix.end());
    int l = newLocal(k, DType::I64);
    std::vector<Stmt> scan;
    for (int64_t c = 0; c < kScanChains; ++c) {
      std::vector<int> acc = newSlot(k), x = newSlot(k);
      ExprP b = arith(Arith::Add, arith(Arith::Mul, gix[0], idx(kScanChains)), idx(c));
      std::vector<ExprP> tix = gix;
      tix[0] = arith(Arith::Max, arith(Arith::Sub, b, idx(1)), idx(0));  // block 0 reads and drops slot 0
      std::vector<ExprP> ix0 = at(oix, pos(b, idx(0)));
      set(k.body, x, elementAt(ix0));
      Exprs first = read(x), seeded = combined(loadTotals(linearIndex(tix, grid)), first);
      ExprP isFirst = opExpr(Op::Eq, DType::Bool, {b, idx(0)});
      Exprs start;
      for (size_t i = 0; i < operands; ++i) start.push_back(opExpr(Op::Select, ts[i], {isFirst, first[i], seeded[i]}));
      set(k.body, acc, start);
      storeAt(k.body, ix0, acc);
      std::vector<ExprP> ix = at(oix, pos(b, arith(Arith::Add, local(l, DType::I64), idx(1))));
      set(scan, x, elementAt(ix));
      combineInto(k, scan, acc, read(x));
      storeAt(scan, ix, acc);
    }
    k.body.push_back(loop(l, bs - 1, std::move(scan)));
    pb_.launch(std::move(k));
  }
  for (const Loc& t : totals) pb_.freeTemp(t.buffer);
  if (int64_t tail = n - blocks * bs; tail > 0) {  // the last elements, seeded with the one before
    Kernel k;
    std::vector<ExprP> oix = parallelIndex(outer, k);
    std::vector<int> acc = newSlot(k);
    ExprP before = linearIndex(at(oix, idx(blocks * bs - 1)), shape);
    Exprs prev;
    for (size_t i = 0; i < operands; ++i) prev.push_back(load(outs[i].buffer, ts[i], offsetPlus(outs[i], before)));
    set(k.body, acc, prev);
    k.body.push_back(scanOn(k, acc, oix, idx(blocks * bs - 1), tail));
    pb_.launch(std::move(k));
  }
}

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

  if (isFloat(t.dtype)) {
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

void FuncLowering::lowerDynamicUpdateSlice(size_t ei, const Eqn& e) {
  int o = e.inputs[0], u = e.inputs[1], v = e.outputs[0];
  const Shape &S = f_.type(o).shape, &U = f_.type(u).shape;
  bool inplace = mat_[o] && canSteal_[o] && lastUse_[o] == static_cast<int>(ei) &&
                 std::count(e.inputs.begin(), e.inputs.end(), o) == 1;
  for (size_t k = 1; inplace && k < e.inputs.size(); ++k) {
    const std::vector<int>& l = leaves(e.inputs[k]);
    inplace = std::find(l.begin(), l.end(), o) == l.end();
  }
  Loc out;
  if (inplace) {
    pb_.stolen.push_back(loc_[o].buffer);
    out = loc_[v] = loc_[o];
    canFree_[v] = canFree_[o];
    canSteal_[v] = canSteal_[o];
    canFree_[o] = canSteal_[o] = false;
  } else {
    out = outputLoc(v);
    copyInto(o, out);
  }
  Kernel k;
  std::vector<ExprP> uix = parallelIndex(U, k), pos(S.size());
  for (size_t d = 0; d < S.size(); ++d) {
    ExprP st = convert(DType::I64, gen(e.inputs[2 + d], {}));
    st = arith(Arith::Min, arith(Arith::Max, st, idx(0)), idx(S[d] - U[d]));
    pos[d] = arith(Arith::Add, st, uix[d]);
  }
  k.body.push_back(store(out, linearIndex(pos, S), gen(u, uix)));
  pb_.launch(std::move(k));
}

}  // namespace scn::kir
