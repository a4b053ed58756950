// The Collective step on the CPU (Note [Collective steps] in jit/kernel/lower_collective.cpp):
// compiled code calls scn_collective with the step's buffers.
#include "jit/collectives.hpp"
#include "jit/cpu/runtime.hpp"
#include "jit/kernel/kernel_ir.hpp"

extern "C" int32_t scn_collective(scn::cpu::RuntimeCtx* ctx, int32_t call, const void* in, void* out) {
  using namespace scn;
  const kir::CollectiveCall& c = ctx->collectives->at(static_cast<size_t>(call));
  std::unique_ptr<CollectiveFailure> failure =
      runProcessCollective(*c.group, c.what, c.in.dtype, c.in.shape, in, c.out.shape, out);
  if (!failure) return 0;
  ctx->failedCollective = call;
  ctx->collectiveFailure = std::move(failure);
  return 1;
}
