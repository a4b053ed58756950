// The step runner: the sequential program of a kir::Program issued from the host, with counted
// loops captured into graphs and replayed, and while loops run in speculative chunks.
#include "jit/cuda/steps.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "base/diagnostics.hpp"
#include "jit/collectives.hpp"

namespace scn::cuda {

// Note [Loops on the device]
// A counted loop (scan, fori) must not cost a host round trip, nor a host launch per kernel, per
// iteration; a while loop should not cost a round trip per iteration. The runner issues a loop's first iterations step by step and, when enough are left,
// *captures* a chunk of iterations into a graph (CUDA stream capture: the launches, GEMMs and
// copies are recorded, not run) and *replays* it until fewer than a chunk are left; the rest is
// issued step by step. Three things make one graph valid for every chunk:
// - Loop counters live in device memory, in a table of one i64 per counter: kernels read
//   `hv[h]` (Note [CUDA kernels]) and two one-thread runtime kernels set a counter or add one to
//   it. The captured chunk ends each iteration with a step-counter launch, so replaying it moves
//   the loop on; inner loops captured inside it are unrolled with their set-counter launches.
// - Swap steps (ping-pong carries, Note [Carry buffers]) change the slot pointers that launches
//   bake in. A chunk is a whole number of swap periods (the order of one iteration's slot
//   permutation; at most StepOptions::maxPeriod), so the slots are where they started after each
//   chunk, and the graph's pointers are right for the next one.
// - A loop is captured only when nothing in its body needs the host: no While or Switch (their
//   flags are read back), and no GEMM or copy whose offset depends on the loop's own counter (the
//   offset is a pointer computed on the host). Those loops stay host-driven: still no round trip,
//   one host launch per kernel per iteration.
// A chunk repeats the period up to StepOptions::unroll iterations and maxGraphNodes nodes, so one
// graph launch (a few microseconds) is shared by up to 32 iterations. A loop runs from
// Step::start (1 after a peeled first iteration, Note [Peeled first iteration]). Host-driven
// iterations pay one set-counter launch each when a kernel reads the counter (the price of
// counters in memory). Graphs live for one run (their pointers are this run's blocks); within
// it, a loop met again with the same slot pointers and step-offset counters (a loop inside a
// host-driven loop) replays its graph.
//
// A while loop's trip count is traced, so it runs in *speculative chunks*: a graph of k
// iterations (condition, a one-thread WhileFlag kernel, body) is replayed once and the device is
// read back once per chunk instead of once per iteration. Every kernel launched inside a while is
// printed *guarded* (it returns at once when the table's while-active entry is 0) and copies in
// the chunk become GuardedCopy kernels; WhileFlag clears the entry when the condition is false and
// otherwise counts the body that is about to run. After the replay the host reads (active, ran):
// the slot table is set to where `ran` iterations' swaps put it (the capture ran k, a whole number
// of periods, so it started from the same table), and while active the next chunk doubles k
// (2, 4, ... up to StepOptions::whileChunk = 32), so a short loop wastes few guarded launches and a
// long one pays one read per 32 iterations. A while whose body has a GEMM (cuBLAS cannot be
// guarded), a cond or another while still reads its flag once per iteration, as conds do. This
// works on any CUDA version; graph conditional nodes (CUDA >= 12.4) would remove the read, see
// docs/backend-cuda.md. The emulation records closures and replays them, so the same runner
// logic is what CI tests.

int64_t evalHostIndex(const kir::ExprP& e, const std::vector<int64_t>& hostVars) {
  switch (e->kind) {
    case kir::ExprKind::Const: return e->ival;
    case kir::ExprKind::HostVar: return hostVars.at(e->id);
    case kir::ExprKind::Arith: {
      int64_t a = evalHostIndex(e->args.at(0), hostVars), b = evalHostIndex(e->args.at(1), hostVars);
      return kir::evalArith(e->arith, a, b);
    }
    case kir::ExprKind::Index: case kir::ExprKind::Local: case kir::ExprKind::Load:
    case kir::ExprKind::Op: case kir::ExprKind::Convert:
      break;
  }
  internalError("a step offset is not host index arithmetic: " + kir::printExpr(e));
}

namespace {

/// The host counters an index expression reads, added to `vars`.
void countersIn(const kir::ExprP& e, std::vector<int>& vars) {
  if (!e) return;
  if (e->kind == kir::ExprKind::HostVar && std::find(vars.begin(), vars.end(), e->id) == vars.end())
    vars.push_back(e->id);
  for (const kir::ExprP& a : e->args) countersIn(a, vars);
}

/// How a counted loop is captured: whether it can be, its swap period and its graph nodes per
/// iteration (Note [Loops on the device]).
struct LoopPlan {
  bool ok = false;
  int64_t period = 1;
  int64_t nodes = 0;
  std::vector<int> offsetVars;  // counters in GEMM and copy offsets: baked into the graph
  std::vector<int> perm;        // while loops: the slot permutation of one iteration
};

class Runner {
 public:
  Runner(const kir::Program& p, const CudaSource& src, std::vector<void*>& slots, void* counters,
         StepTarget& t, RunStats* stats, const StepOptions& opts, StepCounts* counts)
      : p_(p), src_(src), slots_(slots), counters_(counters), t_(t), stats_(stats), opts_(opts),
        counts_(counts ? counts : &ownCounts_), hostVars_(src.counterSlots, 0),
        onDevice_(src.counterSlots, false) {
    for (const KernelSig& k : src.kernels)
      for (int h : k.hostVars) onDevice_.at(h) = true;
    SCN_ASSERT(src.counterSlots >= p.numHostVars, "the counter table is too small");
    SCN_ASSERT(src.counterSlots == 0 || (counters && src.runtimeKernels.size() == kRuntimeKernels),
               "a program with loop counters needs the counter table and kernels");
    if (src.whileActive >= 0) {
      // Guarded kernels run while the active entry is non-zero: always, outside speculation.
      onDevice_.at(src.whileActive) = onDevice_.at(src.whileActive + 1) = true;
      setCounter(src.whileActive, 1);
    }
  }

