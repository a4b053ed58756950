// The kernel-IR verifier: the invariants of Note [Kernel IR] that the printers, the LLVM emitter,
// the CUDA printer and the step runners rely on, checked after every lowering (lowerStage).
#include <set>
#include <string>

#include "jit/fft.hpp"
#include "jit/kernel/kernel_ir.hpp"

namespace scn::kir {

// Note [Kernel IR invariants]
// What verifyProgram checks, and who relies on it:
// - buffers: a Const slot names an existing constant of its dtype and size; every buffer id a
//   load, store, GEMM, copy, swap, flag or result names is in the table (the runners index
//   their pointer table with it);
// - kernels: dims are >= 0; an Index reads one of the kernel's dims; a Local is one of its
//   locals, read with the local's dtype, and is either a loop variable of an enclosing loop or
//   assigned by an earlier Let (the emitters give each local one slot and never zero it); a
//   HostVar is bound by a Loop step around every launch of the kernel (the runners pass the
//   counters of the enclosing loops only);
// - dtypes: loads read and stores write their buffer's dtype; indices, Arith and loop variables
//   are i64; an Op has its table arity and the dtypes of its category (Compare and Predicate
//   give bool, Select picks with a bool, Unary and Binary keep their operands' dtype); a Let
//   assigns its local's dtype; constant indices are in bounds where they run (a kernel over an
//   empty array, or a loop of extent 0, may name element 0 of an empty buffer), and so are
//   unconditional stores at a bare parallel index (the buffer holds that dim's points);
// - a single-pass scan kernel has a last dim, a combiner of Add/Mul/Max/Min with a constant
//   identity, locals of its element dtype and a u64 status buffer of tileScanStatusWords words;
// - steps: launches name existing kernels; GEMMs are f32 or f64 over buffers of that dtype;
//   step offsets are host index arithmetic (constants, host vars of enclosing loops, Arith);
//   a while tests a bool, a switch an i32 or bool; copies and swaps join slots of one dtype
//   (swaps: of one size);
// - every non-empty temporary that is a result is written by some step.
// A violation is a bug of the lowering: lowerStage reports it as an internal error (E9999).

namespace {

struct Invalid {
  std::string message;
};

[[noreturn]] void invalid(const std::string& where, const std::string& what) {
  throw Invalid{where + ": " + what};
}

class Verifier {
 public:
  explicit Verifier(const Program& p) : p_(p) {}

  void run() {
    for (size_t i = 0; i < p_.buffers.size(); ++i) checkBuffer(static_cast<int>(i));
    for (size_t i = 0; i < p_.kernels.size(); ++i) checkKernel(p_.kernels[i], "kernel k" + std::to_string(i));
    std::vector<int> bound;
    checkSteps(p_.steps, bound, "steps");
    for (int r : p_.results) {
      checkBufferId(r, "results");
      if (p_.buffers[r].kind == BufferKind::Temp && p_.buffers[r].elems > 0 && !written_.count(r))
        invalid("results", "temporary result b" + std::to_string(r) + " is never written");
    }
  }

 private:
  // ---- buffers ----
  void checkBufferId(int b, const std::string& where) const {
    if (b < 0 || b >= static_cast<int>(p_.buffers.size()))
      invalid(where, "buffer b" + std::to_string(b) + " is not in the table of " +
                         std::to_string(p_.buffers.size()) + " buffers");
  }

  void checkBuffer(int i) const {
    const BufferInfo& b = p_.buffers[i];
    std::string where = "buffer b" + std::to_string(i);
    if (b.elems < 0) invalid(where, "negative size " + std::to_string(b.elems));
    if (b.kind != BufferKind::Const) return;
    if (b.index < 0 || b.index >= static_cast<int>(p_.consts.size()))
      invalid(where, "constant " + std::to_string(b.index) + " does not exist");
    const Array& c = p_.consts[b.index];
    if (c.dtype != b.dtype || c.size() != b.elems)
      invalid(where, std::string("constant of ") + dtypeName(c.dtype) + "[" + std::to_string(c.size()) +
                         "] in a slot of " + dtypeName(b.dtype) + "[" + std::to_string(b.elems) + "]");
  }

