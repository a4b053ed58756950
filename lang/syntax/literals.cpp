// Numerals (splitting, decoding, dtype range checks), string quoting and UTF-8 helpers.
#include "lang/syntax/literals.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "jit/dtype.hpp"

namespace scn {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int hexValue(char c) { return isDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

void setError(NumberDecode& d, const char* code, size_t b, size_t e, std::string message,
              std::string help) {
  if (!d.errorCode.empty()) return;  // the first problem is the one reported
  d.errorCode = code;
  d.errorBegin = static_cast<uint32_t>(b);
  d.errorEnd = static_cast<uint32_t>(e);
  d.errorMessage = std::move(message);
  d.errorHelp = std::move(help);
}

// Decimal digits to u64, noting overflow.
void decodeInteger(std::string_view digits, int base, NumberDecode& d) {
  uint64_t v = 0;
  for (char c : digits) {
    uint64_t digit = base == 16 ? hexValue(c) : uint64_t(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / base) {
      d.overflow = true;
      return;
    }
    v = v * base + digit;
  }
  d.intValue = v;
}

// A decimal float numeral (no suffix) to double. from_chars reports both overflow and
// underflow as out of range; the decimal exponent of the first significant digit tells which.
void decodeFloat(std::string_view text, NumberDecode& d) {
  double v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec == std::errc()) {
    d.floatValue = v;
    return;
  }
  int64_t exponent = 0, position = 0;
  bool seenPoint = false, seenNonZero = false;
  size_t i = 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    char c = text[i];
    if (c == '.') {
      seenPoint = true;
    } else if (!seenNonZero) {
      if (c != '0') seenNonZero = true;
      else if (seenPoint) --position;
      if (seenNonZero && !seenPoint) position = 1;
    } else if (!seenPoint) {
      ++position;
    }
  }
  if (i < text.size()) {
    ++i;
    bool negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    for (; i < text.size(); ++i)
      if (exponent < 100000) exponent = exponent * 10 + (text[i] - '0');
    if (negative) exponent = -exponent;
  }
  if (exponent + position > 0) d.overflow = true;  // else it underflows to zero
}

}  // namespace

std::string numberSuffixList() {
  std::string out;
  for (DType t : kAllDTypes) {
    if (t == DType::Bool || isComplex(t)) continue;  // complex numbers are written with `j`
    if (!out.empty()) out += ", ";
    out += dtypeName(t);
  }
  return out;
}

NumberDecode decodeNumber(std::string_view text) {
  NumberDecode d;
  size_t i = 0;
  bool hex = text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  size_t mantissaEnd;
  if (hex) {
    i = 2;
    while (i < text.size() && isHexDigit(text[i])) ++i;
    if (i == 2)
      setError(d, "E0009", 0, text.size(), "hexadecimal literal has no digits",
               "write hexadecimal digits after `0x`, as in `0xff`");
    else
      decodeInteger(text.substr(2, i - 2), 16, d);
    mantissaEnd = i;
  } else {
    while (i < text.size() && isDigit(text[i])) ++i;
    size_t intEnd = i;
    if (i + 1 < text.size() && text[i] == '.' && isDigit(text[i + 1])) {
      d.isFloat = true;
      i += 2;
      while (i < text.size() && isDigit(text[i])) ++i;
    } else if (i + 1 == text.size() && text[i] == '.') {  // `1.`: the lexer admits it alone
      d.isFloat = true;
      ++i;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      size_t e = i++;
      if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
      size_t digits = i;
      while (i < text.size() && isDigit(text[i])) ++i;
      if (i == digits)
        setError(d, "E0009", e, i, "missing digits in the exponent of a number literal",
                 "write the exponent as digits, as in `1e5` or `2.5e-3`");
      d.isFloat = true;
    }
    mantissaEnd = i;
    if (!d.isFloat) decodeInteger(text.substr(0, intEnd), 10, d);
  }

  d.suffix = text.substr(mantissaEnd);
  if (!d.suffix.empty()) {
    std::optional<DType> t = dtypeFromName(d.suffix);
    size_t b = mantissaEnd, e = text.size();
    if (!t && (d.suffix == "j" || d.suffix == "J")) {
      // Python's imaginary literal (`2.5j`, `1j`): a weak complex number with that imaginary
      // part (Note [Complex numbers] in jit/scalar/complex.inc).
      if (hex)
        setError(d, "E0008", b, e, "hexadecimal literal cannot be imaginary",
                 "write the imaginary part in decimal, as in `16j`, or multiply: `0x10 * 1j`");
      d.isFloat = true;
    } else if (!t) {
      setError(d, "E0005", b, e,
               "unknown suffix `" + std::string(d.suffix) + "` on a number literal",
               "the dtype suffixes are " + numberSuffixList() + ", as in `1.5f64` or `3u64`");
    } else if (isComplex(*t)) {
      setError(d, "E0005", b, e, "`" + std::string(d.suffix) + "` is not a number literal suffix",
               "write an imaginary part with `j` (`2.0 + 0.5j`), or convert: `" + std::string(d.suffix) +
                   "(2.5)`");
    } else if (*t == DType::Bool) {
      setError(d, "E0005", b, e, "`bool` is not a number literal suffix",
               "write `true` or `false`, or convert with `bool(1)`");
    } else if (isFloat(*t)) {
      if (hex)
        setError(d, "E0008", b, e, "hexadecimal literal cannot have a float suffix",
                 "hexadecimal literals are integers; convert with `" + std::string(d.suffix) +
                     "(0x10)`");
      d.isFloat = true;
    } else if (d.isFloat) {
      std::string name(d.suffix);
      setError(d, "E0008", b, e, "float literal cannot have the integer suffix `" + name + "`",
               "use a float suffix (`f32`, `f64`), or convert: `" + name + "(2.5)`");
    }
  }
  if (d.isFloat && d.errorCode.empty()) decodeFloat(text.substr(0, mantissaEnd), d);
  if (!d.errorCode.empty()) {
    d.overflow = false;
    d.intValue = 0;
    d.floatValue = 0;
  }
  return d;
}

