// RUN: unum-translate --to-dot %s | FileCheck %s
// Edge kinds, conditionals, values and modifiers are visible in the graph.

unum.app @textproc {
  unum.function @A start checkpoint retry(2) {
    unum.chain @B if "$out > 50"
    unum.map @C
    unum.error @E
  }
  unum.function @B {}
  unum.function @C checkpoint {
    unum.fanin @D values ["C-unumIndex-*"] modifiers ["Pop"]
  }
  unum.function @D {}
  unum.function @E {}
}

// CHECK-LABEL: digraph "textproc" {
// CHECK: "A" [peripheries=2, style="rounded,filled", fillcolor="lightgrey", xlabel="retry 2", label="A"];
// CHECK: "B" [label="B"];
// CHECK: "A" -> "B" [style="solid", label="if $out > 50"];
// CHECK: "A" -> "C" [style="bold", label="map"];
// CHECK: "A" -> "E" [style="dashed", color="red", label="error"];
// CHECK: "C" -> "D" [style="dotted", label="fan-in [C-unumIndex-*]\nmodifiers [Pop]"];
// CHECK: }
