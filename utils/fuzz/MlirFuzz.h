//===- MlirFuzz.h - Running an MLIR importer on fuzz input ------*- C++ -*-===//
//
// Inputs share a context, without threads, for a batch: creating a context
// and loading the dialects costs far more under the sanitizers than
// importing a small input (a fresh context per input ran at 2-3k exec/s).
// The context is made again every kInputsPerContext inputs, or once the
// inputs it served reach kBytesPerContext bytes, so that the attributes and
// types it uniques (every input's names and constants) cannot grow without
// bound. Sharing is sound for these importers: each input's module is
// destroyed before the next input; what the context keeps (uniqued
// attributes and types, loaded dialects) is immutable, and an input sees
// the same IR whatever the context uniqued before it. A crash that needed
// an earlier input's uniqued values would reproduce with its batch; a
// reproducer run on its own (`unum-fuzz-air crash-...`) gets a fresh
// context, as before. Diagnostics are counted and dropped per input. An
// importer that returns a module must have reported no error and return a
// module that verifies; one that returns nothing must have reported an
// error.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_UTILS_FUZZ_MLIRFUZZ_H
#define UNUM_UTILS_FUZZ_MLIRFUZZ_H

#include "FuzzCommon.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"

#include <memory>

// Debian's MLIR libraries are not instrumented, and an inline
// BumpPtrAllocator function instantiated here under ASan poisons the slabs
// that their uninstrumented inline code then hands out without unpoisoning:
// every context creation would be a false use-after-poison. Manual
// poisoning is turned off for these targets (ASan still checks every
// malloc'ed and stack object).
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

namespace unum::fuzz {

/// Inputs per context, and input bytes per context, before it is made
/// again (bounding what it uniques).
constexpr size_t kInputsPerContext = 2000;
constexpr size_t kBytesPerContext = size_t(16) << 20;

/// The context for the next input of `size` bytes: the batch's, or a new
/// one.
inline mlir::MLIRContext &batchContext(size_t size) {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static size_t inputs = 0, bytes = 0;
  if (!ctx || inputs >= kInputsPerContext || bytes + size > kBytesPerContext) {
    ctx.reset(); // the old one's memory goes first
    ctx = std::make_unique<mlir::MLIRContext>(
        mlir::MLIRContext::Threading::DISABLED);
    inputs = bytes = 0;
  }
  ++inputs;
  bytes += size;
  return *ctx;
}

template <typename Import>
void runImporter(const uint8_t *data, size_t size, Import import) {
  mlir::MLIRContext &ctx = batchContext(size);
  size_t errors = 0;
  mlir::ScopedDiagnosticHandler drop(&ctx, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      ++errors;
    return mlir::success();
  });
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module = import(text, &ctx);
  if (!module) {
    fuzzCheck(errors != 0, "an import failed without an error");
    return;
  }
  fuzzCheck(errors == 0, "an import reported errors and returned a module");
  fuzzCheck(mlir::succeeded(mlir::verify(*module)),
            "an imported module does not verify");
}

} // namespace unum::fuzz

#endif // UNUM_UTILS_FUZZ_MLIRFUZZ_H
