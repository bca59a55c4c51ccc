//===- AirOps.td - The air array dialect's ops -------------*- tablegen -*-===//
#ifndef UNUM_DIALECT_AIR_AIROPS_TD
#define UNUM_DIALECT_AIR_AIROPS_TD

include "unum/Dialect/Air/IR/AirDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// Kernel metadata: declared once per op, read by the passes.
//===----------------------------------------------------------------------===//

class Air_Trait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::unum::air::OpTrait";
}
// Computes each result element from the operand elements at the same index
// (after numpy broadcasting): air-fuse contracts these.
def Air_Elementwise : Air_Trait<"Elementwise">;
// (a op b) op c == a op (b op c): reductions may reassociate.
def Air_Associative : Air_Trait<"Associative">;
// Result elements are i1.
def Air_Comparison : Air_Trait<"Comparison">;
// Only floating-point operands are accepted.
def Air_FloatOnly : Air_Trait<"FloatOnly">;
// Reduces over `axes`.
def Air_Reduction : Air_Trait<"Reduction">;

def Air_KernelOpInterface : OpInterface<"KernelOp"> {
  let cppNamespace = "::unum::air";
  let description = [{
    An array kernel: one op of the AIR notation's `kernel(op, args...)`.
    Passes read the kernel's properties here instead of listing op names.
  }];
  let methods = [
    StaticInterfaceMethod<
      "The kernel's name in the AIR notation (`add`, `sum`, ...).",
      "::llvm::StringRef", "getKernelName", (ins), [{}],
      [{ return ConcreteOp::getOperationName().drop_front(4); }]>,
    InterfaceMethod<[{
        Infers the result type from `operandTypes` (the op's attributes
        included). Generic operands give `!air.generic`. On an error, emits
        it at `loc` when given and returns a null type.
      }],
      "::mlir::Type", "inferResultType",
      (ins "::mlir::TypeRange":$operandTypes,
           "std::optional<::mlir::Location>":$loc), [{}],
      [{
        return ::unum::air::inferElementwiseType(
            $_op.getOperation(), operandTypes, loc);
      }]>,
  ];
  // Every kernel's result type is what its operands imply.
  let verify = [{ return ::unum::air::detail::verifyKernel($_op); }];
  let extraSharedClassDeclaration = [{
    bool isElementwise() {
      return $_op->template hasTrait<::unum::air::OpTrait::Elementwise>();
    }
    bool isCommutative() {
      return $_op->template hasTrait<::mlir::OpTrait::IsCommutative>();
    }
    bool isAssociative() {
      return $_op->template hasTrait<::unum::air::OpTrait::Associative>();
    }
    bool isReduction() {
      return $_op->template hasTrait<::unum::air::OpTrait::Reduction>();
    }
  }];
}


def Air_GradientOpInterface : OpInterface<"GradientOp"> {
  let cppNamespace = "::unum::air";
  let description = [{
    A kernel's reverse-mode derivative rule, declared next to the kernel and
    read by `air-grad`. Given the adjoint of the result (dL/dresult), the
    rule builds, with ordinary air kernels at the builder's insertion point,
    the adjoint of each operand: its contribution to dL/doperand. An entry
    is null where no gradient flows (a `select`'s condition, an integer
    operand, a comparison). An adjoint may have the result's shape (or any
    shape that broadcasts to it) where an operand was broadcast: `air-grad`
    sums it back over the broadcast dimensions, the rule of `air.broadcast`.
  }];
  let methods = [
    InterfaceMethod<[{
        Appends one adjoint (or null) per operand to `operandAdjoints`.
        Fails, after emitting a located error, for what has no rule (the
        derivative of a gradient kernel).
      }],
      "::mlir::LogicalResult", "buildGradient",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Value":$adjoint,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandAdjoints)>,
  ];
}

//===----------------------------------------------------------------------===//
// Op classes
//===----------------------------------------------------------------------===//

class Air_Op<string mnemonic, list<Trait> traits = []>
    : Op<Air_Dialect, mnemonic, traits>;

// `overrides` names the interface methods the op implements itself.
class Air_KernelOp<string mnemonic, list<Trait> traits = [],
                   list<string> overrides = []>
    : Air_Op<mnemonic, !listconcat(traits,
        [Pure, DeclareOpInterfaceMethods<Air_KernelOpInterface, overrides>,
         DeclareOpInterfaceMethods<Air_GradientOpInterface>])> {
  let results = (outs AnyType:$result);
}

class Air_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Air_KernelOp<mnemonic, !listconcat(traits, [Air_Elementwise])> {
  let summary = "elementwise `" # mnemonic # "`";
  let arguments = (ins AnyType:$operand);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
}

