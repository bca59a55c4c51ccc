//===- CAPI.cpp - libUnum's C API (include/unum-c/Unum.h) -----------------===//
//
// Each entry point catches what could escape it (C++ exceptions from the
// runtime, bad arguments) and turns it into an unum_error: a C caller, or
// Python through ctypes, never sees an abort or an exit.
//
//===----------------------------------------------------------------------===//
#include "unum-c/Unum.h"

#include "unum/AirCompiler/AirCompiler.h"
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"
#include "unum/Dialect/Unum/Transforms/Passes.h"
#include "unum/InitAll.h"
#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/Handler.h"
#include "unum/Runtime/Runtime.h"
#include "unum/Target/ASL/ASL.h"
#include "unum/Target/NNJson/NNJson.h"
#include "unum/Target/UnumConfig/UnumConfig.h"
#include "unum/Target/VHDL/VHDL.h"
#include "unum/Version.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>

using namespace mlir;

namespace {
/// Kernels return an int32_t status (0: done, else nothing was written)
/// once the kernel ABI of issue 14 lands; JitKernels::call then returns it
/// instead of a bool. Until then they return nothing.
constexpr bool kKernelsReturnStatus =
    std::is_same_v<decltype(std::declval<const unum::air::JitKernels &>().call(
                       std::string())),
                   int32_t>;
} // namespace

struct unum_error {
  std::string message;
};

namespace {
unum_error *makeError(std::string message) {
  if (message.empty())
    message = "error: failed (no diagnostic)\n";
  else if (message.back() != '\n')
    message += '\n';
  return new (std::nothrow) unum_error{std::move(message)};
}

char *copyString(const std::string &s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (out)
    std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

std::string orEmpty(const char *s) { return s ? s : ""; }

/// Runs `body`, turning exceptions into errors.
template <typename Fn> unum_error *guarded(Fn &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return makeError("error: out of memory");
  } catch (const std::exception &e) {
    return makeError(std::string("error: ") + e.what());
  } catch (...) {
    return makeError("error: unknown exception");
  }
}

/// Collects the diagnostics of `context` as "file:line:col: error: ..."
/// lines while it lives.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &d) {
          append(d);
          for (Diagnostic &note : d.getNotes())
            append(note);
          return success();
        }) {}
  const std::string &text() const { return collected; }

private:
  void append(Diagnostic &d) {
    llvm::raw_string_ostream os(collected);
    Location loc = d.getLocation();
    if (auto fused = dyn_cast<FusedLoc>(loc);
        fused && !fused.getLocations().empty())
      loc = fused.getLocations().front();
    if (auto named = dyn_cast<NameLoc>(loc))
      loc = named.getChildLoc();
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn() << ": ";
    switch (d.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    default:
      os << "note: ";
      break;
    }
    os << d.str() << "\n";
  }

  std::string collected;
  ScopedDiagnosticHandler handler;
};

unum::air::CompileOptions compileOptions(const unum_air_options *options,
                                         unsigned threads = 1) {
  unum::air::CompileOptions o;
  o.threads = threads > 1 ? (int)std::min<unsigned>(threads, 1u << 20) : 1;
  if (!options)
    return o;
  o.entry = orEmpty(options->entry);
  o.signature = orEmpty(options->signature);
  o.cpu = orEmpty(options->cpu);
  o.optLevel = options->opt_level > 3 ? 3 : options->opt_level;
  return o;
}

void registerPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] { unum::registerAllPasses(); });
}
} // namespace

struct unum_context {
  std::mutex mutex; // one compile at a time per context
  std::unique_ptr<unum::air::AirCompiler> air;
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> mlir; // workflows and NN

  unum::air::AirCompiler &airCompiler() {
    if (!air)
      air = std::make_unique<unum::air::AirCompiler>();
    return *air;
  }
  MLIRContext &mlirContext() {
    if (!mlir) {
      unum::registerAllDialects(registry);
      mlir = std::make_unique<MLIRContext>(registry);
      mlir->loadAllAvailableDialects();
      // Errors point into the user's file; a dump of the IR is no help there.
      mlir->printOpOnDiagnostic(false);
    }
    return *mlir;
  }

