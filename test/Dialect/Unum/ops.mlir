// RUN: unum-opt %s | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: unum-opt %s | unum-opt | FileCheck %s
// The generic form carries the same attributes.
// RUN: unum-opt %s --mlir-print-op-generic | unum-opt | FileCheck %s

// CHECK-LABEL: unum.app @textproc {
unum.app @textproc {
  // CHECK: unum.function @A start checkpoint {
  // CHECK-NEXT: unum.chain @B if "$out > 50"
  // CHECK-NEXT: unum.map @C
  // CHECK-NEXT: }
  unum.function @A start checkpoint {
    unum.chain @B if "$out > 50"
    unum.map @C
  }
  // CHECK: unum.function @B checkpoint {
  // CHECK-NEXT: unum.fanin @D values ["B-unumIndex-0", "C-unumIndex-1"] modifiers ["Pop"]
  unum.function @B checkpoint {
    unum.fanin @D values ["B-unumIndex-0", "C-unumIndex-1"] modifiers ["Pop"]
  }
  // CHECK: unum.function @C checkpoint {
  // CHECK-NEXT: unum.fanin @D values ["B-unumIndex-0", "C-unumIndex-1"] modifiers ["Pop"]
  unum.function @C checkpoint {
    unum.fanin @D values ["B-unumIndex-0", "C-unumIndex-1"] modifiers ["Pop"]
  }
  // CHECK: unum.function @D {
  // CHECK-NEXT: }
  unum.function @D {}
}

// CHECK-LABEL: unum.app @catching {
unum.app @catching {
  // CHECK: unum.function @First start checkpoint retry(3) debug(false) {
  // CHECK-NEXT: unum.chain @Second
  // CHECK-NEXT: unum.error @FirstError
  unum.function @First start checkpoint retry(3) debug(false) {
    unum.chain @Second
    unum.error @FirstError
  }
  // CHECK: unum.function @Second checkpoint debug(true) {
  unum.function @Second checkpoint debug(true) {}
  unum.function @FirstError checkpoint {}
}

// `fanout` keeps a one-edge Next list (a one-branch fan-out) distinct from a
// plain chain.
// CHECK-LABEL: unum.app @onebranch {
unum.app @onebranch {
  // CHECK: unum.function @A start fanout {
  // CHECK-NEXT: unum.chain @B{{$}}
  unum.function @A start fanout {
    unum.chain @B
  }
  unum.function @B {}
}

// Both spellings of the output variable and index infix are accepted; the
// dialect keeps `$out` and `-unumIndex-`.
// CHECK-LABEL: unum.app @spellings {
unum.app @spellings {
  // CHECK: unum.function @F start checkpoint {
  // CHECK-NEXT: unum.fanin @F values ["F-unumIndex-$0", "G-unumIndex-($0+1).$1"] if "$out.items[0] == 'x' && !($0 >= $size-1)" modifiers ["$0=$0+1", "$size = $size - 1"]
  unum.function @F start checkpoint {
    unum.fanin @F values ["F-UnumIndex-$0", "G-unumIndex-($0+1).$1"] if "$ret.items[0] == 'x' && !($0 >= $size-1)" modifiers ["$0=$0+1", "$size = $size - 1"]
  }
  // CHECK: unum.function @G checkpoint {
  unum.function @G checkpoint {
    unum.fanin @F values ["F-unumIndex-($0-1)", "G-unumIndex-$0.$1"] if "$0 > 0"
  }
}

// The attributes can be written directly in generic form.
// CHECK-LABEL: unum.app @generic {
// CHECK: unum.chain @B if "$0 == 1" modifiers ["Pop"]
"unum.app"() <{sym_name = "generic"}> ({
  "unum.function"() <{sym_name = "A", start}> ({
    "unum.chain"() <{target = @B, condition = #unum.cond<"$0 == 1">, modifiers = [#unum.modifier<"Pop">]}> : () -> ()
  }) : () -> ()
  "unum.function"() <{sym_name = "B"}> ({
  ^bb0:
  }) : () -> ()
}) : () -> ()

// A Map whose sink places the list in the state's input: the entry saves
// its input, the sink names the entry.
// CHECK-LABEL: unum.app @stateinput {
unum.app @stateinput {
  // CHECK: unum.function @UnumMap0 start checkpoint save_input dataflow {ItemsPath = "$.items"} {
  unum.function @UnumMap0 start checkpoint save_input dataflow {ItemsPath = "$.items"} {
    unum.map @W
  }
  unum.function @W checkpoint {
    unum.fanin @UnumSinkMap0 values ["W-unumIndex-*"] modifiers ["Pop"]
  }
  // CHECK: unum.function @UnumSinkMap0 checkpoint state_input(@UnumMap0) dataflow {ResultPath = "$.results"} {
  unum.function @UnumSinkMap0 checkpoint state_input(@UnumMap0) dataflow {ResultPath = "$.results"} {}
}
