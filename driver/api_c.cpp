// The C embedding API (include/scn/scn.h) over the C++ one: status codes, callbacks as records,
// and a catch-all around every entry point so no C++ exception crosses the C boundary.
#include "scn/scn.h"

#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "driver/api_dlpack.hpp"
#include "scn/scn.hpp"

namespace scn::detail {
// Defined in driver/api.cpp: report a C-level argument error (E0601) through the context.
Status invalidArgument(Context& c, const std::string& message, const std::string& help);
Status invalidArgument(const Function& f, const std::string& message, const std::string& help);
// Runs `body` with the context taken, or fails as a call from a second thread does (Note [One
// thread per context]); and whether another thread is inside the context now.
Status exclusively(Context& c, const std::function<Status()>& body);
bool takenByAnotherThread(const Context& c);
}  // namespace scn::detail

struct scn_context {
  scn::Context cx;
  std::vector<scn_call_stats> stats;  // scn_last_stats' records, pointing into cx.lastStats()
};

struct scn_function {
  scn::Function fn;
};

namespace {

static_assert(static_cast<int>(SCN_OK) == static_cast<int>(scn::StatusCode::Ok) &&
              static_cast<int>(SCN_ERROR_INVALID_ARGUMENT) == static_cast<int>(scn::StatusCode::InvalidArgument) &&
              static_cast<int>(SCN_ERROR_NOT_FOUND) == static_cast<int>(scn::StatusCode::NotFound) &&
              static_cast<int>(SCN_ERROR_PROGRAM) == static_cast<int>(scn::StatusCode::ProgramError) &&
              static_cast<int>(SCN_ERROR_OUT_OF_MEMORY) == static_cast<int>(scn::StatusCode::OutOfMemory) &&
              static_cast<int>(SCN_ERROR_INTERNAL) == static_cast<int>(scn::StatusCode::Internal) &&
              static_cast<int>(SCN_ERROR_INTERRUPTED) == static_cast<int>(scn::StatusCode::Interrupted));
static_assert(static_cast<int>(SCN_BOOL) == static_cast<int>(scn::DataType::Bool) &&
              static_cast<int>(SCN_I32) == static_cast<int>(scn::DataType::I32) &&
              static_cast<int>(SCN_I64) == static_cast<int>(scn::DataType::I64) &&
              static_cast<int>(SCN_U32) == static_cast<int>(scn::DataType::U32) &&
              static_cast<int>(SCN_U64) == static_cast<int>(scn::DataType::U64) &&
              static_cast<int>(SCN_F32) == static_cast<int>(scn::DataType::F32) &&
              static_cast<int>(SCN_F64) == static_cast<int>(scn::DataType::F64) &&
              static_cast<int>(SCN_C64) == static_cast<int>(scn::DataType::C64) &&
              static_cast<int>(SCN_C128) == static_cast<int>(scn::DataType::C128) &&
              static_cast<int>(SCN_BF16) == static_cast<int>(scn::DataType::BF16) &&
              static_cast<int>(SCN_F16) == static_cast<int>(scn::DataType::F16));

/// The integer a C host stored in an enum-typed field or argument. A C host may store any int
/// there; C++ must not load an out-of-range value as the enum itself, so the bytes are read.
template <typename E>
long long rawValue(const E& e) {
  std::underlying_type_t<E> v;
  std::memcpy(&v, &e, sizeof v);
  return static_cast<long long>(v);
}

bool validDType(long long t) { return t >= SCN_BOOL && t <= SCN_F16; }

scn_status statusOf(const scn::Status& s) { return static_cast<scn_status>(s.code()); }

/// Runs an entry point's body; an escaping exception becomes a status (never a C++ unwind).
template <typename F>
scn_status guard(F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return SCN_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    return SCN_ERROR_INTERNAL;
  }
}

scn_severity severityOf(scn::DiagnosticSeverity s) {
  switch (s) {
    case scn::DiagnosticSeverity::Error: return SCN_SEVERITY_ERROR;
    case scn::DiagnosticSeverity::Warning: return SCN_SEVERITY_WARNING;
    case scn::DiagnosticSeverity::Note: return SCN_SEVERITY_NOTE;
  }
  return SCN_SEVERITY_ERROR;
}

