//===- NNJson.h - JSON layer graph -> nn dialect ----------------*- C++ -*-===//
//
// Imports the JSON model format of docs/NNJson.md into one float `nn.model`:
// nodes are checked field by field, edges resolved, the graph ordered, and
// every shape inferred; each problem is reported at the file:line:col of the
// offending key or value.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_TARGET_NNJSON_NNJSON_H
#define UNUM_TARGET_NNJSON_NNJSON_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

namespace unum {
/// Builds a module holding one verified float `nn.model`, or returns null
/// after reporting errors through the context's diagnostic handler.
mlir::OwningOpRef<mlir::ModuleOp> importNNJson(llvm::StringRef text,
                                               llvm::StringRef bufferName,
                                               mlir::MLIRContext *context);

/// Registers --from-nn-json.
void registerNNJsonTranslation();
} // namespace unum

#endif // UNUM_TARGET_NNJSON_NNJSON_H
