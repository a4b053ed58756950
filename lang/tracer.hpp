// Tracing: the stack of functions being built, the one op-application choke point (folding
// static values, emitting traced ones) and the one place static values are demanded.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "jit/backend.hpp"
#include "lang/value.hpp"

namespace scn {

/// One function under construction. Values of enclosing traces used inside it are captured as
/// extra parameters (closure conversion), recorded in `captured`.
class Trace {
 public:
  Trace(Trace* parent, std::string name);

  Trace* parent() const { return parent_; }
  Func& func() { return *func_; }
  FuncPtr funcPtr() { return func_; }

  /// The id, in this trace, of traced value `v` (capturing it from an enclosing trace if needed).
  int localVar(const AVal& v);
  /// A fresh parameter of this trace.
  AVal newParam(const Type& t, bool weak, std::shared_ptr<const Origin> origin);

  /// Values of the parent trace (or static values) captured by this trace, in parameter order.
  const std::vector<AVal>& captured() const { return captured_; }
  const std::vector<int>& captureParams() const { return captureParams_; }
  /// Places the capture parameters first, then the explicit ones (the control-flow op layout).
  void finish(const std::vector<int>& explicitParams, const std::vector<int>& results);

  std::map<const void*, int> constants;  // materialised static arrays, by buffer

 private:
  Trace* parent_;
  FuncPtr func_;
  std::vector<AVal> captured_;
  std::vector<int> captureParams_;
  std::map<std::pair<Trace*, int>, int> captureMap_;
};

/// What a static value is needed for; selects the wording and the fix in concretization errors.
enum class StaticUse {
  ScanLength, ForBound, Shape, Axis, StaticParam, IfCondition, SliceBound, HostConversion,
  Index, TupleIndex, TupleComparison, BoolMask, ResultSize, Other,
};

/// Owns the trace stack and applies ops. Lives inside a Context; no global state.
class Tracer {
 public:
  using Runner = std::function<std::vector<Array>(const FuncPtr&, const std::vector<Array>&)>;

  /// `run` executes a whole Func on concrete arrays (the selected backend).
  explicit Tracer(Runner run) : run_(std::move(run)) {}

  Trace* current() const { return current_; }
  bool tracing() const { return current_ != nullptr; }

  /// Applies `op`: folds it when every input is static (top level, or small values inside a
  /// trace), otherwise emits an equation into the current trace; an all-weak op materialises its
  /// static weak operands at their default dtype first (Note [Staging weak values]). Shape
  /// errors become E0201 diagnostics at `span`.
  std::vector<AVal> apply(Op op, const std::vector<AVal>& inputs, const Attrs& attrs, Span span,
                          const std::vector<FuncPtr>& subs = {});
  AVal apply1(Op op, const std::vector<AVal>& in, const Attrs& attrs, Span span) {
    return apply(op, in, attrs, span).at(0);
  }

  /// Runs `body` with a new trace pushed; the trace is popped (also on error).
  template <typename F>
  void withTrace(Trace& t, F&& body) {
    Trace* saved = current_;
    current_ = &t;
    try {
      body();
    } catch (...) {
      current_ = saved;
      throw;
    }
    current_ = saved;
  }

  /// Calls `f` on `args`: inlines it into the current trace, or runs it when all are static
  /// and no trace is active.
  std::vector<AVal> call(const FuncPtr& f, const std::vector<AVal>& args, Span span);

  /// The id in the current trace of any array value (materialising static ones as constants).
  int varOf(const AVal& v);

  Runner& runner() { return run_; }

 private:
  std::vector<AVal> fold(const Eqn& e, const std::vector<AVal>& in, bool weak);
  std::vector<AVal> emit(Eqn e, const std::vector<Type>& outTypes, const std::vector<AVal>& in,
                         bool weak);

  Trace* current_ = nullptr;
  Runner run_;
};

/// The only way to demand a static value: returns the concrete array (a cheap shared copy), or raises the
/// concretization error (E0101) at `use`, naming the traced origin and the fix for `what`.
Array concreteOrError(const AVal& v, StaticUse what, Span use, const std::string& context);

/// A static integer (shape, axis, length...): concreteOrError, then checks it is an integer scalar.
int64_t staticInt(const AVal& v, StaticUse what, Span use, const std::string& context);

}  // namespace scn
