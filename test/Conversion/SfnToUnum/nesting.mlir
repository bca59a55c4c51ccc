// RUN: unum-opt %s -convert-sfn-to-unum -split-input-file | FileCheck %s
// Map and Parallel nest to any depth: fan-in names carry the outer indices,
// every level is popped on the way out; helpers at the end of the workflow
// are kept.

// Map inside Parallel inside Map.
// CHECK-LABEL: unum.app @nested
sfn.state_machine "nested" start "Outer" attributes {checkpoint = true} {
  sfn.map "Outer" next "Report" attributes {start = "Prepare"} {
    sfn.task "Prepare" next "Fan" {resource = "Prepare"}
    sfn.parallel "Fan" end attributes {starts = ["Inner", "Side"]} {
      sfn.map "Inner" end attributes {start = "Leaf"} {
        sfn.task "Leaf" end {resource = "Leaf"}
      }
    }, {
      sfn.task "Side" end {resource = "Side"}
    }
  }
  sfn.task "Report" end {resource = "Report"}
}
// The innermost map: Leaf instances are named Leaf-unumIndex-<leaf>.<branch>.<outer>.
// CHECK-DAG: unum.function @Leaf checkpoint {
// CHECK-DAG:   unum.fanin @UnumSinkMap0 values ["Leaf-unumIndex-*.$1.$2"] modifiers ["Pop"]
// The branches fan in to the Parallel's sink; Side is branch 1 at its outer index.
// CHECK-DAG:   unum.fanin @UnumSinkParallel0 values ["UnumSinkMap0-unumIndex-0.$1", "Side-unumIndex-1.$1"] modifiers ["Pop"]
// The Parallel helper is folded into Prepare; the inner Map's helper stays,
// since folding it into a list would renumber the branches.
// CHECK-DAG: unum.function @Prepare checkpoint {
// CHECK-DAG:   unum.chain @UnumMap0
// CHECK-DAG:   unum.chain @Side
// CHECK-DAG: unum.function @UnumMap0 checkpoint {
// CHECK-DAG:   unum.map @Leaf
// The outer map's iterator ends in the Parallel's sink, which fans in to Report.
// CHECK-DAG: unum.function @UnumSinkParallel0 checkpoint {
// CHECK-DAG:   unum.fanin @Report values ["UnumSinkParallel0-unumIndex-*"] modifiers ["Pop"]
// CHECK-DAG: unum.function @UnumMap1 start checkpoint {
// CHECK-DAG:   unum.map @Prepare

// -----

// A Map that ends the workflow keeps its sink.
// CHECK-LABEL: unum.app @mapend
// CHECK-DAG: unum.function @F1 checkpoint {
// CHECK-DAG:   unum.fanin @UnumSinkMap0 values ["F1-unumIndex-*"] modifiers ["Pop"]
// CHECK-DAG: unum.function @UnumMap0 start checkpoint {
// CHECK-DAG: unum.function @UnumSinkMap0 checkpoint {
sfn.state_machine "mapend" start "Map" attributes {checkpoint = true} {
  sfn.map "Map" end attributes {start = "F1"} {
    sfn.task "F1" end {resource = "F1"}
  }
}
