//===- Passes.h - air passes and pipelines ----------------------*- C++ -*-===//
#ifndef UNUM_DIALECT_AIR_TRANSFORMS_PASSES_H
#define UNUM_DIALECT_AIR_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/Pass.h"
#include "unum/Dialect/Air/IR/AirOps.h"

namespace unum::air {
#define GEN_PASS_DECL
#include "unum/Dialect/Air/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "unum/Dialect/Air/Transforms/Passes.h.inc"

/// Infers the types in `func` (its parameters must be typed). Returns failure
/// after emitting a located error. Sets `changed` when a type changed.
mlir::LogicalResult inferFunction(mlir::func::FuncOp func, bool &changed);

/// Inserts an air.broadcast before every operand of an elementwise kernel
/// under `root` whose shape differs from the kernel's result.
void makeBroadcastsExplicit(mlir::Operation *root);

/// Replaces `call` by a copy of `callee`'s single-block body.
void inlineCall(CallOp call, mlir::func::FuncOp callee);

} // namespace unum::air

#endif // UNUM_DIALECT_AIR_TRANSFORMS_PASSES_H