  /// A constant flat index must be inside the buffer.
  void checkConstIndex(int buffer, const ExprP& i, const std::string& where) const {
    // An empty buffer's accesses are dead code (an empty array's kernels index element 0).
    if (p_.buffers[buffer].elems == 0) return;
    if (i->kind == ExprKind::Const && (i->ival < 0 || i->ival >= p_.buffers[buffer].elems))
      invalid(where, "index " + std::to_string(i->ival) + " outside b" + std::to_string(buffer) + " of " +
                         std::to_string(p_.buffers[buffer].elems) + " elements");
  }

  // ---- kernel expressions and statements ----
  struct KernelScope {
    const Kernel& k;
    std::string where;
    std::set<int> assigned;   // locals given a value so far (Lets, enclosing loop variables)
    std::set<int>* hostVars;  // collects the host vars the kernel reads
    int unreachable = 0;      // > 0 inside code that never runs (no points, a loop of extent 0)
    int conditional = 0;      // > 0 inside an If
  };

  /// A store at a bare parallel index, unconditionally, writes every point of that dim: the
  /// buffer must hold them (row fusion once merged an empty kernel into a non-empty one). Kept
  /// as the kernel's overrun, an error where a launch of the kernel can run (not inside a host
  /// loop of no trips: a scan over an empty axis keeps its body's kernels).
  void checkIndexRange(int buffer, const ExprP& i, const KernelScope& s) {
    if (i->kind != ExprKind::Index || i->id < 0 || i->id >= static_cast<int>(s.k.dims.size())) return;
    int64_t points = s.k.dims[i->id];
    if (points > p_.buffers[buffer].elems && overrun_.empty())
      overrun_ = s.where + ": a store at i" + std::to_string(i->id) + " over " + std::to_string(points) +
                 " points into b" + std::to_string(buffer) + " of " + std::to_string(p_.buffers[buffer].elems) +
                 " elements";
  }

  void want(DType got, DType expected, const std::string& what, const std::string& where) const {
    if (got != expected)
      invalid(where, what + " is " + dtypeName(got) + ", expected " + dtypeName(expected));
  }

  void checkArgs(const Expr& e, size_t n, const std::string& where) const {
    if (e.args.size() != n)
      invalid(where, printKind(e) + " has " + std::to_string(e.args.size()) + " operands, expected " +
                         std::to_string(n));
  }

  static std::string printKind(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Const: return "a constant";
      case ExprKind::Index: return "an index";
      case ExprKind::HostVar: return "a host variable";
      case ExprKind::Local: return "a local";
      case ExprKind::Load: return "a load";
      case ExprKind::Op: return std::string("op ") + opName(e.op);
      case ExprKind::Convert: return "a convert";
      case ExprKind::Arith: return "index arithmetic";
    }
    return "an expression";
  }

  void checkExpr(const ExprP& e, KernelScope& s, std::set<const Expr*>& seen) const {
    if (!e) invalid(s.where, "missing expression");
    if (!seen.insert(e.get()).second) return;  // fused expressions are DAGs
    for (const ExprP& a : e->args) checkExpr(a, s, seen);
    const std::string& w = s.where;
    switch (e->kind) {
      case ExprKind::Const: checkArgs(*e, 0, w); return;
      case ExprKind::Index:
        want(e->dtype, DType::I64, "index i" + std::to_string(e->id), w);
        if (e->id < 0 || e->id >= static_cast<int>(s.k.dims.size()))
          invalid(w, "index i" + std::to_string(e->id) + " of a kernel with " + std::to_string(s.k.dims.size()) +
                         " dims");
        return;
      case ExprKind::HostVar:
        want(e->dtype, DType::I64, "host variable h" + std::to_string(e->id), w);
        s.hostVars->insert(e->id);
        return;
      case ExprKind::Local:
        checkLocal(e->id, e->dtype, s);
        if (!s.assigned.count(e->id))
          invalid(w, "local l" + std::to_string(e->id) + " is read before it is assigned or bound by a loop");
        return;
      case ExprKind::Load:
        checkArgs(*e, 1, w);
        checkBufferId(e->id, w);
        want(e->dtype, p_.buffers[e->id].dtype, "load of b" + std::to_string(e->id), w);
        want(e->args[0]->dtype, DType::I64, "the index of b" + std::to_string(e->id), w);
        if (!s.unreachable) checkConstIndex(e->id, e->args[0], w);
        return;
      case ExprKind::Op: checkOp(*e, w); return;
      case ExprKind::Convert: checkArgs(*e, 1, w); return;
      case ExprKind::Arith:
        checkArgs(*e, 2, w);
        want(e->dtype, DType::I64, "index arithmetic", w);
        want(e->args[0]->dtype, DType::I64, "an operand of index arithmetic", w);
        want(e->args[1]->dtype, DType::I64, "an operand of index arithmetic", w);
        return;
    }
  }

