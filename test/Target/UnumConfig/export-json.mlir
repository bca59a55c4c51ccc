// RUN: unum-translate --to-json %s | FileCheck %s --strict-whitespace --match-full-lines
// The JSON spelling: InputType, "Next Payload Modifiers", $ret, -unumIndex-;
// one object per function, in body order.

unum.app @textproc {
  unum.function @A start checkpoint {
    unum.chain @B if "$out.n > 50"
    unum.map @C
  }
  unum.function @B checkpoint {
    unum.fanin @D values ["B-unumIndex-0", "C-unumIndex-*"] modifiers ["Pop"]
  }
  unum.function @C checkpoint debug(false) {
    unum.fanin @D values ["B-unumIndex-0", "C-unumIndex-*"] modifiers ["Pop"]
  }
  unum.function @D checkpoint retry(2) {
    unum.error @E
  }
  unum.function @E fanout {
    unum.chain @D
  }
}

//      CHECK:{
// CHECK-NEXT:    "Name": "A",
// CHECK-NEXT:    "Next": [
// CHECK-NEXT:        {
// CHECK-NEXT:            "Name": "B",
// CHECK-NEXT:            "InputType": "Scalar",
// CHECK-NEXT:            "Conditional": "$ret.n > 50"
// CHECK-NEXT:        },
// CHECK-NEXT:        {
// CHECK-NEXT:            "Name": "C",
// CHECK-NEXT:            "InputType": "Map"
// CHECK-NEXT:        }
// CHECK-NEXT:    ],
// CHECK-NEXT:    "Checkpoint": true,
// CHECK-NEXT:    "Start": true
// CHECK-NEXT:}
// CHECK-NEXT:{
// CHECK-NEXT:    "Name": "B",
// CHECK-NEXT:    "Next": {
// CHECK-NEXT:        "Name": "D",
// CHECK-NEXT:        "InputType": {
// CHECK-NEXT:            "Fan-in": {
// CHECK-NEXT:                "Values": [
// CHECK-NEXT:                    "B-unumIndex-0",
// CHECK-NEXT:                    "C-unumIndex-*"
// CHECK-NEXT:                ]
// CHECK-NEXT:            }
// CHECK-NEXT:        }
// CHECK-NEXT:    },
// CHECK-NEXT:    "Next Payload Modifiers": [
// CHECK-NEXT:        "Pop"
// CHECK-NEXT:    ],
// CHECK-NEXT:    "Checkpoint": true
// CHECK-NEXT:}
//      CHECK:    "Name": "C",
//      CHECK:    "Checkpoint": true,
// CHECK-NEXT:    "Debug": false
// CHECK-NEXT:}
// CHECK-NEXT:{
// CHECK-NEXT:    "Name": "D",
// CHECK-NEXT:    "Next": {
// CHECK-NEXT:        "Name": "E",
// CHECK-NEXT:        "InputType": "Error"
// CHECK-NEXT:    },
// CHECK-NEXT:    "Checkpoint": true,
// CHECK-NEXT:    "Retry": 2
// CHECK-NEXT:}
// CHECK-NEXT:{
// CHECK-NEXT:    "Name": "E",
// CHECK-NEXT:    "Next": [
// CHECK-NEXT:        {
// CHECK-NEXT:            "Name": "D",
// CHECK-NEXT:            "InputType": "Scalar"
// CHECK-NEXT:        }
// CHECK-NEXT:    ],
// CHECK-NEXT:    "Checkpoint": false
// CHECK-NEXT:}
