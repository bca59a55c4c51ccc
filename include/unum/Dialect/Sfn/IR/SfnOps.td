//===- SfnOps.td - Amazon States Language as a dialect -----*- tablegen -*-===//
#ifndef UNUM_DIALECT_SFN_SFNOPS_TD
#define UNUM_DIALECT_SFN_SFNOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/RegionKindInterface.td"

def Sfn_Dialect : Dialect {
  let name = "sfn";
  let cppNamespace = "::unum::sfn";
  let summary = "A faithful image of AWS Step Functions state machines (ASL)";
  let description = [{
    The `sfn` dialect holds an Amazon States Language state machine as it was
    written, so that its semantics are checked before `convert-sfn-to-unum`
    lowers it to the decentralised `unum` graph. Every state is an op named by
    its state name; `next` names the following state of the same scope
    (the state machine, a Parallel branch or a Map iterator). JSON-valued
    fields (`Parameters`, `Result`, `ResultSelector`, `ItemSelector`,
    `Retry`, `Catch`, Choice rules) are kept as their JSON image: objects
    become dictionaries, arrays arrays, `null` a unit attribute.

    The verifier checks each scope: state names are unique, `start`, every
    `next`, Choice `Next`/`Default` and Catch `Next` resolve within the scope,
    states that neither `end` nor continue are errors.
  }];
}

class Sfn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sfn_Dialect, mnemonic, traits>;

// Fields every state has.
class Sfn_StateOp<string mnemonic, list<Trait> traits = []>
    : Sfn_Op<mnemonic, !listconcat(traits, [ParentOneOf<
          ["StateMachineOp", "ParallelOp", "MapOp"]>])> {
  dag commonArgs = (ins
    StrAttr:$name,
    OptionalAttr<StrAttr>:$next,
    UnitAttr:$end,
    OptionalAttr<StrAttr>:$comment,
    // A reference path, or a unit attribute for JSON `null`.
    OptionalAttr<AnyAttr>:$input_path,
    OptionalAttr<AnyAttr>:$output_path
  );
  let assemblyFormat = [{
    $name (`next` $next^)? (`end` $end^)? attr-dict
  }];
}

