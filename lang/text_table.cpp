// Text tables: numpy.loadtxt's default parsing and numpy.savetxt's default format.
#include "lang/text_table.hpp"

#include <cstdio>
#include <vector>

#include "lang/number_text.hpp"

namespace scn {

namespace {

struct Field {
  std::string_view text;
  size_t column;  // 1-based, in the line
};

std::vector<Field> splitLine(std::string_view line, const TextTableFormat& f) {
  std::vector<Field> out;
  if (f.delimiter) {
    size_t start = 0;
    for (size_t i = 0; i <= line.size(); ++i)
      if (i == line.size() || line[i] == *f.delimiter) {
        out.push_back({line.substr(start, i - start), start + 1});
        start = i + 1;
      }
    return out;
  }
  for (size_t i = 0; i < line.size();) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back({line.substr(start, i - start), start + 1});
  }
  return out;
}

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

}  // namespace

Array parseTextTable(std::string_view text, DType t, const TextTableFormat& f, const std::string& name, Span span) {
  auto bad = [&](size_t line, const std::string& what) {
    fail("E0523", span, "cannot load `" + name + "`: line " + std::to_string(line) + (what.starts_with("column") ? ", " : ": ") + what,
         "loadtxt reads rows of numbers split by whitespace (or `delimiter=`), with '#' comments");
  };
  std::vector<std::vector<Field>> rows;
  std::vector<size_t> lineNumbers;
  size_t lineNo = 0;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    ++lineNo;
    if (static_cast<int64_t>(lineNo) <= f.skipRows) continue;
    line = line.substr(0, line.find('#'));
    if (blank(line)) continue;
    rows.push_back(splitLine(line, f));
    lineNumbers.push_back(lineNo);
    if (rows.back().size() != rows.front().size())
      bad(lineNo, "it has " + std::to_string(rows.back().size()) + " columns, line " + std::to_string(lineNumbers.front()) +
                      " has " + std::to_string(rows.front().size()));
  }
  int64_t cols = rows.empty() ? 0 : static_cast<int64_t>(rows.front().size());
  Array a(t, {static_cast<int64_t>(rows.size()), cols});
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t c = 0; c < rows[r].size(); ++c) {
      const Field& fd = rows[r][c];
      std::string wrong = parseNumberInto(fd.text, t, a, static_cast<int64_t>(r) * cols + static_cast<int64_t>(c));
      if (!wrong.empty()) {
        std::string shown(fd.text.substr(0, 40));
        bad(lineNumbers[r], "column " + std::to_string(fd.column) + ": `" + shown + "` is " + wrong +
                                (wrong.starts_with("out of range") ? "" : std::string(" (reading ") + dtypeName(t) + ")"));
      }
    }
  // ndmin=0: drop the axes of length 1; an empty file is an empty 1-D array.
  if (rows.empty()) a.shape = {0};
  else {
    Shape squeezed;
    for (int64_t d : a.shape)
      if (d != 1) squeezed.push_back(d);
    a.shape = squeezed;
  }
  return a;
}

std::string formatTextTable(const Array& a, char delimiter) {
  int64_t rows = a.rank() == 0 ? 1 : a.shape[0];
  int64_t cols = a.rank() == 2 ? a.shape[1] : 1;
  std::string out;
  char buf[64];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      int64_t i = r * cols + c;
      if (c) out += delimiter;
      if (isFloat(a.dtype)) std::snprintf(buf, sizeof buf, "%.18e", a.getDouble(i));
      else if (isUnsignedInt(a.dtype)) std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(a.getUInt(i)));
      else std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(a.getInt(i)));
      out += buf;
    }
    out += '\n';
  }
  return out;
}

}  // namespace scn
