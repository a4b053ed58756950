// The evaluator: walks the AST, running top-level code eagerly and tracing every `fn` call into
// an IR function that is compiled once per signature.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lang/array_ops.hpp"
#include "jit/array_format.hpp"
#include "jit/autodiff.hpp"
#include "jit/collectives.hpp"
#include "lang/tracer.hpp"
#include "lang/value.hpp"

namespace scn {

struct Diagnostic;

/// A lexical scope. A function body's scope is a boundary: `x = e` cannot rebind past it.
class Env {
 public:
  Env(std::shared_ptr<Env> parent, bool fnBoundary)
      : parent_(std::move(parent)), fnBoundary_(fnBoundary), serial_(nextSerial()) {}
  /// The value bound to `name` here or in an enclosing scope; `where` gets the scope.
  const Value* lookup(const std::string& name, const Env** where = nullptr) const;
  void define(const std::string& name, Value v) { vars_[name] = std::move(v); }
  /// Rebinds an existing local; returns 0 on success, 1 when unknown, 2 when it lives outside
  /// the current function.
  int assign(const std::string& name, Value v);
  const std::map<std::string, Value>& vars() const { return vars_; }
  const std::shared_ptr<Env>& parent() const { return parent_; }
  /// Drops every binding (breaks the cycle global scope -> closure -> global scope).
  void clear() { vars_.clear(); }
  /// Moves every binding out (Note [Scope cycles]).
  std::map<std::string, Value> takeVars() { return std::exchange(vars_, {}); }
  /// Scopes are numbered in the order they are made (Note [Scope cycles]).
  uint64_t serial() const { return serial_; }

 private:
  static uint64_t nextSerial();

  std::shared_ptr<Env> parent_;
  bool fnBoundary_;
  uint64_t serial_;
  std::map<std::string, Value> vars_;
};

/// Frees scopes that end inside reference cycles (a closure bound in the scope that made it;
/// Note [Scope cycles] in scope_release.cpp). An ending scope is checked at once; one still
/// reachable but inside a cycle is remembered and checked again later, since the value that
/// keeps it (an escaped closure) may be dropped without any scope ending.
class ScopeCollector {
 public:
  /// A block, loop iteration or call ended: drops the scope's bindings when nothing outside
  /// the cycles through it can reach it.
  void ended(const std::shared_ptr<Env>& scope);
  /// Checks the remembered scopes again (after each program, and when they double).
  void collect();

