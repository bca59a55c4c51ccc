//===- VectorBody.h - a linalg.generic's body on vectors -----*- C++ -*-===//
//
// Private to lib/Conversion/AirToLinalg: the explicit vector emitters
// (MatmulNest.cpp's epilogue, Reductions.cpp) compute an elementwise
// generic's body on whole vectors of lanes instead of scalars.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_CONVERSION_AIRTOLINALG_VECTORBODY_H
#define UNUM_LIB_CONVERSION_AIRTOLINALG_VECTORBODY_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace unum::air {

/// A vector of `lanes` copies of the scalar `s`.
mlir::Value splatLanes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value s,
                       int64_t lanes);

/// Clones the ops of `body` (a generic's region; its arguments already
/// mapped to vectors of `lanes` in `map`) as the same ops on vectors, and
/// returns the vector the body yields. Constants and scalars from above are
/// broadcast. With `keepFastMath` false the ops lose their fast-math flags
/// (a reduction combined in a fixed order must not be reassociated). With
/// `result` (a value of the body) only the ops before it and its own op are
/// cloned, and its vector is returned instead.
mlir::Value cloneBodyOnVectors(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Block *body, mlir::IRMapping &map,
                               int64_t lanes, bool keepFastMath,
                               mlir::Value result = {});

} // namespace unum::air

#endif // UNUM_LIB_CONVERSION_AIRTOLINALG_VECTORBODY_H
