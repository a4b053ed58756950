/* The C embedding API of scn: contexts, loading programs, calling functions on host arrays.
 *
 * Every function returns an scn_status (a few accessors return a value instead) and never lets
 * a C++ exception out. Diagnostics reach the host through the callback in scn_options as
 * scn_diagnostic records; the library never prints. There is no global state: a process may
 * hold several contexts, each used by one thread at a time: a call on a context that another
 * thread is inside returns SCN_ERROR_INVALID_ARGUMENT (error E0601). See docs/embedding.md. */
#ifndef SCN_SCN_H
#define SCN_SCN_H

#include <stddef.h>
#include <stdint.h>

#ifndef SCN_C_API
#if defined(__GNUC__)
#define SCN_C_API __attribute__((visibility("default")))
#else
#define SCN_C_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** What a call returned. The values are those of scn::StatusCode. */
typedef enum scn_status {
  SCN_OK = 0,
  SCN_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, a bad dtype or shape, a wrong argument count */
  SCN_ERROR_NOT_FOUND = 2,        /* no function of that name is defined */
  SCN_ERROR_PROGRAM = 3,          /* a diagnostic from the program (syntax, types, shapes, ...) */
  SCN_ERROR_OUT_OF_MEMORY = 4,
  SCN_ERROR_INTERNAL = 5,         /* a bug in scn */
  SCN_ERROR_INTERRUPTED = 6       /* stopped by scn_interrupt (error E0507) */
} scn_status;

/** Element types, in the language's order. */
typedef enum scn_dtype {
  SCN_BOOL = 0, /* one byte, 0 or 1 */
  SCN_I32 = 1,
  SCN_I64 = 2,
  SCN_U32 = 3,
  SCN_U64 = 4,
  SCN_F32 = 5,
  SCN_F64 = 6,
  SCN_C64 = 7,  /* two floats, the real part first (C's float _Complex) */
  SCN_C128 = 8, /* two doubles, the real part first (C's double _Complex) */
  SCN_BF16 = 9, /* the 16 bits of a bfloat16 (uint16_t storage) */
  SCN_F16 = 10  /* the 16 bits of an IEEE binary16 (uint16_t storage; C's _Float16) */
} scn_dtype;

typedef enum scn_severity { SCN_SEVERITY_ERROR = 0, SCN_SEVERITY_WARNING = 1, SCN_SEVERITY_NOTE = 2 } scn_severity;

/** A secondary location of a diagnostic. Strings are never NULL (empty when absent). */
typedef struct scn_diagnostic_note {
  const char* message;
  const char* file;
  int line;   /* 1-based; 0 when the note has no location */
  int column; /* 1-based, in bytes */
} scn_diagnostic_note;

/** One diagnostic. Valid only during the callback; copy what you keep. Strings are never NULL. */
typedef struct scn_diagnostic {
  scn_severity severity;
  const char* code;    /* "E0101"; the error index is docs/errors.md */
  const char* message; /* lower-case, no final period */
  const char* file;    /* the name given to scn_load_source or the path; may be empty */
  int line;            /* 1-based; 0 when there is no location */
  int column;          /* 1-based, in bytes */
  const scn_diagnostic_note* notes;
  size_t num_notes;
  const char* help;     /* how to fix it; may be empty */
  const char* rendered; /* the full text as the CLI prints it (source line, caret, notes) */
} scn_diagnostic;

typedef void (*scn_diagnostic_fn)(const scn_diagnostic* diagnostic, void* user);
/** Receives the text of print() calls (not NUL-terminated: use len). */
typedef void (*scn_print_fn)(const char* text, size_t len, void* user);

