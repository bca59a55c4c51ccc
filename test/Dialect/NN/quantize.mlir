// RUN: unum-opt %s --nn-quantize="total-bits=8 frac-bits=4" | FileCheck %s
// RUN: unum-opt %s --nn-quantize="total-bits=8 frac-bits=4 rounding=truncate" | FileCheck %s --check-prefix=TRUNC
// RUN: unum-opt %s --nn-quantize="total-bits=8 frac-bits=4" 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// RUN: unum-opt %s --nn-quantize="total-bits=8 frac-bits=4 rounding=AP_RND_CONV overflow=AP_WRAP policy=weights" | FileCheck %s --check-prefix=POLICY
// A model-wide wrap does not apply to hardsigmoid (it saturates): a warning
// located at each hardsigmoid says so.
// RUN: unum-opt %s --nn-quantize="total-bits=8 frac-bits=4 overflow=wrap" 2>&1 >/dev/null | FileCheck %s --check-prefix=WRAPWARN
// WRAPWARN: quantize.mlir:[[# @LINE + 34]]:8: warning: hardsigmoid 's' saturates its result (clamped to [0, 1]): the model-wide overflow=wrap does not apply to it

// Constants round to nearest with ties away from zero (0.03125 = half an
// LSB -> 1, -0.03125 -> -1) and saturate (100 -> 127, -100 -> -128); biases
// get 2F = 8 fraction bits and 2N - 1 = 15 bits (0.5 -> 128, 200 -> 16383).
// Saturated weights and biases are reported, naming the layer.
// The accumulator holds 2N + ceil(log2(R + 1)) bits: R = 3 products -> 18.
// CHECK-LABEL: nn.model @constants
// CHECK: nn.input "x" : tensor<4x1x!nn.fixed<8, 4>>
// CHECK: nn.conv1d "c" %{{.*}} {acc_bits = 18 : i64, bias = dense<[128, 16383]> : tensor<2xi64>
// CHECK-SAME: padding_value = -8 : i64, rounding = "nearest"
// CHECK-SAME: weight = dense<{{\[\[\[}}1, -1, 127]], {{\[\[}}-128, 24, 0]]]> : tensor<2x1x3xi32>
// CHECK-SAME: -> tensor<4x2x!nn.fixed<8, 4>>
// CHECK: nn.hardtanh "t" %{{.*}} {max_val = 12 : i64, min_val = -4 : i64}
// CHECK: nn.hardsigmoid "s" %{{.*}} {rounding = "nearest"}
// TRUNC: rounding = "truncate"
// TRUNC: nn.hardsigmoid "s" %{{.*}} {rounding = "truncate"}
// WARN: warning: layer 'c': 2 of 6 weights saturate at '!nn.fixed<8, 4>' (4 fraction bits; largest error 92.06)
// WARN: warning: layer 'c': 1 of 2 biases saturate at '!nn.fixed<15, 8>' (8 fraction bits; largest error 136)
// WARN-NOT: warning
// policy=weights: |w| <= 100 needs 8 integer bits of 8: still Q8.1 (100 ->
// 127 / 2 saturates, reported); the bias takes 1 + 4 = 5 fraction bits.
// POLICY-LABEL: nn.model @constants
// POLICY: nn.conv1d "c" %{{.*}} {acc_bits = 18 : i64, bias = dense<[16, 6400]>
// POLICY-SAME: overflow = "wrap", pad_hi = 1 : i64, pad_lo = 1 : i64, padding_value = -8 : i64, rounding = "half_even"
// POLICY-SAME: weight = dense<{{\[\[\[}}0, 0, 127]], {{\[\[}}-128, 3, 0]]]>
// POLICY-SAME: weight_format = !nn.fixed<8, 1>
// hardtanh cannot overflow; hardsigmoid saturates whatever the default
// POLICY: nn.hardtanh "t" %{{.*}} {max_val = 12 : i64, min_val = -4 : i64} :
// POLICY: nn.hardsigmoid "s" %{{.*}} {rounding = "half_even"}
nn.model @constants {
  %0 = nn.input "x" : tensor<4x1xf32>
  %1 = nn.conv1d "c" %0 {weight = dense<[[[0.03125, -0.03125, 100.0]], [[-100.0, 1.5, 0.0]]]> : tensor<2x1x3xf64>, bias = dense<[0.5, 200.0]> : tensor<2xf64>, stride = 1, pad_lo = 1, pad_hi = 1, padding_value = -0.5, groups = 1} : tensor<4x1xf32> -> tensor<4x2xf32>
  %2 = nn.hardtanh "t" %1 {min_val = -0.25, max_val = 0.75} : tensor<4x2xf32> -> tensor<4x2xf32>
  %3 = nn.hardsigmoid "s" %2 : tensor<4x2xf32> -> tensor<4x2xf32>
  nn.output "y" %3 : tensor<4x2xf32>
}

// Per-layer precision (what the JSON importer writes as nn.precision): the
// input in Q6.2, the linear with Q6.5 weights into Q10.6 (fraction 2 + 5 = 7
// >= 6) with a 24-bit accumulator, truncating and wrapping; the relu
// requantises Q10.6 to Q4.1 (a rounding is needed: 6 > 1).
// CHECK-LABEL: nn.model @per_layer
// CHECK: nn.input "x" : tensor<2x2x!nn.fixed<6, 2>>
// CHECK: nn.linear "l" %{{.*}} {acc_bits = 24 : i64, overflow = "wrap", rounding = "truncate", weight = dense<{{\[\[}}16, -8]]> : tensor<1x2xi32>, weight_format = !nn.fixed<6, 5>} : tensor<2x2x!nn.fixed<6, 2>> -> tensor<2x1x!nn.fixed<10, 6>>
// CHECK: nn.relu "r" %{{.*}} {rounding = "half_even"} : tensor<2x1x!nn.fixed<10, 6>> -> tensor<2x1x!nn.fixed<4, 1>>
// CHECK-NOT: nn.precision
nn.model @per_layer {
  %0 = nn.input "x" {nn.precision = {result = !nn.fixed<6, 2>}} : tensor<2x2xf32>
  %1 = nn.linear "l" %0 {weight = dense<[[0.5, -0.25]]> : tensor<1x2xf64>, nn.precision = {result = !nn.fixed<10, 6>, weight = !nn.fixed<6, 5>, accum = 24 : i64, rounding = "truncate", overflow = "wrap"}} : tensor<2x2xf32> -> tensor<2x1xf32>
  %2 = nn.relu "r" %1 {nn.precision = {result = !nn.fixed<4, 1>, rounding = "half_even"}} : tensor<2x1xf32> -> tensor<2x1xf32>
  nn.output "y" %2 : tensor<2x1xf32>
}
