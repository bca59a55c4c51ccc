//===- SfnDialect.h - Amazon States Language dialect -------------*- C++ -*-===//
#ifndef UNUM_DIALECT_SFN_IR_SFNDIALECT_H
#define UNUM_DIALECT_SFN_IR_SFNDIALECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"

#include "unum/Dialect/Sfn/IR/SfnOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "unum/Dialect/Sfn/IR/SfnOps.h.inc"

#endif // UNUM_DIALECT_SFN_IR_SFNDIALECT_H
