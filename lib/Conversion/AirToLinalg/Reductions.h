//===- Reductions.h - reductions over outer axes, vectorised ----*- C++ -*-===//
//
// Private to lib/Conversion/AirToLinalg: air-vectorize's code for a
// reduction over leading axes (sum/max/... over axis 0 of a row-major array),
// Reductions.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_CONVERSION_AIRTOLINALG_REDUCTIONS_H
#define UNUM_LIB_CONVERSION_AIRTOLINALG_REDUCTIONS_H

#include "MatmulNest.h"

namespace unum::air {

/// A buffer generic whose loops are parallel ones, then reductions, then at
/// least one parallel one, writing out(the parallel dims) (contiguous last
/// dimension), every input contiguous along the last loop or independent of
/// it, and an arith/math body: a reduction over outer axes.
bool isOuterReduction(mlir::linalg::GenericOp op);

/// Replaces such a generic by explicit vector code: rows are streamed in
/// chunks (8-32 rows of a block of columns), each strip of columns
/// accumulates in vector registers over a chunk of rows (contiguous loads, no
/// gathers), columns that do not fill a strip take single vectors and then one
/// column at a time. Every output element is combined in the generic's row
/// order, except that an f64 sum of f32 terms adds each chunk's terms in f32
/// first (docs/Air.md states the bound); the chunks depend on the shape only,
/// so the result does not depend on the vector width or the threads. With
/// `target.threads` > 1 (and enough elements) the columns are split into one
/// panel per thread.
/// For an outer reduction `op` that sums f32 terms into a zero-filled f64
/// temporary read only by one elementwise generic right after it (the
/// rounding to f32, a mean's division): that generic, else null. Given to
/// emitOuterReduction, it is computed from a small f64 scratch per column
/// block and the temporary is gone.
mlir::linalg::GenericOp findSumEpilogue(mlir::linalg::GenericOp op);

mlir::LogicalResult emitOuterReduction(mlir::RewriterBase &b,
                                       mlir::linalg::GenericOp op,
                                       mlir::linalg::GenericOp epilogue,
                                       const MatmulTarget &target);

} // namespace unum::air

#endif // UNUM_LIB_CONVERSION_AIRTOLINALG_REDUCTIONS_H
