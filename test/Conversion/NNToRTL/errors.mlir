// RUN: unum-opt %s --convert-nn-to-rtl -verify-diagnostics

// expected-error @+1 {{must be quantised first (nn-quantize)}}
nn.model @float {
  %0 = nn.input "x" : tensor<4x1xf32>
  nn.output "y" %0 : tensor<4x1xf32>
}