/// Hands a record to a C callback as an scn_diagnostic whose strings point into the record.
void deliver(const scn::DiagnosticRecord& r, scn_diagnostic_fn fn, void* user) {
  std::vector<scn_diagnostic_note> notes;
  for (const scn::DiagnosticNote& n : r.notes)
    notes.push_back(scn_diagnostic_note{n.message.c_str(), n.file.c_str(), n.line, n.column});
  scn_diagnostic d;
  d.severity = severityOf(r.severity);
  d.code = r.code.c_str();
  d.message = r.message.c_str();
  d.file = r.file.c_str();
  d.line = r.line;
  d.column = r.column;
  d.notes = notes.empty() ? nullptr : notes.data();
  d.num_notes = notes.size();
  d.help = r.help.c_str();
  d.rendered = r.rendered.c_str();
  fn(&d, user);
}

/// What scn_array.owner points to: the storage of an array the library made.
struct ArrayOwner {
  virtual ~ArrayOwner() = default;
};

/// An output array's storage: the HostArray keeps the data and the shape alive.
struct OutputOwner final : ArrayOwner {
  explicit OutputOwner(scn::HostArray a) : array(std::move(a)) {}
  scn::HostArray array;
  bool handedOver = false;  // to a DLPack consumer (scn_array_to_dlpack)
};

/// A DLPack tensor taken as an input: the view's shape and strides, and the tensor itself.
struct InputOwner final : ArrayOwner {
  explicit InputOwner(scn::DLPackInput in) : input(std::move(in)) {}
  scn::DLPackInput input;
};

template <typename Managed>
scn_status arrayFromDLPack(scn_context* ctx, Managed* tensor, scn_array** out) {
  if (!ctx) {
    scn::dropDLPack(tensor);
    return SCN_ERROR_INVALID_ARGUMENT;
  }
  if (!out) {
    scn::dropDLPack(tensor);
    return statusOf(scn::detail::invalidArgument(ctx->cx, "scn_array_from_dlpack got a null result pointer",
                                                 "pass the address of an scn_array* to receive the array"));
  }
  *out = nullptr;
  scn::Result<scn::DLPackInput> in = ctx->cx.fromDLPack(tensor);
  if (!in) return statusOf(in.status());
  auto owner = std::make_unique<InputOwner>(std::move(*in));
  const scn::ArrayView& v = owner->input.view();
  auto* a = new scn_array[1];
  a->dtype = static_cast<scn_dtype>(v.dtype);
  a->rank = v.shape.size();
  a->shape = v.shape.data();
  a->strides = v.strides.empty() ? nullptr : v.strides.data();
  a->data = v.data;
  a->owner = static_cast<ArrayOwner*>(owner.release());
  *out = a;
  return SCN_OK;
}

/// The HostArray of an scn_call result not handed over yet, or null.
OutputOwner* resultOwner(scn_array* array) {
  if (!array) return nullptr;
  auto* owner = dynamic_cast<OutputOwner*>(static_cast<ArrayOwner*>(array->owner));
  return owner && !owner->handedOver ? owner : nullptr;
}

template <typename Managed, typename Export>
scn_status arrayToDLPack(scn_array* array, Managed** out, Export toTensor) {
  OutputOwner* owner = resultOwner(array);
  if (!owner || !out) return SCN_ERROR_INVALID_ARGUMENT;
  scn::HostArray result = std::move(owner->array);
  owner->handedOver = true;  // emptied first: out of memory below leaves no dangling field
  array->data = nullptr;
  array->shape = nullptr;
  array->rank = 0;
  *out = toTensor(std::move(result));
  return SCN_OK;
}

}  // namespace

