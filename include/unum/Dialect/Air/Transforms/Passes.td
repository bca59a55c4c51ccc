//===- Passes.td - air passes ------------------------------*- tablegen -*-===//
#ifndef UNUM_DIALECT_AIR_TRANSFORMS_PASSES_TD
#define UNUM_DIALECT_AIR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AirInfer : Pass<"air-infer", "mlir::ModuleOp"> {
  let summary = "Infer dtypes and shapes (numpy broadcasting)";
  let description = [{
    Walks every function whose parameters are all typed and gives each value
    its type: each kernel's `inferResultType`, weak literals take the dtype of
    the kernel they feed, a call takes its callee's result types when the
    callee is typed. Functions' result types are updated to what they return.
    A mismatch (dtypes differ, shapes do not broadcast, a reduction axis out
    of range) is an error at the kernel. Functions with generic parameters
    are left alone; `air-monomorphize` specialises them.
  }];
  let dependentDialects = ["::unum::air::AirDialect"];
}

def AirMonomorphize : Pass<"air-monomorphize", "mlir::ModuleOp"> {
  let summary = "One specialised function per call signature";
  let description = [{
    For every call to a generic function (one with `!air.generic`
    parameters) with typed arguments, clones the callee once per distinct
    argument type list (`<name>_<signature>`), infers the clone, and
    retargets the call; repeats until no call changes. `entry` and
    `signature` specialise a public entry point in place (what a JIT caller
    asks for): `signature` lists the parameter types in the AIR notation,
    e.g. `f32[?],f32[?],f32[]`. Generic functions left without callers are
    removed when private.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Public function to specialise in place">,
    Option<"signature", "signature", "std::string", /*default=*/"\"\"",
           "Parameter types for `entry`, comma separated (AIR notation)">,
  ];
  let dependentDialects = ["::unum::air::AirDialect"];
}

def AirExplicitBroadcast : Pass<"air-explicit-broadcast", "mlir::func::FuncOp"> {
  let summary = "Make numpy broadcasting explicit with air.broadcast";
  let description = [{
    Inserts an `air.broadcast` before every operand of an elementwise kernel
    whose shape differs from the result's, so later passes see only
    same-shape elementwise kernels.
  }];
}

def AirSimplify : Pass<"air-simplify", "mlir::ModuleOp"> {
  let summary = "Algebraic simplification, folding, CSE, DCE and inlining";
  let description = [{
    Inlines calls to small or single-use functions (`inline-threshold`
    kernels or fewer), then to a fixed point: folds `x*1`, `x+0`, `x-0`,
    `x/1`, `-(-x)`, `get(make_tuple(...))`, broadcasts to the same type and
    kernels whose operands are all constants; eliminates common
    subexpressions and dead kernels; removes private functions nobody calls.
  }];
  let options = [
    Option<"inlineThreshold", "inline-threshold", "unsigned", /*default=*/"8",
           "Inline callees with at most this many kernels (single-use callees "
           "are always inlined)">,
  ];
  let dependentDialects = ["::unum::air::AirDialect"];
}

def AirGrad : Pass<"air-grad", "mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation: air.grad into forward and reverse kernels";
  let description = [{
    Replaces every `air.grad @f(...) {wrt = [...]}` in a typed function by a
    call of a generated private function `f_grad_<wrt>` (or
    `f_value_and_grad_<wrt>`) that computes `f` forward and then its reverse
    sweep, both in ordinary air kernels, so that `air-simplify` inlines it
    and `air-fuse` fuses the backward pass like any other code.

    Before differentiating, the copy of `f` is flattened: calls are inlined
    (recursively; the AIR notation has no recursion) and `air.grad` ops in
    it are expanded first, which gives gradients of gradients, and
    broadcasting is made explicit. Then each
    kernel's adjoint rule (`GradientOpInterface`, declared with the kernel)
    runs from the result back to the parameters; adjoints of a value used
    several times are added, an adjoint of a broadcast operand is summed over
    the broadcast dimensions. A parameter the result does not depend on gets
    zeros.

    Errors, located at the `air.grad`: a parameter in `wrt` that is not a
    floating-point array, a function that does not return one floating-point
    scalar, a kernel without a rule (a second derivative of conv1d).
  }];
  let dependentDialects = ["::unum::air::AirDialect"];
}

def AirFuse : Pass<"air-fuse", "mlir::func::FuncOp"> {
  let summary = "Contract elementwise subgraphs into air.fused";
  let description = [{
    Groups kernels into `air.fused` ops, each lowered later as one loop nest:
    a maximal connected set of elementwise kernels and broadcasts in which
    every value used outside the group is a result of it; a reduction with
    its elementwise producers used only by the group (their work happens
    inside the reduction loop); a reduction, matmul or conv1d with the
    elementwise consumers of its result (the epilogue). A kernel whose value
    has other users stays outside, so nothing is computed twice.

    Then multi-output fusion: loops over the same elements (elementwise
    groups of one shape, full reductions of arrays of that shape) merge, in
    block order, into one `air.fused` with a result per value used outside
    it, lowered as one loop nest that reads each input once (the value and
    gradients of `sum((a-b)^2)`: one loop). A loop joins only when both
    provably run over the same elements (the shape is static, or they share
    an array: a dynamic size never stretches), when it does not read a
    reduction of the group, and when no other op uses the group's values
    before it.
  }];
  let dependentDialects = ["::unum::air::AirDialect"];
}

def AirExpandMath : Pass<"air-expand-math"> {
  let summary = "Expand f32 exp and log into vectorizable polynomials";
  let description = [{
    Replaces `math.exp` and `math.log` on f32 (scalars and vectors) by
    branch-free polynomials: exp with a Cody-Waite reduction, a degree-7
    polynomial and a two-step scaling by 2^k (overflow to +inf, subnormal
    results, 0 below); log with subnormal arguments rescaled and Cephes'
    logf polynomial. Within 1 ulp of the exact result over the whole f32
    range (test/python/test_math_accuracy.py); plain arithmetic that
    vectorises, where a libm call would stay scalar. `tanh`, `sigmoid` and
    f64 functions keep libm
    accuracy.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif // UNUM_DIALECT_AIR_TRANSFORMS_PASSES_TD
