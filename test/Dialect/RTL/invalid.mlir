// RUN: unum-opt %s -split-input-file -verify-diagnostics

// A stage whose input does not match the stream before it.
rtl.design @chain attributes {data_bits = 8, frac_bits = 4, input_name = "x", output_source = "r", in_width = 2, in_beats = 4, out_width = 2, out_beats = 4} {
  // expected-error @+1 {{takes 4 beats of 3 values from 'x', which gives 4 beats of 2}}
  rtl.elementwise @r "clamp" {inputs = ["x"], width = 3, beats = 4, lo = 0, hi = 127}
}

// -----

rtl.design @missing_part attributes {data_bits = 8, frac_bits = 4, input_name = "x", output_source = "m", in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
  // expected-error @+1 {{needs exactly rtl.input_buffer, rtl.counters, rtl.weight_rom, rtl.multipliers, rtl.adder_tree, rtl.accumulators, rtl.requantizer, in this order}}
  rtl.mac_unit @m attributes {inputs = ["x"], in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
    rtl.input_buffer {elements = 4, bits = 8}
  }
}

// -----

// The reference unit: 1 output channel, K = 3, one lane. Each case below
// breaks one thing of it.
rtl.design @multipliers attributes {data_bits = 8, frac_bits = 4, input_name = "x", output_source = "m", in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
  rtl.mac_unit @m attributes {inputs = ["x"], in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
    rtl.input_buffer {elements = 4, bits = 8}
    rtl.counters {out_len = 4, blocks = 1, steps = 3, kernel = 3, channels_per_group = 1, in_len = 4, in_channels = 1, stride = 1, pad_lo = 1, pad_value = 0}
    rtl.weight_rom {out_lanes = 1, reduce_lanes = 1, bits = 8, values = dense<1> : tensor<3x1xi32>, lane_base = array<i64: 0>}
    // expected-error @+1 {{needs one multiplier per weight of a ROM row (1)}}
    rtl.multipliers {count = 2, bits = 8}
    rtl.adder_tree {count = 1, inputs = 1, bits = 18}
    rtl.accumulators {count = 1, bits = 18}
    rtl.requantizer {shift = 4, rounding = "nearest", bits = 8, bias = dense<0> : tensor<1xi64>}
  }
}

// -----

rtl.design @accumulator attributes {data_bits = 8, frac_bits = 4, input_name = "x", output_source = "m", in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
  rtl.mac_unit @m attributes {inputs = ["x"], in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
    rtl.input_buffer {elements = 4, bits = 8}
    rtl.counters {out_len = 4, blocks = 1, steps = 3, kernel = 3, channels_per_group = 1, in_len = 4, in_channels = 1, stride = 1, pad_lo = 1, pad_value = 0}
    rtl.weight_rom {out_lanes = 1, reduce_lanes = 1, bits = 8, values = dense<1> : tensor<3x1xi32>, lane_base = array<i64: 0>}
    rtl.multipliers {count = 1, bits = 8}
    rtl.adder_tree {count = 1, inputs = 1, bits = 16}
    // expected-error @+1 {{needs 18 to 62 bits for 3 products}}
    rtl.accumulators {count = 1, bits = 16}
    rtl.requantizer {shift = 4, rounding = "nearest", bits = 8, bias = dense<0> : tensor<1xi64>}
  }
}

// -----

rtl.design @rom attributes {data_bits = 8, frac_bits = 4, input_name = "x", output_source = "m", in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
  rtl.mac_unit @m attributes {inputs = ["x"], in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
    rtl.input_buffer {elements = 4, bits = 8}
    rtl.counters {out_len = 4, blocks = 1, steps = 3, kernel = 3, channels_per_group = 1, in_len = 4, in_channels = 1, stride = 1, pad_lo = 1, pad_value = 0}
    // expected-error @+1 {{values must be [3, 1]}}
    rtl.weight_rom {out_lanes = 1, reduce_lanes = 1, bits = 8, values = dense<1> : tensor<2x1xi32>, lane_base = array<i64: 0>}
    rtl.multipliers {count = 1, bits = 8}
    rtl.adder_tree {count = 1, inputs = 1, bits = 18}
    rtl.accumulators {count = 1, bits = 18}
    rtl.requantizer {shift = 4, rounding = "nearest", bits = 8, bias = dense<0> : tensor<1xi64>}
  }
}

