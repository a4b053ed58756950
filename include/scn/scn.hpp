// The C++ embedding API of scn: contexts, loading programs, calling functions on host arrays.
//
// A small, stable surface over the engine (pimpl: no internal header is included). Everything a
// program needs lives in a `scn::Context`; a process may hold several, each used by one thread at
// a time. Errors are returned as `scn::Status` / `scn::Result`, and every diagnostic (code,
// message, file, line, column, notes, help) is handed to the host's callback as a record: the
// library never prints. See docs/embedding.md.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef SCN_API
#if defined(__GNUC__)
#define SCN_API __attribute__((visibility("default")))
#else
#define SCN_API
#endif
#endif

// DLPack's tensors (docs/embedding.md, "DLPack"): include any dlpack.h (v0.8 or later; scn's
// source has one in third_party/dlpack) to fill or read them. Their layout is DLPack's ABI.
struct DLManagedTensor;
struct DLManagedTensorVersioned;

namespace scn {

/// Element types of arrays crossing the API (the same set, in the same order, as the language).
/// C64 / C128: two floats / doubles, the real part first (std::complex<float> / <double>).
/// BF16 / F16: the 16 bits of a bfloat16 / IEEE binary16 (read and write them as uint16_t).
enum class DataType : uint8_t { Bool, I32, I64, U32, U64, F32, F64, C64, C128, BF16, F16 };

/// "bool", "i32", ... as written in scn source; "?" for a value outside the enum.
SCN_API const char* dataTypeName(DataType t);
/// Bytes per element (bool is one byte); 0 for a value outside the enum.
SCN_API size_t dataTypeSize(DataType t);

/// The DataType of a C++ element type: bool, int32_t, int64_t, uint32_t, uint64_t, float, double,
/// std::complex of float or double. (bf16 and f16 have no C++ type: a host passes their 16-bit
/// patterns, as uint16_t, with DataType::BF16 or DataType::F16.)
template <typename T>
constexpr DataType dataTypeOf() {
  if constexpr (std::is_same_v<T, bool>) return DataType::Bool;
  else if constexpr (std::is_same_v<T, int32_t>) return DataType::I32;
  else if constexpr (std::is_same_v<T, int64_t>) return DataType::I64;
  else if constexpr (std::is_same_v<T, uint32_t>) return DataType::U32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DataType::U64;
  else if constexpr (std::is_same_v<T, float>) return DataType::F32;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return DataType::C64;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return DataType::C128;
  else {
    static_assert(std::is_same_v<T, double>, "scn arrays hold bool, (u)int32/64, float, double or std::complex of them");
    return DataType::F64;
  }
}

/// What went wrong, in categories a host can act on. The C API's scn_status has the same values.
enum class StatusCode : int {
  Ok = 0,
  InvalidArgument = 1,  // a null pointer, a bad dtype or shape, the wrong number of arguments
  NotFound = 2,         // no function of that name is defined
  ProgramError = 3,     // a diagnostic from the program: syntax, types, shapes, a failed assert
  OutOfMemory = 4,
  Internal = 5,         // a bug in scn (the diagnostic says so)
  Interrupted = 6,      // stopped by Context::interrupt (error E0507)
};

/// The outcome of an API call: ok, or a code with the one-line header of the first error
/// ("file:line:col: error[CODE]: message"). Converts to true when ok.
class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  bool ok() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

/// A value or the Status saying why there is none. Converts to true when it holds a value.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status status) : status_(std::move(status)) {}
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status& status() const { return status_; }
  /// The value; throws std::bad_optional_access when there is none.
  T& value() & { return value_.value(); }
  const T& value() const& { return value_.value(); }
  T&& value() && { return std::move(value_.value()); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

enum class DiagnosticSeverity { Error, Warning, Note };

/// A secondary location of a diagnostic ("the traced value comes from here").
struct DiagnosticNote {
  std::string message;
  std::string file;  // empty when the note has no location
  int line = 0;      // 1-based; 0 when there is no location
  int column = 0;    // 1-based, in bytes
};

/// One diagnostic, as the host receives it. Codes are listed in docs/errors.md.
struct DiagnosticRecord {
  DiagnosticSeverity severity = DiagnosticSeverity::Error;
  std::string code;     // "E0101"
  std::string message;  // lower-case, no final period
  std::string file;     // the name given to load() or the path given to loadFile(); may be empty
  int line = 0;         // 1-based; 0 when the diagnostic has no location
  int column = 0;       // 1-based, in bytes
  std::vector<DiagnosticNote> notes;
  std::string help;      // how to fix it; may be empty
  std::string rendered;  // the whole text as the CLI prints it: header, source line, caret, notes
};

/// How a context is set up.
struct ContextOptions {
  /// "auto" (a usable GPU, else the CPU), "cpu" (the LLVM JIT), "interp" (the reference
  /// interpreter), "cuda" or "cuda-emu" (the CUDA backend's code run on the host, for tests).
  std::string backend = "auto";
  /// Optimisation level of generated code, 0 to 3.
  int optLevel = 2;
  /// Receives every diagnostic as a record. Without it diagnostics are only summarised in the
  /// returned Status and in Context::lastError().
  std::function<void(const DiagnosticRecord&)> onDiagnostic;
  /// Receives the text of the program's print() calls; without it the text is dropped.
  std::function<void(std::string_view)> onPrint;
  /// A directory for compiled code that outlives the context: CPU objects in `<dir>/cpu`,
  /// CUDA PTX in `<dir>/ptx`, shared safely by processes and contexts. A later context compiling
  /// the same function skips code generation. Empty (the default): nothing is written to disk.
  std::string cacheDir;
  /// The most bytes the gradient of a scan without `checkpoints=` stores (a carry per step)
  /// before scn checkpoints that scan itself (docs/language.md, Checkpointing). 0 (the
  /// default): $SCN_GRAD_MEMORY_BUDGET, else 1 GiB.
  uint64_t gradMemoryBudget = 0;
  /// The processes of an MPI host that pmap and the collectives run over: a pointer to the
  /// host's MPI_Comm (`&comm`; scn's headers need no mpi.h). scn duplicates it at create()
  /// (MPI_Comm_dup: every process of the communicator creates its context together), so the
  /// host may free its own afterwards; process_index() and process_count() are the rank and size
  /// in it. The host owns MPI: it calls MPI_Init before create() and MPI_Finalize after the
  /// context is gone; scn calls neither. scn must be built with the same MPI (Open MPI) as the
  /// host. Null (the default): this process alone, also under mpirun. E0444 (InvalidArgument)
  /// when it cannot be used: MPI not initialised or finalised, MPI_COMM_NULL, scn built without
  /// MPI. See docs/distributed.md, "Embedding".
  const void* mpiCommunicator = nullptr;
};

/// Figures of one compiled-function call made by the last load() or call().
struct CallStats {
  std::string function;
  std::string backend;     // as used, e.g. "cpu"; a fallback says so
  bool compiled = false;   // traced and compiled by this call (false: compiled code reused)
  bool cacheHit = false;   // compiled, but code generation was skipped: the code came from a
                           // cache (in memory, or ContextOptions::cacheDir)
  double compileMs = 0;    // trace + optimise + code generation
  double runMs = 0;
  size_t hostPeakBytes = 0;    // peak bytes of host buffers the run allocated (not the inputs);
                               // 0 on the interpreter, which does not measure it
  size_t devicePeakBytes = 0;  // peak bytes of device buffers (cuda, cuda-emu); 0 elsewhere
  size_t copiedBytes = 0;      // bytes copied for loop carries
};

/// A host array handed to a call, by reference: nothing is copied when the data is contiguous
/// row-major and aligned to its element size. The memory must stay valid and unchanged for the
/// duration of the call only.
struct ArrayView {
  DataType dtype = DataType::F32;
  std::vector<int64_t> shape;  // empty for a scalar (a 0-d array)
  const void* data = nullptr;
  /// Byte strides, one per dimension; empty means contiguous row-major. Other layouts are
  /// copied into a contiguous array before the call.
  std::vector<int64_t> strides;
  /// A weakly typed scalar, like a number written without a suffix in scn source: it takes the
  /// dtype of the array it meets (`x * 2.0` keeps x's dtype) and its default i32 / f32 alone.
  /// Only a 0-d I64, F64 or C128 view may be weak (a host language's int, float or complex, at
  /// 64 bits a part).
  bool weak = false;
  /// A parameter with a default left out (`fn f(x, w=2.0, b=0.0)` called with x, omitted, b):
  /// the call evaluates the default; the inputs after it are matched to their parameters by
  /// name. Trailing parameters with defaults may simply be left out of the inputs.
  bool omitted = false;

  ArrayView() = default;
  ArrayView(DataType dtype_, std::vector<int64_t> shape_, const void* data_,
            std::vector<int64_t> strides_ = {})
      : dtype(dtype_), shape(std::move(shape_)), data(data_), strides(std::move(strides_)) {}
  /// A view of contiguous row-major `data` whose dtype is deduced from T.
  template <typename T>
  static ArrayView of(const T* data, std::vector<int64_t> shape) {
    return ArrayView(dataTypeOf<T>(), std::move(shape), data);
  }
};

/// A result array. It owns its data (shared between copies of the HostArray; read-only unless
/// uniqueData() says no one else has it), so it outlives the call, the Function and the Context
/// that produced it.
class HostArray {
 public:
  HostArray() = default;
  /// Wraps `data` (contiguous row-major), kept alive by the shared pointer.
  HostArray(DataType dtype, std::vector<int64_t> shape, std::shared_ptr<const void> data)
      : dtype_(dtype), shape_(std::move(shape)), data_(std::move(data)) {}

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  /// Number of elements (1 for a scalar).
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape_) n *= d;
    return n;
  }
  size_t bytes() const { return static_cast<size_t>(size()) * dataTypeSize(dtype_); }
  const void* data() const { return data_.get(); }
  /// The elements as T; T must match dtype() (checked only by the caller).
  template <typename T>
  const T* dataAs() const {
    return static_cast<const T*>(data_.get());
  }
  /// A view for passing this result to another call, without copying.
  ArrayView view() const { return ArrayView(dtype_, shape_, data_.get()); }
  /// The data for writing when nothing else shares it (no other HostArray, no value the context
  /// keeps, such as a global of the program): the host may then change the result in place.
  /// nullptr when it is shared.
  void* uniqueData() const { return data_.use_count() == 1 ? const_cast<void*>(data_.get()) : nullptr; }

