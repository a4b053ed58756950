// The C++ embedding API (include/scn/scn.hpp) over a Session: contexts, function handles, host
// arrays in (borrowed when the layout allows) and out, diagnostics as records.
#include "scn/scn.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <thread>

#include "jit/array.hpp"
#ifdef SCN_HAVE_LLVM
#include "jit/cpu/cpu_backend.hpp"
#endif
#include "base/float_env.hpp"
#include "driver/api_arrays.hpp"
#include "driver/api_dlpack.hpp"
#include "driver/session.hpp"

#ifndef SCN_VERSION
#define SCN_VERSION "0.0.0"
#endif

namespace scn {

// The public enums mirror the engine's, value for value.
static_assert(static_cast<int>(DataType::Bool) == static_cast<int>(DType::Bool) &&
              static_cast<int>(DataType::I32) == static_cast<int>(DType::I32) &&
              static_cast<int>(DataType::I64) == static_cast<int>(DType::I64) &&
              static_cast<int>(DataType::U32) == static_cast<int>(DType::U32) &&
              static_cast<int>(DataType::U64) == static_cast<int>(DType::U64) &&
              static_cast<int>(DataType::F32) == static_cast<int>(DType::F32) &&
              static_cast<int>(DataType::F64) == static_cast<int>(DType::F64) &&
              static_cast<int>(DataType::C64) == static_cast<int>(DType::C64) &&
              static_cast<int>(DataType::C128) == static_cast<int>(DType::C128) &&
              static_cast<int>(DataType::BF16) == static_cast<int>(DType::BF16) &&
              static_cast<int>(DataType::F16) == static_cast<int>(DType::F16));

namespace {

bool validDataType(DataType t) { return static_cast<unsigned>(t) <= static_cast<unsigned>(DataType::F16); }

DiagnosticSeverity severityOf(Severity s) {
  switch (s) {
    case Severity::Error: return DiagnosticSeverity::Error;
    case Severity::Warning: return DiagnosticSeverity::Warning;
    case Severity::Note: return DiagnosticSeverity::Note;
  }
  return DiagnosticSeverity::Error;
}

void locate(const Span& span, std::string& file, int& line, int& column) {
  if (!span.valid()) return;
  auto [l, c] = span.file->lineCol(span.begin);
  file = span.file->name();
  line = static_cast<int>(l);
  column = static_cast<int>(c);
}

DiagnosticRecord toRecord(const Diagnostic& d) {
  DiagnosticRecord r;
  r.severity = severityOf(d.severity);
  r.code = d.code;
  r.message = d.message;
  locate(d.span, r.file, r.line, r.column);
  for (const DiagNote& n : d.notes) {
    DiagnosticNote note;
    note.message = n.message;
    locate(n.span, note.file, note.line, note.column);
    r.notes.push_back(std::move(note));
  }
  r.help = d.help;
  r.rendered = render(d);
  return r;
}

/// The status category of an engine diagnostic.
StatusCode statusOf(const Diagnostic& d) {
  if (d.code == "E0401") return StatusCode::OutOfMemory;
  if (d.code == "E0507") return StatusCode::Interrupted;
  if (d.code == "E9999") return StatusCode::Internal;
  return StatusCode::ProgramError;
}

Diagnostic apiDiagnostic(const std::string& code, Span span, std::string message, std::string help = {}) {
  Diagnostic d;
  d.code = code;
  d.span = span;
  d.message = std::move(message);
  d.help = std::move(help);
  return d;
}

}  // namespace

// ---------------------------------------------------------------- context state

struct Context::Impl {
  /// The thread inside an API call on this context, or none (Note [One thread per context]).
  std::atomic<std::thread::id> user{};
  ContextOptions opts;
  std::unique_ptr<Session> session;
  std::string lastError;
  std::vector<CallStats> lastStats;
  size_t copiedInputBytes = 0;  // by the current (or last) call
  bool sawError = false;  // during the current API call
  StatusCode firstCode = StatusCode::Ok;
  StatusCode override = StatusCode::Ok;  // the category of the diagnostic being reported