 private:
  std::vector<std::weak_ptr<Env>> suspects_;
  size_t threshold_ = 64;
  bool collecting_ = false;
};

/// Tells the collector when a block, loop iteration or call ends, also by an error.
struct ScopeEnd {
  ScopeCollector& collector;
  const std::shared_ptr<Env>& scope;
  ~ScopeEnd() {
    try {
      collector.ended(scope);
    } catch (...) {  // only bad_alloc: keeping the bindings is always safe
    }
  }
};

/// Arguments of a call, with spans for messages.
struct CallArgs {
  std::vector<Value> pos;
  std::vector<Span> posSpans;
  std::vector<std::pair<std::string, Value>> kw;
  std::vector<Span> kwSpans;
  Span span;  // the whole call
  bool fromHost = false;  // an embedding host's call: its call chain ends "from the host"
};

/// A pytree's structure: leaves are arrays; inner nodes tuples; None is an empty node.
struct TreeDef {
  enum Kind { Leaf, Tuple, None } kind = Leaf;
  std::vector<TreeDef> children;
  bool operator==(const TreeDef& o) const { return kind == o.kind && children == o.children; }
  std::string str() const;
};

/// Figures for --stats, one record per compiled-function call.
struct CallRecord {
  std::string fn;
  bool traced = false;    // false: the compiled code was reused from the cache
  bool cacheHit = false;  // traced, but code generation was skipped (CompileStats::cacheHit)
  bool cacheRejected = false;  // CompileStats::cacheRejected
  double traceMs = 0, optimiseMs = 0, codegenMs = 0, runMs = 0;
  /// Peak bytes of host buffers the run allocated (cpu: temporaries and results; cuda: the
  /// results copied back), and of device buffers (cuda: the pool blocks of the call) when the
  /// backend has a device (`device`). The interpreter does not measure (`measured` false).
  size_t peakBytes = 0, devicePeakBytes = 0, copiedBytes = 0;
  int64_t inPlaceUpdates = 0;  // RunStats::inPlaceUpdates
  /// Carries stored and steps recomputed by checkpointed scans, and the scans the grad memory
  /// budget checkpointed (jit/autodiff.hpp CheckpointCounts).
  int64_t checkpointedCarries = 0, recomputedSteps = 0;
  int64_t autoCheckpointedScans = 0;
  uint64_t uncheckpointedBytes = 0, gradMemoryBudget = 0;
  bool device = false, measured = true;
  int kernels = 0;
  std::string backend;
  /// "f(f32[8], n=3)": the argument types, and the values of static ones.
  std::string signature;
  /// Why a function compiled before was traced again (Note [Retrace reasons]); "" otherwise.
  std::string retrace;
};

/// One call's signature: each parameter's part of the compile-cache key, and how it shows.
struct CallSignature {
  std::vector<std::string> keyParts, shown;
};

struct Builtin;
struct IndexArg;
class Evaluator;
using BuiltinFn = Value (*)(Evaluator&, CallArgs&);
/// A builtin function and its record (Note [Builtin records] in lang/builtin_table.cpp).
struct Builtin {
  std::string name;
  BuiltinFn fn;
  std::string signature;    // "sum(x, axis=None)"
  std::string description;  // one line: what it computes
};
/// Every builtin function, by name.
const std::map<std::string, Builtin>& builtins();
/// The help line of an unknown member `name` of an array: the close names and all of them
/// (Note [Methods] in lang/methods.cpp).
std::string arrayMemberHelp(const std::string& name);

/// Host hooks: where printed text goes, and how a Func is run on the selected backend.
struct EvalHost {
  std::function<void(const std::string&)> out;
  std::function<std::vector<Array>(const FuncPtr&, const std::vector<Array>&, CallRecord*)> run;
  /// A file's text; nullopt when there is no file at `path` (readSourceFile). Throws UserError.
  std::function<std::optional<std::string>(const std::string& path)> readFile;
  /// Polled between statements and loop iterations: true when the user asked to stop (Ctrl-C
  /// in the REPL). Compiled code runs to the end of its call.
  std::function<bool()> interrupted;
  /// The stdlib files, importable by name.
  std::vector<std::pair<std::string_view, std::string_view>> stdlib;
  /// The processes of the run, which pmap splits its axis over (null: this process alone).
  std::shared_ptr<Collectives> processes;
  /// How grad, vjp and jacrev store residuals (the grad memory budget).
  VjpOptions vjp;
};

/// A mapped axis being traced now: its name, its size (all lanes, over every process), and
/// whether a pmap maps it (Note [Named axes] in jit/transform/batch_collectives.cpp).
struct AxisFrame {
  std::string name;
  int64_t size = 0;
  bool pmap = false;
};

class Evaluator {
 public:
  explicit Evaluator(EvalHost host);
  ~Evaluator();

  /// Runs a parsed program's statements in `env` (the global scope for scripts and the REPL).
  /// Returns the value of a final expression statement (for the REPL and -e), or None. The
  /// functions it defines keep `p` alive (Note [Source lifetime]).
  Value runProgram(const std::shared_ptr<const Program>& p, const std::shared_ptr<Env>& env);
  /// A script or `:load`ed file counts as imported while and after it runs, so an import cycle
  /// back to it does nothing (a file runs once per session); `ran` false forgets it again after
  /// it failed, so a later import runs it anew.
  void noteFileRun(const std::string& path, bool ran);
  /// The programs the last UserError thrown out of the evaluator points into (Note [Source
  /// lifetime]): whoever keeps that diagnostic keeps these.
  std::vector<std::shared_ptr<const Program>> takeErrorSources() { return std::exchange(errorSources_, {}); }
  Value eval(const Expr& e, const std::shared_ptr<Env>& env);
  void exec(const Stmt& s, const std::shared_ptr<Env>& env);
  /// An array literal `[...]`, unstacked: a tuple of its rows (nested literals too), the
  /// elements as written, checked for raggedness; for `array(x, dtype=)` to convert each element
  /// (Note [Array literals]).
  Value evalListRows(const ListExpr& e, const std::shared_ptr<Env>& env);

