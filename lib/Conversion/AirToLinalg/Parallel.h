//===- Parallel.h - loops shared by threads, above a work threshold -*- C++
//-*-===//
//
// Private to lib/Conversion/AirToLinalg: how the vector emitters
// (MatmulNest.cpp, Conv1d.cpp, Vectorize.cpp, Reductions.cpp) share an outer
// loop between threads. A loop is made an `scf.parallel` (which
// convert-scf-to-openmp turns into an OpenMP worksharing loop) only when the
// kernel is built for more than one thread, and only when the call's work is
// large enough to pay for waking the team: with sizes known at compile time
// that is decided here; otherwise the loop is emitted twice,
//
//   scf.if %enough { scf.parallel ... } else { scf.for ... }
//
// and the call picks one by its dynamic sizes. Each iteration must write
// memory no other iteration touches, and must compute exactly what the
// serial loop computes (no reduction across iterations): a kernel gives
// bit-identical results on any number of threads.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_CONVERSION_AIRTOLINALG_PARALLEL_H
#define UNUM_LIB_CONVERSION_AIRTOLINALG_PARALLEL_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace unum::air {

/// Work below which a kernel stays on the calling thread. An OpenMP
/// fork/join of a warm team costs ~2-5 us; these keep it under ~10% of the
/// serial time at the rates of this host class (measured, docs/AirABI.md).
/// Multiply-adds (matmul, conv1d).
constexpr int64_t kMinParallelMacs = int64_t(1) << 20;
/// Elements read or written (elementwise kernels, reductions).
constexpr int64_t kMinParallelElements = int64_t(1) << 17;

/// `work >= minimum` as an i1 value, folded to a constant when `work` is.
mlir::Value enoughWork(mlir::OpBuilder &b, mlir::Location loc, mlir::Value work,
                       int64_t minimum);

/// The product of `values` (index), folded where constant.
mlir::Value product(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::ValueRange values);

/// Shares `loop` (no results, iterations independent) between threads when
/// `threads` > 1 and `enough` (an i1; null: always) holds: a constant
/// `enough` picks the parallel or the serial loop here, otherwise both are
/// emitted under an `scf.if`. `loop` is erased if it was replaced.
void parallelize(mlir::RewriterBase &b, mlir::scf::ForOp loop, int64_t threads,
                 mlir::Value enough);

} // namespace unum::air

#endif // UNUM_LIB_CONVERSION_AIRTOLINALG_PARALLEL_H
