//===- RTLDialect.h - Streaming layer datapaths -----------------*- C++ -*-===//
#ifndef UNUM_DIALECT_RTL_IR_RTLDIALECT_H
#define UNUM_DIALECT_RTL_IR_RTLDIALECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "unum/Dialect/RTL/IR/RTLOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "unum/Dialect/RTL/IR/RTLOps.h.inc"

namespace unum::rtl {
/// The components of a mac unit, found by its verifier's order.
struct MacParts {
  InputBufferOp buffer;
  CountersOp counters;
  WeightRomOp rom;
  MultipliersOp multipliers;
  AdderTreeOp tree;
  AccumulatorsOp accumulators;
  RequantizerOp requantizer;
};
MacParts getMacParts(MacUnitOp unit);

/// The smallest line buffer that never starves the unit: the rows of one
/// window, the rows of the next stride and one beat.
int64_t getMinLineBuffer(MacUnitOp unit);

/// A stream: beats of `width` values.
struct Stream {
  int64_t width, beats;
};
/// The streams a stage reads (named by `inputs`) and writes.
struct StageStreams {
  mlir::ArrayAttr inputs;
  llvm::SmallVector<Stream> in;
  Stream out{0, 0};
};
StageStreams getStageStreams(mlir::Operation *stage);

/// Cycles of pipeline latency a stage adds (multiplier and accumulator
/// registers for a mac unit, one register for an elementwise stage, the
/// buffer and the output register for a join or a pool).
int64_t getPipelineDepth(mlir::Operation *stage);
} // namespace unum::rtl

#endif // UNUM_DIALECT_RTL_IR_RTLDIALECT_H