  /// Calls any callable value (closure, builtin, vmapped function, dtype).
  Value call(const Value& callee, CallArgs& args);
  /// Traces `fn` on abstract arguments inside a new child trace of the current one. Returns the
  /// finished trace (captures first, then the flattened arguments) and the result's structure.
  struct Traced {
    std::unique_ptr<Trace> trace;
    FuncPtr func;
    TreeDef outTree;
    std::vector<AVal> outLeaves;  // as seen inside the trace (types, weak flags)
  };
  /// With `keepStatic`, a static scalar leaf of the arguments reaches the body as it is (its
  /// parameter stays unused): a transformation passes the arguments it does not transform (vmap's
  /// in_axes=None, grad's outside argnums) that way, so a `static` parameter accepts them (Note
  /// [Static arguments of a transformation] in calls.cpp).
  Traced traceFunction(const Value& fn, const std::vector<Value>& abstractArgs, Span span,
                       const std::string& name, const std::string& originWhat, bool keepStatic = false);
  /// As traceFunction, for a body written in C++ (fori_loop's step, ...).
  Traced traceBody(const std::function<Value(const std::vector<Value>&)>& body,
                   const std::vector<Value>& abstractArgs, Span span, const std::string& name,
                   const std::string& originWhat, bool keepStatic = false);

  Tracer& tracer() { return tracer_; }
  ArrayOps& ops() { return ops_; }
  EvalHost& host() { return host_; }
  /// The named axes of the vmaps and pmaps being traced, innermost last.
  std::vector<AxisFrame>& axisEnv() { return axisEnv_; }
  /// The processes of the run (the host's, or a group of this process alone).
  const std::shared_ptr<Collectives>& processes();
  std::vector<CallRecord>& records() { return records_; }
  /// The signatures `c` is compiled for now (CallRecord::signature), for `:help NAME`.
  std::vector<std::string> compiledSignatures(const Closure* c) const;

  // Pytrees
  static void flatten(const Value& v, std::vector<AVal>& leaves, TreeDef& def, Span span,
                      const char* what);
  static Value unflatten(const TreeDef& def, const std::vector<AVal>& leaves, size_t& pos);

  /// A value as print writes it (one line), with the print options.
  std::string format(const Value& v);
  /// A value as the REPL shows it (Note [Array display] in jit/array_display.cpp): arrays of
  /// two or more dimensions on several lines, a dtype that is not the default shown
  /// (`i64[3]: [0, 1, 2]`), strings in tuples quoted.
  std::string display(const Value& v);
  /// set_printoptions' settings, for print and the REPL.
  PrintOptions& printOptions() { return printOptions_; }
  std::shared_ptr<Env> globals() { return globals_; }
  /// `a op b` of two arrays, as the operator computes it (jnp's add, multiply, less, ... too).
  Value arrayOperator(BinaryOp op, const AVal& a, const AVal& b, Span span);
  void setGlobals(std::shared_ptr<Env> g) { globals_ = std::move(g); }

 private:
  Value callClosure(const std::shared_ptr<Closure>& c, CallArgs& args);
  Value inlineClosure(const Closure& c, std::vector<Value> bound, Span site);
  /// `site` is where the call is (invalid for the host's), `span` where its errors point.
  Value callCompiled(const std::shared_ptr<Closure>& c, std::vector<Value> bound, Span span, Span site);
  Value callVmap(const VmapFn& v, CallArgs& args);
  std::vector<Value> bindParams(const Closure& c, CallArgs& args);
  Value evalList(const ListExpr& e, const std::shared_ptr<Env>& env);
  Value evalBinary(const BinaryExpr& e, const std::shared_ptr<Env>& env);
  Value evalIndex(const IndexExpr& e, const std::shared_ptr<Env>& env);
  /// The items of `x[...]` evaluated (lang/indexing.cpp).
  std::vector<IndexArg> evalIndexArgs(const std::vector<IndexItem>& items, const std::shared_ptr<Env>& env);
  AVal basicIndex(const AVal& x, const std::vector<IndexArg>& args, Span span);
  /// `x.f(args)` (Note [Methods] in lang/methods.cpp) and `x.at[i].f(args)`.
  Value evalMethodCall(const CallExpr& e, const std::shared_ptr<Env>& env);
  Value evalAtUpdate(const CallExpr& e, const IndexExpr& ix, const std::shared_ptr<Env>& env);
  Value evalAttr(const AttrExpr& e, const std::shared_ptr<Env>& env);
  Value evalCall(const CallExpr& e, const std::shared_ptr<Env>& env);
  Value evalCallHere(const CallExpr& e, const std::shared_ptr<Env>& env);  // evalCall without locating errors
  Value sliceTuple(const Value& t, const IndexItem& it, const std::shared_ptr<Env>& env);
  void bindPattern(const Pattern& p, const Value& v, Env& env, Span span);
  void importFile(const ImportStmt& s, const std::shared_ptr<Env>& env);
  std::shared_ptr<const Program> parseImport(const ImportStmt& s, const std::string& path);
  void keepForError(const std::shared_ptr<const Program>& p);
  void checkInterrupt(Span span);
  void execStmt(const Stmt& s, const std::shared_ptr<Env>& env);
  void execFor(const ForStmt& f, const std::shared_ptr<Env>& env);

