// Convolutions with lax's names and semantics: lax.conv_general_dilated and its wrappers
// lax.conv, lax.conv_with_general_padding and lax.conv_transpose, and jnp's 1-d convolve and
// correlate. Lowered to slices, pads and one dot_general (Note [Convolutions]); no op of their own.
#include <algorithm>
#include <cctype>
#include <numeric>

#include "lang/builtin_args.hpp"
#include "lang/gather_index.hpp"
#include "lang/windows.hpp"

namespace scn {

namespace {

// Note [Convolutions]
// A convolution is im2col and one product. The input moves to (N, spatial..., C) and the kernel
// to (spatial..., I, O); lhs_dilation puts zeros between the input's elements and padding adds
// zeros at the ends (negative padding crops). Kernel tap j (a multi-index over the kernel's
// spatial extent, K taps in all) multiplies the strided slice of the input that starts at
// j * rhs_dilation with the window strides, an (N, out..., C) array; the K slices stacked are
// the patches, (N, out..., K, C), and one dot_general with the kernel as (K*I, O) contracts taps
// and features at once (a GEMM with k = K*C: a 3x3 kernel over 32 features is k = 288).
// feature_group_count G splits C and O into G groups and batch_group_count B splits N and O: the
// group is a batch axis of the product. Everything is an existing op, so the derivatives (the
// input's: the slices' transposes, pads, summed), vmap (a batch axis of every op) and every
// backend come for free, and scn's fusion turns the slices into strided reads of the product's
// operand. With more than kMaxSlicedTaps taps (a long 1-d filter) the patches are one gather
// per spatial axis instead, so that the traced function stays small.
// The patches are contracted over their last two axes as they lie: reshaped to (N, out..., K*C)
// their kernel became one flat loop with a division chain per element (8x slower).
// Cost: the patches hold K times the input, where XLA's CPU convolution reads the input in place;
// the product runs at the library's rate (a 3x3 layer: 1.1-1.4x JAX's time, its gradient
// 1.8-2.0x, docs/PERFORMANCE.md).

constexpr int64_t kMaxSlicedTaps = 64;

bool given(const Args& a, size_t i) { return a.has(i) && !a.get(i).isNone(); }

[[noreturn]] void badConv(Span span, const std::string& message, const std::string& help) { badWindow(span, message, help); }

std::string str(int64_t v) { return std::to_string(v); }

/// The axes of lhs, rhs and the result in the canonical orders (N, C, spatial...), (O, I,
/// spatial...) and (N, C, spatial...): lax's ConvDimensionNumbers.
struct ConvLayout {
  std::vector<int64_t> lhs, rhs, out;
};

ConvLayout identityLayout(size_t rank) {
  std::vector<int64_t> iota(rank);
  std::iota(iota.begin(), iota.end(), 0);
  return {iota, iota, iota};
}

/// dimension_numbers as lax reads three strings ("NHWC", "HWIO", "NHWC"): N and C (O and I for
/// the kernel) name those axes, the other letters the spatial axes, ordered as the kernel's
/// string orders them (window_strides[0] goes with the kernel's first spatial letter).
ConvLayout layoutOf(const Value& v, size_t rank, Span span) {
  const std::string help =
      "give three strings with a letter per axis, e.g. (\"NHWC\", \"HWIO\", \"NHWC\"): N and C the "
      "batch and features of the input and the result, O and I the kernel's output and input features, "
      "the same other letters for the spatial axes of all three";
  if (!v.isTuple() || v.elems->size() != 3)
    badConv(span, "dimension_numbers must be three strings, got " + describe(v), help);
  std::vector<std::string> spec;
  const char pairs[3][2] = {{'N', 'C'}, {'O', 'I'}, {'N', 'C'}};
  for (size_t k = 0; k < 3; ++k) {
    const Value& e = (*v.elems)[k];
    if (e.kind != ValueKind::String) badConv(span, "dimension_numbers must be three strings, got " + describe(v), help);
    const std::string& s = e.str;
    if (s.size() != rank)
      badConv(span, "dimension_numbers string \"" + s + "\" has " + str(s.size()) + " letters for operands of rank " + str(rank), help);
    for (char c : pairs[k])
      if (std::count(s.begin(), s.end(), c) != 1)
        badConv(span, "dimension_numbers string \"" + s + "\" must contain '" + std::string(1, pairs[k][0]) + "' and '" +
                          std::string(1, pairs[k][1]) + "' once each", help);
    std::string sorted = s;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      badConv(span, "dimension_numbers string \"" + s + "\" repeats a letter", help);
    spec.push_back(s);
  }
  auto spatialLetters = [&](size_t k) {
    std::string l;
    for (char c : spec[k])
      if (c != pairs[k][0] && c != pairs[k][1]) l += c;
    std::sort(l.begin(), l.end());
    return l;
  };
  if (spatialLetters(0) != spatialLetters(1) || spatialLetters(1) != spatialLetters(2))
    badConv(span, "dimension_numbers (\"" + spec[0] + "\", \"" + spec[1] + "\", \"" + spec[2] + "\") name different spatial axes", help);
  auto axesOf = [&](size_t k) {
    const std::string& s = spec[k];
    std::vector<int64_t> p{static_cast<int64_t>(s.find(pairs[k][0])), static_cast<int64_t>(s.find(pairs[k][1]))};
    for (char c : spec[1])
      if (c != 'O' && c != 'I') p.push_back(static_cast<int64_t>(s.find(c)));
    return p;
  };
  return {axesOf(0), axesOf(1), axesOf(2)};
}

/// What conv_general_dilated computes besides its operands and layout.
struct ConvParams {
  std::vector<int64_t> strides, lhsDilation, rhsDilation;
  Pads pads;
  int64_t featureGroups = 1, batchGroups = 1;
  std::optional<DType> resultType;  // preferred_element_type
};

/// The patches (N, out..., K, C) of an input (N, padded..., C) for kernel extents k.
AVal patchesOf(Evaluator& ev, const AVal& x, const std::vector<int64_t>& k, const std::vector<int64_t>& out,
               const ConvParams& p, Span span) {
  ArrayOps& ops = ev.ops();
  size_t n = k.size();
  int64_t taps = std::accumulate(k.begin(), k.end(), int64_t{1}, std::multiplies<>());
  int64_t N = x.type.shape[0], C = x.type.shape[n + 1];
  Shape result{N};
  result.insert(result.end(), out.begin(), out.end());
  result.push_back(taps);
  result.push_back(C);
  if (taps <= kMaxSlicedTaps) {
    std::vector<AVal> slices = windowTaps(ops, x, 1, k, p.strides, p.rhsDilation, out, span);
    for (AVal& s : slices) s = ops.expandDims(s, static_cast<int64_t>(n) + 1, span);
    return ops.concat(slices, static_cast<int64_t>(n) + 1, span);
  }
  // One gather per spatial axis: axis 1 + 2d becomes (out_d, k_d) by indices o * s + j * r.
  AVal g = x;
  for (size_t d = 0; d < n; ++d) {
    Array idx(DType::I64, {out[d], k[d]});
    for (int64_t o = 0; o < out[d]; ++o)
      for (int64_t j = 0; j < k[d]; ++j) idx.setInt(o * k[d] + j, o * p.strides[d] + j * p.rhsDilation[d]);
    std::vector<IndexArg> items(1 + 2 * d);
    for (IndexArg& it : items) {
      it.kind = IndexArg::Kind::Slice;
      it.span = span;
    }
    IndexArg a;
    a.span = span;
    a.value = ops.constant(std::move(idx));
    items.push_back(a);
    g = gatherIndexed(ev, g, items, std::nullopt, false, span);
  }
  std::vector<int64_t> perm{0};
  for (size_t d = 0; d < n; ++d) perm.push_back(1 + 2 * static_cast<int64_t>(d));
  for (size_t d = 0; d < n; ++d) perm.push_back(2 + 2 * static_cast<int64_t>(d));
  perm.push_back(1 + 2 * static_cast<int64_t>(n));
  return ops.reshape(ops.transpose(g, perm, span), result, span);
}

Shape concatShapes(std::initializer_list<Shape> parts) {
  Shape s;
  for (const Shape& p : parts) s.insert(s.end(), p.begin(), p.end());
  return s;
}

/// patches (N, out..., K, C) times kernel (spatial..., I, O) into (N', out..., O), with the
/// feature or batch groups as a batch axis of the product.
AVal contract(ArrayOps& ops, AVal patches, AVal w, const Shape& out, const ConvParams& p, Span span) {
  int64_t n = static_cast<int64_t>(out.size());
  int64_t N = patches.type.shape[0], K = patches.type.shape[n + 1], C = patches.type.shape[n + 2];
  int64_t I = w.type.shape[n], O = w.type.shape[n + 1];
  int64_t G = p.featureGroups, B = p.batchGroups;
  if (G == 1 && B == 1)  // taps and features contracted as they lie (a reshape would flatten the patches' kernel)
    return dotGeneral(ops, patches, ops.reshape(w, {K, I, O}, span), {n + 1, n + 2}, {0, 1}, {}, {}, span);
  std::vector<int64_t> toResult;  // the product's (group, rows, out..., O / groups) to (rows, out..., group, O / groups)
  for (int64_t d = 1; d <= n + 1; ++d) toResult.push_back(d);
  toResult.push_back(0);
  toResult.push_back(n + 2);
  AVal y;
  if (G > 1) {
    // (N, out..., K, G, I) -> (N, out..., G, K * I); kernel (K, I, G, O/G) -> (G, K * I, O/G).
    AVal lhs = ops.reshape(patches, concatShapes({{N}, out, {K, G, I}}), span);
    std::vector<int64_t> perm;
    for (int64_t d = 0; d <= n; ++d) perm.push_back(d);
    perm.insert(perm.end(), {n + 2, n + 1, n + 3});
    lhs = ops.reshape(ops.transpose(lhs, perm, span), concatShapes({{N}, out, {G, K * I}}), span);
    AVal rhs = ops.transpose(ops.reshape(w, {K, I, G, O / G}, span), {2, 0, 1, 3}, span);
    y = dotGeneral(ops, lhs, ops.reshape(rhs, {G, K * I, O / G}, span), {n + 2}, {1}, {n + 1}, {0}, span);
  } else {
    // (B, N/B, out..., K * C); kernel (K * C, B, O/B) -> (B, K * C, O/B).
    AVal lhs = ops.reshape(patches, concatShapes({{B, N / B}, out, {K * C}}), span);
    AVal rhs = ops.transpose(ops.reshape(w, {K * I, B, O / B}, span), {1, 0, 2}, span);
    y = dotGeneral(ops, lhs, rhs, {n + 2}, {1}, {0}, {0}, span);
  }
  Shape rows = y.type.shape;  // (group, rows, out..., O / groups)
  return ops.reshape(ops.transpose(y, toResult, span), concatShapes({{rows[1]}, out, {O}}), span);
}

/// lax.conv_general_dilated of lhs and rhs, laid out as `l`.
AVal convGeneral(Evaluator& ev, AVal lhs, AVal rhs, const ConvLayout& l, const ConvParams& p, Span span) {
  ArrayOps& ops = ev.ops();
  size_t n = lhs.type.shape.size() - 2;
  lhs = defaultize(lhs, span);
  rhs = defaultize(rhs, span);
  DType t = p.resultType.value_or(promoteTypes(lhs, rhs));
  if (t == DType::Bool) t = DType::I32;
  lhs = ops.convert(lhs, t, span);
  rhs = ops.convert(rhs, t, span);
  std::vector<int64_t> toCanonical{l.lhs[0]}, kernelOrder;
  for (size_t d = 0; d < n; ++d) toCanonical.push_back(l.lhs[2 + d]), kernelOrder.push_back(l.rhs[2 + d]);
  toCanonical.push_back(l.lhs[1]);
  kernelOrder.insert(kernelOrder.end(), {l.rhs[1], l.rhs[0]});
  AVal x = ops.transpose(lhs, toCanonical, span), w = ops.transpose(rhs, kernelOrder, span);
  int64_t N = x.type.shape[0], C = x.type.shape[n + 1], I = w.type.shape[n], O = w.type.shape[n + 1];
  int64_t G = p.featureGroups, B = p.batchGroups;
  if (C != I * G)
    badConv(span, "the input has " + str(C) + " features where the kernel's " + str(I) + " input features times feature_group_count " +
                      str(G) + " is " + str(I * G),
            "the kernel's I axis holds the input features of one group: C = I * feature_group_count");
  if (O % G != 0 || O % B != 0)
    badConv(span, "the kernel's " + str(O) + " output features do not divide into " + str(G > 1 ? G : B) + " groups",
            "feature_group_count and batch_group_count must divide the kernel's O axis");
  if (N % B != 0)
    badConv(span, "the input's batch of " + str(N) + " does not divide into batch_group_count " + str(B) + " groups",
            "batch_group_count splits the input's N axis into equal groups");
  std::vector<int64_t> k(w.type.shape.begin(), w.type.shape.begin() + static_cast<long>(n)), out;
  AVal zero = ops.convert(weakInt(0), t, span);
  for (size_t d = 0; d < n; ++d) {
    int64_t axis = static_cast<int64_t>(d) + 1;
    x = padAxis(ops, dilateAxis(ops, x, axis, p.lhsDilation[d], zero, span), axis, p.pads[d].first, p.pads[d].second, zero, span);
    out.push_back(windowCount(x.type.shape[axis], dilatedExtent(k[d], p.rhsDilation[d]), p.strides[d]));
  }
  AVal y = contract(ops, patchesOf(ev, x, k, out, p, span), w, out, p, span);
  // y is (N', out..., O); result axis l.out[c] holds canonical axis c (N 0, C 1, spatial 2...).
  std::vector<int64_t> fromY(n + 2);
  fromY[l.out[0]] = 0;
  fromY[l.out[1]] = static_cast<int64_t>(n) + 1;
  for (size_t d = 0; d < n; ++d) fromY[l.out[2 + d]] = static_cast<int64_t>(d) + 1;
  return ops.transpose(y, fromY, span);
}

void checkOperands(const AVal& lhs, const AVal& rhs, Span span, const char* fn) {
  size_t r = lhs.type.shape.size();
  if (r < 2 || rhs.type.shape.size() != r)
    badConv(span, std::string(fn) + " needs an input and a kernel of one rank >= 2 (batch, features, spatial axes...), got " +
                      surfaceTypeString(lhs) + " and " + surfaceTypeString(rhs),
            "the kernel has the input's rank: (O, I, spatial...) for an (N, C, spatial...) input, in the default layout");
}

/// The kernel's spatial extents, dilated (the window a padding string is computed for).
std::vector<int64_t> dilatedWindow(const AVal& rhs, const ConvLayout& l, const std::vector<int64_t>& rhsDilation) {
  std::vector<int64_t> w;
  for (size_t d = 0; d < rhsDilation.size(); ++d) w.push_back(dilatedExtent(rhs.type.shape[l.rhs[2 + d]], rhsDilation[d]));
  return w;
}

std::vector<int64_t> inputExtents(const AVal& lhs, const ConvLayout& l, size_t n) {
  std::vector<int64_t> in;
  for (size_t d = 0; d < n; ++d) in.push_back(lhs.type.shape[l.lhs[2 + d]]);
  return in;
}

/// padding (argument i): a string resolved for these operands, or explicit pairs.
Pads resolvePadding(const Args& a, size_t i, const AVal& lhs, const AVal& rhs, const ConvLayout& l, const ConvParams& p) {
  size_t n = p.strides.size();
  std::optional<std::string> mode = paddingMode(a, i);
  if (!mode) return explicitPads(a, i, n);
  for (int64_t d : p.lhsDilation)
    if (d != 1)
      badConv(a.span(i), "a padding string with lhs_dilation is not defined",
              "give the pads as (low, high) pairs, or use lax.conv_transpose");
  return padsOfMode(*mode, inputExtents(lhs, l, n), dilatedWindow(rhs, l, p.rhsDilation), p.strides);
}

std::optional<DType> preferredType(const Args& a, size_t i) { return given(a, i) ? a.dtype(i) : std::nullopt; }

// lax.conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
//   dimension_numbers=None, feature_group_count=1, batch_group_count=1, precision=None,
//   preferred_element_type=None)
Value convGeneralDilated(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "lax.conv_general_dilated",
         {"lhs", "rhs", "window_strides", "padding", "lhs_dilation=", "rhs_dilation=", "dimension_numbers=",
          "feature_group_count=", "batch_group_count=", "precision=", "preferred_element_type="});
  AVal lhs = a.array(0), rhs = a.array(1);
  checkOperands(lhs, rhs, c.span, "lax.conv_general_dilated");
  size_t rank = lhs.type.shape.size(), n = rank - 2;
  ConvLayout l = given(a, 6) ? layoutOf(a.get(6), rank, a.span(6)) : identityLayout(rank);
  ConvParams p;
  p.strides = perAxisInts(a, 2, n);
  p.lhsDilation = perAxisInts(a, 4, n);
  p.rhsDilation = perAxisInts(a, 5, n);
  p.featureGroups = a.integer(7, 1);
  p.batchGroups = a.integer(8, 1);
  if (p.featureGroups < 1 || p.batchGroups < 1 || (p.featureGroups > 1 && p.batchGroups > 1))
    badConv(c.span, "feature_group_count " + str(p.featureGroups) + " and batch_group_count " + str(p.batchGroups) + " do not go together",
            "each is at least 1, and at most one of them above 1");
  p.resultType = preferredType(a, 10);
  p.pads = resolvePadding(a, 3, lhs, rhs, l, p);
  return arr(convGeneral(ev, lhs, rhs, l, p, c.span));
}

// lax.conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None)
Value conv(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "lax.conv", {"lhs", "rhs", "window_strides", "padding", "precision=", "preferred_element_type="});
  AVal lhs = a.array(0), rhs = a.array(1);
  checkOperands(lhs, rhs, c.span, "lax.conv");
  size_t rank = lhs.type.shape.size(), n = rank - 2;
  ConvLayout l = identityLayout(rank);
  ConvParams p;
  p.strides = perAxisInts(a, 2, n);
  p.lhsDilation = p.rhsDilation = std::vector<int64_t>(n, 1);
  p.resultType = preferredType(a, 5);
  p.pads = resolvePadding(a, 3, lhs, rhs, l, p);
  return arr(convGeneral(ev, lhs, rhs, l, p, c.span));
}