// -----

// Two reduction lanes need ceil(3 / 2) = 2 steps, not 3.
rtl.design @steps attributes {data_bits = 8, frac_bits = 4, input_name = "x", output_source = "m", in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
  rtl.mac_unit @m attributes {inputs = ["x"], in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
    rtl.input_buffer {elements = 4, bits = 8}
    // expected-error @+1 {{3 steps of 2 terms do not cover 3 products}}
    rtl.counters {out_len = 4, blocks = 1, steps = 3, kernel = 3, channels_per_group = 1, in_len = 4, in_channels = 1, stride = 1, pad_lo = 1, pad_value = 0}
    rtl.weight_rom {out_lanes = 1, reduce_lanes = 2, bits = 8, values = dense<1> : tensor<3x2xi32>, lane_base = array<i64: 0>}
    rtl.multipliers {count = 2, bits = 8}
    rtl.adder_tree {count = 1, inputs = 2, bits = 18}
    rtl.accumulators {count = 1, bits = 18}
    rtl.requantizer {shift = 4, rounding = "nearest", bits = 8, bias = dense<0> : tensor<1xi64>}
  }
}

// -----

rtl.design @tree attributes {data_bits = 8, frac_bits = 4, input_name = "x", output_source = "m", in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
  rtl.mac_unit @m attributes {inputs = ["x"], in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
    rtl.input_buffer {elements = 4, bits = 8}
    rtl.counters {out_len = 4, blocks = 1, steps = 2, kernel = 3, channels_per_group = 1, in_len = 4, in_channels = 1, stride = 1, pad_lo = 1, pad_value = 0}
    rtl.weight_rom {out_lanes = 1, reduce_lanes = 2, bits = 8, values = dense<1> : tensor<2x2xi32>, lane_base = array<i64: 0>}
    rtl.multipliers {count = 2, bits = 8}
    // expected-error @+1 {{needs one tree per output lane over its reduction lanes, as wide as the accumulator}}
    rtl.adder_tree {count = 1, inputs = 1, bits = 18}
    rtl.accumulators {count = 1, bits = 18}
    rtl.requantizer {shift = 4, rounding = "nearest", bits = 8, bias = dense<0> : tensor<1xi64>}
  }
}

// -----

rtl.design @hardsigmoid attributes {data_bits = 8, frac_bits = 4, input_name = "x", output_source = "s", in_width = 1, in_beats = 4, out_width = 1, out_beats = 4} {
  // expected-error @+1 {{hardsigmoid needs in_frac, out_frac and bits}}
  rtl.elementwise @s "hardsigmoid" {inputs = ["x"], width = 1, beats = 4, lo = 0, hi = 16}
}

// -----

// 12 values: neither the whole input (16) nor a power of two.
rtl.design @buffer attributes {data_bits = 8, frac_bits = 4, input_name = "x", output_source = "m", in_width = 1, in_beats = 16, out_width = 1, out_beats = 16} {
  rtl.mac_unit @m attributes {inputs = ["x"], in_width = 1, in_beats = 16, out_width = 1, out_beats = 16} {
    // expected-error @+1 {{must hold the whole input (16 values) or be a power of two of at least 5 values below that}}
    rtl.input_buffer {elements = 12, bits = 8}
    rtl.counters {out_len = 16, blocks = 1, steps = 3, kernel = 3, channels_per_group = 1, in_len = 16, in_channels = 1, stride = 1, pad_lo = 1, pad_value = 0}
    rtl.weight_rom {out_lanes = 1, reduce_lanes = 1, bits = 8, values = dense<1> : tensor<3x1xi32>, lane_base = array<i64: 0>}
    rtl.multipliers {count = 1, bits = 8}
    rtl.adder_tree {count = 1, inputs = 1, bits = 18}
    rtl.accumulators {count = 1, bits = 18}
    rtl.requantizer {shift = 4, rounding = "nearest", bits = 8, bias = dense<0> : tensor<1xi64>}
  }
}

