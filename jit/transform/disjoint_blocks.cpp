// The join-disjoint-blocks pass: a sum of zero-padded blocks that do not overlap becomes the
// blocks written into one array (Note [Sums of disjoint blocks]).
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "jit/transform/passes.hpp"
#include "base/diagnostics.hpp"

namespace scn {

// Note [Sums of disjoint blocks]
// The transpose of a slice puts the cotangent into zeros (dynamic_update_slice(zeros, ct,
// starts)), so the cotangent of a value read in pieces is a sum of zero-padded blocks: a GRU
// reads its gate pre-activations as gh[:, :h], gh[:, h:2h] and gh[:, 2h:], and every backward
// step filled three zero arrays, copied a block into each and added them. When the blocks of a
// sum do not overlap, each element of the sum is one block's element (or zero): the sum is the
// blocks written into one zero array, and when they tile the array along one axis it is their
// concat, which the lowering writes one block at a time (Note [Concat blocks] in
// jit/kernel/lower.cpp). An add is rewritten when both operands are such blocks (a chain of
// dynamic_update_slices with constant starts over zeros) read by nothing else; the starts are
// clamped as dynamic_update_slice clamps them. A block's values are unchanged except that a
// -0.0 in a block stays -0.0 (x + 0.0 is +0.0); the gradient's sums are otherwise exact.

namespace {

/// A block of a padded array: `update` written at `start`.
struct Block {
  int update;
  std::vector<int64_t> start;
};

/// Whether constant eqn e holds a single element whose bytes are all zero (+0.0, 0, false).
bool isZeroScalar(const Eqn& e) {
  if (e.op != Op::Constant || !e.attrs.value || e.attrs.value->size() != 1) return false;
  const Array& a = *e.attrs.value;
  std::vector<char> zero(a.bytes(), 0);
  return std::memcmp(a.raw(), zero.data(), a.bytes()) == 0;
}

bool overlap(const Func& f, const Block& a, const Block& b) {
  const Shape& sa = f.type(a.update).shape;
  const Shape& sb = f.type(b.update).shape;
  for (size_t d = 0; d < sa.size(); ++d)
    if (a.start[d] + sa[d] <= b.start[d] || b.start[d] + sb[d] <= a.start[d]) return false;
  return true;
}

/// The axis along which `blocks` tile an array of `shape` (each spans every other axis whole,
/// and their ranges along the axis follow one another from 0 to its end), with the blocks in
/// that order; nullopt when they do not.
std::optional<std::pair<int64_t, std::vector<Block>>> tiling(const Func& f, std::vector<Block> blocks,
                                                              const Shape& shape) {
  for (size_t ax = 0; ax < shape.size(); ++ax) {
    bool whole = std::all_of(blocks.begin(), blocks.end(), [&](const Block& b) {
      const Shape& s = f.type(b.update).shape;
      for (size_t d = 0; d < shape.size(); ++d)
        if (d != ax && (b.start[d] != 0 || s[d] != shape[d])) return false;
      return true;
    });
    if (!whole) continue;
    std::sort(blocks.begin(), blocks.end(), [&](const Block& a, const Block& b) { return a.start[ax] < b.start[ax]; });
    int64_t end = 0;
    for (const Block& b : blocks) {
      if (b.start[ax] != end) break;
      end += f.type(b.update).shape[ax];
    }
    if (end == shape[ax]) return std::make_pair(static_cast<int64_t>(ax), std::move(blocks));
  }
  return std::nullopt;
}

class Joiner {
 public:
  explicit Joiner(Func& f) : f_(f), def_(f.types.size(), -1), uses_(f.types.size(), 0) {
    for (size_t i = 0; i < f.eqns.size(); ++i) {
      for (int o : f.eqns[i].outputs) def_[o] = static_cast<int>(i);
      for (int v : f.eqns[i].inputs) ++uses_[v];
    }
    for (int r : f.results) ++uses_[r];
  }

  bool run() {
    // Decide on the input as it is (blocksOf reads its eqns), then rebuild the eqn list.
    std::map<size_t, std::vector<Block>> joins;
    for (size_t i = 0; i < f_.eqns.size(); ++i) {
      const Eqn& e = f_.eqns[i];
      if (e.op != Op::Add || uses_[e.inputs[0]] != 1 || uses_[e.inputs[1]] != 1) continue;
      if (std::optional<std::vector<Block>> joined = join(e.inputs[0], e.inputs[1])) {
        blocks_[e.outputs[0]] = *joined;
        joins[i] = std::move(*joined);
      }
    }
    if (joins.empty()) return false;
    std::vector<Eqn> out;
    for (size_t i = 0; i < f_.eqns.size(); ++i) {
      auto it = joins.find(i);
      if (it == joins.end()) out.push_back(std::move(f_.eqns[i]));
      else emitJoined(out, f_.eqns[i], it->second);
    }
    f_.eqns = std::move(out);
    return true;
  }

