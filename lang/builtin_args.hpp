// Argument parsing for builtins: positional/keyword binding by a signature, with diagnostics.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.hpp"
#include "lang/eval.hpp"

namespace scn {

/// Binds a call's arguments to parameter names ("x", "axis=", ...): a name ending in '=' is
/// keyword-or-positional with a default; the rest are required. Unknown keywords and surplus
/// arguments are E0220/E0221 naming the builtin and its signature.
class Args {
 public:
  Args(Evaluator& ev, CallArgs& call, const char* fn, std::vector<std::string> names);

  bool has(size_t i) const { return values_[i].has_value(); }
  const Value& get(size_t i) const;
  Span span(size_t i) const { return spans_[i]; }
  Span callSpan() const { return call_.span; }

  AVal array(size_t i) const;
  /// Static integer argument; default when absent.
  int64_t integer(size_t i, std::optional<int64_t> dflt, StaticUse use = StaticUse::Other) const;
  bool boolean(size_t i, bool dflt) const;
  double number(size_t i, double dflt) const;
  /// The argument with a list (a static 1-d integer array, `[3, 4]`) turned into the tuple of
  /// its elements, as shapes and axes take them; any other value unchanged.
  Value sequence(size_t i) const;
  /// A static shape: an int, a tuple or a list of ints.
  Shape shape(size_t i) const;
  /// An axis argument: None/absent -> nullopt; int, tuple or list of ints.
  std::optional<std::vector<int64_t>> axes(size_t i) const;
  std::optional<DType> dtype(size_t i) const;
  const Value& callable(size_t i) const;
  const std::string& name(size_t i) const { return names_[i]; }