  /// Compiles `text` with the AIR compiler (one compile at a time) and
  /// hands the compiler to `use`; errors and exceptions become values.
  template <typename Fn>
  unum_error *withAir(const char *text, const char *filename,
                      const unum_air_options *options, unum::air::Stage stage,
                      Fn &&use, unsigned threads = 1) {
    if (!text)
      return makeError("error: no AIR text");
    return guarded([&]() -> unum_error * {
      std::lock_guard<std::mutex> lock(mutex);
      unum::air::AirCompiler &compiler = airCompiler();
      if (!compiler.compile(text, filename ? filename : "<air>",
                            compileOptions(options, threads), stage))
        return makeError(compiler.errors());
      return use(compiler);
    });
  }
};

struct unum_kernels {
  std::unique_ptr<unum::air::JitKernels> jit;
  std::vector<unum::air::KernelSignature> signatures;

  const unum::air::KernelSignature *kernel(size_t i) const {
    return i < signatures.size() ? &signatures[i] : nullptr;
  }
  const unum::air::ArrayParam *param(size_t k, int output, size_t p) const {
    const unum::air::KernelSignature *s = kernel(k);
    if (!s)
      return nullptr;
    const auto &list = output ? s->outputs : s->inputs;
    return p < list.size() ? &list[p] : nullptr;
  }
};

struct unum_handler_reply {
  bool answered = false;
  unum::runtime::HandlerResult result;
};

//===----------------------------------------------------------------------===//
// Versions, errors, strings, contexts
//===----------------------------------------------------------------------===//

uint32_t unum_api_version(void) { return UNUM_C_API_VERSION; }

const char *unum_version_string(void) {
  return UNUM_VERSION_STRING " (MLIR " UNUM_MLIR_VERSION_STRING ")";
}

const char *unum_error_message(const unum_error *error) {
  return error ? error->message.c_str() : "";
}
void unum_error_destroy(unum_error *error) { delete error; }
void unum_string_free(char *string) { std::free(string); }

unum_error *unum_context_create(unum_context **out) {
  if (!out)
    return makeError("error: unum_context_create: out is NULL");
  *out = nullptr;
  return guarded([&]() -> unum_error * {
    *out = new unum_context();
    return nullptr;
  });
}

void unum_context_destroy(unum_context *context) { delete context; }

//===----------------------------------------------------------------------===//
// Array kernels
//===----------------------------------------------------------------------===//

unum_error *unum_air_jit(unum_context *context, const char *text,
                         const char *filename, const unum_air_options *options,
                         unum_kernels **out) {
  return unum_air_jit_threads(context, text, filename, options, 1, out);
}

unum_error *unum_air_jit_threads(unum_context *context, const char *text,
                                 const char *filename,
                                 const unum_air_options *options,
                                 unsigned threads, unum_kernels **out) {
  if (!context || !out)
    return makeError("error: unum_air_jit: context or out is NULL");
  *out = nullptr;
  return context->withAir(
      text, filename, options, unum::air::Stage::Full,
      [&](unum::air::AirCompiler &compiler) -> unum_error * {
        auto kernels = std::make_unique<unum_kernels>();
        kernels->signatures = compiler.kernels();
        kernels->jit = compiler.jit();
        if (!kernels->jit)
          return makeError(compiler.errors());
        *out = kernels.release();
        return nullptr;
      },
      threads);
}

void unum_kernels_destroy(unum_kernels *kernels) { delete kernels; }

size_t unum_kernels_count(const unum_kernels *kernels) {
  return kernels ? kernels->signatures.size() : 0;
}

const char *unum_kernel_name(const unum_kernels *kernels, size_t kernel) {
  const unum::air::KernelSignature *s =
      kernels ? kernels->kernel(kernel) : nullptr;
  return s ? s->name.c_str() : nullptr;
}

size_t unum_kernel_num_params(const unum_kernels *kernels, size_t kernel,
                              int output) {
  const unum::air::KernelSignature *s =
      kernels ? kernels->kernel(kernel) : nullptr;
  if (!s)
    return 0;
  return output ? s->outputs.size() : s->inputs.size();
}

const char *unum_kernel_param_name(const unum_kernels *kernels, size_t kernel,
                                   int output, size_t param) {
  const unum::air::ArrayParam *p =
      kernels ? kernels->param(kernel, output, param) : nullptr;
  return p ? p->name.c_str() : nullptr;
}

const char *unum_kernel_param_dtype(const unum_kernels *kernels, size_t kernel,
                                    int output, size_t param) {
  const unum::air::ArrayParam *p =
      kernels ? kernels->param(kernel, output, param) : nullptr;
  return p ? p->dtype.c_str() : nullptr;
}