  void checkOp(const Expr& e, const std::string& w) const {
    const OpInfo& info = opInfo(e.op);
    if (info.numInputs >= 0) checkArgs(e, static_cast<size_t>(info.numInputs), w);
    std::string what = std::string("op ") + info.name;
    switch (info.category) {
      case OpCategory::Unary:
        want(e.args[0]->dtype, e.dtype, "the operand of " + what, w);
        return;
      case OpCategory::ComplexPart:
        want(componentType(e.args[0]->dtype), componentType(e.dtype), "the operand of " + what, w);
        return;
      case OpCategory::Binary:
        want(e.args[0]->dtype, e.dtype, "the first operand of " + what, w);
        want(e.args[1]->dtype, e.dtype, "the second operand of " + what, w);
        return;
      case OpCategory::Predicate: want(e.dtype, DType::Bool, what, w); return;
      case OpCategory::Compare:
        want(e.dtype, DType::Bool, what, w);
        want(e.args[1]->dtype, e.args[0]->dtype, "the second operand of " + what, w);
        return;
      case OpCategory::Select:
        want(e.args[0]->dtype, DType::Bool, "the predicate of select", w);
        want(e.args[1]->dtype, e.dtype, "the first branch of select", w);
        want(e.args[2]->dtype, e.dtype, "the second branch of select", w);
        return;
      case OpCategory::Convert:
      SCN_CASES_WHERE_NOT(elementwise)
        break;
    }
    invalid(w, what + " is not an elementwise op of a kernel");
  }

  void checkLocal(int l, DType t, const KernelScope& s) const {
    if (l < 0 || l >= static_cast<int>(s.k.locals.size()))
      invalid(s.where, "local l" + std::to_string(l) + " of a kernel with " + std::to_string(s.k.locals.size()) +
                           " locals");
    want(t, s.k.locals[l], "local l" + std::to_string(l), s.where);
  }

  void checkStmts(const std::vector<Stmt>& body, KernelScope& s) {
    for (const Stmt& st : body) {
      std::set<const Expr*> seen;
      switch (st.kind) {
        case StmtKind::Let:
          checkExpr(st.value, s, seen);
          checkLocal(st.local, st.value->dtype, s);
          s.assigned.insert(st.local);
          break;
        case StmtKind::AtomicAdd:
          if (st.buffer >= 0 && st.buffer < static_cast<int>(p_.buffers.size()) &&
              p_.buffers[st.buffer].dtype == DType::Bool)
            invalid(s.where, "atomic add to b" + std::to_string(st.buffer) + " of bool");
          [[fallthrough]];
        case StmtKind::Store:
          checkBufferId(st.buffer, s.where);
          checkExpr(st.index, s, seen);
          checkExpr(st.value, s, seen);
          want(st.index->dtype, DType::I64, "the index of a store to b" + std::to_string(st.buffer), s.where);
          want(st.value->dtype, p_.buffers[st.buffer].dtype, "the value stored to b" + std::to_string(st.buffer),
               s.where);
          if (!s.unreachable) checkConstIndex(st.buffer, st.index, s.where);
          if (!s.unreachable && !s.conditional) checkIndexRange(st.buffer, st.index, s);
          stores_.insert(st.buffer);
          break;
        case StmtKind::Loop: {
          checkLocal(st.local, DType::I64, s);
          if (st.extent < 0) invalid(s.where, "loop over l" + std::to_string(st.local) + " has a negative extent");
          bool wasAssigned = s.assigned.count(st.local) > 0;
          s.assigned.insert(st.local);
          s.unreachable += st.extent == 0;
          checkStmts(st.body, s);
          s.unreachable -= st.extent == 0;
          if (!wasAssigned) s.assigned.erase(st.local);  // the loop variable is bound inside only
          break;
        }
        case StmtKind::If: {
          checkExpr(st.value, s, seen);
          want(st.value->dtype, DType::Bool, "the condition of an if", s.where);
          std::set<int> before = s.assigned;
          ++s.conditional;
          checkStmts(st.body, s);
          --s.conditional;
          s.assigned = std::move(before);  // the body may not run
          break;
        }
      }
    }
  }