 private:
  Evaluator& ev_;
  CallArgs& call_;
  const char* fn_;
  std::vector<std::string> names_;
  std::vector<std::optional<Value>> values_;
  std::vector<Span> spans_;
};

inline Value arr(AVal a) { return Value::ofArray(std::move(a)); }

// ---- the builtin table (Note [Builtin records] in builtin_table.cpp) ----

/// The implementation of a builtin that is one op: `name` is a name of that op's surface
/// column in jit/ops.def, whose row gives its signature and description.
struct OpBuiltin {
  const char* name;
  BuiltinFn fn;
};
/// A builtin that is not one op, with its whole record: the signature starts with its name.
struct OtherBuiltin {
  const char* signature;
  const char* description;
  BuiltinFn fn;
};
/// The builtins one file defines.
struct BuiltinDefs {
  std::vector<OpBuiltin> ops;
  std::vector<OtherBuiltin> others;
};
BuiltinDefs creationBuiltins();   // builtins_creation.cpp
BuiltinDefs mathBuiltins();       // builtins_array.cpp
BuiltinDefs elementwiseMathBuiltins();  // builtins_math.cpp
BuiltinDefs complexBuiltins();    // builtins_complex.cpp
BuiltinDefs nnBuiltins();         // builtins_nn.cpp
BuiltinDefs shapeBuiltins();      // builtins_shape.cpp
BuiltinDefs checkBuiltins();      // builtins_checks.cpp
BuiltinDefs controlBuiltins();    // builtins_control.cpp
BuiltinDefs vmapBuiltins();       // builtins_vmap.cpp
BuiltinDefs assocScanBuiltins();  // builtins_assoc_scan.cpp
BuiltinDefs randomBuiltins();     // builtins_random.cpp
BuiltinDefs randomDrawBuiltins(); // builtins_random_draws.cpp
BuiltinDefs orderStatBuiltins();  // builtins_orderstats.cpp
BuiltinDefs ioBuiltins();         // builtins_io.cpp
BuiltinDefs printingBuiltins();   // builtins_printing.cpp
BuiltinDefs reductionBuiltins();  // builtins_reductions.cpp
BuiltinDefs buildingBuiltins();   // builtins_building.cpp
BuiltinDefs matrixBuiltins();     // builtins_matrix.cpp

/// The arrays of a tuple, or the rows of an array (a list literal `[a, b]` is one), for the
/// builtins that join arrays (concat, stack, hstack, ...): E0207 for anything else.
std::vector<AVal> arraySequence(Evaluator& ev, const Value& v, Span span, const char* fn);  // builtins_shape.cpp
/// A static integer tree (an int, a tuple, a list or an array) as its shape and its elements in
/// order; nullopt when it is ragged or not made of static integers (builtins_building.cpp).
std::optional<std::pair<Shape, std::vector<int64_t>>> staticIntGrid(const Value& v);
/// x reversed along `axes` (any order), keeping its weakness (builtins_building.cpp).
AVal reverseAxes(Tracer& t, const AVal& x, std::vector<int64_t> axes, Span span);
/// random.split(key, num=2) (builtins_random.cpp); `split` dispatches to it (Note [Two splits]).
Value splitKey(Evaluator& ev, CallArgs& c);
BuiltinDefs gatherBuiltins();     // builtins_gather.cpp
BuiltinDefs sortBuiltins();       // builtins_sort.cpp
BuiltinDefs laxBuiltins();        // builtins_lax.cpp
BuiltinDefs nonzeroBuiltins();    // builtins_nonzero.cpp
/// where(c) with one argument: nonzero(c) (builtins_nonzero.cpp).
Value whereNonzero(Evaluator& ev, CallArgs& c);
BuiltinDefs autodiffBuiltins();   // builtins_autodiff.cpp
BuiltinDefs checkpointBuiltins();  // builtins_checkpoint.cpp
BuiltinDefs linalgBuiltins();     // builtins_linalg.cpp
BuiltinDefs fftBuiltins();        // builtins_fft.cpp
BuiltinDefs contractBuiltins();   // builtins_contract.cpp
/// dot_general of a and b contracting axes ca with cb, batch axes ba with bb (builtins_contract.cpp).
AVal dotGeneral(ArrayOps& ops, const AVal& a, const AVal& b, std::vector<int64_t> ca, std::vector<int64_t> cb,
                std::vector<int64_t> ba, std::vector<int64_t> bb, Span span);
BuiltinDefs convBuiltins();       // builtins_conv.cpp
BuiltinDefs ufuncBuiltins();      // builtins_ufuncs.cpp
BuiltinDefs windowBuiltins();     // builtins_windows.cpp
/// The singular values (descending) of the matrices of the last two axes of x (builtins_linalg.cpp).
AVal singularValues(Evaluator& ev, const AVal& x, Span span);
BuiltinDefs distBuiltins();       // builtins_dist.cpp

// ---- named axes (builtins_dist.cpp; Note [Named axes] in jit/transform/batch_collectives.cpp) ----

/// The axis_name argument i of `fn`: "" when absent or None; E0311 when not a string.
std::string axisNameArgument(const Args& a, size_t i, const char* fn);
/// Binds a mapped axis (named or not) while its function is traced.
class AxisScope {
 public:
  AxisScope(Evaluator& ev, AxisFrame frame);
  ~AxisScope();
  AxisScope(const AxisScope&) = delete;
  AxisScope& operator=(const AxisScope&) = delete;

 private:
  Evaluator& ev_;
};
/// The lanes of a pmap's axis of `size` that this process holds: E0309 when the processes do
/// not divide it, E0312 inside another pmap.
int64_t pmapLocalLanes(Evaluator& ev, int64_t size, Span span);
/// This process's share (`lanes` along `axis`) of a pmap's argument.
AVal pmapShard(Evaluator& ev, const AVal& x, int64_t axis, int64_t lanes, Span span);
/// A pmap result (this process's lanes along `axis`) with every process's lanes, in order.
AVal pmapGatherResult(Evaluator& ev, const AVal& local, int64_t axis, Span span);

// ---- pytree arguments (the control-flow builtins) ----

/// A value flattened to its array leaves (each at its default dtype when weak) and structure.
struct Flat {
  std::vector<AVal> leaves;
  TreeDef def;
};
Flat flat(const Value& v, Span span, const char* what);
inline Value rebuild(const TreeDef& def, const std::vector<AVal>& leaves, size_t& pos) {
  return Evaluator::unflatten(def, leaves, pos);
}
inline std::vector<AVal> concatLeaves(std::vector<AVal> a, const std::vector<AVal>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
/// The type-only stand-in for a value a body will receive (traceBody reads type, weak, origin).
AVal placeholder(AVal x);
/// A copy of `f` with unused parameters of the types of `extra` inserted before parameter `at`
/// (the branches of a Cond all take every branch's captures; defined in builtins_vmap.cpp).
FuncPtr withUnusedParams(const Func& f, size_t at, const std::vector<AVal>& extra);

}  // namespace scn
