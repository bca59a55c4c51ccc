//===- MatmulNest.h - air-vectorize's matmul loop nest ----------*- C++ -*-===//
//
// Private to lib/Conversion/AirToLinalg: the packed, cache- and
// register-blocked matmul nest of air-vectorize (MatmulNest.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_CONVERSION_AIRTOLINALG_MATMULNEST_H
#define UNUM_LIB_CONVERSION_AIRTOLINALG_MATMULNEST_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
// air-vectorize (Vectorize.cpp) declares the OpenMP dialect dependent: the
// nest can be an omp.parallel region (emitMatmulNest).
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace unum::air {

/// Below this many rows of C (and with N within one B panel), a threaded
/// matmul packs each B block once, shared by the threads: copying all of B
/// per thread costs a copy per element against M / threads multiply-adds of
/// it, ~3-6% of a 256 x 256 x 256 call on 2 threads.
constexpr int64_t kSharedPanelRows = 512;

/// The last stride of memref `v` is statically 1 (or it has rank 0).
bool contiguousLast(mlir::Value v);

struct MatmulTarget {
  int64_t vectorBits = 256, registers = 16;
  /// > 1: one scf.parallel loop of `threads` iterations, each a whole nest
  /// over its own rows (or columns) of C with its own packed A and B; for
  /// fewer than kSharedPanelRows rows and one B panel, one omp.parallel
  /// region whose threads pack B together and then run their rows.
  int64_t threads = 1;
};

/// The elementwise generic that reads `matmul`'s result buffer and can be
/// applied to its register tiles (bias over rows or columns, relu, scaling,
/// ...), or null.
mlir::linalg::GenericOp findMatmulEpilogue(mlir::linalg::GenericOp matmul);

/// Replaces the buffer matmul generic C(m, n) += A(m, k) B(k, n) (A, B, C
/// contiguous along their last dimension, any static or dynamic sizes) by a
/// Goto/BLIS loop nest: B packed per KC x NC block and A per MC x KC block
/// into zero-padded panels (buffers allocated once per call), MR x NR
/// register tiles of vector FMAs over the whole KC, edge tiles computed in
/// full from the padded panels and stored with masks. `epilogue` (from
/// findMatmulEpilogue, or null) is applied to the register tile before its
/// last store, and then erased.
mlir::LogicalResult emitMatmulNest(mlir::RewriterBase &rewriter,
                                   mlir::linalg::GenericOp matmul,
                                   mlir::linalg::GenericOp epilogue,
                                   const MatmulTarget &target);

} // namespace unum::air

#endif // UNUM_LIB_CONVERSION_AIRTOLINALG_MATMULNEST_H
