// Internal to the lowering: the program-wide builder and the per-Func lowering state, shared by
// lower.cpp (fusion decisions, buffer plan), lower_control.cpp, lower_place.cpp and the kernels
// per op (lower_fused.cpp, lower_reduce.cpp, lower_scan.cpp, lower_dot.cpp).
#pragma once

#include <climits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "jit/kernel/kernel_ir.hpp"

namespace scn::kir {

/// Program-wide state: the buffer table with its free list, kernels, and where steps go.
struct ProgramBuilder {
  Program prog;
  LowerOptions opts;
  std::vector<Step>* cur = &prog.steps;
  std::map<std::pair<DType, int64_t>, std::vector<int>> freeTemps;
  std::map<std::string, int> kernelIds;  // printKernel text -> kernel (identical kernels shared)
  /// Runs of the code being lowered per run of the program: the product of the trip counts of
  /// the enclosing scans (a while body counts once); in-place updates count this many.
  int64_t trips = 1;
  std::vector<int> stolen;  // slots overwritten in place (stolen carries, in-place updates), in order

  /// A temporary slot of this dtype and size, reusing a dead one when there is one.
  int newTemp(DType t, int64_t elems);
  void freeTemp(int buffer);
  int addBuffer(BufferInfo b);
  /// Appends a launch of the kernel to the current step list; an identical kernel already in
  /// the program is launched instead of a copy (unrolled loops compile one kernel per step).
  void launch(Kernel k);
  void emit(Step s) { cur->push_back(std::move(s)); }
};

/// Lowers one Func (the top level or a control-flow body) into the current step list.
class FuncLowering {
 public:
  /// params: where each parameter lives; canSteal: whether its slot may be overwritten once the
  /// parameter is dead (loop carries); dests: where each result should preferably be written.
  FuncLowering(ProgramBuilder& pb, const Func& f, std::vector<Loc> params,
               std::vector<bool> canSteal, std::vector<std::optional<Loc>> dests);
  /// Emits the steps; returns the location of each result.
  std::vector<Loc> run();

  // ---- lower_fused.cpp: fused expressions and the kernels of fusible vars ----
  /// The value of var v at multi-index ix (one i64 expression per dimension).
  ExprP gen(int v, const std::vector<ExprP>& ix);
  /// The value of var v at row-major flat index L.
  ExprP genFlat(int v, const ExprP& L);
  /// Whether genFlat(v) needs no index decomposition (elementwise chains over buffers).
  bool flatOK(int v);
  /// Whether v has the same value at every index (Note [Uniform values] in lower_fused.cpp).
  bool uniform(int v);
  /// A kernel computing fusible var v (its defining expression) into out.
  void kernelFusible(int v, const Loc& out);
  /// A kernel copying var v (materialised or fused) into out.
  void copyInto(int v, const Loc& out);
  /// A kernel copying var v into the block of out (an array of outShape) that starts at `begin`
  /// along axis ax and spans every other axis whole.
  void copyIntoBlock(int v, const Loc& out, const Shape& outShape, int64_t ax, int64_t begin);
  // ---- lower_reduce.cpp, lower_scan.cpp, lower_dot.cpp, lower_place.cpp: kernels per op ----
  void kernelReduce(const Eqn& e, const Loc& out);
  /// A reduction of many elements per output as a tree of blocked passes (Note [Blocked
  /// reductions] in lower_reduce.cpp).
  void kernelReduceBlocked(const Eqn& e, const Loc& out);
  void kernelArgReduce(const Eqn& e, const Loc& out);
  /// One Loc per output (associative_scan scans k operands together); lower_scan.cpp.
  void kernelCumulative(const Eqn& e, const std::vector<Loc>& outs);
  /// dot_general eqn ei, added into a dead buffer where Note [Accumulating products] allows.
  void lowerDotEqn(size_t ei, const Eqn& e);
  /// dot_general e into out; with accumulate, added to what out holds (a Gemm with beta 1).
  void lowerDot(const Eqn& e, const Loc& out, bool accumulate = false);
  /// Note [Accumulating products]: the dead buffer var that dot eqn ei's product may be added
  /// into, with *addEqn the `+` that then needs no kernel; else -1.
  int accumulatorOf(size_t ei, const Eqn& e, size_t* addEqn);
  // ---- lower_gather.cpp: gathers, scatters and dynamic_update_slice ----
  /// The fused read of gather eqn e at multi-index ix of its output.
  ExprP genGather(const Eqn& e, const std::vector<ExprP>& ix);
  void lowerScatter(size_t ei, const Eqn& e);
  void lowerDynamicUpdateSlice(size_t ei, const Eqn& e);
  // ---- lower_sort.cpp (Note [Sorting] in jit/interp_sort.cpp) ----
  void lowerSort(const Eqn& e);
  /// The permutation of each of the rows of e's keys, by a Sort step or a bitonic network
  /// (Note [Bitonic sort]); *stride is its row length.
  Loc sortStep(const Eqn& e, int64_t rows, DType permType, int64_t* stride);
  Loc bitonicSort(const Eqn& e, int64_t rows, DType permType, int64_t* stride);

  // ---- lower_linalg.cpp (Note [Linear algebra ops] in jit/linalg.hpp) ----
  void lowerLinalg(const Eqn& e);
  // ---- lower_collective.cpp (Note [Collective steps]) ----
  void lowerProcessCollective(const Eqn& e);

