// The .npz format: zip archives of .npy members (PKWARE APPNOTE 6.3, the parts NumPy writes).
#include "lang/npz.hpp"

#include <cstring>
#include <limits>
#include <zlib.h>

#include "lang/npy.hpp"

namespace scn {

namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr uint16_t kStored = 0, kDeflated = 8;
/// Deflate cannot expand more than about 1032:1; a member that claims more is lying.
constexpr uint64_t kMaxDeflateRatio = 1032;

[[noreturn]] void broken(const std::string& name, Span span, const std::string& what) {
  fail("E0522", span, "cannot load `" + name + "`: " + what, "write it with numpy.savez or numpy.savez_compressed");
}

uint64_t le(std::string_view b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<size_t>(i)]);
  return v;
}

struct Member {
  std::string file;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressed = 0, size = 0, localOffset = 0;
};

/// Reads a zip64 extended-information extra field over the fields that are 0xFFFFFFFF.
void applyZip64(std::string_view extra, Member& m, bool sizeMax, bool compMax, bool offMax) {
  for (size_t at = 0; at + 4 <= extra.size();) {
    uint64_t id = le(extra, at, 2), len = le(extra, at + 2, 2);
    if (at + 4 + len > extra.size()) return;
    if (id == 1) {
      size_t p = at + 4, end = p + len;
      if (sizeMax && p + 8 <= end) m.size = le(extra, p, 8), p += 8;
      if (compMax && p + 8 <= end) m.compressed = le(extra, p, 8), p += 8;
      if (offMax && p + 8 <= end) m.localOffset = le(extra, p, 8);
    }
    at += 4 + len;
  }
}

std::vector<Member> centralDirectory(std::string_view b, const std::string& name, Span span) {
  if (b.size() < 22) broken(name, span, "not a zip archive (too short)");
  // The end record is in the last 64 KiB + 22 bytes (its comment is at most 65535 bytes).
  size_t end = std::string_view::npos;
  size_t lowest = b.size() > 22 + 65535 ? b.size() - 22 - 65535 : 0;
  for (size_t at = b.size() - 22 + 1; at-- > lowest;)
    if (le(b, at, 4) == kEndSig) {
      end = at;
      break;
    }
  if (end == std::string_view::npos) broken(name, span, "not a zip archive (no end of central directory record)");
  uint64_t count = le(b, end + 10, 2), dirOffset = le(b, end + 16, 4);
  if ((count == 0xffff || dirOffset == 0xffffffff) && end >= 20 && le(b, end - 20, 4) == kZip64LocatorSig) {
    uint64_t rec = le(b, end - 20 + 8, 8);
    if (rec > b.size() - 56 || le(b, rec, 4) != kZip64EndSig) broken(name, span, "its zip64 end record is corrupt");
    count = le(b, rec + 32, 8);
    dirOffset = le(b, rec + 48, 8);
  }
  std::vector<Member> members;
  size_t at = dirOffset;
  for (uint64_t i = 0; i < count; ++i) {
    if (at > b.size() || b.size() - at < 46 || le(b, at, 4) != kCentralSig)
      broken(name, span, "its central directory is corrupt (entry " + std::to_string(i) + ")");
    Member m;
    m.method = static_cast<uint16_t>(le(b, at + 10, 2));
    m.crc = static_cast<uint32_t>(le(b, at + 16, 4));
    m.compressed = le(b, at + 20, 4);
    m.size = le(b, at + 24, 4);
    size_t nameLen = le(b, at + 28, 2), extraLen = le(b, at + 30, 2), commentLen = le(b, at + 32, 2);
    m.localOffset = le(b, at + 42, 4);
    if (b.size() - at - 46 < nameLen + extraLen + commentLen) broken(name, span, "its central directory is truncated");
    m.file = std::string(b.substr(at + 46, nameLen));
    applyZip64(b.substr(at + 46 + nameLen, extraLen), m, m.size == 0xffffffff, m.compressed == 0xffffffff,
               m.localOffset == 0xffffffff);
    members.push_back(std::move(m));
    at += 46 + nameLen + extraLen + commentLen;
  }
  return members;
}

std::string inflateMember(std::string_view data, const Member& m, const std::string& label, const std::string& name, Span span) {
  if (m.method == kStored) {
    if (m.size != m.compressed) broken(name, span, "member `" + m.file + "` is stored but its sizes differ");
    return std::string(data);
  }
  if (m.method != kDeflated)
    broken(name, span, "member `" + m.file + "` uses compression method " + std::to_string(m.method) + " (only stored and deflate are read)");
  if (m.size > m.compressed * kMaxDeflateRatio + 1024)
    broken(name, span, "member `" + m.file + "` claims " + std::to_string(m.size) + " bytes from " +
                           std::to_string(m.compressed) + " compressed, more than deflate can expand");
  std::string out;
  try {
    out.resize(m.size);
  } catch (const std::bad_alloc&) {
    fail("E0401", span, "cannot allocate " + std::to_string(m.size) + " bytes for " + label);
  }
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) broken(name, span, "zlib could not start");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&z, Z_FINISH);
  uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != m.size) broken(name, span, "member `" + m.file + "` does not inflate to its stated size");
  return out;
}

}  // namespace