 private:
  DataType dtype_ = DataType::F32;
  std::vector<int64_t> shape_;
  std::shared_ptr<const void> data_;
};

/// A DLPack tensor taken as a call input (Context::fromDLPack). It owns the tensor and calls its
/// deleter exactly once, when the last copy of this handle is gone. Cheap to copy.
class SCN_API DLPackInput {
 public:
  DLPackInput() = default;
  /// A view of the tensor's memory for Function::call. Host memory in C order is borrowed
  /// (no copy); other strides become byte strides, and the call copies the data.
  const ArrayView& view() const;

  struct Impl;

 private:
  friend class Context;
  std::shared_ptr<const Impl> impl_;
};

/// Hands a result to a DLPack consumer without a copy: a new DLPack 0.8 tensor (on the CPU, in
/// C order) that shares `array`'s buffer until its deleter runs; it outlives the context. Move
/// the HostArray in when you are done with it. Throws std::bad_alloc only.
SCN_API DLManagedTensor* toDLPack(HostArray array);
/// The same as a DLPack 1.x tensor (version 1.1). It is flagged read-only when the buffer is
/// shared with anything else (another HostArray, a global of the program: see uniqueData).
SCN_API DLManagedTensorVersioned* toDLPackVersioned(HostArray array);

class Context;
namespace detail {
struct Access;  // the C API's way in (driver/api.cpp); not for hosts
}

