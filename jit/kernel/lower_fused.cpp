// Fused expressions as index arithmetic: the value of a var at an index (gen, genFlat), and the
// kernels that compute a fusible var or copy one into a location.
#include <map>
#include <set>

#include "jit/kernel/lower_impl.hpp"
#include "base/diagnostics.hpp"

namespace scn::kir {

namespace {

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
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary: case OpCategory::ComplexPart:
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
    case OpCategory::Gather: return genGather(e, ix);
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
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary: case OpCategory::ComplexPart:
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
    case OpCategory::Gather:
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

void FuncLowering::copyIntoBlock(int v, const Loc& out, const Shape& outShape, int64_t ax, int64_t begin) {
  Kernel k;
  std::vector<ExprP> ix = parallelIndex(f_.type(v).shape, k);
  std::vector<ExprP> at = ix;
  at[ax] = arith(Arith::Add, ix[ax], idx(begin));
  k.body.push_back(store(out, linearIndex(at, outShape), gen(v, ix)));
  pb_.launch(std::move(k));
}

}  // namespace scn::kir