// lax.conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
//   precision=None, preferred_element_type=None)
Value convWithGeneralPadding(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "lax.conv_with_general_padding",
         {"lhs", "rhs", "window_strides", "padding", "lhs_dilation", "rhs_dilation", "precision=", "preferred_element_type="});
  AVal lhs = a.array(0), rhs = a.array(1);
  checkOperands(lhs, rhs, c.span, "lax.conv_with_general_padding");
  size_t rank = lhs.type.shape.size(), n = rank - 2;
  ConvLayout l = identityLayout(rank);
  ConvParams p;
  p.strides = perAxisInts(a, 2, n);
  p.lhsDilation = perAxisInts(a, 4, n);
  p.rhsDilation = perAxisInts(a, 5, n);
  p.resultType = preferredType(a, 7);
  p.pads = resolvePadding(a, 3, lhs, rhs, l, p);
  return arr(convGeneral(ev, lhs, rhs, l, p, c.span));
}

/// lax's _conv_transpose_padding: the pads of the forward convolution's padding, for a kernel of
/// (dilated) extent k and stride s.
std::pair<int64_t, int64_t> transposePads(int64_t k, int64_t s, const std::string& mode, std::pair<int64_t, int64_t> given) {
  int64_t before, total;
  if (mode == "SAME") {
    total = k + s - 2;
    before = s > k - 1 ? k - 1 : (total + 1) / 2;
  } else if (mode == "VALID") {
    total = k + s - 2 + std::max<int64_t>(k - s, 0);
    before = k - 1;
  } else {
    before = k - given.first - 1;
    total = before + k - given.second - 1;
  }
  return {before, total - before};
}

