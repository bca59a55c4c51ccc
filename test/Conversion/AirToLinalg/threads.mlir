// RUN: unum-opt %s --air-vectorize-conv1d="vector-bits=256 registers=16 threads=2" --air-vectorize="vector-bits=256 registers=16 threads=2" | FileCheck %s --strict-whitespace
// RUN: unum-opt %s --air-vectorize-conv1d="vector-bits=256 registers=16" --air-vectorize="vector-bits=256 registers=16" | FileCheck %s --check-prefix=ONE

// Threads help, never hurt (lib/Conversion/AirToLinalg/Parallel.h): a loop
// is shared by the threads only when the call has enough work, 2^20
// multiply-adds (matmul, conv1d) or 2^17 elements (elementwise, reductions).
// With dynamic sizes the kernel decides per call: an scf.if on the work
// picks the parallel loop or the same loop serial. With static sizes the
// decision is made at compile time. One thread: no scf.parallel at all.
// ONE-NOT: scf.parallel

#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>

// Dynamic: M * N * K >= 2^20 chooses. With fewer than 512 rows, rows
// shared (not few) and N within one B panel (4096 columns), ONE omp.parallel
// region (one fork per call): per k block a static worksharing loop packs
// half of B each into a shared panel (its barrier), then a nowait one runs
// each thread's equal range of tiles. Otherwise ONE parallel loop of two
// items (one fork per call), each a whole nest over its own rows with its
// own packing of B and A; below 2^20 one item (the one-thread nest) in the
// else-branch's serial loop.
// CHECK-LABEL: func.func @matmul_dynamic(
// CHECK-DAG: %[[M:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[K:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[N:.*]] = memref.dim %arg1, %c1
// CHECK: %[[MN:.*]] = arith.muli %[[M]], %[[N]]
// CHECK: %[[MNK:.*]] = arith.muli %[[MN]], %[[K]]
// CHECK: %[[BIG:.*]] = arith.cmpi sge, %[[MNK]], %c1048576
// CHECK: %[[ITEMS:.*]] = arith.select %[[BIG]], %c2, %c1
// CHECK: %[[FEW:.*]] = arith.ori
// CHECK: %[[ROWS:.*]] = arith.xori %[[FEW]], %true
// CHECK: %[[LT512:.*]] = arith.cmpi slt, %[[M]], %c512
// CHECK: %[[PANEL:.*]] = arith.cmpi sle, %[[N]], %c4096
// CHECK: %[[SMALL:.*]] = arith.andi %[[PANEL]], %[[LT512]]
// CHECK: %[[BIGROWS:.*]] = arith.andi %[[BIG]], %[[ROWS]]
// CHECK: %[[SHARED:.*]] = arith.andi %[[BIGROWS]], %[[SMALL]]
// CHECK: scf.if %[[SHARED]] {
// CHECK-NEXT: omp.parallel num_threads(%c2_i32 : i32) {
// CHECK-NOT: omp.parallel
// CHECK-NOT: scf.parallel
// CHECK: omp.wsloop schedule(static) {
// CHECK-NEXT: omp.loop_nest (%{{.*}}) : index = (%c0) to (%[[ITEMS]]) step (%c1) {
// CHECK: vector.maskedload %arg1
// CHECK: omp.wsloop nowait schedule(static) {
// CHECK-NEXT: omp.loop_nest (%{{.*}}) : index = (%c0) to (%[[ITEMS]]) step (%c1) {
// CHECK-NOT: vector.maskedload %arg1
// CHECK: llvm.intr.fmuladd
// CHECK-NOT: scf.parallel
// CHECK: {{^    \} else \{$}}
// CHECK-NEXT: scf.if %[[BIG]] {
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%c0) to (%[[ITEMS]]) step (%c1) {
// CHECK-NOT: scf.parallel
// CHECK: vector.maskedload %arg1
// CHECK-NOT: scf.parallel
// CHECK: llvm.intr.fmuladd
// CHECK-NOT: scf.parallel
// CHECK: {{^      \} else \{$}}
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %[[ITEMS]] step %c1 {
// CHECK-NOT: scf.parallel
// CHECK: vector.maskedload %arg1
// CHECK-NOT: scf.parallel
// CHECK: llvm.intr.fmuladd
func.func @matmul_dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>,
                          %c: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Static, 8 rows (fewer than two 6-row slivers per thread): the threads
// share N instead, 256 columns each, each packing its own 256 columns of B
// (two 256 x 256 slices) and all 8 rows of A (two 12 x 256 slices).
// CHECK-LABEL: func.func @matmul_flat(
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<131072xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<6144xf32>
// CHECK: scf.parallel (%[[ITEM:.*]]) = (%c0) to (%c2) step (%c1)
// CHECK: %[[LO0:.*]] = arith.muli %[[ITEM]], %c256
// CHECK: %[[LO:.*]] = arith.minsi %[[LO0]], %c512
// CHECK: %[[HI0:.*]] = arith.addi %[[LO]], %c256
// CHECK: %[[HI:.*]] = arith.minsi %[[HI0]], %c512
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]] step %c4096
// CHECK: llvm.intr.fmuladd
func.func @matmul_flat(%a: memref<8x512xf32>, %b: memref<512x512xf32>,
                       %c: memref<8x512xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<8x512xf32>, memref<512x512xf32>) outs(%c : memref<8x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Static, 30 rows = 5 slivers: rows would give the threads 3 and 2
// slivers (48 tiles for the busier), columns 16 and 16 column slivers of
// 5 (40): the threads share N, 256 columns each.
// CHECK-LABEL: func.func @matmul_thin(
// CHECK: scf.parallel (%[[ITEM:.*]]) = (%c0) to (%c2) step (%c1)
// CHECK: %[[LO0:.*]] = arith.muli %[[ITEM]], %c256
// CHECK: %[[LO:.*]] = arith.minsi %[[LO0]], %c512
// CHECK: scf.for %{{.*}} = %[[LO]] to %{{.*}} step %c4096
func.func @matmul_thin(%a: memref<30x512xf32>, %b: memref<512x512xf32>,
                       %c: memref<30x512xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<30x512xf32>, memref<512x512xf32>) outs(%c : memref<30x512xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Static and small (37^3 < 2^20): one thread, no guard.
// CHECK-LABEL: func.func @matmul_small(
// CHECK-NOT: scf.parallel
// CHECK-NOT: %c1048576
// CHECK: return
func.func @matmul_small(%a: memref<37x37xf32>, %b: memref<37x37xf32>,
                        %c: memref<37x37xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<37x37xf32>, memref<37x37xf32>) outs(%c : memref<37x37xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Static and large (256^3, fewer than 512 rows): one omp.parallel region,
// no guard. B (16 slivers of 16 columns) is packed 8 slivers per thread
// into a shared panel, then each thread runs 344 of the 43 x 16 tiles
// (row sliver 21 is split by columns), skipping the others.
// CHECK-LABEL: func.func @matmul_large(
// CHECK-NOT: scf.if %{{.*}} {
// CHECK-NOT: scf.parallel
// CHECK: omp.parallel num_threads(%c2_i32 : i32) {
// CHECK: omp.wsloop schedule(static) {
// CHECK-NEXT: omp.loop_nest (%[[I:.*]]) : index = (%c0) to (%c2) step (%c1) {
// CHECK-NEXT: %[[LO0:.*]] = arith.muli %[[I]], %c8
// CHECK-NEXT: arith.minsi %[[LO0]], %c16
// CHECK: omp.wsloop nowait schedule(static) {
// CHECK-NEXT: omp.loop_nest (%[[J:.*]]) : index = (%c0) to (%c2) step (%c1) {
// CHECK-NEXT: %[[T0:.*]] = arith.muli %[[J]], %c344
// CHECK-NEXT: %[[T:.*]] = arith.minsi %[[T0]], %c688
// CHECK: arith.cmpi sge, %{{.*}}, %[[T]]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @matmul_large(%a: memref<256x256xf32>, %b: memref<256x256xf32>,
                        %c: memref<256x256xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// conv1d: the blocks of output positions (every channel block inside: one
// fork per call), guarded by L' * K * C_in * C_out.
#x = affine_map<(d0, d1, d2, d3) -> (d0 + d1, d2)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#y = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @conv_dynamic(
// CHECK: %[[CBIG:.*]] = arith.cmpi sge, %{{.*}}, %c1048576
// CHECK: scf.if %[[CBIG]] {
// CHECK-NEXT: scf.parallel {{.*}} step (%c6)
// CHECK-NEXT: scf.for {{.*}} step %c16
// CHECK: vector.fma
// CHECK: {{^    \} else \{$}}
// CHECK-NEXT: scf.for {{.*}} step %c6
// CHECK-NEXT: scf.for {{.*}} step %c16
// CHECK: vector.fma
func.func @conv_dynamic(%in: memref<?x?xf32>, %f: memref<?x?x?xf32>,
                        %out: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%in, %f : memref<?x?xf32>, memref<?x?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// conv1d as the benchmark's (4094 x 3 x 32 x 32 multiply-adds): parallel.
// CHECK-LABEL: func.func @conv_static(
// CHECK-NOT: scf.if
// CHECK: scf.parallel {{.*}} step (%c6)
// CHECK-NEXT: scf.for {{.*}} step %c16
// CHECK-NOT: scf.parallel
func.func @conv_static(%in: memref<4096x32xf32>, %f: memref<3x32x32xf32>,
                       %out: memref<4094x32xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%in, %f : memref<4096x32xf32>, memref<3x32x32xf32>) outs(%out : memref<4094x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Elementwise: the rows (the outermost tile loop), guarded by the element
// count; small static shapes stay serial.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_dynamic(
// CHECK: %[[EBIG:.*]] = arith.cmpi sge, %{{.*}}, %c131072
// CHECK: scf.if %[[EBIG]] {
// CHECK-NEXT: scf.parallel
// CHECK: arith.addf {{.*}} : vector<16xf32>
// CHECK: {{^    \} else \{$}}
// CHECK-NEXT: scf.for
// CHECK: arith.addf {{.*}} : vector<16xf32>
func.func @add_dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>,
                       %c: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @add_small(
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @add_small(%a: memref<64x64xf32>, %b: memref<64x64xf32>,
                     %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// A sum over axis 0: one panel of columns per thread, guarded by the work
// and by the panels' width (at least 512 columns each); below that, one
// panel (the one-thread code: two serial panels of a narrow array read each
// row's cache lines twice).
#cols = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @colsum_dynamic(
// CHECK: %[[RWORK:.*]] = arith.cmpi sge, %{{.*}}, %c131072
// CHECK: %[[RWIDE:.*]] = arith.cmpi sge, %{{.*}}, %c1024
// CHECK: %[[RBIG:.*]] = arith.andi %[[RWORK]], %[[RWIDE]]
// CHECK: %[[PANELS:.*]] = arith.select %[[RBIG]], %c2, %c1 : index
// CHECK: scf.if %[[RBIG]] {
// CHECK-NEXT: scf.parallel {{.*}} to (%[[PANELS]])
// CHECK: arith.addf {{.*}} : vector<8xf32>
// CHECK: arith.addf {{.*}} : vector<8xf64>
// CHECK: {{^    \} else \{$}}
// CHECK-NEXT: scf.for {{.*}} to %[[PANELS]]
func.func @colsum_dynamic(%a: memref<?x?xf32>, %out: memref<?xf64>) {
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

// air-fuse-rows' loop over row blocks (marked air.row_blocks, RowFusion.h):
// each iteration writes its own rows of the output and block temporaries it
// allocates, so it is shared by the threads above 2^17 elements of the
// largest array it slices by rows; the mark goes in every case.
// CHECK-LABEL: func.func @rows_dynamic(
// CHECK: %[[RWORK:.*]] = arith.muli
// CHECK: %[[RENOUGH:.*]] = arith.cmpi sge, %[[RWORK]], %c131072
// CHECK: scf.if %[[RENOUGH]] {
// CHECK-NEXT: scf.parallel
// CHECK: memref.alloc
// CHECK: {{^    \} else \{$}}
// CHECK-NEXT: scf.for
// CHECK-NOT: air.row_blocks
// CHECK: return
// ONE-LABEL: func.func @rows_dynamic(
// ONE-NOT: air.row_blocks
// ONE: return
func.func @rows_dynamic(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.for %r = %c0 to %rows step %c8 {
    %n = affine.min affine_map<(d0)[s0] -> (8, s0 - d0)>(%r)[%rows]
    %in = memref.subview %x[%r, 0] [%n, %cols] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
    %tmp = memref.alloc(%n, %cols) : memref<?x?xf32>
    memref.copy %in, %tmp : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<?x?xf32>
    %out = memref.subview %y[%r, 0] [%n, %cols] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
    memref.copy %tmp, %out : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
    memref.dealloc %tmp : memref<?x?xf32>
  } {air.row_blocks}
  return
}

// Static and large: parallel, no run-time test.
// CHECK-LABEL: func.func @rows_static(
// CHECK-NOT: scf.if
// CHECK: scf.parallel
// CHECK: return
func.func @rows_static(%x: memref<1024x256xf32>, %y: memref<1024x256xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  scf.for %r = %c0 to %c1024 step %c8 {
    %in = memref.subview %x[%r, 0] [8, 256] [1, 1] : memref<1024x256xf32> to memref<8x256xf32, strided<[256, 1], offset: ?>>
    %out = memref.subview %y[%r, 0] [8, 256] [1, 1] : memref<1024x256xf32> to memref<8x256xf32, strided<[256, 1], offset: ?>>
    memref.copy %in, %out : memref<8x256xf32, strided<[256, 1], offset: ?>> to memref<8x256xf32, strided<[256, 1], offset: ?>>
  } {air.row_blocks}
  return
}

// Scratch shared by the iterations (allocated outside the loop): serial.
// CHECK-LABEL: func.func @rows_shared_scratch(
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @rows_shared_scratch(%x: memref<1024x256xf32>, %y: memref<1024x256xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  %tmp = memref.alloc() : memref<8x256xf32>
  scf.for %r = %c0 to %c1024 step %c8 {
    %in = memref.subview %x[%r, 0] [8, 256] [1, 1] : memref<1024x256xf32> to memref<8x256xf32, strided<[256, 1], offset: ?>>
    memref.copy %in, %tmp : memref<8x256xf32, strided<[256, 1], offset: ?>> to memref<8x256xf32>
    %out = memref.subview %y[%r, 0] [8, 256] [1, 1] : memref<1024x256xf32> to memref<8x256xf32, strided<[256, 1], offset: ?>>
    memref.copy %tmp, %out : memref<8x256xf32> to memref<8x256xf32, strided<[256, 1], offset: ?>>
  } {air.row_blocks}
  memref.dealloc %tmp : memref<8x256xf32>
  return
}

// Holding a parallel loop already (conv1d's blocks, when air-fuse-rows blocks
// a conv1d and its epilogue): left to that one, no nested team.
// CHECK-LABEL: func.func @rows_inner_parallel(
// CHECK: scf.for
// CHECK-NEXT: scf.parallel
// CHECK: return
func.func @rows_inner_parallel(%x: memref<1024x256xf32>, %y: memref<1024x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  scf.for %r = %c0 to %c1024 step %c8 {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %row = arith.addi %r, %i : index
      %in = memref.subview %x[%row, 0] [1, 256] [1, 1] : memref<1024x256xf32> to memref<1x256xf32, strided<[256, 1], offset: ?>>
      %out = memref.subview %y[%row, 0] [1, 256] [1, 1] : memref<1024x256xf32> to memref<1x256xf32, strided<[256, 1], offset: ?>>
      memref.copy %in, %out : memref<1x256xf32, strided<[256, 1], offset: ?>> to memref<1x256xf32, strided<[256, 1], offset: ?>>
      scf.reduce
    }
  } {air.row_blocks}
  return
}

// A sum over the middle axis: the threads share ranges of the leading
// parallel dim (whole slices, every column), not panels of columns.
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m3 = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @midsum(
// CHECK: scf.parallel (%[[P:.*]]) = (%c0) to (%c2) step (%c1) {
// CHECK: %[[MUL:.*]] = arith.muli %[[P]], %c3
// CHECK: %[[FIRST:.*]] = arith.minsi %[[MUL]], %c5
// CHECK: scf.for %[[I:.*]] = %[[FIRST]] to %{{.*}} step %c1 {
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c32
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c32
// CHECK: vector.load %arg0[%[[I]], %{{.*}}, %{{.*}}] : memref<5x512x128xf32>, vector<8xf32>
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @midsum(%a: memref<5x512x128xf32>, %out: memref<5x128xf64>) {
  linalg.generic {indexing_maps = [#x3, #m3],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a : memref<5x512x128xf32>) outs(%out : memref<5x128xf64>) {
  ^bb0(%x: f32, %acc: f64):
    %e = arith.extf %x : f32 to f64
    %s = arith.addf %acc, %e fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  return
}

// Tall and thin (16384 x 64): enough work, but panels of 32 columns would
// share every row's cache lines: one thread.
// CHECK-LABEL: func.func @colsum_thin(
// CHECK-NOT: scf.parallel
// CHECK-NOT: scf.if
// CHECK: return
func.func @colsum_thin(%a: memref<16384x64xf32>, %out: memref<64xf64>) {
  linalg.generic {indexing_maps = [#id, #cols],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<16384x64xf32>) outs(%out : memref<64xf64>) {
  ^bb0(%x: f32, %acc: f64):
    %e = arith.extf %x : f32 to f64
    %s = arith.addf %acc, %e fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  return
}
