/*===- unum-c/Unum.h - Unum's C API ------------------------------*- C -*-===*\
|*                                                                            *|
|* The C API of libUnum (a shared library): array kernels (AIR text to JIT     *|
|* kernels or to an object file and a C header), workflows (a Step Functions  *|
|* state machine or Unum IR to configs, run locally on a data store) and     *|
|* neural networks (the model JSON to VHDL). It is what the Python package    *|
|* (python/unum) uses, and what another language would use. docs/Python.md    *|
|* describes it.                                                              *|
|*                                                                            *|
|* Rules:                                                                     *|
|*  - Every fallible function returns an unum_error *: NULL on success, else  *|
|*    an error value holding the located diagnostics ("file:line:col: error:  *|
|*    ...", one per line). The library never exits or aborts on bad input.    *|
|*    Free errors with unum_error_destroy.                                    *|
|*  - Strings the library returns through char ** out-parameters are owned   *|
|*    by the caller: free them with unum_string_free.                         *|
|*  - A context may be used from several threads; compiling is serialised    *|
|*    per context, calling kernels is not (kernels keep no state).            *|
|*  - UNUM_C_API_VERSION grows when a function is added; a change that breaks *|
|*    callers changes the major number in unum_api_version()'s upper 16 bits. *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef UNUM_C_UNUM_H
#define UNUM_C_UNUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define UNUM_C_EXPORT __attribute__((visibility("default")))
#else
#define UNUM_C_EXPORT
#endif

/* Major version (breaking changes) << 16 | minor version (additions). */
#define UNUM_C_API_VERSION ((1u << 16) | 2u)

/* The version of the library loaded (compare with UNUM_C_API_VERSION: the
   same major number, a minor number at least the one compiled against). */
UNUM_C_EXPORT uint32_t unum_api_version(void);
/* Unum's release and the MLIR it was built with, e.g. "0.1.0 (MLIR 22.1.0)". */
UNUM_C_EXPORT const char *unum_version_string(void);

/*===------------------------------------------------------------------===*
 * Errors and strings
 *===------------------------------------------------------------------===*/

typedef struct unum_error unum_error;

/* The diagnostics, one per line, each "file:line:col: error: message" when
   the error has a location. Valid until the error is destroyed. */
UNUM_C_EXPORT const char *unum_error_message(const unum_error *error);
UNUM_C_EXPORT void unum_error_destroy(unum_error *error);
UNUM_C_EXPORT void unum_string_free(char *string);

/*===------------------------------------------------------------------===*
 * Context
 *===------------------------------------------------------------------===*/

typedef struct unum_context unum_context;

UNUM_C_EXPORT unum_error *unum_context_create(unum_context **out);
/* Destroys the context. Kernels compiled in it stay valid (they own their
   code) until they are destroyed themselves. */
UNUM_C_EXPORT void unum_context_destroy(unum_context *context);

/*===------------------------------------------------------------------===*
 * Array kernels (AIR, docs/Air.md; the kernel ABI is docs/AirABI.md)
 *===------------------------------------------------------------------===*/

typedef struct {
  /* Public function to specialise and its parameter types in the AIR
     notation ("f32[?],f32[]"); NULL or "" keeps the file's types. */
  const char *entry;
  const char *signature;
  /* Target CPU for object files (NULL or "": this machine's). */
  const char *cpu;
  /* LLVM optimisation level 0..3 (3 when the options pointer is NULL). */
  unsigned opt_level;
} unum_air_options;

/* The JIT-compiled public kernels of one AIR text. */
typedef struct unum_kernels unum_kernels;

/* Compiles the AIR `text` (`filename` names it in diagnostics) and
   JIT-compiles every public typed function for this CPU. */
UNUM_C_EXPORT unum_error *unum_air_jit(unum_context *context, const char *text,
                                       const char *filename,
                                       const unum_air_options *options,
                                       unum_kernels **out);
/* unum_air_jit whose kernels run their parallel loops (matmul's row
   blocks) on `threads` OpenMP threads (libomp, loaded into the process;
   docs/AirABI.md). 0 or 1: serial kernels, as unum_air_jit. Since 1.2. */
