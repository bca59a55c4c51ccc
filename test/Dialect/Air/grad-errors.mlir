// What air.grad and air-grad refuse, each located.
// RUN: unum-opt --split-input-file --verify-diagnostics --air-grad %s

func.func private @f(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = air.sum %a : tensor<4xf64> -> tensor<f64>
  return %0 : tensor<f64>
}
func.func @wrt_out_of_range(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'wrt' entry 1 is out of range: 'f' has 1 parameters}}
  %g = air.grad @f(%a) {wrt = array<i64: 1>} : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}

// -----

func.func private @v(%a: tensor<4xf64>) -> tensor<4xf64> {
  return %a : tensor<4xf64>
}
func.func @not_a_scalar(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{differentiates 'v', which returns f64[4]; a gradient needs a floating-point scalar}}
  %g = air.grad @v(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}

// -----

func.func private @i(%a: tensor<4xf64>, %n: tensor<4xi32>) -> tensor<f64> {
  %0 = air.cast %n to f64 : tensor<4xi32> -> tensor<4xf64>
  %1 = air.mul %a, %0 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %2 = air.sum %1 : tensor<4xf64> -> tensor<f64>
  return %2 : tensor<f64>
}
func.func @integer_input(%a: tensor<4xf64>, %n: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{cannot differentiate 'i' with respect to parameter 1: it is i32[4]; only floating-point arrays have gradients}}
  %g = air.grad @i(%a, %n) {wrt = array<i64: 1>} : (tensor<4xf64>, tensor<4xi32>) -> tensor<4xi32>
  return %g : tensor<4xi32>
}

// -----

func.func private @c(%x: tensor<8x2xf64>, %w: tensor<3x2x2xf64>) -> tensor<f64> {
  // The adjoint kernels have the conv1d's location.
  // expected-error @+1 {{second derivatives of conv1d are not supported}}
  %0 = air.conv1d %x, %w : (tensor<8x2xf64>, tensor<3x2x2xf64>) -> tensor<6x2xf64>
  %1 = air.mul %0, %0 : (tensor<6x2xf64>, tensor<6x2xf64>) -> tensor<6x2xf64>
  %2 = air.sum %1 : tensor<6x2xf64> -> tensor<f64>
  return %2 : tensor<f64>
}
func.func private @dc(%x: tensor<8x2xf64>, %w: tensor<3x2x2xf64>) -> tensor<f64> {
  %g = air.grad @c(%x, %w) {wrt = array<i64: 1>} : (tensor<8x2xf64>, tensor<3x2x2xf64>) -> tensor<3x2x2xf64>
  %0 = air.sum %g : tensor<3x2x2xf64> -> tensor<f64>
  return %0 : tensor<f64>
}
func.func @second_derivative_of_conv1d(%x: tensor<8x2xf64>, %w: tensor<3x2x2xf64>) -> tensor<8x2xf64> {
  // expected-remark @+1 {{while differentiating 'dc' here}}
  %h = air.grad @dc(%x, %w) {wrt = array<i64: 0>} : (tensor<8x2xf64>, tensor<3x2x2xf64>) -> tensor<8x2xf64>
  return %h : tensor<8x2xf64>
}

// -----

// A function that differentiates itself would be inlined forever.
func.func private @self(%a: tensor<4xf64>) -> tensor<f64> {
  // expected-error @+2 {{air-grad: 'self' is recursive (self -> self); a recursive function cannot be differentiated}}
  // expected-note @+1 {{differentiated here}}
  %g = air.grad @self(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  %0 = air.sum %g : tensor<4xf64> -> tensor<f64>
  return %0 : tensor<f64>
}
func.func @grad_of_self(%a: tensor<4xf64>) -> tensor<4xf64> {
  %g = air.grad @self(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}

// -----

// Mutual recursion through calls, reached from the differentiated function.
func.func private @even(%a: tensor<4xf64>) -> tensor<f64> {
  %0 = air.call @odd(%a) : (tensor<4xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @odd(%a: tensor<4xf64>) -> tensor<f64> {
  // expected-error @+1 {{air-grad: 'even' is recursive (even -> odd -> even); a recursive function cannot be differentiated}}
  %0 = air.call @even(%a) : (tensor<4xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func @grad_of_even(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-note @+1 {{differentiated here}}
  %g = air.grad @even(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
