// Where values are written: results computed straight into their consumer's destination
// (GEMM output into the carry slot its sqrt epilogue goes to), elementwise ops overwriting a dead
// operand, and concat operands produced in place inside the concat's output.
#include <algorithm>

#include "jit/kernel/lower_impl.hpp"
#include "base/diagnostics.hpp"

namespace scn::kir {

// Note [Producer targets]
// A materialised elementwise var v that must be written to a destination (a scan's new carry
// slot B, a ys slice, a cond output) and reads a dead temporary m of its own size only at its
// own flat index is computed in place: m's producer writes straight into v's destination and v's
// kernel overwrites it there. So `sqrt(c @ c)` in a scan body is a GEMM into B and an in-place
// sqrt over B: no third buffer, no copy (W1). Chains of elementwise ops propagate the target
// backwards (the eqns are visited last to first).

// Note [In-place elementwise]
// A materialised elementwise var without a destination reuses the buffer of a dead operand of
// the same dtype and size that it reads only at its own flat index (the operand's last reader
// is this kernel): the unrolled `for` of W1 needs two buffers, not three, and the elementwise
// pass touches no new memory.

// Note [Concat placement]
// `concat((x0[None], ys))` along an axis with no non-unit dimension before it lays each operand
// out as one contiguous block of the output. An operand that is materialised anyway (the ys of
// a scan, a reduction, a GEMM, an elementwise kernel), is read by nothing after the concat and
// is not a result is computed straight into its block: the concat's output is allocated when the
// first such operand is produced and the concat itself only writes the remaining operands. W3's
// geometric progression then needs one buffer of n elements, not two.

namespace {

/// Whether the producer of var v writes it through outputLoc (so a target is honoured).
bool writesThroughOutputLoc(const Func& f, int def, int v) {
  const Eqn& e = f.eqns.at(def);
  const OpInfo& info = opInfo(e.op);
  if (info.category == OpCategory::Constant)  // a non-scalar constant is a Const buffer
    return e.attrs.value && e.attrs.value->size() == 1;
  if (info.category == OpCategory::Scan) {  // ys only: carries live in their loop slots
    auto it = std::find(e.outputs.begin(), e.outputs.end(), v);
    return it - e.outputs.begin() >= e.attrs.numCarry;
  }
  return info.flags.writesOutputLoc;
}

}  // namespace

bool FuncLowering::definitionFlat(int v) {
  bool was = mat_[v];
  mat_[v] = false;
  bool ok = flatOK(v);
  mat_[v] = was;
  return ok;
}

std::vector<int> FuncLowering::definitionLeaves(int v) {
  std::vector<int> out;
  for (int u : f_.eqns.at(def_[v]).inputs)
    for (int m : leaves(u))
      if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  return out;
}

void FuncLowering::findProducerTargets() {
  for (size_t i = f_.eqns.size(); i-- > 0;) {
    const Eqn& e = f_.eqns[i];
    if (!isFusibleEqn(e)) continue;
    int v = e.outputs[0];
    if (!live_[v] || !mat_[v] || !target_[v] || !definitionFlat(v)) continue;
    const Type& t = f_.type(v);
    for (int m : definitionLeaves(v)) {
      const Type& tm = f_.type(m);
      if (def_[m] < 0 || target_[m] || lastUse_[m] != static_cast<int>(i) ||
          tm.dtype != t.dtype || numElements(tm.shape) != numElements(t.shape) ||
          !writesThroughOutputLoc(f_, def_[m], m))
        continue;
      target_[m] = target_[v];
      break;
    }
  }
}

void FuncLowering::findPlacements() {
  for (size_t i = 0; i < f_.eqns.size(); ++i) {
    const Eqn& e = f_.eqns[i];
    if (e.op != Op::Concat || !live_[e.outputs[0]] || !mat_[e.outputs[0]]) continue;
    int c = e.outputs[0];
    const Shape& s = f_.type(c).shape;
    int64_t ax = e.attrs.axes.at(0), lead = 1, inner = 1;
    for (int64_t d = 0; d < ax; ++d) lead *= s[d];
    for (size_t d = ax + 1; d < s.size(); ++d) inner *= s[d];
    if (lead != 1) continue;
    int64_t off = 0;
    for (int u : e.inputs) {
      int64_t n = f_.type(u).shape.at(ax);
      bool ok = n > 0 && def_[u] >= 0 && mat_[u] && !target_[u] && !placed_[u] &&
                lastUse_[u] == static_cast<int>(i) &&
                std::count(e.inputs.begin(), e.inputs.end(), u) == 1 &&
                writesThroughOutputLoc(f_, def_[u], u);
      if (ok) {
        placed_[u] = std::make_pair(c, off * inner);
        hasPlaced_[c] = true;
      }
      off += n;
    }
  }
}

std::optional<Loc> FuncLowering::destOf(int v) {
  if (target_[v]) return target_[v];
  if (!placed_[v]) return std::nullopt;
  auto [c, off] = *placed_[v];
  if (loc_[c].buffer < 0) outputLoc(c);
  return Loc{loc_[c].buffer, offsetPlus(loc_[c], idx(off))};
}

int FuncLowering::reusableLeaf(size_t ei, int v) {
  if (!definitionFlat(v)) return -1;
  const Type& t = f_.type(v);
  for (int m : definitionLeaves(v)) {
    const Type& tm = f_.type(m);
    const Loc& l = loc_[m];
    if (canFree_[m] && lastUse_[m] == static_cast<int>(ei) && l.buffer >= 0 &&
        isConstIdx(l.offset ? l.offset : idx(0), 0) && tm.dtype == t.dtype &&
        numElements(tm.shape) == numElements(t.shape) &&
        pb_.prog.buffers.at(l.buffer).kind == BufferKind::Temp)
      return m;
  }
  return -1;
}

// Note [Concat blocks]
// A materialised concat of a few operands is written one operand at a time, each kernel running
// over its operand's shape and storing into its block of the output: the block's rows are
// contiguous runs, so the kernel vectorises, and an element computes only its own operand. Read
// as one fused expression instead, every element would evaluate a select tree over all operands
// (each read at a clamped index, which LLVM does not vectorise): the GRU's gate cotangents,
// joined into one concat (Note [Sums of disjoint blocks] in jit/transform/disjoint_blocks.cpp),
// would each be computed three times. A concat of many operands (a stack of scalars) stays one
// kernel, whose select tree is log-deep; so does a concat read fused by its consumers.

bool FuncLowering::concatByBlocks(const Eqn& e) const {
  constexpr size_t kMaxBlocks = 8;
  int64_t ax = e.attrs.axes.at(0);
  size_t blocks = std::count_if(e.inputs.begin(), e.inputs.end(), [&](int u) { return f_.type(u).shape.at(ax) > 0; });
  return blocks <= kMaxBlocks;
}

void FuncLowering::lowerConcatBlocks(const Eqn& e) {
  int c = e.outputs[0];
  Loc out = loc_[c].buffer >= 0 ? loc_[c] : outputLoc(c);
  const Shape& s = f_.type(c).shape;
  int64_t ax = e.attrs.axes.at(0), outer = 1, inner = 1;
  for (int64_t d = 0; d < ax; ++d) outer *= s[d];
  for (size_t d = ax + 1; d < s.size(); ++d) inner *= s[d];
  int64_t off = 0;
  for (int u : e.inputs) {
    int64_t n = f_.type(u).shape.at(ax);
    bool inPlace = placed_[u] && placed_[u]->first == c;
    if (n > 0 && !inPlace) {
      if (outer == 1) copyInto(u, Loc{out.buffer, offsetPlus(out, idx(off * inner))});  // one contiguous block
      else copyIntoBlock(u, out, s, ax, off);
    }
    off += n;
  }
}

}  // namespace scn::kir
