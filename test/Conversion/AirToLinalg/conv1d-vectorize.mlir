// RUN: unum-opt %s --air-vectorize-conv1d="vector-bits=256 registers=16" --canonicalize | FileCheck %s --check-prefix=AVX2
// RUN: unum-opt %s --air-vectorize-conv1d="vector-bits=512 registers=32" --canonicalize | FileCheck %s --check-prefix=AVX512

// conv1d y[l, o] += x[l * s + k, c] * w[k, c, o] as register blocks: R
// output positions x N vectors of channels whose accumulators are loaded
// once, carried through the k and c loops and stored once; per (k, c) N
// weight vectors are loaded and one input element per row is broadcast into
// N FMAs. No gathers, no scatters.
#x = affine_map<(d0, d1, d2, d3) -> (d0 + d1, d2)>
#x2 = affine_map<(d0, d1, d2, d3) -> (d0 * 2 + d1, d2)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#y = affine_map<(d0, d1, d2, d3) -> (d0, d3)>

// C_out = 32, L' = 4094: with AVX2, 6 rows x 2 vectors of 8 (16 channels per
// block, two blocks), the 2 rows left in a 2-row block; with AVX-512, 14 x 2 x 16
// (one channel block), 6 rows left. Blocks of rows outside (the loop threads
// share), the channel blocks of each inside.
// AVX2-LABEL: func.func @conv_static(
// AVX2-NOT: vector.gather
// AVX2: scf.for %{{.*}} = %c0 to %c4092 step %c6
// AVX2-NEXT: scf.for %{{.*}} = %c0 to %c32 step %c16
// AVX2-COUNT-12: vector.load %{{.*}} : memref<4094x32xf32>, vector<8xf32>
// AVX2: scf.for {{.*}} to %c3 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2: scf.for {{.*}} to %c32 {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2-COUNT-2: vector.load %{{.*}} : memref<3x32x32xf32>, vector<8xf32>
// AVX2: memref.load %{{.*}} : memref<4096x32xf32>
// AVX2: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// AVX2-COUNT-2: vector.fma %{{.*}} : vector<8xf32>
// AVX2-COUNT-12: vector.store
// The rows left: a 2-row block.
// AVX2: scf.for %{{.*}} = %c0 to %c32 step %c16
// AVX2: vector.load %{{.*}}[%c4093,
// AVX2: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2-NOT: vector.scatter
// AVX2: return
// AVX512-LABEL: func.func @conv_static(
// AVX512-NOT: vector.gather
// AVX512: scf.for %{{.*}} = %c0 to %c4088 step %c14
// AVX512-COUNT-28: vector.load %{{.*}} : memref<4094x32xf32>, vector<16xf32>
// AVX512: vector.fma %{{.*}} : vector<16xf32>
// AVX512-NOT: vector.scatter
// AVX512: return
func.func @conv_static(%x: memref<4096x32xf32>, %w: memref<3x32x32xf32>,
                       %y: memref<4094x32xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<4096x32xf32>, memref<3x32x32xf32>)
      outs(%y : memref<4094x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// C_out = 37 (with AVX2, two full 16-channel blocks, then 5 channels in one
// masked vector), stride 2.
// AVX2-LABEL: func.func @conv_odd_channels(
// AVX2: vector.constant_mask [5] : vector<8xi1>
// AVX2: scf.for %{{.*}} = %c0 to %c32 step %c16
// AVX2: vector.fma
// AVX2: vector.maskedload %{{.*}} : memref<9x37xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// AVX2: vector.maskedload %{{.*}} : memref<5x8x37xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// AVX2: vector.fma
// AVX2: vector.maskedstore
func.func @conv_odd_channels(%x: memref<21x8xf32>, %w: memref<5x8x37xf32>,
                             %y: memref<9x37xf32>) {
  linalg.generic {indexing_maps = [#x2, #w, #y],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<21x8xf32>, memref<5x8x37xf32>)
      outs(%y : memref<9x37xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// Dynamic sizes: full blocks, the rows left (at most 5) in blocks of 4, 2
// and 1 rows as their count needs (no row-by-row loop), and a masked block
// for the channels left when there are any. Integers multiply and add.
// AVX2-LABEL: func.func @conv_dynamic(
// AVX2: memref.dim
// AVX2: vector.create_mask
// AVX2: scf.for
// AVX2: arith.muli %{{.*}} : vector<8xi32>
// AVX2: arith.addi %{{.*}} : vector<8xi32>
// AVX2: scf.if
// AVX2: vector.maskedstore
// AVX2: %[[LEFT:.*]] = arith.subi
// AVX2: %[[FOUR:.*]] = arith.andi %[[LEFT]], %c4
// AVX2: %[[ANY4:.*]] = arith.cmpi ne, %[[FOUR]], %c0
// AVX2: scf.if %[[ANY4]] {
// AVX2: iter_args({{.*}}) -> (vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>)
// AVX2: vector.maskedstore
// AVX2: arith.andi %[[LEFT]], %c2
// AVX2: scf.if
// AVX2: vector.maskedstore
// AVX2: arith.andi %[[LEFT]], %c1
// AVX2: scf.if
// AVX2: vector.maskedstore
// AVX2-LABEL: func.func @not_conv(
func.func @conv_dynamic(%x: memref<?x?xi32, strided<[?, ?], offset: ?>>,
                        %w: memref<?x?x?xi32>, %y: memref<?x?xi32>) {
  linalg.generic {indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<?x?x?xi32>)
      outs(%y : memref<?x?xi32>) {
  ^bb0(%a: i32, %b: i32, %acc: i32):
    %p = arith.muli %a, %b : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// Not a conv1d body (a max, not a sum): left alone.
// AVX2: linalg.generic
func.func @not_conv(%x: memref<16x8xf32>, %w: memref<3x8x32xf32>,
                    %y: memref<14x32xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<16x8xf32>, memref<3x8x32xf32>)
      outs(%y : memref<14x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.maximumf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// The lowering's zero fill of the output right before the conv: dropped,
// the accumulators start as that value in registers (a broadcast, no load
// of y), so y is written once. A fill of another buffer stays.
// AVX2-LABEL: func.func @conv_filled(
// AVX2-NOT: linalg.fill
// AVX2-NOT: vector.load %{{.*}} : memref<4094x32xf32>
// AVX2: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// AVX2-NOT: vector.load %{{.*}} : memref<4094x32xf32>
// AVX2: vector.store
// AVX2: return
// AVX2-LABEL: func.func @conv_other_fill(
// AVX2: linalg.fill {{.*}} outs(%{{.*}} : memref<4xf32>)
// AVX2: vector.load %{{.*}} : memref<4094x32xf32>
func.func @conv_filled(%x: memref<4096x32xf32>, %w: memref<3x32x32xf32>,
                       %y: memref<4094x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<4094x32xf32>)
  linalg.generic {indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<4096x32xf32>, memref<3x32x32xf32>)
      outs(%y : memref<4094x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @conv_other_fill(%x: memref<4096x32xf32>, %w: memref<3x32x32xf32>,
                           %y: memref<4094x32xf32>, %z: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%z : memref<4xf32>)
  linalg.generic {indexing_maps = [#x, #w, #y],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x, %w : memref<4096x32xf32>, memref<3x32x32xf32>)
      outs(%y : memref<4094x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
