//===- Passes.td - unum dialect passes ---------------------*- tablegen -*-===//
#ifndef UNUM_DIALECT_UNUM_TRANSFORMS_PASSES_TD
#define UNUM_DIALECT_UNUM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def UnumLint : Pass<"unum-lint", "mlir::ModuleOp"> {
  let summary = "Warn about valid but suspicious unum apps";
  let description = [{
    Checks that do not make an app invalid, so they are warnings from a pass
    (run once by `unumc` and by `unum-translate --to-json`), not from the
    verifier (which runs after every pass and would repeat them):

    * a function that no start function reaches through any edge.

    The pass changes nothing.
  }];
}

#endif // UNUM_DIALECT_UNUM_TRANSFORMS_PASSES_TD