size_t unum_kernel_param_rank(const unum_kernels *kernels, size_t kernel,
                              int output, size_t param) {
  const unum::air::ArrayParam *p =
      kernels ? kernels->param(kernel, output, param) : nullptr;
  return p ? p->shape.size() : 0;
}

int unum_kernels_return_status(void) { return kKernelsReturnStatus ? 1 : 0; }

int64_t unum_kernel_param_size(const unum_kernels *kernels, size_t kernel,
                               int output, size_t param, size_t dim) {
  const unum::air::ArrayParam *p =
      kernels ? kernels->param(kernel, output, param) : nullptr;
  return p && dim < p->shape.size() ? p->shape[dim] : 0;
}

void *unum_kernels_lookup(const unum_kernels *kernels, const char *name) {
  if (!kernels || !name)
    return nullptr;
  for (const auto &s : kernels->signatures)
    if (s.name == name)
      return kernels->jit->lookup(name);
  return nullptr;
}

namespace {
/// The memref descriptor layout of docs/AirABI.md, read as int64 words
/// after the two pointers.
struct DescriptorView {
  const void *const *pointers;
  const int64_t *words;
  explicit DescriptorView(const void *d)
      : pointers(static_cast<const void *const *>(d)),
        words(reinterpret_cast<const int64_t *>(pointers + 2)) {}
  int64_t size(size_t rank, size_t i) const { return words[1 + i]; }
  int64_t stride(size_t rank, size_t i) const { return words[1 + rank + i]; }
};

/// Checks the descriptors of one call against the kernel's signature.
std::string checkDescriptors(const unum::air::KernelSignature &s,
                             void *const *descriptors, size_t count) {
  size_t expected = s.inputs.size() + s.outputs.size();
  if (count != expected)
    return "kernel '" + s.name + "' takes " + std::to_string(expected) +
           " descriptors (" + std::to_string(s.inputs.size()) + " inputs, " +
           std::to_string(s.outputs.size()) + " outputs), got " +
           std::to_string(count);
  // Dynamic sizes: parameter dimensions must agree where the compiler
  // assumed they do. Without names in the signature, the check is the
  // conservative one the header documents: every static size matches.
  for (size_t i = 0; i < count; ++i) {
    const unum::air::ArrayParam &p =
        i < s.inputs.size() ? s.inputs[i] : s.outputs[i - s.inputs.size()];
    std::string what = (i < s.inputs.size()
                            ? "input " + std::to_string(i)
                            : "output " + std::to_string(i - s.inputs.size())) +
                       " ('" + p.name + "')";
    if (!descriptors[i])
      return what + " is NULL";
    DescriptorView d(descriptors[i]);
    if (!d.pointers[1])
      return what + " has no data pointer";
    size_t rank = p.shape.size();
    int64_t stride = 1;
    for (size_t k = rank; k-- > 0;) {
      int64_t size = d.size(rank, k);
      if (size < 0)
        return what + ": size " + std::to_string(size) + " in dimension " +
               std::to_string(k);
      if (p.shape[k] >= 0 && size != p.shape[k])
        return what + ": size " + std::to_string(size) + " in dimension " +
               std::to_string(k) + ", the kernel was compiled for " +
               std::to_string(p.shape[k]);
      if (size > 1 && d.stride(rank, k) != stride)
        return what + ": stride " + std::to_string(d.stride(rank, k)) +
               " in dimension " + std::to_string(k) +
               " is not row-major contiguous (expected " +
               std::to_string(stride) + ")";
      stride *= size;
    }
  }
  return "";
}
} // namespace

namespace {
template <size_t> using Ptr = void *;

template <typename R, size_t... I>
R invokeKernel(void *fn, void *const *d, std::index_sequence<I...>) {
  return reinterpret_cast<R (*)(Ptr<I>...)>(fn)(d[I]...);
}

/// Calls `fn` with `count` (1 to 16) descriptor pointers, as a void
/// function or, once kernels return one (kKernelsReturnStatus), reading its
/// int32_t status.
template <size_t N = 1>
bool callKernel(void *fn, void *const *d, size_t count, int32_t &status) {
  if constexpr (N > 16) {
    return false;
  } else {
    if (count != N)
      return callKernel<N + 1>(fn, d, count, status);
    status = 0;
    if constexpr (kKernelsReturnStatus)
      status = invokeKernel<int32_t>(fn, d, std::make_index_sequence<N>());
    else
      invokeKernel<void>(fn, d, std::make_index_sequence<N>());
    return true;
  }
}
} // namespace

