//===- Reference.h - CPU fixed-point reference of quantised nn --*- C++ -*-===//
//
// Evaluates a quantised `nn.model` on the CPU with exactly the arithmetic
// that docs/NNQuantization.md defines (FixedPoint.h); the GHDL tests require
// the VHDL datapath to agree with it bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_DIALECT_NN_REFERENCE_REFERENCE_H
#define UNUM_DIALECT_NN_REFERENCE_REFERENCE_H

#include "unum/Dialect/NN/IR/NNDialect.h"

#include <cstdint>
#include <string>
#include <vector>

namespace unum::nn {
/// The raw outputs (position-major) of one inference of the quantised
/// `model` on the raw input values `input`. Fails with `error` set when the
/// model is not quantised or the input has the wrong size or range.
mlir::LogicalResult evaluateReference(ModelOp model,
                                      const std::vector<int64_t> &input,
                                      std::vector<int64_t> &output,
                                      std::string &error);
} // namespace unum::nn

#endif // UNUM_DIALECT_NN_REFERENCE_REFERENCE_H