  void run(const std::vector<kir::Step>& steps) {
    for (const kir::Step& s : steps) step(s);
  }

 private:
  char* at(const kir::Loc& l) {
    char* base = static_cast<char*>(slots_.at(l.buffer));
    int64_t off = l.offset ? evalHostIndex(l.offset, hostVars_) : 0;
    return base + off * static_cast<int64_t>(dtypeSize(p_.buffers.at(l.buffer).dtype));
  }

  /// The value of a while flag (bool) or a switch index (integer or bool), read to the host.
  int64_t readScalar(const kir::Loc& l) {
    DType t = p_.buffers.at(l.buffer).dtype;
    unsigned char raw[8] = {0};
    t_.read(raw, at(l), dtypeSize(t));
    ++counts_->reads;
    return dispatchDType(t, [&]<typename T>() -> int64_t {
      T v;
      std::memcpy(&v, raw, sizeof v);
      if constexpr (std::is_same_v<T, uint64_t>) return v > INT64_MAX ? INT64_MAX : int64_t(v);
      else if constexpr (std::is_floating_point_v<T>) return static_cast<int64_t>(v);
      else return static_cast<int64_t>(v);
    });
  }

  void launch(int k) {
    const KernelSig& sig = src_.kernels.at(k);
    if (sig.points == 0) return;
    uint64_t values[64];
    std::vector<uint64_t> many;
    uint64_t* v = values;
    if (sig.arity > 64) {
      many.resize(sig.arity);
      v = many.data();
    }
    int n = 0;
    for (int b : sig.buffers) v[n++] = reinterpret_cast<uintptr_t>(slots_.at(b));
    if (!sig.hostVars.empty() || sig.guarded) v[n++] = reinterpret_cast<uintptr_t>(counters_);
    SCN_ASSERT(n == sig.arity, "kernel arguments do not match the signature");
    void* args[64];
    std::vector<void*> manyArgs;
    void** a = args;
    if (n > 64) {
      manyArgs.resize(n);
      a = manyArgs.data();
    }
    for (int i = 0; i < n; ++i) a[i] = &v[i];
    t_.launch(k, sig, a);
  }

  /// Launches a runtime kernel with 8-byte arguments (the first is always the counter table).
  void runtime(RuntimeKernel which, std::initializer_list<uint64_t> rest, int64_t points = 1) {
    std::vector<uint64_t> v = {reinterpret_cast<uintptr_t>(counters_)};
    v.insert(v.end(), rest.begin(), rest.end());
    std::vector<void*> a;
    for (uint64_t& x : v) a.push_back(&x);
    KernelSig sig = src_.runtimeKernels.at(static_cast<int>(which));
    sig.points = points;
    SCN_ASSERT(static_cast<int>(v.size()) == sig.arity, "runtime kernel arguments");
    t_.launch(static_cast<int>(src_.kernels.size()) + static_cast<int>(which), sig, a.data());
  }

