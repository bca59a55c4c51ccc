//===- AirOps.h - The air array dialect's ops and types ---------*- C++ -*-===//
#ifndef UNUM_DIALECT_AIR_IR_AIROPS_H
#define UNUM_DIALECT_AIR_IR_AIROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "unum/Dialect/Air/IR/AirDialect.h"

#include <optional>

namespace unum::air::OpTrait {
// Marker traits: see AirOps.td for their meaning.
template <typename T>
class Elementwise : public mlir::OpTrait::TraitBase<T, Elementwise> {};
template <typename T>
class Associative : public mlir::OpTrait::TraitBase<T, Associative> {};
template <typename T>
class Comparison : public mlir::OpTrait::TraitBase<T, Comparison> {};
template <typename T>
class FloatOnly : public mlir::OpTrait::TraitBase<T, FloatOnly> {};
template <typename T>
class Reduction : public mlir::OpTrait::TraitBase<T, Reduction> {};
} // namespace unum::air::OpTrait

namespace unum::air {
/// The numpy broadcast of two shapes (kDynamic where unknown), or nullopt when
/// they do not broadcast.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Result type of an elementwise kernel `op` over `operandTypes` (the
/// interface's default inferResultType).
mlir::Type inferElementwiseType(mlir::Operation *op,
                                mlir::TypeRange operandTypes,
                                std::optional<mlir::Location> loc);

/// True for the tensor dtypes the dialect computes with.
bool isSupportedDType(mlir::Type t);

/// Elementwise kernels and broadcasts: computed per output element, so they
/// can sit anywhere in a fused loop nest.
bool isPointwise(mlir::Operation *op);
/// Reductions, matmul and conv1d: ops with a loop nest of their own that a
/// fused group is built around.
bool isLoopAnchor(mlir::Operation *op);

namespace detail {
/// KernelOpInterface's verifier: the result type agrees with inference.
mlir::LogicalResult verifyKernel(mlir::Operation *op);
} // namespace detail
} // namespace unum::air

#define GET_TYPEDEF_CLASSES
#include "unum/Dialect/Air/IR/AirOpsTypes.h.inc"

#include "unum/Dialect/Air/IR/AirOpsInterfaces.h.inc"

#define GET_OP_CLASSES
#include "unum/Dialect/Air/IR/AirOps.h.inc"

#endif // UNUM_DIALECT_AIR_IR_AIROPS_H
