//===- UnumInterfaces.td - The edge interface --------------*- tablegen -*-===//
#ifndef UNUM_DIALECT_UNUM_UNUMINTERFACES_TD
#define UNUM_DIALECT_UNUM_UNUMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Unum_EdgeOpInterface : OpInterface<"EdgeOpInterface"> {
  let cppNamespace = "::unum";
  let description = [{
    An outgoing edge of an `unum.function`: a target function, an optional
    conditional and optional payload modifiers. Passes and exporters treat all
    edge kinds through this interface.
  }];
  let methods = [
    InterfaceMethod<"The function this edge invokes.",
      "::mlir::FlatSymbolRefAttr", "getTargetAttr">,
    InterfaceMethod<"The conditional, or null when the edge is always taken.",
      "::unum::ConditionAttr", "getConditionAttr">,
    InterfaceMethod<"The payload modifiers, or null when there are none.",
      "::mlir::ArrayAttr", "getModifiersAttr">,
  ];
}

#endif // UNUM_DIALECT_UNUM_UNUMINTERFACES_TD
