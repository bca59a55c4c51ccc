//===- AirGradient.h - Building blocks of the derivative rules --*- C++ -*-===//
//
// What the kernels' GradientOpInterface rules (AirGradients.cpp) and the
// air-grad pass build adjoints with: typed kernels, constants, zeros and the
// adjoint of numpy broadcasting.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_DIALECT_AIR_IR_AIRGRADIENT_H
#define UNUM_DIALECT_AIR_IR_AIRGRADIENT_H

#include "unum/Dialect/Air/IR/AirOps.h"

#include "mlir/IR/Builders.h"

namespace unum::air {
/// Creates kernel OpT on `args` (operands, then attributes) with its
/// inferred result type.
template <typename OpT, typename... Args>
mlir::Value buildKernel(mlir::OpBuilder &b, mlir::Location loc,
                        Args &&...args) {
  auto op = OpT::create(b, loc, GenericType::get(b.getContext()),
                        std::forward<Args>(args)...);
  mlir::Type type = llvm::cast<KernelOp>(op.getOperation())
                        .inferResultType(op->getOperandTypes(), loc);
  assert(type && "a derivative rule built an ill-typed kernel");
  op->getResult(0).setType(type);
  return op->getResult(0);
}

/// A 0-d constant `value` of `dtype` (a float type).
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type dtype, double value);

/// `value` (a scalar or any array that broadcasts to `like`) stretched to
/// `like`'s type. With dynamic sizes the shape comes from `like` itself:
/// `select(like < like, like, value)` (never true, NaN included).
mlir::Value broadcastLike(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, mlir::Value like);

/// Zeros of `like`'s type (tuples element by element).
mlir::Value zerosLike(mlir::OpBuilder &b, mlir::Location loc, mlir::Value like);

/// Makes `adjoint` an adjoint of `primal`: stretched when it is smaller (a
/// scalar seed), summed over the dimensions `primal` was broadcast along and
/// reshaped when it is larger (the adjoint of broadcasting). Null after a
/// located error (a reshape with several dynamic sizes).
mlir::Value adjointFor(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value adjoint, mlir::Value primal);
} // namespace unum::air

#endif // UNUM_DIALECT_AIR_IR_AIRGRADIENT_H