/** Context options. Fill with scn_options_init, then set what you need. */
typedef struct scn_options {
  const char* backend; /* "auto" (NULL means auto), "cpu", "interp", "cuda" or "cuda-emu" */
  int opt_level;       /* 0..3, default 2 */
  scn_diagnostic_fn on_diagnostic; /* may be NULL */
  void* diagnostic_user;
  scn_print_fn on_print; /* may be NULL: print() output is dropped */
  void* print_user;
  /* A directory for compiled code that outlives the context (CPU objects in <dir>/cpu, CUDA
   * PTX in <dir>/ptx), safe to share between processes. NULL or "" (the default): none. */
  const char* cache_dir;
  /* The most bytes the gradient of a scan without checkpoints= stores (a carry per step) before
   * scn checkpoints that scan itself. 0 (the default): $SCN_GRAD_MEMORY_BUDGET, else 1 GiB. */
  uint64_t grad_memory_budget;
  /* The processes of an MPI host that pmap and the collectives run over: a pointer to the host's
   * MPI_Comm (&comm; this header needs no mpi.h), duplicated by scn_context_new (MPI_Comm_dup:
   * every process of the communicator creates its context together), so the host may free its
   * own afterwards. The host calls MPI_Init before and MPI_Finalize after the context is freed;
   * scn calls neither. scn must be built with the host's MPI (Open MPI). NULL (the default):
   * this process alone. E0444 (SCN_ERROR_INVALID_ARGUMENT) when it cannot be used: MPI not
   * initialised or finalised, MPI_COMM_NULL, scn built without MPI. docs/distributed.md. */
  const void* mpi_communicator;
} scn_options;

/** An array. As an input the host fills dtype, rank, shape and data (strides may be NULL:
 *  contiguous row-major, which is passed without a copy when aligned to the element size); the
 *  memory must stay valid during the call only. As an output the library fills every field and
 *  owns the memory until scn_array_free. */
typedef struct scn_array {
  scn_dtype dtype;
  size_t rank;            /* 0 for a scalar */
  const int64_t* shape;   /* rank extents */
  const int64_t* strides; /* byte strides, or NULL for contiguous row-major (always NULL on outputs) */
  const void* data;
  void* owner; /* set by the library on outputs; ignored on inputs (an output may be passed back) */
} scn_array;

/** Figures of one compiled-function call (see scn_last_stats). Strings are never NULL. */
typedef struct scn_call_stats {
  const char* function;
  const char* backend;      /* as used, e.g. "cpu"; a fallback says so */
  int compiled;             /* 1: traced and compiled by this call; 0: compiled code reused */
  int cache_hit;            /* compiled, but code generation was skipped: the code came from a
                               cache (in memory, or scn_options.cache_dir) */
  double compile_ms;        /* trace + optimise + code generation */
  double run_ms;
  size_t host_peak_bytes;   /* host buffers the run allocated (not the inputs); 0 on interp */
  size_t device_peak_bytes; /* device buffers (cuda, cuda-emu); 0 elsewhere */
  size_t copied_bytes;      /* bytes copied for loop carries */
} scn_call_stats;

/* DLPack's tensors (docs/embedding.md, "DLPack"): include any dlpack.h (v0.8 or later; scn's
 * source has one in third_party/dlpack) to fill or read them. */
struct DLManagedTensor;
struct DLManagedTensorVersioned;

typedef struct scn_context scn_context;
typedef struct scn_function scn_function;

/** Sets the defaults: backend "auto", opt_level 2, no callbacks, no cache directory, no MPI
 *  communicator. */
SCN_C_API scn_status scn_options_init(scn_options* options);

/** Creates a context; options may be NULL (the defaults). On failure *out is NULL and the
 *  diagnostic went to the callback. */
SCN_C_API scn_status scn_context_new(const scn_options* options, scn_context** out);
/** Frees a context (NULL is fine). Functions obtained from it stay usable until freed. A context
 *  that another thread is inside is not freed: SCN_ERROR_INVALID_ARGUMENT. */
SCN_C_API scn_status scn_context_free(scn_context* ctx);

/** Parses and runs NUL-terminated program text; name is what diagnostics show (NULL: "<source>"). */
SCN_C_API scn_status scn_load_source(scn_context* ctx, const char* source, const char* name);
/** Loads and runs a program file. */
SCN_C_API scn_status scn_load_file(scn_context* ctx, const char* path);

/** Looks up a function (a `fn` of a loaded program, or a builtin). Free it with
 *  scn_function_free. */
SCN_C_API scn_status scn_function_get(scn_context* ctx, const char* name, scn_function** out);
SCN_C_API scn_status scn_function_free(scn_function* fn);
/** Number of parameters, or -1 when not fixed (builtins, vmapped functions). */
SCN_C_API scn_status scn_function_arity(const scn_function* fn, int* out);

