// RUN: unum-translate --to-json %s -split-input-file -verify-diagnostics
// RUN: unum-translate --to-yaml %s -split-input-file -verify-diagnostics
// What a config file cannot express is an error, never dropped.

unum.app @mods {
  unum.function @A start {
    // expected-note @+1 {{first edge is here}}
    unum.chain @B modifiers ["Pop"]
    // expected-error @+1 {{has payload modifiers that differ from those of the function's first edge}}
    unum.chain @B
  }
  unum.function @B {}
}

// -----

unum.app @extra {
  // expected-error @+1 {{carries attribute 'owner', which unum_config files cannot express}}
  unum.function @A start attributes {owner = "team-a"} {}
}

// -----

unum.app @edgeextra {
  unum.function @A start {
    // expected-error @+1 {{carries attribute 'weight'}}
    unum.chain @A {weight = 3 : i64}
  }
}

// -----

// expected-error @+1 {{expected exactly one 'unum.app', found 2}}
module {
  unum.app @one {
    unum.function @A start {}
  }
  unum.app @two {
    unum.function @A start {}
  }
}
