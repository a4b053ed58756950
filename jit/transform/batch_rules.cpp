// Batching rules of the data ops, one per op category: elementwise, reductions, structural ops,
// dynamic slices and dot_general. The control-flow rules are in batch_control.cpp.
#include <algorithm>
#include <climits>

#include "jit/transform/batch_rules.hpp"
#include "base/diagnostics.hpp"

namespace scn::batching {

namespace {

// Where original axis `ax` of a value batched at `b` is in the batched value.
int64_t shifted(int64_t ax, int b) { return ax < b ? ax : ax + 1; }

// An equation none of whose inputs is batched: copied as it is.
std::vector<BVal> unbatched(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  std::vector<int> vars;
  for (const BVal& v : in) vars.push_back(v.var);
  std::vector<BVal> out;
  for (int v : c.emit(e.op, vars, e.attrs, e.subs)) out.push_back(BVal{v, std::nullopt});
  return out;
}

// Unary, Predicate, Binary, Compare, Select, Convert: the batch dimension goes where the first
// batched operand has it; other operands are moved there, unbatched ones broadcast.
/// Operands of one shape, all batched where the first batched one is (broadcast when
/// unbatched): that axis and the operands' variables.
std::pair<int, std::vector<int>> batchedAlike(Ctx& c, const std::vector<BVal>& in) {
  int target = 0;
  for (const BVal& v : in)
    if (v.dim) {
      target = *v.dim;
      break;
    }
  std::vector<int> vars;
  for (const BVal& v : in) vars.push_back(c.materialize(v, target));
  return {target, vars};
}

std::vector<BVal> elementwise(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  auto [target, vars] = batchedAlike(c, in);
  return {BVal{c.emit1(e.op, vars, e.attrs), target}};
}

// Reduce, ArgReduce: the reduced axes skip the batch dimension, which moves left by the number
// of reduced axes before it.
std::vector<BVal> reduce(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  int b = *in[0].dim;
  Attrs a = e.attrs;
  int before = 0;
  for (int64_t& ax : a.axes) {
    if (ax < b) ++before;
    ax = shifted(ax, b);
  }
  return {BVal{c.emit1(e.op, {in[0].var}, std::move(a)), b - before}};
}

// Cumulative, Reverse: the axes skip the batch dimension, which stays where it is.
std::vector<BVal> shiftAxes(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  int b = *in[0].dim;
  Attrs a = e.attrs;
  for (int64_t& ax : a.axes) ax = shifted(ax, b);
  return {BVal{c.emit1(e.op, {in[0].var}, std::move(a)), b}};
}

// associative_scan and sort: their operands share one shape, so all get the batch dimension where the
// first batched one has it (broadcast when unbatched); the combiner is a scalar function, so
// batching only adds rows.
std::vector<BVal> assocScan(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  auto [b, vars] = batchedAlike(c, in);
  Attrs a = e.attrs;
  for (int64_t& ax : a.axes) ax = shifted(ax, b);
  std::vector<BVal> out;
  for (int v : c.emit(e.op, vars, std::move(a), e.subs)) out.push_back(BVal{v, b});
  return out;
}

// Slice: the whole batch dimension is kept.
std::vector<BVal> slice(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  int b = *in[0].dim;
  Attrs a = e.attrs;
  bool hasStrides = a.strides.size() == a.starts.size();
  a.starts.insert(a.starts.begin() + b, 0);
  a.limits.insert(a.limits.begin() + b, c.n);
  if (hasStrides) a.strides.insert(a.strides.begin() + b, 1);
  return {BVal{c.emit1(e.op, {in[0].var}, std::move(a)), b}};
}

// Transpose, Reshape, BroadcastInDim: the batch dimension moves to axis 0 and the shape or
// permutation gets a leading batch axis.
std::vector<BVal> leadingAxis(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  int x = c.moveTo(in[0], 0);
  Attrs a = e.attrs;
  switch (opInfo(e.op).category) {
    case OpCategory::Transpose:
      for (int64_t& p : a.axes) ++p;
      a.axes.insert(a.axes.begin(), 0);
      break;
    case OpCategory::Reshape:
      a.shape.insert(a.shape.begin(), c.n);
      break;
    case OpCategory::BroadcastInDim:
      a.shape.insert(a.shape.begin(), c.n);
      for (int64_t& ax : a.axes) ++ax;
      a.axes.insert(a.axes.begin(), 0);
      break;
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary: case OpCategory::ComplexPart:
    case OpCategory::Compare: case OpCategory::Select: case OpCategory::Convert:
    case OpCategory::Constant: case OpCategory::Iota: case OpCategory::Reduce:
    case OpCategory::ArgReduce: case OpCategory::Cumulative: case OpCategory::AssocScan: case OpCategory::Concat:
    case OpCategory::Slice: case OpCategory::Reverse: case OpCategory::DynamicSlice:
    case OpCategory::DynamicUpdateSlice: case OpCategory::Gather: case OpCategory::Scatter:
    case OpCategory::DotGeneral: case OpCategory::Scan: case OpCategory::While: case OpCategory::Cond:
    case OpCategory::Sort: case OpCategory::Linalg: case OpCategory::Collective: case OpCategory::ProcessCollective:
      internalError(std::string("leadingAxis rule applied to ") + opName(e.op));
  }
  return {BVal{c.emit1(e.op, {x}, std::move(a)), 0}};
}

// Concat: every operand batched at 0 (unbatched ones broadcast), the axis shifted by one.
std::vector<BVal> concat(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  std::vector<int> vars;
  for (const BVal& v : in) vars.push_back(c.materialize(v, 0));
  Attrs a = e.attrs;
  for (int64_t& ax : a.axes) ++ax;
  return {BVal{c.emit1(e.op, vars, std::move(a)), 0}};
}

// Note [Batched indices]
// With the start indices unbatched, a dynamic slice of a batched operand is a dynamic slice of
// the batched array with a start of 0 and the full size along the batch axis (likewise an
// update). With batched start indices every lane reads a different window: that is a gather,
// which the IR has no op for. We run the original equation once per lane in a scan over the
// lanes (batchLanes): batched values are the scanned xs, unbatched ones its consts, and the
// per-lane results are stacked as its ys. It is correct for every op and loop-free in the IR's
// sense (no While, a trip count of n known statically); the backends see an ordinary scan. A
// one-hot formulation (compare an iota with each lane's start, select, reduce) would avoid
// the sequential loop but costs O(size of operand) per lane and per dimension; a gather op is
// the real fix if batched indices ever become hot.

bool anyBatched(const std::vector<BVal>& in, size_t from) {
  for (size_t i = from; i < in.size(); ++i)
    if (in[i].dim) return true;
  return false;
}

// The dtype of the start indices of a dynamic (update) slice whose starts begin at `first`.
DType startDType(Ctx& c, const std::vector<BVal>& in, size_t first) {
  return first < in.size() ? c.type(in[first].var).dtype : DType::I32;
}

// Note [Row reads as gathers]
// `xs[i]` with a batched i (a loop counter batched over the steps by the hoisting pass, Note
// [Counters as steps], or a vmap over indices) is a dynamic_slice of an unbatched operand with
// size 1 on its leading k axes and the whole of the others: per lane, the rows at the lane's
// starts. That is a gather by the k start arrays, reshaped to the slice's shape: no lane loop.
// Gather wraps a negative index once where dynamic_slice clamps it to 0, so the starts are first
// raised to 0; above, both clamp to the last row.
std::vector<BVal> rowReadGather(Ctx& c, const Eqn& e, const std::vector<BVal>& in, size_t k) {
  std::vector<int> vars{in[0].var};
  for (size_t d = 0; d < k; ++d) {
    int start = c.materialize(in[1 + d], 0);
    DType t = c.type(start).dtype;
    vars.push_back(c.emit1(Op::Max, {start, c.broadcastTo(c.scalar(t, 0), {c.n}, {})}));
  }
  Attrs shape;
  shape.shape = e.attrs.shape;
  shape.shape.insert(shape.shape.begin(), c.n);
  return {BVal{c.emit1(Op::Reshape, {c.emit1(Op::Gather, vars)}, std::move(shape)), 0}};
}

// DynamicSlice: operand, starts...; a batched operand keeps its batch axis (start 0, full size).
std::vector<BVal> dynamicSlice(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  if (anyBatched(in, 1)) {
    std::vector<Type> starts;
    for (size_t i = 1; i < in.size(); ++i) starts.push_back(c.type(in[i].var));
    size_t k = in[0].dim ? 0 : rowReadAxes(c.type(in[0].var), e.attrs.shape, starts);
    return k > 0 ? rowReadGather(c, e, in, k) : batchLanes(c, e, in);
  }
  int b = *in[0].dim;
  std::vector<int> vars{in[0].var};
  for (size_t i = 1; i < in.size(); ++i) vars.push_back(in[i].var);
  vars.insert(vars.begin() + 1 + b, c.scalar(startDType(c, in, 1), 0));
  Attrs a = e.attrs;
  a.shape.insert(a.shape.begin() + b, c.n);
  return {BVal{c.emit1(e.op, vars, std::move(a)), b}};
}

// DynamicUpdateSlice: operand, update, starts...; operand and update batched at one axis.
std::vector<BVal> dynamicUpdateSlice(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  if (anyBatched(in, 2)) return batchLanes(c, e, in);
  int b = in[0].dim ? *in[0].dim : *in[1].dim;
  std::vector<int> vars{c.materialize(in[0], b), c.materialize(in[1], b)};
  for (size_t i = 2; i < in.size(); ++i) vars.push_back(in[i].var);
  vars.insert(vars.begin() + 2 + b, c.scalar(startDType(c, in, 2), 0));
  return {BVal{c.emit1(e.op, vars, e.attrs), b}};
}

// Note [Batching gathers and scatters]
// Every lane reads (writes) its own operand at its own indices, so the batch becomes one more
// indexed axis in front: the operand is batched at 0 (broadcast when unbatched), a new first
// index array is an iota over the lanes, and the other index arrays (and a scatter's updates)
// are batched at 0 too. Out of range stays out of range (the new index is always in range), so
// the semantics per lane are unchanged; no lane loop is needed.

/// The index arrays of a batched gather or scatter: the lane iota, then in[first..] batched at 0.
std::vector<int> batchedIndices(Ctx& c, const std::vector<BVal>& in, size_t first) {
  Attrs iota;
  iota.shape = unbatchedType(c.type(in[first].var), in[first].dim).shape;
  iota.shape.insert(iota.shape.begin(), c.n);
  iota.axes = {0};
  iota.dtype = c.n > INT32_MAX ? DType::I64 : DType::I32;
  std::vector<int> idx{c.emit1(Op::Iota, {}, iota)};
  for (size_t i = first; i < in.size(); ++i) idx.push_back(c.materialize(in[i], 0));
  return idx;
}

// A gather from an unbatched operand needs no lane index: the batched indices alone read it.
std::vector<BVal> gather(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  std::vector<int> vars{in[0].dim ? c.moveTo(in[0], 0) : in[0].var};
  if (in[0].dim) {
    for (int v : batchedIndices(c, in, 1)) vars.push_back(v);
  } else {
    for (size_t i = 1; i < in.size(); ++i) vars.push_back(c.materialize(in[i], 0));
  }
  return {BVal{c.emit1(e.op, vars, e.attrs), 0}};
}

std::vector<BVal> scatter(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  std::vector<int> vars{c.materialize(in[0], 0), c.materialize(in[1], 0)};
  for (int v : batchedIndices(c, in, 2)) vars.push_back(v);
  return {BVal{c.emit1(e.op, vars, e.attrs), 0}};
}

// The free (neither contracting nor batch) axes of an operand of rank `rank`, in order.
std::vector<int64_t> freeAxes(int64_t rank, const std::vector<int64_t>& contract,
                              const std::vector<int64_t>& batch) {
  std::vector<int64_t> free;
  for (int64_t i = 0; i < rank; ++i)
    if (std::find(contract.begin(), contract.end(), i) == contract.end() &&
        std::find(batch.begin(), batch.end(), i) == batch.end())
      free.push_back(i);
  return free;
}

int indexOf(const std::vector<int64_t>& v, int64_t x) {
  auto it = std::find(v.begin(), v.end(), x);
  SCN_ASSERT(it != v.end(), "axis is free");
  return static_cast<int>(it - v.begin());
}

// DotGeneral: out = batch axes, lhs free axes, rhs free axes. Both operands batched: the vmap
// axis becomes a leading dot batch axis. One operand batched: it is a free axis of that side,
// and the output carries it where that free axis lands (no transpose).
std::vector<BVal> dotGeneral(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  Attrs a = e.attrs;
  BVal lhs = in[0], rhs = in[1];
  if (lhs.dim && rhs.dim) {
    for (auto* axes : {&a.lhsContract, &a.rhsContract, &a.lhsBatch, &a.rhsBatch})
      for (int64_t& ax : *axes) ++ax;
    a.lhsBatch.insert(a.lhsBatch.begin(), 0);
    a.rhsBatch.insert(a.rhsBatch.begin(), 0);
    return {BVal{c.emit1(e.op, {c.moveTo(lhs, 0), c.moveTo(rhs, 0)}, std::move(a)), 0}};
  }
  int64_t numBatch = static_cast<int64_t>(a.lhsBatch.size());
  int64_t lhsRank = static_cast<int64_t>(c.type(lhs.var).shape.size());
  int64_t rhsRank = static_cast<int64_t>(c.type(rhs.var).shape.size());
  int outDim;
  if (lhs.dim) {
    int b = *lhs.dim;
    for (auto* axes : {&a.lhsContract, &a.lhsBatch})
      for (int64_t& ax : *axes) ax = shifted(ax, b);
    outDim = static_cast<int>(numBatch) + indexOf(freeAxes(lhsRank, a.lhsContract, a.lhsBatch), b);
  } else {
    int b = *rhs.dim;
    for (auto* axes : {&a.rhsContract, &a.rhsBatch})
      for (int64_t& ax : *axes) ax = shifted(ax, b);
    int64_t lhsFree = lhsRank - static_cast<int64_t>(a.lhsContract.size()) - numBatch;
    outDim = static_cast<int>(numBatch + lhsFree) +
             indexOf(freeAxes(rhsRank, a.rhsContract, a.rhsBatch), b);
  }
  return {BVal{c.emit1(e.op, {lhs.var, rhs.var}, std::move(a)), outDim}};
}

// Linalg: the ops are batched over their leading axes already, so the vmap axis becomes one
// more leading axis of every operand (an unbatched one broadcast) and of every result.
std::vector<BVal> linalg(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  std::vector<int> vars;
  for (const BVal& v : in) vars.push_back(c.materialize(v, 0));
  std::vector<BVal> out;
  for (int v : c.emit(e.op, vars, e.attrs)) out.push_back(BVal{v, 0});
  return out;
}

}  // namespace

size_t rowReadAxes(const Type& operand, const Shape& sizes, const std::vector<Type>& starts) {
  size_t k = sizes.size();
  while (k > 0 && sizes[k - 1] == operand.shape[k - 1]) --k;
  for (size_t d = 0; d < k; ++d)
    if (sizes[d] != 1 || operand.shape[d] == 0 || !isSignedInt(starts.at(d).dtype)) return 0;
  return k;
}

std::vector<BVal> batchEqn(Ctx& c, const Eqn& e, const std::vector<BVal>& in) {
  if (!anyBatched(in, 0) && !mentionsAxis(e, c.axis.name)) return unbatched(c, e, in);
  switch (opInfo(e.op).category) {
    case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary: case OpCategory::ComplexPart:
    case OpCategory::Compare: case OpCategory::Select: case OpCategory::Convert:
      return elementwise(c, e, in);
    case OpCategory::Constant: case OpCategory::Iota:
      return unbatched(c, e, in);  // no inputs: never batched
    case OpCategory::Reduce: case OpCategory::ArgReduce:
      return reduce(c, e, in);
    case OpCategory::Cumulative: case OpCategory::Reverse:
      return shiftAxes(c, e, in);
    case OpCategory::AssocScan: case OpCategory::Sort:
      return assocScan(c, e, in);
    case OpCategory::Slice:
      return slice(c, e, in);
    case OpCategory::Transpose: case OpCategory::Reshape: case OpCategory::BroadcastInDim:
      return leadingAxis(c, e, in);
    case OpCategory::Concat:
      return concat(c, e, in);
    case OpCategory::DynamicSlice:
      return dynamicSlice(c, e, in);
    case OpCategory::DynamicUpdateSlice:
      return dynamicUpdateSlice(c, e, in);
    case OpCategory::Gather:
      return gather(c, e, in);
    case OpCategory::Scatter:
      return scatter(c, e, in);
    case OpCategory::DotGeneral:
      return dotGeneral(c, e, in);
    case OpCategory::Scan:
      return batchScan(c, e, in);
    case OpCategory::While:
      return batchWhile(c, e, in);
    case OpCategory::Cond:
      return batchCond(c, e, in);
    case OpCategory::Linalg:
      return linalg(c, e, in);
    case OpCategory::Collective:
      return batchCollective(c, e, in);
    case OpCategory::ProcessCollective:
      return batchProcessCollective(c, e, in);
  }
  internalError(std::string("no batching rule for ") + opName(e.op));
}

}  // namespace scn::batching
