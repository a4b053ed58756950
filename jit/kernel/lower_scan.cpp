// Cumulative ops and associative_scan: three strategies, chosen per axis by kernelCumulative --
// one single-pass scan kernel (backends that print TileScan kernels), a serial loop per row,
// or the blocked two-pass scan.
#include <algorithm>

#include "jit/kernel/lower_impl.hpp"
#include "jit/scalar.hpp"
#include "base/diagnostics.hpp"

namespace scn::kir {

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

/// One cumulative eqn being lowered: its operands' dtypes, the axis, the combiner, and the
/// statement builders the three strategies share. The k values of a scan position live in k
/// locals of a kernel ("a slot"); associative_scan scans k operands together, the builtin ops
/// one.
class CumulativeLowering {
 public:
  CumulativeLowering(FuncLowering& fl, const Eqn& e, const std::vector<Loc>& outs)
      : fl_(fl), pb_(fl.pb_), e_(e), outs_(outs), shape_(fl.f_.type(e.outputs[0]).shape),
        ax_(e.attrs.axes.at(0)), n_(shape_[ax_]), builtin_(e.op != Op::AssocScan),
        comb_(builtin_ ? scalar::combinerOf(e.op) : Op::Add) {
    for (int o : e.outputs) ts_.push_back(fl.f_.type(o).dtype);
    outer_ = shape_;
    outer_.erase(outer_.begin() + ax_);
  }

  void run() {
    if (n_ == 0) return;
    int64_t minSinglePass = pb_.opts.singlePassScanMin;
    // Complex elements take the blocked scan: a tile's status holds at most 8 bytes of value,
    // written with volatile scalar stores (Note [Single-pass scans]).
    bool complex = std::any_of(ts_.begin(), ts_.end(), [](DType t) { return isComplex(t); });
    if (builtin_ && !complex && minSinglePass > 0 && n_ >= minSinglePass && numElements(outer_) < kScanMaxRows)
      return singlePass();
    int64_t blocks = scanBlocks(n_, numElements(outer_));
    if (blocks <= 1) return serial();
    blocked(blocks);
  }

 private:
  /// One TileScan kernel (Note [Single-pass scans]) after a kernel zeroing its status words.
  void singlePass();
  /// One kernel over the rows, each running a serial loop along the axis.
  void serial();
  /// Note [Blocked scans]: block totals, their prefixes, the seeded blocks, the tail.
  void blocked(int64_t blocks);
  void blockTotals(int64_t blocks, int64_t bs, const std::vector<Loc>& totals);
  void prefixTotals(int64_t blocks, const std::vector<Loc>& totals);
  void seededBlocks(int64_t blocks, int64_t bs, const std::vector<Loc>& totals);
  void tail(int64_t blocks, int64_t bs);

