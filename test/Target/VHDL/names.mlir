// RUN: unum-opt %s --convert-nn-to-rtl | unum-translate --to-vhdl | FileCheck %s

// A reserved word gets a suffix, characters VHDL does not allow become single
// underscores, a leading digit or underscore gets a letter in front, and
// names that differ only in case are made unique (VHDL ignores case).
// CHECK-DAG: -- file: signal_n_pkg.vhd
// CHECK-DAG: entity signal_n_1st_layer is
// CHECK-DAG: entity signal_n_conv is
// CHECK-DAG: entity signal_n_Conv_2 is
// CHECK-DAG: entity signal_n_a_b is
// CHECK-DAG: entity signal_n_x is
// CHECK-DAG: entity signal_n is
// CHECK-DAG: entity signal_n_tb is
// The stage called "end" cannot clash with the top because of the prefix.
// CHECK-DAG: entity signal_n_end is
!q = !nn.fixed<8, 4>
nn.model @signal {
  %0 = nn.input "x" : tensor<4x1x!q>
  %1 = nn.linear "1st-layer" %0 {weight = dense<16> : tensor<1x1xi32>, acc_bits = 17, rounding = "nearest"} : tensor<4x1x!q> -> tensor<4x1x!q>
  %2 = nn.relu "conv" %1 : tensor<4x1x!q> -> tensor<4x1x!q>
  %3 = nn.relu "Conv" %2 : tensor<4x1x!q> -> tensor<4x1x!q>
  %4 = nn.relu "a__b_" %3 : tensor<4x1x!q> -> tensor<4x1x!q>
  %5 = nn.hardtanh "_x" %4 {min_val = -8 : i64, max_val = 8 : i64} : tensor<4x1x!q> -> tensor<4x1x!q>
  %6 = nn.relu "end" %5 : tensor<4x1x!q> -> tensor<4x1x!q>
  nn.output "y" %6 : tensor<4x1x!q>
}
