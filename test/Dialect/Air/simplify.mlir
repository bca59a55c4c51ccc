// RUN: unum-opt %s --air-simplify | FileCheck %s
// RUN: unum-opt %s --air-simplify="inline-threshold=0" | FileCheck %s --check-prefix=NOINLINE

// The identity of IEEE addition is -0.0 (x + 0.0 is not x: -0.0 + 0.0 is
// +0.0); x - 0.0 is x.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @identities(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = air.constant dense<0.0> : tensor<f32>
  %negzero = air.constant dense<-0.0> : tensor<f32>
  %one = air.constant dense<1.0> : tensor<4xf32>
  %0 = air.add %x, %negzero : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = air.mul %one, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = air.neg %1 : tensor<4xf32> -> tensor<4xf32>
  %3 = air.neg %2 : tensor<4xf32> -> tensor<4xf32>
  %4 = air.div %3, %one : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = air.sub %4, %zero : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %t = air.make_tuple %5, %x : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  %6 = air.get %t[0] : tuple<tensor<4xf32>, tensor<4xf32>> -> tensor<4xf32>
  return %6 : tensor<4xf32>
}

// CHECK-LABEL: func.func @plus_zero
// CHECK: air.add
func.func @plus_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = air.constant dense<0.0> : tensor<f32>
  %0 = air.add %zero, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// x + 0 must not fold when the zero broadcasts x to a larger shape.
// CHECK-LABEL: func.func @broadcasting_zero
// CHECK: air.add
func.func @broadcasting_zero(%x: tensor<f32>) -> tensor<4xf32> {
  %zero = air.constant dense<0.0> : tensor<4xf32>
  %0 = air.add %x, %zero : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Constant folding follows numpy broadcasting.
// CHECK-LABEL: func.func @fold
// CHECK-NEXT: %[[C:.*]] = air.constant dense<{{\[}}[1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold() -> tensor<2x2xf32> {
  %a = air.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = air.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %0 = air.add %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// Common subexpressions and dead kernels go.
// CHECK-LABEL: func.func @cse
// CHECK-COUNT-1: air.exp
// CHECK-NOT: air.log
func.func @cse(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = air.exp %x : tensor<4xf32> -> tensor<4xf32>
  %1 = air.exp %x : tensor<4xf32> -> tensor<4xf32>
  %dead = air.log %x : tensor<4xf32> -> tensor<4xf32>
  %2 = air.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// Small callees are inlined and, once uncalled, removed when private.
// CHECK-NOT: func.func private @square
// CHECK-LABEL: func.func @inline
// CHECK-NOT: air.call
// CHECK: air.mul
// NOINLINE-LABEL: func.func @inline
// NOINLINE: air.call @square
// NOINLINE: air.call @square
func.func private @square(%v: tensor<4xf32>) -> tensor<4xf32> {
  %0 = air.mul %v, %v : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @inline(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = air.call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = air.call @square(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
