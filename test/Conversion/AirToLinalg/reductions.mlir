// RUN: unum-opt %s --convert-air-to-linalg | FileCheck %s

// A reduction accumulates into a filled output with reassociation allowed,
// its prologue computed inside the loop. f32 sums accumulate in f64 and
// round once; mean divides afterwards.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[MA:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[MB:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MC:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[CX:.*]] = affine_map<(d0, d1, d2, d3) -> (d0 * 2 + d1, d2)>
// CHECK-DAG: #[[CW:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG: #[[CY:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @sumsq
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f64)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: outs(%[[INIT]] : tensor<16xf64>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: math.sqrt
func.func @sumsq(%a: tensor<16x8xf32>, %b: tensor<16x8xf32>) -> tensor<16xf32> {
  %0 = air.fused(%a, %b) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16xf32> {
  ^bb0(%x: tensor<16x8xf32>, %y: tensor<16x8xf32>):
    %d = air.sub %x, %y : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %s = air.mul %d, %d : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %r = air.sum %s {axes = array<i64: 1>} : tensor<16x8xf32> -> tensor<16xf32>
    %q = air.sqrt %r : tensor<16xf32> -> tensor<16xf32>
    air.yield %q : tensor<16xf32>
  }
  return %0 : tensor<16xf32>
}

// A 1-D f32 sum (here inside mean) runs in two levels: f32 partial sums
// over blocks of 4096, then the partials and the leftover elements in f64.
// CHECK-LABEL: func.func @mean_and_max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK: %[[MAIN:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}] [%[[N:.*]]] [1] : tensor<?xf32> to tensor<?xf32>
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %[[MAIN]] {{\[}}[0, 1]] output_shape [%{{.*}}, 4096] : tensor<?xf32> into tensor<?x4096xf32>
// CHECK: %[[PARTIAL:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[BLOCKS]] : tensor<?x4096xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK: %[[TOTAL:.*]] = linalg.generic {{.*}} ins(%[[PARTIAL]] : tensor<?xf32>) outs(%{{.*}} : tensor<f64>)
// CHECK: %[[REST:.*]] = tensor.extract_slice %{{.*}}[%[[N]]] [%{{.*}}] [1]
// CHECK: linalg.generic {{.*}} ins(%[[REST]] : tensor<?xf32>) outs(%[[TOTAL]] : tensor<f64>)
// CHECK: %[[COUNT:.*]] = arith.sitofp %{{.*}} : i64 to f64
// CHECK: arith.divf %{{.*}}, %[[COUNT]] : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @mean_and_max(%a: tensor<?xf32>) -> (tensor<f32>, tensor<f32>) {
  %0 = air.reduce_max %a : tensor<?xf32> -> tensor<f32>
  %1 = air.mean %a : tensor<?xf32> -> tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

// matmul is (m, k, n) and conv1d (l, k, c, o): the innermost loop runs along
// the contiguous output dimension.
// CHECK-LABEL: func.func @contractions
// CHECK: linalg.generic {indexing_maps = [#[[MA]], #[[MB]], #[[MC]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK: linalg.generic {indexing_maps = [#[[CX]], #[[CW]], #[[CY]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
func.func @contractions(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %x: tensor<9x3xf32>, %w: tensor<3x3x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = air.matmul %a, %b : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  %1 = air.conv1d %x, %w {stride = 2 : i64} : (tensor<9x3xf32>, tensor<3x3x6xf32>) -> tensor<4x6xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<4x6xf32>
}

// CHECK-LABEL: func.func @layout
// CHECK: tensor.reshape %{{.*}}(%{{.*}}) : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<3x2xf32>) permutation = [1, 0]
func.func @layout(%a: tensor<6xf32>) -> tensor<3x2xf32> {
  %0 = air.reshape %a {shape = array<i64: 2, 3>} : tensor<6xf32> -> tensor<2x3xf32>
  %1 = air.transpose %0 {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}
