// Reference kernels of the interpreter, one per op category (private to jit/interp*.cpp).
#pragma once

#include <vector>

#include "jit/ir.hpp"

namespace scn::interp {

// Every kernel takes the eqn, its concrete inputs (already checked by inferTypes) and the output
// type(s) inferTypes gave, and returns fresh arrays (or arrays sharing an input's buffer when the
// bytes are unchanged: arrays are immutable once built).

// ---- elementwise (interp_elementwise.cpp), scalar semantics from jit/scalar.hpp ----
Array unaryOp(Op op, const Array& x, const Type& out);
Array predicateOp(Op op, const Array& x, const Type& out);
Array binaryOp(Op op, const Array& a, const Array& b, const Type& out);
Array compareOp(Op op, const Array& a, const Array& b, const Type& out);
Array selectOp(const Array& pred, const Array& a, const Array& b, const Type& out);
Array convertOp(const Array& x, const Type& out);
/// The ComplexPart category: real, imag, conj, abs, angle of a complex x; complex(re, im).
Array complexPartOp(Op op, const std::vector<Array>& in, const Type& out);

// ---- reductions and scans along axes (interp_reduce.cpp) ----
Array iotaOp(const Attrs& attrs, const Type& out);
Array reduceOp(Op op, const Array& x, const Attrs& attrs, const Type& out);
Array argReduceOp(Op op, const Array& x, const Attrs& attrs, const Type& out);
Array cumulativeOp(Op op, const Array& x, const Attrs& attrs, const Type& out);
/// associative_scan of k operands: a left fold with the scalar combiner `combiner` (Note
/// [Associative scans]).
std::vector<Array> assocScanOp(const Func& combiner, const std::vector<Array>& xs, const Attrs& attrs);
Array dotGeneralOp(const Array& lhs, const Array& rhs, const Attrs& attrs, const Type& out);

// ---- data movement (interp_structural.cpp) ----
Array broadcastInDimOp(const Array& x, const Attrs& attrs, const Type& out);
Array reshapeOp(const Array& x, const Type& out);
Array transposeOp(const Array& x, const Attrs& attrs, const Type& out);
Array concatOp(const std::vector<Array>& xs, const Attrs& attrs, const Type& out);
Array sliceOp(const Array& x, const Attrs& attrs, const Type& out);
Array reverseOp(const Array& x, const Attrs& attrs, const Type& out);
Array dynamicSliceOp(const std::vector<Array>& in, const Type& out);
Array dynamicUpdateSliceOp(const std::vector<Array>& in, const Type& out);

// ---- reads and writes at computed positions (interp_gather.cpp) ----
Array gatherOp(const std::vector<Array>& in, const Type& out);
/// A Scatter op (its combiner from the op table) of in = operand, updates, indices...
Array scatterOp(Op op, const std::vector<Array>& in, const Type& out);

// ---- sorting (interp_sort.cpp, Note [Sorting]) ----
/// The operands reordered together along attrs.axes[0] by a stable sort of the first.
std::vector<Array> sortOp(const std::vector<Array>& in, const Attrs& attrs);
/// A process collective through e.attrs.group (interp_collectives.cpp); its failure is a
/// diagnostic at e.span.
Array processCollectiveOp(const Eqn& e, const Array& x, const Type& out);

// ---- linear algebra (jit/linalg.cpp, Note [Linear algebra ops] in jit/linalg.hpp) ----
/// A Linalg op by the reference implementation.
std::vector<Array> linalgOp(Op op, const std::vector<Array>& in, const Attrs& attrs, const std::vector<Type>& out);

// ---- index helpers shared by the kernels ----

/// Row-major strides, in elements, of a shape.
std::vector<int64_t> stridesOf(const Shape& shape);

/// Calls f(index) for every multi-index of `shape` in row-major order (once for a scalar, never
/// for an empty shape).
template <typename F>
void forEachIndex(const Shape& shape, F&& f) {
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  while (true) {
    f(static_cast<const std::vector<int64_t>&>(idx));
    size_t d = shape.size();
    while (d > 0) {
      --d;
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (shape.empty()) return;
  }
}

/// Reads an integer scalar start index (any integer dtype) as int64, saturating huge unsigned
/// values, and clamps it into [0, hi].
int64_t clampedStart(const Array& index, int64_t hi);

}  // namespace scn::interp
