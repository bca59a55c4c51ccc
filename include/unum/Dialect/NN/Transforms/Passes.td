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
  let summary = "Quantise a float model to N-bit fixed point with F fraction bits";
  let description = [{
    Every value becomes `!nn.fixed<N, F>`. Weights, padding values and
    hardtanh bounds are rounded to nearest (ties away from zero) and
    saturated to N bits; biases are rounded to `2F` fraction bits and
    saturated to `N + F` bits. Each conv1d/linear gets an accumulator of
    `2N + ceil(log2(R + 1))` bits, R the products per output, so nothing
    overflows inside a layer; the sum is rounded once (`rounding`) and
    saturated once at the layer output. See docs/NNQuantization.md.
  }];
  let options = [
    Option<"totalBits", "total-bits", "unsigned", /*default=*/"8",
           "Bits per value (2 to 16)">,
    Option<"fracBits", "frac-bits", "unsigned", /*default=*/"4",
           "Fraction bits (1 to total-bits - 1)">,
    Option<"rounding", "rounding", "std::string", /*default=*/"\"nearest\"",
           "How layer outputs drop fraction bits: nearest (ties toward "
           "+infinity) or truncate (toward -infinity)">,
  ];
}

#endif // UNUM_DIALECT_NN_TRANSFORMS_PASSES_TD