  /// Sets counter h on the host (for step offsets) and, when a kernel reads it, on the device.
  void setCounter(int h, int64_t value) {
    hostVars_.at(h) = value;
    if (onDevice_[h]) runtime(RuntimeKernel::SetCounter, {static_cast<uint64_t>(h), static_cast<uint64_t>(value)});
  }

  /// Adds one to counter h on the device (inside a captured chunk).
  void stepCounter(int h) {
    ++hostVars_.at(h);
    if (onDevice_[h]) runtime(RuntimeKernel::StepCounter, {static_cast<uint64_t>(h)});
  }

  /// Walks a loop body: graph nodes per iteration, the slot permutation of one iteration
  /// (applied to perm), and whether anything needs the host. Nested loops are unrolled.
  bool scan(const std::vector<kir::Step>& body, int64_t* nodes, std::vector<int>& perm,
            std::vector<int>& offsetVars, bool allowGemm = true) {
    for (const kir::Step& s : body) {
      switch (s.kind) {
        case kir::StepKind::Launch:
          *nodes += src_.kernels.at(s.kernel).points > 0;
          break;
        case kir::StepKind::Gemm:
          if (!allowGemm) return false;  // cuBLAS cannot be guarded
          for (const kir::Loc* l : {&s.gemm.a, &s.gemm.b, &s.gemm.c}) countersIn(l->offset, offsetVars);
          ++*nodes;
          break;
        case kir::StepKind::Copy:
          countersIn(s.dst.offset, offsetVars);
          countersIn(s.src.offset, offsetVars);
          *nodes += s.elems > 0;
          break;
        case kir::StepKind::Swap: std::swap(perm.at(s.a), perm.at(s.b)); break;
        case kir::StepKind::Loop: {
          inner_.push_back(s.hostVar);
          int64_t trips = s.count - s.start;
          if (trips <= 0) break;
          if (trips > opts_.maxGraphNodes) return false;
          for (int64_t i = 0; i < trips; ++i) {
            *nodes += onDevice_.at(s.hostVar);  // its set-counter launch
            if (!scan(s.body, nodes, perm, offsetVars, allowGemm) || *nodes > opts_.maxGraphNodes) return false;
          }
          break;
        }
        case kir::StepKind::While: case kir::StepKind::Switch: case kir::StepKind::Sort:
        case kir::StepKind::Linalg: case kir::StepKind::Collective: return false;  // a host routine: not in a graph
      }
    }
    return true;
  }

  /// The plan of loop step s, made by `make` on first use and kept for the run. make gets the
  /// plan with what planFor and whilePlanFor share already walked: `lists` (one iteration's step
  /// lists, in order) through scan() from `nodes` nodes, with the counters in step offsets and
  /// in `flag` that are not set inside the graph (those of nested loops) in plan.offsetVars;
  /// then make(plan, ok, nodes, one) with `one` the slot permutation of one iteration.
  template <class Make>
  const LoopPlan& planOnce(const kir::Step& s, std::initializer_list<const std::vector<kir::Step>*> lists,
                           int64_t nodes, bool allowGemm, const kir::ExprP& flag, Make make) {
    auto it = plans_.find(&s);
    if (it != plans_.end()) return it->second;
    LoopPlan plan;
    std::vector<int> one(p_.buffers.size());
    for (size_t i = 0; i < one.size(); ++i) one[i] = static_cast<int>(i);
    // Offsets may read counters of inner loops (set inside the graph) and of outer loops (fixed
    // while it replays), never the loop's own.
    inner_.clear();
    bool ok = true;
    for (const std::vector<kir::Step>* l : lists) ok = ok && scan(*l, &nodes, one, plan.offsetVars, allowGemm);
    countersIn(flag, plan.offsetVars);
    for (int h : inner_)  // set inside the graph: not part of what it depends on
      plan.offsetVars.erase(std::remove(plan.offsetVars.begin(), plan.offsetVars.end(), h), plan.offsetVars.end());
    make(plan, ok, nodes, one);
    return plans_.emplace(&s, plan).first->second;
  }

