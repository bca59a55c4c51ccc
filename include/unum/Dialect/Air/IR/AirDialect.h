//===- AirDialect.h - The air array dialect ---------------------*- C++ -*-===//
#ifndef UNUM_DIALECT_AIR_IR_AIRDIALECT_H
#define UNUM_DIALECT_AIR_IR_AIRDIALECT_H

#include "mlir/IR/Dialect.h"

#include "unum/Dialect/Air/IR/AirOpsDialect.h.inc"

#endif // UNUM_DIALECT_AIR_IR_AIRDIALECT_H