  size_t operands() const { return ts_.size(); }
  /// The index of the element at scan position p (0..n-1) of the row at outer index oix.
  std::vector<ExprP> at(const std::vector<ExprP>& oix, const ExprP& p) const {
    std::vector<ExprP> ix = oix;
    ix.insert(ix.begin() + ax_, e_.attrs.reverse ? arith(Arith::Sub, idx(n_ - 1), p) : p);
    return ix;
  }
  /// The blocked scans' grid: [blocks, outer...].
  Shape grid(int64_t blocks) const {
    Shape g = outer_;
    g.insert(g.begin(), blocks);
    return g;
  }
  std::vector<int> newSlot(Kernel& k) const {
    std::vector<int> slot;
    for (DType t : ts_) slot.push_back(newLocal(k, t));
    return slot;
  }
  Exprs read(const std::vector<int>& slot) const {
    Exprs v;
    for (size_t i = 0; i < operands(); ++i) v.push_back(local(slot[i], ts_[i]));
    return v;
  }
  void set(std::vector<Stmt>& body, const std::vector<int>& slot, const Exprs& v, bool assoc = false) const {
    for (size_t i = 0; i < operands(); ++i) body.push_back(let(slot[i], v[i], assoc));
  }
  Exprs elementAt(const std::vector<ExprP>& ix) {
    Exprs v;
    for (int u : e_.inputs) v.push_back(fl_.gen(u, ix));
    return v;
  }
  void storeAt(std::vector<Stmt>& body, const std::vector<ExprP>& ix, const std::vector<int>& slot) const {
    for (size_t i = 0; i < operands(); ++i)
      body.push_back(store(outs_[i], linearIndex(ix, shape_), local(slot[i], ts_[i])));
  }
  Exprs loadTotals(const std::vector<Loc>& totals, const ExprP& slot) const {
    Exprs v;
    for (size_t i = 0; i < operands(); ++i) v.push_back(load(totals[i].buffer, ts_[i], slot));
    return v;
  }
  void storeTotals(const std::vector<Loc>& totals, std::vector<Stmt>& body, const ExprP& slot,
                   const std::vector<int>& acc) const {
    for (size_t i = 0; i < operands(); ++i) body.push_back(store(totals[i], slot, local(acc[i], ts_[i])));
  }
  /// a (+) b: the builtin op, or associative_scan's combiner inlined. No scan below starts from
  /// an identity (a user's combiner has none): each starts from an element.
  Exprs combined(const Exprs& a, const Exprs& b) const {
    return builtin_ ? Exprs{opExpr(comb_, ts_[0], {a[0], b[0]})} : inlineCombiner(*e_.subs.at(0), a, b);
  }
  /// acc <- acc (+) x. With several operands the new values go through fresh locals first: each
  /// reads every old one.
  void combineInto(Kernel& k, std::vector<Stmt>& body, const std::vector<int>& acc, const Exprs& x,
                   bool assoc = false) const {
    Exprs r = combined(read(acc), x);
    if (operands() == 1) return set(body, acc, r, assoc);
    std::vector<int> fresh = newSlot(k);
    set(body, fresh, r);
    set(body, acc, read(fresh));
  }
  /// A loop over positions first+1 .. first+count that combines each element into acc and
  /// stores the prefix; elements go through locals x first (the combiner may read one twice).
  Stmt scanOn(Kernel& k, const std::vector<int>& acc, const std::vector<ExprP>& oix, const ExprP& first,
              int64_t count) {
    int l = newLocal(k, DType::I64);
    std::vector<int> x = newSlot(k);
    std::vector<ExprP> ix = at(oix, arith(Arith::Add, first, arith(Arith::Add, local(l, DType::I64), idx(1))));
    std::vector<Stmt> body;
    set(body, x, elementAt(ix));
    combineInto(k, body, acc, read(x));
    storeAt(body, ix, acc);
    return loop(l, count, std::move(body));
  }

