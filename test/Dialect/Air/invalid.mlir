// RUN: unum-opt %s -split-input-file -verify-diagnostics

func.func @shapes(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{kernel 'add': shapes [3] and [4] do not broadcast}}
  %0 = air.add %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dtypes(%a: tensor<3xf32>, %b: tensor<3xf64>) -> tensor<3xf32> {
  // expected-error @+1 {{kernel 'mul': dtypes f32[3] and f64[3] differ; insert a cast}}
  %0 = air.mul %a, %b : (tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @result(%a: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result type 'tensor<4xf32>' does not match the inferred 'tensor<3xf32>'}}
  %0 = air.neg %a : tensor<3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @float_only(%a: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{kernel 'exp' needs a floating-point operand, got i32[3]}}
  %0 = air.exp %a : tensor<3xi32> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @axis(%a: tensor<3x2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{kernel 'sum': axis 2 is out of range for f32[3, 2]}}
  %0 = air.sum %a {axes = array<i64: 2>} : tensor<3x2xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @matmul(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{kernel 'matmul': inner dimensions of f32[3, 2] and f32[3, 2] differ}}
  %0 = air.matmul %a, %b : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @conv(%x: tensor<2x3xf32>, %w: tensor<4x3x5xf32>) -> tensor<1x5xf32> {
  // expected-error @+1 {{kernel 'conv1d': the input is shorter (2) than the filter (4)}}
  %0 = air.conv1d %x, %w : (tensor<2x3xf32>, tensor<4x3x5xf32>) -> tensor<1x5xf32>
  return %0 : tensor<1x5xf32>
}

// -----

func.func @reshape(%x: tensor<6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{kernel 'reshape': f32[6] has 6 elements, [4] has 4}}
  %0 = air.reshape %x {shape = array<i64: 4>} : tensor<6xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{kernel 'transpose': [0, 0] is not a permutation of the axes}}
  %0 = air.transpose %x {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @select(%c: tensor<3xf32>, %a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{kernel 'select': the condition must be i1, got f32[3]}}
  %0 = air.select %c, %a, %a : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @get(%a: tensor<3xf32>) -> tensor<3xf32> {
  %t = air.make_tuple %a : (tensor<3xf32>) -> tuple<tensor<3xf32>>
  // expected-error @+1 {{kernel 'get': index 1 is out of range for a tuple of 1}}
  %0 = air.get %t[1] : tuple<tensor<3xf32>> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @callee(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
func.func @call(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'air.call' op argument 1 has type 'tensor<4xf32>', but 'callee' takes 'tensor<3xf32>'}}
  %0 = air.call @callee(%a) : (tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @fused(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'air.fused' op yields 'tensor<3xi1>' but returns 'tensor<3xf32>'}}
  %0 = air.fused(%a) : (tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%x: tensor<3xf32>):
    %c = air.eq %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    air.yield %c : tensor<3xi1>
  }
  return %0 : tensor<3xf32>
}

// -----

func.func @i1(%a: tensor<3xi1>) -> tensor<3xi1> {
  // expected-error @+1 {{kernel 'add' is arithmetic; i1 operands need a cast}}
  %0 = air.add %a, %a : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}
