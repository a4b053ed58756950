// The reference kernel of sort: the operands reordered together along one axis by a stable sort
// of the first. See Note [Sorting].
#include <algorithm>
#include <cstring>
#include <numeric>

#include "jit/interp_kernels.hpp"
#include "jit/sort_keys.hpp"

// Note [Sorting]
// One IR op, `sort`, carries the whole family: its k operands of one shape are reordered together
// along attrs.axes[0] by the first (the keys), ascending and stable, in JAX's total order
// (jit/sort_keys.hpp): -0.0 equals 0.0, every NaN equals every other and follows +inf, so NaNs
// end up last in the order they came. The rest is the tracer's (lang/builtins_sort.cpp), with
// jax.numpy's definitions:
//   argsort(x)               = sort(x, iota)[1]
//   sort(x, descending)      = reverse(sort(x))             (ties come out reversed, as in JAX)
//   argsort(x, descending)   = reverse(sort(reverse(x), reverse(iota))[1])   (ties in order)
//   top_k(x, k)              = the first k of the descending argsort (ties by lower index), in
//                              lax.top_k's IEEE totalOrder (-NaN first, -0.0 < 0.0): for floats
//                              the keys are sorted by value and then by their part of totalOrder
//   unique(x, size)          = the sorted x where it differs from its predecessor, moved to the
//                              front by a second (stable) sort on the flag
//   searchsorted(a, v, side) = the rank of each v among concat(v, a) (left) or concat(a, v)
//                              (right) minus its rank among v: JAX's method='sort'
// A rank is argsort(argsort(x)), the inverse permutation, so no scatter is needed.
// The backends compute a sort as a permutation of each row followed by one gather kernel of all
// operands (jit/kernel/lower_sort.cpp): the CPU's permutation is a Sort step, a parallel LSD
// radix sort on orderedKey (jit/cpu/sort.cpp); the CUDA backends (which run generated kernels
// only) get a bitonic network of kernels over (key, index) pairs, stable because the index
// breaks ties. The interpreter here is std::stable_sort over orderedKey.

namespace scn::interp {

std::vector<Array> sortOp(const std::vector<Array>& in, const Attrs& attrs) {
  const Shape& shape = in[0].shape;
  int64_t axis = attrs.axes[0], n = shape[axis], inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  int64_t outer = n == 0 || inner == 0 ? 0 : in[0].size() / (n * inner);
  std::vector<Array> out;
  for (const Array& a : in) out.emplace_back(a.dtype, a.shape);
  std::vector<int64_t> perm(n);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * n * inner + i;
      std::iota(perm.begin(), perm.end(), 0);
      dispatchDType(in[0].dtype, [&]<typename T>() {
        const T* keys = in[0].data<T>() + base;
        std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
          return orderedKey(keys[a * inner]) < orderedKey(keys[b * inner]);
        });
      });
      for (size_t m = 0; m < in.size(); ++m) {
        size_t w = dtypeSize(in[m].dtype);
        const char* src = static_cast<const char*>(in[m].raw());
        char* dst = static_cast<char*>(out[m].raw());
        for (int64_t j = 0; j < n; ++j)
          std::memcpy(dst + (base + j * inner) * w, src + (base + perm[j] * inner) * w, w);
      }
    }
  return out;
}

}  // namespace scn::interp
