//===- UnumOps.td - unum dialect operations -----------------*- tablegen -*-===//
#ifndef UNUM_DIALECT_UNUM_UNUMOPS_TD
#define UNUM_DIALECT_UNUM_UNUMOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "unum/Dialect/Unum/IR/UnumDialect.td"
include "unum/Dialect/Unum/IR/UnumAttrs.td"
include "unum/Dialect/Unum/IR/UnumInterfaces.td"

//===----------------------------------------------------------------------===//
// unum.app
//===----------------------------------------------------------------------===//

def Unum_AppOp : Unum_Op<"app", [
    IsolatedFromAbove, SymbolTable, Symbol, NoTerminator, SingleBlock,
    NoRegionArguments, GraphRegionNoTerminator]> {
  let summary = "A workflow application: a symbol table of functions";
  let description = [{
    Holds the application's `unum.function`s. The verifier checks the
    properties of the whole graph:

    * at least one function is marked `start`;
    * every fan-in is consistent: a tail lists its own instance among the
      `values`, every function named in the `values` has a fan-in edge to the
      same target, and all of them name the same instances in the same order
      (each list read relative to its own tail's fan-out index, see
      `docs/Dialects/UnumGuide.md`);
    * fan-in tails checkpoint (the target reads their outputs from the store).

    Functions that no start function reaches get a warning.

    ```mlir
    unum.app @textproc {
      unum.function @A start checkpoint {
        unum.map @B
      }
      unum.function @B checkpoint {
        unum.fanin @C values ["B-unumIndex-*"] modifiers ["Pop"]
      }
      unum.function @C checkpoint {}
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

//===----------------------------------------------------------------------===//
// unum.function
//===----------------------------------------------------------------------===//

def Unum_FunctionOp : Unum_Op<"function", [
    Symbol, HasParent<"AppOp">, NoTerminator, SingleBlock, NoRegionArguments,
    GraphRegionNoTerminator]> {
  let summary = "A serverless function and its outgoing edges";
  let description = [{
    One deployed function (one `unum_config` file). Its body lists its
    continuations in issue order.

    * `start`: an entry function; it creates the workflow session.
    * `checkpoint`: store the output durably before continuing (exactly-once).
    * `fanout`: the edges form a fan-out even when there is only one (the file
      formats write `Next` as a list): every Scalar edge gets a new fan-out
      level whose index is its position among the Scalar edges. Functions with
      several edges are always written as a list.
    * `retry(n)`: re-run the function up to `n` times before taking its
      `unum.error` edges.
    * `timeout(n)`: an attempt of the user code that runs longer than `n`
      seconds fails with `States.Timeout` (a Task's `TimeoutSeconds`).
    * `retriers [...]`: the Step Functions retrier list (`ErrorEquals`,
      `IntervalSeconds`, `MaxAttempts`, `BackoffRate`, `MaxDelaySeconds`,
      `JitterStrategy`), as a JSON image: a failure is retried as the first
      retrier whose `ErrorEquals` matches its name says, with real waits,
      before the `unum.error` edges are taken.
    * `debug(b)`: the runtime's debug switch, kept for the file formats.
    * `handler("name")`: the user code this function runs, when it is not
      the function's own name (one handler serving several states).
    * `builtin("Pass"|"Wait"|"Succeed"|"Fail")`: the runtime provides the
      behaviour; there is no user code.
    * `dataflow {...}`: Step Functions data-flow fields applied by the runtime
      around the function (`InputPath`, `Parameters`, `ResultSelector`,
      `ResultPath`, `OutputPath`; `ItemsPath`, `ItemSelector` for its Map
      edges; `Result`, `Seconds`, `Timestamp`, `SecondsPath`, `TimestampPath`,
      `Error`, `Cause` for built-ins), as JSON images.
    * `save_input`: the function enters a Map or Parallel state whose sink
      needs the state's input (a `ResultPath` other than `$`): the runtime
      stores the function's input before its checkpoint.
    * `state_input(@F)`: the function is that sink; `@F` is the function
      that saved the state's input (at the same fan-out levels). The sink
      applies its `ResultPath` to it and garbage-collects it, so exactly one
      function reads each `save_input` function's input.

    The name must be usable in an instance name: letters, digits, `_` and `-`,
    without the `-unumIndex-` infix.

    ```mlir
    unum.function @First start checkpoint retry(3) {
      unum.chain @Second
      unum.error @FirstError
    }
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    UnitAttr:$start,
    UnitAttr:$checkpoint,
    UnitAttr:$fanout,
    OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$retry,
    OptionalAttr<BoolAttr>:$debug,
    OptionalAttr<StrAttr>:$handler,
    OptionalAttr<StrAttr>:$builtin,
    OptionalAttr<DictionaryAttr>:$dataflow,
    UnitAttr:$save_input,
    OptionalAttr<FlatSymbolRefAttr>:$state_input,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$loop,
    OptionalAttr<ArrayAttr>:$retriers,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$timeout
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`start` $start^)? (`checkpoint` $checkpoint^)?
    (`fanout` $fanout^)? (`retry` `(` $retry^ `)`)? (`debug` `(` $debug^ `)`)?
    (`handler` `(` $handler^ `)`)? (`builtin` `(` $builtin^ `)`)?
    (`save_input` $save_input^)? (`state_input` `(` $state_input^ `)`)?
    (`loop` `(` $loop^ `)`)? (`timeout` `(` $timeout^ `)`)?
    (`retriers` $retriers^)?
    (`dataflow` $dataflow^)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The outgoing edges, in issue order.
    auto getEdges() { return getBodyBlock().getOps<EdgeOpInterface>(); }
  }];
}

