// RUN: unum-opt %s --air-vectorize="vector-bits=256 registers=16" | FileCheck %s
// RUN: unum-opt %s --air-vectorize="vector-bits=512 registers=32" | FileCheck %s --check-prefix=AVX512

// A reduction over axis 0 streams the rows into vector accumulators: chunks
// of RB rows x CB columns (RB = 16 KB / row bytes, 4 to 32; CB = 1024 f32
// columns, so that a wide array's chunk and accumulators stay in L1); per
// chunk, strips of 4 accumulators of one register each (f32 sums accumulate
// in f64: 4 lanes on AVX2, 8 on AVX-512) loaded from the output, carried
// through the chunk's rows (contiguous loads of each row) and stored; then
// single vectors, then one column at a time. The combine loses its
// fast-math flags: every element is summed in row order.
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @colsum(
// CHECK: %[[RQ:.*]] = arith.divui %c4096, %{{.*}}
// CHECK: %[[RMAX:.*]] = arith.minsi %[[RQ]], %c32
// CHECK: %[[RB:.*]] = arith.maxsi %[[RMAX]], %c4
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1024 {
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %[[RB]] {
// CHECK: scf.for {{.*}} step %c16
// CHECK-COUNT-4: vector.load %arg1[{{.*}}] : memref<?xf64>, vector<4xf64>
// CHECK: scf.for {{.*}} -> (vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>)
// CHECK: vector.load %arg0[{{.*}}] : memref<?x?xf32>, vector<4xf32>
// CHECK: arith.extf %{{.*}} : vector<4xf32> to vector<4xf64>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK-COUNT-4: vector.store
// CHECK: scf.for {{.*}} step %c4
// CHECK: scf.for {{.*}} step %c1
// CHECK: vector.load %arg0[{{.*}}] : memref<?x?xf32>, vector<1xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: fastmath
// CHECK: return
// AVX512-LABEL: func.func @colsum(
// AVX512: scf.for {{.*}} step %c1024
// AVX512: scf.for {{.*}} step %c32
// AVX512: arith.addf %{{.*}}, %{{.*}} : vector<8xf64>
func.func @colsum(%a: memref<?x?xf32>, %out: memref<?xf64>) {
  linalg.generic {indexing_maps = [#id, #cols],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<?x?xf32>) outs(%out : memref<?xf64>) {
  ^bb0(%x: f32, %acc: f64):
    %e = arith.extf %x : f32 to f64
    %s = arith.addf %acc, %e fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  return
}

// max over axes 0 and 1 of a 3-D array with a prologue reading a
// per-row value (a broadcast scalar per row): 8 f32 lanes.
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0)>
#o3 = affine_map<(d0, d1, d2) -> (d2)>
// (The chunk loop over the 7 rows of axis 1 has one iteration: folded.)
// CHECK-LABEL: func.func @max3(
// CHECK: scf.for {{.*}} to %c5
// CHECK: scf.for {{.*}} to %c96 step %c32
// CHECK: scf.for {{.*}} to %c7
// CHECK: memref.load %arg1
// CHECK: vector.broadcast
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
func.func @max3(%a: memref<5x7x100xf32>, %s: memref<5xf32>, %out: memref<100xf32>) {
  linalg.generic {indexing_maps = [#x3, #r3, #o3],
                  iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%a, %s : memref<5x7x100xf32>, memref<5xf32>) outs(%out : memref<100xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.maximumf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}
