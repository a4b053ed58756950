// The extension module scn._scn: Context and Function over the C++ embedding API
// (include/scn/scn.hpp), with the GIL released while scn compiles and runs, Ctrl-C turned into
// Context::interrupt, and diagnostics raised as scn.Error (defined in scn/__init__.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <csignal>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "scn/scn.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace scn::python {
namespace {

// scn.Error, handed over by scn/__init__.py; kept for the life of the process (a static
// nb::object would be released after the interpreter is gone).
PyObject* g_errorClass = nullptr;

/// A scn::Context with what the binding adds: a lock (Python threads may share a context), the
/// diagnostics of the running call, and where print() output goes.
struct ContextObject {
  std::optional<Context> cx;
  std::recursive_mutex mutex;  // recursive: a print callback may call back into the context
  std::vector<DiagnosticRecord> records;  // of the current (or last) call
  nb::object onPrint;                     // a callable, or None for sys.stdout
  std::vector<uintptr_t> lastResultPointers;
};

struct FunctionObject {
  nb::object context;  // the ContextObject, alive while a function of it is
  ContextObject* cx = nullptr;
  Function fn;
  std::vector<Parameter> params;
};

// ---------------------------------------------------------------- Ctrl-C

// Note [Ctrl-C during a call]
// Python's SIGINT handler only sets a flag; the KeyboardInterrupt is raised when the main thread
// next runs bytecode, which it does not while it waits in scn. So the first call made on the
// main thread puts onSigint in front of Python's C-level handler: it asks the context the main
// thread is running (if any) to stop (Context::interrupt is one atomic store, safe in a signal
// handler) and then calls Python's handler, so Python's flag is set as before. When the call
// returns E0507, PyErr_CheckSignals runs the Python-level handler, which raises
// KeyboardInterrupt; the context stays usable. onSigint stays installed between calls (it does
// what Python's handler does when no call runs): installing and removing it around each call
// costs two system calls, about 6 us on a KVM guest, a quarter of a call. `signal.signal`
// replaces it, so each call compares the Python-level handler with the one seen when onSigint
// was installed, and installs it again when it changed. Calls on other threads are left alone:
// Python delivers signals to the main thread only (Context.interrupt() stops them).
std::atomic<const Context*> g_sigintTarget{nullptr};
struct sigaction g_previousSigint;
PyObject* g_getsignal = nullptr;        // _signal.getsignal (the C function under signal.getsignal)
PyObject* g_handlerAtInstall = nullptr;  // the Python-level handler when onSigint was installed
unsigned long g_mainThread = 0;

void onSigint(int sig) {
  void (*previous)(int) = g_previousSigint.sa_handler;
  if (previous == SIG_IGN) return;
  if (const Context* c = g_sigintTarget.load()) c->interrupt();
  if (previous != SIG_DFL) {
    previous(sig);
    return;
  }
  signal(SIGINT, SIG_DFL);  // the default action: end the process
  raise(SIGINT);
}

/// Puts onSigint in front of Python's handler unless it is there already (main thread, GIL held).
void ensureSigintHandler() {
  PyObject* current = PyObject_CallOneArg(g_getsignal, nb::int_(SIGINT).ptr());
  if (!current) throw nb::python_error();
  bool same = current == g_handlerAtInstall;
  Py_XDECREF(g_handlerAtInstall);
  g_handlerAtInstall = current;  // keeps the reference
  if (same) return;
  struct sigaction sa = {};
  sa.sa_handler = onSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK;
  struct sigaction previous;
  sigaction(SIGINT, &sa, &previous);
  if (previous.sa_handler != onSigint) g_previousSigint = previous;
}

/// Makes `cx` the context Ctrl-C stops while a call on the main thread runs.
class SigintScope {
 public:
  explicit SigintScope(const Context& cx) {
    if (PyThread_get_thread_ident() != g_mainThread) return;
    ensureSigintHandler();
    active_ = true;
    previousTarget_ = g_sigintTarget.exchange(&cx);
  }
  ~SigintScope() {
    if (active_) g_sigintTarget.store(previousTarget_);
  }
  bool active() const { return active_; }
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;

