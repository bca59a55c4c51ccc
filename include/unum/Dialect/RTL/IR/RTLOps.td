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
    An `rtl.design` is a chain of stages between a streaming input and a
    streaming output (docs/VHDLInterface.md). A stream carries beats of
    `width` values of `data_bits` bits; one inference is `beats` beats.

    * `rtl.mac_unit`: one conv1d or linear layer, built from its components
      in a fixed order: `rtl.input_buffer` (the window buffer: it holds the
      inference's input so that every window can be read), `rtl.counters`
      (the loop nest: output position, channel block, kernel tap, input
      channel), `rtl.weight_rom` (the weight loader: `lanes` weights per
      address), `rtl.multipliers` (`lanes` of them, one product each per
      cycle), `rtl.accumulators` and `rtl.requantizer` (bias, one rounding,
      one saturation). Lane `j` of block `b` computes output channel
      `b * lanes + j`.
    * `rtl.elementwise`: an activation applied to every value of a beat.

    The verifier checks each stage against its neighbours (stream shapes) and
    each component against the others (lanes, ROM depth, accumulator width).
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
  let summary = "A network: a chain of stages from the input to the output";
  let arguments = (ins SymbolNameAttr:$sym_name, RTL_Int:$data_bits,
                       RTL_Int:$frac_bits, RTL_Int:$in_width,
                       RTL_Int:$in_beats, RTL_Int:$out_width,
                       RTL_Int:$out_beats);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def RTL_MacUnitOp : RTL_Op<"mac_unit", [
    Symbol, HasParent<"DesignOp">, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "A multiply-accumulate layer (conv1d or linear)";
  let arguments = (ins SymbolNameAttr:$sym_name, RTL_Int:$in_width,
                       RTL_Int:$in_beats, RTL_Int:$out_width,
                       RTL_Int:$out_beats);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def RTL_ElementwiseOp : RTL_Op<"elementwise", [
    Symbol, HasParent<"DesignOp">]> {
  let summary = "An activation on every value of a beat, one register stage";
  let description = [{
    `clamp`: `min(max(x, lo), hi)` (relu, hardtanh). `hardsigmoid`:
    `clamp(round_F(x * slope + 2^(2F-1)), lo, hi)` with `lo = 0`, `hi` =
    one (or the largest value when one does not fit).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, RTL_Int:$width,
                       RTL_Int:$beats, StrAttr:$function, RTL_Int:$lo,
                       RTL_Int:$hi, OptionalAttr<RTL_Int>:$slope,
                       OptionalAttr<StrAttr>:$rounding);
  let assemblyFormat = "$sym_name $function attr-dict";
  let hasVerifier = 1;
}

class RTL_Component<string mnemonic>
    : RTL_Op<mnemonic, [HasParent<"MacUnitOp">]> {
  let assemblyFormat = "attr-dict";
}

def RTL_InputBufferOp : RTL_Component<"input_buffer"> {
  let summary = "Window buffer: the layer input, written beat by beat";
  let arguments = (ins RTL_Int:$elements, RTL_Int:$bits);
}

def RTL_CountersOp : RTL_Component<"counters"> {
  let summary = "Loop counters and window addressing";
  let description = [{
    Output position `l < out_len`, channel block `b < blocks`, kernel tap
    `k < kernel`, input channel `i < channels_per_group`. Lane `j` reads
    input `(l * stride + k - pad_lo, lane_base + i)` of the `[in_len,
    in_channels]` input, or `pad_value` outside `[0, in_len)`.
  }];
  let arguments = (ins RTL_Int:$out_len, RTL_Int:$blocks, RTL_Int:$kernel,
                       RTL_Int:$channels_per_group, RTL_Int:$in_len,
                       RTL_Int:$in_channels, RTL_Int:$stride, RTL_Int:$pad_lo,
                       RTL_Int:$pad_value);
}

def RTL_WeightRomOp : RTL_Component<"weight_rom"> {
  let summary = "Weight loader: `lanes` weights per address";
  let description = [{
    `values` is `[blocks * kernel * channels_per_group, lanes]`; address
    `(b * kernel + k) * channels_per_group + i` holds the weights of the
    lanes of block `b` for tap `k`, input channel `i`. `lane_base` gives,
    per `b * lanes + j`, the first input channel of the lane's group, or -1
    for a lane past the last output channel (its weights are 0).
  }];
  let arguments = (ins RTL_Int:$lanes, RTL_Int:$bits, ElementsAttr:$values,
                       DenseI64ArrayAttr:$lane_base);
}

def RTL_MultipliersOp : RTL_Component<"multipliers"> {
  let summary = "`count` signed bits x bits multipliers, registered";
  let arguments = (ins RTL_Int:$count, RTL_Int:$bits);
}

def RTL_AccumulatorsOp : RTL_Component<"accumulators"> {
  let summary = "One accumulator per lane";
  let arguments = (ins RTL_Int:$count, RTL_Int:$bits);
}

def RTL_RequantizerOp : RTL_Component<"requantizer"> {
  let summary = "Bias, one rounding, one saturation per output";
  let description = [{
    `out = saturate_bits(round_shift(acc + bias, shift))`, `rounding`
    nearest (ties toward +infinity) or truncate (toward -infinity); `bias`
    holds one value per `b * lanes + j`.
  }];
  let arguments = (ins RTL_Int:$shift, StrAttr:$rounding, RTL_Int:$bits,
                       ElementsAttr:$bias);
}

#endif // UNUM_DIALECT_RTL_RTLOPS_TD
