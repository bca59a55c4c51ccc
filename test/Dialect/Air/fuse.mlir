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

// A value used by two groups stays outside each (no group recomputes it);
// then multi-output fusion makes the three loops over the same 8 elements
// one, with a result per value used outside it.
// CHECK-LABEL: func.func @shared
// CHECK: %[[F:.*]]:2 = air.fused(%{{.*}}) : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// CHECK: air.mul
// CHECK: air.exp
// CHECK: air.neg
// CHECK: air.log
// CHECK: air.abs
// CHECK: air.yield
// CHECK: return %[[F]]#0, %[[F]]#1
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

// Multi-output fusion: the value and both gradients of sum((a-b)^2), as
// air-grad leaves them, are one loop (a - b computed once, inside).
// CHECK-LABEL: func.func @value_and_grad
// CHECK: %[[F:.*]]:3 = air.fused(%{{.*}}, %{{.*}}) : (tensor<?xf32>, tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>, tensor<?xf32>) {
// CHECK: air.sub
// CHECK: air.mul
// CHECK: air.sum
// CHECK: air.add
// CHECK: air.neg
// CHECK: air.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<?xf32>, tensor<?xf32>
// CHECK-NOT: air.
// CHECK: return %[[F]]#0, %[[F]]#1, %[[F]]#2
func.func @value_and_grad(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>, tensor<?xf32>) {
  %0 = air.sub %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %1 = air.mul %0, %0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %2 = air.sum %1 : tensor<?xf32> -> tensor<f32>
  %3 = air.add %0, %0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %4 = air.neg %3 : tensor<?xf32> -> tensor<?xf32>
  return %2, %3, %4 : tensor<f32>, tensor<?xf32>, tensor<?xf32>
}

// Dynamic sizes that nothing relates (two parameters of type f32[?]) may
// differ at run time: their loops stay apart.
// CHECK-LABEL: func.func @unrelated
// CHECK: air.exp
// CHECK-NEXT: air.exp
// CHECK-NOT: air.fused
func.func @unrelated(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = air.exp %a : tensor<?xf32> -> tensor<?xf32>
  %1 = air.exp %b : tensor<?xf32> -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// A loop that reads a reduction of another needs the whole of it first.
// CHECK-LABEL: func.func @reads_reduction
// CHECK: %[[S:.*]] = air.sum
// CHECK: air.fused(%[[S]], %{{.*}}) : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
func.func @reads_reduction(%x: tensor<8xf32>) -> (tensor<f32>, tensor<8xf32>) {
  %0 = air.sum %x : tensor<8xf32> -> tensor<f32>
  %1 = air.broadcast %0 : tensor<f32> -> tensor<8xf32>
  %2 = air.div %x, %1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0, %2 : tensor<f32>, tensor<8xf32>
}