 private:
  bool active_ = false;
  const Context* previousTarget_ = nullptr;
};

// ---------------------------------------------------------------- errors

const char* statusName(StatusCode c) {
  switch (c) {
    case StatusCode::Ok: return "ok";
    case StatusCode::InvalidArgument: return "invalid argument";
    case StatusCode::NotFound: return "not found";
    case StatusCode::ProgramError: return "program error";
    case StatusCode::OutOfMemory: return "out of memory";
    case StatusCode::Internal: return "internal error";
    case StatusCode::Interrupted: return "interrupted";
  }
  return "unknown";
}

/// Raises scn.Error for a failed call: from its first error record, or from the Status alone
/// (a call refused before it started has no record).
[[noreturn]] void raiseError(const std::vector<DiagnosticRecord>& records, const Status& s) {
  nb::dict kw;
  kw["status"] = statusName(s.code());
  std::string rendered = s.message();
  const DiagnosticRecord* first = nullptr;
  for (const DiagnosticRecord& r : records)
    if (r.severity == DiagnosticSeverity::Error) {
      first = &r;
      break;
    }
  if (first) {
    rendered = first->rendered;
    while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
    kw["code"] = first->code;
    kw["message"] = first->message;
    kw["file"] = first->file;
    kw["line"] = first->line;
    kw["column"] = first->column;
    kw["help"] = first->help;
    nb::list notes;
    for (const DiagnosticNote& n : first->notes) notes.append(nb::make_tuple(n.message, n.file, n.line, n.column));
    kw["notes"] = notes;
  } else {
    size_t at = s.message().find("error[");
    if (at != std::string::npos) kw["code"] = s.message().substr(at + 6, 5);
    size_t colon = s.message().find("]: ");
    kw["message"] = colon == std::string::npos ? s.message() : s.message().substr(colon + 3);
  }
  nb::object error = nb::handle(g_errorClass)(rendered, **kw);
  PyErr_SetObject(g_errorClass, error.ptr());
  throw nb::python_error();
}

/// After a call: warnings go to Python's warnings module; a failure raises (Ctrl-C as
/// KeyboardInterrupt, Note [Ctrl-C during a call]).
void settle(const std::vector<DiagnosticRecord>& records, const Status& s) {
  for (const DiagnosticRecord& r : records)
    if (r.severity == DiagnosticSeverity::Warning &&
        PyErr_WarnEx(PyExc_UserWarning, r.rendered.c_str(), 1) != 0)
      throw nb::python_error();
  if (s.ok()) return;
  if (s.code() == StatusCode::Interrupted && PyErr_CheckSignals() != 0) throw nb::python_error();
  raiseError(records, s);
}

/// Runs `body` on the context with the GIL released and the context locked; the diagnostics
/// it reported are moved to `records`.
template <typename F>
auto unlocked(ContextObject& c, std::vector<DiagnosticRecord>& records, F&& body) {
  SigintScope sigint(*c.cx);  // first, then a Ctrl-C that came before is raised now
  if (sigint.active() && PyErr_CheckSignals() != 0) throw nb::python_error();
  nb::gil_scoped_release release;
  std::lock_guard<std::recursive_mutex> lock(c.mutex);
  std::vector<DiagnosticRecord> outer = std::move(c.records);  // of a call this one is nested in
  c.records.clear();
  auto result = body();
  records = std::move(c.records);
  c.records = std::move(outer);
  return result;
}

// ---------------------------------------------------------------- Context

// The address of the MPI_Comm handle inside an mpi4py communicator (ContextOptions::mpiCommunicator
// wants `&comm`; scn duplicates it at create, so the address need only live through the call).
// A communicator's mpi4py.MPI is already imported, so scn never imports it (importing initialises
// MPI). A communicator of an MPI other than the one libscn links leaves scn's MPI uninitialised:
// E0444, not a bad handle dereferenced.
const void* mpiCommunicatorAddress(nb::handle comm) {
  if (comm.is_none()) return nullptr;
  nb::dict modules = nb::borrow<nb::dict>(nb::module_::import_("sys").attr("modules"));
  nb::object mpi = modules.contains("mpi4py.MPI") ? nb::object(modules["mpi4py.MPI"]) : nb::none();
  if (mpi.is_none() || PyObject_IsInstance(comm.ptr(), mpi.attr("Comm").ptr()) != 1)
    throw nb::type_error(("mpi_communicator must be an mpi4py communicator (mpi4py.MPI.Comm), not " +
                          nb::cast<std::string>(nb::str(nb::type_name(comm.type()))))
                             .c_str());
  return reinterpret_cast<const void*>(nb::cast<uintptr_t>(mpi.attr("_addressof")(comm)));
}

void initContext(ContextObject* self, const std::string& backend, int optLevel, std::optional<std::string> cacheDir,
                 nb::object onPrint, std::optional<uint64_t> gradMemoryBudget, nb::object mpiCommunicator) {
  const void* communicator = mpiCommunicatorAddress(mpiCommunicator);  // raises before anything is built
  new (self) ContextObject();
  self->onPrint = std::move(onPrint);
  ContextOptions o;
  o.backend = backend;
  o.optLevel = optLevel;
  if (cacheDir) o.cacheDir = *cacheDir;
  if (gradMemoryBudget) o.gradMemoryBudget = *gradMemoryBudget;
  o.mpiCommunicator = communicator;
  o.onDiagnostic = [self](const DiagnosticRecord& r) { self->records.push_back(r); };
  o.onPrint = [self](std::string_view text) {
    nb::gil_scoped_acquire gil;
    try {
      nb::str s(text.data(), text.size());
      if (self->onPrint.is_none())
        nb::module_::import_("sys").attr("stdout").attr("write")(s);
      else
        self->onPrint(s);
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("scn print()");
    }
  };
  Result<Context> cx = [&] {
    nb::gil_scoped_release release;
    return Context::create(std::move(o));
  }();
  if (!cx) {
    std::vector<DiagnosticRecord> records = std::move(self->records);
    self->~ContextObject();
    raiseError(records, cx.status());
  }
  self->cx.emplace(std::move(cx).value());
}

void load(ContextObject& c, const std::string& path) {
  std::vector<DiagnosticRecord> records;
  Status s = unlocked(c, records, [&] { return c.cx->loadFile(path); });
  settle(records, s);
}

void run(ContextObject& c, const std::string& source, const std::string& name) {
  std::vector<DiagnosticRecord> records;
  Status s = unlocked(c, records, [&] { return c.cx->load(source, name); });
  settle(records, s);
}

/// ctx[name]; raises KeyError (`missing`) when nothing of that name is defined.
nb::object lookup(nb::handle self, const std::string& name, PyObject* missing) {
  ContextObject& c = nb::cast<ContextObject&>(self);
  std::vector<DiagnosticRecord> records;
  Result<Function> f = unlocked(c, records, [&] { return c.cx->function(name); });
  if (!f && f.status().code() == StatusCode::NotFound) {
    PyErr_SetString(missing, f.status().message().c_str());
    throw nb::python_error();
  }
  settle(records, f.status());
  FunctionObject out;
  out.context = nb::borrow(self);
  out.cx = &c;
  out.fn = std::move(f).value();
  out.params = out.fn.parameters();
  return nb::cast(std::move(out));
}

nb::list lastStats(ContextObject& c) {
  nb::list out;
  for (const CallStats& s : c.cx->lastStats()) {
    nb::dict d;
    d["function"] = s.function;
    d["backend"] = s.backend;
    d["compiled"] = s.compiled;
    d["cache_hit"] = s.cacheHit;
    d["compile_ms"] = s.compileMs;
    d["run_ms"] = s.runMs;
    d["host_peak_bytes"] = s.hostPeakBytes;
    d["device_peak_bytes"] = s.devicePeakBytes;
    d["copied_bytes"] = s.copiedBytes;
    out.append(d);
  }
  return out;
}

// ---------------------------------------------------------------- Function

/// The arguments in parameter order: the parameters named by keywords (a static parameter `n`
/// also as `static_n`) take those, and the positional arguments fill the others in order, so
/// `f(x, 2.0, static_n=3)` calls `fn f(static n, x, k)`.
std::vector<nb::handle> ordered(const FunctionObject& f, nb::args args, nb::kwargs kwargs) {
  if (kwargs.size() == 0) return std::vector<nb::handle>(args.begin(), args.end());  // the engine checks the count
  std::vector<nb::handle> out(f.params.size());
  size_t used = 0;
  for (size_t i = 0; i < f.params.size(); ++i) {
    const Parameter& p = f.params[i];
    PyObject* v = PyDict_GetItemString(kwargs.ptr(), p.name.c_str());
    if (!v && p.isStatic) v = PyDict_GetItemString(kwargs.ptr(), ("static_" + p.name).c_str());
    if (v) {
      out[i] = nb::handle(v);
      ++used;
    }
  }
  if (used != kwargs.size()) {
    std::string names;
    for (const Parameter& p : f.params) names += (names.empty() ? "" : ", ") + p.name;
    for (auto [key, value] : kwargs) {
      std::string k = nb::cast<std::string>(key);
      bool known = false;
      for (const Parameter& p : f.params) known |= p.name == k || (p.isStatic && "static_" + p.name == k);
      if (!known)
        throw nb::type_error(("`" + f.fn.name() + "` got an unexpected keyword argument `" + k +
                              "` (its parameters: " + names + ")").c_str());
    }
    for (const Parameter& p : f.params)
      if (p.isStatic && kwargs.contains(p.name.c_str()) && kwargs.contains(("static_" + p.name).c_str()))
        throw nb::type_error(("`" + f.fn.name() + "` got the parameter `" + p.name + "` twice (as `" + p.name +
                              "` and `static_" + p.name + "`)").c_str());
    throw nb::type_error(("`" + f.fn.name() + "` got a keyword argument it cannot place").c_str());
  }
  size_t next = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].ptr()) continue;
    if (next == args.size()) {
      if (f.params[i].hasDefault) continue;  // left null: omitted, the engine evaluates the default
      throw nb::type_error(("`" + f.fn.name() + "` is missing its argument `" + f.params[i].name + "`").c_str());
    }
    out[i] = args[next++];
  }
  while (!out.empty() && !out.back().ptr()) out.pop_back();  // trailing defaults: simply left out
  if (next != args.size())
    throw nb::type_error(("`" + f.fn.name() + "` takes " + std::to_string(f.params.size()) + " arguments but " +
                          std::to_string(args.size() + used) + " were given").c_str());
  return out;
}

