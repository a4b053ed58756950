// The order sort uses (Note [Sorting] in jit/interp_sort.cpp) as unsigned integers: the
// interpreter, the CPU's radix sort and the tests compare keys through orderedKey.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace scn {

/// The unsigned type orderedKey maps T to: as wide as T (bool: 8 bits).
template <typename T>
using OrderedKey = std::conditional_t<(sizeof(T) > 4), uint64_t, std::conditional_t<(sizeof(T) > 1), uint32_t, uint8_t>>;

/// An unsigned integer whose order is sort's order of x: integers as they compare, floats from
/// -inf to +inf with -0.0 equal to 0.0 and every NaN equal and after +inf (JAX's total order).
template <typename T>
inline OrderedKey<T> orderedKey(T x) {
  using K = OrderedKey<T>;
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) x = static_cast<T>(__builtin_nan(""));  // one NaN, with its sign bit clear
    if (x == 0) x = 0;                                  // -0.0 -> +0.0
    K bits;
    std::memcpy(&bits, &x, sizeof bits);
    constexpr K sign = K(1) << (8 * sizeof(K) - 1);
    return (bits & sign) ? K(~bits) : K(bits | sign);
  } else if constexpr (std::is_same_v<T, bool>) {
    return x ? 1 : 0;
  } else if constexpr (std::is_signed_v<T>) {
    constexpr K sign = K(1) << (8 * sizeof(K) - 1);
    return static_cast<K>(x) ^ sign;
  } else {
    return static_cast<K>(x);
  }
}

}  // namespace scn