extern "C" {

scn_status scn_options_init(scn_options* options) {
  if (!options) return SCN_ERROR_INVALID_ARGUMENT;
  options->backend = "auto";
  options->opt_level = 2;
  options->on_diagnostic = nullptr;
  options->diagnostic_user = nullptr;
  options->on_print = nullptr;
  options->print_user = nullptr;
  options->cache_dir = nullptr;
  options->grad_memory_budget = 0;
  options->mpi_communicator = nullptr;
  return SCN_OK;
}

scn_status scn_context_new(const scn_options* options, scn_context** out) {
  if (!out) return SCN_ERROR_INVALID_ARGUMENT;
  *out = nullptr;
  return guard([&] {
    scn_options defaults;
    scn_options_init(&defaults);
    const scn_options& o = options ? *options : defaults;
    scn::ContextOptions co;
    co.backend = o.backend ? o.backend : "auto";
    co.optLevel = o.opt_level;
    if (o.cache_dir) co.cacheDir = o.cache_dir;
    co.gradMemoryBudget = o.grad_memory_budget;
    co.mpiCommunicator = o.mpi_communicator;
    if (scn_diagnostic_fn fn = o.on_diagnostic) {
      void* user = o.diagnostic_user;
      co.onDiagnostic = [fn, user](const scn::DiagnosticRecord& r) { deliver(r, fn, user); };
    }
    if (scn_print_fn fn = o.on_print) {
      void* user = o.print_user;
      co.onPrint = [fn, user](std::string_view s) { fn(s.data(), s.size(), user); };
    }
    scn::Result<scn::Context> cx = scn::Context::create(std::move(co));
    if (!cx) return statusOf(cx.status());
    *out = new scn_context{std::move(cx).value(), {}};
    return SCN_OK;
  });
}

scn_status scn_context_free(scn_context* ctx) {
  return guard([&] {
    if (ctx && scn::detail::takenByAnotherThread(ctx->cx)) return SCN_ERROR_INVALID_ARGUMENT;
    delete ctx;
    return SCN_OK;
  });
}

scn_status scn_load_source(scn_context* ctx, const char* source, const char* name) {
  if (!ctx) return SCN_ERROR_INVALID_ARGUMENT;
  return guard([&] {
    if (!source)
      return statusOf(scn::detail::invalidArgument(ctx->cx, "scn_load_source got a null source text",
                                                   "pass a NUL-terminated program text"));
    return statusOf(ctx->cx.load(source, name ? name : "<source>"));
  });
}

scn_status scn_load_file(scn_context* ctx, const char* path) {
  if (!ctx) return SCN_ERROR_INVALID_ARGUMENT;
  return guard([&] {
    if (!path)
      return statusOf(scn::detail::invalidArgument(ctx->cx, "scn_load_file got a null path", ""));
    return statusOf(ctx->cx.loadFile(path));
  });
}

scn_status scn_function_get(scn_context* ctx, const char* name, scn_function** out) {
  if (!ctx) return SCN_ERROR_INVALID_ARGUMENT;
  return guard([&] {
    if (!out || !name)
      return statusOf(scn::detail::invalidArgument(
          ctx->cx, std::string("scn_function_get got a null ") + (name ? "result pointer" : "name"), ""));
    *out = nullptr;
    scn::Result<scn::Function> f = ctx->cx.function(name);
    if (!f) return statusOf(f.status());
    *out = new scn_function{std::move(f).value()};
    return SCN_OK;
  });
}

scn_status scn_function_free(scn_function* fn) {
  return guard([&] {
    delete fn;
    return SCN_OK;
  });
}

scn_status scn_function_arity(const scn_function* fn, int* out) {
  if (!fn || !out) return SCN_ERROR_INVALID_ARGUMENT;
  *out = fn->fn.arity();
  return SCN_OK;
}

scn_status scn_call(scn_function* fn, const scn_array* inputs, size_t n, scn_array** outputs,
                    size_t* nout) {
  if (!fn) return SCN_ERROR_INVALID_ARGUMENT;
  return guard([&] {
    if (!outputs || !nout)
      return statusOf(scn::detail::invalidArgument(
          fn->fn, std::string("scn_call got a null ") + (outputs ? "nout" : "outputs") + " pointer",
          "pass the addresses of an scn_array* and a size_t to receive the results"));
    *outputs = nullptr;
    *nout = 0;
    if (!inputs && n > 0)
      return statusOf(scn::detail::invalidArgument(
          fn->fn, "scn_call got null inputs but n = " + std::to_string(n), ""));
    std::vector<scn::ArrayView> views;
    for (size_t i = 0; i < n; ++i) {
      const scn_array& a = inputs[i];
      long long dtype = rawValue(a.dtype);
      if (!validDType(dtype))
        return statusOf(scn::detail::invalidArgument(
            fn->fn, "input " + std::to_string(i) + " has an invalid dtype (value " + std::to_string(dtype) + ")",
            "use one of the scn_dtype values"));
      if (a.rank > 0 && !a.shape)
        return statusOf(scn::detail::invalidArgument(
            fn->fn, "input " + std::to_string(i) + " has rank " + std::to_string(a.rank) + " but a null shape",
            ""));
      scn::ArrayView v(static_cast<scn::DataType>(dtype), std::vector<int64_t>(a.shape, a.shape + a.rank),
                       a.data);
      if (a.strides) v.strides.assign(a.strides, a.strides + a.rank);
      views.push_back(std::move(v));
    }
    scn::Result<std::vector<scn::HostArray>> r = fn->fn.call(views);
    if (!r) return statusOf(r.status());
    std::vector<scn::HostArray>& results = *r;
    if (results.empty()) return SCN_OK;
    auto* arrays = new scn_array[results.size()];
    for (size_t i = 0; i < results.size(); ++i) {
      auto* owner = new OutputOwner(std::move(results[i]));
      const scn::HostArray& h = owner->array;
      arrays[i].dtype = static_cast<scn_dtype>(h.dtype());
      arrays[i].rank = h.rank();
      arrays[i].shape = h.shape().data();
      arrays[i].strides = nullptr;
      arrays[i].data = h.data();
      arrays[i].owner = static_cast<ArrayOwner*>(owner);
    }
    *outputs = arrays;
    *nout = results.size();
    return SCN_OK;
  });
}

scn_status scn_interrupt(scn_context* ctx) {
  if (!ctx) return SCN_ERROR_INVALID_ARGUMENT;
  ctx->cx.interrupt();  // one atomic store: nothing to guard
  return SCN_OK;
}

scn_status scn_array_free(scn_array* arrays, size_t n) {
  return guard([&] {
    if (!arrays) return SCN_OK;
    for (size_t i = 0; i < n; ++i) delete static_cast<ArrayOwner*>(arrays[i].owner);
    delete[] arrays;
    return SCN_OK;
  });
}

scn_status scn_array_from_dlpack(scn_context* ctx, DLManagedTensor* tensor, scn_array** out) {
  return guard([&] { return arrayFromDLPack(ctx, tensor, out); });
}

scn_status scn_array_from_dlpack_versioned(scn_context* ctx, DLManagedTensorVersioned* tensor, scn_array** out) {
  return guard([&] { return arrayFromDLPack(ctx, tensor, out); });
}

scn_status scn_array_to_dlpack(scn_array* array, DLManagedTensor** out) {
  return guard([&] { return arrayToDLPack(array, out, [](scn::HostArray a) { return scn::toDLPack(std::move(a)); }); });
}

scn_status scn_array_to_dlpack_versioned(scn_array* array, DLManagedTensorVersioned** out) {
  return guard([&] {
    return arrayToDLPack(array, out, [](scn::HostArray a) { return scn::toDLPackVersioned(std::move(a)); });
  });
}

const char* scn_last_error(const scn_context* ctx) {
  if (!ctx) return "";
  return ctx->cx.lastError().c_str();
}

size_t scn_last_copied_input_bytes(const scn_context* ctx) {
  return ctx ? ctx->cx.lastCopiedInputBytes() : 0;
}

scn_status scn_last_stats(scn_context* ctx, const scn_call_stats** stats, size_t* count) {
  if (!ctx || !stats || !count) return SCN_ERROR_INVALID_ARGUMENT;
  *stats = nullptr;
  *count = 0;
  return guard([&] {
    scn::Status s = scn::detail::exclusively(ctx->cx, [&] {
      ctx->stats.clear();
      for (const scn::CallStats& st : ctx->cx.lastStats())
        ctx->stats.push_back(scn_call_stats{st.function.c_str(), st.backend.c_str(), st.compiled ? 1 : 0,
                                            st.cacheHit ? 1 : 0, st.compileMs, st.runMs, st.hostPeakBytes,
                                            st.devicePeakBytes, st.copiedBytes});
      *stats = ctx->stats.empty() ? nullptr : ctx->stats.data();
      *count = ctx->stats.size();
      return scn::Status();
    });
    return statusOf(s);
  });
}

const char* scn_status_string(scn_status status) {
  long long raw = rawValue(status);
  if (raw < SCN_OK || raw > SCN_ERROR_INTERRUPTED) return "unknown status";
  switch (static_cast<scn_status>(raw)) {
    case SCN_OK: return "ok";
    case SCN_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case SCN_ERROR_NOT_FOUND: return "not found";
    case SCN_ERROR_PROGRAM: return "program error";
    case SCN_ERROR_OUT_OF_MEMORY: return "out of memory";
    case SCN_ERROR_INTERNAL: return "internal error";
    case SCN_ERROR_INTERRUPTED: return "interrupted";
  }
  return "unknown status";
}

const char* scn_dtype_name(scn_dtype dtype) {
  long long raw = rawValue(dtype);
  return validDType(raw) ? scn::dataTypeName(static_cast<scn::DataType>(raw)) : "?";
}

size_t scn_dtype_size(scn_dtype dtype) {
  long long raw = rawValue(dtype);
  return validDType(raw) ? scn::dataTypeSize(static_cast<scn::DataType>(raw)) : 0;
}

const char* scn_version(void) { return scn::version(); }

size_t scn_reusable_memory_bytes(void) { return scn::reusableMemoryBytes(); }

void scn_set_reusable_memory_limit(size_t bytes) { scn::setReusableMemoryLimit(bytes); }

}  // extern "C"