class Air_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Air_KernelOp<mnemonic, !listconcat(traits, [Air_Elementwise])> {
  let summary = "elementwise `" # mnemonic # "` with numpy broadcasting";
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise kernels
//===----------------------------------------------------------------------===//

let hasFolder = 1 in {
def Air_AddOp : Air_BinaryOp<"add", [Commutative, Air_Associative]>;
def Air_SubOp : Air_BinaryOp<"sub">;
def Air_MulOp : Air_BinaryOp<"mul", [Commutative, Air_Associative]>;
def Air_DivOp : Air_BinaryOp<"div">;
def Air_NegOp : Air_UnaryOp<"neg">;
}
def Air_MaxOp : Air_BinaryOp<"max", [Commutative, Air_Associative]>;
def Air_MinOp : Air_BinaryOp<"min", [Commutative, Air_Associative]>;
def Air_PowOp : Air_BinaryOp<"pow", [Air_FloatOnly]>;

def Air_EqOp : Air_BinaryOp<"eq", [Commutative, Air_Comparison]>;
def Air_NeOp : Air_BinaryOp<"ne", [Commutative, Air_Comparison]>;
def Air_LtOp : Air_BinaryOp<"lt", [Air_Comparison]>;
def Air_LeOp : Air_BinaryOp<"le", [Air_Comparison]>;
def Air_GtOp : Air_BinaryOp<"gt", [Air_Comparison]>;
def Air_GeOp : Air_BinaryOp<"ge", [Air_Comparison]>;

def Air_AbsOp : Air_UnaryOp<"abs">;
def Air_ExpOp : Air_UnaryOp<"exp", [Air_FloatOnly]>;
def Air_LogOp : Air_UnaryOp<"log", [Air_FloatOnly]>;
def Air_SqrtOp : Air_UnaryOp<"sqrt", [Air_FloatOnly]>;
def Air_TanhOp : Air_UnaryOp<"tanh", [Air_FloatOnly]>;
def Air_SigmoidOp : Air_UnaryOp<"sigmoid", [Air_FloatOnly]>;

def Air_SelectOp : Air_KernelOp<"select", [Air_Elementwise], ["inferResultType"]> {
  let summary = "elementwise `cond ? lhs : rhs` with numpy broadcasting";
  let arguments = (ins AnyType:$cond, AnyType:$lhs, AnyType:$rhs);
  let assemblyFormat = [{
    $cond `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Air_CastOp : Air_KernelOp<"cast", [Air_Elementwise], ["inferResultType"]> {
  let summary = "elementwise conversion to another dtype";
  let description = [{
    Float to integer rounds toward zero; integer to float rounds to nearest;
    a cast to `i1` compares with zero.
  }];
  let arguments = (ins AnyType:$operand, TypeAttr:$dtype);
  let assemblyFormat = [{
    $operand `to` $dtype attr-dict `:` type($operand) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Reductions, contractions and layout
//===----------------------------------------------------------------------===//

class Air_ReductionOp<string mnemonic, list<Trait> traits = []>
    : Air_KernelOp<mnemonic, !listconcat(traits, [Air_Reduction]),
                   ["inferResultType"]> {
  let summary = "`" # mnemonic # "` over `axes` (all axes when absent)";
  let arguments = (ins AnyType:$operand,
                       OptionalAttr<DenseI64ArrayAttr>:$axes);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
}
def Air_SumOp : Air_ReductionOp<"sum", [Air_Associative]>;
def Air_ReduceMaxOp : Air_ReductionOp<"reduce_max", [Air_Associative]> {
  let extraClassDeclaration = [{
    static ::llvm::StringRef getKernelName() { return "max"; }
  }];
}
def Air_ReduceMinOp : Air_ReductionOp<"reduce_min", [Air_Associative]> {
  let extraClassDeclaration = [{
    static ::llvm::StringRef getKernelName() { return "min"; }
  }];
}
def Air_MeanOp : Air_ReductionOp<"mean", [Air_FloatOnly]>;

def Air_MatmulOp : Air_KernelOp<"matmul", [], ["inferResultType"]> {
  let summary = "matrix product `[M, K] x [K, N] -> [M, N]`";
  let arguments = (ins AnyType:$lhs, AnyType:$rhs);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Air_Conv1DOp : Air_KernelOp<"conv1d", [], ["inferResultType"]> {
  let summary = "1-D convolution, `[L, C]` layout, no padding";
  let description = [{
    `input` is `[L, C_in]`, `filter` is `[K, C_in, C_out]`; the result is
    `[(L - K) / stride + 1, C_out]` with
    `result[l, o] = sum_{k, c} input[l * stride + k, c] * filter[k, c, o]`.
  }];
  let arguments = (ins AnyType:$input, AnyType:$filter,
                       DefaultValuedAttr<I64Attr, "1">:$stride);
  let assemblyFormat = [{
    $input `,` $filter attr-dict `:` functional-type(operands, results)
  }];
}

// The two adjoints of conv1d, made by air-grad (not in the AIR notation).
def Air_Conv1DInputGradOp : Air_KernelOp<"conv1d_input_grad", [],
                                         ["inferResultType"]> {
  let summary = "the adjoint of a conv1d's input";
  let description = [{
    `result[l, c] = sum_{j, k, o: j * stride + k = l} grad[j, o] * filter[k, c, o]`
    (a transposed convolution); `input` only gives the result's type, the
    input's `[L, C_in]` (L is not implied by the other shapes when
    `stride > 1`).
  }];
  let arguments = (ins AnyType:$grad, AnyType:$filter, AnyType:$input,
                       DefaultValuedAttr<I64Attr, "1">:$stride);
  let assemblyFormat = [{
    $grad `,` $filter `,` $input attr-dict `:` functional-type(operands, results)
  }];
}

def Air_Conv1DFilterGradOp : Air_KernelOp<"conv1d_filter_grad", [],
                                          ["inferResultType"]> {
  let summary = "the adjoint of a conv1d's filter";
  let description = [{
    `result[k, c, o] = sum_j input[j * stride + k, c] * grad[j, o]`;
    `filter` only gives the result's type `[K, C_in, C_out]`.
  }];
  let arguments = (ins AnyType:$input, AnyType:$grad, AnyType:$filter,
                       DefaultValuedAttr<I64Attr, "1">:$stride);
  let assemblyFormat = [{
    $input `,` $grad `,` $filter attr-dict `:` functional-type(operands, results)
  }];
}

def Air_ReshapeOp : Air_KernelOp<"reshape", [], ["inferResultType"]> {
  let summary = "reinterpret the elements (row-major) with another shape";
  let description = [{ One entry of `shape` may be -1: it takes what is left. }];
  let arguments = (ins AnyType:$operand, DenseI64ArrayAttr:$shape);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
}

def Air_TransposeOp : Air_KernelOp<"transpose", [], ["inferResultType"]> {
  let summary = "permute the axes: result axis i is operand axis perm[i]";
  let arguments = (ins AnyType:$operand, DenseI64ArrayAttr:$perm);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
}

def Air_BroadcastOp : Air_KernelOp<"broadcast", [], ["inferResultType"]> {
  let summary = "stretch to the result's shape (numpy rules)";
  let description = [{
    Made explicit by `air-explicit-broadcast`; the result type says the
    target shape.
  }];
  let arguments = (ins AnyType:$operand);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Tuples and constants
//===----------------------------------------------------------------------===//

def Air_MakeTupleOp : Air_KernelOp<"make_tuple", [], ["inferResultType"]> {
  let summary = "group values into a tuple";
  let arguments = (ins Variadic<AnyType>:$elements);
  let assemblyFormat = "$elements attr-dict `:` functional-type($elements, results)";
}

def Air_GetOp : Air_KernelOp<"get", [], ["inferResultType"]> {
  let summary = "element `index` of a tuple";
  let arguments = (ins AnyType:$tuple, I64Attr:$index);
  let assemblyFormat = "$tuple `[` $index `]` attr-dict `:` type($tuple) `->` type($result)";
  let hasFolder = 1;
}

def Air_ConstantOp : Air_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Air_LiteralOp : Air_Op<"literal", [Pure]> {
  let summary = "a number whose dtype comes from the kernel it feeds";
  let description = [{
    A weakly typed scalar: `kernel(mul, %x, 2)` multiplies by 2 in `%x`'s
    dtype. `air-infer` turns it into an `air.constant` once that dtype is
    known.
  }];
  let arguments = (ins F64Attr:$value);
  let results = (outs Air_GenericType:$result);
  let assemblyFormat = "$value attr-dict";
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

def Air_CallOp : Air_Op<"call", [CallOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call a function, generic or specialised";
  let description = [{
    Unlike `func.call`, the argument types need only be compatible with the
    callee's parameters: a generic parameter accepts any type. After
    `air-monomorphize` every call names a callee whose parameter types are
    exactly its argument types.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyType>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
  let extraClassDeclaration = [{
    operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() {
      return getOperandsMutable();
    }
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return (*this)->getAttrOfType<::mlir::SymbolRefAttr>("callee");
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(callee));
    }
  }];
}

//===----------------------------------------------------------------------===//
// Derivatives
//===----------------------------------------------------------------------===//

def Air_GradOp : Air_Op<"grad", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the gradient of a function at its arguments";
  let description = [{
    `air.grad @f(%x, %y) {wrt = array<i64: 0>}` is the gradient of `f`, a
    function returning one floating-point scalar, with respect to the
    parameters listed in `wrt`, at the arguments: one result per `wrt`
    entry, each of its parameter's type. With `with_value`, the first
    result is `f`'s value (value-and-grad). `air-grad` replaces the op by a
    call of a generated function that computes `f` forward and then its
    reverse sweep, in ordinary kernels.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyType>:$operands,
                       DenseI64ArrayAttr:$wrt,
                       UnitAttr:$with_value);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def Air_FusedOp : Air_Op<"fused", [IsolatedFromAbove, Pure,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a contracted subgraph, lowered as one loop nest";
  let description = [{
    Made by `air-fuse`: the body computes the results from the block
    arguments (bound to `inputs`) with elementwise kernels and broadcasts,
    around at most one reduction, matmul or conv1d (the anchor) whose
    elementwise producers (reductions only) and consumers it contains.
  }];
  let arguments = (ins Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body
  }];
  let hasVerifier = 1;
}

def Air_YieldOp : Air_Op<"yield", [Pure, Terminator, HasParent<"FusedOp">]> {
  let summary = "the results of an `air.fused` body";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ }]>];
}

#endif // UNUM_DIALECT_AIR_AIROPS_TD
