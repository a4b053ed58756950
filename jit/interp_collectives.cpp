// The interpreter's kernels of the process collectives: calls into the group the op names.
#include "base/diagnostics.hpp"
#include "jit/collectives.hpp"
#include "jit/interp_kernels.hpp"

namespace scn {

namespace {

ProcessCombine combineOf(Op op) {
  std::optional<Op> c = opInfo(op).combiner;
  if (c == Op::Max) return ProcessCombine::Max;
  if (c == Op::Min) return ProcessCombine::Min;
  SCN_ASSERT(c == Op::Add, std::string("the process collective ") + opName(op) + " has a combiner");
  return ProcessCombine::Sum;
}

}  // namespace

namespace interp {

Array processCollectiveOp(const Eqn& e, const Array& x, const Type& out) {
  Array r(out.dtype, out.shape);
  Collectives& group = *e.attrs.group;
  std::unique_ptr<CollectiveFailure> failure =
      e.op == Op::ProcessGather ? group.allGather(x, r, e.attrs.resultGather) : group.allReduce(x, r, combineOf(e.op));
  if (failure) fail(failure->code, e.span, failure->message, failure->help);
  return r;
}

}  // namespace interp
}  // namespace scn