  const LoopPlan& planFor(const kir::Step& s) {
    return planOnce(s, {&s.body}, 0, true, nullptr,
                    [&](LoopPlan& plan, bool ok, int64_t nodes, const std::vector<int>& one) {
                      if (ok && std::find(plan.offsetVars.begin(), plan.offsetVars.end(), s.hostVar) ==
                                    plan.offsetVars.end()) {
                        plan.nodes = nodes + onDevice_.at(s.hostVar);  // + the step-counter launch
                        plan.period = periodOf(one);
                        plan.ok = plan.period > 0 && plan.nodes > 0;
                      }
                    });
  }

  /// What a graph of `iterations` iterations of loop s bakes in: the step, the count, the slot
  /// pointers and the outer counters read by step offsets.
  std::vector<uint64_t> graphKey(const kir::Step& s, const LoopPlan& plan, int64_t iterations) const {
    std::vector<uint64_t> key = {reinterpret_cast<uintptr_t>(&s), static_cast<uint64_t>(iterations)};
    for (void* p : slots_) key.push_back(reinterpret_cast<uintptr_t>(p));
    for (int h : plan.offsetVars) key.push_back(static_cast<uint64_t>(hostVars_.at(h)));
    return key;
  }

  /// The graph captured earlier with this key, or -1.
  int findGraph(const std::vector<uint64_t>& key) const {
    for (size_t g = 0; g < graphs_.size(); ++g)
      if (graphs_[g].key == key) return static_cast<int>(g);
    return -1;
  }

  /// The graph of `chunk` iterations of loop s as things stand (slot pointers, counters), captured
  /// now or earlier in this run (a loop inside a host-driven loop meets the same state again);
  /// -1 when the target cannot capture.
  int captured(const kir::Step& s, const LoopPlan& plan, int64_t chunk) {
    std::vector<uint64_t> key = graphKey(s, plan, chunk);
    if (int g = findGraph(key); g >= 0) return g;
    if (!t_.beginCapture()) return -1;
    capturing_ = true;
    capturedBytes_ = 0;
    int64_t saved = hostVars_.at(s.hostVar);
    try {
      for (int64_t k = 0; k < chunk; ++k) {
        run(s.body);
        stepCounter(s.hostVar);
      }
    } catch (...) {
      capturing_ = false;
      t_.abortCapture();
      throw;
    }
    capturing_ = false;
    hostVars_.at(s.hostVar) = saved;
    int g = t_.endCapture();
    SCN_ASSERT(g == static_cast<int>(graphs_.size()), "graph ids are not issued in order");
    graphs_.push_back({std::move(key), capturedBytes_});
    ++counts_->graphs;
    return g;
  }

  void loop(const kir::Step& s) {
    int64_t i = s.start;
    if (!capturing_ && opts_.minReplayIterations > 0 && s.count - i >= opts_.minReplayIterations) {
      const LoopPlan& plan = planFor(s);
      int64_t left = s.count - i, chunk = 0;
      if (plan.ok)
        for (int64_t c = plan.period; c <= opts_.unroll && c <= left && c * plan.nodes <= opts_.maxGraphNodes;
             c += plan.period)
          chunk = c;
      if (chunk > 0) {
        setCounter(s.hostVar, i);
        int g = captured(s, plan, chunk);
        if (g >= 0) {
          int64_t times = left / chunk;
          for (int64_t t = 0; t < times; ++t) {  // an interrupt stops it within one chunk
            pollInterrupt();
            t_.replay(g, 1);
          }
          if (stats_) stats_->copiedBytes += graphs_[g].carryBytes * static_cast<size_t>(times);
          counts_->replays += times;
          counts_->replayedIterations += times * chunk;
          i += times * chunk;
        }
      }
    }
    for (; i < s.count; ++i) {
      if (!capturing_) pollInterrupt();
      setCounter(s.hostVar, i);
      run(s.body);
      if (!capturing_) ++counts_->hostIterations;
    }
  }

  /// Whether a while loop can run in speculative chunks: nothing in it needs the host or cannot
  /// be guarded (GEMMs, conds, inner whiles). nodes: per iteration, the flag kernel included.
  const LoopPlan& whilePlanFor(const kir::Step& s) {
    return planOnce(s, {&s.cond, &s.body}, 1, false, s.flag.offset,
                    [&](LoopPlan& plan, bool ok, int64_t nodes, const std::vector<int>& one) {
                      plan.nodes = nodes;
                      plan.perm = one;
                      if (ok) plan.period = periodOf(one);
                      plan.ok = ok && plan.period > 0 && plan.period * plan.nodes <= opts_.maxGraphNodes;
                    });
  }

