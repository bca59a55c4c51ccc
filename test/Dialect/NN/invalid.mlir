// RUN: unum-opt %s -split-input-file -verify-diagnostics

nn.model @wrong_length {
  %0 = nn.input "x" : tensor<8x2xf32>
  // expected-error @+1 {{result shape [8, 3] should be [6, 3]}}
  %1 = nn.conv1d "c" %0 {weight = dense<1.0> : tensor<3x2x3xf64>, stride = 1, pad_lo = 0, pad_hi = 0, padding_value = 0.0, groups = 1} : tensor<8x2xf32> -> tensor<8x3xf32>
  nn.output "y" %1 : tensor<8x3xf32>
}

// -----

nn.model @groups {
  %0 = nn.input "x" : tensor<8x3xf32>
  // expected-error @+1 {{groups 2 must divide the input channels 3 and the output channels 4}}
  %1 = nn.conv1d "c" %0 {weight = dense<1.0> : tensor<4x1x1xf64>, stride = 1, pad_lo = 0, pad_hi = 0, padding_value = 0.0, groups = 2} : tensor<8x3xf32> -> tensor<8x4xf32>
  nn.output "y" %1 : tensor<8x4xf32>
}

// -----

nn.model @narrow_accumulator {
  %0 = nn.input "x" : tensor<4x2x!nn.fixed<8, 4>>
  // expected-error @+1 {{needs an accumulator of at least 18 bits}}
  %1 = nn.linear "fc" %0 {weight = dense<1> : tensor<3x2xi32>, acc_bits = 17, rounding = "nearest"} : tensor<4x2x!nn.fixed<8, 4>> -> tensor<4x3x!nn.fixed<8, 4>>
  nn.output "y" %1 : tensor<4x3x!nn.fixed<8, 4>>
}

// -----

nn.model @weight_range {
  %0 = nn.input "x" : tensor<4x2x!nn.fixed<8, 4>>
  // expected-error @+1 {{weight value 128 does not fit 8 bits}}
  %1 = nn.linear "fc" %0 {weight = dense<128> : tensor<3x2xi32>, acc_bits = 18, rounding = "nearest"} : tensor<4x2x!nn.fixed<8, 4>> -> tensor<4x3x!nn.fixed<8, 4>>
  nn.output "y" %1 : tensor<4x3x!nn.fixed<8, 4>>
}

// -----

nn.model @mixed_types {
  %0 = nn.input "x" : tensor<4x2x!nn.fixed<8, 4>>
  // expected-error @+1 {{input and result are not both quantised}}
  %1 = nn.relu "r" %0 : tensor<4x2x!nn.fixed<8, 4>> -> tensor<4x2xf32>
  nn.output "y" %1 : tensor<4x2xf32>
}

// -----

nn.model @duplicate_names {
  // expected-note @+1 {{first used here}}
  %0 = nn.input "x" : tensor<4x2xf32>
  // expected-error @+1 {{layer name 'x' is already used}}
  %1 = nn.relu "x" %0 : tensor<4x2xf32> -> tensor<4x2xf32>
  nn.output "y" %1 : tensor<4x2xf32>
}

// -----

// expected-error @+1 {{needs exactly one nn.output, found 0}}
nn.model @no_output {
  %0 = nn.input "x" : tensor<4x2xf32>
}

// -----

nn.model @quantised_batchnorm {
  %0 = nn.input "x" : tensor<4x1x!nn.fixed<8, 4>>
  // expected-error @+1 {{cannot be quantised; fold it first}}
  %1 = nn.batchnorm "bn" %0 {gamma = dense<1.0> : tensor<1xf64>, beta = dense<0.0> : tensor<1xf64>, mean = dense<0.0> : tensor<1xf64>, variance = dense<1.0> : tensor<1xf64>, eps = 1.0e-5} : tensor<4x1x!nn.fixed<8, 4>> -> tensor<4x1x!nn.fixed<8, 4>>
  nn.output "y" %1 : tensor<4x1x!nn.fixed<8, 4>>
}

// -----

nn.model @wrapping_sigmoid {
  %0 = nn.input "x" : tensor<4x1x!nn.fixed<8, 4>>
  // expected-error @+1 {{saturates its result: overflow must be "saturate"}}
  %1 = nn.hardsigmoid "s" %0 {rounding = "nearest", overflow = "wrap"} : tensor<4x1x!nn.fixed<8, 4>> -> tensor<4x1x!nn.fixed<8, 4>>
  nn.output "y" %1 : tensor<4x1x!nn.fixed<8, 4>>
}

// -----

nn.model @unknown_rounding {
  %0 = nn.input "x" : tensor<4x1x!nn.fixed<8, 4>>
  // expected-error @+1 {{needs rounding = "truncate", "nearest" or "half_even"}}
  %1 = nn.relu "r" %0 {rounding = "up"} : tensor<4x1x!nn.fixed<8, 4>> -> tensor<4x1x!nn.fixed<8, 4>>
  nn.output "y" %1 : tensor<4x1x!nn.fixed<8, 4>>
}

