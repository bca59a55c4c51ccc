// RUN: unum-opt %s -convert-sfn-to-unum -split-input-file -verify-diagnostics | FileCheck %s
// Pass, Wait, Succeed, Fail, Retry, Catch, shared handlers, data flow.

// Identity Pass and Succeed fold away; a Pass with a Result, a Wait and a
// Fail become built-in functions.
// CHECK-LABEL: unum.app @builtins
// CHECK:      unum.function @Hello start checkpoint builtin("Pass") dataflow {Result = "Hello"} {
// CHECK-NEXT:   unum.chain @Work
// CHECK:      unum.function @Work checkpoint {
// CHECK-NEXT:   unum.chain @Pause
// CHECK:      unum.function @Pause checkpoint builtin("Wait") dataflow {Seconds = 5 : i64} {
// CHECK-NEXT:   unum.chain @Bad if "is_boolean($out.ok) and $out.ok == false"
// CHECK-NEXT: }
// CHECK:      unum.function @Bad checkpoint builtin("Fail") dataflow {Cause = "not ok", Error = "NotOk"} {
// CHECK-NEXT: }
sfn.state_machine "builtins" start "Hello" {
  sfn.pass "Hello" next "Forward" {result = "Hello"}
  sfn.pass "Forward" next "Work"
  sfn.task "Work" next "Pause" {resource = "Work"}
  sfn.wait "Pause" next "Check" {seconds = 5}
  sfn.choice "Check" {choices = [{Variable = "$.ok", BooleanEquals = false, Next = "Bad"}], default_state = "Done"}
  sfn.fail "Bad" {error = "NotOk", cause = "not ok"}
  sfn.succeed "Done"
}

// -----

// Retry is kept as its retrier list; each Catch becomes an error edge,
// conditioned on the error name unless it catches everything; Task data flow
// is kept.
// CHECK-LABEL: unum.app @catching
// CHECK:      unum.function @First start checkpoint retriers [{ErrorEquals = ["States.ALL"], MaxAttempts = 2 : i64}] dataflow {InputPath = "$.in", ResultPath = "$.out"} {
// CHECK-NEXT:   unum.chain @Second
// CHECK-NEXT:   unum.error @Timeout if "($out.Error == 'States.Timeout')"
// CHECK-NEXT:   unum.error @Handler if "not ($out.Error == 'States.Timeout')"
// CHECK:      unum.function @Second checkpoint {
// CHECK:      unum.function @Timeout checkpoint {
// CHECK:      unum.function @Handler checkpoint {
sfn.state_machine "catching" start "First" {
  sfn.task "First" next "Second" {resource = "First", input_path = "$.in", result_path = "$.out",
    retry = [{ErrorEquals = ["States.ALL"], MaxAttempts = 2}],
    catchers = [{ErrorEquals = ["States.Timeout"], Next = "Timeout"}, {ErrorEquals = ["States.ALL"], Next = "Handler"}]}
  sfn.task "Second" end {resource = "Second"}
  sfn.task "Timeout" end {resource = "Timeout"}
  sfn.task "Handler" end {resource = "Handler"}
}

// -----

// A function used by several states: one unum function per state, sharing
// the handler (the original compiler looped forever here).
// CHECK-LABEL: unum.app @reuse
// CHECK:      unum.function @ChainPass start checkpoint {
// CHECK-NEXT:   unum.chain @Step2
// CHECK:      unum.function @Step2 checkpoint handler("ChainPass") {
// CHECK-NEXT:   unum.chain @Step_3
// CHECK:      unum.function @Step_3 checkpoint handler("ChainPass") {
sfn.state_machine "reuse" start "Step1" {
  sfn.task "Step1" next "Step2" {resource = "ChainPass"}
  sfn.task "Step2" next "Step 3" {resource = "ChainPass"}
  sfn.task "Step 3" end {resource = "arn:aws:lambda:us-east-1:123456789012:function:ChainPass"}
}

// -----

// Retriers for specific errors are kept, in order, for the runtime.
// CHECK-LABEL: unum.app @retry
// CHECK: unum.function @A start checkpoint retriers [{ErrorEquals = ["Throttled"], MaxAttempts = 5 : i64}, {BackoffRate = 1.500000e+00 : f64, ErrorEquals = ["States.ALL"], IntervalSeconds = 2 : i64, JitterStrategy = "FULL", MaxDelaySeconds = 10 : i64}]
sfn.state_machine "retry" start "A" {
  sfn.task "A" end {resource = "A", retry = [{ErrorEquals = ["Throttled"], MaxAttempts = 5}, {ErrorEquals = ["States.ALL"], IntervalSeconds = 2, BackoffRate = 1.5, JitterStrategy = "FULL", MaxDelaySeconds = 10}]}
}

// -----

// Retry and Catch on a Map: an uncaught failure in the iterator goes on to
// its last function ("propagate"), which reports it to the sink; the sink
// carries the state's retriers and catchers and has the state's input; a
// retry re-enters the state, so its functions get "Loop".
// CHECK-LABEL: unum.app @mapretry
// CHECK: unum.function @T checkpoint loop(1) {
// CHECK-NEXT: unum.chain @U
// CHECK-NEXT: unum.error @U propagate
// CHECK: unum.function @U checkpoint loop(1) {
// CHECK-NEXT: unum.fanin @UnumSinkMap0 values ["U-unumIndex-*"] modifiers ["Pop"]
// CHECK: unum.function @UnumMap0 start checkpoint save_input loop(1) {
// CHECK: unum.function @UnumSinkMap0 checkpoint state_input(@UnumMap0) loop(1) retriers [{ErrorEquals = ["States.ALL"]}] {
// CHECK-NEXT: unum.chain @Done
// CHECK-NEXT: unum.error @Done if "($out.Error == 'Bad')" result_path "$.err"
sfn.state_machine "mapretry" start "M" {
  sfn.map "M" next "Done" attributes {start = "T", retry = [{ErrorEquals = ["States.ALL"]}], catchers = [{ErrorEquals = ["Bad"], ResultPath = "$.err", Next = "Done"}]} {
    sfn.task "T" next "U" {resource = "T"}
    sfn.task "U" end {resource = "U"}
  }
  sfn.task "Done" end {resource = "Done"}
}

// -----

// Loops of states that never run a function are rejected.
sfn.state_machine "loop" start "A" {
  sfn.task "A" next "P" {resource = "A"}
  // expected-error @+1 {{is part of a loop of Choice and Pass states that never runs a function}}
  sfn.pass "P" next "C"
  sfn.choice "C" {choices = [{Variable = "$.again", BooleanEquals = true, Next = "P"}], default_state = "Done"}
  sfn.succeed "Done"
}
