// RUN: unum-opt %s --air-monomorphize | FileCheck %s
// RUN: unum-opt %s --air-monomorphize="entry=main signature=f32[?],f32[]" | FileCheck %s --check-prefix=ENTRY
// RUN: not unum-opt %s --air-monomorphize="entry=main signature=f32[?]" 2>&1 | FileCheck %s --check-prefix=ARITY

// One clone per distinct argument type list, placed after the template.
// CHECK-DAG: func.func private @scale_f32_4_f32(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<f32>) -> tensor<4xf32>
// CHECK-DAG: func.func private @scale_f64_d_f64(%{{.*}}: tensor<?xf64>, %{{.*}}: tensor<f64>) -> tensor<?xf64>
// CHECK-LABEL: func.func @user
// CHECK: air.call @scale_f32_4_f32(%{{.*}}) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: air.call @scale_f64_d_f64(%{{.*}}) : (tensor<?xf64>, tensor<f64>) -> tensor<?xf64>
// CHECK: air.call @scale_f32_4_f32(%{{.*}}) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
func.func private @scale(%v: !air.generic, %k: !air.generic) -> !air.generic {
  %0 = air.mul %v, %k : (!air.generic, !air.generic) -> !air.generic
  return %0 : !air.generic
}
func.func @user(%a: tensor<4xf32>, %s: tensor<f32>, %b: tensor<?xf64>, %t: tensor<f64>) -> (!air.generic, !air.generic, !air.generic) {
  %0 = air.call @scale(%a, %s) : (tensor<4xf32>, tensor<f32>) -> !air.generic
  %1 = air.call @scale(%b, %t) : (tensor<?xf64>, tensor<f64>) -> !air.generic
  %2 = air.call @scale(%a, %s) : (tensor<4xf32>, tensor<f32>) -> !air.generic
  return %0, %1, %2 : !air.generic, !air.generic, !air.generic
}

// A generic public entry is specialised in place by entry/signature.
// The template, private and uncalled once @main is specialised, is removed.
// ENTRY-NOT: func.func private @scale(
// ENTRY-LABEL: func.func @main(%{{.*}}: tensor<?xf32>, %{{.*}}: tensor<f32>) -> tensor<?xf32>
// ENTRY: air.call @scale_f32_d_f32
// ARITY: error: air-monomorphize: 'main' takes 2 parameters, the signature gives 1
func.func @main(%x: !air.generic, %y: !air.generic) -> !air.generic {
  %0 = air.call @scale(%x, %y) : (!air.generic, !air.generic) -> !air.generic
  return %0 : !air.generic
}
