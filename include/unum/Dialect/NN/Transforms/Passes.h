//===- Passes.h - nn dialect passes -----------------------------*- C++ -*-===//
#ifndef UNUM_DIALECT_NN_TRANSFORMS_PASSES_H
#define UNUM_DIALECT_NN_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "unum/Dialect/NN/IR/NNDialect.h"

namespace unum::nn {
#define GEN_PASS_DECL
#include "unum/Dialect/NN/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "unum/Dialect/NN/Transforms/Passes.h.inc"
} // namespace unum::nn

#endif // UNUM_DIALECT_NN_TRANSFORMS_PASSES_H
