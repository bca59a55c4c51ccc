// Reachability is a lint: unum-lint warns once; the verifier, which runs
// after every pass, does not.
// RUN: unum-opt %s --unum-lint -split-input-file -verify-diagnostics
// RUN: sed 's|// expected-.*||' %s > %t.mlir
// RUN: unum-opt %t.mlir -split-input-file 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: unum-opt %t.mlir -split-input-file --unum-lint --canonicalize --cse 2>&1 | FileCheck %s --check-prefix=ONCE

// VERIFY-NOT: warning
// ONCE-COUNT-1: warning: function '@B' is not reachable from any start function
// ONCE-NOT: warning

unum.app @unreachable {
  unum.function @A start {}
  // expected-warning @+1 {{function '@B' is not reachable from any start function}}
  unum.function @B {}
}

// -----

unum.app @reachable {
  unum.function @A start {
    unum.chain @B
  }
  unum.function @B {}
}
