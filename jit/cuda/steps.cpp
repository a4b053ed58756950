// The step runner: the sequential program of a kir::Program issued from the host.
#include "jit/cuda/steps.hpp"

#include <cstring>

#include "lang/diagnostics.hpp"

namespace scn::cuda {

// Note [Host-driven steps]
// Today the host walks the steps: a scan or fori loop is a host loop issuing the body's launches
// on one stream (no synchronisation, so the GPU runs ahead), and a while loop or a cond reads its
// flag back (one device-to-host round trip per iteration or branch). The next steps, described
// in docs/backend-cuda.md, are to capture a static loop body once as a CUDA graph and replay it,
// and to keep while loops on the device with graph conditional nodes (CUDA >= 12.4): the step
// list is already the graph's shape (launches and copies as nodes, Loop as a repeat, While and
// Switch as conditional nodes), and only HostVar arguments change between iterations.

int64_t evalHostIndex(const kir::ExprP& e, const std::vector<int64_t>& hostVars) {
  switch (e->kind) {
    case kir::ExprKind::Const: return e->ival;
    case kir::ExprKind::HostVar: return hostVars.at(e->id);
    case kir::ExprKind::Arith: {
      int64_t a = evalHostIndex(e->args.at(0), hostVars), b = evalHostIndex(e->args.at(1), hostVars);
      switch (e->arith) {
        case kir::Arith::Add: return a + b;
        case kir::Arith::Sub: return a - b;
        case kir::Arith::Mul: return a * b;
        case kir::Arith::Div: return b == 0 ? 0 : a / b;
        case kir::Arith::Rem: return b == 0 ? 0 : a % b;
        case kir::Arith::Min: return a < b ? a : b;
        case kir::Arith::Max: return a > b ? a : b;
      }
      break;
    }
    case kir::ExprKind::Index: case kir::ExprKind::Local: case kir::ExprKind::Load:
    case kir::ExprKind::Op: case kir::ExprKind::Convert:
      break;
  }
  internalError("a step offset is not host index arithmetic: " + kir::printExpr(e));
}

namespace {

class Runner {
 public:
  Runner(const kir::Program& p, const std::vector<KernelSig>& sigs, std::vector<void*>& slots,
         StepTarget& t, RunStats* stats)
      : p_(p), sigs_(sigs), slots_(slots), t_(t), stats_(stats), hostVars_(p.numHostVars, 0) {}

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
    return dispatchDType(t, [&]<typename T>() -> int64_t {
      T v;
      std::memcpy(&v, raw, sizeof v);
      if constexpr (std::is_same_v<T, uint64_t>) return v > INT64_MAX ? INT64_MAX : int64_t(v);
      else if constexpr (std::is_floating_point_v<T>) return static_cast<int64_t>(v);
      else return static_cast<int64_t>(v);
    });
  }

  void launch(int k) {
    const KernelSig& sig = sigs_.at(k);
    if (sig.points == 0) return;
    std::vector<uint64_t> values;
    for (int b : sig.buffers) values.push_back(reinterpret_cast<uintptr_t>(slots_.at(b)));
    for (int h : sig.hostVars) values.push_back(static_cast<uint64_t>(hostVars_.at(h)));
    std::vector<void*> args;
    for (uint64_t& v : values) args.push_back(&v);
    t_.launch(k, sig, args.data());
  }

  void step(const kir::Step& s) {
    switch (s.kind) {
      case kir::StepKind::Launch: launch(s.kernel); return;
      case kir::StepKind::Gemm: t_.gemm(s.gemm, at(s.gemm.a), at(s.gemm.b), at(s.gemm.c)); return;
      case kir::StepKind::Loop:
        for (int64_t i = 0; i < s.count; ++i) {
          hostVars_.at(s.hostVar) = i;
          run(s.body);
        }
        return;
      case kir::StepKind::While:
        for (;;) {
          run(s.cond);
          if (readScalar(s.flag) == 0) return;
          run(s.body);
        }
      case kir::StepKind::Switch: {
        int64_t n = static_cast<int64_t>(s.branches.size());
        int64_t b = readScalar(s.flag);
        b = b < 0 ? 0 : b >= n ? n - 1 : b;
        if (n > 0) run(s.branches[b]);
        return;
      }
      case kir::StepKind::Copy: {
        size_t bytes = static_cast<size_t>(s.elems) * dtypeSize(p_.buffers.at(s.dst.buffer).dtype);
        if (bytes == 0) return;
        t_.copy(at(s.dst), at(s.src), bytes);
        if (s.carry && stats_) stats_->copiedBytes += bytes;
        return;
      }
      case kir::StepKind::Swap: std::swap(slots_.at(s.a), slots_.at(s.b)); return;
    }
  }

  const kir::Program& p_;
  const std::vector<KernelSig>& sigs_;
  std::vector<void*>& slots_;
  StepTarget& t_;
  RunStats* stats_;
  std::vector<int64_t> hostVars_;
};

}  // namespace

void runSteps(const kir::Program& p, const std::vector<KernelSig>& sigs, std::vector<void*>& slots,
              StepTarget& target, RunStats* stats) {
  SCN_ASSERT(sigs.size() == p.kernels.size(), "kernel signatures do not match the program");
  SCN_ASSERT(slots.size() == p.buffers.size(), "slot table does not match the program");
  Runner(p, sigs, slots, target, stats).run(p.steps);
}

}  // namespace scn::cuda
