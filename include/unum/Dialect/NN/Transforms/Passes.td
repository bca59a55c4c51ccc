//===- Passes.td - nn dialect passes -----------------------*- tablegen -*-===//
#ifndef UNUM_DIALECT_NN_TRANSFORMS_PASSES_TD
#define UNUM_DIALECT_NN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NNDeadNodeElim : Pass<"nn-dead-node-elim", "::unum::nn::ModelOp"> {
  let summary = "Remove layers (and inputs) that do not reach the output";
  let description = [{
    A JSON model may hold branches that end nowhere; they cost hardware and
    are removed. Layers are pure, so a layer whose result is unused is dead.
  }];
}

def NNFoldBatchNorm : Pass<"nn-fold-batchnorm", "::unum::nn::ModelOp"> {
  let summary = "Fold nn.batchnorm into the preceding nn.conv1d or nn.linear";
  let description = [{
    With `s[o] = gamma[o] / sqrt(var[o] + eps)`, the weights of output
    channel `o` become `w * s[o]` and its bias `(b[o] - mean[o]) * s[o] +
    beta[o]` (a missing bias counts as 0). Only a batchnorm whose input is a
    float conv1d or linear with no other user is folded; any other batchnorm
    is an error, since the hardware has no batchnorm layer.
  }];
}

def NNQuantize : Pass<"nn-quantize", "::unum::nn::ModelOp"> {
  let summary = "Quantise a float model to fixed point, per layer";
  let description = [{
    Every value gets a format `!nn.fixed<N, F>`: its layer's `precision`
    from the JSON model (carried as `nn.precision`), else the model-wide
    default `total-bits`/`frac-bits`. Weights get the layer's weight format
    (the JSON's, else the one `policy` picks: `uniform` the default format,
    `weights` the fewest integer bits that hold the layer's largest weight
    and bias, keeping `total-bits`). Weights, padding values and hardtanh
    bounds are rounded to nearest (ties away from zero) and saturated, a
    warning naming the layer when any weight or bias saturates; biases are
    rounded to the products' fraction bits (input's + weights'). Each
    conv1d/linear gets an accumulator of `Ni + Nw + ceil(log2(R + 1))` bits
    (or the JSON's `accum`, refused when narrower), R the products per
    output, so nothing overflows inside a layer; the sum is rounded once
    (`rounding`) to the result's fraction bits and brought to its bits once
    (`overflow`). A layer whose result format differs from its input's
    requantises (same rounding and overflow). See docs/NNQuantization.md.
  }];
  let options = [
    Option<"totalBits", "total-bits", "unsigned", /*default=*/"8",
           "Bits per value (2 to 16), the default format">,
    Option<"fracBits", "frac-bits", "unsigned", /*default=*/"4",
           "Fraction bits (1 to total-bits - 1), the default format">,
    Option<"rounding", "rounding", "std::string", /*default=*/"\"nearest\"",
           "How results drop fraction bits: truncate (AP_TRN, toward "
           "-infinity), nearest (AP_RND, ties toward +infinity) or half_even "
           "(AP_RND_CONV, ties to even)">,
    Option<"overflow", "overflow", "std::string", /*default=*/"\"saturate\"",
           "What results that do not fit become: saturate (AP_SAT) or wrap "
           "(AP_WRAP)">,
    Option<"policy", "policy", "std::string", /*default=*/"\"uniform\"",
           "Weight formats of layers without one in the JSON: uniform (the "
           "default format) or weights (integer bits from each layer's "
           "largest weight and bias)">,
  ];
}

#endif // UNUM_DIALECT_NN_TRANSFORMS_PASSES_TD
