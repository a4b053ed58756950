// IR -> kernel IR: which values are fused and which materialised, the static buffer plan, and
// scan / while / cond as sequential loops around the kernels of their bodies.
#include <algorithm>
#include <set>

#include "jit/backend.hpp"
#include "jit/kernel/lower_impl.hpp"
#include "jit/widen.hpp"
#include "base/diagnostics.hpp"

namespace scn::kir {

// Note [Fusion]
// Every var is either *materialised* (it has a buffer location) or *fused* (its value is
// recomputed, as a scalar expression, inside each kernel that reads it). Elementwise ops,
// converts, iota, scalar constants and the index-only ops (broadcast_in_dim, reshape,
// transpose, slice, reverse, concat, dynamic_slice) are fusible; reductions, argmax,
// cumulative ops, dynamic_update_slice, dot_general and control flow always materialise their
// outputs, but read fusible inputs as expressions (a reduction fuses with its producers).
// A fusible var is materialised when
//   - it is a result of the Func, or an input that must be a buffer (dot_general, scan, while,
//     cond operands),
//   - it is read by more than one materialised consumer, or by more than one equation, and is
//     not pure index arithmetic over buffers (recomputing a transpose is free; recomputing exp
//     is not, and a chain of values each read twice would be regenerated exponentially), or
//   - a broadcast_in_dim expands it and it is not pure index arithmetic (else every element
//     would be recomputed many times).
// The decision is made in one backward pass, so each var knows all its consumers.

// Note [Fused expression size]
// A fused var is regenerated as a scalar expression inside each kernel that reads it, and every
// walk over such an expression recurses once per level: gen, flatOK and leaves here, printing,
// the LLVM emitter, the CUDA printer, and NVRTC's and the host compiler's parsers. An unrolled
// `for` that the E0105 budget allows (`y = y + 1.0` 100001 times) was one expression 100001
// levels deep and overflowed the stack, and `y = y * y` (an eqn reading its operand twice
// generates it twice) one of 2^n nodes. So a forward pass counts the nodes each var's defining
// expression will have as generated (a load or a leaf is one node; an op is one plus its operands,
// once per occurrence; a concat of k operands adds 2k selects and compares) and, where that would
// pass kMaxFusedNodes, materialises its largest fused operands until it fits. The size bounds the
// depth, so every walk recurses at most kMaxFusedNodes deep. (Only a concat of many small
// operands stays larger, e.g. stack of a 65536-tuple; its selects form a balanced tree, so it is
// at most log2(k) + kMaxFusedNodes / 8 deep, see gen.)
// Materialising into a buffer rather than splitting the expression into kernel locals: a local
// would keep one kernel, but the var is generated at a different index in each kernel that reads
// it, and a 200000-op kernel would be one huge LLVM function (or CUDA source line) to compile.
// Cut into buffers, the segments of an unrolled loop are identical kernels, compiled once and
// launched ~400 times (ProgramBuilder::launch), and the cost is one store and one load per
// ~500 ops. Real fused kernels (a softmax, a layer norm, a few unrolled steps) are far smaller.

// Note [Carry buffers]
// A loop carry lives in a slot A (read by the body) and the body writes its new value to slot
// B; after each iteration A and B are swapped, which exchanges two pointers, not data. A body
// whose new carry is the old one unchanged, or was updated in place (dynamic_update_slice on a
// dead carry), leaves the result in A and needs no swap. Only a carry whose new value lives
// elsewhere (e.g. it is another carry or a loop-invariant) is copied, and the copy is counted
// in RunStats::copiedBytes. The initial carry is the init's own buffer when that is a dead
// temporary; otherwise a scan reads it in place in a peeled first iteration (Note [Peeled first
// iteration] in lower_control.cpp; CPU only) and a while copies it once before the loop.

int ProgramBuilder::addBuffer(BufferInfo b) {
  prog.buffers.push_back(b);
  return static_cast<int>(prog.buffers.size()) - 1;
}

int ProgramBuilder::newTemp(DType t, int64_t elems) {
  auto it = freeTemps.find({t, elems});
  if (it != freeTemps.end() && !it->second.empty()) {
    int b = it->second.back();
    it->second.pop_back();
    return b;
  }
  BufferInfo b;
  b.dtype = t;
  b.elems = elems;
  b.kind = BufferKind::Temp;
  return addBuffer(b);
}

void ProgramBuilder::freeTemp(int buffer) {
  const BufferInfo& b = prog.buffers.at(buffer);
  SCN_ASSERT(b.kind == BufferKind::Temp, "freeing a non-temporary buffer");
  freeTemps[{b.dtype, b.elems}].push_back(buffer);
}

void ProgramBuilder::launch(Kernel k) {
  std::string text = printKernel(k);
  auto [it, fresh] = kernelIds.emplace(std::move(text), static_cast<int>(prog.kernels.size()));
  int id = it->second;
  if (fresh) {
    k.name = "k" + std::to_string(id);
    prog.kernels.push_back(std::move(k));
  }
  Step s;
  s.kind = StepKind::Launch;
  s.kernel = id;
  emit(std::move(s));
}

ExprP linearIndex(const std::vector<ExprP>& ix, const Shape& shape) {
  if (shape.empty()) return idx(0);
  ExprP acc = ix[0];
  for (size_t d = 1; d < shape.size(); ++d)
    acc = arith(Arith::Add, arith(Arith::Mul, acc, idx(shape[d])), ix[d]);
  return acc;
}

ExprP offsetPlus(const Loc& l, const ExprP& i) {
  return l.offset ? arith(Arith::Add, l.offset, i) : i;
}

bool sameLoc(const Loc& a, const Loc& b) {
  if (a.buffer != b.buffer) return false;
  ExprP x = a.offset ? a.offset : idx(0), y = b.offset ? b.offset : idx(0);
  return sameExpr(x, y);
}

FuncLowering::FuncLowering(ProgramBuilder& pb, const Func& f, std::vector<Loc> params,
                           std::vector<bool> canSteal, std::vector<std::optional<Loc>> dests)
    : pb_(pb), f_(f), paramLocs_(std::move(params)), paramSteal_(std::move(canSteal)),
      dests_(std::move(dests)) {}

bool FuncLowering::isFusibleEqn(const Eqn& e) const {
  const OpInfo& info = opInfo(e.op);
  if (info.category == OpCategory::Constant) return e.attrs.value && e.attrs.value->size() == 1;
  return info.flags.fusible;
}

// An update's values and indices that read its operand are materialised before it, so the
// update can still overwrite the operand in place (Note [Scatter kernels]): `t.at[i].set(t[j] + 1)`
// in a scan body computes the small right-hand side first instead of copying the table.
bool FuncLowering::needsBuffer(const Eqn& e, size_t k) const {
  OpCategory c = opInfo(e.op).category;
  if ((c == OpCategory::Scatter || c == OpCategory::DynamicUpdateSlice) && k >= 1)
    return e.inputs[k] != e.inputs[0] && readsVar(e.inputs[k], e.inputs[0]);
  return opInfo(e.op).flags.needsBuffer;
}

bool FuncLowering::readsVar(int v, int target) const {
  std::vector<int> stack{v};
  std::set<int> seen;
  while (!stack.empty()) {
    int u = stack.back();
    stack.pop_back();
    if (u == target) return true;
    if (def_[u] < 0 || !seen.insert(u).second) continue;
    for (int in : f_.eqns[def_[u]].inputs) stack.push_back(in);
  }
  return false;
}

void FuncLowering::analyse() {
  size_t nv = f_.types.size();
  def_.assign(nv, -1);
  mat_.assign(nv, false);
  live_.assign(nv, false);
  pureIndex_.assign(nv, true);
  lastUse_.assign(nv, -1);
  loc_.assign(nv, Loc{});
  canFree_.assign(nv, false);
  canSteal_.assign(nv, false);
  target_.assign(nv, std::nullopt);
  leaves_.assign(nv, {});
  leavesDone_.assign(nv, false);
  placed_.assign(nv, std::nullopt);
  hasPlaced_.assign(nv, false);
  for (size_t i = 0; i < f_.eqns.size(); ++i)
    for (int o : f_.eqns[i].outputs) def_[o] = static_cast<int>(i);

  // Forward: pure index arithmetic over buffers.
  for (const Eqn& e : f_.eqns) {
    bool pure = true;
    if (isFusibleEqn(e)) {
      pure = opInfo(e.op).flags.indexOnly;
      for (int in : e.inputs) pure = pure && pureIndex_[in];
    }
    for (int o : e.outputs) pureIndex_[o] = pure;
  }

  // Direct consumers of each var (distinct equations): a value with several readers inside one
  // fused tree would be regenerated once per reader, and chains of such values (a hash's
  // rounds: x0 += x1; x1 ^= x0) grow exponentially. See the third rule of Note [Fusion].
  std::vector<int> directUses(nv, 0);
  for (const Eqn& e : f_.eqns) {
    std::set<int> distinct(e.inputs.begin(), e.inputs.end());
    for (int u : distinct) ++directUses[u];
  }
  // Backward: consumers of each var, and the materialisation decision.
  std::vector<std::set<int>> reach(nv);  // materialised consumers (eqn indices; -1: result)
  std::vector<bool> needBuf(nv, false);
  for (int r : f_.results) {
    reach[r].insert(-1);
    needBuf[r] = true;
    live_[r] = true;
  }
  for (size_t i = f_.eqns.size(); i-- > 0;) {
    const Eqn& e = f_.eqns[i];
    bool anyLive = false;
    for (int o : e.outputs) anyLive = anyLive || live_[o];
    if (!anyLive) continue;  // dead code
    bool point = true;
    if (isFusibleEqn(e)) {
      int v = e.outputs[0];
      bool m = needBuf[v] || (!pureIndex_[v] && (reach[v].size() > 1 || directUses[v] > 1));
      mat_[v] = m;
      point = m;
    } else {
      for (int o : e.outputs) mat_[o] = true;
    }
    for (size_t k = 0; k < e.inputs.size(); ++k) {
      int u = e.inputs[k];
      live_[u] = true;
      if (point) {
        reach[u].insert(static_cast<int>(i));
        if (needsBuffer(e, k)) needBuf[u] = true;
      } else {
        reach[u].insert(reach[e.outputs[0]].begin(), reach[e.outputs[0]].end());
      }
      if (e.op == Op::BroadcastInDim && !pureIndex_[u] &&
          numElements(f_.type(e.outputs[0]).shape) > numElements(f_.type(u).shape))
        needBuf[u] = true;
    }
  }
  boundFusedSize();
  for (size_t i = 0; i < f_.params.size(); ++i) {
    int p = f_.params[i];
    mat_[p] = true;
    loc_[p] = paramLocs_.at(i);
    canSteal_[p] = paramSteal_.at(i);
  }
  // Last uses of materialised vars, by the materialised points that read them.
  for (size_t i = 0; i < f_.eqns.size(); ++i) {
    const Eqn& e = f_.eqns[i];
    bool point = !isFusibleEqn(e) || mat_[e.outputs[0]];
    bool anyLive = false;
    for (int o : e.outputs) anyLive = anyLive || live_[o];
    if (!point || !anyLive) continue;
    for (int u : e.inputs)
      for (int m : leaves(u)) lastUse_[m] = static_cast<int>(i);
  }
  for (int r : f_.results) lastUse_[r] = INT_MAX;
  // Destinations for results (a var that is two results gets the first destination).
  std::set<int> seen;
  for (size_t j = 0; j < f_.results.size(); ++j) {
    int r = f_.results[j];
    if (j < dests_.size() && dests_[j] && def_[r] >= 0 && seen.insert(r).second)
      target_[r] = dests_[j];
  }
  findProducerTargets();
  findPlacements();
}

void FuncLowering::boundFusedSize() {
  // Operands smaller than this are not worth a buffer: only a wide concat is left over the bound.
  constexpr int64_t kSmallOperand = kMaxFusedNodes / 8;
  std::vector<int64_t> nodes(f_.types.size(), 1);  // materialised vars and params: one load
  for (const Eqn& e : f_.eqns) {
    if (!isFusibleEqn(e) || !live_[e.outputs[0]]) continue;
    int64_t n = e.op == Op::Concat ? 2 * static_cast<int64_t>(e.inputs.size()) : 1;
    for (int u : e.inputs) n += nodes[u];
    std::vector<int> largestFirst(e.inputs);
    std::sort(largestFirst.begin(), largestFirst.end(),
              [&](int a, int b) { return nodes[a] != nodes[b] ? nodes[a] > nodes[b] : a < b; });
    largestFirst.erase(std::unique(largestFirst.begin(), largestFirst.end()), largestFirst.end());
    for (int u : largestFirst) {
      if (n <= kMaxFusedNodes || nodes[u] < kSmallOperand) break;
      n -= std::count(e.inputs.begin(), e.inputs.end(), u) * (nodes[u] - 1);
      mat_[u] = true;  // a fused operand: one defined by a fusible eqn (all others count 1)
      nodes[u] = 1;
    }
    int v = e.outputs[0];
    nodes[v] = mat_[v] ? 1 : n;
  }
}

const std::vector<int>& FuncLowering::leaves(int v) {
  if (leavesDone_[v]) return leaves_[v];
  std::vector<int> out;
  if (mat_[v]) {
    out.push_back(v);
  } else {
    for (int u : f_.eqns[def_[v]].inputs) {
      const std::vector<int>& l = leaves(u);
      out.insert(out.end(), l.begin(), l.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  leavesDone_[v] = true;
  leaves_[v] = std::move(out);
  return leaves_[v];
}

Loc FuncLowering::outputLoc(int v) {
  if (std::optional<Loc> d = destOf(v)) {
    loc_[v] = *d;
    return loc_[v];
  }
  const Type& t = f_.type(v);
  loc_[v] = Loc{pb_.newTemp(t.dtype, numElements(t.shape)), idx(0)};
  canFree_[v] = canSteal_[v] = true;
  return loc_[v];
}

void FuncLowering::takeOverBuffer(int v, int dead) {
  pb_.stolen.push_back(loc_[dead].buffer);
  loc_[v] = loc_[dead];
  canFree_[v] = canFree_[dead];
  canSteal_[v] = canSteal_[dead];
  canFree_[dead] = canSteal_[dead] = false;
}

Step FuncLowering::copyStep(const Loc& dst, const Loc& src, const Type& t, bool carry) {
  Step s;
  s.kind = StepKind::Copy;
  s.dst = dst;
  s.src = src;
  s.elems = numElements(t.shape);
  s.carry = carry;
  return s;
}

std::vector<Loc> FuncLowering::run() {
  analyse();
  doneByGemm_.assign(f_.eqns.size(), false);
  for (size_t i = 0; i < f_.eqns.size(); ++i) {
    const Eqn& e = f_.eqns[i];
    if (doneByGemm_[i]) continue;
    bool anyLive = false;
    for (int o : e.outputs) anyLive = anyLive || live_[o];
    if (!anyLive) continue;
    switch (opInfo(e.op).category) {
      case OpCategory::Unary: case OpCategory::Predicate: case OpCategory::Binary: case OpCategory::ComplexPart:
      case OpCategory::Compare: case OpCategory::Select: case OpCategory::Convert:
      case OpCategory::Iota: case OpCategory::BroadcastInDim: case OpCategory::Reshape:
      case OpCategory::Transpose: case OpCategory::Concat: case OpCategory::Slice:
      case OpCategory::Reverse: case OpCategory::DynamicSlice: case OpCategory::Gather: {
        int v = e.outputs[0];
        if (!mat_[v]) break;
        if (hasPlaced_[v] || (e.op == Op::Concat && concatByBlocks(e))) {
          lowerConcatBlocks(e);
          break;
        }
        int m = destOf(v) ? -1 : reusableLeaf(i, v);
        if (m >= 0) {  // Note [In-place elementwise]: v overwrites its dead operand m
          loc_[v] = loc_[m];
          canFree_[v] = canSteal_[v] = true;
          canFree_[m] = canSteal_[m] = false;
          kernelFusible(v, loc_[v]);
        } else {
          kernelFusible(v, outputLoc(v));
        }
        break;
      }
      case OpCategory::Constant:
        if (!isFusibleEqn(e)) {
          int c = static_cast<int>(pb_.prog.consts.size());
          pb_.prog.consts.push_back(*e.attrs.value);
          BufferInfo b;
          b.dtype = e.attrs.value->dtype;
          b.elems = e.attrs.value->size();
          b.kind = BufferKind::Const;
          b.index = c;
          loc_[e.outputs[0]] = Loc{pb_.addBuffer(b), idx(0)};
        } else if (mat_[e.outputs[0]]) {
          kernelFusible(e.outputs[0], outputLoc(e.outputs[0]));
        }
        break;
      case OpCategory::Reduce: kernelReduce(e, outputLoc(e.outputs[0])); break;
      case OpCategory::ArgReduce: kernelArgReduce(e, outputLoc(e.outputs[0])); break;
      case OpCategory::Cumulative: case OpCategory::AssocScan: {
        std::vector<Loc> outs;
        for (int o : e.outputs) outs.push_back(outputLoc(o));
        kernelCumulative(e, outs);
        for (int o : e.outputs)  // an output nobody reads (one of associative_scan's k) is written once
          if (!live_[o] && canFree_[o]) {
            pb_.freeTemp(loc_[o].buffer);
            canFree_[o] = canSteal_[o] = false;
          }
        break;
      }
      case OpCategory::DotGeneral: lowerDotEqn(i, e); break;
      case OpCategory::DynamicUpdateSlice: lowerDynamicUpdateSlice(i, e); break;
      case OpCategory::Scatter: lowerScatter(i, e); break;
      case OpCategory::Scan: lowerScan(i, e); break;
      case OpCategory::While: lowerWhile(i, e); break;
      case OpCategory::Cond: lowerCond(i, e); break;
      case OpCategory::Sort: lowerSort(e); break;
      case OpCategory::Linalg: lowerLinalg(e); break;
      case OpCategory::ProcessCollective: lowerProcessCollective(e); break;
      case OpCategory::Collective:
        // Named collectives are consumed by their axis's batching rule.
        internalError(std::string("lowering reached the collective ") + opName(e.op));
    }
    // Free the temporaries whose last reader this was.
    bool point = !isFusibleEqn(e) || mat_[e.outputs[0]];
    if (!point) continue;
    std::set<int> freed;
    for (int u : e.inputs)
      for (int m : leaves(u))
        if (lastUse_[m] == static_cast<int>(i) && canFree_[m] && freed.insert(m).second) {
          pb_.freeTemp(loc_[m].buffer);
          canFree_[m] = canSteal_[m] = false;
        }
  }
  std::vector<Loc> out;
  for (int r : f_.results) {
    SCN_ASSERT(loc_[r].buffer >= 0, "result without a location");
    out.push_back(loc_[r]);
  }
  return out;
}

Program lower(const Func& given, const LowerOptions& opts) {
  // No backend computes on bf16 / f16: a function that did not come through the pipeline (whose
  // widen-low-precision pass rewrites them) is rewritten here (jit/widen.hpp).
  WidenOptions wopts{opts.keepBf16Products};
  FuncPtr widened = needsWidening(given, wopts) ? widenedCopy(given, wopts) : nullptr;
  const Func& f = widened ? *widened : given;
  ProgramBuilder pb;
  pb.opts = opts;
  pb.prog.name = f.name;
  std::vector<Loc> params;
  for (size_t i = 0; i < f.params.size(); ++i) {
    const Type& t = f.type(f.params[i]);
    BufferInfo b;
    b.dtype = t.dtype;
    b.elems = numElements(t.shape);
    b.kind = BufferKind::Param;
    b.index = static_cast<int>(i);
    params.push_back(Loc{pb.addBuffer(b), idx(0)});
  }
  FuncLowering fl(pb, f, params, std::vector<bool>(params.size(), false), {});
  for (const Loc& r : fl.run()) {
    SCN_ASSERT(isConstIdx(r.offset ? r.offset : idx(0), 0), "top-level result at an offset");
    pb.prog.results.push_back(r.buffer);
  }
  if (opts.fuseRows) fuseRows(pb.prog);
  if (opts.gemmEpilogues) fuseGemmEpilogues(pb.prog);
  return std::move(pb.prog);
}

// Note [The lower stage]
// IR -> kernel IR is the last stage of the pipeline (jit/transform/passes.cpp lists it as
// `lower`, after the IR passes). It is not an IR-to-IR pass: its options depend on the backend
// (LowerOptions), so the backend runs it when it compiles, through lowerStage, and so do the emit
// paths (--emit=kernels|llvm|asm|cuda|ptx); `--print-after=lower` prints the kernel IR of the
// backend in use (Backend::kernelIR). As the IR is verified after every pass, the kernel IR is
// verified after lowering, always: the check is linear in the program and far cheaper than the
// lowering's own printing of every kernel (ProgramBuilder::launch), and it makes every program
// the tests run (lang_programs_test on cpu and cuda-emu) a test of the invariants.
Program lowerStage(const Func& optimised, const LowerOptions& opts) {
  Program p = lower(optimised, opts);
  std::string err = verifyProgram(p);
  if (!err.empty()) internalError("kernel IR fails verification after `lower`: " + err);
  return p;
}

}  // namespace scn::kir
