//===- Dot.h - unum.app -> Graphviz ------------------------------*- C++ -*-===//
#ifndef UNUM_TARGET_DOT_DOT_H
#define UNUM_TARGET_DOT_DOT_H

#include "mlir/Support/LLVM.h"

namespace unum {
class AppOp;

/// Writes the workflow graph of `app` in Graphviz dot: one node per function
/// (start functions doubled, checkpointing ones filled), one edge per
/// continuation labelled with its kind, conditional, values and modifiers.
mlir::LogicalResult exportDot(AppOp app, llvm::raw_ostream &os);

/// Registers --to-dot.
void registerDotTranslation();
} // namespace unum

#endif // UNUM_TARGET_DOT_DOT_H