  /// An outer variable a traced body read, and the identity of the value it held (with a weak
  /// reference to it: an address is only compared while its first owner lives).
  struct CaptureDep {
    const Env* env;
    std::string name;
    const void* identity;
    std::weak_ptr<const void> held;
    bool owned;  // `held` was set: the value is a shared object
  };
  struct CaptureLog {
    std::set<const Env*> outer;  // the scopes outside the function being traced
    std::vector<CaptureDep> deps;
  };
  /// The first outer variable in `deps` rebound since, or "" when none was.
  std::string reboundCapture(const std::vector<CaptureDep>& deps) const;

  struct Compiled {
    FuncPtr func;
    TreeDef outTree;
    std::vector<bool> outWeak;
    std::vector<CaptureDep> captured;
    /// Function-valued arguments: keyed by address, so the entry is stale once one is gone.
    std::vector<std::weak_ptr<const void>> keyedFunctions;
    std::string signature;  // CallRecord::signature
  };
  /// The compiled signatures of one closure, which the cache does not keep alive (Note [Cache
  /// lifetime] in compile_cache.cpp).
  struct FnCache {
    std::weak_ptr<const Closure> closure;
    std::map<std::string, Compiled> entries;
    CallSignature lastTraced;  // for Note [Retrace reasons]
    int traces = 0;
  };
  FnCache& cacheOf(const std::shared_ptr<Closure>& closure);
  /// The entry for a signature key, if it is still valid (else it is dropped).
  /// `stale` says why, when the entry was dropped (a rebound capture).
  const Compiled* lookUpCompiled(FnCache& fnCache, const std::string& key, std::string& stale);
  /// Traces `c` for the call's signature and stores the entry; null when the result is not a
  /// pytree (nothing to compile).
  const Compiled* traceCompiled(const Closure& c, const std::vector<Value>& bound, Span span, Span site,
                                const std::string& key, FnCache& fnCache, CallRecord& rec);
  /// Runs an entry on the call's arguments, records the call (--stats) and rebuilds the result.
  Value runCompiled(const Compiled& entry, const std::vector<Param>& params,
                    const std::vector<Value>& bound, Span span, CallRecord& rec);
  static bool keyedAlive(const Compiled& entry);
  void sweepCache();

  EvalHost host_;
  std::vector<AxisFrame> axisEnv_;
  Tracer tracer_;
  ArrayOps ops_;
  std::shared_ptr<Env> globals_;
  ScopeCollector scopes_;
  std::map<const Closure*, FnCache> cache_;
  std::set<std::string> importedPaths_;
  std::vector<Span> importChain_;  // the `import` statements running now, outermost first
  std::shared_ptr<const Program> running_;  // whose AST is evaluated now (Note [Source lifetime])
  std::vector<std::shared_ptr<const Program>> errorSources_;
  std::vector<CallRecord> records_;
  PrintOptions printOptions_;
  /// A closure call being evaluated: a line of an error's call chain (Note [Call chains]).
  struct CallFrame {
    const Closure* closure;
    const std::vector<Value>* args;
    Span site;            // the call; invalid when the host made it
    std::string givenTo;  // "scan" when the closure is the function a builtin traces
  };
  /// Appends the call chain of the frames now running to an error leaving them, once.
  void addCallChain(Diagnostic& d) const;
  std::vector<CallFrame> frames_;  // the calls running now, outermost first
  std::string givenTo_;            // the builtin whose traceBody makes the next call
  CaptureLog* captures_ = nullptr;  // set while tracing a function for the compile cache
};

/// The identity of a value's payload (two reads of an unchanged variable give the same).
const void* identity(const Value& v);
/// The shared object behind a value (its array, tuple, closure or vmapped function); null for
/// builtins, strings, dtypes and None.
std::shared_ptr<const void> payload(const Value& v);

/// Whether a value is a tree of arrays, tuples and None (what compiled code can return).
bool isPytree(const Value& v);

/// Registers a value as "needs an array": converts numbers/bools; errors for other kinds.
AVal toArray(const Value& v, Span span, const char* what);

}  // namespace scn
