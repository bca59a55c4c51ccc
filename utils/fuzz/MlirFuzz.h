//===- MlirFuzz.h - Running an MLIR importer on fuzz input ------*- C++ -*-===//
//
// Each input gets a fresh context (a long-lived one would keep every
// uniqued attribute of every input, growing without bound), without
// threads, whose diagnostics are counted and dropped. An importer that
// returns a module must have reported no error and return a module that
// verifies; one that returns nothing must have reported an error.
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

template <typename Import>
void runImporter(const uint8_t *data, size_t size, Import import) {
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
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