UNUM_C_EXPORT unum_error *
unum_air_jit_threads(unum_context *context, const char *text,
                     const char *filename, const unum_air_options *options,
                     unsigned threads, unum_kernels **out);
UNUM_C_EXPORT void unum_kernels_destroy(unum_kernels *kernels);

/* The kernels' signatures: count, names, and per kernel the inputs and the
   outputs (dtype "f32" "f64" "i32" "i64" "i1"; shape sizes, -1 for a size
   known only at run time). Indices out of range give 0 / NULL. Strings are
   valid while `kernels` lives. */
UNUM_C_EXPORT size_t unum_kernels_count(const unum_kernels *kernels);
UNUM_C_EXPORT const char *unum_kernel_name(const unum_kernels *kernels,
                                           size_t kernel);
UNUM_C_EXPORT size_t unum_kernel_num_params(const unum_kernels *kernels,
                                            size_t kernel, int output);
UNUM_C_EXPORT const char *unum_kernel_param_name(const unum_kernels *kernels,
                                                 size_t kernel, int output,
                                                 size_t param);
UNUM_C_EXPORT const char *unum_kernel_param_dtype(const unum_kernels *kernels,
                                                  size_t kernel, int output,
                                                  size_t param);
UNUM_C_EXPORT size_t unum_kernel_param_rank(const unum_kernels *kernels,
                                            size_t kernel, int output,
                                            size_t param);
UNUM_C_EXPORT int64_t unum_kernel_param_size(const unum_kernels *kernels,
                                             size_t kernel, int output,
                                             size_t param, size_t dim);

/* The C entry point of kernel NAME (docs/AirABI.md: pointers to memref
   descriptors, inputs then outputs), or NULL. Calling it directly is the
   fastest way; the caller is responsible for the descriptors. */
UNUM_C_EXPORT void *unum_kernels_lookup(const unum_kernels *kernels,
                                        const char *name);

/* 1 when kernels return an int32_t status (0: success; else, e.g. 1 when
   sizes disagree, nothing was written), 0 when they return nothing (the
   kernel ABI before issue 14; docs/AirABI.md says which this build has).
   unum_kernels_call reads the status either way. */
UNUM_C_EXPORT int unum_kernels_return_status(void);

/* Calls kernel NAME with `count` (1 to 16) descriptor pointers (inputs, then one per
   output), after checking the count and, for each descriptor, that its
   sizes agree with the kernel's static sizes and that arrays of one
   dynamic size agree (the kernel itself trusts its descriptors), and a
   non-zero status of the kernel is an error too. Strides
   must be those of a row-major contiguous array; `descriptors[i]` points
   to {allocated, aligned, offset, sizes[rank], strides[rank]}. */
UNUM_C_EXPORT unum_error *unum_kernels_call(const unum_kernels *kernels,
                                            const char *name,
                                            void *const *descriptors,
                                            size_t count);

/* Ahead of time: compiles the AIR `text` to an object file at
   `object_path` and, when `header_path` is not NULL, a C header declaring
   its kernels (what unum-airc writes). Nothing is written on failure. */
UNUM_C_EXPORT unum_error *unum_air_emit_object(unum_context *context,
                                               const char *text,
                                               const char *filename,
                                               const unum_air_options *options,
                                               const char *object_path,
                                               const char *header_path);

/* The module after a stage: "air" (after air-optimize), "linalg",
   "mlir-llvm" (the LLVM dialect) or "llvm-ir", as text in *out. */
UNUM_C_EXPORT unum_error *unum_air_print(unum_context *context,
                                         const char *text, const char *filename,
                                         const unum_air_options *options,
                                         const char *stage, char **out);

/*===------------------------------------------------------------------===*
 * Workflows (docs/Tools/unumc.md, docs/Tools/unum-run.md)
 *===------------------------------------------------------------------===*/