std::vector<NamedArray> decodeNpz(std::string_view b, const std::string& name, Span span) {
  std::vector<NamedArray> out;
  for (const Member& m : centralDirectory(b, name, span)) {
    if (m.compressed > std::numeric_limits<uInt>::max() || m.size > std::numeric_limits<uInt>::max())
      broken(name, span, "member `" + m.file + "` is over 4 GiB, which scn does not read from archives");
    size_t lh = m.localOffset;
    if (lh > b.size() || b.size() - lh < 30 || le(b, lh, 4) != kLocalSig)
      broken(name, span, "the local header of member `" + m.file + "` is corrupt");
    size_t dataAt = lh + 30 + le(b, lh + 26, 2) + le(b, lh + 28, 2);
    if (dataAt > b.size() || b.size() - dataAt < m.compressed) broken(name, span, "member `" + m.file + "` is truncated");
    std::string label = name + " (" + m.file + ")";
    std::string bytes = inflateMember(b.substr(dataAt, m.compressed), m, label, name, span);
    if (crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())) != m.crc)
      broken(name, span, "member `" + m.file + "` fails its CRC check");
    std::string field = m.file.size() > 4 && m.file.ends_with(".npy") ? m.file.substr(0, m.file.size() - 4) : m.file;
    out.push_back({field, decodeNpy(bytes, label, span)});
  }
  return out;
}

namespace {

void put(std::string& s, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::string deflateAll(const std::string& in, const std::string& name, Span span) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    fail("E0522", span, "cannot save `" + name + "`: zlib could not start");
  std::string out(deflateBound(&z, static_cast<uLong>(in.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) fail("E0522", span, "cannot save `" + name + "`: zlib failed to compress");
  return out;
}

}  // namespace

std::string encodeNpz(const std::vector<NamedArray>& arrays, bool compress, const std::string& name, Span span) {
  std::string out, directory;
  constexpr uint64_t kLimit = 0xfffffffe;
  // Without zip64 the end record counts members in 16 bits.
  if (arrays.size() > 0xffff)
    fail("E0522", span, "cannot save `" + name + "`: " + std::to_string(arrays.size()) + " arrays are more than a zip archive without zip64 holds (65535)");
  for (const NamedArray& na : arrays) {
    std::string file = na.name + ".npy";
    std::string npy = encodeNpy(na.array);
    if (npy.size() > kLimit || out.size() > kLimit)
      fail("E0522", span, "cannot save `" + name + "`: member `" + file + "` is over 4 GiB", "save large arrays as .npy files");
    uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(npy.data()), static_cast<uInt>(npy.size())));
    std::string data = compress ? deflateAll(npy, name, span) : npy;
    uint16_t method = compress ? kDeflated : kStored;
    auto header = [&](uint32_t sig, bool central) {
      std::string h;
      put(h, sig, 4);
      if (central) put(h, 20, 2);  // made by: version 2.0
      put(h, 20, 2);               // needed to extract: 2.0
      put(h, 0, 2);                // flags
      put(h, method, 2);
      put(h, 0, 2), put(h, 0x21, 2);  // time 00:00, date 1980-01-01 (reproducible archives)
      put(h, crc, 4);
      put(h, data.size(), 4);
      put(h, npy.size(), 4);
      put(h, file.size(), 2);
      put(h, 0, 2);  // extra
      if (central) {
        put(h, 0, 2), put(h, 0, 2), put(h, 0, 2);  // comment, disk, internal attributes
        put(h, 0644u << 16, 4);                    // external attributes: -rw-r--r--
        put(h, out.size(), 4);
      }
      return h + file;
    };
    directory += header(kCentralSig, true);
    out += header(kLocalSig, false);
    out += data;
  }
  if (out.size() > kLimit) fail("E0522", span, "cannot save `" + name + "`: the archive is over 4 GiB");
  uint64_t dirOffset = out.size();
  out += directory;
  put(out, kEndSig, 4);
  put(out, 0, 2), put(out, 0, 2);
  put(out, arrays.size(), 2), put(out, arrays.size(), 2);
  put(out, directory.size(), 4);
  put(out, dirOffset, 4);
  put(out, 0, 2);
  return out;
}

}  // namespace scn
