// The kernels of gathers and scatters (Note [Gather and scatter] in jit/interp_gather.cpp): a
// gather is a fused load at a computed index; a scatter writes its operand's buffer (in place
// when the operand is dead) and then applies the updates in order.
#include <algorithm>

#include "jit/kernel/lower_impl.hpp"
#include "base/diagnostics.hpp"

namespace scn::kir {

// Note [Scatter kernels]
// Updates with equal indices must be applied in order (the last `set` wins, `add` accumulates),
// and which indices collide is known only at run time. So the scatter kernel is parallel only
// where no two points can write one element: over the window (the operand's axes the indices do
// not touch), each point running the updates in order in a sequential loop. A scatter of whole
// rows (`table.at[idx].add(rows)`) is as parallel as a row; a scatter of scalars (a histogram)
// is one sequential loop, which on the CPU is a tight read-modify-write loop with no atomics.
// A dropped update (an index out of range) is a branch around the store, `if in range {
// out[p] = combine(out[p], u) }`: an earlier form rewrote a clamped target with a select of its
// old value, which cost a clamp and a load per update even for `set` (the in-place scan of bench
// group G: 35 instructions a step, 3.5 ns; the branch, taken or not, is predicted).
// On a GPU one sequential loop is one thread: a histogram of 2^22 values would run on one core
// of thousands. A backend that asks (LowerOptions::atomicScatterBelow, the CUDA backend) gets a
// scatter-add with a narrow window as one thread per update element, each adding with an atomic
// add (AtomicAdd statement). Integer sums are exact in any order; a float sum then depends on
// the order the adds land in, so it may differ in the last bits from run to run, as XLA's
// scatter-add on a GPU does. Set, mul, min and max stay ordered loops.

namespace {

/// Index `index` (any integer dtype) into an axis of n elements as i64, wrapped once when negative.
ExprP wrappedIndex(const ExprP& index, int64_t n) {
  ExprP i = convert(DType::I64, index);
  ExprP negative = opExpr(Op::Lt, DType::Bool, {i, idx(0)});
  return opExpr(Op::Select, DType::I64, {negative, arith(Arith::Add, i, idx(n)), i});
}

ExprP clampedIndex(const ExprP& i, int64_t n) {
  return arith(Arith::Min, arith(Arith::Max, i, idx(0)), idx(n - 1));
}

}  // namespace

ExprP FuncLowering::genGather(const Eqn& e, const std::vector<ExprP>& ix) {
  const Shape& s = f_.type(e.inputs[0]).shape;
  size_t k = e.inputs.size() - 1, nb = f_.type(e.inputs[1]).shape.size();
  std::vector<ExprP> b(ix.begin(), ix.begin() + static_cast<std::ptrdiff_t>(nb)), j;
  for (size_t d = 0; d < k; ++d) j.push_back(clampedIndex(wrappedIndex(gen(e.inputs[1 + d], b), s[d]), s[d]));
  j.insert(j.end(), ix.begin() + static_cast<std::ptrdiff_t>(nb), ix.end());
  return gen(e.inputs[0], j);
}

bool FuncLowering::updatesInPlace(size_t ei, const Eqn& e) {
  int o = e.inputs[0];
  bool inplace = mat_[o] && canSteal_[o] && lastUse_[o] == static_cast<int>(ei) &&
                 std::count(e.inputs.begin(), e.inputs.end(), o) == 1;
  for (size_t k = 1; inplace && k < e.inputs.size(); ++k) {
    const std::vector<int>& l = leaves(e.inputs[k]);
    inplace = std::find(l.begin(), l.end(), o) == l.end();
  }
  return inplace;
}

Loc FuncLowering::updateTarget(size_t ei, const Eqn& e) {
  int o = e.inputs[0], v = e.outputs[0];
  if (!updatesInPlace(ei, e)) {
    Loc out = outputLoc(v);
    copyInto(o, out);
    return out;
  }
  pb_.prog.inPlaceUpdates += pb_.trips;
  takeOverBuffer(v, o);
  return loc_[v];
}

void FuncLowering::lowerScatter(size_t ei, const Eqn& e) {
  Loc out = updateTarget(ei, e);
  const Type& t = f_.type(e.inputs[0]);
  const Shape& s = t.shape;
  const Shape& B = f_.type(e.inputs[2]).shape;
  size_t k = e.inputs.size() - 2;
  Shape window(s.begin() + static_cast<std::ptrdiff_t>(k), s.end());
  bool empty = numElements(B) == 0 || numElements(window) == 0;
  for (size_t d = 0; d < k; ++d) empty = empty || s[d] == 0;
  if (empty) return;  // nothing is written
  std::optional<Op> comb = opInfo(e.op).combiner;
  // Complex elements keep the ordered loop: there is no atomic add of a c64 / c128.
  bool atomic = e.op == Op::ScatterAdd && !isComplex(t.dtype) && numElements(window) < pb_.opts.atomicScatterBelow;
  Kernel ker;
  std::vector<ExprP> w, bix;
  int b = -1;  // the loop over the updates, when not atomic
  if (atomic) {  // a thread per element of the updates
    Shape all = B;
    all.insert(all.end(), window.begin(), window.end());
    std::vector<ExprP> ix = parallelIndex(all, ker);
    bix.assign(ix.begin(), ix.begin() + static_cast<std::ptrdiff_t>(B.size()));
    w.assign(ix.begin() + static_cast<std::ptrdiff_t>(B.size()), ix.end());
  } else {  // a thread per window element, looping over the updates in order
    w = parallelIndex(window, ker);
    b = newLocal(ker, DType::I64);
    bix = delinearise(local(b, DType::I64), B);
  }
  std::vector<ExprP> pos, uix = bix;
  std::vector<Stmt> body;
  auto named = [&](DType dt, ExprP v) {  // a local holding v, so the body reads it once
    int l = newLocal(ker, dt);
    body.push_back(let(l, std::move(v)));
    return local(l, dt);
  };
  ExprP inRange;
  for (size_t d = 0; d < k; ++d) {
    ExprP i = named(DType::I64, wrappedIndex(gen(e.inputs[2 + d], bix), s[d]));
    ExprP ok = opExpr(Op::And, DType::Bool, {opExpr(Op::Ge, DType::Bool, {i, idx(0)}),
                                             opExpr(Op::Lt, DType::Bool, {i, idx(s[d])})});
    inRange = inRange ? opExpr(Op::And, DType::Bool, {inRange, ok}) : ok;
    pos.push_back(i);
  }
  pos.insert(pos.end(), w.begin(), w.end());
  uix.insert(uix.end(), w.begin(), w.end());
  ExprP at = linearIndex(pos, s);
  ExprP u = gen(e.inputs[1], uix);
  if (atomic) {
    body.push_back(ifThen(inRange, {atomicAdd(out, at, u)}));
    ker.body = std::move(body);
  } else {
    ExprP updated = comb ? opExpr(*comb, t.dtype, {load(out.buffer, t.dtype, offsetPlus(out, at)), u}) : u;
    body.push_back(ifThen(inRange, {store(out, at, updated)}));
    ker.body.push_back(loop(b, numElements(B), std::move(body)));
  }
  pb_.launch(std::move(ker));
}

// dynamic_update_slice: the update is written into the operand's own slot when the operand is
// dead (a stolen carry), else into a copy of it.
void FuncLowering::lowerDynamicUpdateSlice(size_t ei, const Eqn& e) {
  Loc out = updateTarget(ei, e);
  int u = e.inputs[1];
  const Shape &S = f_.type(e.inputs[0]).shape, &U = f_.type(u).shape;
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