/// A handle on a function a loaded program defined (or a builtin). Cheap to copy. It keeps its
/// context's state alive and follows the context's threading rule.
/// A parameter of a `fn`, as declared.
struct Parameter {
  std::string name;       // "_" for an ignored argument
  bool isStatic = false;  // declared `static`: its value is part of the compiled signature
  bool hasDefault = false;  // `fn f(x, eps=1e-5)`: a call may leave it (and those after it) out
};

class SCN_API Function {
 public:
  Function();
  ~Function();
  Function(const Function&);
  Function& operator=(const Function&);
  Function(Function&&) noexcept;
  Function& operator=(Function&&) noexcept;

  const std::string& name() const;
  /// Number of parameters, or -1 when it is not fixed (a builtin or a vmapped function).
  int arity() const;
  /// The declared parameters, in order; empty when the arity is not fixed.
  std::vector<Parameter> parameters() const;
  /// Calls the function: traced and compiled for the inputs' dtypes and shapes on the first call
  /// with that signature, then reused. The results are the leaves of the returned value (an
  /// array; a tuple, flattened in order; None gives no results).
  Result<std::vector<HostArray>> call(const std::vector<ArrayView>& inputs) const;
  /// As above, for `n` views at `inputs` (a null pointer with n > 0 is an InvalidArgument).
  Result<std::vector<HostArray>> call(const ArrayView* inputs, size_t n) const;

