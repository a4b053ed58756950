// The one-process group: what a run without mpirun uses (jit/collectives.hpp).
#include "jit/collectives.hpp"

#include <cstring>

#include "base/diagnostics.hpp"
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

ProcessCombine combineOf(Op op) {
  std::optional<Op> c = opInfo(op).combiner;
  if (c == Op::Max) return ProcessCombine::Max;
  if (c == Op::Min) return ProcessCombine::Min;
  SCN_ASSERT(c == Op::Add, std::string("the process collective ") + opName(op) + " has a combiner");
  return ProcessCombine::Sum;
}

/// An array over memory the caller owns and keeps alive for the array's life.
Array borrowedArray(DType dtype, const Shape& shape, const void* data) {
  Array a;
  a.dtype = dtype;
  a.shape = shape;
  a.buffer = std::make_shared<Buffer>(Buffer::Borrow{}, data, static_cast<size_t>(numElements(shape)) * dtypeSize(dtype));
  return a;
}

}  // namespace

std::unique_ptr<CollectiveFailure> runProcessCollective(Collectives& group, Op op, bool resultGather, const Array& x,
                                                        Array& out) {
  return op == Op::ProcessGather ? group.allGather(x, out, resultGather) : group.allReduce(x, out, combineOf(op));
}

std::unique_ptr<CollectiveFailure> runProcessCollective(Collectives& group, Op op, bool resultGather, DType dtype,
                                                        const Shape& xShape, const void* x, const Shape& outShape,
                                                        void* out) {
  Array xa = borrowedArray(dtype, xShape, x);
  // The result is written through the borrowed buffer: the caller's own, writable, memory.
  Array outa = borrowedArray(dtype, outShape, out);
  return runProcessCollective(group, op, resultGather, xa, outa);
}

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
