//===- AirText.h - The AIR notation -----------------------------*- C++ -*-===//
#ifndef UNUM_TARGET_AIRTEXT_AIRTEXT_H
#define UNUM_TARGET_AIRTEXT_AIRTEXT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace unum {
/// Parses AIR text (see docs/AirNotation.md) into a module of func.func ops
/// over the air dialect. Errors are emitted with `file`:line:col locations;
/// returns null on any error.
mlir::OwningOpRef<mlir::ModuleOp> importAirText(llvm::StringRef text,
                                                llvm::StringRef file,
                                                mlir::MLIRContext *ctx);

/// Registers --from-air.
void registerAirTextTranslation();
} // namespace unum

#endif // UNUM_TARGET_AIRTEXT_AIRTEXT_H
