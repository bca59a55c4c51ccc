// RUN: unum-opt %s --air-infer -split-input-file -verify-diagnostics | FileCheck %s

// Types flow from typed parameters through kernels, weak literals and calls
// to typed callees; function results follow what is returned.
// CHECK-LABEL: func.func @callee(%{{.*}}: tensor<4x3xf64>) -> tensor<4xf64>
// CHECK: air.sum %{{.*}} {axes = array<i64: 1>} : tensor<4x3xf64> -> tensor<4xf64>
func.func @callee(%a: tensor<4x3xf64>) -> !air.generic {
  %0 = air.sum %a {axes = array<i64: 1>} : tensor<4x3xf64> -> !air.generic
  return %0 : !air.generic
}
// CHECK-LABEL: func.func @caller(%{{.*}}: tensor<4x3xf64>, %{{.*}}: tensor<3xf64>) -> tensor<4x3xi1>
// CHECK: %[[TWO:.*]] = air.constant dense<2.000000e+00> : tensor<f64>
// CHECK: air.mul %{{.*}}, %[[TWO]] : (tensor<4x3xf64>, tensor<f64>) -> tensor<4x3xf64>
// CHECK: air.call @callee(%{{.*}}) : (tensor<4x3xf64>) -> tensor<4xf64>
// CHECK: air.gt %{{.*}}, %{{.*}} : (tensor<4x3xf64>, tensor<3xf64>) -> tensor<4x3xi1>
func.func @caller(%a: tensor<4x3xf64>, %b: tensor<3xf64>) -> !air.generic {
  %two = air.literal 2.0
  %0 = air.mul %a, %two : (tensor<4x3xf64>, !air.generic) -> !air.generic
  %1 = air.call @callee(%0) : (!air.generic) -> !air.generic
  %2 = air.gt %0, %b : (!air.generic, tensor<3xf64>) -> !air.generic
  return %2 : !air.generic
}
// A generic function is left for air-monomorphize.
// CHECK-LABEL: func.func @template(%{{.*}}: !air.generic) -> !air.generic
// CHECK: air.neg %{{.*}} : !air.generic -> !air.generic
func.func @template(%a: !air.generic) -> !air.generic {
  %0 = air.neg %a : !air.generic -> !air.generic
  return %0 : !air.generic
}

// -----

func.func @mismatch(%a: tensor<2xi32>, %b: tensor<3xi32>) -> !air.generic {
  %0 = air.neg %a : tensor<2xi32> -> !air.generic
  // expected-error @+1 {{kernel 'sub': shapes [2] and [3] do not broadcast}}
  %1 = air.sub %0, %b : (!air.generic, tensor<3xi32>) -> !air.generic
  return %1 : !air.generic
}
