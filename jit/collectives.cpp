// The one-process group: what a run without mpirun uses (jit/collectives.hpp).
#include "jit/collectives.hpp"

#include <cstring>

#include "jit/ir.hpp"

namespace scn {

namespace {

class SingleProcess : public Collectives {
 public:
  int processIndex() const override { return 0; }
  int processCount() const override { return 1; }
  std::string describe() const override { return "single"; }
  std::unique_ptr<CollectiveFailure> allReduce(const Array& x, Array& out, ProcessCombine) override {
    ++counters.calls;
    copy(x, out);
    return nullptr;
  }
  std::unique_ptr<CollectiveFailure> allGather(const Array& x, Array& out, bool resultGather) override {
    ++(resultGather ? counters.resultGathers : counters.calls);
    copy(x, out);
    return nullptr;
  }

 private:
  void copy(const Array& x, Array& out) {
    size_t bytes = x.size() * dtypeSize(x.dtype);
    counters.bytes += static_cast<int64_t>(bytes);
    if (bytes) std::memcpy(out.raw(), x.raw(), bytes);
  }
};

}  // namespace

bool usesProcessCollectives(const Func& f) {
  for (const Eqn& e : f.eqns) {
    if (opInfo(e.op).category == OpCategory::ProcessCollective) return true;
    for (const FuncPtr& s : e.subs)
      if (usesProcessCollectives(*s)) return true;
  }
  return false;
}

std::shared_ptr<Collectives> singleProcessGroup() { return std::make_shared<SingleProcess>(); }

}  // namespace scn
