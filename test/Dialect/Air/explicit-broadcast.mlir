// RUN: unum-opt %s --pass-pipeline="builtin.module(func.func(air-explicit-broadcast))" | FileCheck %s

// CHECK-LABEL: func.func @bcast
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<f32>)
// CHECK: %[[BB:.*]] = air.broadcast %[[B]] : tensor<3xf32> -> tensor<4x3xf32>
// CHECK: %[[S:.*]] = air.add %[[A]], %[[BB]] : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// A comparison broadcasts to the result's shape in the operand's dtype.
// CHECK: %[[CB:.*]] = air.broadcast %[[C]] : tensor<f32> -> tensor<4x3xf32>
// CHECK: air.lt %[[S]], %[[CB]] : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
func.func @bcast(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %c: tensor<f32>) -> tensor<4x3xi1> {
  %0 = air.add %a, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = air.lt %0, %c : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xi1>
  return %1 : tensor<4x3xi1>
}
