// RUN: unum-opt %s -split-input-file -verify-diagnostics
// Conditionals, patterns and modifiers are parsed when the IR is read; errors
// point at the offending character inside the string.

unum.app @a {
  unum.function @A start {
    // expected-error @+1 {{unknown variable}}
    unum.chain @A if "$out > $x"
  }
}

// -----

unum.app @a {
  unum.function @A start {
    // expected-error @+1 {{expected ')'}}
    unum.chain @A if "($0 + 1"
  }
}

// -----

unum.app @a {
  unum.function @A start {
    // expected-error @+1 {{trailing}}
    unum.chain @A if "$0 == 1 1"
  }
}

// -----

unum.app @a {
  unum.function @A start checkpoint {
    // expected-error @+1 {{unknown variable '$out'; expected $0..$31}}
    unum.fanin @A values ["A-unumIndex-$out"]
  }
}

// -----

unum.app @a {
  unum.function @A start {
    // expected-error @+1 {{expected 'Pop', '$k = <expression>' or '$size = <expression>'}}
    unum.chain @A modifiers ["Push"]
  }
}

// -----

unum.app @a {
  unum.function @A start {
    // expected-error @+1 {{only arithmetic}}
    unum.chain @A modifiers ["$0 = $out"]
  }
}

// -----

// expected-error @+1 {{expected ')'}}
#bad = #unum.cond<"(1">
