// RUN: unum-opt %s --convert-air-to-linalg="destination-passing=false" | FileCheck %s

// A multi-result air.fused (air-fuse's multi-output fusion) is one loop nest:
// one linalg.generic reading a and b once, writing both arrays and
// accumulating the f32 sum in f64 (rounded once after the loop).
// CHECK-LABEL: func.func @value_and_grad
// CHECK: %[[G:.*]]:3 = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[SCALAR:.*]], #{{.*}}, #{{.*}}], iterator_types = ["reduction"]} ins(%{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<f64>, tensor<?xf32>, tensor<?xf32>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.extf
// CHECK: arith.addf {{.*}} fastmath<reassoc> : f64
// CHECK: arith.addf {{.*}} : f32
// CHECK: arith.negf
// CHECK: linalg.yield
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic {{.*}}tensor<?xf32>
// CHECK: return
func.func @value_and_grad(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>, tensor<?xf32>) {
  %0:3 = air.fused(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
    %1 = air.sub %x, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %2 = air.mul %1, %1 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %3 = air.sum %2 : tensor<?xf32> -> tensor<f32>
    %4 = air.add %1, %1 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %5 = air.neg %4 : tensor<?xf32> -> tensor<?xf32>
    air.yield %3, %4, %5 : tensor<f32>, tensor<?xf32>, tensor<?xf32>
  }
  return %0#0, %0#1, %0#2 : tensor<f32>, tensor<?xf32>, tensor<?xf32>
}
