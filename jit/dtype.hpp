// Element types of arrays: names, sizes and classes. Promotion lives in lang/ (it is surface semantics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace scn {

enum class DType : uint8_t { Bool, I32, I64, U32, U64, F32, F64 };

constexpr DType kAllDTypes[] = {DType::Bool, DType::I32, DType::I64, DType::U32,
                                DType::U64,  DType::F32, DType::F64};

/// "bool", "i32", ... as written in scn source.
const char* dtypeName(DType t);
std::optional<DType> dtypeFromName(std::string_view name);
size_t dtypeSize(DType t);
inline bool isFloat(DType t) { return t == DType::F32 || t == DType::F64; }
inline bool isSignedInt(DType t) { return t == DType::I32 || t == DType::I64; }
inline bool isUnsignedInt(DType t) { return t == DType::U32 || t == DType::U64; }
inline bool isInteger(DType t) { return isSignedInt(t) || isUnsignedInt(t); }

/// Calls f.template operator()<T>() with the C++ type of `t` (bool, int32_t, ..., double).
template <typename F>
decltype(auto) dispatchDType(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f.template operator()<bool>();
    case DType::I32: return f.template operator()<int32_t>();
    case DType::I64: return f.template operator()<int64_t>();
    case DType::U32: return f.template operator()<uint32_t>();
    case DType::U64: return f.template operator()<uint64_t>();
    case DType::F32: return f.template operator()<float>();
    case DType::F64: return f.template operator()<double>();
  }
  return f.template operator()<float>();
}

}  // namespace scn