unum_error *unum_kernels_call(const unum_kernels *kernels, const char *name,
                              void *const *descriptors, size_t count) {
  if (!kernels || !name || (!descriptors && count))
    return makeError("error: unum_kernels_call: kernels, name or descriptors "
                     "is NULL");
  const unum::air::KernelSignature *sig = nullptr;
  for (const auto &s : kernels->signatures)
    if (s.name == name)
      sig = &s;
  if (!sig)
    return makeError(std::string("error: no kernel named '") + name + "'");
  std::string problem = checkDescriptors(*sig, descriptors, count);
  if (!problem.empty())
    return makeError("error: " + problem);
  void *fn = kernels->jit->lookup(name);
  if (!fn)
    return makeError(std::string("error: kernel '") + name + "' has no code");
  // The ABI takes one pointer per descriptor; kernels have at most a few
  // dozen parameters, so dispatch on the count.
  int32_t status = 0;
  if (!callKernel(fn, descriptors, count, status))
    return makeError("error: unum_kernels_call takes 1 to 16 descriptors; call "
                     "the pointer from unum_kernels_lookup for kernels with "
                     "more parameters");
  if (status != 0)
    return makeError(
        "error: kernel '" + std::string(name) +
        "' refused the call with status " + std::to_string(status) +
        (status == 1 ? " (sizes disagree; nothing was written)" : ""));
  return nullptr;
}

namespace {
/// Writes `data` to `path` whole, or reports why not.
std::string writeFile(const std::string &path, const std::string &data) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << data;
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      return "error: cannot write '" + path + "'";
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return "error: cannot write '" + path + "'";
  }
  return "";
}

std::string headerGuard(const std::string &headerPath) {
  std::string stem = llvm::sys::path::filename(headerPath).str();
  std::string guard;
  for (char c : stem)
    guard +=
        std::isalnum((unsigned char)c) ? std::toupper((unsigned char)c) : '_';
  if (guard.empty() || std::isdigit((unsigned char)guard[0]))
    guard = "UNUM_" + guard;
  return guard;
}
} // namespace

unum_error *unum_air_emit_object(unum_context *context, const char *text,
                                 const char *filename,
                                 const unum_air_options *options,
                                 const char *object_path,
                                 const char *header_path) {
  if (!context || !object_path)
    return makeError("error: unum_air_emit_object: context or object_path is "
                     "NULL");
  return context->withAir(
      text, filename, options, unum::air::Stage::Full,
      [&](unum::air::AirCompiler &compiler) -> unum_error * {
        std::string object;
        if (!compiler.emitObject(object))
          return makeError(compiler.errors());
        std::string header;
        if (header_path)
          header = compiler.cHeader(headerGuard(header_path));
        std::string problem = writeFile(object_path, object);
        if (problem.empty() && header_path) {
          problem = writeFile(header_path, header);
          if (!problem.empty())
            std::remove(object_path); // all or nothing
        }
        return problem.empty() ? nullptr : makeError(problem);
      });
}

unum_error *unum_air_print(unum_context *context, const char *text,
                           const char *filename,
                           const unum_air_options *options, const char *stage,
                           char **out) {
  if (!context || !out)
    return makeError("error: unum_air_print: context or out is NULL");
  *out = nullptr;
  std::string which = orEmpty(stage);
  unum::air::Stage s;
  if (which == "air")
    s = unum::air::Stage::Air;
  else if (which == "linalg")
    s = unum::air::Stage::Linalg;
  else if (which == "mlir-llvm")
    s = unum::air::Stage::LLVMDialect;
  else if (which == "llvm-ir")
    s = unum::air::Stage::Full;
  else
    return makeError("error: unknown stage '" + which +
                     "' (air, linalg, mlir-llvm or llvm-ir)");
  return context->withAir(
      text, filename, options, s,
      [&](unum::air::AirCompiler &compiler) -> unum_error * {
        std::string printed;
        if (s == unum::air::Stage::Full) {
          if (!compiler.emitLLVMIR(printed))
            return makeError(compiler.errors());
        } else {
          printed = compiler.printModule();
        }
        *out = copyString(printed);
        return *out ? nullptr : makeError("error: out of memory");
      });
}

//===----------------------------------------------------------------------===//
// Workflows
//===----------------------------------------------------------------------===//

