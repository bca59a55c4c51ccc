// RUN: unum-opt %s -convert-sfn-to-unum -split-input-file | FileCheck %s
// Loops: a function that can run more than once at the same fan-out indices
// gets loop(n): its instance names carry the visit counters of the n
// outermost scopes, so each visit is an instance of its own. Loop-free
// functions get nothing (their names do not change).

// A retry-until loop in the top scope: Poll loops (loop(1): the top
// counter, advanced on entry); Prepare and Done run once.
// CHECK-LABEL: unum.app @poll
// CHECK:      unum.function @Prepare start checkpoint {
// CHECK-NEXT:   unum.chain @Poll
// CHECK:      unum.function @Poll checkpoint loop(1) {
// CHECK-NEXT:   unum.chain @Done if "is_boolean($out.ready) and $out.ready == true"
// CHECK-NEXT:   unum.chain @Poll if "not (is_boolean($out.ready) and $out.ready == true)"
// CHECK:      unum.function @Done checkpoint {
sfn.state_machine "poll" start "Prepare" {
  sfn.task "Prepare" next "Poll" {resource = "Prepare"}
  sfn.task "Poll" next "Ready?" {resource = "Poll"}
  sfn.choice "Ready?" {choices = [{Variable = "$.ready", BooleanEquals = true, Next = "Done"}], default_state = "Poll"}
  sfn.task "Done" end {resource = "Done"}
}

// -----

// A Parallel in a loop: its helpers and its branches' functions are in the
// loop too (loop(1): they name the top counter, which only the depth-0
// functions advance); the branches' fan-in is per visit.
// CHECK-LABEL: unum.app @parallel
// CHECK:      unum.function @Work start checkpoint loop(1) {
// CHECK:      unum.function @A checkpoint loop(1) {
// CHECK-NEXT:   unum.fanin @UnumSinkParallel0 values ["A-unumIndex-0", "B-unumIndex-1"] modifiers ["Pop"]
// CHECK:      unum.function @B checkpoint loop(1) {
// CHECK:      unum.function @UnumParallel0 checkpoint save_input loop(1) {
// CHECK:      unum.function @UnumSinkParallel0 checkpoint state_input(@UnumParallel0) loop(1) dataflow {ResultPath = "$.r"} {
// CHECK-NEXT:   unum.chain @Work if "is_boolean($out.more) and $out.more == true"
sfn.state_machine "parallel" start "Work" {
  sfn.task "Work" next "Both" {resource = "Work"}
  sfn.parallel "Both" next "Again" attributes {starts = ["A", "B"], result_path = "$.r"} {
    sfn.task "A" end {resource = "A"}
  }, {
    sfn.task "B" end {resource = "B"}
  }
  sfn.choice "Again" {choices = [{Variable = "$.more", BooleanEquals = true, Next = "Work"}], default_state = "Out"}
  sfn.succeed "Out"
}

// -----

// A Map iterator that loops and ends at a Succeed: its body ends in a new
// built-in Pass, UnumEndMap0, which runs once per item after the loop and
// reports to the fan-in. Count loops in the iteration's scope: loop(2)
// (the top counter and the item's, which it advances); the end does not.
// CHECK-LABEL: unum.app @iterator
// CHECK:      unum.function @Count checkpoint builtin("Pass") loop(2) dataflow
// CHECK-NEXT:   unum.chain @Count if "is_numeric($out.k) and is_numeric($out.to) and $out.k < $out.to"
// CHECK-NEXT:   unum.chain @UnumEndMap0 if "not (is_numeric($out.k) and is_numeric($out.to) and $out.k < $out.to)"
// CHECK:      unum.function @Report checkpoint {
// CHECK:      unum.function @UnumEndMap0 checkpoint builtin("Pass") {
// CHECK-NEXT:   unum.fanin @Report values ["UnumEndMap0-unumIndex-*"] modifiers ["Pop"]
sfn.state_machine "iterator" start "First" {
  sfn.task "First" next "Each" {resource = "First"}
  sfn.map "Each" next "Report" attributes {start = "Count"} {
    sfn.pass "Count" next "Enough" {parameters = {"k.$" = "States.MathAdd($.k, 1)", "to.$" = "$.to"}}
    sfn.choice "Enough" {choices = [{Variable = "$.k", NumericLessThanPath = "$.to", Next = "Count"}], default_state = "Stop"}
    sfn.succeed "Stop"
  }
  sfn.task "Report" end {resource = "Report"}
}

// -----

// Several end states in a Parallel branch (no loop): each end goes to the
// branch's end function.
// CHECK-LABEL: unum.app @ends
// CHECK:      unum.function @Yes checkpoint {
// CHECK-NEXT:   unum.chain @UnumEndParallel0_0
// CHECK:      unum.function @Route checkpoint builtin("Pass") {
// CHECK-NEXT:   unum.chain @Yes if "is_numeric($out.x) and $out.x == 1"
// CHECK-NEXT:   unum.chain @UnumEndParallel0_0 if "not (is_numeric($out.x) and $out.x == 1)"
// CHECK:      unum.function @UnumEndParallel0_0 checkpoint builtin("Pass") {
// CHECK-NEXT:   unum.fanin @Join values ["UnumEndParallel0_0-unumIndex-0", "C-unumIndex-1"] modifiers ["Pop"]
sfn.state_machine "ends" start "Begin" {
  sfn.task "Begin" next "Both" {resource = "Begin"}
  sfn.parallel "Both" next "Join" attributes {starts = ["Route", "C"]} {
    sfn.choice "Route" {choices = [{Variable = "$.x", NumericEquals = 1, Next = "Yes"}], default_state = "No"}
    sfn.task "Yes" end {resource = "Yes"}
    sfn.succeed "No"
  }, {
    sfn.task "C" end {resource = "C"}
  }
  sfn.task "Join" end {resource = "Join"}
}
