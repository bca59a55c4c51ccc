//===- Passes.h - unum dialect passes ---------------------------*- C++ -*-===//
#ifndef UNUM_DIALECT_UNUM_TRANSFORMS_PASSES_H
#define UNUM_DIALECT_UNUM_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"

namespace unum {
#define GEN_PASS_DECL
#include "unum/Dialect/Unum/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "unum/Dialect/Unum/Transforms/Passes.h.inc"

/// The unum-lint checks on one app: emits its warnings, changes nothing.
void lintApp(AppOp app);
} // namespace unum

#endif // UNUM_DIALECT_UNUM_TRANSFORMS_PASSES_H
