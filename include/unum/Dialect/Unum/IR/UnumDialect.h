//===- UnumDialect.h - The unum workflow dialect ----------------*- C++ -*-===//
#ifndef UNUM_DIALECT_UNUM_IR_UNUMDIALECT_H
#define UNUM_DIALECT_UNUM_IR_UNUMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "unum/Dialect/Unum/IR/UnumOpsDialect.h.inc"

#endif // UNUM_DIALECT_UNUM_IR_UNUMDIALECT_H
