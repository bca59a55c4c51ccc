// RUN: unum-opt %s -convert-sfn-to-unum -split-input-file | FileCheck %s
// A Map or Parallel state's ResultPath places its result in the state's own
// input, which only its entry sees: with a ResultPath other than `$` the
// entry saves its input (save_input) and is never folded away, and the sink
// reads it (state_input). `$` and no ResultPath cost nothing.

// CHECK-LABEL: unum.app @map
// No ResultPath: UnumMap0 folds into First and UnumSinkMap0 is bypassed, as
// before.
// CHECK:      unum.function @First start checkpoint dataflow {ItemsPath = "$.a"} {
// CHECK-NEXT:   unum.map @F0
// CHECK:      unum.function @F0 checkpoint {
// CHECK-NEXT:   unum.fanin @UnumMap1 values ["F0-unumIndex-*"] modifiers ["Pop"]
// `ResultPath: $` beside an OutputPath: the sink needs no input.
// CHECK:      unum.function @UnumMap1 checkpoint {
// CHECK:      unum.function @UnumSinkMap1 checkpoint dataflow {OutputPath = "$.x"} {
// CHECK-NEXT:   unum.map @F2
// A path: UnumMap3 (a fan-in target: its input is the list of F2's outputs)
// saves its input, and UnumSinkMap3 reads it.
// CHECK:      unum.function @UnumMap3 checkpoint save_input dataflow {ItemsPath = "$.c"} {
// CHECK-NEXT:   unum.map @F3
// CHECK:      unum.function @UnumSinkMap3 checkpoint state_input(@UnumMap3) dataflow {ResultPath = "$.results"} {
// CHECK-NEXT:   unum.chain @UnumMap4
// null (the state's input is its output): UnumMap4, reached by a Scalar
// edge, would fold into UnumSinkMap3, whose input is not the state's: it
// is kept.
// CHECK:      unum.function @UnumMap4 checkpoint save_input {
// CHECK-NEXT:   unum.map @F4
// CHECK:      unum.function @UnumSinkMap4 checkpoint state_input(@UnumMap4) dataflow {ResultPath} {
// CHECK-NEXT: }
sfn.state_machine "map" start "First" {
  sfn.task "First" next "M0" {resource = "First"}
  sfn.map "M0" next "M1" attributes {start = "F0", items_path = "$.a"} {
    sfn.task "F0" end {resource = "F0"}
  }
  sfn.map "M1" next "M2" attributes {start = "F1", result_path = "$", output_path = "$.x"} {
    sfn.task "F1" end {resource = "F1"}
  }
  sfn.map "M2" next "M3" attributes {start = "F2"} {
    sfn.task "F2" end {resource = "F2"}
  }
  sfn.map "M3" next "M4" attributes {start = "F3", items_path = "$.c", result_path = "$.results"} {
    sfn.task "F3" end {resource = "F3"}
  }
  sfn.map "M4" end attributes {start = "F4", result_path} {
    sfn.task "F4" end {resource = "F4"}
  }
}

// -----

// A Parallel with ResultPath keeps its entry too (it would otherwise be
// replaced by its branches in its predecessor), with its ResultSelector and
// OutputPath on the sink.
// CHECK-LABEL: unum.app @parallel
// CHECK:      unum.function @Start start checkpoint {
// CHECK-NEXT:   unum.chain @UnumParallel0
// CHECK:      unum.function @UnumParallel0 checkpoint save_input dataflow {InputPath = "$.in"} {
// CHECK-NEXT:   unum.chain @A
// CHECK-NEXT:   unum.chain @B
// CHECK:      unum.function @UnumSinkParallel0 checkpoint state_input(@UnumParallel0) dataflow {OutputPath = "$.out", ResultPath = "$.out.pair", ResultSelector = {first.$ = "$[0]"}} {
// CHECK-NEXT: }
sfn.state_machine "parallel" start "Start" {
  sfn.task "Start" next "P" {resource = "Start"}
  sfn.parallel "P" end attributes {starts = ["A", "B"], input_path = "$.in",
      result_selector = {"first.$" = "$[0]"}, result_path = "$.out.pair", output_path = "$.out"} {
    sfn.task "A" end {resource = "A"}
  }, {
    sfn.task "B" end {resource = "B"}
  }
}

// -----

// Nested: each level's sink reads its own entry's input.
// CHECK-LABEL: unum.app @nested
// CHECK-DAG: unum.function @UnumMap0 checkpoint save_input dataflow {ItemsPath = "$.lines"} {
// CHECK-DAG: unum.function @UnumSinkMap0 checkpoint state_input(@UnumMap0) dataflow {ResultPath = "$.doubled"} {
// CHECK-DAG:   unum.fanin @UnumSinkParallel0 values ["UnumSinkMap0-unumIndex-0.$1", "Tag-unumIndex-1.$1"] modifiers ["Pop"]
// CHECK-DAG: unum.function @UnumParallel0 checkpoint save_input {
// CHECK-DAG: unum.function @UnumSinkParallel0 checkpoint state_input(@UnumParallel0) dataflow {ResultPath = "$.both"} {
// CHECK-DAG:   unum.fanin @UnumSinkMap1 values ["UnumSinkParallel0-unumIndex-*"] modifiers ["Pop"]
// CHECK-DAG: unum.function @UnumMap1 start checkpoint save_input dataflow {ItemsPath = "$.orders"} {
// CHECK-DAG: unum.function @UnumSinkMap1 checkpoint state_input(@UnumMap1) dataflow {ResultPath = "$.done"} {
sfn.state_machine "nested" start "Orders" {
  sfn.map "Orders" end attributes {start = "Both", items_path = "$.orders", result_path = "$.done"} {
    sfn.parallel "Both" end attributes {starts = ["Lines", "Tag"], result_path = "$.both"} {
      sfn.map "Lines" end attributes {start = "Dbl", items_path = "$.lines", result_path = "$.doubled"} {
        sfn.task "Dbl" end {resource = "Dbl"}
      }
    }, {
      sfn.task "Tag" end {resource = "Tag"}
    }
  }
}
