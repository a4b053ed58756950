// Internal to the batching transformation: the state its rules share (Ctx), the IR helpers they
// use (move or broadcast the batch dimension, inline a function) and the rules of each file.
#pragma once

#include <optional>
#include <vector>

#include "jit/batch.hpp"
#include "jit/ir.hpp"

namespace scn::batching {

/// Where a value carries the batch dimension; nullopt: the value is the same for every lane.
using BDim = std::optional<int>;

/// A value of the function being built: its variable there and where it is batched.
struct BVal {
  int var = -1;
  BDim dim;
};

/// `t` with a batch dimension of size n inserted at `dim` (unchanged when dim is nullopt).
Type batchedType(const Type& t, BDim dim, int64_t n);
/// `t` with the dimension `dim` removed (unchanged when dim is nullopt).
Type unbatchedType(const Type& t, BDim dim);

/// The function being built, the lane count, and the span new equations carry (the span of the
/// original equation they implement). Every new equation goes through emit(), so its output
/// types come from inferTypes.
struct Ctx {
  Func& dst;
  int64_t n;
  Span span;
  const NamedAxis& axis;  // the axis being batched, which its collectives name

  const Type& type(int var) const { return dst.type(var); }
  /// Appends op[attrs, subs](inputs) to dst; an internal error if inferTypes rejects it.
  std::vector<int> emit(Op op, std::vector<int> inputs, Attrs attrs = {},
                        std::vector<FuncPtr> subs = {});
  int emit1(Op op, std::vector<int> inputs, Attrs attrs = {}, std::vector<FuncPtr> subs = {});
  /// The batched value `v` with its batch dimension moved to axis `to` (a transpose if needed).
  int moveTo(BVal v, int to);
  /// `v` batched at axis `to`: moved there, or broadcast along a new axis when unbatched.
  int materialize(BVal v, int to);
  /// An unbatched `var` broadcast to carry the batch dimension at axis `at`.
  int broadcastBatch(int var, int at);
  /// `var` broadcast into `shape`, its dimension i going to axes[i].
  int broadcastTo(int var, const Shape& shape, std::vector<int64_t> axes);
  /// A constant scalar of `dtype` holding `value`.
  int scalar(DType dtype, int64_t value);
};

/// Copies the equations of `callee` into `dst` with its parameters bound to `args`; returns the
/// variables of dst that hold callee's results. Sub-functions are shared, spans kept.
std::vector<int> inlineFunc(Func& dst, const Func& callee, const std::vector<int>& args);

/// A batched sub-function and where each of its results carries the batch dimension.
struct BatchedFunc {
  FuncPtr func;
  std::vector<BDim> outDims;
};

/// Batches `f` with parameter i batched at inDims[i]. want[j] (an axis) forces result j to be
/// batched there, broadcasting it if the rules left it unbatched; nullopt leaves result j where
/// the rules put it (outDims says where). Equations added for `want` carry `span`.
BatchedFunc batchSubFunc(const Func& f, const std::vector<BDim>& inDims, int64_t n,
                         const std::vector<BDim>& want, Span span, const NamedAxis& axis);

/// The batching rule of one equation: `in` are its inputs in the function being built; returns
/// its outputs there. Picks the rule by the op's category.
std::vector<BVal> batchEqn(Ctx& c, const Eqn& e, const std::vector<BVal>& in);

// Rules of the collectives (batch_collectives.cpp, Note [Named axes]).
/// Whether `e` is, or has in a sub-function, a collective over the axis being batched: such an
/// equation needs its batching rule even when none of its inputs is batched.
bool mentionsAxis(const Eqn& e, const std::string& name);
std::vector<BVal> batchCollective(Ctx& c, const Eqn& e, const std::vector<BVal>& in);
std::vector<BVal> batchProcessCollective(Ctx& c, const Eqn& e, const std::vector<BVal>& in);

// Rules of the control-flow ops and the lane loop (batch_control.cpp).
std::vector<BVal> batchScan(Ctx& c, const Eqn& e, const std::vector<BVal>& in);
std::vector<BVal> batchWhile(Ctx& c, const Eqn& e, const std::vector<BVal>& in);
std::vector<BVal> batchCond(Ctx& c, const Eqn& e, const std::vector<BVal>& in);
/// A call of a custom_jvp / custom_vjp function: the branch and its rules batched together
/// (Note [Custom rules] in custom_rules.cpp).
std::vector<BVal> batchCustom(Ctx& c, const Eqn& e, const std::vector<BVal>& in);
/// Note [Row reads as gathers] (batch_rules.cpp): the k >= 1 leading axes of `operand` that a
/// dynamic_slice of sizes `sizes` with starts of types `starts` reads one index of (the other axes
/// whole), or 0 when the slice is not such a row read (or a start is not a signed integer).
size_t rowReadAxes(const Type& operand, const Shape& sizes, const std::vector<Type>& starts);

/// Runs `e` once per lane inside a scan over the lanes (no carry): batched inputs become the
/// scanned xs, unbatched ones its consts; every output comes back batched at 0. See
/// Note [Batched indices] in batch.cpp.
std::vector<BVal> batchLanes(Ctx& c, const Eqn& e, const std::vector<BVal>& in);

}  // namespace scn::batching