// lax.conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
//   transpose_kernel=False, precision=None, preferred_element_type=None, use_consistent_padding=False)
Value convTranspose(Evaluator& ev, CallArgs& c) {
  Args a(ev, c, "lax.conv_transpose",
         {"lhs", "rhs", "strides", "padding", "rhs_dilation=", "dimension_numbers=", "transpose_kernel=", "precision=",
          "preferred_element_type=", "use_consistent_padding="});
  AVal lhs = a.array(0), rhs = a.array(1);
  checkOperands(lhs, rhs, c.span, "lax.conv_transpose");
  size_t rank = lhs.type.shape.size(), n = rank - 2;
  ConvLayout l;
  if (given(a, 5)) {
    l = layoutOf(a.get(5), rank, a.span(5));
  } else {  // lax's defaults: channels last
    if (rank > 5)
      badConv(c.span, "lax.conv_transpose has no default dimension_numbers for rank " + str(rank),
              "give dimension_numbers, e.g. (\"NHWDTC\", \"HWDTIO\", \"NHWDTC\")");
    std::string spatial = std::string("HWD").substr(0, n);
    Value specs = Value::ofTuple({Value::ofString("N" + spatial + "C"), Value::ofString(spatial + "IO"), Value::ofString("N" + spatial + "C")});
    l = layoutOf(specs, rank, c.span);
  }
  ConvParams p;
  p.lhsDilation = perAxisInts(a, 2, n);  // the strides dilate the input
  p.strides = std::vector<int64_t>(n, 1);
  p.rhsDilation = perAxisInts(a, 4, n);
  p.resultType = preferredType(a, 8);
  std::optional<std::string> mode = paddingMode(a, 3);
  Pads given = mode ? Pads(n, {0, 0}) : explicitPads(a, 3, n);
  if (!mode && !a.boolean(9, false)) {
    p.pads = given;
  } else {
    std::vector<int64_t> window = dilatedWindow(rhs, l, p.rhsDilation);
    for (size_t d = 0; d < n; ++d) p.pads.push_back(transposePads(window[d], p.lhsDilation[d], mode.value_or(""), given[d]));
  }
  if (a.boolean(6, false)) {  // flip the kernel's spatial axes and swap its I and O
    std::vector<int64_t> spatialAxes(l.rhs.begin() + 2, l.rhs.end());
    rhs = reverseAxes(ev.tracer(), rhs, spatialAxes, c.span);
    std::swap(l.rhs[0], l.rhs[1]);
  }
  return arr(convGeneral(ev, lhs, rhs, l, p, c.span));
}

