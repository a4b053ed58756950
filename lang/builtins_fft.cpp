// Builtins of jax.numpy.fft: fft ifft rfft irfft, fft2 ifft2 rfft2 irfft2, fftn ifftn rfftn
// irfftn, hfft ihfft, fftshift ifftshift, on the FFT ops (Note [FFT ops] in jit/fft.hpp); fftfreq and
// rfftfreq are in builtins_creation.cpp.
#include <cmath>
#include <set>

#include "jit/fft.hpp"
#include "lang/builtin_args.hpp"

namespace scn {

// Note [FFT builtins]
// Every transform is a sequence of 1-d transforms of the last axis (the ops): an axis that is
// not last is moved there by a transpose and back after. n= (s= for several axes) crops or
// zero-pads the input along the axis first; irfft's n is its output length and it reads n//2+1
// terms. A multi-axis real transform is rfft of the last of its axes followed by complex ffts of
// the others; its inverse runs the complex inverses first and irfft of the last axis at the end.
// norm= scales as jnp.fft: "backward" (the default) leaves the forward transform unscaled and
// the inverse by 1/N, "ortho" both by 1/sqrt(N), "forward" the forward by 1/N; N is the product
// of the transform lengths. Inputs convert as jnp: integers and bool to a float dtype (i64/u64 to
// f64, else f32), then to complex for the complex transforms; rfft refuses complex input. scn's
// fftn takes any number of axes (JAX's at most three).

namespace {

enum class Kind { Complex, RealToComplex, ComplexToReal };

struct Transform {
  const char* name;
  Kind kind;
  bool inverse;
};

bool given(const Args& a, size_t i) { return a.has(i) && !a.get(i).isNone(); }

/// x as the transform's input dtype (Note [FFT builtins]).
AVal operand(Evaluator& ev, AVal x, const Transform& t, Span span) {
  x = defaultize(x, span);
  x.weak = false;
  if (x.type.shape.empty())
    fail("E0377", span, std::string(t.name) + " needs an array of rank 1 or more, got " + typeString(x.type),
         "the transform runs along an axis of an array");
  DType d = x.type.dtype;
  if (t.kind == Kind::RealToComplex && isComplex(d))
    fail("E0373", span, std::string(t.name) + " takes real input, got " + typeString(x.type),
         "use fft for complex input, or rfft(real(x)) for its real part");
  if (!isFloat(d) && !isComplex(d)) d = d == DType::I64 || d == DType::U64 ? DType::F64 : DType::F32;
  if (t.kind != Kind::RealToComplex) d = complexOf(d);
  return ev.ops().convert(x, d, span);
}

/// x cropped or zero-padded to `len` along its last axis.
AVal resizeLast(Evaluator& ev, const AVal& x, int64_t len, Span span) {
  ArrayOps& ops = ev.ops();
  Shape s = x.type.shape;
  int64_t have = s.back();
  if (have == len) return x;
  if (have > len) {
    std::vector<int64_t> starts(s.size(), 0), limits = s, strides(s.size(), 1);
    limits.back() = len;
    return ops.slice(x, starts, limits, strides, span);
  }
  Shape pad = s;
  pad.back() = len - have;
  AVal zero = ops.convert(strongScalar(DType::F32, 0), x.type.dtype, span);
  return ops.concat({x, ops.full(pad, zero, span)}, static_cast<int64_t>(s.size()) - 1, span);
}

/// The permutation that swaps `axis` with the last axis (its own inverse).
std::vector<int64_t> swapWithLast(size_t rank, int64_t axis) {
  std::vector<int64_t> perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(i);
  std::swap(perm[axis], perm.back());
  return perm;
}

/// One 1-d transform `op` of length n along `axis` (normalised) of x.
AVal transformAxis(Evaluator& ev, AVal x, Op op, int64_t n, int64_t axis, Span span) {
  ArrayOps& ops = ev.ops();
  size_t rank = x.type.shape.size();
  bool moved = axis != static_cast<int64_t>(rank) - 1;
  if (moved) x = ops.transpose(x, swapWithLast(rank, axis), span);
  x = resizeLast(ev, x, op == Op::Irfft ? n / 2 + 1 : n, span);
  Attrs at;
  at.length = n;
  x = ev.ops().tracer().apply1(op, {x}, at, span);
  return moved ? ops.transpose(x, swapWithLast(rank, axis), span) : x;
}

/// The norm= factor on the result of a transform of `points` points in all (Note [FFT builtins]).
double normFactor(const Args& a, size_t i, const Transform& t, double points) {
  std::string norm = "backward";
  if (given(a, i)) {
    if (a.get(i).kind != ValueKind::String)
      fail("E0378", a.span(i), std::string(t.name) + "'s norm must be a string, got " + describe(a.get(i)),
           "norm is \"backward\", \"ortho\" or \"forward\"");
    norm = a.get(i).str;
  }
  if (norm == "backward") return 1.0;
  if (norm == "ortho") return t.inverse ? std::sqrt(points) : 1.0 / std::sqrt(points);
  if (norm == "forward") return t.inverse ? points : 1.0 / points;
  fail("E0378", a.span(i), std::string(t.name) + " got norm=\"" + norm + "\"", "norm is \"backward\", \"ortho\" or \"forward\"");
}

/// The transform t of x over `axes` (normalised, distinct) with lengths `sizes`, scaled by norm
/// argument `normArg` of a.
AVal transform(Evaluator& ev, const Args& a, size_t normArg, AVal x, const Transform& t,
               const std::vector<int64_t>& axes, const std::vector<int64_t>& sizes, Span span) {
  double points = 1;
  for (int64_t n : sizes) points *= static_cast<double>(n);
  size_t last = axes.size() - 1;
  Op complexOp = t.inverse ? Op::Ifft : Op::Fft;
  if (t.kind == Kind::RealToComplex) x = transformAxis(ev, x, Op::Rfft, sizes[last], axes[last], span);
  for (size_t i = 0; i < axes.size(); ++i)
    if (t.kind == Kind::Complex || i != last) x = transformAxis(ev, x, complexOp, sizes[i], axes[i], span);
  if (t.kind == Kind::ComplexToReal) x = transformAxis(ev, x, Op::Irfft, sizes[last], axes[last], span);
  double f = normFactor(a, normArg, t, points);
  if (f != 1.0) x = ev.ops().binary(Op::Mul, x, strongScalar(componentType(x.type.dtype), f), span, t.name);
  return x;
}

/// A transform length: n >= 1 (numpy's "Invalid number of FFT data points"), else E0377.
int64_t checkedLength(int64_t n, const Transform& t, Span span) {
  if (n < 1)
    fail("E0377", span, std::string(t.name) + " needs a transform length of 1 or more, got " + std::to_string(n),
         "an FFT has at least one point");
  return n;
}

/// The default length along an axis of input length m: m, or 2 (m - 1) for the output of irfft.
int64_t defaultLength(int64_t m, const Transform& t, bool lastAxis) {
  return t.kind == Kind::ComplexToReal && lastAxis ? 2 * (m - 1) : m;
}

// fft(a, n=None, axis=-1, norm=None) and its three siblings.
Value oneAxis(Evaluator& ev, CallArgs& c, const Transform& t) {
  Args a(ev, c, t.name, {"a", "n=", "axis=", "norm="});
  AVal x = operand(ev, a.array(0), t, a.span(0));
  int64_t axis = ArrayOps::normAxis(a.integer(2, -1), x.type.shape.size(), a.span(2), t.name);
  int64_t n = given(a, 1) ? a.integer(1, std::nullopt, StaticUse::Shape) : defaultLength(x.type.shape[axis], t, true);
  n = checkedLength(n, t, given(a, 1) ? a.span(1) : c.span);
  return arr(transform(ev, a, 3, x, t, {axis}, {n}, c.span));
}

// fftn(a, s=None, axes=None, norm=None) and its siblings; the 2-d forms default axes to (-2, -1).
Value manyAxes(Evaluator& ev, CallArgs& c, const Transform& t, bool twoD) {
  Args a(ev, c, t.name, {"a", "s=", "axes=", "norm="});
  AVal x = operand(ev, a.array(0), t, a.span(0));
  size_t rank = x.type.shape.size();
  std::optional<Shape> s;
  if (given(a, 1)) s = a.shape(1);
  std::vector<int64_t> axes;
  if (given(a, 2)) {
    axes = *a.axes(2);
  } else if (twoD) {
    axes = {-2, -1};
  } else {
    size_t k = s ? s->size() : rank;
    if (k > rank)
      fail("E0377", a.span(1), std::string(t.name) + " got s= of " + std::to_string(k) + " entries for an array of rank " +
                                   std::to_string(rank), "give at most one size per axis, or name the axes with axes=");
    for (size_t i = 0; i < k; ++i) axes.push_back(static_cast<int64_t>(rank) - static_cast<int64_t>(k) + static_cast<int64_t>(i));
  }
  Span axesSpan = given(a, 2) ? a.span(2) : c.span;
  if (axes.empty()) fail("E0377", axesSpan, std::string(t.name) + " got no axes to transform", "name one axis or more");
  if (s && s->size() != axes.size())
    fail("E0377", a.span(1), std::string(t.name) + " got s= of " + std::to_string(s->size()) + " entries for " +
                                 std::to_string(axes.size()) + " axes", "give one size in s= per transformed axis");
  std::set<int64_t> seen;
  for (int64_t& ax : axes) {
    ax = ArrayOps::normAxis(ax, rank, axesSpan, t.name);
    if (!seen.insert(ax).second)
      fail("E0377", axesSpan, std::string(t.name) + " got axis " + std::to_string(ax) + " twice", "name each axis once");
  }
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < axes.size(); ++i)
    sizes.push_back(checkedLength(s ? (*s)[i] : defaultLength(x.type.shape[axes[i]], t, i + 1 == axes.size()), t,
                                  s ? a.span(1) : c.span));
  return arr(transform(ev, a, 3, x, t, axes, sizes, c.span));
}

// hfft(a, n=None, axis=-1, norm=None): the real spectrum of a signal with Hermitian symmetry
// given by its first half, jnp's irfft(conj(a), n) * n; ihfft(a, ...): its inverse,
// conj(rfft(a, n)) / n. As in jnp, norm= counts hfft as a forward and ihfft as an inverse
// transform, and the factor n comes on top.
Value hermitian(Evaluator& ev, CallArgs& c, bool inverse) {
  Transform t{inverse ? "ihfft" : "hfft", inverse ? Kind::RealToComplex : Kind::ComplexToReal, inverse};
  Args a(ev, c, t.name, {"a", "n=", "axis=", "norm="});
  AVal x = operand(ev, a.array(0), t, a.span(0));
  int64_t axis = ArrayOps::normAxis(a.integer(2, -1), x.type.shape.size(), a.span(2), t.name);
  int64_t n = given(a, 1) ? a.integer(1, std::nullopt, StaticUse::Shape) : defaultLength(x.type.shape[axis], t, true);
  n = checkedLength(n, t, given(a, 1) ? a.span(1) : c.span);
  ArrayOps& ops = ev.ops();
  if (!inverse) x = ops.complexPart(Op::Conj, x, c.span);
  x = transform(ev, a, 3, x, t, {axis}, {n}, c.span);
  if (inverse) x = ops.complexPart(Op::Conj, x, c.span);
  double scale = inverse ? 1.0 / static_cast<double>(n) : static_cast<double>(n);
  return arr(ops.binary(Op::Mul, x, strongScalar(componentType(x.type.dtype), scale), c.span, t.name));
}

constexpr Transform kFft{"fft", Kind::Complex, false}, kIfft{"ifft", Kind::Complex, true};
constexpr Transform kRfft{"rfft", Kind::RealToComplex, false}, kIrfft{"irfft", Kind::ComplexToReal, true};
constexpr Transform kFft2{"fft2", Kind::Complex, false}, kIfft2{"ifft2", Kind::Complex, true};
constexpr Transform kRfft2{"rfft2", Kind::RealToComplex, false}, kIrfft2{"irfft2", Kind::ComplexToReal, true};
constexpr Transform kFftn{"fftn", Kind::Complex, false}, kIfftn{"ifftn", Kind::Complex, true};
constexpr Transform kRfftn{"rfftn", Kind::RealToComplex, false}, kIrfftn{"irfftn", Kind::ComplexToReal, true};

// fftshift(x, axes=None) / ifftshift: x rolled by n // 2 (ifftshift: -(n // 2)) along each of
// the axes (every axis when None), so that the zero frequency moves to the centre and back.
Value shift(Evaluator& ev, CallArgs& c, bool inverse) {
  const char* fn = inverse ? "ifftshift" : "fftshift";
  Args a(ev, c, fn, {"x", "axes="});
  AVal x = a.array(0);
  Shape shape = x.type.shape;
  std::vector<int64_t> axes;
  if (auto given = a.axes(1)) axes = *given;
  else for (size_t i = 0; i < shape.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  ArrayOps& ops = ev.ops();
  for (int64_t ax : axes) {
    ax = ArrayOps::normAxis(ax, shape.size(), a.has(1) ? a.span(1) : c.span, fn);
    int64_t n = shape[ax], split = inverse ? n / 2 : n - n / 2;  // out = x[split:] ++ x[:split]
    if (n <= 1) continue;
    std::vector<int64_t> starts(shape.size(), 0), limits = shape, strides(shape.size(), 1);
    limits[ax] = split;
    AVal head = ops.slice(x, starts, limits, strides, c.span);
    starts[ax] = split;
    limits[ax] = n;
    AVal tail = ops.slice(x, starts, limits, strides, c.span);
    x = ops.concat({tail, head}, ax, c.span);
  }
  return arr(x);
}

}  // namespace

BuiltinDefs fftBuiltins() {
  return {{},
          {
              {"fft(a, n=None, axis=-1, norm=None)", "the discrete Fourier transform of a along axis (complex), cropped or zero-padded to n points",
               [](Evaluator& ev, CallArgs& c) { return oneAxis(ev, c, kFft); }},
              {"ifft(a, n=None, axis=-1, norm=None)", "the inverse discrete Fourier transform of a along axis, scaled by 1/n",
               [](Evaluator& ev, CallArgs& c) { return oneAxis(ev, c, kIfft); }},
              {"rfft(a, n=None, axis=-1, norm=None)", "the Fourier transform of real a along axis: its n//2+1 non-negative frequency terms",
               [](Evaluator& ev, CallArgs& c) { return oneAxis(ev, c, kRfft); }},
              {"irfft(a, n=None, axis=-1, norm=None)", "the real inverse of rfft: n real points (default 2 (m - 1)) from m terms along axis",
               [](Evaluator& ev, CallArgs& c) { return oneAxis(ev, c, kIrfft); }},
              {"fft2(a, s=None, axes=(-2, -1), norm=None)", "the 2-d discrete Fourier transform over axes",
               [](Evaluator& ev, CallArgs& c) { return manyAxes(ev, c, kFft2, true); }},
              {"ifft2(a, s=None, axes=(-2, -1), norm=None)", "the inverse 2-d discrete Fourier transform over axes",
               [](Evaluator& ev, CallArgs& c) { return manyAxes(ev, c, kIfft2, true); }},
              {"rfft2(a, s=None, axes=(-2, -1), norm=None)", "the 2-d Fourier transform of real a, halved along the last axis",
               [](Evaluator& ev, CallArgs& c) { return manyAxes(ev, c, kRfft2, true); }},
              {"irfft2(a, s=None, axes=(-2, -1), norm=None)", "the real inverse of rfft2",
               [](Evaluator& ev, CallArgs& c) { return manyAxes(ev, c, kIrfft2, true); }},
              {"fftn(a, s=None, axes=None, norm=None)", "the n-d discrete Fourier transform over axes (all by default)",
               [](Evaluator& ev, CallArgs& c) { return manyAxes(ev, c, kFftn, false); }},
              {"ifftn(a, s=None, axes=None, norm=None)", "the inverse n-d discrete Fourier transform over axes",
               [](Evaluator& ev, CallArgs& c) { return manyAxes(ev, c, kIfftn, false); }},
              {"rfftn(a, s=None, axes=None, norm=None)", "the n-d Fourier transform of real a, halved along the last axis",
               [](Evaluator& ev, CallArgs& c) { return manyAxes(ev, c, kRfftn, false); }},
              {"irfftn(a, s=None, axes=None, norm=None)", "the real inverse of rfftn",
               [](Evaluator& ev, CallArgs& c) { return manyAxes(ev, c, kIrfftn, false); }},
              {"hfft(a, n=None, axis=-1, norm=None)", "the real spectrum of a Hermitian-symmetric signal given by its first half: irfft(conj(a), n) * n",
               [](Evaluator& ev, CallArgs& c) { return hermitian(ev, c, false); }},
              {"ihfft(a, n=None, axis=-1, norm=None)", "the inverse of hfft for real a: conj(rfft(a, n)) / n",
               [](Evaluator& ev, CallArgs& c) { return hermitian(ev, c, true); }},
              {"fftshift(x, axes=None)", "x rolled by n // 2 along each of axes (all by default): the zero frequency to the centre",
               [](Evaluator& ev, CallArgs& c) { return shift(ev, c, false); }},
              {"ifftshift(x, axes=None)", "the inverse of fftshift: x rolled by -(n // 2) along each of axes",
               [](Evaluator& ev, CallArgs& c) { return shift(ev, c, true); }},
          }};
}

}  // namespace scn
