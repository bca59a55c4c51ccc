// RUN: unum-opt %s --convert-air-to-linalg -split-input-file -verify-diagnostics

// expected-error @+1 {{function 'f' passes (f32[], f32[]); only arrays cross function boundaries}}
func.func @f(%a: tensor<f32>) -> tuple<tensor<f32>, tensor<f32>> {
  %t = air.make_tuple %a, %a : (tensor<f32>, tensor<f32>) -> tuple<tensor<f32>, tensor<f32>>
  return %t : tuple<tensor<f32>, tensor<f32>>
}

// -----

func.func @g(%a: tensor<?xf32>) -> tensor<2x?xf32> {
  // expected-error @+1 {{reshape to f32[2, ?] needs a static shape to lower}}
  %0 = air.reshape %a {shape = array<i64: 2, -1>} : tensor<?xf32> -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
