// Runtime values of the evaluator: abstract arrays (static or traced), tuples, functions.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jit/ir.hpp"
#include "lang/syntax/ast.hpp"

namespace scn {

class Trace;
class Env;

/// Where a traced value comes from: the parameter (or loop carry) it derives from, so a
/// concretization error can point at the origin. See Note [Origins] in tracer.cpp.
struct Origin {
  std::string description;  // "the parameter `size` of `calc_gp_size`"
  std::string paramName;    // "size" (empty when not a named parameter)
  std::string fnName;       // "calc_gp_size"
  Span declSpan;            // the parameter's declaration
};

/// An array-valued abstract value. Exactly one of two states (autodidax's ConcreteArray vs
/// ShapedArray): static, with a known `concrete` value, or traced, naming variable `var` of the
/// trace `trace`. Whether a value is known is never a separate flag: it is `concrete.has_value()`.
struct AVal {
  Type type;
  bool weak = false;  // a weakly typed literal (or derived only from such): adopts the other dtype
  std::optional<Array> concrete;
  Trace* trace = nullptr;
  int var = -1;
  std::shared_ptr<const Origin> origin;  // traced values only
  /// A list literal's elements as written, before they took the default dtype: weak storage
  /// (f64, i64, c128) for array(x, dtype=) to convert exactly (Note [Array literals]). `of` is
  /// the data of the concrete array they shadow, so a copy whose data was replaced drops them.
  struct Literal {
    const void* of;
    Array values;
  };
  std::shared_ptr<const Literal> literal;

  bool isStatic() const { return concrete.has_value(); }
  /// The literal's exact values while they still shadow this array, else null.
  const Array* literalValues() const {
    return literal && concrete && literal->of == concrete->raw() ? &literal->values : nullptr;
  }
  static AVal of(Array a, bool weak = false) {
    AVal v;
    v.type = Type{a.dtype, a.shape};
    v.weak = weak;
    v.concrete = std::move(a);
    return v;
  }
};

struct Closure;
struct Builtin;
struct VmapFn;

enum class ValueKind { Array, Tuple, None, String, Closure, Builtin, Vmap, DType };

/// How deep tuples may nest (Note [Deep values] in value.cpp): E0108 where a deeper one is built.
constexpr int kMaxTupleDepth = 1000;

/// A value of the language. Cheap to copy (payloads are shared).
struct Value {
  ValueKind kind = ValueKind::None;
  int depth = 0;                             // tuple levels: 0 for all but tuples
  std::shared_ptr<AVal> array;               // Array
  std::shared_ptr<std::vector<Value>> elems;  // Tuple
  std::string str;                           // String
  std::shared_ptr<Closure> closure;          // Closure
  const Builtin* builtin = nullptr;          // Builtin
  std::shared_ptr<VmapFn> vmap;              // Vmap
  DType dtype = DType::F32;                  // DType (a dtype name: f64, also callable)

  Value() = default;
  Value(const Value&) = default;
  Value(Value&&) noexcept = default;
  Value& operator=(const Value&) = default;
  Value& operator=(Value&&) noexcept = default;
  /// Frees nested payloads without recursion (Note [Deep values]).
  ~Value() {
    if (elems || closure || vmap) releasePayloads();
  }

  static Value none() { return Value{}; }
  static Value ofArray(AVal a) {
    Value v;
    v.kind = ValueKind::Array;
    v.array = std::make_shared<AVal>(std::move(a));
    return v;
  }
  static Value ofTuple(std::vector<Value> xs) {
    Value v;
    v.kind = ValueKind::Tuple;
    for (const Value& x : xs) v.depth = std::max(v.depth, x.depth);
    v.depth += 1;
    v.elems = std::make_shared<std::vector<Value>>(std::move(xs));
    return v;
  }
  static Value ofString(std::string s) {
    Value v;
    v.kind = ValueKind::String;
    v.str = std::move(s);
    return v;
  }
  static Value ofBuiltin(const Builtin& b) {
    Value v;
    v.kind = ValueKind::Builtin;
    v.builtin = &b;
    return v;
  }
  static Value ofDType(DType t) {
    Value v;
    v.kind = ValueKind::DType;
    v.dtype = t;
    return v;
  }
  bool isArray() const { return kind == ValueKind::Array; }
  bool isTuple() const { return kind == ValueKind::Tuple; }
  bool isNone() const { return kind == ValueKind::None; }
  bool isCallable() const {
    return kind == ValueKind::Closure || kind == ValueKind::Builtin || kind == ValueKind::Vmap ||
           kind == ValueKind::DType;
  }

 private:
  void releasePayloads() noexcept;
};

/// A user function (`fn` or lambda) with the environment it closes over.
struct Closure {
  std::string name;  // "<lambda>" for lambdas
  const std::vector<Param>* params = nullptr;
  const Expr* body = nullptr;
  Span span;
  std::shared_ptr<Env> env;
  std::shared_ptr<const Program> program;  // owns params, body and span (Note [Source lifetime])
};

struct AutodiffFn;

/// vmap(f, in_axes, out_axes, axis_size): a function value; also the functions the autodiff
/// builtins make (grad(f), jacrev(f), the vjp function: `autodiff` set, the axes unused).
struct VmapFn {
  Value fn;
  std::shared_ptr<const AutodiffFn> autodiff;  // lang/builtins_autodiff.cpp
  Value inAxes;   // an int, None, or a tuple of those (one per argument)
  Value outAxes;  // same, per result
  std::optional<int64_t> axisSize;
  std::string axisName;  // "" when unnamed
  bool pmap = false;     // the axis is split over the processes of the run
  Span span;
};

/// A function made by grad, value_and_grad, jacfwd, jacrev, vjp, custom_jvp, custom_vjp or
/// checkpoint (lang/builtins_autodiff.cpp).
struct AutodiffFn {
  enum Kind { Grad, ValueAndGrad, Jacfwd, Jacrev, VjpFn, CustomJvp, CustomVjp, Checkpoint } kind = Grad;
  std::vector<int64_t> argnums{0};
  bool argnumsTuple = false;  // argnums was a tuple: the gradients come as a tuple
  bool hasAux = false;
  /// holomorphic=true: complex inputs and outputs, the derivative f'(z) (Note [Complex
  /// derivatives] in jit/transform/jvp_rules.cpp).
  bool holomorphic = false;
  std::vector<Value> primals;  // VjpFn: the arguments it was made at
  std::vector<Value> rules;    // CustomJvp: (jvp); CustomVjp: (fwd, bwd)
  /// Custom*: set while its rules are traced, where a call of the function itself runs f (a
  /// rule written with the function, as JAX's examples are, does not trace itself forever).
  mutable bool tracingRules = false;
  /// Checkpoint: its policy, JAX's name of it (Note [Rematerialisation]).
  std::string policy = "nothing_saveable";
  /// Checkpoint under save_only_these_names / save_any_names_but_these: the names it lists.
  std::vector<std::string> policyNames;
  /// "grad", "value_and_grad", "jacfwd", "jacrev", "vjp", "custom_jvp", "custom_vjp", "checkpoint".
  const char* name() const;
};

/// A short description of a value's kind for error messages: "f32[3]", "tuple", "function".
std::string describe(const Value& v);

}  // namespace scn
