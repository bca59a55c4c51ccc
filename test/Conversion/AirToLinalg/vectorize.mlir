// RUN: unum-opt %s --air-vectorize="vector-bits=256 registers=16" | FileCheck %s --check-prefix=AVX2
// RUN: unum-opt %s --air-vectorize="vector-bits=512 registers=32" | FileCheck %s --check-prefix=AVX512

// matmul: a packed Goto/BLIS nest (packing buffers 64-byte aligned, once
// per call). NC x KC blocks (4096 x 256 f32 AVX2,
// 8192 x 256... AVX-512) with B packed into NR-wide zero-padded slivers
// (masked loads at the right edge), M blocks of at most MC rows with A
// packed into MR-tall slivers, then MR x NR register tiles (6 x 16 AVX2,
// 14 x 32 AVX-512) whose accumulators (one vector per row) are read before
// the k loop, carried through it (one broadcast FMA per row and k) and
// written after it; edge tiles store with masks. No linalg op is left.
// AVX2-LABEL: func.func @matmul(
// AVX2: memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?xf32>
// AVX2: memref.alloc({{.*}}) {alignment = 64 : i64} : memref<?xf32>
// AVX2: scf.for {{.*}} step %c4096
// AVX2: scf.for {{.*}} step %c256
// AVX2: vector.maskedload %arg1
// AVX2: scf.for {{.*}} step %c16
// AVX2: scf.for {{.*}} step %c6
// AVX2: %[[SUM:.*]]:6 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AVX2: vector.load {{.*}} : memref<?xf32>, vector<16xf32>
// AVX2-COUNT-6: llvm.intr.fmuladd
// AVX2: vector.store %[[SUM]]#0
// AVX2: vector.maskedstore
// AVX2-NOT: linalg.generic
// AVX2: memref.dealloc
// AVX2: memref.dealloc
// AVX512-LABEL: func.func @matmul(
// AVX512: scf.for {{.*}} step %c32
// AVX512: scf.for {{.*}} step %c14
// AVX512: scf.for {{.*}} -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>)
// AVX512-COUNT-14: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @matmul(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                  %b: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                  %c: memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %b : memref<?x?xf32, strided<[?, 1], offset: ?>>,
                   memref<?x?xf32, strided<[?, 1], offset: ?>>)
      outs(%c : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Elementwise with a broadcast row: two registers per tile along the
// contiguous dimension (16 f32 on AVX2, 32 on AVX-512; 8/16 f64), as 1-D
// vectors; the broadcast operand is read as a vector too. The remainder
// stays linalg.
// AVX2-LABEL: func.func @bias_relu(
// AVX2: scf.for {{.*}} step %c16
// AVX2: vector.transfer_read {{.*}} vector<16xf32>
// AVX2: arith.addf {{.*}} : vector<16xf32>
// AVX2: arith.maximumf {{.*}} : vector<16xf32>
// AVX2: vector.transfer_write
// AVX2: linalg.generic
// AVX512-LABEL: func.func @bias_relu(
// AVX512: arith.maximumf {{.*}} : vector<32xf32>
// AVX2-LABEL: func.func @f64_exp(
// AVX2: math.exp {{.*}} : vector<8xf64>
// AVX512-LABEL: func.func @f64_exp(
// AVX512: math.exp {{.*}} : vector<16xf64>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%x: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                     %bias: memref<?xf32, strided<[1], offset: ?>>,
                     %out: memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #row, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : memref<?x?xf32, strided<[?, 1], offset: ?>>,
                      memref<?xf32, strided<[1], offset: ?>>)
      outs(%out : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}
#id1 = affine_map<(d0) -> (d0)>
func.func @f64_exp(%x: memref<?xf64>, %out: memref<?xf64>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : memref<?xf64>) outs(%out : memref<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    %e = math.exp %a : f64
    linalg.yield %e : f64
  }
  return
}

// Not vectorised (left for convert-linalg-to-loops): a reduction, and an
// operand read across its rows (a transpose) along the innermost loop.
// AVX2-LABEL: func.func @left_alone(
// AVX2-NOT: vector.
// AVX2: linalg.generic
// AVX2-NOT: vector.
// AVX2: linalg.generic
// AVX2-NOT: vector.
// AVX2: return
#t = affine_map<(d0, d1) -> (d1, d0)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%x: memref<?x?xf32>, %out: memref<?x?xf32>,
                      %sum: memref<?xf32>) {
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}

