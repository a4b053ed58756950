// The reference interpreter: evalEqn dispatches each op to its kernel by category, runs the
// control-flow ops by calling itself on their bodies, and serves as the oracle backend.
#include <chrono>
#include <cstring>

#include "jit/backend.hpp"
#include "jit/interp_kernels.hpp"
#include "jit/widen.hpp"
#include "base/diagnostics.hpp"

namespace scn {

namespace {

using interp::clampedStart;
using Interrupt = const std::atomic<int32_t>*;

/// Once per iteration of a loop (Note [Interrupting compiled code]).
void poll(Interrupt interrupt) {
  if (interrupt && interrupt->load(std::memory_order_relaxed) != 0) failInterrupted();
}

std::vector<Array> evalEqnWith(const Eqn& e, const std::vector<Array>& in, Interrupt interrupt);

std::vector<Array> slice(const std::vector<Array>& v, size_t begin, size_t end) {
  return std::vector<Array>(v.begin() + begin, v.begin() + end);
}

std::vector<Array> concat(std::vector<Array> a, const std::vector<Array>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

size_t rowBytes(const Array& x) {
  int64_t n = 1;
  for (size_t d = 1; d < x.shape.size(); ++d) n *= x.shape[d];
  return static_cast<size_t>(n) * dtypeSize(x.dtype);
}

// Row t of x along its leading axis, as a new array.
Array row(const Array& x, int64_t t) {
  Array r(x.dtype, Shape(x.shape.begin() + 1, x.shape.end()));
  size_t bytes = rowBytes(x);
  if (bytes) std::memcpy(r.raw(), static_cast<const char*>(x.raw()) + t * bytes, bytes);
  return r;
}

// Note [Scan order]: iteration i reads the xs rows and writes the ys rows at position
// t = reverse ? length - 1 - i : i, so a reverse scan walks the rows backwards and its stacked
// ys line up with its xs (JAX's semantics).
std::vector<Array> evalScan(const Eqn& e, const std::vector<Array>& in, const std::vector<Type>& outT,
                            Interrupt interrupt) {
  const Attrs& a = e.attrs;
  const size_t nc = a.numConsts, nk = a.numCarry;
  const Func& body = *e.subs[0];
  std::vector<Array> consts = slice(in, 0, nc), carry = slice(in, nc, nc + nk),
                     xs = slice(in, nc + nk, in.size());
  std::vector<Array> ys;
  for (size_t j = nk; j < outT.size(); ++j) ys.emplace_back(outT[j].dtype, outT[j].shape);
  for (int64_t i = 0; i < a.length; ++i) {
    poll(interrupt);
    int64_t t = a.reverse ? a.length - 1 - i : i;
    std::vector<Array> args = concat(consts, carry);
    for (const Array& x : xs) args.push_back(row(x, t));
    std::vector<Array> res = interpret(body, args, interrupt);
    carry = slice(res, 0, nk);
    for (size_t j = 0; j < ys.size(); ++j) {
      size_t bytes = rowBytes(ys[j]);
      if (bytes) std::memcpy(static_cast<char*>(ys[j].raw()) + t * bytes, res[nk + j].raw(), bytes);
    }
  }
  return concat(carry, ys);
}

std::vector<Array> evalWhile(const Eqn& e, const std::vector<Array>& in, Interrupt interrupt) {
  const size_t nc = e.attrs.numConsts, nb = e.attrs.numBodyConsts;
  std::vector<Array> condConsts = slice(in, 0, nc), bodyConsts = slice(in, nc, nc + nb);
  std::vector<Array> carry = slice(in, nc + nb, in.size());
  while (interpret(*e.subs[0], concat(condConsts, carry), interrupt)[0].data<bool>()[0]) {
    carry = interpret(*e.subs[1], concat(bodyConsts, carry), interrupt);
    poll(interrupt);
  }
  return carry;
}

// The index picks a branch: bool false/true -> 0/1, an integer is clamped into range.
std::vector<Array> evalCond(const Eqn& e, const std::vector<Array>& in, Interrupt interrupt) {
  int64_t branch =
      clampedStart(in[0].dtype == DType::Bool ? Array::scalarInt(DType::I32, in[0].data<bool>()[0]) : in[0],
                   static_cast<int64_t>(e.subs.size()) - 1);
  return interpret(*e.subs[branch], slice(in, 1, in.size()), interrupt);
}

// An op on bf16 / f16 values: as one function, rewritten to compute in f32 (jit/widen.hpp).
std::vector<Array> evalWidened(const Eqn& e, const std::vector<Array>& in, const std::vector<Type>& out,
                               Interrupt interrupt) {
  Func f;
  f.name = opName(e.op);
  Eqn copy = e;
  copy.inputs.clear();
  copy.outputs.clear();
  for (const Array& a : in) {
    f.params.push_back(f.newVar(Type{a.dtype, a.shape}));
    copy.inputs.push_back(f.params.back());
  }
  for (const Type& t : out) copy.outputs.push_back(f.newVar(t));
  f.results = copy.outputs;
  f.eqns.push_back(std::move(copy));
  widenLowPrecision(f);
  return interpret(f, in, interrupt);
}

std::vector<Array> evalEqnWith(const Eqn& e, const std::vector<Array>& in, Interrupt interrupt) {
  std::vector<Type> types;
  for (const Array& a : in) {
    SCN_ASSERT(a.buffer != nullptr, std::string("evalEqn: an operand of ") + opName(e.op) + " has no buffer");
    types.push_back(Type{a.dtype, a.shape});
  }
  InferResult r = inferTypes(e.op, types, e.attrs, e.subs);
  if (!r.ok()) internalError("evalEqn: " + r.error);
  const std::vector<Type>& out = r.types;
  if (widensLowPrecision(e.op, types, out)) return evalWidened(e, in, out, interrupt);
  using namespace interp;
  switch (opInfo(e.op).category) {
    case OpCategory::Unary: return {unaryOp(e.op, in[0], out[0])};
    case OpCategory::Predicate: return {predicateOp(e.op, in[0], out[0])};
    case OpCategory::Binary: return {binaryOp(e.op, in[0], in[1], out[0])};
    case OpCategory::Compare: return {compareOp(e.op, in[0], in[1], out[0])};
    case OpCategory::Select: return {selectOp(in[0], in[1], in[2], out[0])};
    case OpCategory::Convert: return {convertOp(in[0], out[0])};
    case OpCategory::ComplexPart: return {complexPartOp(e.op, in, out[0])};
    case OpCategory::Constant: return {*e.attrs.value};
    case OpCategory::Iota: return {iotaOp(e.attrs, out[0])};
    case OpCategory::Reduce: return {reduceOp(e.op, in[0], e.attrs, out[0])};
    case OpCategory::ArgReduce: return {argReduceOp(e.op, in[0], e.attrs, out[0])};
    case OpCategory::Cumulative: return {cumulativeOp(e.op, in[0], e.attrs, out[0])};
    case OpCategory::AssocScan: return assocScanOp(*e.subs.at(0), in, e.attrs);
    case OpCategory::BroadcastInDim: return {broadcastInDimOp(in[0], e.attrs, out[0])};
    case OpCategory::Reshape: return {reshapeOp(in[0], out[0])};
    case OpCategory::Transpose: return {transposeOp(in[0], e.attrs, out[0])};
    case OpCategory::Concat: return {concatOp(in, e.attrs, out[0])};
    case OpCategory::Slice: return {sliceOp(in[0], e.attrs, out[0])};
    case OpCategory::Reverse: return {reverseOp(in[0], e.attrs, out[0])};
    case OpCategory::DynamicSlice: return {dynamicSliceOp(in, out[0])};
    case OpCategory::DynamicUpdateSlice: return {dynamicUpdateSliceOp(in, out[0])};
    case OpCategory::Gather: return {gatherOp(in, out[0])};
    case OpCategory::Scatter: return {scatterOp(e.op, in, out[0])};
    case OpCategory::DotGeneral: return {dotGeneralOp(in[0], in[1], e.attrs, out[0])};
    case OpCategory::Scan: return evalScan(e, in, out, interrupt);
    case OpCategory::While: return evalWhile(e, in, interrupt);
    case OpCategory::Cond: return evalCond(e, in, interrupt);
    case OpCategory::Sort: return sortOp(in, e.attrs);
    case OpCategory::Linalg: return linalgOp(e.op, in, e.attrs, out);
    case OpCategory::ProcessCollective: return {processCollectiveOp(e, in[0], out[0])};
    case OpCategory::Collective:
      internalError(std::string("evalEqn: the collective ") + opName(e.op) + " over axis `" + e.attrs.axisName +
                    "` was not consumed by its axis's batching rule");
  }
  internalError(std::string("evalEqn: no kernel for ") + opName(e.op));
}

}  // namespace

std::vector<Array> evalEqn(const Eqn& e, const std::vector<Array>& in) { return evalEqnWith(e, in, nullptr); }

std::vector<Array> interpret(const Func& f, const std::vector<Array>& args, Interrupt interrupt) {
  const std::string fname = f.name.empty() ? "<anonymous>" : f.name;
  if (args.size() != f.params.size())
    internalError("interpret: " + fname + " takes " + std::to_string(f.params.size()) +
                  " arguments but got " + std::to_string(args.size()));
  std::vector<Array> env(f.types.size());
  std::vector<bool> defined(f.types.size(), false);
  for (size_t i = 0; i < args.size(); ++i) {
    Type t{args[i].dtype, args[i].shape};
    if (t != f.type(f.params[i]) || !args[i].buffer)
      internalError("interpret: argument " + std::to_string(i) + " of " + fname + " has type " +
                    typeString(t) + " but the parameter has type " + typeString(f.type(f.params[i])));
    env[f.params[i]] = args[i];
    defined[f.params[i]] = true;
  }
  // Free each value after its last use, so long programs hold only what is live.
  std::vector<size_t> lastUse(f.types.size(), 0);
  for (size_t k = 0; k < f.eqns.size(); ++k)
    for (int v : f.eqns[k].inputs) lastUse.at(v) = k;
  std::vector<bool> isResult(f.types.size(), false);
  for (int v : f.results) isResult.at(v) = true;

  for (size_t k = 0; k < f.eqns.size(); ++k) {
    const Eqn& e = f.eqns[k];
    std::vector<Array> in;
    for (int v : e.inputs) {
      SCN_ASSERT(defined.at(v),
                 "interpret: " + fname + " uses %" + std::to_string(v) + " before it is defined");
      in.push_back(env[v]);
    }
    std::vector<Array> outs = evalEqnWith(e, in, interrupt);
    SCN_ASSERT(outs.size() == e.outputs.size(),
               std::string("interpret: wrong output count for ") + opName(e.op));
    for (size_t o = 0; o < outs.size(); ++o) {
      int v = e.outputs[o];
      SCN_ASSERT((Type{outs[o].dtype, outs[o].shape} == f.type(v)),
                 "interpret: " + fname + " records %" + std::to_string(v) + " as " + typeString(f.type(v)) +
                     " but " + opName(e.op) + " produced " + typeString(Type{outs[o].dtype, outs[o].shape}));
      env[v] = std::move(outs[o]);
      defined[v] = true;
    }
    for (int v : e.inputs)
      if (lastUse[v] == k && !isResult[v]) env[v] = Array();
  }
  std::vector<Array> results;
  for (int v : f.results) {
    SCN_ASSERT(defined.at(v),
               "interpret: result %" + std::to_string(v) + " of " + fname + " is never defined");
    results.push_back(env[v]);
  }
  return results;
}

// ---- the interpreter as a backend ----

namespace {

class InterpExecutable : public Executable {
 public:
  InterpExecutable(FuncPtr f, Interrupt interrupt) : f_(std::move(f)), interrupt_(interrupt) {}
  std::vector<Array> execute(const std::vector<Array>& args, RunStats* stats) override {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Array> out = interpret(*f_, args, interrupt_);
    if (stats) {
      *stats = RunStats{};
      stats->runMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    return out;
  }

 private:
  FuncPtr f_;
  Interrupt interrupt_;
};

class InterpreterBackend : public Backend {
 public:
  explicit InterpreterBackend(Interrupt interrupt) : interrupt_(interrupt) {}
  std::string name() const override { return "interp"; }
  std::unique_ptr<Executable> compile(const FuncPtr& f, CompileStats* stats) override {
    SCN_ASSERT(f != nullptr, "interpreter: compile of a null function");
    if (stats) *stats = CompileStats{};
    return std::make_unique<InterpExecutable>(f, interrupt_);
  }

 private:
  Interrupt interrupt_;
};

}  // namespace

std::unique_ptr<Backend> makeInterpreterBackend(const std::atomic<int32_t>* interrupt) {
  return std::make_unique<InterpreterBackend>(interrupt);
}

}  // namespace scn
