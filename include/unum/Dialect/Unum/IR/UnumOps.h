//===- UnumOps.h - unum dialect operations ----------------------*- C++ -*-===//
#ifndef UNUM_DIALECT_UNUM_IR_UNUMOPS_H
#define UNUM_DIALECT_UNUM_IR_UNUMOPS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "unum/Dialect/Unum/IR/UnumAttrs.h"
#include "unum/Dialect/Unum/IR/UnumDialect.h"

#include "unum/Dialect/Unum/IR/UnumInterfaces.h.inc"

#define GET_OP_CLASSES
#include "unum/Dialect/Unum/IR/UnumOps.h.inc"

#endif // UNUM_DIALECT_UNUM_IR_UNUMOPS_H