/// jnp.convolve and jnp.correlate (jnp's _conv): 1-d, promoted to an inexact dtype unless
/// preferred_element_type is given; the longer operand slides over the shorter.
Value conv1d(Evaluator& ev, CallArgs& c, const char* fn, bool flip, const std::string& defaultMode) {
  Args a(ev, c, fn, {"a", "v", "mode=", "precision=", "preferred_element_type="});
  ArrayOps& ops = ev.ops();
  AVal x = defaultize(a.array(0), c.span), y = defaultize(a.array(1), c.span);
  if (x.type.shape.size() != 1 || y.type.shape.size() != 1)
    badConv(c.span, std::string(fn) + " takes two 1-d arrays, got " + surfaceTypeString(x) + " and " + surfaceTypeString(y),
            "for more dimensions use lax.conv_general_dilated");
  if (x.type.shape[0] == 0 || y.type.shape[0] == 0)
    badConv(c.span, std::string(fn) + " of an empty array (" + surfaceTypeString(x) + ", " + surfaceTypeString(y) + ")",
            "both arrays need at least one element");
  std::string mode = defaultMode;
  if (given(a, 2)) {
    if (a.get(2).kind != ValueKind::String)
      badConv(a.span(2), std::string(fn) + "'s mode must be a string, got " + describe(a.get(2)), "the modes are \"full\", \"same\" and \"valid\"");
    mode = a.get(2).str;
  }
  if (mode != "full" && mode != "same" && mode != "valid")
    badConv(a.span(2), std::string(fn) + " has no mode \"" + mode + "\"", "the modes are \"full\", \"same\" and \"valid\"");
  ConvParams p;
  p.resultType = preferredType(a, 4);
  DType t = p.resultType.value_or(inexactDType(promoteTypes(x, y)));
  x = ops.convert(x, t, c.span);
  y = ops.convert(y, t, c.span);
  bool reversed = false;
  if (!flip) y = isComplex(t) ? ops.complexPart(Op::Conj, y, c.span) : y;
  if (x.type.shape[0] < y.type.shape[0]) {
    std::swap(x, y);
    reversed = !flip;
  }
  if (flip) y = reverseAxes(ev.tracer(), y, {0}, c.span);
  int64_t m = y.type.shape[0];
  std::pair<int64_t, int64_t> pad = mode == "valid" ? std::make_pair<int64_t, int64_t>(0, 0)
                                    : mode == "same" ? std::make_pair(m / 2, m - m / 2 - 1)
                                                     : std::make_pair(m - 1, m - 1);
  p.strides = p.lhsDilation = p.rhsDilation = {1};
  p.pads = {pad};
  AVal r = convGeneral(ev, ops.reshape(x, {1, 1, x.type.shape[0]}, c.span), ops.reshape(y, {1, 1, m}, c.span), identityLayout(3), p,
                       c.span);
  r = ops.reshape(r, {r.type.shape[2]}, c.span);
  if (reversed) r = reverseAxes(ev.tracer(), r, {0}, c.span);
  return arr(r);
}

