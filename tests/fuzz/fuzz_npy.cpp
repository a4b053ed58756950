// Fuzz target: the .npy header parser and decoder, and the .npz reader, on arbitrary bytes.
//
// Properties: parseNpyHeader, decodeNpy and decodeNpz either return or throw a UserError with
// a file/data code (E0401 for an allocation that fails, E0514-E0523), never crash, read out of
// bounds, or allocate more than the input can describe (a header's data size is checked against
// the bytes present before anything is allocated). A header that parses describes data whose
// size agrees with its shape and dtype; a decoded array encodes and decodes to the same bytes.
// The first byte picks the reader, so one corpus reaches all three.
#include <cstdint>
#include <cstring>

#include "fuzz_util.hpp"
#include "lang/npy.hpp"
#include "lang/npz.hpp"

using namespace scn;

namespace {

void checkError(const UserError& e, std::string_view input) {
  const std::string& c = e.diag.code;
  bool fileCode = c == "E0401" || (c >= "E0514" && c <= "E0523");
  if (!fileCode || e.diag.message.empty()) fuzz::finding("unexpected diagnostic " + c + ": " + e.diag.message, input);
}

void checkRoundTrip(const Array& a, std::string_view input) {
  Array b = decodeNpy(encodeNpy(a), "again.npy", Span{});
  if (b.dtype != a.dtype || b.shape != a.shape || std::memcmp(a.raw(), b.raw(), a.bytes()) != 0)
    fuzz::finding("encodeNpy/decodeNpy does not round-trip", input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 64 * 1024) return -1;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0: {
        NpyHeader h = parseNpyHeader(input, "fuzz.npy", Span{});
        if (h.dataOffset > input.size()) fuzz::finding("the data offset is past the header", input);
        int64_t n = 1;
        for (int64_t d : h.shape) n = d == 0 ? 0 : n * d;  // parseNpyHeader checked for overflow
        if (static_cast<size_t>(n) * dtypeSize(h.dtype) != h.dataBytes) fuzz::finding("dataBytes disagrees with the shape", input);
        break;
      }
      case 1: checkRoundTrip(decodeNpy(input, "fuzz.npy", Span{}), input); break;
      default:
        for (const NamedArray& na : decodeNpz(input, "fuzz.npz", Span{})) checkRoundTrip(na.array, input);
    }
  } catch (const UserError& e) {
    checkError(e, input);
  }
  return 0;
}