//===----------------------------------------------------------------------===//
// Edges
//===----------------------------------------------------------------------===//

class Unum_EdgeOp<string mnemonic, list<Trait> traits = []>
    : Unum_Op<mnemonic, !listconcat(traits, [
        HasParent<"FunctionOp">,
        DeclareOpInterfaceMethods<SymbolUserOpInterface>,
        Unum_EdgeOpInterface])> {
  dag edgeArgs = (ins
    FlatSymbolRefAttr:$target,
    OptionalAttr<Unum_ConditionAttr>:$condition,
    OptionalAttr<Unum_ModifierArrayAttr>:$modifiers
  );
  let arguments = edgeArgs;
  let assemblyFormat = [{
    $target `` custom<EdgeTail>($condition, $modifiers) attr-dict
  }];
  string edgeDoc = [{
    `if "<expr>"` gives the conditional; `modifiers [...]` the payload
    modifiers applied to the metadata passed along this edge.
  }];
}

def Unum_ChainOp : Unum_EdgeOp<"chain"> {
  let summary = "Scalar edge: invoke the target with this function's output";
  let description = !strconcat([{
    ```mlir
    unum.chain @B if "$out.size > 50"
    ```
  }], edgeDoc);
}

def Unum_MapOp : Unum_EdgeOp<"map"> {
  let summary = "Map edge: invoke the target once per element of the output";
  let description = !strconcat([{
    The output must be a list; element `i` of `n` is passed to an instance
    of the target with a new innermost fan-out level (index `i`, size `n`).
    With `max_concurrency(k)` (a Step Functions Map's `MaxConcurrency`) at
    most `k` iterations run at once: the first `k` are invoked, and each
    iteration's last function (the tail that reports to the collecting
    fan-in) invokes iteration `i + k` before it reports.

    ```mlir
    unum.map @Mapper
    unum.map @Charge max_concurrency(1)
    ```
  }], edgeDoc);
  let arguments = !con(edgeArgs,
                       (ins OptionalAttr<ConfinedAttr<I64Attr,
                                                      [IntPositive]>>:$max_concurrency));
  let assemblyFormat = [{
    $target `` custom<EdgeTail>($condition, $modifiers)
    (`max_concurrency` `(` $max_concurrency^ `)`)? attr-dict
  }];
}

def Unum_ErrorOp : Unum_EdgeOp<"error"> {
  let summary = "Catch edge: invoke the target when this function failed";
  let description = !strconcat([{
    Taken only after the function has failed and its retries are used up;
    the target receives the error, `{"Error": name, "Cause": text}`, or,
    with `result_path`, the function's input with the error placed at that
    path (a Step Functions Catch's `ResultPath`; a unit value is `null`:
    the input unchanged).

    With `propagate` the failure is not handled but passed on: the target
    (the last function of the Map iteration or Parallel branch the function
    runs in) is failed with the same error without running its code, and
    reports the failure to the state's sink over its `propagate` fan-in,
    which fails the state (and then its Retry and Catch apply).

    ```mlir
    unum.error @Handler
    unum.error @Report if "$out.Error == 'Timeout'" result_path "$.error"
    unum.error @UnumEndMap0 propagate
    ```
  }], edgeDoc);
  let arguments = !con(edgeArgs, (ins OptionalAttr<AnyAttr>:$result_path,
                                      UnitAttr:$propagate));
  let assemblyFormat = [{
    $target `` custom<EdgeTail>($condition, $modifiers)
    (`result_path` $result_path^)? (`propagate` $propagate^)? attr-dict
  }];
}

def Unum_FanInOp : Unum_EdgeOp<"fanin"> {
  let summary = "Fan-in edge: invoke the target once all `values` finished";
  let description = !strconcat([{
    `values` lists the instance names whose outputs the target receives, in
    order. Patterns are read relative to this instance's own fan-out indices
    (before this edge's modifiers apply).

    ```mlir
    unum.fanin @Summary values ["Mapper-unumIndex-*"] modifiers ["Pop"]
    unum.fanin @rebase values ["vpxenc-unumIndex-$0", "xcdec-unumIndex-($0-1)"] if "$0 == 1"
    unum.fanin @UnumSinkMap0 values ["F-unumIndex-*"] modifiers ["Pop"] propagate
    ```

    With `propagate` the edge also reports a failure of the function (one
    that no error edge takes, or one passed on to it by a `propagate` error
    edge): the target, a Map or Parallel state's sink, then fails with it.
    Without it a failure ends the workflow at this function.
  }], edgeDoc);
  let arguments = !con(edgeArgs, (ins Unum_NamePatternArrayAttr:$values,
                                      UnitAttr:$propagate));
  let assemblyFormat = [{
    $target `values` custom<NamePatterns>($values)
    `` custom<EdgeTail>($condition, $modifiers) (`propagate` $propagate^)?
    attr-dict
  }];
}

#endif // UNUM_DIALECT_UNUM_UNUMOPS_TD
