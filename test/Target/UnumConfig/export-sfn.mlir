// RUN: not unum-translate --to-json %s 2>&1 | FileCheck %s
// RUN: not unum-translate --to-yaml %s 2>&1 | FileCheck %s
// The exports take an unum.app; a state machine gets told how to get one,
// located, and without a dump of the machine.

// CHECK: export-sfn.mlir:[[@LINE+1]]:1: error: this is a Step Functions state machine (the sfn dialect): lower it to an unum.app first, with unum-opt --convert-sfn-to-unum (or compile the ASL with unumc)
sfn.state_machine "hello" start "Hello" {
  sfn.task "Hello" end {resource = "Hello"}
}
// CHECK-NOT: see current operation