  void checkKernel(const Kernel& k, const std::string& where) {
    for (int64_t d : k.dims)
      if (d < 0) invalid(where, "negative dim " + std::to_string(d));
    std::set<int> hostVars;
    KernelScope s{k, where, {}, &hostVars, k.points() == 0 ? 1 : 0, 0};
    stores_.clear();
    overrun_.clear();
    checkStmts(k.body, s);
    if (k.scan) checkTileScan(k, s);
    kernelHostVars_.push_back(std::move(hostVars));
    kernelStores_.push_back(stores_);
    kernelOverruns_.push_back(overrun_);
  }

  void checkTileScan(const Kernel& k, KernelScope& s) {
    const TileScan& t = *k.scan;
    if (k.dims.empty()) invalid(s.where, "a single-pass scan kernel without dims");
    if (t.comb != Op::Add && t.comb != Op::Mul && t.comb != Op::Max && t.comb != Op::Min)
      invalid(s.where, std::string("a single-pass scan combining with ") + opName(t.comb));
    if (!t.identity || t.identity->kind != ExprKind::Const)
      invalid(s.where, "a single-pass scan whose identity is not a constant");
    checkLocal(t.value, t.identity->dtype, s);
    checkLocal(t.prefix, t.identity->dtype, s);
    if (!s.assigned.count(t.value)) invalid(s.where, "the scanned value l" + std::to_string(t.value) + " is never assigned");
    if (t.items < 1) invalid(s.where, "a single-pass scan of " + std::to_string(t.items) + " items per thread");
    checkBufferId(t.status, s.where);
    const BufferInfo& status = p_.buffers[t.status];
    want(status.dtype, DType::U64, "the status buffer b" + std::to_string(t.status), s.where);
    if (status.elems < tileScanStatusWords(t.tiles(k.dims)))
      invalid(s.where, "status buffer b" + std::to_string(t.status) + " has " + std::to_string(status.elems) +
                           " words for " + std::to_string(t.tiles(k.dims)) + " tiles");
    s.assigned.insert(t.prefix);
    checkStmts(t.store, s);
  }

  // ---- steps ----
  /// A step's offset: host index arithmetic over the counters of the enclosing loops.
  void checkHostIndex(const ExprP& e, const std::vector<int>& bound, const std::string& where) const {
    if (!e) return;  // no offset: 0
    switch (e->kind) {
      case ExprKind::Const: return;
      case ExprKind::HostVar:
        if (!isBound(e->id, bound))
          invalid(where, "host variable h" + std::to_string(e->id) + " outside a loop over it");
        return;
      case ExprKind::Arith:
        if (e->args.size() != 2) invalid(where, "index arithmetic without two operands");
        checkHostIndex(e->args[0], bound, where);
        checkHostIndex(e->args[1], bound, where);
        return;
      case ExprKind::Index: case ExprKind::Local: case ExprKind::Load: case ExprKind::Op:
      case ExprKind::Convert:
        break;
    }
    invalid(where, "offset " + printExpr(e) + " is not host index arithmetic");
  }

  static bool isBound(int hostVar, const std::vector<int>& bound) {
    for (int h : bound)
      if (h == hostVar) return true;
    return false;
  }

  void checkLoc(const Loc& l, DType t, const std::vector<int>& bound, const std::string& what,
                const std::string& where) const {
    checkBufferId(l.buffer, where);
    want(p_.buffers[l.buffer].dtype, t, what + " b" + std::to_string(l.buffer), where);
    checkHostIndex(l.offset, bound, where);
  }

  void checkSteps(const std::vector<Step>& steps, std::vector<int>& bound, const std::string& where) {
    for (size_t i = 0; i < steps.size(); ++i) checkStep(steps[i], bound, where + "[" + std::to_string(i) + "]");
  }