  /// Runs when the context and every Function handle on it are gone. Global closures hold the
  /// global scope that holds them (a shared_ptr cycle): unbinding the globals frees both, so a
  /// host that creates many contexts does not leak one scope per context.
  ~Impl() {
    if (!session) return;
    try {
      std::shared_ptr<Env> g = session->evaluator().globals();
      std::vector<std::string> names;
      for (const auto& entry : g->vars()) names.push_back(entry.first);
      for (const std::string& n : names) g->define(n, Value::none());
    } catch (...) {
    }
  }

  /// Starts an API call: forget the previous call's error, stats and interrupt request.
  void begin() {
    sawError = false;
    firstCode = StatusCode::Ok;
    lastError.clear();
    lastStats.clear();
    copiedInputBytes = 0;
    if (session) {
      session->records().clear();
      session->clearInterrupt();
    }
  }
  /// Ends an API call: keep its stats, drop the per-call bookkeeping the session keeps
  /// (long-running hosts).
  Status finish() {
    if (session) {
      for (const CallRecord& r : session->records()) {
        CallStats st;
        st.function = r.fn;
        st.backend = r.backend;
        st.compiled = r.traced;
        st.cacheHit = r.cacheHit;
        st.compileMs = r.traceMs + r.optimiseMs + r.codegenMs;
        st.runMs = r.runMs;
        st.hostPeakBytes = r.peakBytes;
        st.devicePeakBytes = r.devicePeakBytes;
        st.copiedBytes = r.copiedBytes;
        lastStats.push_back(std::move(st));
      }
      session->clearDiagnostics();
      session->records().clear();
    }
    if (!sawError) return Status();
    return Status(firstCode, lastError);
  }
  void onDiagnostic(const Diagnostic& d) {
    DiagnosticRecord r = toRecord(d);
    if (d.severity == Severity::Error && !sawError) {
      sawError = true;
      firstCode = override != StatusCode::Ok ? override : statusOf(d);
      lastError = r.rendered.substr(0, r.rendered.find('\n'));
    }
    if (opts.onDiagnostic) opts.onDiagnostic(r);
  }
  /// Reports a diagnostic through the session's sink (so the host's callback sees it).
  void report(const Diagnostic& d, StatusCode code = StatusCode::Ok) {
    override = code;
    if (session) {
      session->diagnostics().report(d);
    } else {
      onDiagnostic(d);
    }
    override = StatusCode::Ok;
  }
  /// Runs `body`, turning every exception into a reported diagnostic.
  template <typename F>
  void guarded(F&& body) {
    FlushDenormals flush;  // Note [Denormals flushed to zero]: the host's mode is restored
    try {
      body();
    } catch (const UserError& e) {
      report(e.diag);
    } catch (const std::bad_alloc&) {
      report(apiDiagnostic("E0401", Span{}, "out of memory"), StatusCode::OutOfMemory);
    } catch (const std::exception& e) {
      report(apiDiagnostic("E9999", Span{}, std::string("internal compiler error: ") + e.what(),
                           "this is a bug in scn; please report it with the program that triggered it"),
             StatusCode::Internal);
    }
  }
};

struct Function::Impl {
  std::shared_ptr<Context::Impl> ctx;  // first: destroyed last, after the value pointing into it
  std::string name;
  Value fn;
};

// Note [One thread per context]
// A context is used by one thread at a time (docs/embedding.md): two threads inside one would
// race on the evaluator, the compile caches and the per-call bookkeeping, and corrupt the heap.
// So every entry point that touches the context first takes it (ContextUse): `user` holds the
// id of the thread inside, and a call from another thread meanwhile fails with E0601
// (InvalidArgument) and the message kContextInUse, touching nothing: the diagnostic callback,
// lastError and lastStats belong to the running call and its thread, so the text comes back in
// the Status only, and lastError() (scn_last_error) answers the same text while the context is
// taken. The thread inside may enter again (from its print or diagnostic callback): nested
// entries pass, as before. interrupt() takes nothing (one atomic store), so any thread may
// call it. scn_context_free refuses a context that is taken; destroying a Context another
// thread is using stays undefined.
namespace {

const char* const kContextInUse = "scn: error[E0601]: the context is in use by another thread";

/// The context taken for one API entry, unless another thread holds it (then false).
class ContextUse {
 public:
  explicit ContextUse(Context::Impl& cx) : cx_(cx) {
    std::thread::id holder;  // none
    std::thread::id me = std::this_thread::get_id();
    owner_ = cx_.user.compare_exchange_strong(holder, me, std::memory_order_acquire);
    nested_ = !owner_ && holder == me;
  }
  ~ContextUse() {
    if (owner_) cx_.user.store(std::thread::id(), std::memory_order_release);
  }
  ContextUse(const ContextUse&) = delete;
  ContextUse& operator=(const ContextUse&) = delete;
  explicit operator bool() const { return owner_ || nested_; }