RangeError checkNumberRange(const Token& t, bool negated) {
  RangeError r;
  if (t.malformed) return r;
  std::string_view written = t.suffix();
  std::optional<DType> suffix = written.empty() ? std::nullopt : dtypeFromName(written);
  DType type = suffix ? *suffix : (t.isFloat ? DType::F64 : DType::I64);
  // The error text is built only for a literal that is out of range.
  auto fail = [&](const char* code, const char* kind, std::string help) {
    r.code = code;
    r.message = std::string(kind) + " literal out of range for " + dtypeName(type);
    r.help = std::move(help);
    if (!suffix)
      r.help += std::string("; a literal without a suffix must fit in ") + dtypeName(type) +
                " (add a suffix)";
  };
  auto intRange = [&](uint64_t maxPositive, const char* range) {
    uint64_t limit = maxPositive + (negated && isSignedInt(type) ? 1 : 0);
    if (t.overflow || t.intValue > limit)
      fail("E0006", "integer", std::string(dtypeName(type)) + " holds integers from " + range);
  };
  auto floatRange = [&](double overflowAt, const char* largest) {
    if (t.overflow || !(t.floatValue < overflowAt))
      fail("E0007", "float",
           std::string("the largest finite ") + dtypeName(type) + " is about " + largest);
  };
  switch (type) {
    case DType::Bool: break;  // rejected by decodeNumber
    case DType::I32: intRange(INT32_MAX, "-2147483648 to 2147483647"); break;
    case DType::I64:
      intRange(INT64_MAX, "-9223372036854775808 to 9223372036854775807");
      break;
    case DType::U32: intRange(UINT32_MAX, "0 to 4294967295"); break;
    case DType::U64: intRange(UINT64_MAX, "0 to 18446744073709551615"); break;
    // A double rounds to f32 infinity from FLT_MAX plus half an f32 ulp (2^103) upwards.
    case DType::F32:
      floatRange(double(std::numeric_limits<float>::max()) + std::ldexp(1.0, 103), "3.4e38");
      break;
    case DType::F64:
      floatRange(std::numeric_limits<double>::infinity(), "1.8e308");
      break;
    // bf16's largest finite value is (2 - 2^-7) 2^127, f16's 65504; half an ulp above rounds up.
    case DType::BF16: floatRange(std::ldexp(2.0 - std::ldexp(1.0, -7), 127) + std::ldexp(1.0, 119), "3.4e38"); break;
    case DType::F16: floatRange(65520.0, "65504"); break;
    case DType::C64: case DType::C128: break;  // no complex suffix; `2.5j` is checked as f64
  }
  return r;
}

int utf8Length(const unsigned char* p, const unsigned char* lim) {
  int cp = decodeUtf8(p, lim);
  if (cp < 0) return 1;
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

int decodeUtf8(const unsigned char* p, const unsigned char* lim) {
  unsigned char c = p[0];
  if (c < 0x80) return c;
  int n, cp, min;
  if (c >= 0xc2 && c <= 0xdf) n = 1, cp = c & 0x1f, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) n = 2, cp = c & 0x0f, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) n = 3, cp = c & 0x07, min = 0x10000;
  else return -1;
  if (lim - p <= n) return -1;
  for (int i = 1; i <= n; ++i) {
    if ((p[i] & 0xc0) != 0x80) return -1;
    cp = (cp << 6) | (p[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
  return cp;
}

std::string hexByte(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}

std::string codePointHex(int cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", cp);
  return buf;
}

std::string codePointName(unsigned char c) { return codePointHex(c); }

std::string printableChar(const unsigned char* b, const unsigned char* e) {
  if (e - b == 1 && (*b < 0x20 || *b == 0x7f)) return codePointHex(*b);
  if (e - b == 1 && *b >= 0x80) return hexByte(*b);
  return std::string(reinterpret_cast<const char*>(b), e - b);
}

int decodeEscape(char c) {
  switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case '\\': return '\\';
    case '"': return '"';
    default: return -1;
  }
}

std::string stringValue(const Token& t) {
  std::string_view text = t.span.text();
  if (!text.empty() && text.front() == '"') text.remove_prefix(1);
  if (!text.empty() && text.back() == '"') text.remove_suffix(1);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      int e = decodeEscape(text[i + 1]);
      if (e >= 0) {
        out += char(e);
        ++i;
      }
      continue;  // an unknown escape (reported by the lexer) stands for the character after it
    }
    out += text[i];
  }
  return out;
}

std::string quoteString(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default: out += c; break;
    }
  }
  return out + "\"";
}

std::string formatFloat(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

}  // namespace scn