  void checkLaunch(int kernel, const std::vector<int>& bound, const std::string& where) {
    if (kernel < 0 || kernel >= static_cast<int>(p_.kernels.size()))
      invalid(where, "launch of kernel k" + std::to_string(kernel) + " of " + std::to_string(p_.kernels.size()));
    for (int h : kernelHostVars_[kernel])
      if (!isBound(h, bound))
        invalid(where, "kernel k" + std::to_string(kernel) + " reads host variable h" + std::to_string(h) +
                           " outside a loop over it");
    if (deadLoops_ == 0 && !kernelOverruns_[kernel].empty()) invalid(where, "launch of " + kernelOverruns_[kernel]);
    written_.insert(kernelStores_[kernel].begin(), kernelStores_[kernel].end());
  }

  /// Note [GEMM epilogues]: the runtime cuts the epilogue's first dim by C's rows, so C is dense
  /// and each point of that dim has an equal window of C's elements.
  void checkEpilogue(const Gemm& g, const std::vector<int>& bound, const std::string& where) {
    checkLaunch(g.epilogue, bound, where + " (epilogue)");
    const Kernel& k = p_.kernels[g.epilogue];
    int64_t elems = g.batch * g.m * g.n;
    if (g.ldc != g.n || (g.batch > 1 && g.strideC != g.m * g.n) || k.dims.empty() || k.scan || k.dims[0] < 1 ||
        elems % k.dims[0] != 0)
      invalid(where, "epilogue k" + std::to_string(g.epilogue) + " over " + std::to_string(k.dims.empty() ? 0 : k.dims[0]) +
                         " windows of a product of " + std::to_string(elems) + " elements (dense C)");
  }

