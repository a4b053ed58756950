// Process collectives: one Collective step (a host call into the op's group) on the operand's
// and the result's buffers, which the category's needsBuffer flag makes dense and row-major.
#include "jit/kernel/lower_impl.hpp"

namespace scn::kir {

// Note [Collective steps]
// A process collective (ProcessSum/Max/Min/Gather/Permute, Note [Named axes] in
// jit/transform/batch_collectives.cpp) is a host step of the kernel IR, as a LAPACK call is: the
// runner calls runProcessCollective (jit/collectives.hpp), the same function the interpreter
// calls, on the step's buffers, borrowed, not copied. The CPU runner calls it from compiled code
// through scn_collective (jit/cpu/collective_step.cpp), which returns a failure to the code, so it
// returns early and the executable reports the failure (E0440...) at the op's span: no exception
// crosses compiled frames, and a while_loop whose condition waits on a dead process stops rather
// than spins. The CUDA runner (jit/cuda/steps.cpp) copies the operand to the host, calls, and
// copies the result back; NCCL on device buffers is a later step (docs/distributed.md).
// The step names its call by index into Program::collectives; the group itself is not printed,
// so the kernel IR (the CPU's cache key) is the same in every process and every run.
void FuncLowering::lowerProcessCollective(const Eqn& e) {
  CollectiveCall call;
  call.what = ProcessCollectiveCall{e.op, e.attrs.resultGather, e.attrs.axes};
  call.in = f_.type(e.inputs[0]);
  call.out = f_.type(e.outputs[0]);
  call.group = e.attrs.group;
  call.span = e.span;
  Step s;
  s.kind = StepKind::Collective;
  s.collective.call = static_cast<int>(pb_.prog.collectives.size());
  s.collective.in = loc_[e.inputs[0]];
  s.collective.out = outputLoc(e.outputs[0]);
  pb_.prog.collectives.push_back(std::move(call));
  // Every process makes the call, even for an empty operand or an unread result: the processes
  // make the same collectives in the same order.
  pb_.emit(std::move(s));
  int o = e.outputs[0];
  if (!live_[o] && canFree_[o]) {
    pb_.freeTemp(loc_[o].buffer);
    canFree_[o] = canSteal_[o] = false;
  }
}

}  // namespace scn::kir
