//===- NNDialect.td - Neural-network layers dialect --------*- tablegen -*-===//
#ifndef UNUM_DIALECT_NN_NNDIALECT_TD
#define UNUM_DIALECT_NN_NNDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def NN_Dialect : Dialect {
  let name = "nn";
  let cppNamespace = "::unum::nn";
  let summary = "Neural-network layers (not operators) on the way to hardware";
  let description = [{
    The `nn` dialect holds a layer graph as imported from the JSON model
    format (docs/NNJson.md): an `nn.model` whose body is a chain of layers
    from `nn.input` to `nn.output`. Every value is a 2-D tensor `[L, C]`
    (length, channels), stored position-major: element `(l, c)` is at
    `l * C + c`.

    A model is either float (`f32` elements, weights as float tensors) or
    quantised (`!nn.fixed<N, F>` elements, weights as integers) after
    `nn-quantize`. The quantised form fixes the arithmetic bit for bit; the
    CPU reference (`unum-nn-sim`) and the VHDL datapath both implement it, see
    docs/NNQuantization.md.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

def NN_FixedType : TypeDef<NN_Dialect, "Fixed"> {
  let mnemonic = "fixed";
  let summary = "Two's complement fixed-point number";
  let description = [{
    `!nn.fixed<N, F>` is an N-bit two's complement integer `q` standing for
    `q * 2^-F`; its range is `[-2^(N-1), 2^(N-1) - 1] * 2^-F`.
  }];
  let parameters = (ins "unsigned":$width, "unsigned":$frac);
  let assemblyFormat = "`<` $width `,` $frac `>`";
  let genVerifyDecl = 1;
}

class NN_Op<string mnemonic, list<Trait> traits = []>
    : Op<NN_Dialect, mnemonic, traits>;

#endif // UNUM_DIALECT_NN_NNDIALECT_TD