  /// Note [Loops on the device]: chunks of k iterations, each guarded by the device's active
  /// flag, replayed and read back once; the slot table follows the iterations that ran.
  void speculate(const kir::Step& s, const LoopPlan& plan) {
    const int a = src_.whileActive;
    int64_t most = 0;
    for (int64_t c = plan.period; c <= opts_.whileChunk && c * plan.nodes <= opts_.maxGraphNodes; c += plan.period)
      most = c;
    if (most == 0) most = plan.period;  // whileChunk below the period: one period per chunk
    int64_t k = plan.period;
    while (k < 2 && k + plan.period <= most) k += plan.period;
    for (;;) {
      pollInterrupt();
      setCounter(a, 1);
      setCounter(a + 1, 0);
      int g = capturedWhile(s, plan, k);
      t_.replay(g, 1);
      ++counts_->replays;
      int64_t state[2] = {0, 0};
      t_.read(state, static_cast<char*>(counters_) + 8 * a, sizeof state);
      ++counts_->reads;
      int64_t ran = state[1];
      SCN_ASSERT(ran >= 0 && ran <= k, "a speculative chunk ran more bodies than it holds");
      counts_->whileIterations += ran;
      if (stats_) stats_->copiedBytes += graphs_[g].carryBytes / static_cast<size_t>(k) * static_cast<size_t>(ran);
      // The capture left the slots where they started (k is a whole number of periods); the
      // loop's state is where `ran` iterations' swaps put it.
      for (int64_t i = 0; i < ran; ++i) {
        std::vector<void*> next(slots_.size());
        for (size_t j = 0; j < slots_.size(); ++j) next[j] = slots_[plan.perm[j]];
        slots_.swap(next);
      }
      if (state[0] == 0) {
        setCounter(a, 1);  // guarded kernels outside the speculation run again
        return;
      }
      int64_t bigger = k * 2;
      k = std::min(most, bigger - bigger % plan.period);
    }
  }

  /// The graph of k guarded iterations of while loop s (condition, flag kernel, body).
  int capturedWhile(const kir::Step& s, const LoopPlan& plan, int64_t k) {
    std::vector<uint64_t> key = graphKey(s, plan, k);
    if (int g = findGraph(key); g >= 0) return g;
    bool ok = t_.beginCapture();
    SCN_ASSERT(ok, "speculative while chunks need a target that captures");
    capturing_ = guardCopies_ = true;
    capturedBytes_ = 0;
    try {
      for (int64_t i = 0; i < k; ++i) {
        run(s.cond);
        runtime(RuntimeKernel::WhileFlag,
                {static_cast<uint64_t>(src_.whileActive), reinterpret_cast<uintptr_t>(at(s.flag))});
        run(s.body);
      }
    } catch (...) {
      capturing_ = guardCopies_ = false;
      t_.abortCapture();
      throw;
    }
    capturing_ = guardCopies_ = false;
    int g = t_.endCapture();
    SCN_ASSERT(g == static_cast<int>(graphs_.size()), "graph ids are not issued in order");
    graphs_.push_back({std::move(key), capturedBytes_});
    ++counts_->graphs;
    return g;
  }

  /// The order of permutation `one` (the smallest k with one^k = identity), 0 when over maxPeriod.
  int64_t periodOf(const std::vector<int>& one) const {
    std::vector<int> identity(one.size());
    for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int>(i);
    std::vector<int> acc = identity;
    for (int64_t k = 1; k <= opts_.maxPeriod; ++k) {
      std::vector<int> next(acc.size());
      for (size_t i = 0; i < acc.size(); ++i) next[i] = one[acc[i]];
      acc = next;
      if (acc == identity) return k;
    }
    return 0;
  }

  void pollInterrupt() const {
    if (opts_.interrupt && opts_.interrupt->load(std::memory_order_relaxed) != 0) failInterrupted();
  }

