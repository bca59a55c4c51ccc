// RUN: unum-opt %s --convert-nn-to-rtl=parallelism=2 | FileCheck %s
// The printed rtl parses and verifies again.
// RUN: unum-opt %s --convert-nn-to-rtl=parallelism=8 | unum-opt | FileCheck %s --check-prefix=P8

// P = 2 on a conv1d with 3 output channels and 3 products each: 2 output
// lanes x 1 reduction lane (6 cycles per position) ties with 1 x 2, and
// output lanes win the tie (no adders). Two blocks, the second with an idle
// lane (lane_base -1, zero weights and bias). Groups = 3: output channel o
// reads input channel o, so lane_base is the group's first input channel.
// ROM address blk * steps + step, column o * reduce_lanes + r.
// CHECK-LABEL: rtl.design @net
// CHECK-SAME: in_beats = 5 : i64, in_width = 3 : i64, input_name = "x", out_beats = 1 : i64, out_width = 2 : i64, output_source = "gate"
// CHECK: rtl.mac_unit @conv attributes {in_beats = 5 : i64, in_width = 3 : i64, inputs = ["x"], out_beats = 3 : i64, out_width = 3 : i64}
// CHECK-NEXT: rtl.input_buffer {bits = 8 : i64, elements = 15 : i64}
// CHECK-NEXT: rtl.counters {blocks = 2 : i64, channels_per_group = 1 : i64, in_channels = 3 : i64, in_len = 5 : i64, kernel = 3 : i64, out_len = 3 : i64, pad_lo = 0 : i64, pad_value = 3 : i64, steps = 3 : i64, stride = 1 : i64}
// CHECK-NEXT: rtl.weight_rom {bits = 8 : i64, lane_base = array<i64: 0, 1, 2, -1>, out_lanes = 2 : i64, reduce_lanes = 1 : i64, values = dense<{{\[\[}}1, 4], [2, 5], [3, 6], [7, 0], [8, 0], [9, 0]]> : tensor<6x2xi32>}
// CHECK-NEXT: rtl.multipliers {bits = 8 : i64, count = 2 : i64}
// CHECK-NEXT: rtl.adder_tree {bits = 18 : i64, count = 2 : i64, inputs = 1 : i64}
// CHECK-NEXT: rtl.accumulators {bits = 18 : i64, count = 2 : i64}
// CHECK-NEXT: rtl.requantizer {bias = dense<[10, 20, 30, 0]> : tensor<4xi64>, bits = 8 : i64, rounding = "nearest", shift = 4 : i64}
// relu clamps to [0, max]; flatten adds no stage; the linear after it sees
// the stream as 3 beats of 3 values but a [1, 9] input, one kernel tap. With
// 2 outputs, P = 2 is one output lane each.
// CHECK: rtl.elementwise @act "clamp" {beats = 3 : i64, hi = 127 : i64, inputs = ["conv"], lo = 0 : i64, width = 3 : i64}
// CHECK-NOT: flat
// CHECK: rtl.mac_unit @fc attributes {in_beats = 3 : i64, in_width = 3 : i64, inputs = ["act"], out_beats = 1 : i64, out_width = 2 : i64}
// CHECK: rtl.counters {blocks = 1 : i64, channels_per_group = 9 : i64, in_channels = 9 : i64, in_len = 1 : i64, kernel = 1 : i64, out_len = 1 : i64, pad_lo = 0 : i64, pad_value = 0 : i64, steps = 9 : i64
// CHECK: rtl.weight_rom {{.*}}out_lanes = 2 : i64, reduce_lanes = 1 : i64
// CHECK: rtl.elementwise @gate "hardsigmoid" {beats = 1 : i64, hi = 16 : i64, inputs = ["fc"], lo = 0 : i64, rounding = "truncate", slope = 3 : i64, width = 2 : i64}
// CHECK-NOT: nn.

// P = 8: 3 output lanes x 2 reduction lanes, 2 steps, the last term padded
// with zero weights; each output lane sums its 2 products in an adder tree.
// The linear's 2 outputs get 2 output lanes x 4 reduction lanes.
// P8: rtl.counters {blocks = 1 : i64, {{.*}} steps = 2 : i64
// P8-NEXT: rtl.weight_rom {bits = 8 : i64, lane_base = array<i64: 0, 1, 2>, out_lanes = 3 : i64, reduce_lanes = 2 : i64, values = dense<{{\[\[}}1, 2, 4, 5, 7, 8], [3, 0, 6, 0, 9, 0]]> : tensor<2x6xi32>}
// P8-NEXT: rtl.multipliers {bits = 8 : i64, count = 6 : i64}
// P8-NEXT: rtl.adder_tree {bits = 18 : i64, count = 3 : i64, inputs = 2 : i64}
// P8-NEXT: rtl.accumulators {bits = 18 : i64, count = 3 : i64}
// P8: rtl.counters {{.*}} steps = 3 : i64
// P8-NEXT: rtl.weight_rom {{.*}}out_lanes = 2 : i64, reduce_lanes = 4 : i64
// P8-NEXT: rtl.multipliers {bits = 8 : i64, count = 8 : i64}
!q = !nn.fixed<8, 4>
nn.model @net {
  %0 = nn.input "x" : tensor<5x3x!q>
  %1 = nn.conv1d "conv" %0 {weight = dense<[[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]]]> : tensor<3x1x3xi32>, bias = dense<[10, 20, 30]> : tensor<3xi64>, stride = 1, pad_lo = 0, pad_hi = 0, padding_value = 3, groups = 3, acc_bits = 18, rounding = "nearest"} : tensor<5x3x!q> -> tensor<3x3x!q>
  %2 = nn.relu "act" %1 : tensor<3x3x!q> -> tensor<3x3x!q>
  %3 = nn.flatten "flat" %2 : tensor<3x3x!q> -> tensor<1x9x!q>
  %4 = nn.linear "fc" %3 {weight = dense<1> : tensor<2x9xi32>, acc_bits = 20, rounding = "nearest"} : tensor<1x9x!q> -> tensor<1x2x!q>
  %5 = nn.hardsigmoid "gate" %4 {slope = 3, rounding = "truncate"} : tensor<1x2x!q> -> tensor<1x2x!q>
  nn.output "y" %5 : tensor<1x2x!q>
}