  // ---- lower_control.cpp: control flow ----
  void lowerScan(size_t ei, const Eqn& e);
  void lowerWhile(size_t ei, const Eqn& e);
  void lowerCond(size_t ei, const Eqn& e);

 private:
  friend struct Analysis;
  friend class CumulativeLowering;  // lower_scan.cpp: one cumulative eqn's strategies
  void analyse();
  /// Materialises fused vars so that no fused expression outgrows kMaxFusedNodes.
  void boundFusedSize();
  bool isFusibleEqn(const Eqn& e) const;
  bool needsBuffer(const Eqn& e, size_t input) const;
  /// Whether var v is computed from var `target` (through any equations).
  bool readsVar(int v, int target) const;
  const std::vector<int>& leaves(int v);
  Loc outputLoc(int v);
  /// A carry slot for var `init`: its own slot when it is dead (stolen; *owned says whether the
  /// loop output may be freed, Note [Loops on an enclosing carry]), else a fresh slot that the
  /// caller must fill (*copy set to true).
  int carrySlot(size_t ei, const Eqn& e, int init, bool* copy, bool* owned);
  /// Where a result should go when its producer is lowered (target, placement in a concat).
  std::optional<Loc> destOf(int v);
  /// A dead temporary that elementwise var v may overwrite in place, or -1.
  int reusableLeaf(size_t ei, int v);
  /// Whether materialised concat e is written one operand at a time (Note [Concat blocks]).
  bool concatByBlocks(const Eqn& e) const;
  /// Concat e written one operand block at a time, skipping the operands placed in its output.
  void lowerConcatBlocks(const Eqn& e);
  /// Whether update eqn e (dynamic_update_slice, scatter) may overwrite its operand's buffer:
  /// the operand is materialised, stealable, and read by nothing after e nor by e's other inputs.
  bool updatesInPlace(size_t ei, const Eqn& e);
  /// Where update eqn e writes: its operand's buffer when updatesInPlace (counted in
  /// Program::inPlaceUpdates), else a fresh output holding a copy of the operand.
  Loc updateTarget(size_t ei, const Eqn& e);
  /// v takes over the buffer of dead var `dead`, which is overwritten in place (recorded in
  /// ProgramBuilder::stolen; v may be freed or stolen where `dead` could have been).
  void takeOverBuffer(int v, int dead);
  void findPlacements();
  void findProducerTargets();
  /// flatOK and leaves of the expression defining materialised var v (not of its buffer).
  bool definitionFlat(int v);
  std::vector<int> definitionLeaves(int v);
  Step copyStep(const Loc& dst, const Loc& src, const Type& t, bool carry);

  ProgramBuilder& pb_;
  const Func& f_;
  std::vector<int> def_;        // eqn defining each var; -1 for params
  std::vector<bool> mat_;       // materialised in a buffer
  std::vector<bool> live_;      // needed by some result
  std::vector<bool> pureIndex_; // a param, buffer, or index-only ops over those
  std::vector<int> lastUse_;    // last eqn reading a materialised var (INT_MAX: a result)
  std::vector<Loc> loc_;
  std::vector<bool> canFree_, canSteal_;
  std::vector<std::optional<Loc>> target_;
  std::vector<std::vector<int>> leaves_;
  std::vector<bool> leavesDone_;
  /// Note [Concat placement]: var -> (concat var, element offset in its output).
  std::vector<std::optional<std::pair<int, int64_t>>> placed_;
  std::vector<bool> hasPlaced_;  // a concat var with placed operands
  std::vector<Loc> paramLocs_;
  std::vector<bool> paramSteal_;
  std::vector<std::optional<Loc>> dests_;
  std::vector<bool> doneByGemm_;  // per eqn: an add an accumulating GEMM already did
};

// ---- lower_build.cpp: builders shared by the per-op lowerings ----
using Exprs = std::vector<ExprP>;
/// The scalar constant a (one element) as an expression of dtype t.
ExprP constOf(const Array& a, DType t);
/// The identity of combiner `comb` (Add, Mul, Max, Min, And, Or) in dtype t.
ExprP identityExpr(Op comb, DType t);
/// Row-major multi-index of flat index L in shape.
std::vector<ExprP> delinearise(const ExprP& L, const Shape& shape);
/// Parallel indices for a kernel over `shape`, appended to k.dims: size-1 dims are the constant
/// 0 and get no loop.
std::vector<ExprP> parallelIndex(const Shape& shape, Kernel& k);
/// A fresh kernel local of dtype t.
int newLocal(Kernel& k, DType t);
Stmt let(int l, ExprP v, bool assoc = false);
/// out[offset + i] = v.
Stmt store(const Loc& out, const ExprP& i, ExprP v);
Stmt loop(int l, int64_t extent, std::vector<Stmt> body);
Stmt ifThen(ExprP cond, std::vector<Stmt> body);
Stmt atomicAdd(const Loc& out, const ExprP& i, ExprP v);
/// The product of the extents of `dims` in s.
int64_t product(const Shape& s, const std::vector<int64_t>& dims);

/// Row-major flat index of ix in shape.
ExprP linearIndex(const std::vector<ExprP>& ix, const Shape& shape);
/// Loc offset + i.
ExprP offsetPlus(const Loc& l, const ExprP& i);
bool sameLoc(const Loc& a, const Loc& b);

}  // namespace scn::kir
