//===- RowFusion.h - row blocks of air-fuse-rows, on threads ----*- C++ -*-===//
//
// Private to lib/Conversion/AirToLinalg: air-fuse-rows (RowFusion.cpp) marks
// its loop over row blocks; after bufferization air-vectorize hands the
// marked loops to shareRowBlocks, which shares them between threads.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_CONVERSION_AIRTOLINALG_ROWFUSION_H
#define UNUM_LIB_CONVERSION_AIRTOLINALG_ROWFUSION_H

#include "mlir/IR/PatternMatch.h"

namespace unum::air {

/// The unit attribute air-fuse-rows sets on its scf.for over row blocks.
constexpr llvm::StringLiteral kRowBlocksAttr = "air.row_blocks";

/// Every loop under `root` marked kRowBlocksAttr loses the mark; with
/// `threads` > 1, one outside any other loop, holding no parallel loop,
/// without results, whose iterations provably write disjoint memory (each
/// writes only buffers it allocates or slices of outside buffers at its own
/// induction variable) becomes an scf.parallel when the call has
/// kMinParallelElements elements or more (Parallel.h). Each block of rows is
/// computed exactly as on one thread, so the results are bit-identical.
void shareRowBlocks(mlir::RewriterBase &b, mlir::Operation *root,
                    int64_t threads);

} // namespace unum::air

#endif // UNUM_LIB_CONVERSION_AIRTOLINALG_ROWFUSION_H
