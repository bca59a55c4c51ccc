//===- UnumDialect.td - The unum workflow dialect ----------*- tablegen -*-===//
#ifndef UNUM_DIALECT_UNUM_UNUMDIALECT_TD
#define UNUM_DIALECT_UNUM_UNUMDIALECT_TD

include "mlir/IR/OpBase.td"

def Unum_Dialect : Dialect {
  let name = "unum";
  let cppNamespace = "::unum";
  let summary = "Decentralised serverless workflows (the Unum IR)";
  let description = [{
    The `unum` dialect is the Unum intermediate representation: a workflow is
    a graph of serverless functions in which every function knows only its own
    outgoing edges. An `unum.app` is a symbol table of `unum.function`s; each
    function's body lists its continuations, in the order the runtime issues
    them:

    * `unum.chain` (Scalar): invoke the target once with this function's output;
    * `unum.map` (Map): the output is a list, invoke the target once per element;
    * `unum.fanin` (Fan-in): once every instance named by `values` has
      finished, invoke the target once with their outputs, in `values` order;
    * `unum.error` (catch edge): invoke the target only when this function
      failed and its retries are used up.

    Several edges make a fan-out. Every edge may carry a conditional (taken
    only when it evaluates to true) and payload modifiers (edits to the fan-out
    metadata passed on). Conditionals, fan-in name patterns and modifiers are
    parsed once into the shared AST of the config library and held in the
    `#unum.cond`, `#unum.pattern` and `#unum.modifier` attributes.

    The dialect is the canonical form of both file spellings of the Unum IR
    (`unum_config.json` and `unum_config.yaml`); it writes the output variable
    `$out` and the index infix `-unumIndex-`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class Unum_Op<string mnemonic, list<Trait> traits = []>
    : Op<Unum_Dialect, mnemonic, traits>;

#endif // UNUM_DIALECT_UNUM_UNUMDIALECT_TD
