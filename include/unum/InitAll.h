//===- InitAll.h - Register everything Unum provides ------------*- C++ -*-===//
#ifndef UNUM_INITALL_H
#define UNUM_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace unum {
/// Adds every Unum dialect to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers every Unum pass and pass pipeline with the global registry.
void registerAllPasses();
/// Registers every Unum translation (unum-translate's --from-*/--to-*).
void registerAllTranslations();
} // namespace unum

#endif // UNUM_INITALL_H
