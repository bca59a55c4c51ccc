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
// CHECK: rtl.mac_unit @conv attributes {in_beats = 5 : i64, in_width = 3 : i64, inputs = ["x"], out_beats = 3 : i64, out_width = 3 : i64, rtl.format = {accum = "ap_fixed<18, 10>", input = "ap_fixed<8, 4>", overflow = "saturate", result = "ap_fixed<8, 4>", rounding = "nearest", weight = "ap_fixed<8, 4>"}}
// CHECK-NEXT: rtl.input_buffer {bits = 8 : i64, elements = 15 : i64}
// CHECK-NEXT: rtl.counters {blocks = 2 : i64, channels_per_group = 1 : i64, in_channels = 3 : i64, in_len = 5 : i64, kernel = 3 : i64, out_len = 3 : i64, pad_lo = 0 : i64, pad_value = 3 : i64, steps = 3 : i64, stride = 1 : i64}
// CHECK-NEXT: rtl.weight_rom {bits = 8 : i64, lane_base = array<i64: 0, 1, 2, -1>, out_lanes = 2 : i64, reduce_lanes = 1 : i64, values = dense<{{\[\[}}1, 4], [2, 5], [3, 6], [7, 0], [8, 0], [9, 0]]> : tensor<6x2xi32>}
// CHECK-NEXT: rtl.multipliers {bits = 8 : i64, count = 2 : i64, in_bits = 8 : i64, weight_bits = 8 : i64}
// CHECK-NEXT: rtl.adder_tree {bits = 18 : i64, count = 2 : i64, inputs = 1 : i64}
// CHECK-NEXT: rtl.accumulators {bits = 18 : i64, count = 2 : i64}
// CHECK-NEXT: rtl.requantizer {bias = dense<[10, 20, 30, 0]> : tensor<4xi64>, bits = 8 : i64, overflow = "saturate", rounding = "nearest", shift = 4 : i64}
// relu clamps to [0, max]; flatten adds no stage; the linear after it sees
// the stream as 3 beats of 3 values but a [1, 9] input, one kernel tap. With
// 2 outputs, P = 2 is one output lane each.
// CHECK: rtl.elementwise @act "clamp" {beats = 3 : i64, hi = 127 : i64, inputs = ["conv"], lo = 0 : i64, rtl.format = {{.*}}, width = 3 : i64}
// CHECK-NOT: flat
// CHECK: rtl.mac_unit @fc attributes {in_beats = 3 : i64, in_width = 3 : i64, inputs = ["act"], out_beats = 1 : i64, out_width = 2 : i64, rtl.format = {{.*}}}
// CHECK: rtl.counters {blocks = 1 : i64, channels_per_group = 9 : i64, in_channels = 9 : i64, in_len = 1 : i64, kernel = 1 : i64, out_len = 1 : i64, pad_lo = 0 : i64, pad_value = 0 : i64, steps = 9 : i64
// CHECK: rtl.weight_rom {{.*}}out_lanes = 2 : i64, reduce_lanes = 1 : i64
// hardsigmoid: the exact rounding of x / 6 + 1/2 from 4 to 4 fraction bits.
// CHECK: rtl.elementwise @gate "hardsigmoid" {beats = 1 : i64, bits = 8 : i64, hi = 16 : i64, in_frac = 4 : i64, inputs = ["fc"], lo = 0 : i64, out_frac = 4 : i64, overflow = "saturate", rounding = "truncate", rtl.format = {{.*}}, width = 2 : i64}
// CHECK-NOT: nn.

// P = 8: 3 output lanes x 2 reduction lanes, 2 steps, the last term padded
// with zero weights; each output lane sums its 2 products in an adder tree.
// The linear's 2 outputs get 2 output lanes x 4 reduction lanes.
// P8: rtl.counters {blocks = 1 : i64, {{.*}} steps = 2 : i64
// P8-NEXT: rtl.weight_rom {bits = 8 : i64, lane_base = array<i64: 0, 1, 2>, out_lanes = 3 : i64, reduce_lanes = 2 : i64, values = dense<{{\[\[}}1, 2, 4, 5, 7, 8], [3, 0, 6, 0, 9, 0]]> : tensor<2x6xi32>}
// P8-NEXT: rtl.multipliers {bits = 8 : i64, count = 6 : i64, in_bits = 8 : i64, weight_bits = 8 : i64}
// P8-NEXT: rtl.adder_tree {bits = 18 : i64, count = 3 : i64, inputs = 2 : i64}
// P8-NEXT: rtl.accumulators {bits = 18 : i64, count = 3 : i64}
// P8: rtl.counters {{.*}} steps = 3 : i64
// P8-NEXT: rtl.weight_rom {{.*}}out_lanes = 2 : i64, reduce_lanes = 4 : i64
// P8-NEXT: rtl.multipliers {bits = 8 : i64, count = 8 : i64, in_bits = 8 : i64, weight_bits = 8 : i64}
!q = !nn.fixed<8, 4>
nn.model @net {
  %0 = nn.input "x" : tensor<5x3x!q>
  %1 = nn.conv1d "conv" %0 {weight = dense<[[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]]]> : tensor<3x1x3xi32>, bias = dense<[10, 20, 30]> : tensor<3xi64>, stride = 1, pad_lo = 0, pad_hi = 0, padding_value = 3, groups = 3, acc_bits = 18, rounding = "nearest"} : tensor<5x3x!q> -> tensor<3x3x!q>
  %2 = nn.relu "act" %1 : tensor<3x3x!q> -> tensor<3x3x!q>
  %3 = nn.flatten "flat" %2 : tensor<3x3x!q> -> tensor<1x9x!q>
  %4 = nn.linear "fc" %3 {weight = dense<1> : tensor<2x9xi32>, acc_bits = 20, rounding = "nearest"} : tensor<1x9x!q> -> tensor<1x2x!q>
  %5 = nn.hardsigmoid "gate" %4 {rounding = "truncate"} : tensor<1x2x!q> -> tensor<1x2x!q>
  nn.output "y" %5 : tensor<1x2x!q>
}