 private:
  /// The blocks of v when it is zeros with blocks written into it (none for plain zeros).
  std::optional<std::vector<Block>> blocksOf(int v) {
    if (auto it = blocks_.find(v); it != blocks_.end()) return it->second;
    if (def_[v] < 0) return std::nullopt;
    const Eqn& e = f_.eqns[def_[v]];
    if (e.op == Op::BroadcastInDim && def_[e.inputs[0]] >= 0 && isZeroScalar(f_.eqns[def_[e.inputs[0]]]))
      return std::vector<Block>{};
    if (e.op != Op::DynamicUpdateSlice || uses_[e.inputs[0]] != 1) return std::nullopt;
    std::optional<std::vector<Block>> blocks = blocksOf(e.inputs[0]);
    if (!blocks) return std::nullopt;
    const Shape& shape = f_.type(v).shape;
    const Shape& s = f_.type(e.inputs[1]).shape;
    Block b{e.inputs[1], {}};
    for (size_t d = 0; d < shape.size(); ++d) {
      int st = def_[e.inputs[2 + d]];
      if (st < 0 || f_.eqns[st].op != Op::Constant || !isInteger(f_.type(e.inputs[2 + d]).dtype)) return std::nullopt;
      b.start.push_back(std::clamp<int64_t>(f_.eqns[st].attrs.value->getInt(0), 0, shape[d] - s[d]));
    }
    for (const Block& o : *blocks)
      if (overlap(f_, o, b)) return std::nullopt;
    blocks->push_back(std::move(b));
    return blocks;
  }

  /// The blocks of x + y when both are padded blocks and none overlap.
  std::optional<std::vector<Block>> join(int x, int y) {
    std::optional<std::vector<Block>> bx = blocksOf(x), by = blocksOf(y);
    if (!bx || !by || bx->empty() || by->empty()) return std::nullopt;
    for (const Block& a : *bx)
      for (const Block& b : *by)
        if (overlap(f_, a, b)) return std::nullopt;
    bx->insert(bx->end(), by->begin(), by->end());
    return bx;
  }

  int emit(std::vector<Eqn>& out, const Eqn& at, Op op, std::vector<int> inputs, Attrs attrs, Type t, int result = -1) {
    Eqn e;
    e.op = op;
    e.inputs = std::move(inputs);
    e.outputs = {result >= 0 ? result : f_.newVar(std::move(t))};
    e.attrs = std::move(attrs);
    e.span = at.span;
    out.push_back(std::move(e));
    return out.back().outputs[0];
  }

  int scalarConstant(std::vector<Eqn>& out, const Eqn& at, Array value) {
    Attrs a;
    a.dtype = value.dtype;
    Type t{value.dtype, {}};
    a.value = std::make_shared<Array>(std::move(value));
    return emit(out, at, Op::Constant, {}, std::move(a), t);
  }

  /// The eqns that compute add `e` from its blocks: their concat, or the blocks written into zeros.
  void emitJoined(std::vector<Eqn>& out, const Eqn& e, const std::vector<Block>& blocks) {
    const Type t = f_.type(e.outputs[0]);  // a copy: newVar below grows f_.types
    if (auto tiled = tiling(f_, blocks, t.shape)) {
      Attrs a;
      a.axes = {tiled->first};
      std::vector<int> parts;
      for (const Block& b : tiled->second) parts.push_back(b.update);
      emit(out, e, Op::Concat, std::move(parts), std::move(a), t, e.outputs[0]);
      return;
    }
    Attrs zeros;
    zeros.shape = t.shape;
    int acc = emit(out, e, Op::BroadcastInDim, {scalarConstant(out, e, Array::scalar(t.dtype, 0))}, std::move(zeros), t);
    for (size_t k = 0; k < blocks.size(); ++k) {
      std::vector<int> args{acc, blocks[k].update};
      for (int64_t s : blocks[k].start) args.push_back(scalarConstant(out, e, Array::scalarInt(DType::I64, s)));
      acc = emit(out, e, Op::DynamicUpdateSlice, std::move(args), {}, t, k + 1 == blocks.size() ? e.outputs[0] : -1);
    }
  }

  Func& f_;
  std::vector<int> def_;  // eqn index of each var of the input (the rewritten adds keep theirs)
  std::vector<int> uses_;
  std::map<int, std::vector<Block>> blocks_;  // the blocks of each rewritten add's result
};

}  // namespace

bool joinDisjointBlocks(Func& f) {
  bool changed = false;
  for (Eqn& e : f.eqns)
    for (FuncPtr& s : e.subs) {
      if (s.use_count() > 1) {  // shared with another eqn: edit a copy
        FuncPtr copy = cloneFunc(*s);
        if (!joinDisjointBlocks(*copy)) continue;
        s = copy;
        changed = true;
      } else {
        changed = joinDisjointBlocks(*s) || changed;
      }
    }
  return Joiner(f).run() || changed;
}

}  // namespace scn
