// The .npy format: the header (a Python dict literal), the data layout rules, and the writer.
// See NumPy's numpy/lib/format.py for the specification this follows.
#include "lang/npy.hpp"

#include <algorithm>
#include <cctype>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace scn {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr int kMaxLiteralDepth = 16;

[[noreturn]] void bad(const char* code, const std::string& name, Span span, const std::string& what,
                      std::string help = {}) {
  fail(code, span, "cannot load `" + name + "`: " + what, std::move(help));
}

// Note [The npy header literal]
// The header is `repr()` of a dict such as {'descr': '<f8', 'fortran_order': False, 'shape':
// (3, 4), }. NumPy reads it with ast.literal_eval; this is the part of Python's literal grammar
// that a header can use: strings, integers, True/False/None, tuples, lists and dicts (a list is
// a structured dtype's descr, only parsed to say so). Nesting is bounded (kMaxLiteralDepth), so a
// crafted header cannot exhaust the stack.
struct Literal {
  enum Kind { Str, Int, Bool, None, Tuple, List, Dict } kind = None;
  std::string str;
  std::optional<int64_t> integer;  // nullopt: an integer too large for int64
  bool negative = false;
  bool boolean = false;
  std::vector<Literal> items;     // Tuple, List; Dict: the values
  std::vector<std::string> keys;  // Dict: the keys (strings), one per item
};

class LiteralParser {
 public:
  LiteralParser(std::string_view text, const std::string& name, Span span)
      : s_(text), name_(name), span_(span) {}

  Literal parseAll() {
    Literal v = value(0);
    skipSpace();
    if (pos_ != s_.size()) error("unexpected text after the dict");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& what) {
    bad("E0516", name_, span_, "malformed header: " + what + " at byte " + std::to_string(pos_) + " of the header",
        "the header must be a Python dict literal as numpy.save writes it");
  }
  void skipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool eat(char c) {
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  bool word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    size_t end = pos_ + w.size();
    if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_')) return false;
    pos_ = end;
    return true;
  }

  // value := string | int | True | False | None | '(' items ')' | '[' items ']' | '{' fields '}'
  Literal value(int depth) {
    if (depth > kMaxLiteralDepth) error("values nest too deeply");
    skipSpace();
    if (pos_ == s_.size()) error("unexpected end");
    Literal v;
    char c = s_[pos_];
    if (c == '\'' || c == '"') {
      v.kind = Literal::Str;
      v.str = string();
    } else if (c == '-' || c == '+' || std::isdigit(static_cast<unsigned char>(c))) {
      v.kind = Literal::Int;
      integer(v);
    } else if (word("True") || word("False")) {
      v.kind = Literal::Bool;
      v.boolean = s_[pos_ - 1] == 'e' && s_[pos_ - 2] == 'u';
    } else if (word("None")) {
      v.kind = Literal::None;
    } else if (c == '(' || c == '[') {
      ++pos_;
      v.kind = c == '(' ? Literal::Tuple : Literal::List;
      char close = c == '(' ? ')' : ']';
      bool comma = false;
      while (!eat(close)) {
        if (!v.items.empty() && !comma) error(std::string("expected ',' or '") + close + "'");
        v.items.push_back(value(depth + 1));
        comma = eat(',');
      }
      // (3) is the integer 3 in Python, not a tuple.
      if (v.kind == Literal::Tuple && v.items.size() == 1 && !comma) return std::move(v.items[0]);
    } else if (c == '{') {
      ++pos_;
      v.kind = Literal::Dict;
      bool comma = false;
      while (!eat('}')) {
        if (!v.keys.empty() && !comma) error("expected ',' or '}'");
        skipSpace();
        if (pos_ == s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) error("expected a string key");
        std::string key = string();
        if (!eat(':')) error("expected ':'");
        v.keys.push_back(std::move(key));
        v.items.push_back(value(depth + 1));
        comma = eat(',');
      }
    } else {
      error(std::string("unexpected character '") + (std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "\\x" + hex(c)) + "'");
    }
    return v;
  }
  static std::string hex(char c) {
    const char* digits = "0123456789abcdef";
    unsigned char u = static_cast<unsigned char>(c);
    return {digits[u >> 4], digits[u & 15]};
  }
  // A quoted string without escapes other than \\ and \' (descr values and keys need none).
  std::string string() {
    char quote = s_[pos_++];
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;
      out += s_[pos_++];
    }
    if (pos_ == s_.size()) error("unterminated string");
    ++pos_;
    return out;
  }
  void integer(Literal& v) {
    if (s_[pos_] == '-' || s_[pos_] == '+') v.negative = s_[pos_++] == '-';
    size_t start = pos_;
    uint64_t n = 0;
    bool overflow = false;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      unsigned d = static_cast<unsigned>(s_[pos_++] - '0');
      if (n > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - d) / 10) overflow = true;
      if (!overflow) n = n * 10 + d;
    }
    if (pos_ == start) error("expected digits");
    // 3L (Python 2 headers) is still an integer.
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;
    if (!overflow) v.integer = v.negative ? -static_cast<int64_t>(n) : static_cast<int64_t>(n);
  }

  std::string_view s_;
  const std::string& name_;
  Span span_;
  size_t pos_ = 0;
};

