// Parsing numbers written as text, with Python's int()/float() rules.
#include "lang/number_text.hpp"

#include <charconv>
#include <cmath>
#include <cctype>
#include <cstdlib>
#include <limits>

#include "base/diagnostics.hpp"

namespace scn {

namespace {

std::string_view trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

/// Drops underscores that sit between two digits (1_000); nullopt for any other underscore.
std::optional<std::string> withoutUnderscores(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '_') {
      out += s[i];
      continue;
    }
    bool between = i > 0 && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i - 1])) &&
                   std::isdigit(static_cast<unsigned char>(s[i + 1]));
    if (!between) return std::nullopt;
  }
  return out;
}

template <typename T>
std::string parseInteger(const std::string& s, Array& into, int64_t i, DType t) {
  const char* p = s.data();
  const char* end = p + s.size();
  if (p != end && *p == '+') ++p;
  if (p != end && (*p == '+' || (*p == '-' && s[0] == '+'))) return "not an integer";
  if (std::is_unsigned_v<T> && p != end && *p == '-') {
    // -0 is fine; any other negative number is out of range.
    std::string_view rest(p + 1, static_cast<size_t>(end - p - 1));
    if (!rest.empty() && rest.find_first_not_of('0') == std::string_view::npos) return into.setInt(i, 0), "";
    bool digits = !rest.empty() && rest.find_first_not_of("0123456789") == std::string_view::npos;
    return digits ? std::string("out of range for ") + dtypeName(t) : "not an integer";
  }
  T v{};
  auto [ptr, ec] = std::from_chars(p, end, v);
  if (ec == std::errc::result_out_of_range) return std::string("out of range for ") + dtypeName(t);
  if (ec != std::errc() || ptr != end || p == end) return "not an integer";
  into.data<T>()[i] = v;
  return "";
}

}  // namespace

std::string parseNumberInto(std::string_view text, DType t, Array& into, int64_t i) {
  std::optional<std::string> clean = withoutUnderscores(trim(text));
  if (!clean || clean->empty()) return isFloat(t) ? "not a number" : "not an integer";
  const std::string& s = *clean;
  switch (t) {
    case DType::Bool:
      if (s == "true" || s == "True" || s == "1") return into.setInt(i, 1), "";
      if (s == "false" || s == "False" || s == "0") return into.setInt(i, 0), "";
      return "not a bool (true, false, 1 or 0)";
    case DType::C64: case DType::C128: return "not a real number (complex numbers are not read from text)";
    case DType::I32: return parseInteger<int32_t>(s, into, i, t);
    case DType::I64: return parseInteger<int64_t>(s, into, i, t);
    case DType::U32: return parseInteger<uint32_t>(s, into, i, t);
    case DType::U64: return parseInteger<uint64_t>(s, into, i, t);
    case DType::BF16: case DType::F16: case DType::F32: case DType::F64: {
      const char* p = s.data();
      const char* end = p + s.size();
      if (*p == '+') ++p;
      if (p != end && (*p == '+' || (*p == '-' && s[0] == '+'))) return "not a number";
      double v = 0;
      // from_chars takes inf, infinity and nan in any case, as Python's float() does.
      auto [ptr, ec] = std::from_chars(p, end, v);
      // Out of range: Python gives inf or 0.0 (strtod's answer), not an error.
      if (ec == std::errc::result_out_of_range && ptr == end) v = std::strtod(s.c_str(), nullptr);
      else if (ec != std::errc() || ptr != end || p == end) return "not a number";
      into.setDouble(i, v);  // one rounding to the dtype
      return "";
    }
  }
  return "not a number";
}

AVal parseNumberText(const std::string& text, DType t, bool weak, Span span, const std::string& fn) {
  Array a(t, {});
  std::string wrong = parseNumberInto(text, t, a, 0);
  if (!wrong.empty()) {
    std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
    fail("E0524", span, fn + "(\"" + shown + "\"): " + wrong,
         "command-line arguments arrive in `args` as strings; run e.g. `scn prog.scn 1000` for int(args[0])");
  }
  return AVal::of(std::move(a), weak);
}

}  // namespace scn
