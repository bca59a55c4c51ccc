// RUN: unum-opt %s --pass-pipeline="builtin.module(func.func(air-fuse))" | FileCheck %s

// A chain of elementwise kernels becomes one group.
// CHECK-LABEL: func.func @chain
// CHECK: %[[F:.*]] = air.fused(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> {
// CHECK: air.mul
// CHECK: air.add
// CHECK: air.exp
// CHECK: air.yield
// CHECK: return %[[F]]
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<?xf32>) -> tensor<?xf32> {
  %0 = air.mul %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %1 = air.add %0, %c : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %2 = air.exp %1 : tensor<?xf32> -> tensor<?xf32>
  return %2 : tensor<?xf32>
}

// A value used outside stays outside: the group never recomputes it.
// CHECK-LABEL: func.func @shared
// CHECK: %[[M:.*]] = air.mul
// CHECK: air.fused(%[[M]]
// CHECK: air.fused(%[[M]]
func.func @shared(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = air.mul %a, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = air.exp %0 : tensor<8xf32> -> tensor<8xf32>
  %2 = air.neg %1 : tensor<8xf32> -> tensor<8xf32>
  %3 = air.log %0 : tensor<8xf32> -> tensor<8xf32>
  %4 = air.abs %3 : tensor<8xf32> -> tensor<8xf32>
  return %2, %4 : tensor<8xf32>, tensor<8xf32>
}

// A reduction takes its elementwise prologue and epilogue.
// CHECK-LABEL: func.func @reduction
// CHECK: air.fused(%{{.*}}, %{{.*}}) : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16xf32> {
// CHECK: air.sub
// CHECK: air.mul
// CHECK: air.sum
// CHECK: air.sqrt
// CHECK: air.yield
func.func @reduction(%a: tensor<16x8xf32>, %b: tensor<16x8xf32>) -> tensor<16xf32> {
  %0 = air.sub %a, %b : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %1 = air.mul %0, %0 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  %2 = air.sum %1 {axes = array<i64: 1>} : tensor<16x8xf32> -> tensor<16xf32>
  %3 = air.sqrt %2 : tensor<16xf32> -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

// matmul takes its epilogue (bias, relu; the scalar zero is rematerialised
// inside) but not a prologue, which it would recompute N times.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[P:.*]] = air.exp
// CHECK: air.fused(%[[P]], %{{.*}}, %{{.*}}) : (tensor<4x5xf32>, tensor<5x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32> {
// CHECK: air.matmul
// CHECK: air.add
// CHECK: air.constant dense<0.000000e+00> : tensor<f32>
// CHECK: air.max
func.func @matmul(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %bias: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %zero = air.constant dense<0.0> : tensor<f32>
  %0 = air.exp %a : tensor<4x5xf32> -> tensor<4x5xf32>
  %1 = air.matmul %0, %b : (tensor<4x5xf32>, tensor<5x6xf32>) -> tensor<4x6xf32>
  %2 = air.add %1, %bias : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %3 = air.max %2, %zero : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
  return %3 : tensor<4x6xf32>
}

// x - mean(x) needs the whole reduction first: the broadcast keeps the
// reduction out of the elementwise group.
// CHECK-LABEL: func.func @centre
// CHECK: %[[M:.*]] = air.mean
// CHECK: air.fused(%[[M]], %{{.*}})
// CHECK: air.broadcast
func.func @centre(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = air.mean %x : tensor<8xf32> -> tensor<f32>
  %1 = air.broadcast %0 : tensor<f32> -> tensor<8xf32>
  %2 = air.sub %x, %1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = air.abs %2 : tensor<8xf32> -> tensor<8xf32>
  return %3 : tensor<8xf32>
}
