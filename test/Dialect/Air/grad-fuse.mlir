// After air-grad, air-simplify and air-fuse treat the reverse sweep like any
// other code: the gradient of an elementwise chain is ONE loop (air.fused),
// recomputing the forward values it needs in the same loop.
// RUN: unum-opt --air-grad --air-simplify --air-explicit-broadcast --air-fuse %s | FileCheck %s

func.func private @chain(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> tensor<f32> {
  %0 = air.mul %x, %y : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %1 = air.tanh %0 : tensor<1024xf32> -> tensor<1024xf32>
  %2 = air.exp %1 : tensor<1024xf32> -> tensor<1024xf32>
  %3 = air.sum %2 : tensor<1024xf32> -> tensor<f32>
  return %3 : tensor<f32>
}

// d/dx sum(exp(tanh(x*y))) = exp(t) * (1 - t*t) * y, t = tanh(x*y): one
// fused body from the inputs to the gradient, nothing outside it.
// CHECK-LABEL: func.func @dchain
// CHECK-NEXT: air.constant
// CHECK-NEXT: %[[G:.*]] = air.fused(%arg0, %arg1)
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1024xf32>, %[[Y:.*]]: tensor<1024xf32>):
// CHECK-NEXT: %[[XY:.*]] = air.mul %[[X]], %[[Y]]
// CHECK-NEXT: %[[T:.*]] = air.tanh %[[XY]]
// CHECK-NEXT: %[[E:.*]] = air.exp %[[T]]
// CHECK-NEXT: %[[TT:.*]] = air.mul %[[T]], %[[T]]
// CHECK: %[[D:.*]] = air.sub %{{.*}}, %[[TT]]
// CHECK-NEXT: %[[ED:.*]] = air.mul %[[E]], %[[D]]
// CHECK-NEXT: %[[R:.*]] = air.mul %[[ED]], %[[Y]]
// CHECK-NEXT: air.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @dchain(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> tensor<1024xf32> {
  %g = air.grad @chain(%x, %y) {wrt = array<i64: 0>} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  return %g : tensor<1024xf32>
}

// Gradient of a gradient (elementwise): d2/dx2 sum(x*x*x) = 6x, also one loop.
func.func private @cube(%x: tensor<1024xf64>) -> tensor<f64> {
  %0 = air.mul %x, %x : (tensor<1024xf64>, tensor<1024xf64>) -> tensor<1024xf64>
  %1 = air.mul %0, %x : (tensor<1024xf64>, tensor<1024xf64>) -> tensor<1024xf64>
  %2 = air.sum %1 : tensor<1024xf64> -> tensor<f64>
  return %2 : tensor<f64>
}
func.func private @dcube_sum(%x: tensor<1024xf64>) -> tensor<f64> {
  %g = air.grad @cube(%x) {wrt = array<i64: 0>} : (tensor<1024xf64>) -> tensor<1024xf64>
  %s = air.sum %g : tensor<1024xf64> -> tensor<f64>
  return %s : tensor<f64>
}
// 2x + 2x + x + x, once per element:
// CHECK-LABEL: func.func @ddcube
// CHECK-NEXT: %[[H:.*]] = air.fused(%arg0)
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<1024xf64>):
// CHECK-NEXT: %[[A:.*]] = air.add %[[X]], %[[X]]
// CHECK-NEXT: %[[B:.*]] = air.add %[[A]], %[[A]]
// CHECK-NEXT: %[[C:.*]] = air.add %[[B]], %[[X]]
// CHECK-NEXT: %[[D:.*]] = air.add %[[C]], %[[X]]
// CHECK-NEXT: air.yield %[[D]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[H]]
func.func @ddcube(%x: tensor<1024xf64>) -> tensor<1024xf64> {
  %h = air.grad @dcube_sum(%x) {wrt = array<i64: 0>} : (tensor<1024xf64>) -> tensor<1024xf64>
  return %h : tensor<1024xf64>
}