  void checkStep(const Step& s, std::vector<int>& bound, const std::string& where) {
    switch (s.kind) {
      case StepKind::Launch: return checkLaunch(s.kernel, bound, where);
      case StepKind::Gemm: {
        const Gemm& g = s.gemm;
        if ((!isFloat(g.dtype) && !isComplex(g.dtype)) || g.dtype == DType::F16)
          invalid(where, std::string("a gemm of ") + dtypeName(g.dtype));
        if (g.accumulate && g.dtype != DType::F32 && g.dtype != DType::F64)
          invalid(where, std::string("an accumulating gemm of ") + dtypeName(g.dtype));
        checkLoc(g.a, g.dtype, bound, "operand A", where);
        checkLoc(g.b, g.dtype, bound, "operand B", where);
        checkLoc(g.c, g.dtype, bound, "output C", where);
        written_.insert(g.c.buffer);
        if (g.epilogue >= 0) checkEpilogue(g, bound, where);
        return;
      }
      case StepKind::Loop:
        if (s.hostVar < 0 || s.hostVar >= p_.numHostVars)
          invalid(where, "loop counter h" + std::to_string(s.hostVar) + " of a program with " +
                             std::to_string(p_.numHostVars) + " host variables");
        if (isBound(s.hostVar, bound)) invalid(where, "loop counter h" + std::to_string(s.hostVar) + " is already bound");
        if (s.start < 0 || s.count < 0) invalid(where, "loop over a negative range");
        bound.push_back(s.hostVar);
        deadLoops_ += s.count <= s.start;
        checkSteps(s.body, bound, where + " loop");
        deadLoops_ -= s.count <= s.start;
        bound.pop_back();
        return;
      case StepKind::While:
        checkSteps(s.cond, bound, where + " cond");
        checkLoc(s.flag, DType::Bool, bound, "the flag", where);
        checkSteps(s.body, bound, where + " body");
        return;
      case StepKind::Switch:
        checkBufferId(s.flag.buffer, where);
        if (p_.buffers[s.flag.buffer].dtype != DType::I32 && p_.buffers[s.flag.buffer].dtype != DType::Bool)
          invalid(where, std::string("switch on b") + std::to_string(s.flag.buffer) + " of " +
                             dtypeName(p_.buffers[s.flag.buffer].dtype));
        checkHostIndex(s.flag.offset, bound, where);
        if (s.branches.empty()) invalid(where, "switch without branches");
        for (size_t i = 0; i < s.branches.size(); ++i)
          checkSteps(s.branches[i], bound, where + " case " + std::to_string(i));
        return;
      case StepKind::Copy:
        checkBufferId(s.src.buffer, where);
        checkLoc(s.dst, p_.buffers[s.src.buffer].dtype, bound, "copy destination", where);
        checkHostIndex(s.src.offset, bound, where);
        if (s.elems < 0) invalid(where, "copy of a negative count");
        written_.insert(s.dst.buffer);
        return;
      case StepKind::Swap:
        checkBufferId(s.a, where);
        checkBufferId(s.b, where);
        if (p_.buffers[s.a].dtype != p_.buffers[s.b].dtype || p_.buffers[s.a].elems != p_.buffers[s.b].elems)
          invalid(where, "swap of b" + std::to_string(s.a) + " and b" + std::to_string(s.b) +
                             " of different types");
        written_.insert(s.a);
        written_.insert(s.b);
        return;
      case StepKind::Sort: {
        const SortRows& r = s.sort;
        checkBufferId(r.keys.buffer, where);
        checkBufferId(r.perm.buffer, where);
        checkLoc(r.keys, p_.buffers[r.keys.buffer].dtype, bound, "sort keys", where);
        DType pt = p_.buffers[r.perm.buffer].dtype;
        if (pt != DType::I32 && pt != DType::I64)
          invalid(where, std::string("a sort permutation of ") + dtypeName(pt));
        checkLoc(r.perm, pt, bound, "sort permutation", where);
        if (r.rows < 0 || r.n < 0) invalid(where, "sort of a negative count");
        written_.insert(r.perm.buffer);
        return;
      }
      case StepKind::Linalg: {
        const LinalgStep& l = s.linalg;
        bool complexOk = isFftOp(l.call.op) ? l.call.op != Op::Rfft : inTypeClass(DType::C64, opInfo(l.call.op).typeClass);
        if (!isFloat(l.call.dtype) && !(complexOk && isComplex(l.call.dtype)))
          invalid(where, std::string("a linalg step of ") + opName(l.call.op) + " on " + dtypeName(l.call.dtype));
        if (static_cast<int>(l.in.size()) != l.call.numInputs() || static_cast<int>(l.out.size()) != l.call.numOutputs())
          invalid(where, std::string("a linalg step of ") + opName(l.call.op) + " with the wrong number of operands");
        for (size_t i = 0; i < l.in.size(); ++i)
          checkLoc(l.in[i], l.call.inputDType(static_cast<int>(i)), bound, "a linalg operand", where);
        for (size_t i = 0; i < l.out.size(); ++i) {
          checkLoc(l.out[i], l.call.outputDType(static_cast<int>(i)), bound, "a linalg result", where);
          written_.insert(l.out[i].buffer);
        }
        return;
      }
      case StepKind::Collective: {
        const CollectiveStep& c = s.collective;
        if (c.call < 0 || c.call >= static_cast<int>(p_.collectives.size()))
          invalid(where, "collective call " + std::to_string(c.call) + " of " + std::to_string(p_.collectives.size()));
        const CollectiveCall& call = p_.collectives[c.call];
        if (!call.group) invalid(where, std::string("a collective step of ") + opName(call.what.op) + " without a group");
        checkLoc(c.in, call.in.dtype, bound, "a collective operand", where);
        checkLoc(c.out, call.out.dtype, bound, "a collective result", where);
        written_.insert(c.out.buffer);
        return;
      }
    }
  }

  const Program& p_;
  std::set<int> stores_;                       // buffers the kernel being checked stores to
  std::vector<std::set<int>> kernelHostVars_;  // per kernel
  std::vector<std::set<int>> kernelStores_;    // per kernel
  std::vector<std::string> kernelOverruns_;    // per kernel: a store past its buffer, or ""
  std::string overrun_;                        // of the kernel being checked
  int deadLoops_ = 0;                          // enclosing host loops of no trips
  std::set<int> written_;                      // buffers some step writes
};

}  // namespace

std::string verifyProgram(const Program& p) {
  try {
    Verifier(p).run();
  } catch (const Invalid& e) {
    return "program " + p.name + ": " + e.message;
  }
  return "";
}

}  // namespace scn::kir
