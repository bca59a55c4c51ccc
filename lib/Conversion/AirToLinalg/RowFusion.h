//===- RowFusion.h - row blocks of air-fuse-rows, on threads ----*- C++ -*-===//
//
// Private to lib/Conversion/AirToLinalg: air-fuse-rows (RowFusion.cpp) marks
// its loop over row blocks; after bufferization air-vectorize hands the
// marked loops to shareRowBlocks, which shares them between threads.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_CONVERSION_AIRTOLINALG_ROWFUSION_H
#define UNUM_LIB_CONVERSION_AIRTOLINALG_ROWFUSION_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace unum::air {

/// The unit attribute air-fuse-rows sets on its scf.for over row blocks.
constexpr llvm::StringLiteral kRowBlocksAttr = "air.row_blocks";

/// Every write (or free) in `loop`'s body goes to a buffer allocated in the
/// body or to a slice of an outside buffer at the loop's induction
/// variable: iterations write disjoint memory. (Also used by Conv1d.cpp,
/// which shares the row blocks around a conv1d and its epilogue itself.)
bool writesOwnMemory(mlir::scf::ForOp loop);

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