uint32_t readLE(const unsigned char* p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

/// The scn dtype of a descr such as '<f8', or an E0517 naming what it is.
struct DescrInfo {
  DType dtype;
  bool swap;
};
DescrInfo dtypeOfDescr(const std::string& descr, const std::string& name, Span span) {
  const std::string help = "scn loads bool, i32, i64, u32, u64, f16, f32, f64, c64 and c128 arrays; convert it in NumPy first, e.g. x.astype(np.float64)";
  if (descr.size() < 2) bad("E0517", name, span, "unsupported dtype '" + descr + "'", help);
  char order = descr[0];
  std::string kind = descr.substr(1);
  bool native = std::endian::native == std::endian::little;
  bool swap = (order == '<' && !native) || (order == '>' && native);
  if (order != '<' && order != '>' && order != '|' && order != '=')
    bad("E0517", name, span, "unsupported dtype '" + descr + "'", help);
  static const std::pair<const char*, DType> table[] = {
      {"b1", DType::Bool}, {"i4", DType::I32}, {"i8", DType::I64}, {"u4", DType::U32},
      {"u8", DType::U64},  {"f2", DType::F16}, {"f4", DType::F32}, {"f8", DType::F64}, {"c8", DType::C64}, {"c16", DType::C128}};
  for (const auto& [code, t] : table)
    if (kind == code && !(swap && isComplex(t))) return {t, swap && t != DType::Bool};
  std::string what = "unsupported dtype '" + descr + "'";
  if (kind[0] == 'O') what = "object arrays cannot be loaded (dtype '" + descr + "' holds Python objects)";
  else if (kind[0] == 'U' || kind[0] == 'S') what = "string arrays cannot be loaded (dtype '" + descr + "')";
  else if (kind[0] == 'c') what = "byte-swapped complex arrays cannot be loaded (dtype '" + descr + "')";
  else if (kind[0] == 'V') what = "void/structured arrays cannot be loaded (dtype '" + descr + "')";
  bad("E0517", name, span, what, help);
}

const Literal* field(const Literal& dict, const char* key) {
  for (size_t i = 0; i < dict.keys.size(); ++i)
    if (dict.keys[i] == key) return &dict.items[i];
  return nullptr;
}

Shape shapeOf(const Literal& lit, const std::string& name, Span span) {
  if (lit.kind != Literal::Tuple)
    bad("E0516", name, span, "malformed header: 'shape' is not a tuple of integers");
  if (lit.items.size() > kNpyMaxRank)
    bad("E0519", name, span, "the shape has " + std::to_string(lit.items.size()) + " dimensions, more than " + std::to_string(kNpyMaxRank));
  Shape shape;
  for (const Literal& d : lit.items) {
    if (d.kind != Literal::Int) bad("E0516", name, span, "malformed header: 'shape' is not a tuple of integers");
    if (d.negative) bad("E0519", name, span, "the shape has a negative dimension");
    if (!d.integer) bad("E0519", name, span, "a dimension of the shape does not fit in 64 bits");
    shape.push_back(*d.integer);
  }
  return shape;
}

/// The shape's data size in bytes, or E0519 when it does not fit in 64 bits.
size_t dataBytesOf(const Shape& shape, DType t, const std::string& name, Span span) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  uint64_t n = dtypeSize(t);
  for (int64_t d : shape) {
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / static_cast<uint64_t>(d))
      bad("E0519", name, span, "the shape " + shapeString(shape) + " of " + dtypeName(t) + " overflows: its size in bytes does not fit in 64 bits");
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

}  // namespace

