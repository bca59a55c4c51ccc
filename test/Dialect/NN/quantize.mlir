// RUN: unum-opt %s --nn-quantize="total-bits=8 frac-bits=4" | FileCheck %s
// RUN: unum-opt %s --nn-quantize="total-bits=8 frac-bits=4 rounding=truncate" | FileCheck %s --check-prefix=TRUNC

// Constants round to nearest with ties away from zero (0.03125 = half an
// LSB -> 1, -0.03125 -> -1) and saturate (100 -> 127, -100 -> -128); biases
// get 2F = 8 fraction bits and N + F = 12 bits (0.5 -> 128, 9 -> 2047).
// The accumulator holds 2N + ceil(log2(R + 1)) bits: R = 3 products -> 18.
// CHECK-LABEL: nn.model @constants
// CHECK: nn.input "x" : tensor<4x1x!nn.fixed<8, 4>>
// CHECK: nn.conv1d "c" %{{.*}} {acc_bits = 18 : i64, bias = dense<[128, 2047]> : tensor<2xi64>
// CHECK-SAME: padding_value = -8 : i64, rounding = "nearest"
// CHECK-SAME: weight = dense<{{\[\[\[}}1, -1, 127]], {{\[\[}}-128, 24, 0]]]> : tensor<2x1x3xi32>
// CHECK-SAME: -> tensor<4x2x!nn.fixed<8, 4>>
// CHECK: nn.hardtanh "t" %{{.*}} {max_val = 12 : i64, min_val = -4 : i64}
// CHECK: nn.hardsigmoid "s" %{{.*}} {rounding = "nearest", slope = 3 : i64}
// TRUNC: rounding = "truncate"
// TRUNC: nn.hardsigmoid "s" %{{.*}} {rounding = "truncate", slope = 3 : i64}
nn.model @constants {
  %0 = nn.input "x" : tensor<4x1xf32>
  %1 = nn.conv1d "c" %0 {weight = dense<[[[0.03125, -0.03125, 100.0]], [[-100.0, 1.5, 0.0]]]> : tensor<2x1x3xf64>, bias = dense<[0.5, 9.0]> : tensor<2xf64>, stride = 1, pad_lo = 1, pad_hi = 1, padding_value = -0.5, groups = 1} : tensor<4x1xf32> -> tensor<4x2xf32>
  %2 = nn.hardtanh "t" %1 {min_val = -0.25, max_val = 0.75} : tensor<4x2xf32> -> tensor<4x2xf32>
  %3 = nn.hardsigmoid "s" %2 : tensor<4x2xf32> -> tensor<4x2xf32>
  nn.output "y" %3 : tensor<4x2xf32>
}
