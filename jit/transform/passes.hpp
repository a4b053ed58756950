// IR-to-IR optimisation passes and the pipeline that runs them before a backend compiles a Func.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "jit/ir.hpp"

namespace scn {

struct PipelineOptions;

/// A named stage of the pipeline. Its name is also the value of --print-after=<name>.
struct Pass {
  const char* name;
  const char* description;
  /// Rewrites `f` in place (its sub-functions too); returns whether anything changed. Null for
  /// the last stage, `lower` (kLowerStage), which the backend runs when it compiles.
  bool (*run)(Func& f, const PipelineOptions& opts);
  /// The option that turns the pass on, or null: it always runs.
  bool PipelineOptions::*when = nullptr;
};

/// The name of the pipeline's last stage: IR -> the kernel IR of the backend in use
/// (kir::lowerStage; Note [The lower stage] in jit/kernel/lower.cpp).
inline constexpr const char* kLowerStage = "lower";

/// The stages, in pipeline order (see passes.cpp for why the order matters): the IR passes,
/// then `lower`.
const std::vector<Pass>& pipelinePasses();

struct PipelineOptions {
  /// A pass name, or "all": the IR is printed after it (or "unchanged").
  std::string printAfter;
  std::function<void(const std::string&)> print;
  /// The function being compiled, as the heading of what is printed names it ("f(f32[4])"):
  /// a program compiles many functions, and each prints its own stages.
  std::string label;
  /// Verify after every pass (tests and debug builds); a failure is an internal error.
  bool verifyEach = true;
  /// associative_scan ops become odd-even rounds of array ops, for a backend that prefers log
  /// depth to a serial or blocked scan (Backend::scansWithCombiners).
  bool expandAssociativeScans = false;
  /// bf16 products stay bf16 for the backend's GEMM (Backend::multipliesBf16, WidenOptions).
  bool keepBf16Products = false;
};

/// Runs every IR pass on a deep copy of `f` and returns the optimised copy, the input of the
/// `lower` stage (which the backend runs; the caller prints after it).
FuncPtr runPipeline(const Func& f, const PipelineOptions& opts);

/// "// after dce of f(f32[4])": the first line --print-after prints for a stage.
std::string printAfterHeading(const std::string& stage, const std::string& label);

/// Takes the products of scan bodies that read xs but not the carry out of the loop, batched
/// over the steps (Note [Hoisted scan products] in hoist_scan_products.cpp); whether any moved.
bool hoistScanProducts(Func& f);

/// Sums of zero-padded blocks that do not overlap become the blocks written into one array (their
/// concat when they tile it; Note [Sums of disjoint blocks] in disjoint_blocks.cpp); whether any did.
bool joinDisjointBlocks(Func& f);

/// A deep copy: sub-functions are copied too, so passes never change a shared body.
FuncPtr cloneFunc(const Func& f);

/// The variables of f that the values `roots` depend on (roots included).
std::vector<bool> neededBy(const Func& f, const std::vector<int>& roots);

}  // namespace scn