  FuncLowering& fl_;
  ProgramBuilder& pb_;
  const Eqn& e_;
  const std::vector<Loc>& outs_;
  const Shape& shape_;
  std::vector<DType> ts_;  // the dtype of each operand
  Shape outer_;            // shape_ without the scanned axis
  int64_t ax_, n_;
  bool builtin_;           // a cumulative op of the table, not associative_scan
  Op comb_;
};

void CumulativeLowering::singlePass() {
  const Loc& out = outs_[0];
  DType t = ts_[0];
  Kernel k;
  std::vector<ExprP> oix = parallelIndex(outer_, k);
  k.dims.push_back(n_);  // the last dim is the scanned axis, even when it is 1
  TileScan tsc;
  tsc.comb = comb_;
  tsc.identity = identityExpr(comb_, t);
  tsc.items = tileScanItems(t);
  tsc.value = newLocal(k, t);
  tsc.prefix = newLocal(k, t);
  std::vector<ExprP> ix = at(oix, index(static_cast<int>(k.dims.size()) - 1));
  k.body.push_back(let(tsc.value, fl_.gen(e_.inputs[0], ix)));
  tsc.store.push_back(store(out, linearIndex(ix, shape_), local(tsc.prefix, t)));
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
}

void CumulativeLowering::serial() {
  Kernel k;
  std::vector<ExprP> oix = parallelIndex(outer_, k);
  std::vector<int> acc = newSlot(k);
  std::vector<ExprP> ix0 = at(oix, idx(0));
  set(k.body, acc, elementAt(ix0));
  storeAt(k.body, ix0, acc);
  k.body.push_back(scanOn(k, acc, oix, idx(0), n_ - 1));
  pb_.launch(std::move(k));
}

void CumulativeLowering::blocked(int64_t blocks) {
  int64_t bs = n_ / blocks, rows = numElements(outer_);
  std::vector<Loc> totals;
  for (DType t : ts_) totals.push_back(Loc{pb_.newTemp(t, blocks * rows), idx(0)});
  blockTotals(blocks, bs, totals);
  prefixTotals(blocks, totals);
  seededBlocks(blocks, bs, totals);
  for (const Loc& t : totals) pb_.freeTemp(t.buffer);
  tail(blocks, bs);
}

/// The scan position of element l of block b (blocks of bs elements).
static ExprP blockPos(const ExprP& b, int64_t bs, const ExprP& l) {
  return arith(Arith::Add, arith(Arith::Mul, b, idx(bs)), l);
}

void CumulativeLowering::blockTotals(int64_t blocks, int64_t bs, const std::vector<Loc>& totals) {
  Shape g = grid(blocks);
  Kernel k;
  std::vector<ExprP> gix = parallelIndex(g, k);
  std::vector<ExprP> oix(gix.begin() + 1, gix.end());
  std::vector<int> acc = newSlot(k), x = newSlot(k);
  int l = newLocal(k, DType::I64);
  set(k.body, acc, elementAt(at(oix, blockPos(gix[0], bs, idx(0)))));
  std::vector<Stmt> body;
  set(body, x, elementAt(at(oix, blockPos(gix[0], bs, arith(Arith::Add, local(l, DType::I64), idx(1))))));
  combineInto(k, body, acc, read(x), builtin_);  // a builtin op may be reassociated (vectorised)
  k.body.push_back(loop(l, bs - 1, std::move(body)));
  storeTotals(totals, k.body, linearIndex(gix, g), acc);
  pb_.launch(std::move(k));
}

void CumulativeLowering::prefixTotals(int64_t blocks, const std::vector<Loc>& totals) {
  // The totals become inclusive prefixes in place, one short serial loop per row.
  Shape g = grid(blocks);
  Kernel k;
  std::vector<ExprP> oix = parallelIndex(outer_, k);
  std::vector<int> acc = newSlot(k);
  int m = newLocal(k, DType::I64);
  auto slot = [&](const ExprP& b) {
    std::vector<ExprP> tix = oix;
    tix.insert(tix.begin(), b);
    return linearIndex(tix, g);
  };
  ExprP T = slot(arith(Arith::Add, local(m, DType::I64), idx(1)));
  set(k.body, acc, loadTotals(totals, slot(idx(0))));
  std::vector<Stmt> body;
  combineInto(k, body, acc, loadTotals(totals, T));
  storeTotals(totals, body, T, acc);
  k.body.push_back(loop(m, blocks - 1, std::move(body)));
  pb_.launch(std::move(k));
}

void CumulativeLowering::seededBlocks(int64_t blocks, int64_t bs, const std::vector<Loc>& totals) {
  // kScanChains blocks per parallel index, each seeded with the prefix before it.
  Shape g = grid(blocks);
  Kernel k;
  Shape groups = g;
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
    std::vector<ExprP> ix0 = at(oix, blockPos(b, bs, idx(0)));
    set(k.body, x, elementAt(ix0));
    Exprs first = read(x), seeded = combined(loadTotals(totals, linearIndex(tix, g)), first);
    ExprP isFirst = opExpr(Op::Eq, DType::Bool, {b, idx(0)});
    Exprs start;
    for (size_t i = 0; i < operands(); ++i)
      start.push_back(opExpr(Op::Select, ts_[i], {isFirst, first[i], seeded[i]}));
    set(k.body, acc, start);
    storeAt(k.body, ix0, acc);
    std::vector<ExprP> ix = at(oix, blockPos(b, bs, arith(Arith::Add, local(l, DType::I64), idx(1))));
    set(scan, x, elementAt(ix));
    combineInto(k, scan, acc, read(x));
    storeAt(scan, ix, acc);
  }
  k.body.push_back(loop(l, bs - 1, std::move(scan)));
  pb_.launch(std::move(k));
}

void CumulativeLowering::tail(int64_t blocks, int64_t bs) {
  int64_t tail = n_ - blocks * bs;
  if (tail <= 0) return;
  // The last elements, seeded with the one before them.
  Kernel k;
  std::vector<ExprP> oix = parallelIndex(outer_, k);
  std::vector<int> acc = newSlot(k);
  ExprP before = linearIndex(at(oix, idx(blocks * bs - 1)), shape_);
  Exprs prev;
  for (size_t i = 0; i < operands(); ++i)
    prev.push_back(load(outs_[i].buffer, ts_[i], offsetPlus(outs_[i], before)));
  set(k.body, acc, prev);
  k.body.push_back(scanOn(k, acc, oix, idx(blocks * bs - 1), tail));
  pb_.launch(std::move(k));
}

void FuncLowering::kernelCumulative(const Eqn& e, const std::vector<Loc>& outs) {
  CumulativeLowering(*this, e, outs).run();
}

}  // namespace scn::kir
