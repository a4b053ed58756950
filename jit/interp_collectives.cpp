// The interpreter's kernels of the process collectives: calls into the group the op names.
#include "base/diagnostics.hpp"
#include "jit/collectives.hpp"
#include "jit/interp_kernels.hpp"

namespace scn {

namespace interp {

Array processCollectiveOp(const Eqn& e, const Array& x, const Type& out) {
  Array r(out.dtype, out.shape);
  Collectives& group = *e.attrs.group;
  std::unique_ptr<CollectiveFailure> failure =
      runProcessCollective(group, ProcessCollectiveCall{e.op, e.attrs.resultGather, e.attrs.axes}, x, r);
  if (failure) fail(failure->code, e.span, failure->message, failure->help);
  return r;
}

}  // namespace interp
}  // namespace scn
