//===- Passes.h - Unum conversion passes ------------------------*- C++ -*-===//
#ifndef UNUM_CONVERSION_PASSES_H
#define UNUM_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "unum/Dialect/RTL/IR/RTLDialect.h"
#include "unum/Dialect/Unum/IR/UnumDialect.h"

namespace unum {
#define GEN_PASS_DECL
#include "unum/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "unum/Conversion/Passes.h.inc"

/// Registers `nn-hardware-pipeline{total-bits frac-bits rounding
/// parallelism}`: a float nn model to rtl in one option.
void registerNNHardwarePipeline();
} // namespace unum

#endif // UNUM_CONVERSION_PASSES_H
