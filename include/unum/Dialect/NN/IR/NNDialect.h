//===- NNDialect.h - Neural-network layers dialect --------------*- C++ -*-===//
#ifndef UNUM_DIALECT_NN_IR_NNDIALECT_H
#define UNUM_DIALECT_NN_IR_NNDIALECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "unum/Dialect/NN/IR/FixedPoint.h"

#include "unum/Dialect/NN/IR/NNOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "unum/Dialect/NN/IR/NNOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "unum/Dialect/NN/IR/NNOps.h.inc"

namespace unum::nn {
/// A quantised conv1d or linear as the loop nest that both the CPU reference
/// and the hardware run; a linear is a conv1d with a kernel of 1.
struct MacLayer {
  int64_t inLen, inCh, outLen, outCh, kernel, stride, padLo, groups, padValue;
  std::vector<int64_t> weight, bias; // weight [outCh][inCh/groups][kernel]
  int64_t accBits;
  // formats: input, weights, result; bias at inFrac + weightFrac
  unsigned inBits, inFrac, weightBits, weightFrac, outBits, outFrac;
  fixed::Rounding rounding;
  fixed::Overflow overflow;
};
/// The MacLayer of a quantised nn.conv1d or nn.linear.
MacLayer getMacLayer(mlir::Operation *op);

/// How a quantised layer rounds and overflows (its `rounding` and `overflow`
/// attributes; absent: nearest, saturate).
struct Requant {
  fixed::Rounding rounding;
  fixed::Overflow overflow;
};
Requant getRequant(mlir::Operation *op);

/// The fixed-point element type of a quantised value, or null for f32.
FixedType getFixedType(mlir::Value value);
/// The values of an integer elements attribute (empty for null), sign-extended.
std::vector<int64_t> getIntegers(mlir::ElementsAttr attr);
} // namespace unum::nn

#endif // UNUM_DIALECT_NN_IR_NNDIALECT_H
