//===- AirDialect.td - The air array dialect ---------------*- tablegen -*-===//
#ifndef UNUM_DIALECT_AIR_AIRDIALECT_TD
#define UNUM_DIALECT_AIR_AIRDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Air_Dialect : Dialect {
  let name = "air";
  let cppNamespace = "::unum::air";
  let summary = "Array programs as three-address kernel DAGs (Blaze's AIR)";
  let description = [{
    The `air` dialect holds array expressions the way Blaze's AIR writes
    them: a function body is a linear list of three-address kernels
    (`kernel(op, args...)` in the text notation), each op one array
    operation on whole tensors. Values are builtin tensors (`tensor<4x?xf32>`,
    a 0-d tensor for a scalar) or builtin tuples; `!air.generic` marks a
    value whose dtype and shape are not known yet, so a function whose
    parameters are generic is specialised per call signature by
    `air-monomorphize`.

    Functions, calls and returns are the builtin `func` dialect's, so the
    upstream inliner, symbol tables and call graph work unchanged.

    Broadcasting follows numpy: shapes align on the right, and a dimension of
    size 1 stretches. Until `air-explicit-broadcast` runs, an elementwise op
    broadcasts its operands implicitly; afterwards every operand of an
    elementwise op has the result's shape and `air.broadcast` does the
    stretching. `air.fused` holds a contracted subgraph (see `air-fuse`).

    What passes need to know about a kernel (elementwise, commutative,
    associative, its name in the text notation) is declared once on the op
    through traits and read through `KernelOpInterface`.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class Air_Type<string name, string typeMnemonic> : TypeDef<Air_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Air_GenericType : Air_Type<"Generic", "generic"> {
  let summary = "a value whose dtype and shape are not known yet";
  let description = [{
    The type of a parameter written without a type in the AIR notation, and
    of every value computed from one. `air-infer` replaces it once the
    function is specialised to concrete argument types.
  }];
  let builderCall = "$_builder.getType<::unum::air::GenericType>()";
}

#endif // UNUM_DIALECT_AIR_AIRDIALECT_TD