// -----

// Graphs: a stage reads only the input or an earlier stage.
rtl.design @forward attributes {data_bits = 8, frac_bits = 4, input_name = "x", in_width = 2, in_beats = 4, output_source = "b", out_width = 2, out_beats = 4} {
  // expected-error @+1 {{reads 'b', which is neither the design input nor an earlier stage}}
  rtl.elementwise @a "clamp" {inputs = ["b"], width = 2, beats = 4, lo = 0, hi = 127}
  rtl.elementwise @b "clamp" {inputs = ["a"], width = 2, beats = 4, lo = 0, hi = 127}
}

// -----

rtl.design @unread attributes {data_bits = 8, frac_bits = 4, input_name = "x", in_width = 2, in_beats = 4, output_source = "b", out_width = 2, out_beats = 4} {
  // expected-error @+1 {{is read by no stage and is not the output}}
  rtl.elementwise @a "clamp" {inputs = ["x"], width = 2, beats = 4, lo = 0, hi = 127}
  rtl.elementwise @b "clamp" {inputs = ["x"], width = 2, beats = 4, lo = 0, hi = 127}
}

// -----

rtl.design @output attributes {data_bits = 8, frac_bits = 4, input_name = "x", in_width = 2, in_beats = 4, output_source = "nowhere", out_width = 2, out_beats = 4} {
  rtl.elementwise @a "clamp" {inputs = ["x"], width = 2, beats = 4, lo = 0, hi = 127}
}
// expected-error @-3 {{output_source 'nowhere' is not a stream of the design}}

// -----

rtl.design @add_shapes attributes {data_bits = 8, frac_bits = 4, input_name = "x", in_width = 2, in_beats = 4, output_source = "j", out_width = 2, out_beats = 4} {
  rtl.elementwise @a "clamp" {inputs = ["x"], width = 2, beats = 4, lo = 0, hi = 127}
  // expected-error @+1 {{add needs two streams of equal shape}}
  rtl.join @j "add" {inputs = ["x", "a"], in_widths = array<i64: 2, 3>, in_beats = array<i64: 4, 4>, fifo_depths = array<i64: 4, 4>, out_width = 2, out_beats = 4}
}

// -----

// A FIFO must hold a whole inference of its input (deadlock freedom).
rtl.design @fifo attributes {data_bits = 8, frac_bits = 4, input_name = "x", in_width = 2, in_beats = 4, output_source = "j", out_width = 2, out_beats = 8} {
  rtl.elementwise @a "clamp" {inputs = ["x"], width = 2, beats = 4, lo = 0, hi = 127}
  // expected-error @+1 {{FIFO 1 holds 3 beats, less than the 4 of an inference}}
  rtl.join @j "concat_length" {inputs = ["x", "a"], in_widths = array<i64: 2, 2>, in_beats = array<i64: 4, 4>, fifo_depths = array<i64: 4, 3>, out_width = 2, out_beats = 8}
}

// -----

rtl.design @join_stream attributes {data_bits = 8, frac_bits = 4, input_name = "x", in_width = 2, in_beats = 4, output_source = "j", out_width = 5, out_beats = 4} {
  rtl.elementwise @a "clamp" {inputs = ["x"], width = 2, beats = 4, lo = 0, hi = 127}
  // expected-error @+1 {{takes 4 beats of 3 values from 'a', which gives 4 beats of 2}}
  rtl.join @j "concat_channels" {inputs = ["x", "a"], in_widths = array<i64: 2, 3>, in_beats = array<i64: 4, 4>, fifo_depths = array<i64: 4, 4>, out_width = 5, out_beats = 4}
}