NpyHeader parseNpyHeader(std::string_view bytes, const std::string& name, Span span) {
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < kMagicLen + 2 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
    bad("E0515", name, span, "not a .npy file (it does not start with \\x93NUMPY)",
        "write it with numpy.save, or use loadtxt for a text table");
  NpyHeader h;
  h.major = u[6];
  h.minor = u[7];
  if (h.major < 1 || h.major > 3 || h.minor != 0)
    bad("E0515", name, span, "unsupported .npy format version " + std::to_string(h.major) + "." + std::to_string(h.minor),
        "scn reads format versions 1.0, 2.0 and 3.0");
  size_t lenBytes = h.major == 1 ? 2 : 4;
  size_t prefix = kMagicLen + 2 + lenBytes;
  if (bytes.size() < prefix) bad("E0518", name, span, "the file is truncated inside the header");
  size_t headerLen = readLE(u + kMagicLen + 2, static_cast<int>(lenBytes));
  if (headerLen > kNpyMaxHeaderBytes)
    bad("E0516", name, span, "the header is " + std::to_string(headerLen) + " bytes long, more than NumPy's limit of " + std::to_string(kNpyMaxHeaderBytes));
  if (bytes.size() - prefix < headerLen)
    bad("E0518", name, span, "the file is truncated inside the header (it says " + std::to_string(headerLen) + " bytes, " + std::to_string(bytes.size() - prefix) + " are there)");
  std::string_view text = bytes.substr(prefix, headerLen);
  // Version 1.0 and 2.0 headers are latin-1; 3.0 is UTF-8. Both are ASCII where it matters.
  Literal dict = LiteralParser(text, name, span).parseAll();
  if (dict.kind != Literal::Dict) bad("E0516", name, span, "malformed header: it is not a dict");
  const Literal* descr = field(dict, "descr");
  const Literal* fortran = field(dict, "fortran_order");
  const Literal* shape = field(dict, "shape");
  if (!descr || !fortran || !shape || dict.keys.size() != 3)
    bad("E0516", name, span, "malformed header: it must have exactly the keys 'descr', 'fortran_order' and 'shape'");
  if (descr->kind == Literal::List)
    bad("E0517", name, span, "structured arrays cannot be loaded (the dtype has named fields)",
        "save each field as its own array, e.g. np.savez(path, **{k: x[k] for k in x.dtype.names})");
  if (descr->kind != Literal::Str) bad("E0516", name, span, "malformed header: 'descr' is not a string");
  if (fortran->kind != Literal::Bool) bad("E0516", name, span, "malformed header: 'fortran_order' is not True or False");
  DescrInfo info = dtypeOfDescr(descr->str, name, span);
  h.dtype = info.dtype;
  h.swapBytes = info.swap;
  h.fortranOrder = fortran->boolean;
  h.shape = shapeOf(*shape, name, span);
  h.dataOffset = prefix + headerLen;
  h.dataBytes = dataBytesOf(h.shape, h.dtype, name, span);
  return h;
}

void normaliseNpyData(Array& a, const NpyHeader& h) {
  size_t es = dtypeSize(a.dtype);
  size_t n = static_cast<size_t>(a.size());
  auto* p = static_cast<unsigned char*>(a.raw());
  if (h.swapBytes)
    for (size_t i = 0; i < n; ++i) std::reverse(p + i * es, p + (i + 1) * es);
  if (a.dtype == DType::Bool)
    for (size_t i = 0; i < n; ++i) p[i] = p[i] != 0;
  if (!h.fortranOrder || a.rank() < 2 || n == 0) return;
  // Column-major to row-major: walk the row-major index and find each element's column-major
  // offset (stride 1 on the first axis).
  std::vector<unsigned char> column(p, p + n * es);
  std::vector<size_t> fstride(a.rank());
  size_t s = 1;
  for (size_t d = 0; d < a.rank(); ++d) fstride[d] = s, s *= static_cast<size_t>(a.shape[d]);
  std::vector<int64_t> idx(a.rank(), 0);
  size_t from = 0;
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(p + i * es, column.data() + from * es, es);
    for (size_t d = a.rank(); d-- > 0;) {
      from += fstride[d];
      if (++idx[d] < a.shape[d]) break;
      from -= fstride[d] * static_cast<size_t>(a.shape[d]);
      idx[d] = 0;
    }
  }
}

Array decodeNpy(std::string_view bytes, const std::string& name, Span span) {
  NpyHeader h = parseNpyHeader(bytes, name, span);
  size_t have = bytes.size() - h.dataOffset;
  if (have != h.dataBytes)
    bad("E0518", name, span,
        std::string(have < h.dataBytes ? "the file is truncated" : "the file is longer than its header says") +
            ": shape " + shapeString(h.shape) + " of " + dtypeName(h.dtype) + " needs " + std::to_string(h.dataBytes) +
            " bytes of data, the file has " + std::to_string(have));
  Array a(h.dtype, h.shape);
  if (h.dataBytes) std::memcpy(a.raw(), bytes.data() + h.dataOffset, h.dataBytes);
  normaliseNpyData(a, h);
  return a;
}

std::string npyDescr(DType t) {
  switch (t) {
    case DType::Bool: return "|b1";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::U32: return "<u4";
    case DType::U64: return "<u8";
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
    case DType::F16: return "<f2";
    case DType::BF16: break;  // NumPy has none (savedArray refuses it)
    case DType::C64: return "<c8";
    case DType::C128: return "<c16";
  }
  return "?";
}

std::string encodeNpy(const Array& a) {
  std::string shape = "(";
  for (size_t i = 0; i < a.rank(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape[i]);
  shape += a.rank() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + npyDescr(a.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces and a final newline so magic + length + header is a multiple of 64.
  bool v2 = header.size() + 1 + kMagicLen + 4 > 65535;
  size_t prefix = kMagicLen + 2 + (v2 ? 4 : 2);
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  size_t len = header.size();
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += header;
  size_t start = out.size();
  out.resize(start + a.bytes());
  if (a.bytes()) std::memcpy(out.data() + start, a.raw(), a.bytes());
  if (std::endian::native != std::endian::little && dtypeSize(a.dtype) > 1)
    for (size_t i = start; i < out.size(); i += dtypeSize(a.dtype))
      std::reverse(out.begin() + static_cast<ptrdiff_t>(i), out.begin() + static_cast<ptrdiff_t>(i + dtypeSize(a.dtype)));
  return out;
}

}  // namespace scn
