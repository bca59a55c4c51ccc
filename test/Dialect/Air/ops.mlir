// RUN: unum-opt %s | unum-opt | FileCheck %s
// Every air op prints in a form that parses back to the same op.

// CHECK-LABEL: func.func @kernels
func.func @kernels(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %c: tensor<f32>) -> tensor<4x3xf32> {
  // CHECK: air.add %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %0 = air.add %a, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: air.exp %{{.*}} : tensor<4x3xf32> -> tensor<4x3xf32>
  %1 = air.exp %0 : tensor<4x3xf32> -> tensor<4x3xf32>
  // CHECK: air.lt {{.*}} -> tensor<4x3xi1>
  %2 = air.lt %1, %c : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xi1>
  // CHECK: air.select
  %3 = air.select %2, %1, %c : (tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  // CHECK: air.cast %{{.*}} to f64 : tensor<4x3xf32> -> tensor<4x3xf64>
  %4 = air.cast %3 to f64 : tensor<4x3xf32> -> tensor<4x3xf64>
  // CHECK: air.sum %{{.*}} {axes = array<i64: 1>} : tensor<4x3xf64> -> tensor<4xf64>
  %5 = air.sum %4 {axes = array<i64: 1>} : tensor<4x3xf64> -> tensor<4xf64>
  // CHECK: air.reduce_max %{{.*}} : tensor<4x3xf32> -> tensor<f32>
  %6 = air.reduce_max %3 : tensor<4x3xf32> -> tensor<f32>
  // CHECK: air.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
  %7 = air.transpose %3 {perm = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
  // CHECK: air.matmul {{.*}} -> tensor<4x4xf32>
  %8 = air.matmul %3, %7 : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  // CHECK: air.reshape %{{.*}} {shape = array<i64: 2, 6>} : tensor<4x3xf32> -> tensor<2x6xf32>
  %9 = air.reshape %3 {shape = array<i64: 2, 6>} : tensor<4x3xf32> -> tensor<2x6xf32>
  // CHECK: air.make_tuple {{.*}} -> tuple<tensor<f32>, tensor<4xf64>>
  %10 = air.make_tuple %6, %5 : (tensor<f32>, tensor<4xf64>) -> tuple<tensor<f32>, tensor<4xf64>>
  // CHECK: air.get %{{.*}}[1] : tuple<tensor<f32>, tensor<4xf64>> -> tensor<4xf64>
  %11 = air.get %10[1] : tuple<tensor<f32>, tensor<4xf64>> -> tensor<4xf64>
  // CHECK: air.constant dense<2.000000e+00> : tensor<f32>
  %12 = air.constant dense<2.0> : tensor<f32>
  // CHECK: air.broadcast %{{.*}} : tensor<f32> -> tensor<4x3xf32>
  %13 = air.broadcast %12 : tensor<f32> -> tensor<4x3xf32>
  // CHECK: air.fused(%{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32> {
  // CHECK: air.yield %{{.*}} : tensor<4x3xf32>
  %14 = air.fused(%3, %13) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>):
    %s = air.mul %x, %y : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    air.yield %s : tensor<4x3xf32>
  }
  return %14 : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @generic
// CHECK: air.literal 2.5
// CHECK: air.call @generic(%{{.*}}, %{{.*}}) : (tensor<2xf32>, !air.generic) -> !air.generic
func.func @generic(%a: !air.generic, %b: !air.generic) -> !air.generic {
  %0 = air.literal 2.5
  %1 = air.conv1d %a, %b {stride = 2 : i64} : (!air.generic, !air.generic) -> !air.generic
  %2 = air.mul %1, %0 : (!air.generic, !air.generic) -> !air.generic
  return %2 : !air.generic
}
func.func @caller(%x: tensor<2xf32>, %y: !air.generic) -> !air.generic {
  %0 = air.call @generic(%x, %y) : (tensor<2xf32>, !air.generic) -> !air.generic
  return %0 : !air.generic
}
