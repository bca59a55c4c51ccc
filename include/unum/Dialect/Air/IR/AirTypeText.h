//===- AirTypeText.h - Types in the AIR notation ----------------*- C++ -*-===//
//
// The AIR notation writes `f32[N, 4]` for tensor<?x4xf32> (a named or `?`
// dimension is dynamic) and `f32[]` for a scalar. Messages use it so that a
// user sees the types they wrote.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_DIALECT_AIR_IR_AIRTYPETEXT_H
#define UNUM_DIALECT_AIR_IR_AIRTYPETEXT_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace unum::air {
/// `f32[?, 4]`, `(f32[], i32[3])` for tuples, `generic` for !air.generic.
std::string formatAirType(mlir::Type type);
/// `[?, 4]`.
std::string formatAirShape(llvm::ArrayRef<int64_t> shape);

/// Parses one type at the start of `text` (`f32[N, 4]`, `f64[]`, `?` for
/// generic). On success returns it and sets `consumed`; on failure returns a
/// null type, sets `error` and sets `consumed` to the offset of the problem.
mlir::Type parseAirType(llvm::StringRef text, mlir::MLIRContext *ctx,
                        size_t &consumed, std::string &error);
/// A dtype name (`f32`, `f64`, `i32`, `i64`, `i1`/`bool`), or null.
mlir::Type parseAirDType(llvm::StringRef name, mlir::MLIRContext *ctx);
} // namespace unum::air

#endif // UNUM_DIALECT_AIR_IR_AIRTYPETEXT_H
