//===- RTLOps.td - Streaming layer datapaths ---------------*- tablegen -*-===//
#ifndef UNUM_DIALECT_RTL_RTLOPS_TD
#define UNUM_DIALECT_RTL_RTLOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/SymbolInterfaces.td"

def RTL_Dialect : Dialect {
  let name = "rtl";
  let cppNamespace = "::unum::rtl";
  let summary = "Streaming fixed-point datapaths that VHDL is emitted from";
  let description = [{
    An `rtl.design` is a graph of stages between a streaming input and a
    streaming output (docs/VHDLInterface.md): every stage names the streams
    it reads in `inputs` (earlier stages, or the design's `input_name`); a
    stream read by several stages is broadcast to them (a fork), and
    `output_source` names the stream that leaves the design. A stream carries beats of
    `width` values of `data_bits` bits; one inference is `beats` beats.

    * `rtl.mac_unit`: one conv1d or linear layer, built from its components
      in a fixed order: `rtl.input_buffer` (the window buffer: the input
      rows that the windows still need), `rtl.counters`
      (the loop nest: output position, channel block, reduction step),
      `rtl.weight_rom` (the weight loader: one weight per multiplier and
      address), `rtl.multipliers` (`out_lanes * reduce_lanes` of them, one
      product each per cycle), `rtl.adder_tree` (sums the `reduce_lanes`
      products of each output lane), `rtl.accumulators` (one per output lane)
      and `rtl.requantizer` (bias, one rounding, one saturation). Output lane
      `o` of block `b` computes output channel `b * out_lanes + o`.
    * `rtl.elementwise`: an activation applied to every value of a beat.
    * `rtl.pool`: max or average pooling over windows of positions.
    * `rtl.join`: add or concat of two or more streams, each buffered in a
      FIFO that holds a whole inference of it, so that no branch ever waits
      for another and both operands meet in step.

    The verifier checks each stage against its neighbours (stream shapes) and
    each component against the others (lanes, ROM shape, accumulator width).
  }];
}

// Sizes and values read as signed 64-bit integers.
def RTL_Int : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                           "64-bit signless integer"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

class RTL_Op<string mnemonic, list<Trait> traits = []>
    : Op<RTL_Dialect, mnemonic, traits>;

def RTL_DesignOp : RTL_Op<"design", [
    Symbol, SymbolTable, IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "A network: a graph of stages from the input to the output";
  let arguments = (ins SymbolNameAttr:$sym_name, RTL_Int:$data_bits,
                       RTL_Int:$frac_bits, StrAttr:$input_name,
                       RTL_Int:$in_width, RTL_Int:$in_beats,
                       StrAttr:$output_source, RTL_Int:$out_width,
                       RTL_Int:$out_beats);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def RTL_MacUnitOp : RTL_Op<"mac_unit", [
    Symbol, HasParent<"DesignOp">, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "A multiply-accumulate layer (conv1d or linear)";
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$inputs,
                       RTL_Int:$in_width, RTL_Int:$in_beats,
                       RTL_Int:$out_width, RTL_Int:$out_beats);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def RTL_ElementwiseOp : RTL_Op<"elementwise", [
    Symbol, HasParent<"DesignOp">]> {
  let summary = "An activation on every value of a beat, one register stage";
  let description = [{
    `clamp`: `min(max(x, lo), hi)` (relu, hardtanh), then, when `in_frac`
    and `out_frac` are given, requantised from `in_frac` to `out_frac`
    fraction bits and `bits` bits (`rounding`, `overflow`).
    `requantize`: only that (`lo` and `hi` unused). `hardsigmoid`: the exact
    rounding (`rounding`) of `x / 6 + 1/2` from `in_frac` to `out_frac`
    fraction bits, clamped to `[lo, hi]` with `lo = 0`, `hi` = one (or the
    largest value of `bits` bits when one does not fit); the division by 3 is
    a multiply by a constant and a shift, checked exhaustively on the input
    range when the VHDL is emitted.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$inputs,
                       RTL_Int:$width,
                       RTL_Int:$beats, StrAttr:$function, RTL_Int:$lo,
                       RTL_Int:$hi, OptionalAttr<RTL_Int>:$in_frac,
                       OptionalAttr<RTL_Int>:$out_frac,
                       OptionalAttr<RTL_Int>:$bits,
                       OptionalAttr<StrAttr>:$rounding,
                       OptionalAttr<StrAttr>:$overflow);
  let assemblyFormat = "$sym_name $function attr-dict";
  let hasVerifier = 1;
}

def RTL_PoolOp : RTL_Op<"pool", [Symbol, HasParent<"DesignOp">]> {
  let summary = "Max or average over windows of positions, per channel";
  let description = [{
    Takes `in_beats` beats (one per position) of `width` channels into a
    buffer of the whole input and sends output position `l` (window
    `l * stride - padding` to that plus `kernel - 1`, clipped to the input)
    as soon as its last input position has arrived, one beat per cycle.
    `max`: the largest value; `avg`: the exact sum divided by `kernel`
    (`count_include_pad`) or by the positions inside, with one rounding
    (`rounding`, docs/NNQuantization.md). The window's bounds and divisor
    are computed from the position counter: no per-position table.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$function,
                       StrArrayAttr:$inputs, RTL_Int:$width,
                       RTL_Int:$in_beats, RTL_Int:$out_beats, RTL_Int:$kernel,
                       RTL_Int:$stride, RTL_Int:$padding,
                       BoolAttr:$count_include_pad,
                       OptionalAttr<StrAttr>:$rounding);
  let assemblyFormat = "$sym_name $function attr-dict";
  let hasVerifier = 1;
}

def RTL_JoinOp : RTL_Op<"join", [Symbol, HasParent<"DesignOp">]> {
  let summary = "Add or concat of streams, each behind a FIFO";
  let description = [{
    Operand `i` arrives as `in_beats[i]` beats of `in_widths[i]` values and
    waits in a FIFO of `fifo_depths[i]` beats (at least a whole inference
    of it: then every branch can finish an inference without the others, so
    a fork feeding a join never deadlocks). `add`: two streams of equal
    shape, one beat of each becomes `a + b` brought to `bits` bits (default:
    the design's) by `overflow` (default saturate); `concat_channels`:
    equal beat counts, one beat of each becomes their values side by side;
    `concat_length`: equal widths, all beats of operand 0, then of operand
    1, ... One register stage at the output.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$function,
                       StrArrayAttr:$inputs, DenseI64ArrayAttr:$in_widths,
                       DenseI64ArrayAttr:$in_beats,
                       DenseI64ArrayAttr:$fifo_depths, RTL_Int:$out_width,
                       RTL_Int:$out_beats, OptionalAttr<RTL_Int>:$bits,
                       OptionalAttr<StrAttr>:$overflow);
  let assemblyFormat = "$sym_name $function attr-dict";
  let hasVerifier = 1;
}

class RTL_Component<string mnemonic>
    : RTL_Op<mnemonic, [HasParent<"MacUnitOp">]> {
  let assemblyFormat = "attr-dict";
}

def RTL_InputBufferOp : RTL_Component<"input_buffer"> {
  let summary = "Window buffer: the layer input, written beat by beat";
  let description = [{
    Holds `elements` input values: the whole input, or, as a line buffer, a
    power of two of at least `(kernel + stride) * in_channels + in_width`
    values used circularly (value `e` in slot `e mod elements`). A line
    buffer takes a beat only while it overwrites no value that the current
    output position still needs.
  }];
  let arguments = (ins RTL_Int:$elements, RTL_Int:$bits);
}

def RTL_CountersOp : RTL_Component<"counters"> {
  let summary = "Loop counters and window addressing";
  let description = [{
    Output position `l < out_len`, channel block `b < blocks`, step
    `s < steps`. The `K * channels_per_group` products of one output are
    split into `steps` steps of `reduce_lanes` terms (the last one padded).
    Term `t` is kernel tap `t / channels_per_group`, input channel
    `t % channels_per_group` of the lane's group; it reads input
    `(l * stride + tap - pad_lo, lane_base + channel)` of the `[in_len,
    in_channels]` input, or `pad_value` outside `[0, in_len)`.
  }];
  let arguments = (ins RTL_Int:$out_len, RTL_Int:$blocks, RTL_Int:$steps,
                       RTL_Int:$kernel, RTL_Int:$channels_per_group,
                       RTL_Int:$in_len, RTL_Int:$in_channels, RTL_Int:$stride,
                       RTL_Int:$pad_lo, RTL_Int:$pad_value);
}

def RTL_WeightRomOp : RTL_Component<"weight_rom"> {
  let summary = "Weight loader: one weight per multiplier per address";
  let description = [{
    There are `out_lanes * reduce_lanes` multipliers: output lane `o`
    computes output channel `b * out_lanes + o` of block `b`, its reduction
    lanes `r` the terms `s * reduce_lanes + r` of step `s`. `values` is
    `[blocks * steps, out_lanes * reduce_lanes]`: address `b * steps + s`,
    column `o * reduce_lanes + r`. `lane_base` gives, per
    `b * out_lanes + o`, the first input channel of the output's group, or -1
    for a lane past the last output channel (its weights are 0). Padded terms
    (past `K * channels_per_group`) have weight 0.
  }];
  let arguments = (ins RTL_Int:$out_lanes, RTL_Int:$reduce_lanes,
                       RTL_Int:$bits, ElementsAttr:$values,
                       DenseI64ArrayAttr:$lane_base);
}

def RTL_MultipliersOp : RTL_Component<"multipliers"> {
  let summary = "`count` signed bits x bits multipliers, registered";
  let description = [{
    `bits` is the design's value width; the values are of `in_bits` bits and
    the weights of `weight_bits` (default: `bits`), which the accumulator
    width is checked against.
  }];
  let arguments = (ins RTL_Int:$count, RTL_Int:$bits,
                       OptionalAttr<RTL_Int>:$in_bits,
                       OptionalAttr<RTL_Int>:$weight_bits);
}

def RTL_AdderTreeOp : RTL_Component<"adder_tree"> {
  let summary = "`count` balanced trees summing `inputs` products each";
  let description = [{
    One tree per output lane over its `reduce_lanes` products
    (`inputs - 1` adders each, none when `inputs` is 1), `bits` wide.
  }];
  let arguments = (ins RTL_Int:$count, RTL_Int:$inputs, RTL_Int:$bits);
}

def RTL_AccumulatorsOp : RTL_Component<"accumulators"> {
  let summary = "One accumulator per output lane";
  let arguments = (ins RTL_Int:$count, RTL_Int:$bits);
}

def RTL_RequantizerOp : RTL_Component<"requantizer"> {
  let summary = "Bias, one rounding, one saturation (or wrap) per output";
  let description = [{
    `out = fit_bits(round_shift(acc + bias, shift))`, `rounding` nearest
    (ties toward +infinity), truncate (toward -infinity) or half_even (ties
    to even), `fit` by `overflow` saturate (default) or wrap; `bits` at most
    the design's; `bias` holds one value per `b * out_lanes + o`.
  }];
  let arguments = (ins RTL_Int:$shift, StrAttr:$rounding, RTL_Int:$bits,
                       ElementsAttr:$bias, OptionalAttr<StrAttr>:$overflow);
}

#endif // UNUM_DIALECT_RTL_RTLOPS_TD
