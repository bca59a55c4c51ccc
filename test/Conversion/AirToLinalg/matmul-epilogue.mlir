// RUN: unum-opt %s --air-vectorize="vector-bits=256 registers=16" | FileCheck %s
// RUN: unum-opt %s --air-vectorize="vector-bits=256 registers=16 threads=2" | FileCheck %s --check-prefix=THREADS

// The matmul's elementwise tail (bias over columns, a per-row scale, relu)
// is applied to the register tile before its last store, which writes the
// tail's output directly: the temporary C gets only the partial sums of
// earlier k blocks, its fill becomes the accumulators' first value, and the
// fill and tail stay (as the plain ops) only for an empty k.
// CHECK-LABEL: func.func @bias_relu(
// CHECK: %[[K:.*]] = memref.dim %arg0, %c1
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %[[K]], %c0
// CHECK: scf.if %[[EMPTY]] {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic
// CHECK: scf.for {{.*}} step %c4096
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: %[[LAST:.*]] = arith.cmpi eq
// CHECK: scf.if %[[FIRST]] -> (vector<16xf32>
// CHECK-NEXT: scf.yield %[[Z:cst[_0-9]*]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]] :
// CHECK: llvm.intr.fmuladd
// CHECK: scf.if %[[LAST]] {
// CHECK: %[[BIAS:.*]] = vector.load %arg2[{{.*}}] : memref<?xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: %[[SCALE:.*]] = memref.load %arg3[
// CHECK: %[[ROW:.*]] = vector.broadcast %[[SCALE]] : f32 to vector<16xf32>
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[BIAS]] : vector<16xf32>
// CHECK: arith.mulf %[[SUM]], %[[ROW]] : vector<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}}, %arg4[
// CHECK: } else {
// CHECK: vector.store {{.*}}, %[[C:alloc[_0-9]*]][
// CHECK-NOT: linalg.generic
// CHECK: return

// THREADS-LABEL: func.func @bias_relu(
// THREADS: scf.parallel
// THREADS: vector.maskedload %arg1
// THREADS: scf.parallel
// THREADS: llvm.intr.fmuladd
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @bias_relu(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                     %b: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                     %bias: memref<?xf32, strided<[1], offset: ?>>,
                     %scale: memref<?xf32, strided<[1], offset: ?>>,
                     %out: memref<?x?xf32, strided<[?, 1], offset: ?>> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %a, %c0 : memref<?x?xf32, strided<[?, 1], offset: ?>>
  %n = memref.dim %b, %c1 : memref<?x?xf32, strided<[?, 1], offset: ?>>
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<?x?xf32, strided<[?, 1], offset: ?>>,
                   memref<?x?xf32, strided<[?, 1], offset: ?>>)
      outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #row, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias, %scale : memref<?x?xf32>,
                              memref<?xf32, strided<[1], offset: ?>>,
                              memref<?xf32, strided<[1], offset: ?>>)
      outs(%out : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%v: f32, %bv: f32, %sv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %t = arith.mulf %s, %sv : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<?x?xf32>
  return
}

// Not fused: the output is C itself read again later (C has another
// reader), so the tail stays a separate (vectorised) loop.
// CHECK-LABEL: func.func @two_readers(
// CHECK: llvm.intr.fmuladd
// CHECK: linalg.generic
// CHECK: return
func.func @two_readers(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                       %b: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                       %out: memref<?x?xf32, strided<[?, 1], offset: ?>> {llvm.noalias},
                       %out2: memref<?x?xf32> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %a, %c0 : memref<?x?xf32, strided<[?, 1], offset: ?>>
  %n = memref.dim %b, %c1 : memref<?x?xf32, strided<[?, 1], offset: ?>>
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<?x?xf32, strided<[?, 1], offset: ?>>,
                   memref<?x?xf32, strided<[?, 1], offset: ?>>)
      outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<?x?xf32>)
      outs(%out : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  memref.copy %c, %out2 : memref<?x?xf32> to memref<?x?xf32>
  memref.dealloc %c : memref<?x?xf32>
  return
}
