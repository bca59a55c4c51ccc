// The IR air-grad builds for each kernel's derivative rule
// (GradientOpInterface, lib/Dialect/Air/IR/AirGradients.cpp): the forward
// copy (broadcasts made explicit), then from the seed 1 backwards. Adjoints
// stay as small as they come (the scalar seed) until a rule needs the exact
// shape; an adjoint of a broadcast operand is summed back. air-simplify
// cleans up afterwards.
// RUN: unum-opt --split-input-file --air-grad %s | FileCheck %s

// CHECK-LABEL: func.func private @add_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.add %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.broadcast [[V2]] : tensor<f64> -> tensor<4xf64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.broadcast [[V2]] : tensor<f64> -> tensor<4xf64>
// CHECK-NEXT: return [[V3]], [[V4]] : tensor<4xf64>, tensor<4xf64>
func.func private @add(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %0 = air.add %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dadd(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = air.grad @add(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @sub_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.sub %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.neg [[V2]] : tensor<f64> -> tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.broadcast [[V2]] : tensor<f64> -> tensor<4xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.broadcast [[V3]] : tensor<f64> -> tensor<4xf64>
// CHECK-NEXT: return [[V4]], [[V5]] : tensor<4xf64>, tensor<4xf64>
func.func private @sub(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %0 = air.sub %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dsub(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = air.grad @sub(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @mul_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.mul %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.mul [[V2]], %arg1 : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.mul [[V2]], %arg0 : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V3]], [[V4]] : tensor<4xf64>, tensor<4xf64>
func.func private @mul(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %0 = air.mul %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dmul(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = air.grad @mul(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @div_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.div %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.div [[V2]], %arg1 : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.mul [[V3]], [[V0]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.neg [[V4]] : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: return [[V3]], [[V5]] : tensor<4xf64>, tensor<4xf64>
func.func private @div(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %0 = air.div %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @ddiv(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = air.grad @div(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @max_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.max %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.constant dense<5.000000e-01> : tensor<f64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.eq %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xi1>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.select [[V5]], [[V4]], [[V3]] : (tensor<4xi1>, tensor<f64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.gt %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xi1>
// CHECK-NEXT: [[V9:%[0-9]+]] = air.select [[V8]], [[V7]], [[V6]] : (tensor<4xi1>, tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V10:%[0-9]+]] = air.mul [[V2]], [[V9]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V11:%[0-9]+]] = air.sub [[V2]], [[V10]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V10]], [[V11]] : tensor<4xf64>, tensor<4xf64>
func.func private @max(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %0 = air.max %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dmax(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = air.grad @max(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @min_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.min %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.constant dense<5.000000e-01> : tensor<f64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.eq %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xi1>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.select [[V5]], [[V4]], [[V3]] : (tensor<4xi1>, tensor<f64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.lt %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xi1>
// CHECK-NEXT: [[V9:%[0-9]+]] = air.select [[V8]], [[V7]], [[V6]] : (tensor<4xi1>, tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V10:%[0-9]+]] = air.mul [[V2]], [[V9]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V11:%[0-9]+]] = air.sub [[V2]], [[V10]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V10]], [[V11]] : tensor<4xf64>, tensor<4xf64>
func.func private @min(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %0 = air.min %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dmin(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = air.grad @min(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @pow_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.pow %arg0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.sub %arg1, [[V4]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.pow %arg0, [[V5]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.mul %arg1, [[V6]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.mul [[V2]], [[V7]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V9:%[0-9]+]] = air.eq %arg1, [[V3]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xi1>
// CHECK-NEXT: [[V10:%[0-9]+]] = air.select [[V9]], [[V3]], [[V8]] : (tensor<4xi1>, tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V11:%[0-9]+]] = air.log %arg0 : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: [[V12:%[0-9]+]] = air.mul [[V0]], [[V11]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V13:%[0-9]+]] = air.mul [[V2]], [[V12]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V14:%[0-9]+]] = air.ge %arg1, [[V3]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xi1>
// CHECK-NEXT: [[V15:%[0-9]+]] = air.select [[V14]], [[V3]], [[V13]] : (tensor<4xi1>, tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V16:%[0-9]+]] = air.eq %arg0, [[V3]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xi1>
// CHECK-NEXT: [[V17:%[0-9]+]] = air.select [[V16]], [[V15]], [[V13]] : (tensor<4xi1>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V10]], [[V17]] : tensor<4xf64>, tensor<4xf64>
func.func private @pow(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %0 = air.pow %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dpow(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %g:2 = air.grad @pow(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @neg_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.neg %arg0 : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.neg [[V2]] : tensor<f64> -> tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.broadcast [[V3]] : tensor<f64> -> tensor<4xf64>
// CHECK-NEXT: return [[V4]] : tensor<4xf64>
func.func private @neg(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = air.neg %a : tensor<4xf64> -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dneg(%a: tensor<4xf64>) -> (tensor<4xf64>) {
  %g:1 = air.grad @neg(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> (tensor<4xf64>)
  return %g#0 : tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @abs_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.abs %arg0 : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.constant dense<-1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.lt %arg0, [[V3]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xi1>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.select [[V5]], [[V4]], [[V3]] : (tensor<4xi1>, tensor<f64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.gt %arg0, [[V3]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xi1>
// CHECK-NEXT: [[V9:%[0-9]+]] = air.select [[V8]], [[V7]], [[V6]] : (tensor<4xi1>, tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V10:%[0-9]+]] = air.mul [[V2]], [[V9]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V10]] : tensor<4xf64>
func.func private @abs(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = air.abs %a : tensor<4xf64> -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dabs(%a: tensor<4xf64>) -> (tensor<4xf64>) {
  %g:1 = air.grad @abs(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> (tensor<4xf64>)
  return %g#0 : tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @exp_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.exp %arg0 : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.mul [[V2]], [[V0]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V3]] : tensor<4xf64>
func.func private @exp(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = air.exp %a : tensor<4xf64> -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dexp(%a: tensor<4xf64>) -> (tensor<4xf64>) {
  %g:1 = air.grad @exp(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> (tensor<4xf64>)
  return %g#0 : tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @log_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.log %arg0 : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.div [[V2]], %arg0 : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V3]] : tensor<4xf64>
func.func private @log(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = air.log %a : tensor<4xf64> -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dlog(%a: tensor<4xf64>) -> (tensor<4xf64>) {
  %g:1 = air.grad @log(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> (tensor<4xf64>)
  return %g#0 : tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @sqrt_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.sqrt %arg0 : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<2.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.mul [[V0]], [[V3]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.div [[V2]], [[V4]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V5]] : tensor<4xf64>
func.func private @sqrt(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = air.sqrt %a : tensor<4xf64> -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dsqrt(%a: tensor<4xf64>) -> (tensor<4xf64>) {
  %g:1 = air.grad @sqrt(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> (tensor<4xf64>)
  return %g#0 : tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @tanh_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.tanh %arg0 : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.mul [[V0]], [[V0]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.sub [[V4]], [[V3]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.mul [[V2]], [[V5]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V6]] : tensor<4xf64>
func.func private @tanh(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = air.tanh %a : tensor<4xf64> -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dtanh(%a: tensor<4xf64>) -> (tensor<4xf64>) {
  %g:1 = air.grad @tanh(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> (tensor<4xf64>)
  return %g#0 : tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @sigmoid_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.sigmoid %arg0 : tensor<4xf64> -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.sub [[V3]], [[V0]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.mul [[V4]], [[V0]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.mul [[V2]], [[V5]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return [[V6]] : tensor<4xf64>
func.func private @sigmoid(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = air.sigmoid %a : tensor<4xf64> -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dsigmoid(%a: tensor<4xf64>) -> (tensor<4xf64>) {
  %g:1 = air.grad @sigmoid(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> (tensor<4xf64>)
  return %g#0 : tensor<4xf64>
}
// -----
// CHECK-LABEL: func.func private @bcast_grad_1_2(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.broadcast %arg1 : tensor<4xf64> -> tensor<3x4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.mul %arg0, [[V0]] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.broadcast %arg2 : tensor<3x1xf64> -> tensor<3x4xf64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.add [[V1]], [[V2]] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.sum [[V3]] : tensor<3x4xf64> -> tensor<f64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.broadcast [[V5]] : tensor<f64> -> tensor<3x4xf64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.sum [[V6]] {axes = array<i64: 1>} : tensor<3x4xf64> -> tensor<3xf64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.reshape [[V7]] {shape = array<i64: 3, 1>} : tensor<3xf64> -> tensor<3x1xf64>
// CHECK-NEXT: [[V9:%[0-9]+]] = air.mul [[V5]], [[V0]] : (tensor<f64>, tensor<3x4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: [[V10:%[0-9]+]] = air.mul [[V5]], %arg0 : (tensor<f64>, tensor<3x4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: [[V11:%[0-9]+]] = air.sum [[V10]] {axes = array<i64: 0>} : tensor<3x4xf64> -> tensor<4xf64>
// CHECK-NEXT: return [[V11]], [[V8]] : tensor<4xf64>, tensor<3x1xf64>
func.func private @bcast(%a: tensor<3x4xf64>, %b: tensor<4xf64>, %c: tensor<3x1xf64>) -> tensor<f64> {
  %0 = air.mul %a, %b : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %1 = air.add %0, %c : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
  %2 = air.sum %1 : tensor<3x4xf64> -> tensor<f64>
  return %2 : tensor<f64>
}
func.func @dbcast(%a: tensor<3x4xf64>, %b: tensor<4xf64>, %c: tensor<3x1xf64>) -> (tensor<4xf64>, tensor<3x1xf64>) {
  %g:2 = air.grad @bcast(%a, %b, %c) {wrt = array<i64: 1, 2>} : (tensor<3x4xf64>, tensor<4xf64>, tensor<3x1xf64>) -> (tensor<4xf64>, tensor<3x1xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<3x1xf64>
}
// -----
// CHECK-LABEL: func.func private @select_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.gt %arg0, %arg1 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xi1>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.select [[V0]], %arg0, %arg1 : (tensor<3x4xi1>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.sum [[V1]] : tensor<3x4xf64> -> tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.select [[V0]], [[V3]], [[V4]] : (tensor<3x4xi1>, tensor<f64>, tensor<f64>) -> tensor<3x4xf64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.select [[V0]], [[V4]], [[V3]] : (tensor<3x4xi1>, tensor<f64>, tensor<f64>) -> tensor<3x4xf64>
// CHECK-NEXT: return [[V5]], [[V6]] : tensor<3x4xf64>, tensor<3x4xf64>
func.func private @select(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> tensor<f64> {
  %c = air.gt %a, %b : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xi1>
  %0 = air.select %c, %a, %b : (tensor<3x4xi1>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %1 = air.sum %0 : tensor<3x4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dselect(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = air.grad @select(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// -----
// CHECK-LABEL: func.func private @cast_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.cast %arg0 to f64 : tensor<4xf32> -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.cast [[V2]] to f32 : tensor<f64> -> tensor<f32>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.broadcast [[V3]] : tensor<f32> -> tensor<4xf32>
// CHECK-NEXT: return [[V4]] : tensor<4xf32>
func.func private @cast(%a: tensor<4xf32>) -> tensor<f64> {
  %0 = air.cast %a to f64 : tensor<4xf32> -> tensor<4xf64>
  %1 = air.sum %0 : tensor<4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dcast(%a: tensor<4xf32>) -> (tensor<4xf32>) {
  %g:1 = air.grad @cast(%a) {wrt = array<i64: 0>} : (tensor<4xf32>) -> (tensor<4xf32>)
  return %g#0 : tensor<4xf32>
}
// -----
// CHECK-LABEL: func.func private @sum_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.sum %arg0 {axes = array<i64: 1>} : tensor<3x4xf64> -> tensor<3xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.mul [[V0]], [[V0]] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.sum [[V1]] : tensor<3xf64> -> tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.mul [[V3]], [[V0]] : (tensor<f64>, tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.mul [[V3]], [[V0]] : (tensor<f64>, tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.add [[V4]], [[V5]] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.reshape [[V6]] {shape = array<i64: 3, 1>} : tensor<3xf64> -> tensor<3x1xf64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.broadcast [[V7]] : tensor<3x1xf64> -> tensor<3x4xf64>
// CHECK-NEXT: return [[V8]] : tensor<3x4xf64>
func.func private @sum(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = air.sum %a {axes = array<i64: 1>} : tensor<3x4xf64> -> tensor<3xf64>
  %1 = air.mul %0, %0 : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %2 = air.sum %1 : tensor<3xf64> -> tensor<f64>
  return %2 : tensor<f64>
}
func.func @dsum(%a: tensor<3x4xf64>) -> (tensor<3x4xf64>) {
  %g:1 = air.grad @sum(%a) {wrt = array<i64: 0>} : (tensor<3x4xf64>) -> (tensor<3x4xf64>)
  return %g#0 : tensor<3x4xf64>
}
// -----
// CHECK-LABEL: func.func private @mean_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.mean %arg0 {axes = array<i64: 0>} : tensor<3x4xf64> -> tensor<4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.mul [[V0]], [[V0]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.sum [[V1]] : tensor<4xf64> -> tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.mul [[V3]], [[V0]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.mul [[V3]], [[V0]] : (tensor<f64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.add [[V4]], [[V5]] : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.constant dense<3.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.div [[V6]], [[V7]] : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
// CHECK-NEXT: [[V9:%[0-9]+]] = air.broadcast [[V8]] : tensor<4xf64> -> tensor<3x4xf64>
// CHECK-NEXT: return [[V9]] : tensor<3x4xf64>
func.func private @mean(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = air.mean %a {axes = array<i64: 0>} : tensor<3x4xf64> -> tensor<4xf64>
  %1 = air.mul %0, %0 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %2 = air.sum %1 : tensor<4xf64> -> tensor<f64>
  return %2 : tensor<f64>
}
func.func @dmean(%a: tensor<3x4xf64>) -> (tensor<3x4xf64>) {
  %g:1 = air.grad @mean(%a) {wrt = array<i64: 0>} : (tensor<3x4xf64>) -> (tensor<3x4xf64>)
  return %g#0 : tensor<3x4xf64>
}
// -----
// CHECK-LABEL: func.func private @rmax_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.reduce_max %arg0 {axes = array<i64: 1>} : tensor<3x4xf64> -> tensor<3xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<3xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.broadcast [[V2]] : tensor<f64> -> tensor<3xf64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.reshape [[V0]] {shape = array<i64: 3, 1>} : tensor<3xf64> -> tensor<3x1xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.eq %arg0, [[V4]] : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xi1>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.cast [[V5]] to f64 : tensor<3x4xi1> -> tensor<3x4xf64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.sum [[V6]] {axes = array<i64: 1>} : tensor<3x4xf64> -> tensor<3xf64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.div [[V3]], [[V7]] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT: [[V9:%[0-9]+]] = air.reshape [[V8]] {shape = array<i64: 3, 1>} : tensor<3xf64> -> tensor<3x1xf64>
// CHECK-NEXT: [[V10:%[0-9]+]] = air.mul [[V6]], [[V9]] : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: return [[V10]] : tensor<3x4xf64>
func.func private @rmax(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = air.reduce_max %a {axes = array<i64: 1>} : tensor<3x4xf64> -> tensor<3xf64>
  %1 = air.sum %0 : tensor<3xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @drmax(%a: tensor<3x4xf64>) -> (tensor<3x4xf64>) {
  %g:1 = air.grad @rmax(%a) {wrt = array<i64: 0>} : (tensor<3x4xf64>) -> (tensor<3x4xf64>)
  return %g#0 : tensor<3x4xf64>
}
// -----
// CHECK-LABEL: func.func private @rmin_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.reduce_min %arg0 : tensor<3x4xf64> -> tensor<f64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.eq %arg0, [[V0]] : (tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xi1>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.cast [[V2]] to f64 : tensor<3x4xi1> -> tensor<3x4xf64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.sum [[V3]] : tensor<3x4xf64> -> tensor<f64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.div [[V1]], [[V4]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.mul [[V3]], [[V5]] : (tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xf64>
// CHECK-NEXT: return [[V6]] : tensor<3x4xf64>
func.func private @rmin(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = air.reduce_min %a : tensor<3x4xf64> -> tensor<f64>
  return %0 : tensor<f64>
}
func.func @drmin(%a: tensor<3x4xf64>) -> (tensor<3x4xf64>) {
  %g:1 = air.grad @rmin(%a) {wrt = array<i64: 0>} : (tensor<3x4xf64>) -> (tensor<3x4xf64>)
  return %g#0 : tensor<3x4xf64>
}
// -----
// CHECK-LABEL: func.func private @matmul_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.matmul %arg0, %arg1 : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<3x2xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.broadcast [[V2]] : tensor<f64> -> tensor<3x2xf64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.transpose %arg1 {perm = array<i64: 1, 0>} : tensor<4x2xf64> -> tensor<2x4xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.matmul [[V3]], [[V4]] : (tensor<3x2xf64>, tensor<2x4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.transpose %arg0 {perm = array<i64: 1, 0>} : tensor<3x4xf64> -> tensor<4x3xf64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.matmul [[V6]], [[V3]] : (tensor<4x3xf64>, tensor<3x2xf64>) -> tensor<4x2xf64>
// CHECK-NEXT: return [[V5]], [[V7]] : tensor<3x4xf64>, tensor<4x2xf64>
func.func private @matmul(%a: tensor<3x4xf64>, %b: tensor<4x2xf64>) -> tensor<f64> {
  %0 = air.matmul %a, %b : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>
  %1 = air.sum %0 : tensor<3x2xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dmatmul(%a: tensor<3x4xf64>, %b: tensor<4x2xf64>) -> (tensor<3x4xf64>, tensor<4x2xf64>) {
  %g:2 = air.grad @matmul(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<3x4xf64>, tensor<4x2xf64>) -> (tensor<3x4xf64>, tensor<4x2xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<4x2xf64>
}
// -----
// CHECK-LABEL: func.func private @conv_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.conv1d %arg0, %arg1 {stride = 2 : i64} : (tensor<10x2xf64>, tensor<3x2x4xf64>) -> tensor<4x4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<4x4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.broadcast [[V2]] : tensor<f64> -> tensor<4x4xf64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.conv1d_input_grad [[V3]], %arg1, %arg0 {stride = 2 : i64} : (tensor<4x4xf64>, tensor<3x2x4xf64>, tensor<10x2xf64>) -> tensor<10x2xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.conv1d_filter_grad %arg0, [[V3]], %arg1 {stride = 2 : i64} : (tensor<10x2xf64>, tensor<4x4xf64>, tensor<3x2x4xf64>) -> tensor<3x2x4xf64>
// CHECK-NEXT: return [[V4]], [[V5]] : tensor<10x2xf64>, tensor<3x2x4xf64>
func.func private @conv(%x: tensor<10x2xf64>, %w: tensor<3x2x4xf64>) -> tensor<f64> {
  %0 = air.conv1d %x, %w {stride = 2 : i64} : (tensor<10x2xf64>, tensor<3x2x4xf64>) -> tensor<4x4xf64>
  %1 = air.sum %0 : tensor<4x4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dconv(%x: tensor<10x2xf64>, %w: tensor<3x2x4xf64>) -> (tensor<10x2xf64>, tensor<3x2x4xf64>) {
  %g:2 = air.grad @conv(%x, %w) {wrt = array<i64: 0, 1>} : (tensor<10x2xf64>, tensor<3x2x4xf64>) -> (tensor<10x2xf64>, tensor<3x2x4xf64>)
  return %g#0, %g#1 : tensor<10x2xf64>, tensor<3x2x4xf64>
}
// -----
// CHECK-LABEL: func.func private @reshape_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.reshape %arg0 {shape = array<i64: 2, 6>} : tensor<3x4xf64> -> tensor<2x6xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.reduce_max [[V0]] : tensor<2x6xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.eq [[V0]], [[V1]] : (tensor<2x6xf64>, tensor<f64>) -> tensor<2x6xi1>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.cast [[V3]] to f64 : tensor<2x6xi1> -> tensor<2x6xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.sum [[V4]] : tensor<2x6xf64> -> tensor<f64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.div [[V2]], [[V5]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.mul [[V4]], [[V6]] : (tensor<2x6xf64>, tensor<f64>) -> tensor<2x6xf64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.reshape [[V7]] {shape = array<i64: 3, 4>} : tensor<2x6xf64> -> tensor<3x4xf64>
// CHECK-NEXT: return [[V8]] : tensor<3x4xf64>
func.func private @reshape(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = air.reshape %a {shape = array<i64: 2, 6>} : tensor<3x4xf64> -> tensor<2x6xf64>
  %1 = air.reduce_max %0 : tensor<2x6xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dreshape(%a: tensor<3x4xf64>) -> (tensor<3x4xf64>) {
  %g:1 = air.grad @reshape(%a) {wrt = array<i64: 0>} : (tensor<3x4xf64>) -> (tensor<3x4xf64>)
  return %g#0 : tensor<3x4xf64>
}
// -----
// CHECK-LABEL: func.func private @transpose_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.transpose %arg0 {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.reduce_max [[V0]] : tensor<4x2x3xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.eq [[V0]], [[V1]] : (tensor<4x2x3xf64>, tensor<f64>) -> tensor<4x2x3xi1>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.cast [[V3]] to f64 : tensor<4x2x3xi1> -> tensor<4x2x3xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.sum [[V4]] : tensor<4x2x3xf64> -> tensor<f64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.div [[V2]], [[V5]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.mul [[V4]], [[V6]] : (tensor<4x2x3xf64>, tensor<f64>) -> tensor<4x2x3xf64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.transpose [[V7]] {perm = array<i64: 1, 2, 0>} : tensor<4x2x3xf64> -> tensor<2x3x4xf64>
// CHECK-NEXT: return [[V8]] : tensor<2x3x4xf64>
func.func private @transpose(%a: tensor<2x3x4xf64>) -> tensor<f64> {
  %0 = air.transpose %a {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
  %1 = air.reduce_max %0 : tensor<4x2x3xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dtranspose(%a: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>) {
  %g:1 = air.grad @transpose(%a) {wrt = array<i64: 0>} : (tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>)
  return %g#0 : tensor<2x3x4xf64>
}
// -----
// CHECK-LABEL: func.func private @tuple_grad_0_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.make_tuple %arg0, %arg1 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tuple<tensor<3x4xf64>, tensor<3x4xf64>>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.get [[V0]][1] : tuple<tensor<3x4xf64>, tensor<3x4xf64>> -> tensor<3x4xf64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.sum [[V1]] : tensor<3x4xf64> -> tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.broadcast [[V3]] : tensor<f64> -> tensor<3x4xf64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.get [[V0]][0] : tuple<tensor<3x4xf64>, tensor<3x4xf64>> -> tensor<3x4xf64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.broadcast [[V6]] : tensor<f64> -> tensor<3x4xf64>
// CHECK-NEXT: [[V8:%[0-9]+]] = air.make_tuple [[V7]], [[V4]] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tuple<tensor<3x4xf64>, tensor<3x4xf64>>
// CHECK-NEXT: [[V9:%[0-9]+]] = air.get [[V8]][0] : tuple<tensor<3x4xf64>, tensor<3x4xf64>> -> tensor<3x4xf64>
// CHECK-NEXT: [[V10:%[0-9]+]] = air.get [[V8]][1] : tuple<tensor<3x4xf64>, tensor<3x4xf64>> -> tensor<3x4xf64>
// CHECK-NEXT: return [[V9]], [[V10]] : tensor<3x4xf64>, tensor<3x4xf64>
func.func private @tuple(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> tensor<f64> {
  %t = air.make_tuple %a, %b : (tensor<3x4xf64>, tensor<3x4xf64>) -> tuple<tensor<3x4xf64>, tensor<3x4xf64>>
  %0 = air.get %t[1] : tuple<tensor<3x4xf64>, tensor<3x4xf64>> -> tensor<3x4xf64>
  %1 = air.sum %0 : tensor<3x4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dtuple(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = air.grad @tuple(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// -----
// CHECK-LABEL: func.func private @callee_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.exp %arg0 : tensor<3x4xf64> -> tensor<3x4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<3x4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.mul [[V2]], [[V0]] : (tensor<f64>, tensor<3x4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: return [[V3]] : tensor<3x4xf64>
// CHECK-LABEL: func.func private @caller_grad_0(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.exp %arg0 : tensor<3x4xf64> -> tensor<3x4xf64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.sum [[V0]] : tensor<3x4xf64> -> tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.mul [[V1]], [[V1]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V4:%[0-9]+]] = air.mul [[V3]], [[V1]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT: [[V5:%[0-9]+]] = air.mul [[V3]], [[V1]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT: [[V6:%[0-9]+]] = air.add [[V4]], [[V5]] : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT: [[V7:%[0-9]+]] = air.mul [[V6]], [[V0]] : (tensor<f64>, tensor<3x4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: return [[V7]] : tensor<3x4xf64>
func.func private @callee(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = air.exp %a : tensor<3x4xf64> -> tensor<3x4xf64>
  %1 = air.sum %0 : tensor<3x4xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dcallee(%a: tensor<3x4xf64>) -> (tensor<3x4xf64>) {
  %g:1 = air.grad @callee(%a) {wrt = array<i64: 0>} : (tensor<3x4xf64>) -> (tensor<3x4xf64>)
  return %g#0 : tensor<3x4xf64>
}
func.func private @caller(%a: tensor<3x4xf64>) -> tensor<f64> {
  %0 = air.call @callee(%a) : (tensor<3x4xf64>) -> tensor<f64>
  %1 = air.mul %0, %0 : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %1 : tensor<f64>
}
func.func @dcaller(%a: tensor<3x4xf64>) -> (tensor<3x4xf64>) {
  %g:1 = air.grad @caller(%a) {wrt = array<i64: 0>} : (tensor<3x4xf64>) -> (tensor<3x4xf64>)
  return %g#0 : tensor<3x4xf64>
}
// -----
// CHECK-LABEL: func.func private @unused_grad_1(
// CHECK-NEXT: [[V0:%[0-9]+]] = air.sum %arg0 : tensor<3x4xf64> -> tensor<f64>
// CHECK-NEXT: [[V1:%[0-9]+]] = air.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V2:%[0-9]+]] = air.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: [[V3:%[0-9]+]] = air.broadcast [[V2]] : tensor<f64> -> tensor<3x4xf64>
// CHECK-NEXT: return [[V3]] : tensor<3x4xf64>
func.func private @unused(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> tensor<f64> {
  %0 = air.sum %a : tensor<3x4xf64> -> tensor<f64>
  return %0 : tensor<f64>
}
func.func @dunused(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>) -> (tensor<3x4xf64>) {
  %g:1 = air.grad @unused(%a, %b) {wrt = array<i64: 1>} : (tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>)
  return %g#0 : tensor<3x4xf64>
}
