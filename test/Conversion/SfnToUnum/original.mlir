// RUN: unum-opt %s -convert-sfn-to-unum -split-input-file | FileCheck %s
// What the original Unum compiler did, reproduced.

// A Parallel in the middle: the helper is replaced by its branches, the sink
// bypassed; positional fan-in values and Pop.
// CHECK-LABEL: unum.app @parallel
// CHECK-NEXT:  unum.function @A start checkpoint {
sfn.state_machine "parallel" start "A" attributes {checkpoint = true} {
  sfn.task "A" next "Fan-out" {resource = "A"}
  sfn.parallel "Fan-out" next "D" attributes {starts = ["B", "C"]} {
    sfn.task "B" end {resource = "B"}
  }, {
    sfn.task "C" end {resource = "C"}
  }
  sfn.task "D" end {resource = "D"}
}
// CHECK-NEXT:    unum.chain @B
// CHECK-NEXT:    unum.chain @C
// CHECK:       unum.function @B checkpoint {
// CHECK-NEXT:    unum.fanin @D values ["B-unumIndex-0", "C-unumIndex-1"] modifiers ["Pop"]
// CHECK:       unum.function @C checkpoint {
// CHECK-NEXT:    unum.fanin @D values ["B-unumIndex-0", "C-unumIndex-1"] modifiers ["Pop"]
// CHECK:       unum.function @D checkpoint {
// CHECK-NOT:   UnumParallel
// CHECK-NOT:   UnumSinkParallel

// -----

// Two Maps: the first starts the workflow (helper kept), the second is folded
// into its predecessor. Fan-in tails always checkpoint.
// CHECK-LABEL: unum.app @wordcount
sfn.state_machine "wordcount" start "Count" attributes {checkpoint = false, debug = false} {
  sfn.map "Count" next "Partition" attributes {start = "Mapper"} {
    sfn.task "Mapper" end {resource = "Mapper"}
  }
  sfn.task "Partition" next "Reduce" {resource = "Partition"}
  sfn.map "Reduce" next "Summary" attributes {start = "Reducer"} {
    sfn.task "Reducer" end {resource = "Reducer"}
  }
  sfn.task "Summary" end {resource = "Summary"}
}
// CHECK-DAG: unum.function @Mapper checkpoint debug(false) {
// CHECK-DAG:   unum.fanin @Partition values ["Mapper-unumIndex-*"] modifiers ["Pop"]
// CHECK-DAG: unum.function @UnumMap0 start debug(false) {
// CHECK-DAG:   unum.map @Mapper
// CHECK-DAG: unum.function @Partition debug(false) {
// CHECK-DAG:   unum.map @Reducer
// CHECK-DAG: unum.function @Reducer checkpoint debug(false) {
// CHECK-DAG:   unum.fanin @Summary values ["Reducer-unumIndex-*"] modifiers ["Pop"]
// CHECK-NOT: UnumMap1