unum_error *unum_workflow_compile(unum_context *context,
                                  const char *source_path, const char *out_dir,
                                  const unum_workflow_options *options) {
  if (!context || !source_path || !out_dir || !*out_dir)
    return makeError("error: unum_workflow_compile: context, source_path or "
                     "out_dir is NULL or empty");
  std::string format = options ? orEmpty(options->format) : "";
  if (!format.empty() && format != "json" && format != "yaml")
    return makeError("error: format must be json or yaml, not '" + format +
                     "'");
  return guarded([&]() -> unum_error * {
    std::lock_guard<std::mutex> lock(context->mutex);
    MLIRContext &ctx = context->mlirContext();
    DiagnosticCollector diagnostics(&ctx);
    OwningOpRef<ModuleOp> module;
    bool isIR = llvm::StringRef(source_path).ends_with(".mlir");
    if (isIR) {
      module = parseSourceFile<ModuleOp>(source_path, &ctx);
    } else {
      unum::ASLImportOptions aslOptions;
      if (options && options->name)
        aslOptions.name = options->name;
      module = unum::importASLFile(source_path, aslOptions, &ctx);
    }
    if (!module)
      return makeError(diagnostics.text().empty()
                           ? "error: cannot read '" + std::string(source_path) +
                                 "'"
                           : diagnostics.text());
    PassManager pm(&ctx);
    if (!isIR)
      pm.addPass(unum::createConvertSfnToUnum());
    pm.addPass(unum::createUnumLint());
    if (failed(verify(*module)) || failed(pm.run(*module)))
      return makeError(diagnostics.text());
    unum::AppOp app;
    module->walk([&](unum::AppOp op) { app = op; });
    if (!app)
      return makeError(std::string(source_path) + ": error: no unum.app in the "
                                                  "module");
    std::string ignored;
    llvm::raw_string_ostream os(ignored);
    if (failed(unum::translateAppToConfig(app,
                                          format == "yaml"
                                              ? unum::config::Format::Yaml
                                              : unum::config::Format::Json,
                                          out_dir, os)))
      return makeError(diagnostics.text());
    return nullptr;
  });
}

void unum_handler_reply_output(unum_handler_reply *reply, const char *json) {
  if (!reply)
    return;
  reply->answered = true;
  auto value =
      unum::runtime::parseJsonValue(json ? json : "", "the handler's output");
  reply->result =
      value
          ? unum::runtime::HandlerResult::success(value.take())
          : unum::runtime::HandlerResult::failure(value.getStatus().message());
}

void unum_handler_reply_error(unum_handler_reply *reply, const char *error_name,
                              const char *cause) {
  if (!reply)
    return;
  reply->answered = true;
  reply->result = unum::runtime::HandlerResult::failure(
      orEmpty(cause),
      error_name && *error_name ? error_name : "States.TaskFailed");
}

unum_error *unum_workflow_run(unum_context *context, const char *app_dir,
                              const char *input_json,
                              const unum_workflow_run_options *options,
                              char **outputs_json) {
  using namespace unum::runtime;
  if (!context || !app_dir || !input_json || !outputs_json)
    return makeError("error: unum_workflow_run: context, app_dir, input_json "
                     "or outputs_json is NULL");
  *outputs_json = nullptr;
  return guarded([&]() -> unum_error * {
    auto input = parseJsonValue(input_json, "the workflow input");
    if (!input)
      return makeError("error: " + input.getStatus().message());
    auto app = App::load(app_dir);
    if (!app)
      return makeError("error: " + app.getStatus().message());
    if (options && options->handler) {
      unum_handler_fn fn = options->handler;
      void *data = options->handler_data;
      for (const auto &[name, spec] : app->functions()) {
        if (spec.handler)
          continue;
        std::string function = name;
        auto handler = makeFunctionHandler(
            [fn, data, function](const unum::runtime::Value &in, Context &) {
              unum_handler_reply reply;
              std::string text = toJson(in);
              fn(data, function.c_str(), text.c_str(), &reply);
              if (!reply.answered)
                return HandlerResult::failure("the handler callback of '" +
                                              function + "' gave no reply");
              return std::move(reply.result);
            });
        if (Status s = app->setHandler(function, handler); !s)
          return makeError("error: " + s.message());
      }
    }
    if (Status s = app->validate(); !s)
      return makeError("error: " + s.message());
    std::string storeUri =
        options && options->store ? options->store : "memory";
    auto store = openDataStore(storeUri);
    if (!store)
      return makeError("error: " + store.getStatus().message());
    LocalRunner::Options opts;
    if (options && options->workers)
      opts.workers = options->workers;
    if (options && options->time_scale > 0)
      opts.runtime.timeScale = options->time_scale;
    RunResult result;
    {
      LocalRunner runner(*app, **store, opts);
      result = runner.run(*input);
    }
    if (!result.ok()) {
      std::string message;
      for (const std::string &e : result.errors)
        message += "error: " + e + "\n";
      return makeError(message);
    }
    unum::runtime::Value out = unum::runtime::Value::object();
    for (auto &[instance, output] : result.outputs)
      out.set(instance, output);
    *outputs_json = copyString(toJson(out, /*pretty=*/true));
    return *outputs_json ? nullptr : makeError("error: out of memory");
  });
}

