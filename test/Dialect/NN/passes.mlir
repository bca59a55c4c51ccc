// RUN: unum-opt %s -split-input-file --nn-dead-node-elim | FileCheck %s --check-prefix=DEAD
// RUN: unum-opt %s -split-input-file --nn-fold-batchnorm | FileCheck %s --check-prefix=FOLD

// A branch that never reaches the output, and a second input feeding it,
// are removed; the live chain is kept in order.
// DEAD-LABEL: nn.model @branches
// DEAD-NEXT: nn.input "x"
// DEAD-NEXT: nn.linear "fc"
// DEAD-NEXT: nn.output "y"
// DEAD-NOT: nn.
// FOLD-LABEL: nn.model @branches
nn.model @branches {
  %0 = nn.input "x" : tensor<4x2xf32>
  %z = nn.input "unused" : tensor<4x2xf32>
  %1 = nn.relu "dead1" %0 : tensor<4x2xf32> -> tensor<4x2xf32>
  %2 = nn.hardsigmoid "dead2" %1 : tensor<4x2xf32> -> tensor<4x2xf32>
  %3 = nn.relu "dead3" %z : tensor<4x2xf32> -> tensor<4x2xf32>
  %4 = nn.linear "fc" %0 {weight = dense<1.0> : tensor<1x2xf64>} : tensor<4x2xf32> -> tensor<4x1xf32>
  nn.output "y" %4 : tensor<4x1xf32>
}

// -----

// s = gamma / sqrt(var + eps) = 2 / sqrt(4) = 1 for channel 0 and
// 3 / sqrt(1) = 3 for channel 1: weights of channel 1 triple, bias
// (b - mean) * s + beta; a missing bias counts as 0.
// DEAD-LABEL: nn.model @fold
// FOLD-LABEL: nn.model @fold
// FOLD: nn.conv1d "c" %{{.*}} {bias = dense<[-5.000000e-01, -2.000000e+00]> : tensor<2xf64>
// FOLD-SAME: weight = dense<{{\[\[\[}}1.000000e+00, 2.000000e+00]], {{\[\[}}3.000000e+00, 6.000000e+00]]]>
// FOLD-NOT: nn.batchnorm
// FOLD: nn.output "y" %{{.*}} : tensor<3x2xf32>
nn.model @fold {
  %0 = nn.input "x" : tensor<4x1xf32>
  %1 = nn.conv1d "c" %0 {weight = dense<[[[1.0, 2.0]], [[1.0, 2.0]]]> : tensor<2x1x2xf64>, stride = 1, pad_lo = 0, pad_hi = 0, padding_value = 0.0, groups = 1} : tensor<4x1xf32> -> tensor<3x2xf32>
  %2 = nn.batchnorm "bn" %1 {gamma = dense<[2.0, 3.0]> : tensor<2xf64>, beta = dense<[0.5, 1.0]> : tensor<2xf64>, mean = dense<[1.0, 1.0]> : tensor<2xf64>, variance = dense<[4.0, 1.0]> : tensor<2xf64>, eps = 0.0} : tensor<3x2xf32> -> tensor<3x2xf32>
  nn.output "y" %2 : tensor<3x2xf32>
}
