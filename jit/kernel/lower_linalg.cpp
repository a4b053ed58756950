// Linalg ops: one Linalg step (a library routine of the backend's runner) on the operands'
// buffers, which the category's needsBuffer flag makes dense and row-major.
#include "jit/kernel/lower_impl.hpp"

namespace scn::kir {

void FuncLowering::lowerLinalg(const Eqn& e) {
  std::vector<Type> in;
  for (int v : e.inputs) in.push_back(f_.type(v));
  Step s;
  s.kind = StepKind::Linalg;
  s.linalg.call = linalgCallOf(e.op, in, e.attrs);
  for (int v : e.inputs) s.linalg.in.push_back(loc_[v]);
  // Every output is written (the routine fills them all), even one nobody reads.
  for (int o : e.outputs) s.linalg.out.push_back(outputLoc(o));
  if (s.linalg.call.batch > 0) pb_.emit(std::move(s));
  for (int o : e.outputs)
    if (!live_[o] && canFree_[o]) {
      pb_.freeTemp(loc_[o].buffer);
      canFree_[o] = canSteal_[o] = false;
    }
}

}  // namespace scn::kir
