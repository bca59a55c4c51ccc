// RUN: unum-opt %s --convert-nn-to-rtl -split-input-file -verify-diagnostics

// A flatten keeps the beats of the layer before it (4 beats of 2 values):
// the other operand is one beat of 8, so the streams do not line up.
!q = !nn.fixed<8, 4>
nn.model @add_after_flatten {
  %0 = nn.input "x" : tensor<4x2x!q>
  %1 = nn.flatten "f" %0 : tensor<4x2x!q> -> tensor<1x8x!q>
  %2 = nn.linear "l" %1 {weight = dense<1> : tensor<8x8xi32>, acc_bits = 20, rounding = "nearest"} : tensor<1x8x!q> -> tensor<1x8x!q>
  // expected-error @+1 {{operands arrive as 4 beats of 2 and 1 beats of 8 values (a flatten keeps the beats of the layer before it): the hardware cannot add them}}
  %3 = nn.add "r" %1, %2 : tensor<1x8x!q>, tensor<1x8x!q> -> tensor<1x8x!q>
  nn.output "y" %3 : tensor<1x8x!q>
}

// -----

!q = !nn.fixed<8, 4>
nn.model @concat_after_flatten {
  %0 = nn.input "x" : tensor<4x2x!q>
  %1 = nn.flatten "f" %0 : tensor<4x2x!q> -> tensor<1x8x!q>
  // expected-error @+1 {{operand 0 arrives as 4 beats, not one per position (after a flatten): the hardware cannot concatenate its channels}}
  %2 = nn.concat "k" "channels" %1, %1 : tensor<1x8x!q>, tensor<1x8x!q> -> tensor<1x16x!q>
  nn.output "y" %2 : tensor<1x16x!q>
}
