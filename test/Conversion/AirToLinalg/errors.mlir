// RUN: unum-opt %s --convert-air-to-linalg -split-input-file -verify-diagnostics

// expected-error @+1 {{function 'f' passes (f32[], f32[]); only arrays cross function boundaries}}
func.func @f(%a: tensor<f32>) -> tuple<tensor<f32>, tensor<f32>> {
  %t = air.make_tuple %a, %a : (tensor<f32>, tensor<f32>) -> tuple<tensor<f32>, tensor<f32>>
  return %t : tuple<tensor<f32>, tensor<f32>>
}