//===----------------------------------------------------------------------===//
// Neural networks
//===----------------------------------------------------------------------===//

namespace {
/// Imports the model JSON into the (locked) context and calls
/// `body(module, runPipeline, diagnostics)`; runPipeline(text) runs a pass
/// pipeline (relative to the module) on it.
template <typename Fn>
unum_error *withNNModel(unum_context *context, const char *modelJson,
                        const char *filename, Fn &&body) {
  return guarded([&]() -> unum_error * {
    registerPassesOnce();
    std::lock_guard<std::mutex> lock(context->mutex);
    MLIRContext &ctx = context->mlirContext();
    DiagnosticCollector diagnostics(&ctx);
    std::string name = filename ? filename : "<model>";
    OwningOpRef<ModuleOp> module = unum::importNNJson(modelJson, name, &ctx);
    if (!module)
      return makeError(diagnostics.text());
    auto runPipeline = [&](const std::string &pipeline) -> unum_error * {
      PassManager pm(&ctx, ModuleOp::getOperationName());
      std::string parseErrors;
      llvm::raw_string_ostream es(parseErrors);
      if (failed(parsePassPipeline(pipeline, pm, es)))
        return makeError("error: " + parseErrors);
      if (failed(pm.run(*module)))
        return makeError(diagnostics.text());
      return nullptr;
    };
    return body(*module, runPipeline, diagnostics);
  });
}
} // namespace

unum_error *unum_nn_to_vhdl(unum_context *context, const char *model_json,
                            const char *filename,
                            const unum_nn_options *options, const char *out_dir,
                            char **quantized_ir) {
  if (!context || !model_json || !out_dir || !*out_dir)
    return makeError("error: unum_nn_to_vhdl: context, model_json or out_dir "
                     "is NULL or empty");
  if (quantized_ir)
    *quantized_ir = nullptr;
  std::string quantize = options ? orEmpty(options->quantize) : "";
  if (quantize.find_first_of("{}") != std::string::npos)
    return makeError("error: the quantize options may not contain braces");
  unsigned parallelism =
      options && options->parallelism ? options->parallelism : 1;
  return withNNModel(
      context, model_json, filename,
      [&](ModuleOp module, auto &runPipeline,
          auto &diagnostics) -> unum_error * {
        if (unum_error *e = runPipeline(
                "nn.model(nn-dead-node-elim,nn-fold-batchnorm,nn-quantize{" +
                quantize + "})"))
          return e;
        std::string quantized;
        if (quantized_ir) {
          llvm::raw_string_ostream os(quantized);
          module->print(os);
        }
        if (unum_error *e = runPipeline("convert-nn-to-rtl{parallelism=" +
                                        std::to_string(parallelism) + "}"))
          return e;
        std::string ignored;
        llvm::raw_string_ostream os(ignored);
        if (failed(unum::translateRTLToVHDL(module, out_dir, os)))
          return makeError(diagnostics.text());
        if (quantized_ir) {
          *quantized_ir = copyString(quantized);
          if (!*quantized_ir)
            return makeError("error: out of memory");
        }
        return nullptr;
      });
}

unum_error *unum_nn_to_air(unum_context *context, const char *model_json,
                           const char *filename, char **air_mlir) {
  if (!context || !model_json || !air_mlir)
    return makeError("error: unum_nn_to_air: context, model_json or air_mlir "
                     "is NULL");
  *air_mlir = nullptr;
  return withNNModel(
      context, model_json, filename,
      [&](ModuleOp module, auto &runPipeline, auto &) -> unum_error * {
        if (unum_error *e =
                runPipeline("nn.model(nn-dead-node-elim),convert-nn-to-air"))
          return e;
        std::string text;
        llvm::raw_string_ostream os(text);
        module.print(os);
        *air_mlir = copyString(text);
        return *air_mlir ? nullptr : makeError("error: out of memory");
      });
}
