// jit/scalar/scalar.inc as the backends embed it (generated at build time, cmake/embed_file.cmake).
#pragma once

#include <string_view>

namespace scn {

/// The text of jit/scalar/scalar.inc (the CUDA prelude embeds it).
const char* scalarSourceText();
/// The texts of jit/scalar/complex.inc and jit/scalar/complex_ops.inc (the prelude embeds them
/// after defining the structs c64 and c128: Note [Complex numbers]).
const char* complexSourceText();
const char* complexOpsSourceText();
/// The text of jit/scalar/lowp.inc (after defining the structs bf16 and f16 and the bit casts).
const char* lowPrecisionSourceText();

/// jit/scalar/scalar_bitcode.cpp compiled to LLVM bitcode by clang-19: the scalar functions as
/// scn_<op>_<dtype> (Note [Scalar bitcode] in jit/cpu/llvm_scalar.cpp). Defined in scn_cpu.
std::string_view scalarBitcode();

}  // namespace scn
