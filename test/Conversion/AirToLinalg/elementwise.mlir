// RUN: unum-opt %s --convert-air-to-linalg | FileCheck %s
// RUN: unum-opt %s --convert-air-to-linalg="destination-passing=false" | FileCheck %s --check-prefix=TENSOR

// A fused group is one generic; broadcasting is an indexing map, a scalar
// constant is an arith.constant in the body.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[STRETCH:.*]] = affine_map<(d0, d1) -> (0, d1)>
// The public function is the ABI entry (abi-entry.mlir); the kernel body
// reads contiguous memrefs and writes its noalias out-parameter.
// CHECK-LABEL: func.func @fused
// CHECK-SAME: -> i32 attributes {llvm.emit_c_interface}
// CHECK: func.call @__unum_air_fused
// CHECK-LABEL: func.func private @__unum_air_fused
// CHECK-SAME: (%[[AM:.*]]: memref<?x3xf32, strided<[3, 1], offset: ?>>, %[[BM:.*]]: memref<3xf32, strided<[1], offset: ?>>, %[[OUT:.*]]: memref<?x3xf32, strided<[3, 1], offset: ?>> {air.name = "result0", llvm.noalias})
// CHECK: %[[A:.*]] = bufferization.to_tensor %[[AM]] restrict
// CHECK: %[[B:.*]] = bufferization.to_tensor %[[BM]] restrict
// CHECK: %[[N:.*]] = tensor.dim %[[A]], %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<?x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<?x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[M:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK:   %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:   %[[S:.*]] = arith.addf %[[M]], %[[TWO]] : f32
// CHECK:   linalg.yield %[[S]] : f32
// CHECK: bufferization.materialize_in_destination %[[G]] in restrict writable %[[OUT]]
// CHECK: return
// TENSOR-LABEL: func.func @fused
// TENSOR-SAME: -> tensor<?x3xf32>
// TENSOR-NOT: materialize_in_destination
func.func @fused(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = air.fused(%a, %b) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32> {
  ^bb0(%x: tensor<?x3xf32>, %y: tensor<3xf32>):
    %yb = air.broadcast %y : tensor<3xf32> -> tensor<?x3xf32>
    %m = air.mul %x, %yb : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %two = air.constant dense<2.0> : tensor<f32>
    %s = air.add %m, %two : (tensor<?x3xf32>, tensor<f32>) -> tensor<?x3xf32>
    air.yield %s : tensor<?x3xf32>
  }
  return %0 : tensor<?x3xf32>
}

// A stretched size-1 dimension reads index 0; integer kernels use arith's
// signed integer ops; comparisons give i1 and select picks.
// CHECK-LABEL: func.func @ints
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[STRETCH]], #[[ID]]]
// CHECK: arith.cmpi slt
// CHECK: arith.divsi
// CHECK: arith.select
func.func @ints(%a: tensor<4x5xi32>, %b: tensor<1x5xi32>) -> tensor<4x5xi32> {
  %lt = air.lt %a, %b : (tensor<4x5xi32>, tensor<1x5xi32>) -> tensor<4x5xi1>
  %q = air.div %a, %b : (tensor<4x5xi32>, tensor<1x5xi32>) -> tensor<4x5xi32>
  %0 = air.fused(%lt, %q, %a) : (tensor<4x5xi1>, tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32> {
  ^bb0(%c: tensor<4x5xi1>, %x: tensor<4x5xi32>, %y: tensor<4x5xi32>):
    %s = air.select %c, %x, %y : (tensor<4x5xi1>, tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>
    air.yield %s : tensor<4x5xi32>
  }
  return %0 : tensor<4x5xi32>
}

// tanh and sigmoid on f32 run in f64 and round once (1 ulp).
// CHECK-LABEL: func.func @transcendental
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.tanh %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @transcendental(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = air.tanh %a : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// Generic templates are dropped: only their specialisations run.
// CHECK-NOT: func.func @template
func.func @template(%a: !air.generic) -> !air.generic {
  return %a : !air.generic
}
