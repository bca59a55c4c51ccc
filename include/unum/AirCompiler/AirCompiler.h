//===- AirCompiler.h - AIR text to native kernels ---------------*- C++ -*-===//
//
// The array compiler behind unum-airc and the JIT API: parse AIR text, run
// air-to-llvm, then either JIT-compile the result (ExecutionEngine) or write
// an object file and a C header. The ABI of every public function NAME:
//
//   int32_t NAME(const UnumMemRef_<dtype>_<rank>d *in0, ...,
//                UnumMemRef_<dtype>_<rank>d *result0, ...);
//
// inputs first, then one out-parameter per result, each a pointer to a
// standard MLIR ranked memref descriptor {allocated, aligned, offset,
// sizes[rank], strides[rank]} of any strides and offset; the caller
// allocates every buffer; the status is kOk or kErrorShape (docs/AirABI.md).
// This header includes no MLIR or LLVM headers.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_AIRCOMPILER_AIRCOMPILER_H
#define UNUM_AIRCOMPILER_AIRCOMPILER_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace unum::air {

struct CompileOptions {
  /// Public function to specialise and its parameter types in the AIR
  /// notation (`f32[?],f32[]`); empty leaves the file's types.
  std::string entry, signature;
  /// Target CPU for object files and the JIT (empty: this machine's, with
  /// its features); it sizes the vectors too (docs/AirABI.md). A JIT for a
  /// CPU this host cannot run faults when called.
  std::string cpu;
  /// LLVM optimisation level.
  unsigned optLevel = 3;
  /// Threads a kernel's parallel loops (matmul's row blocks) run on: 1
  /// (the default) keeps every kernel serial; N > 1 runs them on N OpenMP
  /// threads of libomp, which the JIT loads and an object file must be
  /// linked with (-lomp; docs/AirABI.md). At most kMaxThreads.
  int threads = 1;
};

constexpr int kMaxThreads = 256;

/// How far compile() lowers (the stages unum-airc --emit can print).
enum class Stage { Air, Linalg, LLVMDialect, Full };

/// One array parameter of a kernel, as the C header declares it.
struct ArrayParam {
  std::string name;
  std::string dtype;          // f32, f64, i32, i64, i1
  std::vector<int64_t> shape; // -1 for a dynamic size
};

struct KernelSignature {
  std::string name;
  std::vector<ArrayParam> inputs, outputs;
};

class JitKernels;

/// What every kernel returns (UNUM_AIR_OK / UNUM_AIR_ERROR_SHAPE in C).
constexpr int32_t kOk = 0;
/// A size disagrees: with the signature, between dynamic sizes the program
/// needs equal, or an output's with its result's. Nothing was written.
constexpr int32_t kErrorShape = 1;

class AirCompiler {
public:
  AirCompiler();
  ~AirCompiler();
  AirCompiler(const AirCompiler &) = delete;
  AirCompiler &operator=(const AirCompiler &) = delete;

  /// Parses `text` (named `filename` in messages) and lowers it to `stage`.
  /// On failure returns false; errors() has the located diagnostics.
  bool compile(const std::string &text, const std::string &filename,
               const CompileOptions &options = {}, Stage stage = Stage::Full);
  /// Diagnostics of the last compile(), one per line (file:line:col: ...).
  const std::string &errors() const;
  /// The public kernels of the last successful compile().
  const std::vector<KernelSignature> &kernels() const;
  /// The module at the stage compile() stopped at, as MLIR text.
  std::string printModule() const;

  /// After compile(Stage::Full): LLVM IR text, an object file's bytes, or a
  /// JIT. Return false / null with errors() set on failure.
  bool emitLLVMIR(std::string &out);
  bool emitObject(std::string &out);
  std::unique_ptr<JitKernels> jit();

  /// A C header declaring kernels() (descriptor structs included).
  std::string cHeader(const std::string &guard) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// JIT-compiled kernels; each entry is the C ABI function above.
class JitKernels {
public:
  ~JitKernels();
  /// The function NAME, or null when there is none.
  void *lookup(const std::string &name) const;

  /// Calls NAME with pointers to memref descriptors (inputs, then outputs).
  /// Returns the kernel's status (kOk, or kErrorShape when sizes disagree
  /// and nothing was written), or -1 when there is no function NAME.
  template <typename... Descriptors>
  int32_t call(const std::string &name, Descriptors *...descriptors) const {
    void *fn = lookup(name);
    if (!fn)
      return -1;
    return reinterpret_cast<int32_t (*)(Descriptors * ...)>(fn)(descriptors...);
  }

private:
  friend class AirCompiler;
  struct Impl;
  explicit JitKernels(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace unum::air

#endif // UNUM_AIRCOMPILER_AIRCOMPILER_H
