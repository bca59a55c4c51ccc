// RUN: unum-opt %s | FileCheck %s
// RUN: unum-opt %s | unum-opt | FileCheck %s

// CHECK-LABEL: sfn.state_machine "textproc" start "A" {
sfn.state_machine "textproc" start "A" {
  // CHECK: sfn.task "A" next "Fan" {resource = "A", retry = [{ErrorEquals = ["States.ALL"], MaxAttempts = 3 : i64}]}
  sfn.task "A" next "Fan" {resource = "A", retry = [{ErrorEquals = ["States.ALL"], MaxAttempts = 3}]}
  // CHECK: sfn.parallel "Fan" next "Pick" attributes {starts = ["B", "M"]} {
  sfn.parallel "Fan" next "Pick" attributes {starts = ["B", "M"]} {
    sfn.task "B" end {resource = "B"}
  }, {
    // CHECK: sfn.map "M" end attributes {items_path = "$.items", max_concurrency = 4 : i64, start = "C"} {
    sfn.map "M" end attributes {start = "C", items_path = "$.items", max_concurrency = 4} {
      sfn.task "C" end {resource = "C"}
    }
  }
  // CHECK: sfn.choice "Pick" {choices = [{Next = "Yes", NumericGreaterThan = 50 : i64, Variable = "$[0]"}], default_state = "No"}
  sfn.choice "Pick" {choices = [{Variable = "$[0]", NumericGreaterThan = 50, Next = "Yes"}], default_state = "No"}
  sfn.pass "Yes" next "Done" {result = {ok = true}}
  sfn.wait "No" next "Oops" {seconds = 5}
  sfn.fail "Oops" {error = "NoLuck", cause = "the number was small"}
  sfn.succeed "Done"
}