// -----

nn.model @requantise_needs_rounding {
  %0 = nn.input "x" : tensor<4x1x!nn.fixed<8, 4>>
  // expected-error @+1 {{needs rounding = "truncate", "nearest" or "half_even"}}
  %1 = nn.relu "r" %0 : tensor<4x1x!nn.fixed<8, 4>> -> tensor<4x1x!nn.fixed<6, 2>>
  nn.output "y" %1 : tensor<4x1x!nn.fixed<6, 2>>
}

// -----

nn.model @unknown_overflow {
  %0 = nn.input "x" : tensor<4x1x!nn.fixed<8, 4>>
  // expected-error @+1 {{overflow must be "saturate" or "wrap"}}
  %1 = nn.relu "r" %0 {overflow = "clip"} : tensor<4x1x!nn.fixed<8, 4>> -> tensor<4x1x!nn.fixed<8, 4>>
  nn.output "y" %1 : tensor<4x1x!nn.fixed<8, 4>>
}

// -----

nn.model @fraction_beyond_products {
  %0 = nn.input "x" : tensor<1x1x!nn.fixed<8, 2>>
  // expected-error @+1 {{result fraction bits 7 exceed the product's 5 (input 2 + weight 3)}}
  %1 = nn.linear "l" %0 {weight = dense<1> : tensor<1x1xi32>, weight_format = !nn.fixed<8, 3>, acc_bits = 20, rounding = "nearest"} : tensor<1x1x!nn.fixed<8, 2>> -> tensor<1x1x!nn.fixed<8, 7>>
  nn.output "y" %1 : tensor<1x1x!nn.fixed<8, 7>>
}

// -----

nn.model @narrow_accumulator {
  %0 = nn.input "x" : tensor<1x1x!nn.fixed<8, 2>>
  // expected-error @+1 {{needs an accumulator of at least 23 bits}}
  %1 = nn.linear "l" %0 {weight = dense<1> : tensor<1x1xi32>, weight_format = !nn.fixed<14, 3>, acc_bits = 20, rounding = "nearest"} : tensor<1x1x!nn.fixed<8, 2>> -> tensor<1x1x!nn.fixed<8, 2>>
  nn.output "y" %1 : tensor<1x1x!nn.fixed<8, 2>>
}

// -----

nn.model @bad_type {
  // expected-error @+1 {{fraction bits must be 1 to width - 1, got 8}}
  %0 = nn.input "x" : tensor<1x1x!nn.fixed<8, 8>>
}

// -----

nn.model @add_shapes {
  %0 = nn.input "x" : tensor<8x2xf32>
  %1 = nn.input "z" : tensor<8x3xf32>
  // expected-error @+1 {{operands have different shapes [8, 2] and [8, 3]}}
  %2 = nn.add "r" %0, %1 : tensor<8x2xf32>, tensor<8x3xf32> -> tensor<8x2xf32>
  nn.output "y" %2 : tensor<8x2xf32>
}

// -----

nn.model @concat_one {
  %0 = nn.input "x" : tensor<8x2xf32>
  // expected-error @+1 {{needs at least 2 operands, got 1}}
  %1 = nn.concat "k" "channels" %0 : tensor<8x2xf32> -> tensor<8x2xf32>
  nn.output "y" %1 : tensor<8x2xf32>
}

// -----

nn.model @concat_result {
  %0 = nn.input "x" : tensor<8x2xf32>
  // expected-error @+1 {{result shape [8, 4] should be [16, 2]}}
  %1 = nn.concat "k" "length" %0, %0 : tensor<8x2xf32>, tensor<8x2xf32> -> tensor<8x4xf32>
  nn.output "y" %1 : tensor<8x4xf32>
}

// -----

nn.model @concat_lengths {
  %0 = nn.input "x" : tensor<8x2xf32>
  %1 = nn.input "z" : tensor<4x2xf32>
  // expected-error @+1 {{operands along channels need equal lengths, got [8, 2] and [4, 2]}}
  %2 = nn.concat "k" "channels" %0, %1 : tensor<8x2xf32>, tensor<4x2xf32> -> tensor<8x4xf32>
  nn.output "y" %2 : tensor<8x4xf32>
}

// -----

nn.model @concat_axis {
  %0 = nn.input "x" : tensor<8x2xf32>
  // expected-error @+1 {{axis must be "channels" or "length"}}
  %1 = nn.concat "k" "rows" %0, %0 : tensor<8x2xf32>, tensor<8x2xf32> -> tensor<8x4xf32>
  nn.output "y" %1 : tensor<8x4xf32>
}
