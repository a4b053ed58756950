// Window geometry shared by the convolutions and reduce_window (lang/windows.hpp).
#include "lang/windows.hpp"

#include <algorithm>
#include <cctype>

namespace scn {

namespace {
std::string str(int64_t v) { return std::to_string(v); }
}  // namespace

void badWindow(Span span, const std::string& message, const std::string& help) { fail("E0272", span, message, help); }

std::vector<int64_t> perAxisInts(const Args& a, size_t i, size_t n, int64_t dflt) {
  if (!a.has(i) || a.get(i).isNone()) return std::vector<int64_t>(n, dflt);
  auto g = staticIntGrid(a.get(i));
  std::string what = "`" + a.name(i) + "`";
  std::string help = "give one integer >= 1 per axis, e.g. `" + std::string(n == 1 ? "(2,)" : "(2, 2)") + "`";
  if (!g || g->first.size() != 1)
    badWindow(a.span(i), what + " must be a tuple of static integers, got " + describe(a.get(i)), help);
  if (g->second.size() != n)
    badWindow(a.span(i), what + " has " + str(g->second.size()) + (g->second.size() == 1 ? " entry" : " entries") + " for " + str(n) +
                           (n == 1 ? " axis" : " axes"), help);
  for (int64_t v : g->second)
    if (v < 1) badWindow(a.span(i), what + " must be at least 1, got " + str(v), help);
  return g->second;
}

std::optional<std::string> paddingMode(const Args& a, size_t i) {
  if (a.get(i).kind != ValueKind::String) return std::nullopt;
  std::string m = a.get(i).str;
  for (char& c : m) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (m != "SAME" && m != "SAME_LOWER" && m != "VALID")
    badWindow(a.span(i), "padding \"" + a.get(i).str + "\" is not a padding of lax",
            "the paddings are \"SAME\", \"SAME_LOWER\", \"VALID\" or one (low, high) pair per axis");
  return m;
}

Pads explicitPads(const Args& a, size_t i, size_t n) {
  auto g = staticIntGrid(a.get(i));
  std::string help = "give \"SAME\", \"VALID\" or one (low, high) pair of integers per axis, e.g. `((1, 1), (1, 1))`";
  if (!g || g->first != Shape{static_cast<int64_t>(n), 2})
    badWindow(a.span(i), "padding must be a string or " + str(n) + " (low, high) pairs, got " + describe(a.get(i)), help);
  Pads p;
  for (size_t d = 0; d < n; ++d) p.push_back({g->second[2 * d], g->second[2 * d + 1]});
  return p;
}

Pads padsOfMode(const std::string& mode, const std::vector<int64_t>& in, const std::vector<int64_t>& window,
                const std::vector<int64_t>& strides) {
  Pads p;
  for (size_t d = 0; d < in.size(); ++d) {
    if (mode == "VALID") {
      p.push_back({0, 0});
      continue;
    }
    int64_t out = (in[d] + strides[d] - 1) / strides[d];
    int64_t total = std::max<int64_t>((out - 1) * strides[d] + window[d] - in[d], 0);
    int64_t small = total / 2, large = total - total / 2;
    p.push_back(mode == "SAME" ? std::make_pair(small, large) : std::make_pair(large, small));
  }
  return p;
}

AVal dilateAxis(ArrayOps& ops, const AVal& x, int64_t axis, int64_t d, const AVal& fill, Span span) {
  int64_t n = x.type.shape[axis];
  if (d == 1 || n <= 1) return x;
  AVal spread = ops.expandDims(x, axis + 1, span);
  Shape zs = spread.type.shape;
  zs[axis + 1] = d - 1;
  AVal woven = ops.concat({spread, ops.full(zs, fill, span)}, axis + 1, span);
  Shape flat = x.type.shape;
  flat[axis] = n * d;
  AVal r = ops.reshape(woven, flat, span);
  std::vector<int64_t> starts(flat.size(), 0), limits = flat, strides(flat.size(), 1);
  limits[axis] = (n - 1) * d + 1;
  return ops.slice(r, starts, limits, strides, span);
}

AVal padAxis(ArrayOps& ops, AVal x, int64_t axis, int64_t lo, int64_t hi, const AVal& fill, Span span) {
  int64_t n = x.type.shape[axis];
  if (n + lo + hi < 0)
    badWindow(span, "padding (" + str(lo) + ", " + str(hi) + ") removes more than the " + str(n) + " elements of an axis",
            "negative padding crops the input; keep its sum above -(the axis's length)");
  if (lo < 0 || hi < 0) {
    std::vector<int64_t> starts(x.type.shape.size(), 0), limits = x.type.shape, strides(x.type.shape.size(), 1);
    starts[axis] = std::max<int64_t>(-lo, 0);
    limits[axis] = std::max(starts[axis], n - std::max<int64_t>(-hi, 0));
    x = ops.slice(x, starts, limits, strides, span);
  }
  auto fills = [&](int64_t count) {
    Shape s = x.type.shape;
    s[axis] = count;
    return ops.full(s, fill, span);
  };
  std::vector<AVal> parts;
  if (lo > 0) parts.push_back(fills(lo));
  parts.push_back(x);
  if (hi > 0) parts.push_back(fills(hi));
  return parts.size() == 1 ? x : ops.concat(parts, axis, span);
}

int64_t dilatedExtent(int64_t k, int64_t d) { return k == 0 ? 0 : (k - 1) * d + 1; }

int64_t windowCount(int64_t size, int64_t extent, int64_t stride) { return size < extent ? 0 : (size - extent) / stride + 1; }

std::vector<AVal> windowTaps(ArrayOps& ops, const AVal& x, size_t first, const std::vector<int64_t>& window,
                             const std::vector<int64_t>& strides, const std::vector<int64_t>& dilation,
                             const std::vector<int64_t>& out, Span span) {
  size_t n = window.size();
  int64_t count = 1;
  for (int64_t w : window) count *= w;
  std::vector<AVal> taps;
  std::vector<int64_t> tap(n, 0);
  for (int64_t t = 0; t < count; ++t) {
    std::vector<int64_t> starts(x.type.shape.size(), 0), limits = x.type.shape, step(x.type.shape.size(), 1);
    for (size_t d = 0; d < n; ++d) {
      size_t axis = first + d;
      starts[axis] = tap[d] * dilation[d];
      limits[axis] = out[d] == 0 ? starts[axis] : starts[axis] + (out[d] - 1) * strides[d] + 1;
      step[axis] = strides[d];
    }
    taps.push_back(ops.slice(x, starts, limits, step, span));
    for (size_t d = n; d-- > 0;) {  // the next tap, row-major
      if (++tap[d] < window[d]) break;
      tap[d] = 0;
    }
  }
  return taps;
}

}  // namespace scn
