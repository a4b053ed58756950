// vmap as an IR-to-IR transformation: batching rules by op category, plus rules for the
// irregular ops (dot_general, scan, while, cond, dynamic slices).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "jit/collectives.hpp"
#include "jit/ir.hpp"

namespace scn {

/// The name of the axis a vmap or pmap maps, which its collectives refer to (Note [Named
/// axes] in jit/transform/batch_collectives.cpp). Without a group it is a vmap: every lane is
/// here. With one it is this process's share of a pmap: the axis has axisSize *
/// group->processCount() lanes, this process holds those from axisSize * processIndex() on,
/// and each collective combines the local lanes and then the processes.
struct NamedAxis {
  std::string name;  // "": the axis has no name (no collective can refer to it)
  std::shared_ptr<Collectives> group;
};

/// Returns a function that computes `f` for each of `axisSize` lanes at once.
/// inAxes[i]: where parameter i of the result carries the batch dimension (nullopt: the
/// parameter is shared by all lanes and has f's parameter type). Axes are non-negative here.
/// outAxes[j]: where result j carries the batch dimension (an unbatched result is broadcast);
/// nullopt requires the result to be unbatched (same for every lane).
/// User errors (docs/errors/vmap.md), all at `span`: E0301 out_axes=None for a batched result;
/// E0305 / E0306 an in / out axis out of range (the vmap builtin range-checks axes first, so
/// these only guard other callers). Mismatched counts of axes are the caller's bug (internal
/// errors). Equations keep the spans of the equations they come from.
FuncPtr batchFunc(const Func& f, const std::vector<std::optional<int>>& inAxes, int64_t axisSize,
                  const std::vector<std::optional<int>>& outAxes, Span span, const NamedAxis& axis = {});

}  // namespace scn
