// sort: a permutation of each row (a Sort step, or a bitonic network of kernels), then one kernel
// that gathers every operand through it (Note [Sorting] in jit/interp_sort.cpp).
#include <climits>

#include "jit/kernel/lower_impl.hpp"

namespace scn::kir {

namespace {

/// The multi-index of element `pos` of row `row` of a sort along `axis` of `shape`: the rows are
/// the other axes, row-major.
std::vector<ExprP> rowElement(const Shape& shape, int64_t axis, const ExprP& row, const ExprP& pos) {
  Shape others = shape;
  others.erase(others.begin() + axis);
  std::vector<ExprP> ix = delinearise(row, others);
  ix.insert(ix.begin() + axis, pos);
  return ix;
}

ExprP rowMajor(const ExprP& row, int64_t width, const ExprP& pos) {
  return arith(Arith::Add, arith(Arith::Mul, row, idx(width)), pos);
}

ExprP boolOp(Op op, std::vector<ExprP> args) { return opExpr(op, DType::Bool, std::move(args)); }

/// a before b in sort's order (jit/sort_keys.hpp): NaNs after everything else, equal to each
/// other; -0.0 and 0.0 compare equal as floats do.
ExprP keyLess(const ExprP& a, const ExprP& b) {
  ExprP lt = boolOp(Op::Lt, {a, b});
  if (!isFloat(a->dtype)) return lt;
  ExprP aNum = boolOp(Op::Not, {boolOp(Op::IsNan, {a})});
  return boolOp(Op::Or, {lt, boolOp(Op::And, {boolOp(Op::IsNan, {b}), aNum})});
}

// Note [Bitonic sort]
// Without a library sort (the CUDA backends run generated kernels only) a row of n keys is padded
// to P = 2^ceil(log2 n) (key, index) pairs and sorted by Batcher's bitonic network: for
// k = 2, 4, ..., P and j = k/2, ..., 1 one launch compares every pair (i, i + j) with i's bit j
// clear and orders it ascending where i's bit k is clear, descending elsewhere. The pairs are
// compared by key, then by index, which makes the order total and the sort stable; a padding
// pair (index >= n) is after every real one. One kernel serves every stage: a loop over the
// log2(P) (log2(P) + 1) / 2 stages reads (k, j) from a constant table at its counter.
struct Bitonic {
  int64_t rows, n, P;
  DType keyType, indexType;
  Loc keys, index;  // rows x P
};

std::vector<int64_t> bitonicStages(int64_t P) {
  std::vector<int64_t> table;
  for (int64_t k = 2; k <= P; k *= 2)
    for (int64_t j = k / 2; j >= 1; j /= 2) {
      table.push_back(k);
      table.push_back(j);
    }
  return table;
}

}  // namespace

void FuncLowering::lowerSort(const Eqn& e) {
  const Shape& s = f_.type(e.inputs[0]).shape;
  int64_t axis = e.attrs.axes.at(0), n = s[axis], total = numElements(s);
  std::vector<Loc> outs;
  for (int o : e.outputs) outs.push_back(outputLoc(o));
  if (total > 0) {
    int64_t rows = total / n;
    DType permType = n > INT32_MAX ? DType::I64 : DType::I32;
    int64_t stride = 0;
    Loc perm = pb_.opts.sortStep ? sortStep(e, rows, permType, &stride) : bitonicSort(e, rows, permType, &stride);
    // One gather of every live operand through the permutation.
    Kernel k;
    std::vector<ExprP> rp = parallelIndex({rows, n}, k);
    ExprP from = convert(DType::I64, load(perm.buffer, permType, offsetPlus(perm, rowMajor(rp[0], stride, rp[1]))));
    std::vector<ExprP> dst = rowElement(s, axis, rp[0], rp[1]), src = rowElement(s, axis, rp[0], from);
    for (size_t m = 0; m < e.outputs.size(); ++m)
      if (live_[e.outputs[m]]) k.body.push_back(store(outs[m], linearIndex(dst, s), gen(e.inputs[m], src)));
    pb_.launch(std::move(k));
    pb_.freeTemp(perm.buffer);
  }
  for (int o : e.outputs)  // an output nobody reads (argsort's sorted keys) is never written
    if (!live_[o] && canFree_[o]) {
      pb_.freeTemp(loc_[o].buffer);
      canFree_[o] = canSteal_[o] = false;
    }
}

Loc FuncLowering::sortStep(const Eqn& e, int64_t rows, DType permType, int64_t* stride) {
  int kv = e.inputs[0];
  const Type& t = f_.type(kv);
  int64_t axis = e.attrs.axes[0], n = t.shape[axis];
  Loc keys;
  bool ownKeys = !(mat_[kv] && axis + 1 == static_cast<int64_t>(t.shape.size()));
  if (ownKeys) {  // the keys, rows x n, in a temporary
    keys = Loc{pb_.newTemp(t.dtype, rows * n), idx(0)};
    Kernel k;
    std::vector<ExprP> rp = parallelIndex({rows, n}, k);
    k.body.push_back(store(keys, rowMajor(rp[0], n, rp[1]), gen(kv, rowElement(t.shape, axis, rp[0], rp[1]))));
    pb_.launch(std::move(k));
  } else {
    keys = loc_[kv];
  }
  Loc perm{pb_.newTemp(permType, rows * n), idx(0)};
  Step st;
  st.kind = StepKind::Sort;
  st.sort = SortRows{rows, n, keys, perm};
  pb_.emit(std::move(st));
  if (ownKeys) pb_.freeTemp(keys.buffer);
  *stride = n;
  return perm;
}

Loc FuncLowering::bitonicSort(const Eqn& e, int64_t rows, DType permType, int64_t* stride) {
  int kv = e.inputs[0];
  const Type& t = f_.type(kv);
  int64_t axis = e.attrs.axes[0], n = t.shape[axis], P = 1;
  while (P < n) P *= 2;
  DType keyType = t.dtype == DType::Bool ? DType::I32 : t.dtype;
  Loc keys{pb_.newTemp(keyType, rows * P), idx(0)}, index{pb_.newTemp(permType, rows * P), idx(0)};
  {  // the pairs: (key, position), padded with (0, position >= n)
    Kernel k;
    std::vector<ExprP> rp = parallelIndex({rows, P}, k);
    ExprP at = rowMajor(rp[0], P, rp[1]);
    ExprP key = convert(keyType, gen(kv, rowElement(t.shape, axis, rp[0], arith(Arith::Min, rp[1], idx(n - 1)))));
    ExprP real = boolOp(Op::Lt, {rp[1], idx(n)});
    ExprP zero = isFloat(keyType) ? constFloat(keyType, 0) : constInt(keyType, 0);
    k.body.push_back(store(keys, at, opExpr(Op::Select, keyType, {real, key, zero})));
    k.body.push_back(store(index, at, convert(permType, rp[1])));
    pb_.launch(std::move(k));
  }
  std::vector<int64_t> table = bitonicStages(P);
  if (!table.empty()) {
    Array stages(DType::I64, {static_cast<int64_t>(table.size())});
    for (size_t i = 0; i < table.size(); ++i) stages.data<int64_t>()[i] = table[i];
    BufferInfo b;
    b.dtype = DType::I64;
    b.elems = stages.size();
    b.kind = BufferKind::Const;
    b.index = static_cast<int>(pb_.prog.consts.size());
    pb_.prog.consts.push_back(stages);
    int tableBuf = pb_.addBuffer(b);

    Step loop;
    loop.kind = StepKind::Loop;
    loop.hostVar = pb_.prog.numHostVars++;
    loop.count = static_cast<int64_t>(table.size() / 2);
    ExprP h2 = arith(Arith::Mul, hostVar(loop.hostVar), idx(2));
    ExprP kk = load(tableBuf, DType::I64, h2), jj = load(tableBuf, DType::I64, arith(Arith::Add, h2, idx(1)));
    Kernel k;
    std::vector<ExprP> rp = parallelIndex({rows, P / 2}, k);
    ExprP i = arith(Arith::Add, arith(Arith::Mul, arith(Arith::Div, rp[1], jj), arith(Arith::Mul, jj, idx(2))),
                    arith(Arith::Rem, rp[1], jj));
    ExprP l = arith(Arith::Add, i, jj);
    ExprP ai = rowMajor(rp[0], P, i), al = rowMajor(rp[0], P, l);
    int ka = newLocal(k, keyType), kb = newLocal(k, keyType), ia = newLocal(k, permType), ib = newLocal(k, permType),
        sw = newLocal(k, DType::Bool);
    k.body.push_back(let(ka, load(keys.buffer, keyType, ai)));
    k.body.push_back(let(kb, load(keys.buffer, keyType, al)));
    k.body.push_back(let(ia, load(index.buffer, permType, ai)));
    k.body.push_back(let(ib, load(index.buffer, permType, al)));
    auto pairLess = [&](int kx, int ix, int ky, int iy) {
      ExprP x = local(kx, keyType), y = local(ky, keyType), xi = local(ix, permType), yi = local(iy, permType);
      ExprP nn = constInt(permType, n);
      ExprP tie = boolOp(Op::And, {boolOp(Op::Not, {keyLess(y, x)}), boolOp(Op::Lt, {xi, yi})});
      ExprP real = boolOp(Op::Or, {boolOp(Op::Ge, {yi, nn}), boolOp(Op::Or, {keyLess(x, y), tie})});
      return boolOp(Op::And, {boolOp(Op::Lt, {xi, nn}), real});
    };
    ExprP ascending = boolOp(Op::Eq, {arith(Arith::Rem, arith(Arith::Div, i, kk), idx(2)), idx(0)});
    k.body.push_back(let(sw, opExpr(Op::Select, DType::Bool, {ascending, pairLess(kb, ib, ka, ia), pairLess(ka, ia, kb, ib)})));
    ExprP swapped = local(sw, DType::Bool);
    auto pick = [&](DType dt, int yes, int no) { return opExpr(Op::Select, dt, {swapped, local(yes, dt), local(no, dt)}); };
    k.body.push_back(store(keys, ai, pick(keyType, kb, ka)));
    k.body.push_back(store(keys, al, pick(keyType, ka, kb)));
    k.body.push_back(store(index, ai, pick(permType, ib, ia)));
    k.body.push_back(store(index, al, pick(permType, ia, ib)));
    std::vector<Step>* saved = pb_.cur;
    pb_.cur = &loop.body;
    pb_.launch(std::move(k));
    pb_.cur = saved;
    pb_.emit(std::move(loop));
  }
  pb_.freeTemp(keys.buffer);
  *stride = P;
  return index;
}

}  // namespace scn::kir
