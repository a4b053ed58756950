// associative_scan's combiner in scalar form.
#include "jit/combiner.hpp"

#include <cstring>
#include <optional>
#include <unordered_map>

namespace scn {

// Note [Associative scans]
// `associative_scan(f, x)` calls f on slices of x (JAX's convention: f is applied to arrays
// whose scan axis has some length and must act position by position); x may be a tuple of k
// arrays, f then maps two k-tuples to one. When the k arrays share one shape and f, traced once
// on slices of length 1, consists of elementwise ops only (plus constants with one distinct
// value, broadcasts of scalars and reshapes, which keep every position where it is), it is a
// function of 2k scalars: the tracer records one `associative_scan` op over the k arrays whose
// sub-function is that scalar combiner, and the op is lowered like cumsum with the combiner
// inlined and k accumulators (the blocked two-pass scan on the CPU, Note [Blocked scans]; a
// serial loop per row in the interpreter). The linear recurrence h = a * h + b is the k = 2
// case: `|p, q| (p.0 * q.0, q.0 * p.1 + q.1)`.
// The scan's kernel count and compile time no longer depend on the length; a combiner that is
// just `a + b` (or `*`, maximum, minimum) becomes cumsum (cumprod, cummax, cummin) itself, on
// every backend and at the top level too (cumulativeOpOf). Other combiners
// (a 2x2 matrix product, one that reduces or captures a traced value) keep the tracer's
// odd-even recursion of slices, concats and calls of f (Note [Odd-even associative scan] in
// jit/transform/expand_assoc_scan.cpp; lang/builtins_assoc_scan.cpp). A backend that prefers
// log-depth rounds (CUDA: Backend::scansWithCombiners) gets the op too, and the
// expand-associative-scans pass writes the same rounds out with the combiner inlined, so the
// trace never depends on the backend.
// The op's semantics, as the interpreter runs it: along the axis, out[0] = x[0] and
// out[i] = f(out[i-1], x[i]) (reverse: from the end). The blocked lowering reassociates, which
// an associative f permits; float rounding may differ in the last bits, as for cumsum.

namespace {

/// A constant all of whose elements are equal, as a rank-0 array; nullopt otherwise.
std::optional<Array> uniformValue(const Array& a) {
  if (a.size() == 0) return std::nullopt;
  Array s(a.dtype, {});
  size_t width = dtypeSize(a.dtype);
  const char* bytes = static_cast<const char*>(a.raw());
  std::memcpy(s.raw(), bytes, width);
  for (int64_t i = 1; i < a.size(); ++i)
    if (std::memcmp(bytes + i * width, bytes, width) != 0) return std::nullopt;
  return s;
}

}  // namespace

FuncPtr scalarCombiner(const Func& traced) {
  size_t k = traced.results.size();
  if (k == 0 || traced.params.size() != 2 * k) return nullptr;
  std::vector<DType> dtypes;
  for (size_t i = 0; i < k; ++i) {
    const Type& elem = traced.type(traced.params[i]);
    if (traced.type(traced.params[k + i]) != elem || traced.type(traced.results[i]) != elem) return nullptr;
    dtypes.push_back(elem.dtype);
  }
  auto f = std::make_shared<Func>();
  f->name = traced.name;
  std::unordered_map<int, int> var;  // traced variable -> scalar variable
  for (int p : traced.params) {
    var[p] = f->newVar(Type{traced.type(p).dtype, {}});
    f->params.push_back(var[p]);
  }
  for (const Eqn& e : traced.eqns) {
    if (e.outputs.size() != 1) return nullptr;
    OpCategory c = opInfo(e.op).category;
    int out = e.outputs[0];
    if ((c == OpCategory::BroadcastInDim || c == OpCategory::Reshape) && var.count(e.inputs[0])) {
      // A reshape keeps every value at its flat position and a broadcast of a rank-0 value is
      // the same value everywhere; any other broadcast mixes positions.
      if (c == OpCategory::BroadcastInDim && !traced.type(e.inputs[0]).shape.empty()) return nullptr;
      var[out] = var.at(e.inputs[0]);
      continue;
    }
    Eqn s = e;
    if (c == OpCategory::Constant) {
      std::optional<Array> v = uniformValue(*e.attrs.value);
      if (!v) return nullptr;
      s.attrs.value = std::make_shared<Array>(std::move(*v));
    } else if (!categoryFlags(c).elementwise) {
      return nullptr;
    }
    for (int& in : s.inputs) {
      auto it = var.find(in);
      if (it == var.end()) return nullptr;  // a captured value: not a function of (a, b) alone
      in = it->second;
    }
    s.outputs = {f->newVar(Type{traced.type(out).dtype, {}})};
    var[out] = s.outputs[0];
    f->eqns.push_back(std::move(s));
  }
  for (int r : traced.results) f->results.push_back(var.at(r));
  return checkScalarCombiner(*f, dtypes).empty() ? f : nullptr;
}

std::optional<Op> cumulativeOpOf(const Func& f) {
  if (f.results.size() != 1 || f.eqns.size() != 1 || f.results[0] != f.eqns[0].outputs[0]) return std::nullopt;
  const Eqn& e = f.eqns[0];
  bool onParams = e.inputs.size() == 2 && ((e.inputs[0] == f.params[0] && e.inputs[1] == f.params[1]) ||
                                           (e.inputs[0] == f.params[1] && e.inputs[1] == f.params[0]));
  if (!onParams) return std::nullopt;
  // The cumulative op folding with e's op (commutative, so either order of (a, b) is the same).
  for (Op op : allOps())
    if (opInfo(op).category == OpCategory::Cumulative && opInfo(op).combiner == e.op) return op;
  return std::nullopt;
}

std::string checkScalarCombiner(const Func& f, const std::vector<DType>& ts) {
  size_t k = ts.size();
  bool fits = f.params.size() == 2 * k && f.results.size() == k;
  std::string operands;
  for (size_t i = 0; i < k; ++i) {
    Type scalar{ts[i], {}};
    operands += (i ? ", " : "") + typeString(scalar);
    fits = fits && f.type(f.params[i]) == scalar && f.type(f.params[k + i]) == scalar && f.type(f.results[i]) == scalar;
  }
  if (!fits)
    return "associative_scan's combiner must be (" + operands + ", " + operands + ") -> (" + operands + ")";
  for (const Eqn& e : f.eqns) {
    OpCategory c = opInfo(e.op).category;
    bool scalarConst = c == OpCategory::Constant && e.attrs.value && e.attrs.value->shape.empty();
    if (!scalarConst && !categoryFlags(c).elementwise)
      return std::string("associative_scan's combiner may hold elementwise ops only, not ") + opName(e.op);
    for (int o : e.outputs)
      if (!f.type(o).shape.empty()) return "associative_scan's combiner computes on scalars only";
  }
  return "";
}

}  // namespace scn
