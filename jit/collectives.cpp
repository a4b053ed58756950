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
  std::unique_ptr<CollectiveFailure> permute(const Array& x, Array& out, const std::vector<int64_t>& pairs) override {
    ++counters.calls;
    permuteLocally(planPermute(pairs, x.shape.at(0), 0, 1), 0, x, out);
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

size_t rowBytes(const Array& x) {
  return x.shape.empty() || x.shape[0] == 0 ? 0 : x.bytes() / static_cast<size_t>(x.shape[0]);
}

PermutePlan planPermute(const std::vector<int64_t>& pairs, int64_t lanesPerProcess, int process, int processes) {
  PermutePlan plan;
  plan.sendRows.resize(static_cast<size_t>(processes));
  plan.receiveRows.resize(static_cast<size_t>(processes));
  if (lanesPerProcess == 0) return plan;
  for (size_t k = 0; k + 1 < pairs.size(); k += 2) {
    int64_t source = pairs[k], destination = pairs[k + 1];
    int64_t from = source / lanesPerProcess, to = destination / lanesPerProcess;
    if (from == process) plan.sendRows[static_cast<size_t>(to)].push_back(source % lanesPerProcess);
    if (to == process) plan.receiveRows[static_cast<size_t>(from)].push_back(destination % lanesPerProcess);
  }
  return plan;
}

void permuteLocally(const PermutePlan& plan, int process, const Array& x, Array& out) {
  if (out.bytes()) std::memset(out.raw(), 0, out.bytes());
  size_t row = rowBytes(x);
  const std::vector<int64_t>& sent = plan.sendRows[static_cast<size_t>(process)];
  const std::vector<int64_t>& received = plan.receiveRows[static_cast<size_t>(process)];
  SCN_ASSERT(sent.size() == received.size(), "a process permutes as many rows to itself as it receives");
  const auto* from = static_cast<const uint8_t*>(x.raw());
  auto* to = static_cast<uint8_t*>(out.raw());
  for (size_t k = 0; k < sent.size() && row; ++k)
    std::memcpy(to + static_cast<size_t>(received[k]) * row, from + static_cast<size_t>(sent[k]) * row, row);
}

std::unique_ptr<CollectiveFailure> runProcessCollective(Collectives& group, const ProcessCollectiveCall& call,
                                                        const Array& x, Array& out) {
  if (call.op == Op::ProcessGather) return group.allGather(x, out, call.resultGather);
  if (call.op == Op::ProcessPermute) return group.permute(x, out, call.pairs);
  return group.allReduce(x, out, combineOf(call.op));
}

std::unique_ptr<CollectiveFailure> runProcessCollective(Collectives& group, const ProcessCollectiveCall& call,
                                                        DType dtype, const Shape& xShape, const void* x,
                                                        const Shape& outShape, void* out) {
  Array xa = borrowedArray(dtype, xShape, x);
  // The result is written through the borrowed buffer: the caller's own, writable, memory.
  Array outa = borrowedArray(dtype, outShape, out);
  return runProcessCollective(group, call, xa, outa);
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