typedef struct {
  /* "json" (NULL) or "yaml". */
  const char *format;
  /* The application's name (NULL: the file name's stem). */
  const char *name;
} unum_workflow_options;

/* Compiles the workflow at `source_path` to `out_dir`/<Function>/
   unum_config.<ext>, all files or none: an AWS Step Functions state
   machine (ASL JSON, any other extension) is imported, checked and lowered
   with convert-sfn-to-unum; a Unum IR module (`.mlir`, holding one
   unum.app) is verified and written. */
UNUM_C_EXPORT unum_error *
unum_workflow_compile(unum_context *context, const char *source_path,
                      const char *out_dir, const unum_workflow_options *options);

/* What a handler callback answers (see unum_workflow_run_options). */
typedef struct unum_handler_reply unum_handler_reply;
/* The function's output, a JSON text (copied). */
UNUM_C_EXPORT void unum_handler_reply_output(unum_handler_reply *reply,
                                             const char *json);
/* The function failed: a Step Functions error name (NULL:
   "States.TaskFailed") and a cause (copied). */
UNUM_C_EXPORT void unum_handler_reply_error(unum_handler_reply *reply,
                                            const char *error_name,
                                            const char *cause);

/* Runs one function's user code: `input_json` is the function's input; the
   callback answers through `reply` (neither: the call fails). It may be
   called from several worker threads at once. */
typedef void (*unum_handler_fn)(void *user_data, const char *function,
                                const char *input_json,
                                unum_handler_reply *reply);

typedef struct {
  /* "memory" (NULL), "sqlite:PATH" or "redis://HOST:PORT". */
  const char *store;
  /* Worker threads (0: 4). */
  unsigned workers;
  /* Multiplies every real wait (Wait states, Retry intervals); 0: 1. */
  double time_scale;
  /* User code for the functions that have neither an executable `handler`
     in their directory nor a builtin; NULL: those functions are an error. */
  unum_handler_fn handler;
  void *handler_data;
} unum_workflow_run_options;

/* Runs the compiled application in `app_dir` (one directory per function)
   with the workflow input `input_json` (a payload {"Data": ...} or a bare
   value) and sets *outputs_json to the terminal instances' outputs, one
   JSON object keyed by instance name (what unum-run prints). */
UNUM_C_EXPORT unum_error *
unum_workflow_run(unum_context *context, const char *app_dir,
                  const char *input_json,
                  const unum_workflow_run_options *options,
                  char **outputs_json);

/*===------------------------------------------------------------------===*
 * Neural networks to VHDL (docs/NN.md)
 *===------------------------------------------------------------------===*/

typedef struct {
  /* nn-quantize's options, e.g. "total-bits=8 frac-bits=4
     rounding=nearest" (NULL: its defaults). */
  const char *quantize;
  /* Multipliers per multiply-accumulate layer (0: 1). */
  unsigned parallelism;
} unum_nn_options;

/* Imports the model JSON `model_json` (`filename` names it in
   diagnostics), removes dead nodes, folds batch norms, quantises, converts
   to rtl and writes the VHDL design, its testbench and report.json into
   `out_dir` (all files or none). When `quantized_ir` is not NULL it is set
   to the quantised nn module (MLIR text, what unum-nn-sim reads). */
UNUM_C_EXPORT unum_error *unum_nn_to_vhdl(unum_context *context,
                                          const char *model_json,
                                          const char *filename,
                                          const unum_nn_options *options,
                                          const char *out_dir,
                                          char **quantized_ir);

/* The CPU path of a float model: imports the model JSON `model_json`,
   removes dead nodes and lowers it with convert-nn-to-air; *air_mlir is set
   to the resulting module (one public air function named after the model,
   MLIR text) for unum_air_jit / unum_air_emit_object with a filename ending
   in ".mlir". Free it with unum_string_free. */
UNUM_C_EXPORT unum_error *unum_nn_to_air(unum_context *context,
                                         const char *model_json,
                                         const char *filename, char **air_mlir);

#ifdef __cplusplus
}
#endif

#endif /* UNUM_C_UNUM_H */