  struct Impl;

 private:
  friend class Context;
  friend struct detail::Access;
  std::shared_ptr<Impl> impl_;
};

/// An scn engine: globals, compiled-code cache, backend and diagnostics. Movable, not copyable.
/// No state is shared between contexts; use each from one thread at a time: a call while another
/// thread is inside fails with E0601 (InvalidArgument), "the context is in use by another thread".
class SCN_API Context {
 public:
  /// Creates a context. Fails (with a diagnostic) on an unknown or unusable backend.
  static Result<Context> create(ContextOptions options = {});
  ~Context();
  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// Parses and runs a program: its `fn` definitions and globals stay defined, top-level code
  /// runs now. `name` is the file name diagnostics show.
  Status load(std::string_view source, std::string_view name = "<source>");
  /// As load(), for a file on disk; `import` inside it resolves relative to it.
  Status loadFile(const std::string& path);
  /// Looks up a function by name: a `fn` the loaded programs defined, or a builtin.
  Result<Function> function(std::string_view name);
  /// Takes a DLPack 0.8 tensor as a call input (see DLPackInput). The tensor is scn's in every
  /// case: when the import fails its deleter has run before this returns. Errors (status
  /// InvalidArgument): a dtype scn does not have (E0527), memory that is not the host's
  /// (E0528), a malformed tensor (E0529).
  Result<DLPackInput> fromDLPack(DLManagedTensor* tensor);
  /// The same for a DLPack 1.x tensor; a major version other than 1 is E0530.
  Result<DLPackInput> fromDLPack(DLManagedTensorVersioned* tensor);
  /// function(name), then call(inputs).
  Result<std::vector<HostArray>> call(std::string_view name, const std::vector<ArrayView>& inputs);

  /// The backend in use: "cpu", "interp", "cuda" or "cuda-emu" ("auto" resolved).
  std::string backend() const;
  /// The one-line header of the last failed call's first error; empty after a success.
  const std::string& lastError() const;
  /// One record per compiled-function call the last load() or call() made, in order.
  const std::vector<CallStats>& lastStats() const;
  /// Bytes the last call copied to make its inputs contiguous host arrays: 0 when every input
  /// was borrowed (contiguous, aligned, not bool, not a static parameter).
  size_t lastCopiedInputBytes() const;
  /// The names the prelude and the loaded programs defined (functions and other globals), sorted.
  std::vector<std::string> names() const;

  /// Asks the load() or call() running on this context in another thread to stop: it fails
  /// with E0507 and StatusCode::Interrupted, and the context stays usable. The only member that
  /// may be called while another thread uses the context; returns at once. The cpu and interp
  /// backends stop within one loop iteration, the evaluator between statements; one kernel and
  /// the CUDA backends' loops run to their end first. Each load() and call() starts by
  /// clearing the request: one made while no call runs is dropped.
  void interrupt() const;

  struct Impl;

 private:
  friend struct detail::Access;
  explicit Context(std::shared_ptr<Impl> impl);
  template <typename Managed>
  Result<DLPackInput> takeTensor(Managed* tensor);
  std::shared_ptr<Impl> impl_;
};

/// The library's version, "0.1.0".
SCN_API const char* version();

/// Freed result and temporary blocks of 4 MiB or more are kept for reuse by later calls (of any
/// context: this is process-wide), so a function called in a loop writes into memory that is
/// already paged in. The bytes kept now (memory no array uses):
SCN_API size_t reusableMemoryBytes();
/// The most bytes kept (default 256 MiB; no single block over half of it). 0 frees what is kept
/// and keeps nothing from then on.
SCN_API void setReusableMemoryLimit(size_t bytes);

}  // namespace scn
