// RUN: unum-opt %s --convert-nn-to-rtl=parallelism=2 | FileCheck %s
// RUN: unum-opt %s --convert-nn-to-rtl=parallelism=8 | FileCheck %s --check-prefix=P8

// Three output channels on two lanes: two blocks, the second with an idle
// lane (lane_base -1, zero weights, zero bias). Groups = 3: output channel o
// reads input channel o, so lane_base is the group's first input channel.
// ROM address (blk * K + k) * cpg + i holds one weight per lane.
// CHECK-LABEL: rtl.design @net
// CHECK-SAME: in_beats = 5 : i64, in_width = 3 : i64, out_beats = 1 : i64, out_width = 2 : i64
// CHECK: rtl.mac_unit @conv attributes {in_beats = 5 : i64, in_width = 3 : i64, out_beats = 4 : i64, out_width = 3 : i64}
// CHECK-NEXT: rtl.input_buffer {bits = 8 : i64, elements = 15 : i64}
// CHECK-NEXT: rtl.counters {blocks = 2 : i64, channels_per_group = 1 : i64, in_channels = 3 : i64, in_len = 5 : i64, kernel = 2 : i64, out_len = 4 : i64, pad_lo = 0 : i64, pad_value = 3 : i64, stride = 1 : i64}
// CHECK-NEXT: rtl.weight_rom {bits = 8 : i64, lane_base = array<i64: 0, 1, 2, -1>, lanes = 2 : i64, values = dense<{{\[\[}}1, 3], [2, 4], [5, 0], [6, 0]]> : tensor<4x2xi32>}
// CHECK-NEXT: rtl.multipliers {bits = 8 : i64, count = 2 : i64}
// CHECK-NEXT: rtl.accumulators {bits = 18 : i64, count = 2 : i64}
// CHECK-NEXT: rtl.requantizer {bias = dense<[10, 20, 30, 0]> : tensor<4xi64>, bits = 8 : i64, rounding = "nearest", shift = 4 : i64}
// relu clamps to [0, max]; flatten adds no stage; the linear after it sees
// the stream as 4 beats of 3 values but a [1, 12] input, one kernel tap.
// CHECK: rtl.elementwise @act "clamp" {beats = 4 : i64, hi = 127 : i64, lo = 0 : i64, width = 3 : i64}
// CHECK-NOT: flat
// CHECK: rtl.mac_unit @fc attributes {in_beats = 4 : i64, in_width = 3 : i64, out_beats = 1 : i64, out_width = 2 : i64}
// CHECK: rtl.counters {blocks = 1 : i64, channels_per_group = 12 : i64, in_channels = 12 : i64, in_len = 1 : i64, kernel = 1 : i64
// CHECK: rtl.elementwise @gate "hardsigmoid" {beats = 1 : i64, hi = 16 : i64, lo = 0 : i64, rounding = "truncate", slope = 3 : i64, width = 2 : i64}
// CHECK-NOT: nn.

// Lanes never exceed the output channels.
// P8: rtl.weight_rom {bits = 8 : i64, lane_base = array<i64: 0, 1, 2>, lanes = 3
// P8: rtl.multipliers {bits = 8 : i64, count = 3 : i64}
// P8: rtl.weight_rom {bits = 8 : i64, lane_base = array<i64: 0, 0>, lanes = 2
!q = !nn.fixed<8, 4>
nn.model @net {
  %0 = nn.input "x" : tensor<5x3x!q>
  %1 = nn.conv1d "conv" %0 {weight = dense<[[[1, 2]], [[3, 4]], [[5, 6]]]> : tensor<3x1x2xi32>, bias = dense<[10, 20, 30]> : tensor<3xi64>, stride = 1, pad_lo = 0, pad_hi = 0, padding_value = 3, groups = 3, acc_bits = 18, rounding = "nearest"} : tensor<5x3x!q> -> tensor<4x3x!q>
  %2 = nn.relu "act" %1 : tensor<4x3x!q> -> tensor<4x3x!q>
  %3 = nn.flatten "flat" %2 : tensor<4x3x!q> -> tensor<1x12x!q>
  %4 = nn.linear "fc" %3 {weight = dense<1> : tensor<2x12xi32>, acc_bits = 20, rounding = "nearest"} : tensor<1x12x!q> -> tensor<1x2x!q>
  %5 = nn.hardsigmoid "gate" %4 {slope = 3, rounding = "truncate"} : tensor<1x2x!q> -> tensor<1x2x!q>
  nn.output "y" %5 : tensor<1x2x!q>
}
