//===- AbiEntry.h - the public entry of an AIR function ---------*- C++ -*-===//
//
// Internal to convert-air-to-linalg: the ABI entry (size checks, status,
// layouts; docs/AirABI.md) and the kernel body it calls.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_CONVERSION_AIRTOLINALG_ABIENTRY_H
#define UNUM_LIB_CONVERSION_AIRTOLINALG_ABIENTRY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

namespace unum::air {
/// What a kernel body reads and writes for a value of type `t`: its shape,
/// row-major strides (static where the sizes are), any offset.
mlir::MemRefType contiguousMemRefType(mlir::RankedTensorType t);

/// Makes `func` (a public air function, not yet lowered) the private kernel
/// body `abiBodyName(name)` (AirToLinalg.h) and creates the public function
/// `name` in front of it: memref arguments of any layout (inputs, then one per
/// result), returning an i32 status. It checks every size against the signature
/// and the sizes the program needs equal, returns 1 when one disagrees, and
/// otherwise calls the body with contiguous views of its arguments (a
/// non-contiguous one is copied to or from a temporary) and returns 0. The
/// call it makes expects the body's final signature (contiguousMemRefType
/// for every input and result, see convert-air-to-linalg).
void createAbiEntry(mlir::func::FuncOp func);
} // namespace unum::air

#endif // UNUM_LIB_CONVERSION_AIRTOLINALG_ABIENTRY_H
