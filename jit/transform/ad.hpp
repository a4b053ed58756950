// Internal to autodiff: the IR builder its rules share, the JVP rule of one equation, the
// transpose rule of one linear equation, and the control-flow rules.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "jit/autodiff.hpp"

// The ops no derivative rule covers yet (the factorisations qr and svd, and the collectives over
// named axes and processes): differentiating through them is E0276 (Note [Autodiff design]).
#define SCN_AD_OPS_WITHOUT_RULES                                                                  \
  case Op::Qr: case Op::Svd:                                                                      \
  case Op::PSum: case Op::PMax: case Op::PMin: case Op::AllGather: case Op::PPermute:               \
  case Op::ProcessSum: case Op::ProcessMax: case Op::ProcessMin: case Op::ProcessGather: case Op::ProcessPermute:

// The factorisations and the triangular solve with JVP rules (jvp_linalg.cpp).
#define SCN_AD_LINALG_OPS case Op::Cholesky: case Op::TriangularSolve: case Op::Lu: case Op::Eigh:

// The ops of complex numbers (Note [Complex derivatives] in jvp_rules.cpp): real, imag, conj,
// complex and the Fourier transforms are linear (transposed in transpose.cpp), abs and angle
// are not.
#define SCN_AD_COMPLEX_OPS \
  case Op::Real: case Op::Imag: case Op::Conj: case Op::Complex: case Op::ComplexAbs: case Op::Angle: \
  case Op::Fft: case Op::Ifft: case Op::Rfft: case Op::Irfft:

// The ops that are never linear in a tangent: they have JVP rules but no transpose rule.
#define SCN_AD_NONLINEAR_OPS \
    case Op::Not: case Op::Abs: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::Round: case Op::Sqrt: \
    case Op::Rsqrt: case Op::Exp: case Op::Log: case Op::Log1p: case Op::Expm1: case Op::Sin: case Op::Cos: \
    case Op::Tan: case Op::Tanh: case Op::Sigmoid: case Op::Asin: case Op::Acos: case Op::Atan: \
    case Op::Asinh: case Op::Acosh: case Op::Atanh: case Op::Log2: case Op::Log10: case Op::Exp2: \
    case Op::Cbrt: case Op::Reciprocal: case Op::Erf: case Op::Erfc: case Op::ErfInv: case Op::Lgamma: \
    case Op::Digamma: case Op::IsNan: case Op::IsInf: case Op::IsFinite: case Op::FloorDiv: case Op::Rem: \
    case Op::Pow: case Op::Max: case Op::Min: case Op::And: case Op::Or: case Op::Xor: case Op::Shl: \
    case Op::Shr: case Op::Atan2: case Op::Hypot: case Op::Copysign: case Op::Fmod: case Op::LogAddExp: \
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Constant: \
    case Op::Iota: case Op::ReduceProd: case Op::ReduceMax: case Op::ReduceMin: case Op::ReduceAnd: \
    case Op::ReduceOr: case Op::ArgMax: case Op::ArgMin: case Op::CumProd: case Op::CumMax: case Op::CumMin: \
    case Op::AssocScan: case Op::ScatterMul: case Op::ScatterMin: case Op::ScatterMax: case Op::Scan: \
    case Op::While: case Op::Cond: case Op::Sort: case Op::AxisIndex: case Op::ComplexAbs: case Op::Angle: \
    case Op::Cholesky: case Op::Lu: case Op::Eigh:

namespace scn::ad {

/// A tangent or cotangent: a variable, or nullopt for a symbolic zero.
using Tan = std::optional<int>;

/// Emits equations into `dst`, each with `span` (the span of the equation being differentiated);
/// output types come from inferTypes (an internal error if it rejects what a rule built).
struct Builder {
  Func& dst;
  Span span;

  /// A copy: emitting invalidates references into dst.types.
  Type type(int var) const { return dst.type(var); }
  std::vector<int> emit(Op op, std::vector<int> inputs, Attrs attrs = {}, std::vector<FuncPtr> subs = {});
  int emit1(Op op, std::vector<int> inputs, Attrs attrs = {});

