// The IR: a first-order, SSA, jaxpr-like function of typed variables and equations over the op
// table (ops.def). Control flow ops carry their bodies as sub-functions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jit/array.hpp"
#include "base/source.hpp"

namespace scn {

enum class Op : uint8_t {
#define OP(Enum, name, cat, tc, nin, nout, comb, surface, description) Enum,
#include "jit/ops.def"
#undef OP
};

enum class OpCategory : uint8_t {
#define SCN_CATEGORY_ENUM(Cat, ...) Cat,
  SCN_OP_CATEGORIES(SCN_CATEGORY_ENUM)
#undef SCN_CATEGORY_ENUM
};

enum class TypeClass : uint8_t { Any, Real, Num, NumC, Float, FloatC, Complex, Int, IntBool };

/// What the stages ask of an op's category (the flag columns of SCN_OP_CATEGORIES in ops.def).
struct CategoryFlags {
  bool elementwise, fusible, indexOnly, needsBuffer, mapLike, flatThrough, uniformThrough,
      writesOutputLoc, savedInReverse;
};

struct OpInfo {
  Op op;
  const char* name;
  OpCategory category;
  TypeClass typeClass;
  int numInputs;   // -1: variadic
  int numOutputs;  // -1: variadic
  std::optional<Op> combiner;  // reductions and cumulative ops: the binary op they fold with
  const char* surface;         // builtin signatures, ';'-separated ("" if none)
  const char* description;     // one line per signature, ';'-separated
  CategoryFlags flags;         // of its category
};

/// The row of the op table for `op`.
const OpInfo& opInfo(Op op);
inline const char* opName(Op op) { return opInfo(op).name; }
/// Every op, in table order (tests walk it).
const std::vector<Op>& allOps();
/// The flags of a category (ops.def).
const CategoryFlags& categoryFlags(OpCategory c);
inline bool isElementwise(Op op) { return opInfo(op).flags.elementwise; }

// Case lists of a switch over OpCategory, generated from the flags of ops.def so that no switch
// lists the categories a rule does not handle by hand: `SCN_CASES_WHERE_NOT(fusible)` expands to
// `case OpCategory::Reduce: case ...` for every category whose fusible flag is 0.
#define SCN_CASE_IF_1(Cat) case OpCategory::Cat:
#define SCN_CASE_IF_0(Cat)
#define SCN_CASE_UNLESS_1(Cat)
#define SCN_CASE_UNLESS_0(Cat) case OpCategory::Cat:
#define SCN_CASE_PICK(how, flag, Cat) SCN_CASE_##how##_##flag(Cat)
#define SCN_CASE_PICK_(how, flag, Cat) SCN_CASE_PICK(how, flag, Cat)
#define SCN_FLAG_elementwise(e, f, i, b, m, fl, u, w, s) e
#define SCN_FLAG_fusible(e, f, i, b, m, fl, u, w, s) f
#define SCN_FLAG_indexOnly(e, f, i, b, m, fl, u, w, s) i
#define SCN_FLAG_needsBuffer(e, f, i, b, m, fl, u, w, s) b
#define SCN_FLAG_mapLike(e, f, i, b, m, fl, u, w, s) m
#define SCN_FLAG_flatThrough(e, f, i, b, m, fl, u, w, s) fl
#define SCN_FLAG_uniformThrough(e, f, i, b, m, fl, u, w, s) u
#define SCN_FLAG_writesOutputLoc(e, f, i, b, m, fl, u, w, s) w
#define SCN_CASE_WHERE_elementwise(Cat, ...) SCN_CASE_PICK_(IF, SCN_FLAG_elementwise(__VA_ARGS__), Cat)
#define SCN_CASE_WHERE_NOT_elementwise(Cat, ...) SCN_CASE_PICK_(UNLESS, SCN_FLAG_elementwise(__VA_ARGS__), Cat)
#define SCN_CASE_WHERE_fusible(Cat, ...) SCN_CASE_PICK_(IF, SCN_FLAG_fusible(__VA_ARGS__), Cat)
#define SCN_CASE_WHERE_NOT_fusible(Cat, ...) SCN_CASE_PICK_(UNLESS, SCN_FLAG_fusible(__VA_ARGS__), Cat)
/// `case` labels of every category whose `flag` column is 1 (SCN_CASES_WHERE) or 0.
#define SCN_CASES_WHERE(flag) SCN_OP_CATEGORIES(SCN_CASE_WHERE_##flag)
#define SCN_CASES_WHERE_NOT(flag) SCN_OP_CATEGORIES(SCN_CASE_WHERE_NOT_##flag)

/// The type of an IR variable: dtype and static shape.
struct Type {
  DType dtype = DType::F32;
  Shape shape;
  bool operator==(const Type& o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const Type& o) const { return !(*this == o); }
};
/// "f32[3,4]", "i32[]"
std::string typeString(const Type& t);
/// The bytes a value of type t takes.
inline uint64_t byteSize(const Type& t) { return static_cast<uint64_t>(numElements(t.shape)) * dtypeSize(t.dtype); }

struct Func;
using FuncPtr = std::shared_ptr<Func>;
class Collectives;  // jit/collectives.hpp

/// A differentiation rule a user gave a function (custom_jvp / custom_vjp): a call of that
/// function is a one-branch cond (index 0, operands = captured values then the arguments) that
/// carries it (Note [Custom rules] in jit/transform/custom_rules.cpp). Captured values are
/// constants to the rule: they get no tangents or cotangents.
struct CustomRule {
  enum Kind { Jvp, Vjp } kind = Jvp;
  int numArgs = 0;       // the last numArgs operands are the arguments
  int numResiduals = 0;  // Vjp
  FuncPtr jvp;  // Jvp: (captured..., args..., arg tangents...) -> (outs..., out tangents...)
  FuncPtr fwd;  // Vjp: (captured..., args...) -> (outs..., residuals...)
  FuncPtr bwd;  // Vjp: (captured..., residuals..., out cotangents...) -> (arg cotangents...)
  Span span;    // the custom_jvp / custom_vjp call that gave the rule
};
/// Attrs::checkpoints of a scan that stores every carry in reverse mode (`checkpoints=0`).
constexpr int64_t kStoreEveryCarry = -1;

/// Static attributes of an equation; each op reads the fields its comment in ops.def names.
struct Attrs {
  std::vector<int64_t> axes;
  Shape shape;
  std::vector<int64_t> starts, limits, strides;
  DType dtype = DType::F32;
  std::shared_ptr<Array> value;  // Constant
  // DotGeneral
  std::vector<int64_t> lhsContract, rhsContract, lhsBatch, rhsBatch;
  // Scan: inputs = consts[numConsts], carry[numCarry], xs[rest]; outputs = carry[numCarry], ys
  //       body(consts..., carry..., x slices...) -> (carry..., y...)
  // While: inputs = condConsts[numConsts], bodyConsts[numBodyConsts], carry[rest]; outputs = carry
  //       subs[0] = cond(condConsts..., carry...) -> bool[]; subs[1] = body(bodyConsts..., carry...) -> carry
  // Cond: inputs = index (i32[]; bool[] for two branches), operands...; subs = branches, each
  //       branch(operands...) -> outputs; index is clamped into range
  // Scan: its steps. While: a static bound on its steps when > 0 (the loops of a binomial
  // checkpointing schedule, Note [Binomial checkpointing]), which lets reverse mode run it as a
  // scan of that many guarded steps.
  int64_t length = 0;
  bool reverse = false;
  int64_t unroll = 1;
  // Scan under reverse mode: store the carry every ceil(length / checkpoints) steps and
  // recompute the steps between (Note [Scan checkpoints] in vjp_control.cpp); kStoreEveryCarry
  // stores every step; 0 lets the memory budget decide (Note [Grad memory budget]).
  int64_t checkpoints = 0;
  // Scan with checkpoints > 0: keep at most `checkpoints` carries with the binomial schedule
  // (Note [Binomial checkpointing] in binomial_schedule.cpp) rather than evenly spaced segments.
  bool binomial = false;
  // Scan: set by reverse mode on the outer backward scan of a checkpointed scan, which --stats
  // counts (checkpointCounts): the bytes storing every carry would have taken, and the memory
  // budget they exceeded when the budget rather than `checkpoints=` chose to checkpoint (else 0).
  // On the backward scan of a binomial schedule: the carries it keeps and the steps it
  // recomputes per run.
  struct CheckpointMark {
    bool segments = false;
    uint64_t residualBytes = 0, budgetBytes = 0;
    int64_t binomialCarries = 0, binomialRecomputedSteps = 0;
  } checkpointMark;
  // Scan of checkpoint(f, policy=...) (one step with f's inputs as consts), by what reverse mode
  // stores of the body besides its inputs: Nothing, the outputs of its dot_generals (Dots), or
  // of those without batch dimensions (Note [Rematerialisation] in lang/builtins_autodiff.cpp),
  // the values checkpoint_name tagged with one of rematNames (OnlyNames) or with another name
  // (AnyNamesBut) (Note [Checkpoint names]).
  enum class Remat : uint8_t { None, Nothing, Dots, DotsWithNoBatchDims, OnlyNames, AnyNamesBut } remat = Remat::None;
  std::vector<std::string> rematNames;
  // Reshape to the same shape made by checkpoint_name(x, name): x tagged with a name for
  // checkpoint's name policies; drop-identity-reshapes removes it (Note [Checkpoint names]).
  std::string checkpointName;
  int numConsts = 0;
  int numCarry = 0;
  int numBodyConsts = 0;
  // Linalg (Note [Linear algebra ops] in jit/linalg.hpp): TriangularSolve reads a's lower (else
  // upper) triangle, solves a^T x = b when transpose, takes a's diagonal as ones when
  // unitDiagonal; Qr and Svd give the square (complete) factors when fullMatrices.
  bool lower = true, transpose = false, unitDiagonal = false, fullMatrices = true;
  // Collective: the named mapped axis; ProcessCollective: the processes it runs over
  std::string axisName;
  std::shared_ptr<Collectives> group;
  bool resultGather = false;  // ProcessGather: it assembles a pmap's results (counted apart)
  std::shared_ptr<const CustomRule> custom;  // Cond: the call of a custom_jvp / custom_vjp function
};

/// Whether input `i` of a scan with these attrs (and param i of its body) is a carry, rather than
/// a const or an xs.
inline bool isScanCarry(const Attrs& scan, size_t i) {
  return static_cast<int>(i) >= scan.numConsts && static_cast<int>(i) < scan.numConsts + scan.numCarry;
}

/// One equation: outputs = op[attrs, subs](inputs).
struct Eqn {
  Op op;
  std::vector<int> inputs;   // variable ids of the enclosing Func
  std::vector<int> outputs;  // variable ids defined here
  Attrs attrs;
  std::vector<FuncPtr> subs;  // bodies of control-flow ops
  Span span;                  // the source expression it was traced from (may be invalid)
};

/// A function: parameters, equations in order (SSA: each variable defined once), results.
/// Variables are numbered per function; sub-functions have their own numbering.
struct Func {
  std::string name;
  std::vector<Type> types;  // indexed by variable id
  std::vector<int> params;
  std::vector<Eqn> eqns;
  std::vector<int> results;