Value convolve(Evaluator& ev, CallArgs& c) { return conv1d(ev, c, "convolve", true, "full"); }
Value correlate(Evaluator& ev, CallArgs& c) { return conv1d(ev, c, "correlate", false, "valid"); }

}  // namespace

BuiltinDefs convBuiltins() {
  return {{},
          {
              {"lax.conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None, "
               "dimension_numbers=None, feature_group_count=1, batch_group_count=1, precision=None, preferred_element_type=None)",
               "the general N-d convolution of lax: strides, padding, input and kernel dilation, layouts, feature and batch groups",
               convGeneralDilated},
              {"lax.conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None)",
               "the N-d convolution of an NCHW input with an OIHW kernel", conv},
              {"lax.conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=None, "
               "preferred_element_type=None)",
               "the N-d convolution (NCHW, OIHW) with explicit pads and dilations", convWithGeneralPadding},
              {"lax.conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None, transpose_kernel=False, "
               "precision=None, preferred_element_type=None, use_consistent_padding=False)",
               "the fractionally strided convolution (an upsampling layer): the input dilated by the strides", convTranspose},
              {"convolve(a, v, mode=\"full\", precision=None, preferred_element_type=None)",
               "the discrete convolution of two 1-d arrays (mode \"full\", \"same\" or \"valid\")", convolve},
              {"correlate(a, v, mode=\"valid\", precision=None, preferred_element_type=None)",
               "the cross-correlation of two 1-d arrays, conjugating v (mode \"full\", \"same\" or \"valid\")", correlate},
          }};
}

}  // namespace scn
