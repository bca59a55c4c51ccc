// RUN: unum-opt %s --convert-air-to-linalg | FileCheck %s

// A static conv1d with 16 | C_out runs in 6-row x 16-channel register
// blocks over reshaped views; the rows left over take the plain loop nest.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0 * 6 + d4 + d2, d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3, d1, d5)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d4, d1, d5)>
// CHECK-LABEL: func.func @conv
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[MAIN:.*]] = tensor.extract_slice %[[INIT]][0, 0] [12, 32] [1, 1]
// CHECK: %[[OUT4:.*]] = tensor.expand_shape %[[MAIN]] {{\[}}[0, 1], [2, 3]] output_shape [2, 6, 2, 16]
// CHECK: %[[W4:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [3, 8, 2, 16]
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]}
// CHECK-SAME: outs(%[[OUT4]] : tensor<2x6x2x16xf32>)
// CHECK: tensor.collapse_shape
// CHECK: tensor.insert_slice
// The last 2 rows read input rows 12..15.
// CHECK: tensor.extract_slice %{{.*}}[12, 0] [4, 8] [1, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction", "parallel"]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[12, 0] [2, 32] [1, 1]
func.func @conv(%x: tensor<16x8xf32>, %w: tensor<3x8x32xf32>) -> tensor<14x32xf32> {
  %0 = air.conv1d %x, %w : (tensor<16x8xf32>, tensor<3x8x32xf32>) -> tensor<14x32xf32>
  return %0 : tensor<14x32xf32>
}
