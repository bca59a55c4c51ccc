//===- NNOps.td - Neural-network layers --------------------*- tablegen -*-===//
#ifndef UNUM_DIALECT_NN_NNOPS_TD
#define UNUM_DIALECT_NN_NNOPS_TD

include "unum/Dialect/NN/IR/NNDialect.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// A layer value: a 2-D tensor [L, C] of f32 or !nn.fixed.
def NN_Tensor : 2DTensorOf<[F32, NN_FixedType]>;

def NN_ModelOp : NN_Op<"model", [
    Symbol, IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "A layer graph: inputs, layers, one output";
  let description = [{
    ```mlir
    nn.model @tiny {
      %0 = nn.input "x" : tensor<8x2xf32>
      %1 = nn.relu "act" %0 : tensor<8x2xf32> -> tensor<8x2xf32>
      nn.output "y" %1 : tensor<8x2xf32>
    }
    ```
    Layers are in def-before-use order (the graph is acyclic); a value may
    have several users (a fork), `nn.add` and `nn.concat` join branches.
    The verifier requires exactly one `nn.output`, at least one `nn.input`,
    unique layer names, and values either all `f32` or all `!nn.fixed`
    (each layer may have its own format once quantised).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

class NN_LayerOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat(traits, [Pure, HasParent<"ModelOp">])>;

def NN_InputOp : NN_LayerOp<"input"> {
  let summary = "The network input, shape [L, C]";
  let arguments = (ins StrAttr:$name);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

def NN_OutputOp : NN_Op<"output", [HasParent<"ModelOp">]> {
  let summary = "The network output";
  let arguments = (ins StrAttr:$name, NN_Tensor:$input);
  let assemblyFormat = "$name $input attr-dict `:` type($input)";
}

class NN_UnaryOp<string mnemonic, list<Trait> traits = []>
    : NN_LayerOp<mnemonic, traits> {
  dag commonArgs = (ins StrAttr:$name, NN_Tensor:$input);
  // How the layer brings its result to the result's format (docs/
  // NNQuantization.md): "truncate", "nearest" or "half_even"; "saturate" or
  // "wrap" (absent: "saturate").
  dag quantArgs = (ins OptionalAttr<StrAttr>:$rounding,
                       OptionalAttr<StrAttr>:$overflow);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat =
      "$name $input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def NN_Conv1dOp : NN_UnaryOp<"conv1d"> {
  let summary = "1-D convolution over [L, C_in] with padding, stride, groups";
  let description = [{
    `out[l][o] = bias[o] + sum_{k, i} w[o][i][k] * x[l*stride + k - pad_lo]
    [g*C_in/groups + i]` with `g = o / (C_out/groups)`; positions outside
    `[0, L)` read `padding_value`. `weight` has shape
    `[C_out, C_in/groups, K]`, `bias` `[C_out]` (absent: none). The output
    length is `(L + pad_lo + pad_hi - K) / stride + 1`.

    Quantised form: with the input `!nn.fixed<Ni, Fi>`, `weight_format`
    `!nn.fixed<Nw, Fw>` and the result `!nn.fixed<No, Fo>`, `weight` holds
    `Nw`-bit integers (fraction `Fw`), `bias` integers with fraction
    `Fi + Fw` of at most `Ni + Nw - 1` bits, `padding_value` an integer of
    the input's format; `acc_bits` is the accumulator width (at least
    `Ni + Nw + ceil(log2(K*C_in/groups + 1))`); the sum is brought to `Fo`
    fraction bits (`Fo <= Fi + Fw`) by `rounding`, to `No` bits by
    `overflow`.
  }];
  let arguments = !con(commonArgs, (ins
    ElementsAttr:$weight,
    OptionalAttr<ElementsAttr>:$bias,
    I64Attr:$stride,
    I64Attr:$pad_lo,
    I64Attr:$pad_hi,
    AnyAttr:$padding_value,
    I64Attr:$groups,
    OptionalAttr<TypeAttrOf<NN_FixedType>>:$weight_format,
    OptionalAttr<I64Attr>:$acc_bits
  ), quantArgs);
}

def NN_LinearOp : NN_UnaryOp<"linear"> {
  let summary = "Fully connected layer applied at every position";
  let description = [{
    `out[l][o] = bias[o] + sum_i w[o][i] * x[l][i]`; `weight` has shape
    `[C_out, C_in]`. Applied to the output of `nn.flatten` this is a dense
    layer over the whole input. Quantised form as for `nn.conv1d`.
  }];
  let arguments = !con(commonArgs, (ins
    ElementsAttr:$weight,
    OptionalAttr<ElementsAttr>:$bias,
    OptionalAttr<TypeAttrOf<NN_FixedType>>:$weight_format,
    OptionalAttr<I64Attr>:$acc_bits
  ), quantArgs);
}

def NN_ReluOp : NN_UnaryOp<"relu"> {
  let summary = "max(x, 0)";
  let description = [{
    Quantised: `max(x, 0)` in the input's format, then requantised to the
    result's format (`rounding`, `overflow`) when the two differ.
  }];
  let arguments = !con(commonArgs, quantArgs);
}

def NN_HardtanhOp : NN_UnaryOp<"hardtanh"> {
  let summary = "clamp(x, min_val, max_val)";
  let description = [{
    Bounds are floats, or integers of the input's format once quantised;
    the clamped value is requantised to the result's format (`rounding`,
    `overflow`) when the two differ.
  }];
  let arguments = !con(commonArgs, (ins AnyAttr:$min_val, AnyAttr:$max_val),
                       quantArgs);
}

def NN_HardsigmoidOp : NN_UnaryOp<"hardsigmoid"> {
  let summary = "clamp(x / 6 + 1/2, 0, 1)";
  let description = [{
    Quantised form: the exact rounding (`rounding`) of `x / 6 + 1/2` at the
    result's fraction bits, clamped to `[0, 1]` and saturated to the
    result's bits (`overflow` must be absent or "saturate").
  }];
  let arguments = !con(commonArgs, quantArgs);
}

def NN_BatchNormOp : NN_UnaryOp<"batchnorm"> {
  let summary = "Per-channel (x - mean) / sqrt(var + eps) * gamma + beta";
  let description = [{
    Float only: `nn-fold-batchnorm` folds it into the preceding `nn.conv1d`
    or `nn.linear` before quantisation.
  }];
  let arguments = !con(commonArgs, (ins
    ElementsAttr:$gamma, ElementsAttr:$beta, ElementsAttr:$mean,
    ElementsAttr:$variance, F64Attr:$eps
  ));
}

def NN_FlattenOp : NN_UnaryOp<"flatten"> {
  let summary = "[L, C] -> [1, L*C], position-major";
  let description = [{
    Quantised: requantises to the result's format when it differs from the
    input's (`rounding`, `overflow`).
  }];
  let arguments = !con(commonArgs, quantArgs);
}

def NN_MaxPool1dOp : NN_UnaryOp<"maxpool1d"> {
  let summary = "Maximum over windows of positions, per channel";
  let description = [{
    `out[l][c] = max x[p][c]` over the positions `p` of window `l`
    (`l * stride - padding` to `l * stride - padding + kernel_size - 1`)
    inside `[0, L)`: padded positions never win. `padding` is at most
    `kernel_size / 2` (as PyTorch), so every window holds a position. The
    output length is `(L + 2 padding - kernel_size) / stride + 1`. Exact
    once quantised (then requantised to the result's format when it differs
    from the input's).
  }];
  let arguments = !con(commonArgs, (ins I64Attr:$kernel_size, I64Attr:$stride,
                                        I64Attr:$padding), quantArgs);
}

def NN_AvgPool1dOp : NN_UnaryOp<"avgpool1d"> {
  let summary = "Average over windows of positions, per channel";
  let description = [{
    Windows as for `nn.maxpool1d`; `out[l][c] = sum / D`, the sum over the
    window's positions inside `[0, L)` (padded positions add 0), `D =
    kernel_size` when `count_include_pad`, else the number of positions
    inside. Quantised form: the exact integer sum divided by `D` with one
    rounding, `rounding` nearest `floor((2 sum + D) / (2 D))` (ties toward
    +infinity), truncate `floor(sum / D)` or half_even; the average fits
    the input's format and is then requantised to the result's format when
    it differs (a second rounding).
  }];
  let arguments = !con(commonArgs, (ins I64Attr:$kernel_size, I64Attr:$stride,
                                        I64Attr:$padding,
                                        BoolAttr:$count_include_pad),
                       quantArgs);
}

def NN_AddOp : NN_LayerOp<"add"> {
  let summary = "Elementwise sum of two values of equal shape (residual)";
  let description = [{
    `out[l][c] = lhs[l][c] + rhs[l][c]`. Quantised form: each operand is
    requantised to the result's format (`rounding`, `overflow`) when its
    format differs, then the exact sum is brought to the result's bits by
    `overflow` (docs/NNQuantization.md).
  }];
  let arguments = (ins StrAttr:$name, NN_Tensor:$lhs, NN_Tensor:$rhs,
                       OptionalAttr<StrAttr>:$rounding,
                       OptionalAttr<StrAttr>:$overflow);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = "$name $lhs `,` $rhs attr-dict `:` type($lhs) `,` "
                       "type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def NN_ConcatOp : NN_LayerOp<"concat"> {
  let summary = "Concatenation of two or more values along channels or length";
  let description = [{
    `axis = "channels"`: operands `[L, C_i]` give `[L, sum C_i]`, position
    `l` holds the operands' rows one after another; `axis = "length"`:
    operands `[L_i, C]` give `[sum L_i, C]`, the operands' positions one
    after another. Quantised: each operand whose format differs from the
    result's is requantised to it (`rounding`, `overflow`).
  }];
  let arguments = (ins StrAttr:$name, Variadic<NN_Tensor>:$inputs,
                       StrAttr:$axis, OptionalAttr<StrAttr>:$rounding,
                       OptionalAttr<StrAttr>:$overflow);
  let results = (outs NN_Tensor:$result);
  let assemblyFormat = "$name $axis $inputs attr-dict `:` type($inputs) `->` "
                       "type($result)";
  let hasVerifier = 1;
}

#endif // UNUM_DIALECT_NN_NNOPS_TD