// An i1 memref holds one byte per element but a vector<Nxi1> load or store
// is bit-packed: a select reading a comparison's result stays scalar (it
// once read packed bits and gave wrong gradients in grad-torch.test).
// AVX2-LABEL: func.func @select_i1(
// AVX2-NOT: vector.
// AVX2: linalg.generic
// AVX2-NOT: vector.
// AVX2: return
func.func @select_i1(%c: memref<?x?xi1>, %x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %x : memref<?x?xi1>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%b: i1, %a: f32, %o: f32):
    %s = arith.select %b, %a, %zero : f32
    linalg.yield %s : f32
  }
  return
}

// An f32 row sum accumulated in f64 (a layernorm's mean and variance) runs
// in two levels: chunks of 128 columns added in f32 from +0, their sums and
// the leftover columns in f64. A chunk is explicit vector code of the
// target's width in four accumulators (8 f32 lanes x 4 per 32 columns on
// AVX2, 16 x 4 per 64 on AVX-512), combined and reduced at the chunk's end;
// the term (x - m)^2 is computed on vectors there (m broadcast) and in f32
// scalars for the leftover columns; the result is stored once per row.
// AVX2-LABEL: func.func @row_sum_two_levels(
// AVX2-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// AVX2-DAG: %[[K:.*]] = arith.constant 128 : index
// AVX2-DAG: %[[STEP:.*]] = arith.constant 32 : index
// AVX2: %[[MAIN:.*]] = arith.muli %{{.*}}, %[[K]]
// AVX2: scf.for %[[ROW:.*]] =
// AVX2: %[[START:.*]] = memref.load %{{.*}}[%[[ROW]]] : memref<?xf64>
// AVX2: %[[CHUNKS:.*]] = scf.for %[[C:.*]] = %{{.*}} to %[[MAIN]] step %[[K]] iter_args(%[[ACC:.*]] = %[[START]]) -> (f64)
// AVX2: %[[PART:.*]]:4 = scf.for %{{.*}} step %[[STEP]] iter_args(%[[S0:.*]] = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]]) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2: vector.load %{{.*}} : memref<?x?xf32>, vector<8xf32>
// AVX2: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// AVX2: arith.subf
// AVX2: %[[SQ:.*]] = arith.mulf
// AVX2: arith.addf %[[S0]], %[[SQ]] fastmath<reassoc> : vector<8xf32>
// AVX2-COUNT-3: vector.load %{{.*}} : memref<?x?xf32>, vector<8xf32>
// AVX2: scf.yield
// AVX2: %[[A:.*]] = arith.addf %[[PART]]#0, %[[PART]]#1 fastmath<reassoc> : vector<8xf32>
// AVX2: %[[B:.*]] = arith.addf %[[PART]]#2, %[[PART]]#3 fastmath<reassoc> : vector<8xf32>
// AVX2: %[[AB:.*]] = arith.addf %[[A]], %[[B]] fastmath<reassoc> : vector<8xf32>
// AVX2: %[[R:.*]] = vector.reduction <add>, %[[AB]] fastmath<reassoc> : vector<8xf32> into f32
// AVX2: %[[WIDE:.*]] = arith.extf %[[R]] : f32 to f64
// AVX2: arith.addf %[[ACC]], %[[WIDE]] fastmath<reassoc> : f64
// AVX2: %[[REST:.*]] = scf.for %{{.*}} = %[[MAIN]] to %{{.*}} iter_args(%{{.*}} = %[[CHUNKS]]) -> (f64)
// AVX2: arith.subf %{{.*}} : f32
// AVX2: arith.extf %{{.*}} : f32 to f64
// AVX2: memref.store %[[REST]], %{{.*}}[%[[ROW]]] : memref<?xf64>
// AVX2-NOT: linalg.generic
// AVX2: return
// AVX512-LABEL: func.func @row_sum_two_levels(
// AVX512-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// AVX512-DAG: %[[STEP:.*]] = arith.constant 64 : index
// AVX512: %[[PART:.*]]:4 = scf.for %{{.*}} step %[[STEP]] iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AVX512-COUNT-4: vector.load %{{.*}} : memref<?x?xf32>, vector<16xf32>
// AVX512: vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// AVX512-NOT: linalg.generic
// AVX512: return
func.func @row_sum_two_levels(%x: memref<?x?xf32>, %m: memref<?xf32>, %sum: memref<?xf64>) {
  linalg.generic {indexing_maps = [#id, #red, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : memref<?x?xf32>, memref<?xf32>) outs(%sum : memref<?xf64>) {
  ^bb0(%a: f32, %mean: f32, %o: f64):
    %d = arith.subf %a, %mean : f32
    %sq = arith.mulf %d, %d : f32
    %w = arith.extf %sq : f32 to f64
    %s = arith.addf %o, %w fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  return
}

// The same over the last axis of a 3-D array: a loop per leading dimension,
// each row's chunks in vectors. A column-strided input keeps the chunk a
// scalar f32 loop.
// AVX2-LABEL: func.func @row_sum_3d(
// AVX2: scf.for %[[I:.*]] =
// AVX2: scf.for %[[J:.*]] =
// AVX2: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<?x?xf64>
// AVX2: scf.for
// AVX2: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2: vector.load %{{.*}}[%[[I]], %[[J]], %{{.*}}] : memref<?x?x?xf32>, vector<8xf32>
// AVX2: vector.reduction <add>
// AVX2: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<?x?xf64>
// AVX2-NOT: linalg.generic
// AVX2: return
// AVX2-LABEL: func.func @row_sum_strided(
// AVX2-NOT: vector.
// AVX2: arith.constant 0.000000e+00 : f32
// AVX2-NOT: vector.
// AVX2: scf.for {{.*}} -> (f32)
// AVX2-NOT: vector.
// AVX2: return
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @row_sum_3d(%x: memref<?x?x?xf32>, %sum: memref<?x?xf64>) {
  linalg.generic {indexing_maps = [#id3, #red3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<?x?x?xf32>) outs(%sum : memref<?x?xf64>) {
  ^bb0(%a: f32, %o: f64):
    %w = arith.extf %a : f32 to f64
    %s = arith.addf %o, %w fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  return
}
func.func @row_sum_strided(%x: memref<?x?xf32, strided<[?, 2]>>, %sum: memref<?xf64>) {
  linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32, strided<[?, 2]>>) outs(%sum : memref<?xf64>) {
  ^bb0(%a: f32, %o: f64):
    %w = arith.extf %a : f32 to f64
    %s = arith.addf %o, %w fastmath<reassoc> : f64
    linalg.yield %s : f64
  }
  return
}

// A float max over the last axis (softmax's row maximum): vector
// accumulators starting at the output's value (4 x 8 lanes on AVX2, 4 x 16
// on AVX-512), combined with maximumf (exact in any order), then single
// vectors, the reduction, then single columns.
// AVX2-LABEL: func.func @row_max(
// AVX2: scf.for %[[ROW:.*]] =
// AVX2: %[[START:.*]] = memref.load %{{.*}}[%[[ROW]]] : memref<?xf32>
// AVX2: %[[SPLAT:.*]] = vector.broadcast %[[START]] : f32 to vector<8xf32>
// AVX2: %[[ACC:.*]]:4 = scf.for {{.*}} iter_args({{.*}} = %[[SPLAT]], {{.*}} = %[[SPLAT]], {{.*}} = %[[SPLAT]], {{.*}} = %[[SPLAT]]) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2-COUNT-4: arith.maximumf %{{.*}} : vector<8xf32>
// AVX2: arith.maximumf %[[ACC]]#0, %[[ACC]]#1 : vector<8xf32>
// AVX2: %[[ONE:.*]] = scf.for {{.*}} -> (vector<8xf32>)
// AVX2: %[[R:.*]] = vector.reduction <maximumf>, %[[ONE]] : vector<8xf32> into f32
// AVX2: %[[LAST:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[R]]) -> (f32)
// AVX2: memref.store %[[LAST]], %{{.*}}[%[[ROW]]] : memref<?xf32>
// AVX2-NOT: linalg.generic
// AVX2: return
// AVX512-LABEL: func.func @row_max(
// AVX512: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AVX512: vector.reduction <maximumf>, %{{.*}} : vector<16xf32> into f32
// AVX512-NOT: linalg.generic
// AVX512: return
func.func @row_max(%x: memref<?x?xf32, strided<[?, 1], offset: ?>>, %m: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32, strided<[?, 1], offset: ?>>) outs(%m : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %o, %a : f32
    linalg.yield %s : f32
  }
  return
}
