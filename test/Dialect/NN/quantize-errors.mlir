// RUN: unum-opt %s -split-input-file --nn-quantize="total-bits=8 frac-bits=4" -verify-diagnostics
// RUN: not unum-opt %s --nn-quantize="total-bits=8 frac-bits=8" 2>&1 | FileCheck %s --check-prefix=BITS
// RUN: not unum-opt %s --nn-quantize="rounding=up" 2>&1 | FileCheck %s --check-prefix=ROUND

// BITS: total-bits must be 2 to 16 and frac-bits 1 to total-bits - 1, got total-bits=8 frac-bits=8
// ROUND: rounding must be truncate, nearest or half_even (AP_TRN, AP_RND, AP_RND_CONV), got 'up'
nn.model @unfolded {
  %0 = nn.input "x" : tensor<4x1xf32>
  %1 = nn.linear "fc" %0 {weight = dense<1.0> : tensor<1x1xf64>} : tensor<4x1xf32> -> tensor<4x1xf32>
  // expected-error @+1 {{must be folded before quantisation (run nn-fold-batchnorm)}}
  %2 = nn.batchnorm "bn" %1 {gamma = dense<1.0> : tensor<1xf64>, beta = dense<0.0> : tensor<1xf64>, mean = dense<0.0> : tensor<1xf64>, variance = dense<1.0> : tensor<1xf64>, eps = 1.0e-5} : tensor<4x1xf32> -> tensor<4x1xf32>
  nn.output "y" %2 : tensor<4x1xf32>
}

// -----

nn.model @collapsing_bounds {
  %0 = nn.input "x" : tensor<4x1xf32>
  // expected-error @+1 {{bounds become 0 and 0 at 4 fraction bits: min must stay below max}}
  %1 = nn.hardtanh "t" %0 {min_val = 0.01, max_val = 0.02} : tensor<4x1xf32> -> tensor<4x1xf32>
  nn.output "y" %1 : tensor<4x1xf32>
}
