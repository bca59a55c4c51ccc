// RUN: unum-opt %s --air-vectorize="vector-bits=256 registers=16" | FileCheck %s
// RUN: unum-opt %s --air-vectorize="vector-bits=512 registers=32" | FileCheck %s --check-prefix=AVX512
// RUN: unum-opt %s --air-vectorize="vector-bits=256 registers=16 threads=2" | FileCheck %s --check-prefix=THREADS

// A reduction over axis 0 streams the rows into vector accumulators: chunks
// of RB rows x CB columns (RB = 32 KB / row bytes, 8 to 32; CB = 1024 f32
// columns, so that a wide array's chunk and accumulators stay in L1); per
// chunk, strips of 4 accumulators of one register each carried through the
// chunk's rows (contiguous loads of each row); then single vectors, then one
// column at a time. An f64 sum of f32 terms adds each chunk's rows in f32
// registers from +0 (8 lanes on AVX2, 16 on AVX-512), then adds that partial
// sum to the f64 output (docs/Air.md: the error bound). The combine loses its
// fast-math flags: every element is summed in row order.
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @colsum(
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK: %[[RQ:.*]] = arith.divui %c8192, %{{.*}}
// CHECK: %[[RMAX:.*]] = arith.minsi %[[RQ]], %c32
// CHECK: %[[RB:.*]] = arith.maxsi %[[RMAX]], %c8
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1024 {
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %[[RB]] {
// CHECK: scf.for {{.*}} step %c32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]]) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: %[[X:.*]] = vector.load %arg0[{{.*}}] : memref<?x?xf32>, vector<8xf32>
// CHECK: arith.addf %{{.*}}, %[[X]] : vector<8xf32>
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: arith.extf %{{.*}} : vector<8xf32> to vector<8xf64>
// CHECK-NEXT: vector.load %arg1[{{.*}}] : memref<?xf64>, vector<8xf64>
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK-NEXT: vector.store
// CHECK-COUNT-3: arith.extf %{{.*}} : vector<8xf32> to vector<8xf64>
// CHECK: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c1
// CHECK: vector.load %arg0[{{.*}}] : memref<?x?xf32>, vector<1xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: fastmath
// CHECK: return
// AVX512-LABEL: func.func @colsum(
// AVX512: scf.for {{.*}} step %c1024
// AVX512: scf.for {{.*}} step %c64
// AVX512: arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// AVX512: arith.addf %{{.*}}, %{{.*}} : vector<16xf64>
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
// maximumf (NaN-propagating, -0 < +0) is 5 instructions per vector on
// x86; each row takes a compare-select (one vmaxps) and a running sum of
// the terms instead, and the chunk's rows are combined again by maximumf
// when a sum is NaN (a NaN term was dropped) or a result is zero (its
// sign may be wrong), both found by one test: (sum + 1 / result) * 0 is
// NaN. test/python/test_axis_sums.py checks both paths.
// CHECK-LABEL: func.func @max3(
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<8xf32>
// CHECK: scf.for {{.*}} to %c5
// CHECK: scf.for {{.*}} to %c96 step %c32
// CHECK: %[[ACC:.*]] = vector.load %arg2[%{{.*}}] : memref<100xf32>, vector<8xf32>
// CHECK: %[[FAST:.*]]:8 = scf.for {{.*}} to %c7 {{.*}} iter_args(%[[A:[^ ]+]] = %[[ACC]], %{{[^ ]+}} = %{{[^ ]+}}, %{{[^ ]+}} = %{{[^ ]+}}, %{{[^ ]+}} = %{{[^ ]+}}, %[[S:[^ ]+]] = %[[ZERO]],
// CHECK: memref.load %arg1
// CHECK: vector.broadcast
// CHECK: %[[T:.*]] = arith.mulf
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[T]], %[[A]] : vector<8xf32>
// CHECK-NEXT: arith.select %[[GT]], %[[T]], %[[A]] : vector<8xi1>, vector<8xf32>
// CHECK-NEXT: arith.addf %[[S]], %[[T]] : vector<8xf32>
// CHECK-NOT: arith.maximumf
// CHECK: %[[INV:.*]] = arith.divf %[[ONE]], %[[FAST]]#0 : vector<8xf32>
// CHECK-NEXT: %[[SI:.*]] = arith.addf %[[FAST]]#4, %[[INV]] : vector<8xf32>
// CHECK-NEXT: arith.mulf %[[SI]], %[[ZERO]] : vector<8xf32>
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[TEST:.*]], %[[TEST]] : vector<8xf32>
// CHECK-NEXT: %[[ANY:.*]] = vector.reduction <or>, %[[NAN]] : vector<8xi1> into i1
// CHECK-NEXT: %[[R:.*]]:4 = scf.if %[[ANY]] -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NEXT: scf.for {{.*}} to %c7 {{.*}} iter_args(%[[B:[^ ]+]] = %[[ACC]],
// CHECK: arith.maximumf %[[B]], %{{.*}} : vector<8xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[FAST]]#0, %[[FAST]]#1, %[[FAST]]#2, %[[FAST]]#3
// CHECK: vector.store %[[R]]#0, %arg2
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

// An f64 sum (no wider type): 4 f64 accumulators of 4 lanes loaded from the
// output, carried through the chunk's rows (RB = 4096 / columns, 8 to 32;
// CB = 512 f64 columns) and stored back.
// CHECK-LABEL: func.func @colsum64(
// CHECK: arith.divui %c4096, %{{.*}}
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c512 {
// CHECK: scf.for {{.*}} step %c16
// CHECK-COUNT-4: vector.load %arg1[{{.*}}] : memref<?xf64>, vector<4xf64>
// CHECK: scf.for {{.*}} -> (vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>)
// CHECK: vector.load %arg0[{{.*}}] : memref<?x?xf64>, vector<4xf64>
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK-NOT: arith.extf
// CHECK: return
func.func @colsum64(%a: memref<?x?xf64>, %out: memref<?xf64>) {
  linalg.generic {indexing_maps = [#id, #cols],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<?x?xf64>) outs(%out : memref<?xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %acc, %x fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  return
}

// A sum over the middle axis of a 3-D array (parallel, reduction,
// parallel): a loop over the leading parallel dim around the 2-D scheme,
// the output indexed by (d0, d2) (one column block and one chunk of rows:
// their loops are folded).
#m3 = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @midsum(
// CHECK: scf.for %[[I:.*]] = %c0 to %c6 step %c1 {
// CHECK: scf.for {{.*}} = %c0 to %c64 step %c32
// CHECK: scf.for {{.*}} = %c0 to %c10 step %c1
// CHECK: vector.load %arg0[%[[I]], %{{.*}}, %{{.*}}] : memref<6x10x75xf32>, vector<8xf32>
// CHECK: vector.load %arg1[%[[I]], %{{.*}}] : memref<6x75xf64>, vector<8xf64>
// CHECK: vector.load %arg0[%[[I]], %{{.*}}, %c64] : memref<6x10x75xf32>, vector<8xf32>
// CHECK: scf.for {{.*}} = %c72 to %c75 step %c1
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @midsum(%a: memref<6x10x75xf32>, %out: memref<6x75xf64>) {
  linalg.generic {indexing_maps = [#x3, #m3],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a : memref<6x10x75xf32>) outs(%out : memref<6x75xf64>) {
  ^bb0(%x: f32, %acc: f64):
    %e = arith.extf %x : f32 to f64
    %s = arith.addf %acc, %e fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  return
}

// Not an outer reduction (left to convert-linalg-to-loops): the reduction
// is the last loop, or the reductions are not one block of loops.
// CHECK-LABEL: func.func @not_outer(
// CHECK-COUNT-2: linalg.generic
// CHECK: return
#r2 = affine_map<(d0, d1) -> (d0)>
#o13 = affine_map<(d0, d1, d2) -> (d1)>
func.func @not_outer(%a: memref<6x10xf32>, %b: memref<6x10x75xf32>,
                     %o1: memref<6xf32>, %o2: memref<10xf32>) {
  linalg.generic {indexing_maps = [#id, #r2],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<6x10xf32>) outs(%o1 : memref<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#x3, #o13],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%b : memref<6x10x75xf32>) outs(%o2 : memref<10xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// An f32 mean as the lowering leaves it after bufferization: an f64
// temporary (allocated, zero-filled, summed into, divided and rounded by an
// elementwise generic, freed). The temporary goes: each column block's
// chunks are added into 1024 f64 on the stack (one alloca per call, at the
// function's entry), the first chunk to the fill value, and the epilogue
// (divide, round) writes the f32 output from there, vectors then single
// columns; with no rows it reads the fill value. No heap allocation is left.
#vec = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @colmean(
// CHECK: %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1024xf64>
// CHECK-NOT: memref.alloc(
// CHECK: %[[NOROWS:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK: scf.for %[[C0:.*]] = %{{.*}} to %{{.*}} step %c1024 {
// CHECK: %[[OFF:.*]] = arith.subi %c0, %[[C0]] : index
// CHECK: scf.for %[[R0:.*]] = %c0 to
// CHECK: arith.extf %{{.*}} : vector<8xf32> to vector<8xf64>
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[R0]], %c0 : index
// CHECK-NEXT: %[[OLD:.*]] = scf.if %[[FIRST]] -> (vector<8xf64>) {
// CHECK-NEXT: scf.yield %{{.*}} : vector<8xf64>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[I:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK-NEXT: vector.load %[[S]][%[[I]]] : memref<1024xf64>, vector<8xf64>
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<8xf64>
// CHECK: vector.store %[[SUM]], %[[S]][%{{.*}}] : memref<1024xf64>, vector<8xf64>
// CHECK: scf.for %[[J:.*]] = %[[C0]] to %{{.*}} step %c8 {
// CHECK-NEXT: scf.if %[[NOROWS]] -> (vector<8xf64>) {
// CHECK: vector.load %[[S]][%{{.*}}] : memref<1024xf64>, vector<8xf64>
// CHECK: arith.divf %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK-NEXT: %[[Y:.*]] = arith.truncf %{{.*}} : vector<8xf64> to vector<8xf32>
// CHECK-NEXT: vector.store %[[Y]], %arg1[%[[J]]] : memref<?xf32>, vector<8xf32>
// CHECK: arith.truncf %{{.*}} : vector<1xf64> to vector<1xf32>
// CHECK-NOT: linalg
// CHECK-NOT: memref.dealloc
// CHECK: return
// THREADS-LABEL: func.func @colmean(
// THREADS: memref.alloca() {alignment = 64 : i64} : memref<2048xf64>
// THREADS: scf.parallel
func.func @colmean(%a: memref<?x?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %a, %c1 : memref<?x?xf32>
  %t = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf64>
  linalg.fill ins(%zero : f64) outs(%t : memref<?xf64>)
  linalg.generic {indexing_maps = [#id, #cols],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<?x?xf32>) outs(%t : memref<?xf64>) {
  ^bb0(%x: f32, %acc: f64):
    %e = arith.extf %x : f32 to f64
    %s = arith.addf %acc, %e fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  %r = memref.dim %a, %c0 : memref<?x?xf32>
  %ri = arith.index_cast %r : index to i64
  %count = arith.sitofp %ri : i64 to f64
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%t : memref<?xf64>) outs(%out : memref<?xf32>) {
  ^bb0(%in: f64, %o: f32):
    %d = arith.divf %in, %count : f64
    %f = arith.truncf %d : f64 to f32
    linalg.yield %f : f32
  }
  memref.dealloc %t : memref<?xf64>
  return
}

// The temporary is read by something else too (a copy): it stays, and the
// chunks are added into it as in @colsum.
// CHECK-LABEL: func.func @read_twice(
// CHECK: memref.alloc(
// CHECK-NOT: memref.alloca
// CHECK: vector.load %{{.*}} : memref<?xf64>, vector<8xf64>
// CHECK: memref.copy
// CHECK: return
func.func @read_twice(%a: memref<?x?xf32>, %out: memref<?xf32>,
                      %out2: memref<?xf64>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %a, %c1 : memref<?x?xf32>
  %t = memref.alloc(%n) : memref<?xf64>
  linalg.fill ins(%zero : f64) outs(%t : memref<?xf64>)
  linalg.generic {indexing_maps = [#id, #cols],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<?x?xf32>) outs(%t : memref<?xf64>) {
  ^bb0(%x: f32, %acc: f64):
    %e = arith.extf %x : f32 to f64
    %s = arith.addf %acc, %e fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%t : memref<?xf64>) outs(%out : memref<?xf32>) {
  ^bb0(%in: f64, %o: f32):
    %f = arith.truncf %in : f64 to f32
    linalg.yield %f : f32
  }
  memref.copy %t, %out2 : memref<?xf64> to memref<?xf64>
  memref.dealloc %t : memref<?xf64>
  return
}