 private:
  Context::Impl& cx_;
  bool owner_ = false, nested_ = false;
};

Status contextInUse() {
  return Status(StatusCode::InvalidArgument, kContextInUse);
}

bool takenByAnotherThread(const Context::Impl& cx) {
  std::thread::id holder = cx.user.load(std::memory_order_acquire);
  return holder != std::thread::id() && holder != std::this_thread::get_id();
}

}  // namespace

// ---------------------------------------------------------------- host arrays in and out

namespace {

std::vector<HostArray> callValue(Context::Impl& cx, const Function::Impl& f, const ArrayView* inputs,
                                 size_t n) {
  Evaluator& ev = cx.session->evaluator();
  const Closure* closure = f.fn.kind == ValueKind::Closure ? f.fn.closure.get() : nullptr;
  CallArgs args;
  if (std::optional<Diagnostic> d = inputCountProblem(closure, f.name, inputs, n)) {
    cx.report(*d, StatusCode::InvalidArgument);
    return {};
  }
  if (closure) {
    args.span = closure->span;
  }
  args.fromHost = true;
  // Borrowed inputs must not outlive the call: static parameters may be kept as constants of
  // the compiled code, and so may scalars that a transformation passes on (Note [Static arguments
  // of a transformation] in lang/calls.cpp), so those are copied.
  std::vector<std::weak_ptr<Buffer>> borrowed;
  bool byName = false;  // after an omitted input, the others go by their parameters' names
  for (size_t i = 0; i < n; ++i) {
    if (inputs[i].omitted) {  // inputCountProblem checked it has a default
      byName = true;
      continue;
    }
    bool mayStayStatic = closure ? (*closure->params)[i].isStatic : inputs[i].shape.empty();
    Array a;
    try {
      a = inputArray(inputs[i], i, !mayStayStatic, borrowed, cx.copiedInputBytes);
    } catch (const UserError& e) {  // a bad view (E0601, E0402), or no memory for a copy (E0401)
      cx.report(e.diag, e.diag.code == "E0401" ? StatusCode::OutOfMemory : StatusCode::InvalidArgument);
      return {};
    }
    Value v = Value::ofArray(AVal::of(std::move(a), inputs[i].weak));
    if (byName) {
      args.kw.emplace_back((*closure->params)[i].name, std::move(v));
      args.kwSpans.push_back((*closure->params)[i].span);
      continue;
    }
    args.pos.push_back(std::move(v));
    args.posSpans.push_back(closure ? (*closure->params)[i].span : Span{});
  }
  Value result = ev.call(f.fn, args);
  args = CallArgs{};
  std::vector<AVal> leaves;
  TreeDef def;
  Evaluator::flatten(result, leaves, def, closure ? closure->span : Span{},
                     "the result of a function called from the host");
  result = Value{};
  std::vector<HostArray> out;
  for (const AVal& l : leaves) {
    SCN_ASSERT(l.isStatic(), "a host call returned a traced value");
    out.push_back(toHost(*l.concrete, borrowed));
  }
  leaves.clear();
  for (const auto& w : borrowed)
    SCN_ASSERT(w.expired(), "the engine kept a reference to a host array after the call");
  return out;
}

}  // namespace

// ---------------------------------------------------------------- Context

Context::Context(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::~Context() = default;
Context::Context(Context&&) noexcept = default;
Context& Context::operator=(Context&&) noexcept = default;

Result<Context> Context::create(ContextOptions options) {
  auto impl = std::make_shared<Impl>();
  impl->opts = std::move(options);
  Impl* cx = impl.get();
  cx->begin();
  if (cx->opts.optLevel < 0 || cx->opts.optLevel > 3) {
    cx->report(apiDiagnostic("E0601", Span{}, "opt level " + std::to_string(cx->opts.optLevel) +
                                                  " is out of range", "choose 0, 1, 2 or 3"),
               StatusCode::InvalidArgument);
    return cx->finish();
  }
  cx->guarded([&] {
    SessionOptions so;
    // The stdlib loads on the always-available interpreter; the chosen backend is set after,
    // so a bad choice is reported once and the context is not created.
    so.backend = "interp";
    so.optLevel = cx->opts.optLevel;
    so.out = [cx](const std::string& s) {
      if (cx->opts.onPrint) cx->opts.onPrint(s);
    };
    so.onDiagnostic = [cx](const Diagnostic& d) { cx->onDiagnostic(d); };
    so.cacheDir = cx->opts.cacheDir;
    so.cacheMaxBytes = cacheMaxBytesFromEnvironment();  // Note [Cache eviction]
    so.gradMemoryBudget = cx->opts.gradMemoryBudget ? cx->opts.gradMemoryBudget : gradMemoryBudgetFromEnvironment();
    if (cx->opts.mpiCommunicator) {
      std::string why;
      so.processes = processesOverCommunicator(cx->opts.mpiCommunicator, why);
      if (!so.processes)
        return cx->report(apiDiagnostic("E0444", Span{}, "the MPI communicator given to the context cannot be used: " + why,
                                        "initialise MPI (MPI_Init) before creating the context and pass a pointer "
                                        "to a valid communicator, or none for this process alone"),
                          StatusCode::InvalidArgument);
    }
    cx->session = std::make_unique<Session>(std::move(so));
    if (cx->sawError) return;
    cx->override = StatusCode::InvalidArgument;
    cx->session->setBackend(cx->opts.backend);
    cx->override = StatusCode::Ok;
  });
  Status s = cx->finish();
  if (!s) return s;
  return Context(std::move(impl));
}

Status Context::load(std::string_view source, std::string_view name) {
  if (!impl_) return Status(StatusCode::InvalidArgument, "scn: use of a moved-from Context");
  ContextUse use(*impl_);
  if (!use) return contextInUse();
  impl_->begin();
  impl_->guarded([&] { impl_->session->run(std::string(name), std::string(source)); });
  return impl_->finish();
}

Status Context::loadFile(const std::string& path) {
  if (!impl_) return Status(StatusCode::InvalidArgument, "scn: use of a moved-from Context");
  ContextUse use(*impl_);
  if (!use) return contextInUse();
  impl_->begin();
  impl_->guarded([&] { impl_->session->runFile(path); });
  return impl_->finish();
}

Result<Function> Context::function(std::string_view name) {
  if (!impl_) return Status(StatusCode::InvalidArgument, "scn: use of a moved-from Context");
  ContextUse use(*impl_);
  if (!use) return contextInUse();
  impl_->begin();
  std::string n(name);
  Value v;
  bool found = false;
  impl_->guarded([&] {
    if (const Value* g = impl_->session->evaluator().globals()->lookup(n)) {
      v = *g;
      found = true;
      if (!v.isCallable())
        impl_->report(apiDiagnostic("E0603", Span{}, "`" + n + "` is " + describe(v) + ", not a function",
                                    "look up a name defined with `fn " + n + "(...)`"),
                      StatusCode::InvalidArgument);
    } else if (auto t = dtypeFromName(n)) {
      v = Value::ofDType(*t);
      found = true;
    } else if (auto it = builtins().find(n); it != builtins().end()) {
      v.kind = ValueKind::Builtin;
      v.builtin = &it->second;
      found = true;
    }
    if (!found)
      impl_->report(apiDiagnostic("E0602", Span{}, "no function named `" + n + "` is defined",
                                  "load a program that defines it with `fn " + n + "(...)` first"),
                    StatusCode::NotFound);
  });
  Status s = impl_->finish();
  if (!s) return s;
  Function f;
  f.impl_ = std::make_shared<Function::Impl>(Function::Impl{impl_, n, v});
  return f;
}

template <typename Managed>
Result<DLPackInput> Context::takeTensor(Managed* tensor) {
  if (!impl_) {
    dropDLPack(tensor);
    return Status(StatusCode::InvalidArgument, "scn: use of a moved-from Context");
  }
  ContextUse use(*impl_);
  if (!use) {
    dropDLPack(tensor);  // Note [Taking a DLPack tensor]: taken, also when refused
    return contextInUse();
  }
  impl_->begin();
  DLPackInput in;
  try {
    in.impl_ = takeDLPack(tensor);
  } catch (const UserError& e) {
    impl_->report(e.diag, StatusCode::InvalidArgument);
  } catch (const std::bad_alloc&) {  // the tensor was dropped (takeDLPack)
    impl_->report(apiDiagnostic("E0401", Span{}, "out of memory"), StatusCode::OutOfMemory);
  }
  Status s = impl_->finish();
  if (!s) return s;
  return in;
}

Result<DLPackInput> Context::fromDLPack(DLManagedTensor* tensor) { return takeTensor(tensor); }

Result<DLPackInput> Context::fromDLPack(DLManagedTensorVersioned* tensor) { return takeTensor(tensor); }

Result<std::vector<HostArray>> Context::call(std::string_view name, const std::vector<ArrayView>& inputs) {
  Result<Function> f = function(name);
  if (!f) return f.status();
  return f->call(inputs);
}

std::string Context::backend() const { return impl_ ? impl_->session->backendName() : std::string(); }

const std::string& Context::lastError() const {
  static const std::string kMoved = "scn: use of a moved-from Context";
  static const std::string kInUse = kContextInUse;
  if (!impl_) return kMoved;
  return takenByAnotherThread(*impl_) ? kInUse : impl_->lastError;
}

const std::vector<CallStats>& Context::lastStats() const {
  static const std::vector<CallStats> kNone;
  return impl_ && !takenByAnotherThread(*impl_) ? impl_->lastStats : kNone;
}

size_t Context::lastCopiedInputBytes() const {
  return impl_ && !takenByAnotherThread(*impl_) ? impl_->copiedInputBytes : 0;
}

std::vector<std::string> Context::names() const {
  std::vector<std::string> out;
  if (!impl_ || !impl_->session || takenByAnotherThread(*impl_)) return out;
  for (const auto& entry : impl_->session->evaluator().globals()->vars()) out.push_back(entry.first);
  return out;  // a std::map: sorted already
}

void Context::interrupt() const {
  if (impl_ && impl_->session) impl_->session->interrupt();
}

// ---------------------------------------------------------------- Function

Function::Function() = default;
Function::~Function() = default;
Function::Function(const Function&) = default;
Function& Function::operator=(const Function&) = default;
Function::Function(Function&&) noexcept = default;
Function& Function::operator=(Function&&) noexcept = default;

const std::string& Function::name() const {
  static const std::string kEmpty;
  return impl_ ? impl_->name : kEmpty;
}

int Function::arity() const {
  if (!impl_) return -1;
  switch (impl_->fn.kind) {
    case ValueKind::Closure: return static_cast<int>(impl_->fn.closure->params->size());
    case ValueKind::DType: return 1;
    case ValueKind::Builtin: case ValueKind::Vmap: case ValueKind::Array: case ValueKind::Tuple:
    case ValueKind::None: case ValueKind::String:
      return -1;
  }
  return -1;
}

std::vector<Parameter> Function::parameters() const {
  std::vector<Parameter> out;
  if (!impl_ || impl_->fn.kind != ValueKind::Closure) return out;
  for (const Param& p : *impl_->fn.closure->params) out.push_back(Parameter{p.name, p.isStatic, p.defaultValue != nullptr});
  return out;
}

Result<std::vector<HostArray>> Function::call(const std::vector<ArrayView>& inputs) const {
  return call(inputs.data(), inputs.size());
}

Result<std::vector<HostArray>> Function::call(const ArrayView* inputs, size_t n) const {
  if (!impl_) return Status(StatusCode::InvalidArgument, "scn: call of an empty Function");
  Context::Impl& cx = *impl_->ctx;
  ContextUse use(cx);
  if (!use) return contextInUse();
  cx.begin();
  std::vector<HostArray> out;
  if (inputs == nullptr && n > 0) {
    cx.report(apiDiagnostic("E0601", Span{}, "the inputs of `" + impl_->name + "` are a null pointer but " +
                                                 std::to_string(n) + " were announced"),
              StatusCode::InvalidArgument);
  } else {
    cx.guarded([&] { out = callValue(cx, *impl_, inputs, n); });
  }
  Status s = cx.finish();
  if (!s) return s;
  return out;
}

// ---------------------------------------------------------------- the C API's way in

namespace detail {

/// What driver/api_c.cpp needs beyond the public C++ API: reporting its own argument errors
/// through the context's callback, so C hosts see them like every other diagnostic.
struct Access {
  static Status invalidArgument(Context::Impl& cx, const std::string& message, const std::string& help) {
    ContextUse use(cx);
    if (!use) return contextInUse();
    cx.begin();
    cx.report(apiDiagnostic("E0601", Span{}, message, help), StatusCode::InvalidArgument);
    return cx.finish();
  }
  static Status invalidArgument(Context& c, const std::string& message, const std::string& help) {
    return invalidArgument(*c.impl_, message, help);
  }
  static Status invalidArgument(const Function& f, const std::string& message, const std::string& help) {
    return invalidArgument(*f.impl_->ctx, message, help);
  }
  /// Runs `body` with the context taken (Note [One thread per context]).
  static Status exclusively(Context& c, const std::function<Status()>& body) {
    ContextUse use(*c.impl_);
    if (!use) return contextInUse();
    return body();
  }
  static bool taken(const Context& c) { return takenByAnotherThread(*c.impl_); }
};

Status invalidArgument(Context& c, const std::string& message, const std::string& help) {
  return Access::invalidArgument(c, message, help);
}

Status invalidArgument(const Function& f, const std::string& message, const std::string& help) {
  return Access::invalidArgument(f, message, help);
}

Status exclusively(Context& c, const std::function<Status()>& body) { return Access::exclusively(c, body); }

bool takenByAnotherThread(const Context& c) { return Access::taken(c); }

}  // namespace detail

// ---------------------------------------------------------------- small helpers

const char* dataTypeName(DataType t) { return validDataType(t) ? dtypeName(static_cast<DType>(t)) : "?"; }

size_t dataTypeSize(DataType t) { return validDataType(t) ? dtypeSize(static_cast<DType>(t)) : 0; }

const char* version() { return SCN_VERSION; }

// The CPU backend keeps freed host blocks for reuse; a build without it holds none.
#ifdef SCN_HAVE_LLVM
size_t reusableMemoryBytes() { return reusableHostBytes(); }

void setReusableMemoryLimit(size_t bytes) { setReusableHostLimit(bytes); }
#else
size_t reusableMemoryBytes() { return 0; }
void setReusableMemoryLimit(size_t) {}
#endif

}  // namespace scn
