// Large host blocks for the CPU backend's temporaries and results: huge-page backed and
// recycled between runs (Note [Huge-page temporaries], Note [Recycled blocks] in host_blocks.cpp).
#pragma once

#include <cstddef>
#include <memory>

#include "jit/array.hpp"

namespace scn::cpu {

/// A buffer of `bytes` for one run. Small buffers are plain heap buffers; blocks of 4 MiB and
/// more are 2 MiB-aligned huge-page blocks, taken from the recycled ones when one of the same
/// rounded size is free. Fails with E0401 when the machine has no memory left.
std::shared_ptr<Buffer> allocateRunBuffer(size_t bytes);

/// The most bytes kept in recycled blocks (0 turns recycling off and frees what is kept).
/// Process-wide; the default is kDefaultRecycleLimit.
void setRecycleLimit(size_t bytes);
constexpr size_t kDefaultRecycleLimit = size_t(256) << 20;

/// Bytes now held in recycled blocks (memory the process keeps without an array using it).
size_t recycledBytes();

}  // namespace scn::cpu
