// dtype names and sizes.
#include "jit/dtype.hpp"

#include "base/diagnostics.hpp"

namespace scn {

const char* dtypeName(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::U32: return "u32";
    case DType::U64: return "u64";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    case DType::C64: return "c64";
    case DType::C128: return "c128";
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
  }
  return "?";
}

std::optional<DType> dtypeFromName(std::string_view name) {
  for (DType t : kAllDTypes)
    if (name == dtypeName(t)) return t;
  return std::nullopt;
}

std::string dtypeNameList() {
  std::string out;
  for (DType t : kAllDTypes) out += (out.empty() ? "" : ", ") + std::string(dtypeName(t));
  return out;
}

size_t dtypeSize(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::BF16: case DType::F16: return 2;
    case DType::I32: case DType::U32: case DType::F32: return 4;
    case DType::I64: case DType::U64: case DType::F64: case DType::C64: return 8;
    case DType::C128: return 16;
  }
  return 4;
}

void complexNotDispatched(DType t) {
  internalError(std::string("a real-only dispatch reached ") + dtypeName(t) +
                " (Note [Complex numbers] in jit/scalar/complex.inc)");
}

void lowPrecisionNotDispatched(DType t) {
  internalError(std::string("a dispatch without low-precision floats reached ") + dtypeName(t) +
                " (Note [Low-precision floats] in jit/scalar/lowp.inc)");
}

}  // namespace scn
