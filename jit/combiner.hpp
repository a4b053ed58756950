// associative_scan's combiner in scalar form (Note [Associative scans] in combiner.cpp).
#pragma once

#include <optional>
#include <string>

#include "jit/ir.hpp"

namespace scn {

/// The scalar form of a combiner the tracer traced on slices of k operands: a Func
/// (T1[]..Tk[], T1[]..Tk[]) -> (T1[]..Tk[]) with the same equations on rank-0 values, or null when
/// the traced function is not elementwise position by position (it transposes, reduces,
/// indexes, loops, or captures traced values).
FuncPtr scalarCombiner(const Func& traced);

/// The cumulative op a scalar combiner is (cumsum for `add(a, b)`, cumprod, cummax, cummin),
/// or nullopt.
std::optional<Op> cumulativeOpOf(const Func& scalarCombiner);

/// "" when `f` is a scalar combiner of operands of dtypes `ts` (parameters T1[]..Tk[] twice,
/// results T1[]..Tk[], elementwise equations and rank-0 constants only); else what is wrong
/// (associative_scan's shape rule).
std::string checkScalarCombiner(const Func& f, const std::vector<DType>& ts);

}  // namespace scn
