// RUN: unum-opt %s -convert-sfn-to-unum | FileCheck %s --check-prefix=ATTRS
// RUN: unum-opt %s -convert-sfn-to-unum="checkpoint=false debug=true" | FileCheck %s --check-prefix=OPTS
// RUN: not unum-opt %s -convert-sfn-to-unum="checkpoint=maybe" 2>&1 | FileCheck %s --check-prefix=BAD
// The application options come from the state machine (the importer records
// --asl-globals there) unless the pass options say otherwise.

// ATTRS: unum.function @A start checkpoint debug(false) {
// ATTRS: unum.function @B checkpoint debug(false) {
// OPTS:  unum.function @A start debug(true) {
// OPTS:  unum.function @B debug(true) {
// BAD: option 'checkpoint' must be true or false, not 'maybe'
sfn.state_machine "globals" start "A" attributes {checkpoint = true, debug = false} {
  sfn.task "A" next "B" {resource = "A"}
  sfn.task "B" end {resource = "B"}
}
