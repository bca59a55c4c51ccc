// RUN: unum-translate --to-dot %s | FileCheck %s
// A state machine is drawn before lowering: one node per state, Next,
// Choice rules, Default and Catch edges, and a cluster per Map iterator and
// Parallel branch (whose state names are scoped there).

sfn.state_machine "orders" start "Ingest" {
  sfn.task "Ingest" next "Route" {resource = "Ingest", catchers = [{ErrorEquals = ["States.ALL"], Next = "Failed"}]}
  sfn.choice "Route" {choices = [{Variable = "$.n", NumericGreaterThan = 0, Next = "Each"}], default_state = "Done"}
  sfn.map "Each" next "Both" attributes {start = "Work"} {
    sfn.task "Work" end {resource = "Work"}
  }
  sfn.parallel "Both" next "Done" attributes {starts = ["Work", "Log"]} {
    sfn.task "Work" end {resource = "Work"}
  }, {
    sfn.pass "Log" end
  }
  sfn.succeed "Done"
  sfn.fail "Failed"
}

// CHECK-LABEL: digraph "orders" {
// CHECK:      "^start" -> "Ingest";
// CHECK:      "Ingest" [label="Ingest"];
// CHECK-NEXT: "Ingest" -> "Route" [style="solid"];
// CHECK-NEXT: "Ingest" -> "Failed" [style="dashed", color="red", label="catch"];
// CHECK:      "Route" [label="Route", xlabel="choice", shape=diamond, style=""];
// CHECK-NEXT: "Route" -> "Each" [style="solid", label="rule 1"];
// CHECK-NEXT: "Route" -> "Done" [style="solid", label="default"];
// CHECK:      subgraph "cluster_Each/" {
// CHECK-NEXT:   label="Each (each item)";
// CHECK-NEXT:   "Each/Work" [label="Work"];
// CHECK-NEXT: }
// CHECK-NEXT: "Each" -> "Each/Work" [style="dotted"];
// CHECK:      subgraph "cluster_Both/1/" {
// CHECK-NEXT:   label="Both branch 1";
// CHECK-NEXT:   "Both/1/Work" [label="Work"];
// CHECK:      subgraph "cluster_Both/2/" {
// CHECK:        "Both/2/Log" [label="Log", xlabel="pass", shape=ellipse, style=""];
// CHECK:      "Both" -> "Both/2/Log" [style="dotted"];
// CHECK:      "Done" [label="Done", xlabel="succeed", shape=doublecircle, style=""];
// CHECK:      "Failed" [label="Failed", xlabel="fail", shape=doublecircle, style="", color="red"];
