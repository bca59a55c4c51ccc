// RUN: unum-opt %s --convert-nn-to-air -split-input-file -verify-diagnostics

// A quantised model is refused at its first fixed-point layer.
nn.model @q {
  // expected-error @+1 {{convert-nn-to-air: the model is quantised ('tensor<4x1x!nn.fixed<8, 4>>'); the CPU path takes the float model (before nn-quantize)}}
  %0 = nn.input "x" : tensor<4x1x!nn.fixed<8, 4>>
  nn.output "y" %0 : tensor<4x1x!nn.fixed<8, 4>>
}
