// RUN: unum-opt %s -convert-sfn-to-unum -split-input-file -verify-diagnostics | FileCheck %s
// Choice states become conditional edges: a rule's edge is taken when it
// matches and no earlier rule did; Default when none did.

// A Choice after a Task folds into the Task.
// CHECK-LABEL: unum.app @folded
// CHECK:      unum.function @Classify start checkpoint {
// Each comparison is guarded by its type test: an absent operand, or one of
// another type, does not match (as the ASL specification says).
// CHECK-NEXT:   unum.chain @Big if "is_numeric($out.size) and $out.size > 100"
// CHECK-NEXT:   unum.chain @Text if "(not (is_numeric($out.size) and $out.size > 100)) and ((is_string($out.kind) and $out.kind == 'text') and (is_present($out.lang) and not is_null($out.lang)))"
// CHECK-NEXT:   unum.chain @Other if "(not (is_numeric($out.size) and $out.size > 100)) and (not ((is_string($out.kind) and $out.kind == 'text') and (is_present($out.lang) and not is_null($out.lang))))"
sfn.state_machine "folded" start "Classify" attributes {checkpoint = true} {
  sfn.task "Classify" next "Route" {resource = "Classify"}
  sfn.choice "Route" {choices = [
      {Variable = "$.size", NumericGreaterThan = 100, Next = "Big"},
      {And = [{Variable = "$.kind", StringEquals = "text"}, {Variable = "$.lang", IsNull = false}], Next = "Text"}],
    default_state = "Other"}
  sfn.task "Big" end {resource = "Big"}
  sfn.task "Text" end {resource = "Text"}
  sfn.task "Other" end {resource = "Other"}
}

// -----

// A Choice that starts the machine needs a function: a built-in pass-through.
// CHECK-LABEL: unum.app @hellobye
// CHECK:      unum.function @"GreetingChoice-NoChoiceMatched" checkpoint builtin("Fail") dataflow {Cause = "no choice rule of 'GreetingChoice' matched and it has no Default", Error = "States.NoChoiceMatched"
// CHECK:      unum.function @GreetingChoice start checkpoint builtin("Pass") {
// CHECK-NEXT:   unum.chain @Hello if "is_string($out) and $out == 'hello'"
// CHECK-NEXT:   unum.chain @Bye if "(not (is_string($out) and $out == 'hello')) and (is_string($out) and $out == 'bye')"
// Without a Default, no match fails with States.NoChoiceMatched.
// CHECK-NEXT:   unum.chain @"GreetingChoice-NoChoiceMatched" if "(not (is_string($out) and $out == 'hello')) and (not (is_string($out) and $out == 'bye'))"
sfn.state_machine "hellobye" start "GreetingChoice" attributes {checkpoint = true} {
  sfn.choice "GreetingChoice" {choices = [{Variable = "$", StringEquals = "hello", Next = "Hello"}, {Variable = "$", StringEquals = "bye", Next = "Bye"}]}
  sfn.task "Hello" next "World" {resource = "Hello"}
  sfn.task "Bye" next "World" {resource = "Bye"}
  sfn.task "World" end {resource = "World"}
}

// -----

// Comparing with another path of the input.
// CHECK-LABEL: unum.app @paths
// CHECK: unum.chain @Yes if "is_numeric($out.a) and is_numeric($out.b) and $out.a <= $out.b"
sfn.state_machine "paths" start "T" {
  sfn.task "T" next "C" {resource = "T"}
  sfn.choice "C" {choices = [{Variable = "$.a", NumericLessThanEqualsPath = "$.b", Next = "Yes"}], default_state = "Done"}
  sfn.task "Yes" end {resource = "Yes"}
  sfn.succeed "Done"
}

// -----

// Type tests and glob matching become the grammar's predicates.
// CHECK-LABEL: unum.app @predicates
// CHECK: unum.chain @Log if "(is_present($out.msg)) and ((is_present($out.msg) and not is_numeric($out.msg)) and (is_string($out.msg) and matches($out.msg, 'log-*')))"
// CHECK: unum.chain @T if "not ((is_present($out.msg)) and ((is_present($out.msg) and not is_numeric($out.msg)) and (is_string($out.msg) and matches($out.msg, 'log-*'))))"
sfn.state_machine "predicates" start "T" {
  sfn.task "T" next "C" {resource = "T"}
  sfn.choice "C" {choices = [{And = [{Variable = "$.msg", IsPresent = true}, {And = [{Variable = "$.msg", IsNumeric = false}, {Variable = "$.msg", StringMatches = "log-*"}]}], Next = "Log"}], default_state = "T"}
  sfn.task "Log" end {resource = "Log"}
}

// -----

// A Map iterator that starts with a Choice gets a built-in pass-through that
// evaluates it per item (a condition on the Map edge would see the whole
// list).
// CHECK-LABEL: unum.app @iterchoice
// CHECK-DAG: unum.function @Pick checkpoint builtin("Pass") {
// CHECK-DAG:   unum.chain @Work if "is_boolean($out.skip) and $out.skip == false"
// CHECK-DAG:   unum.chain @Record if "not (is_boolean($out.skip) and $out.skip == false)"
// CHECK-DAG: unum.map @Pick
// CHECK-DAG: unum.fanin @UnumSinkMap0 values ["Record-unumIndex-*"] modifiers ["Pop"]
sfn.state_machine "iterchoice" start "Each" {
  sfn.map "Each" end attributes {start = "Pick"} {
    sfn.choice "Pick" {choices = [{Variable = "$.skip", BooleanEquals = false, Next = "Work"}], default_state = "Skip"}
    sfn.task "Work" next "Record" {resource = "Work"}
    sfn.pass "Skip" next "Record"
    sfn.task "Record" end {resource = "Record"}
  }
}
