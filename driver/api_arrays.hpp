// Host arrays crossing the embedding API: views in (borrowed when the layout allows, else
// copied), engine arrays out as HostArrays. Used by driver/api.cpp only.
#pragma once

#include <memory>
#include <vector>

#include "jit/array.hpp"
#include "scn/scn.hpp"

namespace scn {

/// Turns input `i` into an Array: borrowed when contiguous, aligned and allowed, else copied
/// (adding its bytes to `copied`). Bad views fail with E0601 or E0402.
Array inputArray(const ArrayView& v, size_t i, bool mayBorrow, std::vector<std::weak_ptr<Buffer>>& borrowed,
                 size_t& copied);

/// A result leaf as a HostArray: shares the engine's buffer, or copies it if it is a borrowed
/// input (`fn f(x) = x`) that the host may free after the call.
HostArray toHost(const Array& a, const std::vector<std::weak_ptr<Buffer>>& borrowed);

}  // namespace scn
