// RUN: unum-translate --to-yaml %s | FileCheck %s --strict-whitespace --match-full-lines
// The YAML spelling: Type, Values, "Payload Modifiers", $out, -UnumIndex-;
// a stream with one document per function.

unum.app @textproc {
  unum.function @A start checkpoint {
    unum.map @B if "$out.n > 50"
  }
  unum.function @B checkpoint {
    unum.fanin @C values ["B-unumIndex-*"] modifiers ["Pop"]
  }
  unum.function @C checkpoint retry(1) debug(true) {
    unum.chain @A
    unum.error @A
  }
}

// CHECK-LABEL:---
//  CHECK-NEXT:Name: A
//  CHECK-NEXT:Next:
//  CHECK-NEXT:  Name: B
//  CHECK-NEXT:  Type: Map
//  CHECK-NEXT:  Conditional: "$out.n > 50"
//  CHECK-NEXT:Checkpoint: true
//  CHECK-NEXT:Start: true
//  CHECK-NEXT:---
//  CHECK-NEXT:Name: B
//  CHECK-NEXT:Next:
//  CHECK-NEXT:  Name: C
//  CHECK-NEXT:  Type: Fan-in
//  CHECK-NEXT:  Values:
//  CHECK-NEXT:    - "B-UnumIndex-*"
//  CHECK-NEXT:Payload Modifiers:
//  CHECK-NEXT:  - "Pop"
//  CHECK-NEXT:Checkpoint: true
//  CHECK-NEXT:---
//  CHECK-NEXT:Name: C
//  CHECK-NEXT:Next:
//  CHECK-NEXT:  - Name: A
//  CHECK-NEXT:    Type: Scalar
//  CHECK-NEXT:  - Name: A
//  CHECK-NEXT:    Type: Error
//  CHECK-NEXT:Checkpoint: true
//  CHECK-NEXT:Debug: true
//  CHECK-NEXT:Retry: 1