/** Calls fn on n input arrays. On success *outputs is a new array of *nout results (NULL when
 *  there are none), to be released with scn_array_free(*outputs, *nout). */
SCN_C_API scn_status scn_call(scn_function* fn, const scn_array* inputs, size_t n,
                              scn_array** outputs, size_t* nout);
/** Asks the scn_load_* or scn_call running on ctx in another thread to stop: it returns
 *  SCN_ERROR_INTERRUPTED (error E0507) and ctx stays usable. The only function that may be
 *  called on a context another thread is using; returns at once. Loops on the cpu and interp
 *  backends stop within one iteration. Every load and call clears the request when it starts:
 *  one made while nothing runs is dropped. */
SCN_C_API scn_status scn_interrupt(scn_context* ctx);

/** Frees n arrays returned by scn_call or scn_array_from_dlpack (NULL is fine). */
SCN_C_API scn_status scn_array_free(scn_array* arrays, size_t n);

/** Takes a DLPack 0.8 tensor as a call input: *out is a new array of one element viewing the
 *  tensor's memory, to pass to scn_call (host memory in C order without a copy; other strides
 *  are copied by the call) and to release with scn_array_free(*out, 1), which calls the
 *  tensor's deleter. The tensor is scn's in every case: when this fails, its deleter has run
 *  (exactly once) and *out is NULL. Errors: a dtype scn does not have (E0527), memory that is
 *  not the host's (E0528), a malformed tensor (E0529); status SCN_ERROR_INVALID_ARGUMENT. */
SCN_C_API scn_status scn_array_from_dlpack(scn_context* ctx, struct DLManagedTensor* tensor, scn_array** out);
/** The same for a DLPack 1.x tensor; a major version other than 1 is E0530. */
SCN_C_API scn_status scn_array_from_dlpack_versioned(scn_context* ctx, struct DLManagedTensorVersioned* tensor,
                                                     scn_array** out);
/** Hands one result of scn_call to a DLPack consumer without a copy: *out owns scn's buffer, and
 *  its deleter frees it (it outlives the context). The array is emptied (data and shape NULL,
 *  rank 0); scn_array_free of the outputs is still due, before or after the deleter. An array
 *  that is not an scn_call result, or was handed over already: SCN_ERROR_INVALID_ARGUMENT. */
SCN_C_API scn_status scn_array_to_dlpack(scn_array* array, struct DLManagedTensor** out);
/** The same as a DLPack 1.1 tensor, flagged read-only when scn shares the buffer elsewhere (a
 *  global of the program, another result of the same call). */
SCN_C_API scn_status scn_array_to_dlpack_versioned(scn_array* array, struct DLManagedTensorVersioned** out);

/** The one-line header of the last failed call's first error on ctx ("" after a success, and
 *  for a NULL ctx). Valid until the next call on ctx. */
SCN_C_API const char* scn_last_error(const scn_context* ctx);
/** Bytes the last call on ctx copied to make its inputs contiguous: 0 when every input was
 *  borrowed (contiguous, aligned, not bool, not a static parameter). 0 for a NULL ctx. */
SCN_C_API size_t scn_last_copied_input_bytes(const scn_context* ctx);
/** The compiled-function calls the last load or call on ctx made, in order: *stats points to
 *  *count records (NULL and 0 when there are none), valid until the next call on ctx. */
SCN_C_API scn_status scn_last_stats(scn_context* ctx, const scn_call_stats** stats, size_t* count);
/** "ok", "invalid argument", ... */
SCN_C_API const char* scn_status_string(scn_status status);
/** "bool", "i32", ...; "?" for a bad value. */
SCN_C_API const char* scn_dtype_name(scn_dtype dtype);
/** Bytes per element; 0 for a bad value. */
SCN_C_API size_t scn_dtype_size(scn_dtype dtype);
/** The library version, "0.1.0". */
SCN_C_API const char* scn_version(void);

/** Freed result and temporary blocks of 4 MiB or more are kept for reuse by later calls (of any
 *  context: process-wide). The bytes kept now, memory no array uses: */
SCN_C_API size_t scn_reusable_memory_bytes(void);
/** The most bytes kept (default 256 MiB; no single block over half of it); 0 frees what is
 *  kept and keeps nothing from then on. */
SCN_C_API void scn_set_reusable_memory_limit(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* SCN_SCN_H */