  /// A constant of type t, every element v.
  int full(Type t, double v);
  int zeros(const Type& t) { return full(t, 0); }
  /// The constant v in the dtype and shape of `like`.
  int like(int like, double v) { return full(type(like), v); }
  int add(int a, int b) { return emit1(Op::Add, {a, b}); }
  int sub(int a, int b) { return emit1(Op::Sub, {a, b}); }
  int mul(int a, int b) { return emit1(Op::Mul, {a, b}); }
  int div(int a, int b) { return emit1(Op::Div, {a, b}); }
  int neg(int a) { return emit1(Op::Neg, {a}); }
  int un(Op op, int a) { return emit1(op, {a}); }
  int select(int p, int a, int b) { return emit1(Op::Select, {p, a, b}); }
  int convert(int a, DType to);
  int reshape(int a, const Shape& shape);
  int transpose(int a, const std::vector<int64_t>& perm);
  int broadcast(int a, const Shape& shape, const std::vector<int64_t>& axes);
  int reduceSum(int a, const std::vector<int64_t>& axes);
  /// a[lo:hi] along `axis` (every other axis whole).
  int sliceAxis(int a, int64_t axis, int64_t lo, int64_t hi);
  /// x[..., idx, ...] along `axis` for an integer idx of x's shape (take_along_axis).
  int takeAlongAxis(int x, int idx, int64_t axis);
  /// Zeros of x's type with ct added at idx along `axis` (the transpose of takeAlongAxis).
  int scatterAlongAxis(const Type& t, int ct, int idx, int64_t axis);
  /// `t` when present, else zeros of type `ty`.
  int instantiate(Tan t, const Type& ty) { return t ? *t : zeros(ty); }
  /// a + b where either may be a symbolic zero.
  Tan addTan(Tan a, Tan b);
};

/// Whether values of this dtype carry tangents (floats and complex numbers); others have zero
/// tangents.
bool differentiable(DType d);

/// The JVP rule of a data (non-control-flow) equation whose primal is already emitted:
/// `in`/`out` are its primal inputs and outputs in b.dst, `tin` the input tangents (not all
/// zero). Returns one tangent per output. Every tangent it builds is linear in `tin` with
/// coefficients computed from primals (Note [Autodiff design]).
std::vector<Tan> jvpRule(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin,
                         const std::vector<int>& out);

/// The JVP rule of a factorisation or a triangular solve (jvp_linalg.cpp), as jvpRule's.
std::vector<Tan> linalgJvp(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin,
                           const std::vector<int>& out);

/// The transpose of a linear equation: `linear[i]` says which inputs are linear, `ct` the
/// cotangents of its outputs. Returns a cotangent per input (nullopt for non-linear inputs).
std::vector<Tan> transposeRule(Builder& b, const Eqn& e, const std::vector<bool>& linear,
                               const std::vector<Tan>& ct);

/// Whether transposeRule handles `op` (the linear ops JVP rules emit on tangents).
bool hasTransposeRule(Op op);

/// A call of a custom_jvp / custom_vjp function (Note [Custom rules] in custom_rules.cpp).
bool isCustomCall(const Eqn& e);

/// The JVP of any equation (the rule of its op, or of its control flow): emits its primal and
/// tangent computation; an error (E0276) for an op without a rule when a tangent is nonzero.
struct Dual;
Dual jvpEqn(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin);

/// The JVP of a control-flow equation (scan, while, cond): emits the primal and the tangent
/// computation together; returns the primal outputs and their tangents.
struct Dual {
  std::vector<int> primal;
  std::vector<Tan> tangent;
};
Dual jvpControl(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin);

/// Reverse mode of a control-flow equation: emits its forward part now and returns what emits
/// the backward part later (given the output cotangents, the input cotangents).
using Backward = std::function<std::vector<Tan>(Builder&, const std::vector<Tan>&)>;
/// A backward part that is given the input cotangents accumulated so far (from later uses) as
/// well and returns the totals, so that it can add to them in the order of the equations
/// (checkpoint's scan: Note [Rematerialisation]).
using AccumulatingBackward =
    std::function<std::vector<Tan>(Builder&, const std::vector<Tan>& ctOut, const std::vector<Tan>& ctInSoFar)>;
struct Forward {
  std::vector<int> primal;
  Backward backward;
  AccumulatingBackward accumulating = {};  // instead of backward, when set
};
Forward vjpControl(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& needCt,
                   const VjpOptions& options);

/// vjpFunc, except that the equations `saved[i]` of f are not evaluated: their outputs, stored by
/// the forward pass, are parameters after f's (checkpoint's dots_saveable policy); and that the
/// parameters i where seeded[i] start from a given cotangent, a parameter after those, before
/// the result cotangents: g(params..., saved outputs..., seeds..., cotangents...) (Note
/// [Rematerialisation] in lang/builtins_autodiff.cpp). Empty vectors: none.
FuncPtr vjpFuncSaving(const Func& f, const std::vector<bool>& wrt, const std::vector<bool>& saved,
                      const std::vector<bool>& seeded, const VjpOptions& options);

/// What reverse mode of a scan stores per step besides the carry (Note [Scan residuals] in
/// scan_residuals.cpp): saved[i] for the body's equation i whose outputs are stacked, and the
/// bytes one step stores, carry included.
struct ScanResiduals {
  std::vector<bool> saved;
  uint64_t bytesPerStep = 0;  // the residuals and the carry of one step
  uint64_t carryBytes = 0;    // the carry alone
};
ScanResiduals scanResiduals(const Func& body, const Attrs& attrs, const VjpOptions& options);

/// The JVP of a custom call: the user's rule inlined (E0366 for a custom_vjp function).
Dual jvpCustom(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<Tan>& tin);
/// Reverse mode of a custom_vjp call: fwd inlined now, bwd in the backward sweep.
Forward vjpCustom(Builder& b, const Eqn& e, const std::vector<int>& in, const std::vector<bool>& needCt);
/// E0367 unless every equation of a custom_jvp call's linear part (`isLinear`: the variables
/// that are tangents) can be transposed.
void checkLinearRule(const Eqn& custom, const std::vector<Eqn>& linearEqns, std::vector<bool> isLinear);

/// `f` with its parameters and results placed in the given orders (indices into the old lists).
FuncPtr permuted(const Func& f, const std::vector<size_t>& params, const std::vector<size_t>& results);

}  // namespace scn::ad
