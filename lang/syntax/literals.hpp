// Literal text: numerals and their dtype ranges, string escapes, UTF-8 and character names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lang/syntax/lexer.hpp"

namespace scn {

/// A numeral split into its value and dtype suffix; errorCode is set when it is malformed
/// (E0005 unknown suffix, E0008 float with an integer suffix, E0009 missing digits), with the
/// error's byte range inside the numeral.
struct NumberDecode {
  bool isFloat = false;
  bool overflow = false;  // integer digits beyond u64, or a float beyond f64's range
  uint64_t intValue = 0;
  double floatValue = 0;
  std::string_view suffix;  // points into the decoded text
  std::string errorCode, errorMessage, errorHelp;
  uint32_t errorBegin = 0, errorEnd = 0;
};

/// Decodes the text of one numeral as matched by the lexer: `12`, `1.5e-3f64`, `0xffu32`.
NumberDecode decodeNumber(std::string_view text);

/// A literal that does not fit its dtype (E0006 integers, E0007 floats); code empty when it fits.
struct RangeError {
  std::string code, message, help;
};

/// Checks a Number token against its dtype: the suffix's, or i64 / f64 without one (a weakly
/// typed literal must fit the widest type it can take). `negated` says a unary minus applies
/// directly to it, which admits the most negative signed value (`-2147483648i32`).
RangeError checkNumberRange(const Token& t, bool negated);

/// The dtype suffixes a numeral may carry, for messages: "i32, i64, u32, u64, f32, f64".
std::string numberSuffixList();

/// Length of the UTF-8 sequence at p (1 when it is not valid UTF-8); p < lim.
int utf8Length(const unsigned char* p, const unsigned char* lim);
/// The code point at p, or -1 when the bytes there are not valid UTF-8; p < lim.
int decodeUtf8(const unsigned char* p, const unsigned char* lim);
/// "0xff".
std::string hexByte(unsigned char b);
/// "U+00E9".
std::string codePointHex(int cp);
/// A control character by code point for messages: "U+0000".
std::string codePointName(unsigned char c);
/// The character in [b, e) as it may appear in a message (control characters as U+XXXX).
std::string printableChar(const unsigned char* b, const unsigned char* e);

/// The character the escape `\c` stands for (`n t r \\ "`), or -1 when there is no such escape.
int decodeEscape(char c);

/// A string value written as a scn string literal, quotes included: "a\n\"b\"".
std::string quoteString(std::string_view value);
/// The shortest text that reads back as `v` and lexes as a float: "1.0", "1e-05", "0.1".
std::string formatFloat(double v);

}  // namespace scn
