// softmax and layernorm over rows: after air-fuse-rows one loop over blocks
// of rows holds every nest (row reductions, the multi-use value, the write),
// so the array is read once to reduce and once to write; after bufferization
// the only allocations are block-sized and inside the loop, and the result
// is written in place (no copy).
// RUN: unum-translate --from-air %S/Inputs/rows.air | unum-opt --air-optimize --convert-air-to-linalg | unum-opt --pass-pipeline="builtin.module(func.func(air-fuse-rows))" | FileCheck %s
// RUN: unum-translate --from-air %S/Inputs/rows.air | unum-opt --air-optimize --convert-air-to-linalg | unum-opt --pass-pipeline="builtin.module(func.func(air-fuse-rows),eliminate-empty-tensors,canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,air-copies-to-linalg)" | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func private @__unum_air_softmax
// CHECK-NOT: linalg.generic
// CHECK: scf.for
// max over the block's rows, exp(x - max) once (CSE), the sum in f64 and
// its rounding, the division writing the block.
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]
// CHECK: math.exp
// CHECK-NOT: math.exp
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: arith.addf {{.*}} : f64
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}}["parallel", "parallel"]
// CHECK: arith.divf
// CHECK: tensor.insert_slice
// CHECK: scf.yield
// The loop is marked for air-vectorize's threads (RowFusion.h).
// CHECK-NEXT: } {air.row_blocks}
// CHECK-NOT: linalg.generic
// CHECK: return

// CHECK-LABEL: func.func private @__unum_air_layernorm
// CHECK-NOT: linalg.generic
// CHECK: scf.for
// CHECK-COUNT-2: ["parallel", "reduction"]
// CHECK: arith.divf
// CHECK: scf.yield
// CHECK-NOT: linalg.generic
// CHECK: return

// BUF-LABEL: func.func private @__unum_air_softmax
// BUF-NOT: memref.alloc
// BUF: scf.for
// BUF: memref.alloc(%[[ROWS:.*]]) {{.*}} : memref<?xf32>
// BUF: memref.alloc(%[[ROWS]], %{{.*}}) {{.*}} : memref<?x?xf32>
// BUF: memref.alloc(%[[ROWS]]) {{.*}} : memref<?xf64>
// BUF-NOT: copy
// BUF: } {air.row_blocks}
// BUF: return

// layernorm: no full-size temporary (every allocation is inside the loop,
// block-sized), four nests per block -- the mean of x, d = x - mean into
// the block temporary, the mean of d * d, the normalising write -- and the
// two f64 sums each start from their own zero fill (CSE merges the fills;
// a shared one was copied per block).
// BUF-LABEL: func.func private @__unum_air_layernorm
// BUF-NOT: memref.alloc
// BUF: scf.for
// BUF-NOT: copy
// BUF: memref.alloc(%[[LROWS:.*]]) {{.*}} : memref<?xf64>
// BUF: memref.alloc(%[[LROWS]]) {{.*}} : memref<?xf64>
// BUF-COUNT-2: linalg.fill
// BUF: linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%subview
// BUF: memref.alloc(%[[LROWS]]) {{.*}} : memref<?xf32>
// BUF: memref.alloc(%[[LROWS]], %{{.*}}) {{.*}} : memref<?x?xf32>
// BUF: linalg.generic {{.*}}["parallel", "parallel"]{{.*}} ins(%subview
// BUF: linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%alloc
// BUF-NOT: memref.alloc
// BUF: linalg.generic {{.*}}["parallel", "parallel"]{{.*}} outs(%subview
// BUF-NOT: memref.alloc
// BUF-NOT: copy
// BUF: return

// logsumexp: the f32 exp(x - max) that the f64 sum reads is split off the
// sum into its own block-sized nest (vectorised at 8 f32 lanes on AVX2; fused
// into the sum it ran at the f64 sum's 4 lanes), the sum only widens and adds.
// CHECK-LABEL: func.func private @__unum_air_logsumexp
// CHECK: scf.for
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}}["parallel", "parallel"]
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[EXP]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.extf
// CHECK-NEXT: arith.addf {{.*}} : f64
// CHECK-NEXT: linalg.yield
// CHECK: math.log
// CHECK: } {air.row_blocks}
// CHECK: return
