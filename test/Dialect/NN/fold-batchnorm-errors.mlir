// RUN: unum-opt %s --nn-fold-batchnorm -verify-diagnostics

// A batchnorm straight after the input has nothing to fold into.
nn.model @alone {
  %0 = nn.input "x" : tensor<4x1xf32>
  // expected-error @+1 {{has no conv1d or linear of its own to fold into}}
  %1 = nn.batchnorm "bn" %0 {gamma = dense<1.0> : tensor<1xf64>, beta = dense<0.0> : tensor<1xf64>, mean = dense<0.0> : tensor<1xf64>, variance = dense<1.0> : tensor<1xf64>, eps = 1.0e-5} : tensor<4x1xf32> -> tensor<4x1xf32>
  nn.output "y" %1 : tensor<4x1xf32>
}
