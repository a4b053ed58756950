// Arrays written with print options, and on several lines for the REPL (Note [Array display]).
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "jit/array_format.hpp"

namespace scn {

// Note [Array display]
// The REPL shows a value as NumPy does: a matrix one row per line with its columns aligned,
//   [[ 0.0,  1.5],
//    [10.0, -2.0]]
// a blank line between the matrices of a 3-d array, and a row longer than the line width
// wrapped under its first element. Every element shown is formatted first, so all share the
// widest one's width (right-aligned, as numbers are). Summaries follow formatArray's rule
// (more than `threshold` elements: the first and last three of each axis, `...` between).
// print and -e keep the one-line form, so program output stays one line per print.

namespace {

constexpr int64_t kEdgeItems = 3;  // NumPy's edgeitems, as formatArray

/// A float with at most `precision` digits after the point, trailing zeros dropped but one
/// kept (NumPy's floatmode "maxprec"); other elements as formatElement.
std::string fixedText(double v, int precision);

std::string elementText(const Array& a, int64_t i, int precision) {
  if (precision >= 0 && isComplex(a.dtype)) {
    double re, im;
    if (a.dtype == DType::C64) re = a.data<c64>()[i].re, im = a.data<c64>()[i].im;
    else re = a.data<c128>()[i].re, im = a.data<c128>()[i].im;
    if (!std::isfinite(re) || !std::isfinite(im)) return formatElement(a, i);
    return formatComplex(fixedText(re, precision), fixedText(im, precision));
  }
  if (precision < 0 || (a.dtype != DType::F32 && a.dtype != DType::F64)) return formatElement(a, i);
  double v = a.getDouble(i);
  if (!std::isfinite(v)) return formatElement(a, i);
  return fixedText(v, precision);
}

std::string fixedText(double v, int precision) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  std::string s = buf;
  if (s.find('.') == std::string::npos) return s + ".0";
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s += '0';
  return s;
}

struct Layout {
  const Array& a;
  const PrintOptions& o;
  std::vector<int64_t> strides;
  bool summarise = false;
  size_t width = 0;  // of the widest element shown
};

/// Calls `visit(index)` for each index of `axis` that is shown, and `visit(-1)` where `...` goes.
template <typename F>
void shownIndices(const Layout& l, size_t axis, F visit) {
  int64_t dim = l.a.shape[axis];
  bool cut = l.summarise && dim > 2 * kEdgeItems;
  for (int64_t i = 0; i < dim; ++i) {
    if (cut && i == kEdgeItems) {
      visit(-1);
      i = dim - kEdgeItems;
    }
    visit(i);
  }
}

void measure(Layout& l, size_t axis, int64_t offset) {
  if (axis == l.a.shape.size()) {
    l.width = std::max(l.width, elementText(l.a, offset, l.o.precision).size());
    return;
  }
  shownIndices(l, axis, [&](int64_t i) {
    if (i >= 0) measure(l, axis + 1, offset + i * l.strides[axis]);
  });
}

/// The last axis: elements padded to the common width, wrapped at the line width.
void writeRow(const Layout& l, int64_t offset, size_t indent, std::string& out) {
  size_t column = indent + 1;
  out += "[";
  bool first = true;
  shownIndices(l, l.a.shape.size() - 1, [&](int64_t i) {
    std::string item = i < 0 ? "..." : elementText(l.a, offset + i * l.strides.back(), l.o.precision);
    if (item.size() < l.width) item.insert(0, l.width - item.size(), ' ');
    if (!first) {
      out += ",";
      ++column;
      if (column + 1 + item.size() + 2 > static_cast<size_t>(l.o.linewidth)) {
        out += "\n" + std::string(indent + 1, ' ');
        column = indent + 1;
      } else {
        out += " ";
        ++column;
      }
    }
    first = false;
    out += item;
    column += item.size();
  });
  out += "]";
}

void writeAxis(const Layout& l, size_t axis, int64_t offset, std::string& out) {
  if (axis + 1 == l.a.shape.size()) {
    writeRow(l, offset, axis, out);
    return;
  }
  // Between rows one line break; between matrices of a 3-d array two, and so on.
  std::string between = "," + std::string(l.a.shape.size() - axis - 1, '\n') + std::string(axis + 1, ' ');
  out += "[";
  bool first = true;
  shownIndices(l, axis, [&](int64_t i) {
    if (!first) out += between;
    first = false;
    if (i < 0) out += "...";
    else writeAxis(l, axis + 1, offset + i * l.strides[axis], out);
  });
  out += "]";
}

Layout layoutOf(const Array& a, const PrintOptions& o) {
  Layout l{a, o, std::vector<int64_t>(a.shape.size(), a.size() > 0 ? 1 : 0)};
  for (size_t i = a.shape.size(); i-- > 1;) l.strides[i - 1] = l.strides[i] * a.shape[i];
  bool longAxis = false;
  for (int64_t d : a.shape) longAxis = longAxis || d > o.threshold;
  l.summarise = a.size() > o.threshold || longAxis;
  return l;
}

}  // namespace

std::string formatArray(const Array& a, const PrintOptions& o) {
  if (o.precision < 0) return formatArray(a, o.threshold);
  if (a.shape.empty()) return elementText(a, 0, o.precision);
  Layout l = layoutOf(a, o);
  std::string out;
  // One line: rows separated by ", " as formatArray writes them.
  std::function<void(size_t, int64_t)> write = [&](size_t axis, int64_t offset) {
    if (axis == a.shape.size()) {
      out += elementText(a, offset, o.precision);
      return;
    }
    out += "[";
    bool first = true;
    shownIndices(l, axis, [&](int64_t i) {
      if (!first) out += ", ";
      first = false;
      if (i < 0) out += "...";
      else write(axis + 1, offset + i * l.strides[axis]);
    });
    out += "]";
  };
  write(0, 0);
  return out;
}

std::string displayArray(const Array& a, const PrintOptions& o) {
  if (a.shape.size() < 2 || a.size() == 0) return formatArray(a, o);
  Layout l = layoutOf(a, o);
  measure(l, 0, 0);
  std::string out;
  writeAxis(l, 0, 0, out);
  return out;
}

}  // namespace scn
