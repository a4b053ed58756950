// Automatic differentiation as IR-to-IR transformations: forward mode (jvp) and reverse mode
// (vjp), both built from one JVP rule per op (Note [Autodiff design] in jit/transform/vjp.cpp).
#pragma once

#include <vector>

#include "jit/ir.hpp"

namespace scn {

/// How an op takes part in differentiation (every op of ops.def has one; a test walks them).
enum class DiffKind {
  Smooth,          // a JVP rule (and reverse mode through its linearization)
  ZeroTangent,     // piecewise constant or integer-valued: its tangent is zero, as in JAX
  ForwardOnly,     // forward mode only (while loops, associative_scan): reverse mode is an error
  Unsupported,     // no rule yet: differentiating through it is an error
};
DiffKind diffKind(Op op);

/// Forward mode. Returns g(params..., tangents...) -> (results..., result tangents...) with one
/// tangent parameter per parameter i where wrt[i] (of the parameter's type; ignored for
/// integer and bool parameters, whose tangent is zero). Result tangents have the result types
/// (zeros for integer results).
FuncPtr jvpFunc(const Func& f, const std::vector<bool>& wrt);

/// The grad memory budget's default: 1 GiB (Note [Grad memory budget] in jit/transform/grad_budget.cpp).
constexpr uint64_t kDefaultGradMemoryBudget = uint64_t{1} << 30;
/// $SCN_GRAD_MEMORY_BUDGET (a size: 1G, 512M, bytes) when set and valid, else the default.
uint64_t gradMemoryBudgetFromEnvironment();

/// How reverse mode stores residuals.
struct VjpOptions {
  /// The most bytes a scan without `checkpoints=` stores for reverse mode (a carry per step);
  /// past it the scan is checkpointed with ceil(sqrt(n)) stored carries.
  uint64_t gradMemoryBudget = kDefaultGradMemoryBudget;
};

/// Reverse mode. Returns g(params..., cotangents...) -> (results..., parameter cotangents...)
/// with one cotangent parameter per result (of its type; ignored for integer results) and one
/// cotangent result per parameter i where wrt[i] (zeros for integer parameters).
/// User errors at the equation's span: E0274 reverse mode through a while loop, E0275 through
/// an op that has forward mode only, E0276 through an op without a rule.
FuncPtr vjpFunc(const Func& f, const std::vector<bool>& wrt, const VjpOptions& options = {});

/// What the checkpointed scans of a function differentiated in reverse mode store and recompute
/// (Note [Scan checkpoints] in jit/transform/vjp_control.cpp), over all their executions: the
/// carries stored at segment boundaries and the steps run again in the backward pass. Of the
/// scans the memory budget checkpointed (without `checkpoints=`): how many, the most bytes one
/// would have stored, and the budget it exceeded.
struct CheckpointCounts {
  int64_t storedCarries = 0, recomputedSteps = 0;
  int64_t automaticScans = 0;
  uint64_t residualBytes = 0, budgetBytes = 0;
};
CheckpointCounts checkpointCounts(const Func& f);

}  // namespace scn

namespace scn {

/// The Jacobians of `f`: g(params...) -> for each result o, for each parameter i where wrt[i],
/// d result_o / d param_i of shape result_o.shape ++ param_i.shape (o-major order). Forward
/// mode (jacfwd: one JVP per input element, batched) or reverse (jacrev: one VJP per output
/// element, batched).
FuncPtr jacobianFunc(const Func& f, const std::vector<bool>& wrt, bool forward, const VjpOptions& options = {});

}  // namespace scn