  void step(const kir::Step& s) {
    switch (s.kind) {
      case kir::StepKind::Launch: launch(s.kernel); return;
      case kir::StepKind::Gemm: t_.gemm(s.gemm, at(s.gemm.a), at(s.gemm.b), at(s.gemm.c)); return;
      case kir::StepKind::Loop: loop(s); return;
      case kir::StepKind::While:
        SCN_ASSERT(!capturing_, "a while loop inside a captured loop");
        if (opts_.whileChunk > 0 && src_.whileActive >= 0) {
          const LoopPlan& plan = whilePlanFor(s);
          if (plan.ok) {
            speculate(s, plan);
            return;
          }
        }
        for (;;) {
          pollInterrupt();
          run(s.cond);
          if (readScalar(s.flag) == 0) return;
          run(s.body);
        }
      case kir::StepKind::Switch: {
        SCN_ASSERT(!capturing_, "a switch inside a captured loop");
        int64_t n = static_cast<int64_t>(s.branches.size());
        int64_t b = readScalar(s.flag);
        b = b < 0 ? 0 : b >= n ? n - 1 : b;
        if (n > 0) run(s.branches[b]);
        return;
      }
      case kir::StepKind::Copy: {
        size_t bytes = static_cast<size_t>(s.elems) * dtypeSize(p_.buffers.at(s.dst.buffer).dtype);
        if (bytes == 0) return;
        if (guardCopies_)
          runtime(RuntimeKernel::GuardedCopy,
                  {static_cast<uint64_t>(src_.whileActive), reinterpret_cast<uintptr_t>(at(s.dst)),
                   reinterpret_cast<uintptr_t>(at(s.src)), static_cast<uint64_t>(bytes)},
                  static_cast<int64_t>(bytes));
        else
          t_.copy(at(s.dst), at(s.src), bytes);
        if (s.carry && stats_) (capturing_ ? capturedBytes_ : stats_->copiedBytes) += bytes;
        return;
      }
      case kir::StepKind::Swap: std::swap(slots_.at(s.a), slots_.at(s.b)); return;
      case kir::StepKind::Linalg: {
        SCN_ASSERT(!capturing_, "a linalg step inside a captured loop");
        std::vector<const void*> in;
        std::vector<void*> out;
        for (const kir::Loc& l : s.linalg.in) in.push_back(at(l));
        for (const kir::Loc& l : s.linalg.out) out.push_back(at(l));
        t_.linalg(s.linalg.call, in, out);
        return;
      }
      case kir::StepKind::Collective:
        SCN_ASSERT(!capturing_, "a collective step inside a captured loop");
        t_.collective(p_.collectives.at(s.collective.call), at(s.collective.in), at(s.collective.out));
        return;
      case kir::StepKind::Sort:  // cudaLowerOptions() asks for bitonic kernels (Note [Bitonic sort])
        internalError("a sort step in a CUDA program");
    }
  }

  const kir::Program& p_;
  const CudaSource& src_;
  std::vector<void*>& slots_;
  void* counters_;
  StepTarget& t_;
  RunStats* stats_;
  const StepOptions& opts_;
  StepCounts ownCounts_;
  StepCounts* counts_;
  std::vector<int64_t> hostVars_;
  std::vector<bool> onDevice_;  // counters some kernel reads (kept in the device table)
  std::unordered_map<const kir::Step*, LoopPlan> plans_;
  std::vector<int> inner_;  // planOnce: counters of the loops nested in the body
  bool capturing_ = false;
  bool guardCopies_ = false;  // capturing a speculative while chunk: copies become guarded kernels
  size_t capturedBytes_ = 0;  // carry copies recorded in the graph being captured
  struct Graph {
    std::vector<uint64_t> key;  // the loop step, chunk, slot pointers and offset counters
    size_t carryBytes = 0;      // carry copies per replay
  };
  std::vector<Graph> graphs_;  // this run's graphs, by id
};

}  // namespace

void runSteps(const kir::Program& p, const CudaSource& src, std::vector<void*>& slots,
              void* counters, StepTarget& target, RunStats* stats, const StepOptions& opts,
              StepCounts* counts) {
  SCN_ASSERT(src.kernels.size() == p.kernels.size(), "kernel signatures do not match the program");
  SCN_ASSERT(slots.size() == p.buffers.size(), "slot table does not match the program");
  Runner(p, src, slots, counters, target, stats, opts, counts).run(p.steps);
}

void runHostCollective(const kir::CollectiveCall& c, const void* in, void* out) {
  std::unique_ptr<CollectiveFailure> failure =
      runProcessCollective(*c.group, c.what, c.in.dtype, c.in.shape, in, c.out.shape, out);
  if (failure) fail(failure->code, c.span, failure->message, failure->help);
}

}  // namespace scn::cuda
