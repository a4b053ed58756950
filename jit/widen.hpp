// bf16 / f16 computed in f32: the rewrite every backend runs before it computes (Note
// [Low-precision floats] in jit/scalar/lowp.inc).
#pragma once

#include <vector>

#include "jit/ir.hpp"

namespace scn {

/// What the backend computes on 16-bit values itself, so that the rewrite leaves it alone.
struct WidenOptions {
  /// dot_general of bf16 operands to a bf16 result stays: the backend's GEMM multiplies bf16
  /// with f32 accumulation and rounds once, as the widened form would (the CPU's oneDNN path,
  /// Note [bf16 products] in jit/cpu/gemm_bf16.cpp).
  bool keepBf16Products = false;
};

/// Whether an eqn of `op` with these operand and result types computes on bf16 / f16 values, so
/// that widenLowPrecision rewrites it: every op but convert and the control flow ops (scan,
/// while, cond: their carries stay 16-bit and their bodies are rewritten instead), and the
/// products `opts` keeps.
bool widensLowPrecision(Op op, const std::vector<Type>& in, const std::vector<Type>& out,
                        const WidenOptions& opts = {});

/// Rewrites every such eqn of f and of its bodies as converts of its bf16 / f16 operands to f32,
/// the eqn on f32 values, and converts of its results back, so that each op rounds once to its
/// format. Returns whether anything changed. Bodies are changed in place: f must own them
/// (the pipeline runs on a deep copy).
bool widenLowPrecision(Func& f, const WidenOptions& opts = {});

/// Whether some eqn of f or of its bodies is one widenLowPrecision rewrites.
bool needsWidening(const Func& f, const WidenOptions& opts = {});

/// A deep copy of f with widenLowPrecision applied.
FuncPtr widenedCopy(const Func& f, const WidenOptions& opts = {});

}  // namespace scn
