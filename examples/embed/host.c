/* A C host embedding scn: define functions in scn source, call them on host arrays, print the
 * results, and show a diagnostic arriving through the callback (the library never prints). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <scn/scn.h>

static const char* kProgram =
    "# compiled once per signature (dtype and shape), then reused\n"
    "fn saxpy(a, x, y) = a * x + y\n"
    "fn affine(w, x, b) = w @ x + b\n"
    "fn stats(x) = (sum(x), max(x))\n";

/* The host decides what to do with diagnostics: here, print them to stderr and count them. */
static void on_diagnostic(const scn_diagnostic* d, void* user) {
  int* count = (int*)user;
  ++*count;
  printf("diagnostic %s at %s:%d:%d: %s\n", d->code, d->file, d->line, d->column, d->message);
  fprintf(stderr, "%s", d->rendered);
}

static void print_array(const char* label, const scn_array* a) {
  int64_t n = 1;
  for (size_t d = 0; d < a->rank; ++d) n *= a->shape[d];
  printf("%s: %s[", label, scn_dtype_name(a->dtype));
  for (size_t d = 0; d < a->rank; ++d) printf(d ? ",%" PRId64 : "%" PRId64, a->shape[d]);
  printf("]");
  for (int64_t i = 0; i < n; ++i) {
    switch (a->dtype) {
      case SCN_F32: printf(" %g", ((const float*)a->data)[i]); break;
      case SCN_F64: printf(" %g", ((const double*)a->data)[i]); break;
      case SCN_I32: printf(" %" PRId32, ((const int32_t*)a->data)[i]); break;
      case SCN_I64: printf(" %" PRId64, ((const int64_t*)a->data)[i]); break;
      default: printf(" ?"); break;
    }
  }
  printf("\n");
}

/* Looks up `name`, calls it on n inputs, prints every result. */
static int call_and_print(scn_context* ctx, const char* name, const scn_array* in, size_t n) {
  scn_function* fn = NULL;
  scn_array* out = NULL;
  size_t nout = 0;
  scn_status s = scn_function_get(ctx, name, &fn);
  if (s == SCN_OK) s = scn_call(fn, in, n, &out, &nout);
  if (s != SCN_OK) {
    printf("%s failed (%s): %s\n", name, scn_status_string(s), scn_last_error(ctx));
  } else {
    for (size_t i = 0; i < nout; ++i) print_array(name, &out[i]);
  }
  scn_array_free(out, nout);
  scn_function_free(fn);
  return s == SCN_OK ? 0 : 1;
}

int main(void) {
  int diagnostics = 0;
  scn_options opts;
  scn_options_init(&opts);
  opts.on_diagnostic = on_diagnostic;
  opts.diagnostic_user = &diagnostics;

  scn_context* ctx = NULL;
  if (scn_context_new(&opts, &ctx) != SCN_OK) return 1;
  if (scn_load_source(ctx, kProgram, "embed.scn") != SCN_OK) return 1;
  int failures = 0;

  /* saxpy: a scalar and two vectors; the inputs are passed without a copy. */
  float a = 2.0f;
  float x[4] = {1, 2, 3, 4};
  float y[4] = {10, 20, 30, 40};
  int64_t n4[1] = {4};
  scn_array saxpy_in[3] = {
      {SCN_F32, 0, NULL, NULL, &a, NULL},
      {SCN_F32, 1, n4, NULL, x, NULL},
      {SCN_F32, 1, n4, NULL, y, NULL},
  };
  failures += call_and_print(ctx, "saxpy", saxpy_in, 3);

  /* affine: a 2x3 matrix times a 3-vector plus a 2-vector, in f64. */
  double w[6] = {1, 2, 3, 4, 5, 6};
  double v[3] = {1, 0, -1};
  double b[2] = {0.5, -0.5};
  int64_t s23[2] = {2, 3}, s3[1] = {3}, s2[1] = {2};
  scn_array affine_in[3] = {
      {SCN_F64, 2, s23, NULL, w, NULL},
      {SCN_F64, 1, s3, NULL, v, NULL},
      {SCN_F64, 1, s2, NULL, b, NULL},
  };
  failures += call_and_print(ctx, "affine", affine_in, 3);

  /* stats: a tuple result arrives as two arrays. */
  int32_t xs[5] = {3, 1, 4, 1, 5};
  int64_t n5[1] = {5};
  scn_array stats_in[1] = {{SCN_I32, 1, n5, NULL, xs, NULL}};
  failures += call_and_print(ctx, "stats", stats_in, 1);

  /* An error: shapes (4,) and (3,) do not broadcast. The diagnostic reaches on_diagnostic with
   * its code, file, line and column; the call returns SCN_ERROR_PROGRAM. */
  int64_t n3[1] = {3};
  scn_array bad_in[3] = {
      {SCN_F32, 0, NULL, NULL, &a, NULL},
      {SCN_F32, 1, n4, NULL, x, NULL},
      {SCN_F32, 1, n3, NULL, y, NULL},
  };
  int bad = call_and_print(ctx, "saxpy", bad_in, 3);

  /* The context is still usable after an error. */
  failures += call_and_print(ctx, "saxpy", saxpy_in, 3);
  printf("diagnostics: %d\n", diagnostics);
  scn_context_free(ctx);
  return failures == 0 && bad == 1 && diagnostics == 1 ? 0 : 1;
}