// -----
// Per-layer formats: the design's values are as wide as the widest format
// (Q12.6 here, and the 10-bit weights); a relu from Q12.6 to Q6.2 clamps in
// its input's format, then requantises; a maxpool to another format is the
// pool and a requantise stage named after the layer; an add requantises the
// operand in another format first, then wraps at 7 bits.
// RUN: unum-opt %s --split-input-file --convert-nn-to-rtl | FileCheck %s --check-prefix=MIXED
// MIXED-LABEL: rtl.design @mixed attributes {data_bits = 12 : i64, frac_bits = 3
// The layers' formats, for report.json (hls4ml's spelling):
// MIXED: rtl.mac_unit @l {{.*}}rtl.format = {accum = "ap_fixed<24, 12>", input = "ap_fixed<8, 5>", overflow = "wrap", result = "ap_fixed<12, 6>", rounding = "half_even", weight = "ap_fixed<10, 1>"}}
// MIXED: rtl.multipliers {bits = 12 : i64, count = 1 : i64, in_bits = 8 : i64, weight_bits = 10 : i64}
// MIXED: rtl.requantizer {{.*}}bits = 12 : i64, overflow = "wrap", rounding = "half_even", shift = 6 : i64}
// MIXED: rtl.elementwise @r "clamp" {beats = 4 : i64, bits = 6 : i64, hi = 2047 : i64, in_frac = 6 : i64, inputs = ["l"], lo = 0 : i64, out_frac = 2 : i64, overflow = "saturate", rounding = "truncate", rtl.format = {input = "ap_fixed<12, 6>", overflow = "saturate", result = "ap_fixed<6, 4>", rounding = "truncate"}, width = 1 : i64}
// MIXED: rtl.pool @p_pool "max" {{.*}}inputs = ["r"]
// MIXED: rtl.elementwise @p "requantize" {{.*}}bits = 7 : i64, {{.*}}in_frac = 2 : i64, inputs = ["p_pool"], {{.*}}out_frac = 3 : i64
// MIXED: rtl.elementwise @s_in0 "requantize" {{.*}}in_frac = 2 : i64, inputs = ["r"], {{.*}}out_frac = 3 : i64
// MIXED: rtl.join @s "add" {bits = 7 : i64, {{.*}}inputs = ["s_in0", "p"], {{.*}}overflow = "wrap"
nn.model @mixed {
  %0 = nn.input "x" : tensor<4x1x!nn.fixed<8, 3>>
  %1 = nn.linear "l" %0 {weight = dense<300> : tensor<1x1xi32>, weight_format = !nn.fixed<10, 9>, acc_bits = 24, rounding = "half_even", overflow = "wrap"} : tensor<4x1x!nn.fixed<8, 3>> -> tensor<4x1x!nn.fixed<12, 6>>
  %2 = nn.relu "r" %1 {rounding = "truncate"} : tensor<4x1x!nn.fixed<12, 6>> -> tensor<4x1x!nn.fixed<6, 2>>
  %3 = nn.maxpool1d "p" %2 {kernel_size = 1, stride = 1, padding = 0, rounding = "nearest"} : tensor<4x1x!nn.fixed<6, 2>> -> tensor<4x1x!nn.fixed<7, 3>>
  %4 = nn.add "s" %2, %3 {rounding = "nearest", overflow = "wrap"} : tensor<4x1x!nn.fixed<6, 2>>, tensor<4x1x!nn.fixed<7, 3>> -> tensor<4x1x!nn.fixed<7, 3>>
  nn.output "y" %4 : tensor<4x1x!nn.fixed<7, 3>>
}

// -----

// A flatten into another format is a requantise stage named after it, with
// the flatten's formats for report.json.
// MIXED-LABEL: rtl.design @flat
// MIXED: rtl.elementwise @f{{[0-9]*}} "requantize" {{.*}}inputs = ["x"], {{.*}}rtl.format = {input = "ap_fixed<8, 5>", overflow = "saturate", result = "ap_fixed<6, 4>", rounding = "truncate"}
// MIXED: rtl.mac_unit @l {{.*}}inputs = ["f{{[0-9]*}}"]
nn.model @flat {
  %0 = nn.input "x" : tensor<2x2x!nn.fixed<8, 3>>
  %1 = nn.flatten "f" %0 {rounding = "truncate"} : tensor<2x2x!nn.fixed<8, 3>> -> tensor<1x4x!nn.fixed<6, 2>>
  %2 = nn.linear "l" %1 {weight = dense<3> : tensor<1x4xi32>, acc_bits = 20, rounding = "nearest"} : tensor<1x4x!nn.fixed<6, 2>> -> tensor<1x1x!nn.fixed<6, 2>>
  nn.output "y" %2 : tensor<1x1x!nn.fixed<6, 2>>
}