nb::object call(FunctionObject& f, nb::args args, nb::kwargs kwargs) {
  std::vector<nb::handle> in = ordered(f, args, kwargs);
  CallInputs inputs(in.size());
  for (size_t i = 0; i < in.size(); ++i) inputs.add(in[i], i, f.fn.name().c_str());
  ContextObject& c = *f.cx;
  std::vector<DiagnosticRecord> records;
  Result<std::vector<HostArray>> r = unlocked(c, records, [&] { return f.fn.call(inputs.views()); });
  settle(records, r.status());
  std::vector<HostArray>& results = *r;
  c.lastResultPointers.clear();
  for (const HostArray& h : results) c.lastResultPointers.push_back(reinterpret_cast<uintptr_t>(h.data()));
  if (results.empty()) return nb::none();
  if (results.size() == 1) return toNumpy(std::move(results[0]));
  nb::tuple out = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(results.size())));
  for (size_t i = 0; i < results.size(); ++i)
    PyTuple_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), toNumpy(std::move(results[i])).release().ptr());
  return out;
}

}  // namespace
}  // namespace scn::python

using namespace scn::python;

NB_MODULE(_scn, m) {
  m.doc() = "scn's embedding API for Python (use the package `scn`, not this module)";
  g_mainThread = nb::cast<unsigned long>(nb::module_::import_("threading").attr("main_thread")().attr("ident"));
  // _signal's getsignal, not signal.getsignal: that one wraps the handler in an enum lookup that
  // cost 11 us a call on a loaded KVM guest, half of a call's overhead (Note [Ctrl-C during a call]).
  g_getsignal = nb::object(nb::module_::import_("_signal").attr("getsignal")).release().ptr();
  m.attr("version") = scn::version();

  m.def("_set_error_class", [](nb::handle cls) {
    Py_XDECREF(g_errorClass);
    g_errorClass = cls.inc_ref().ptr();
  });
  m.def("_empty", [](nb::handle) {}, "does nothing: the call overhead of a nanobind function (bench/)");

  nb::class_<ContextObject>(m, "Context", "an scn engine: loaded programs, compiled code, backend",
                            nb::is_weak_referenceable())
      .def("__init__", &initContext, "backend"_a = "auto", "opt_level"_a = 2, "cache_dir"_a = nb::none(),
           "on_print"_a = nb::none(), "grad_memory_budget"_a = nb::none(), "mpi_communicator"_a = nb::none())
      .def("load", &load, "path"_a, "loads and runs a .scn file (its `fn`s stay defined)")
      .def("run", &run, "source"_a, "name"_a = "<source>", "parses and runs program text")
      .def("__getitem__", [](nb::handle self, const std::string& n) { return lookup(self, n, PyExc_KeyError); })
      .def("__getattr__",
           [](nb::handle self, const std::string& n) {
             if (n.rfind("__", 0) == 0) {
               PyErr_SetString(PyExc_AttributeError, n.c_str());
               throw nb::python_error();
             }
             return lookup(self, n, PyExc_AttributeError);
           })
      .def("names", [](ContextObject& c) { return c.cx->names(); }, "the names the programs defined")
      .def("interrupt", [](ContextObject& c) { c.cx->interrupt(); },
           "stops the call running on this context in another thread (it raises scn.Error E0507)")
      .def_prop_ro("backend", [](ContextObject& c) { return c.cx->backend(); })
      .def_prop_ro("last_stats", &lastStats, "one dict per compiled-function call of the last call")
      .def_prop_ro("last_copied_input_bytes", [](ContextObject& c) { return c.cx->lastCopiedInputBytes(); },
                   "bytes the last call copied to make its inputs contiguous (0: all borrowed)")
      .def_prop_ro("last_result_pointers", [](ContextObject& c) { return c.lastResultPointers; },
                   "the data addresses of the last call's results, as scn reported them");

  nb::class_<FunctionObject>(m, "Function", "a function of a loaded program (or a builtin)")
      .def("__call__", &call)
      .def_prop_ro("name", [](FunctionObject& f) { return f.fn.name(); })
      .def_prop_ro("arity", [](FunctionObject& f) { return f.fn.arity(); })
      .def_prop_ro("parameters",
                   [](FunctionObject& f) {
                     nb::list out;
                     for (const scn::Parameter& p : f.params) out.append(nb::make_tuple(p.name, p.isStatic));
                     return out;
                   })
      .def_prop_ro("context", [](FunctionObject& f) { return f.context; })
      .def("__repr__", [](FunctionObject& f) { return "<scn.Function " + f.fn.name() + ">"; });
}