def Sfn_StateMachineOp : Sfn_Op<"state_machine", [
    IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments,
    GraphRegionNoTerminator]> {
  let summary = "A state machine: its top-level states";
  let description = [{
    `start` names the first state (`StartAt`). `checkpoint` and `debug`
    record the application-wide options of the original Unum compiler's
    template (`Globals`), applied when lowering.

    ```mlir
    sfn.state_machine "hello" start "Hello" {
      sfn.task "Hello" next "World" {resource = "Hello"}
      sfn.task "World" end {resource = "World"}
    }
    ```
  }];
  let arguments = (ins
    StrAttr:$sym_name,
    StrAttr:$start,
    OptionalAttr<StrAttr>:$comment,
    OptionalAttr<I64Attr>:$timeout_seconds,
    OptionalAttr<BoolAttr>:$checkpoint,
    OptionalAttr<BoolAttr>:$debug
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `start` $start attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def Sfn_TaskOp : Sfn_StateOp<"task"> {
  let summary = "Task state: run one function";
  let description = [{
    `resource` is the function: a name, or an ARN (mapped to a name by the
    importer's function map, else its last segment). `lambda_invoke` marks
    an `arn:aws:states:::lambda:invoke` Task: the function gets the
    `Payload` of its parameters and its result is wrapped as Lambda's
    response, `{"ExecutedVersion", "Payload", "StatusCode"}`.
  }];
  let arguments = !con(commonArgs, (ins
    StrAttr:$resource,
    OptionalAttr<BoolAttr>:$lambda_invoke,
    OptionalAttr<AnyAttr>:$parameters,
    OptionalAttr<AnyAttr>:$result_selector,
    OptionalAttr<AnyAttr>:$result_path,
    OptionalAttr<ArrayAttr>:$retry,
    OptionalAttr<ArrayAttr>:$catchers,
    OptionalAttr<I64Attr>:$timeout_seconds,
    OptionalAttr<StrAttr>:$timeout_seconds_path,
    OptionalAttr<I64Attr>:$heartbeat_seconds
  ));
}

def Sfn_PassOp : Sfn_StateOp<"pass"> {
  let summary = "Pass state: pass (or replace) the input";
  let arguments = !con(commonArgs, (ins
    OptionalAttr<AnyAttr>:$result,
    OptionalAttr<AnyAttr>:$parameters,
    OptionalAttr<AnyAttr>:$result_path
  ));
}

def Sfn_ChoiceOp : Sfn_StateOp<"choice"> {
  let summary = "Choice state: branch on the input";
  let description = [{
    `choices` holds the rules in order, each the JSON image of an ASL Choice
    rule (a comparison, or `And`/`Or`/`Not`) with its `Next`; `default_state` the
    state taken when no rule matches.
  }];
  let arguments = !con(commonArgs, (ins
    ArrayAttr:$choices,
    OptionalAttr<StrAttr>:$default_state
  ));
}

def Sfn_WaitOp : Sfn_StateOp<"wait"> {
  let summary = "Wait state: delay for a time or until a timestamp";
  let arguments = !con(commonArgs, (ins
    OptionalAttr<I64Attr>:$seconds,
    OptionalAttr<StrAttr>:$timestamp,
    OptionalAttr<StrAttr>:$seconds_path,
    OptionalAttr<StrAttr>:$timestamp_path
  ));
}

def Sfn_SucceedOp : Sfn_StateOp<"succeed"> {
  let summary = "Succeed state: end the execution successfully";
  let arguments = commonArgs;
}

def Sfn_FailOp : Sfn_StateOp<"fail"> {
  let summary = "Fail state: end the execution with an error";
  let arguments = !con(commonArgs, (ins
    OptionalAttr<StrAttr>:$error,
    OptionalAttr<StrAttr>:$cause,
    OptionalAttr<StrAttr>:$error_path,
    OptionalAttr<StrAttr>:$cause_path
  ));
}

def Sfn_ParallelOp : Sfn_StateOp<"parallel", [
    NoTerminator, GraphRegionNoTerminator, NoRegionArguments]> {
  let summary = "Parallel state: run branches on the same input";
  let description = [{
    One region per branch, in order; `starts` holds each branch's `StartAt`.
    The output is the list of the branches' outputs.
  }];
  let arguments = !con(commonArgs, (ins
    ArrayAttr:$starts,
    OptionalAttr<AnyAttr>:$parameters,
    OptionalAttr<AnyAttr>:$result_selector,
    OptionalAttr<AnyAttr>:$result_path,
    OptionalAttr<ArrayAttr>:$retry,
    OptionalAttr<ArrayAttr>:$catchers
  ));
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let assemblyFormat = [{
    $name (`next` $next^)? (`end` $end^)? attr-dict-with-keyword $branches
  }];
}

def Sfn_MapOp : Sfn_StateOp<"map", [
    NoTerminator, GraphRegionNoTerminator, NoRegionArguments]> {
  let summary = "Map state: run the iterator once per item";
  let description = [{
    The region is the `Iterator` (or `ItemProcessor`); `start` its
    `StartAt`. `items_path` selects the array, `item_selector` (also
    `Parameters`) shapes each item.
  }];
  let arguments = !con(commonArgs, (ins
    StrAttr:$start,
    OptionalAttr<StrAttr>:$items_path,
    OptionalAttr<AnyAttr>:$item_selector,
    OptionalAttr<I64Attr>:$max_concurrency,
    OptionalAttr<AnyAttr>:$result_selector,
    OptionalAttr<AnyAttr>:$result_path,
    OptionalAttr<ArrayAttr>:$retry,
    OptionalAttr<ArrayAttr>:$catchers
  ));
  let regions = (region SizedRegion<1>:$iterator);
  let assemblyFormat = [{
    $name (`next` $next^)? (`end` $end^)? attr-dict-with-keyword $iterator
  }];
}

#endif // UNUM_DIALECT_SFN_SFNOPS_TD
