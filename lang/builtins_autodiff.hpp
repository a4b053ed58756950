// What the autodiff builtins (builtins_autodiff.cpp) share with checkpoint's
// (builtins_checkpoint.cpp).
#pragma once

#include "lang/builtin_args.hpp"

namespace scn {

/// The function value that applies the transformation `d` to `fn` when it is called.
Value functionValue(Value fn, AutodiffFn d, Span span);

// A function traced at the given arguments, with its arguments' leaves laid out by argument.
struct TracedCall {
  Evaluator::Traced t;
  std::vector<Flat> args;
  std::vector<AVal> leaves;      // captured values, then every argument's leaves
  std::vector<size_t> firstLeaf;  // per argument: its first leaf's index in `leaves`
};

/// Traces fn at abstract values of `args` (placeholders of their leaves). The arguments that
/// `keepStatic` marks (those the transformation does not transform) keep their static leaves.
TracedCall traceAt(Evaluator& ev, const Value& fn, const std::vector<Value>& args, const std::vector<Span>& spans,
                   Span span, const std::string& what, const std::vector<bool>& keepStatic = {});

/// A call of a function checkpoint returned (Note [Rematerialisation] in builtins_checkpoint.cpp).
Value applyCheckpoint(Evaluator& ev, const VmapFn& v, const AutodiffFn& d, CallArgs& c);

}  // namespace scn