  int newVar(Type t) {
    types.push_back(std::move(t));
    return static_cast<int>(types.size()) - 1;
  }
  const Type& type(int var) const { return types.at(var); }
  std::vector<Type> paramTypes() const;
  std::vector<Type> resultTypes() const;
};

/// Output types of `op` on inputs of types `in`, or an error message (lower-case, names the op
/// and prints the shapes) when the inputs do not fit the op's rule. The one shape rule per op:
/// the tracer, the verifier and the transformations all call it.
struct InferResult {
  std::vector<Type> types;
  std::string error;  // non-empty on failure
  bool ok() const { return error.empty(); }
};
/// Whether dtype t is of type class tc (the TypeClass column of ops.def).
bool inTypeClass(DType t, TypeClass tc);
InferResult inferTypes(Op op, const std::vector<Type>& in, const Attrs& attrs,
                       const std::vector<FuncPtr>& subs);

/// Checks SSA form, types against inferTypes, sub-function signatures; returns "" or a message.
std::string verify(const Func& f);

/// Stable text form (--emit=ir), e.g.
///   func f(%0: f32[3], %1: f32[]) -> (f32[3]) {
///     %2 = broadcast_in_dim[shape=(3), axes=()] %1 : f32[3]
///     %3 = mul %0, %2 : f32[3]
///     return %3
///   }
std::string printFunc(const Func& f);

}  // namespace scn
