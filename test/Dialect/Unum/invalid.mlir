// RUN: unum-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'unum.app' op has no start function}}
unum.app @nostart {
  unum.function @A {}
}

// -----

unum.app @dup {
  // expected-note @+1 {{see existing symbol definition here}}
  unum.function @A start {}
  // expected-error @+1 {{redefinition of symbol named 'A'}}
  unum.function @A {}
}

// -----

unum.app @dangling {
  unum.function @A start {
    // expected-error @+1 {{target '@Missing' is not a function of this app}}
    unum.chain @Missing
  }
}

// -----

unum.app @badvalue {
  unum.function @A start checkpoint {
    // expected-error @+1 {{value "Nope-unumIndex-*" names 'Nope', which is not a function of this app}}
    unum.fanin @B values ["A-unumIndex-*", "Nope-unumIndex-*"]
  }
  unum.function @B {}
}

// -----

unum.app @selfmissing {
  unum.function @A start checkpoint {
    // expected-error @+1 {{values ["B-unumIndex-0"] do not include an instance of its own function '@A'}}
    unum.fanin @C values ["B-unumIndex-0"]
  }
  unum.function @B checkpoint {
    unum.fanin @C values ["B-unumIndex-0"]
  }
  unum.function @C {}
}

// -----

unum.app @inconsistent {
  unum.function @S start {
    unum.chain @A
    unum.chain @B
  }
  unum.function @A checkpoint {
    // expected-error @+1 {{inconsistent fan-in into '@D': '@A' waits for ["A-unumIndex-0", "B-unumIndex-1"] but '@B' waits for ["B-unumIndex-1", "A-unumIndex-0"]}}
    unum.fanin @D values ["A-unumIndex-0", "B-unumIndex-1"]
  }
  unum.function @B checkpoint {
    // expected-note @+1 {{the other tail's edge is here}}
    unum.fanin @D values ["B-unumIndex-1", "A-unumIndex-0"]
  }
  unum.function @D {}
}

// -----

unum.app @shifted {
  unum.function @S start {
    unum.map @A
  }
  unum.function @A checkpoint {
    // Shifts differ per variable: not the same instances.
    // expected-error @+1 {{inconsistent fan-in into '@D'}}
    unum.fanin @D values ["A-unumIndex-$0", "B-unumIndex-($0-1)"]
  }
  unum.function @B checkpoint {
    // expected-note @+1 {{the other tail's edge is here}}
    unum.fanin @D values ["A-unumIndex-($0+1)", "B-unumIndex-($0+1)"]
  }
  unum.function @D {}
}

// -----

unum.app @notail {
  unum.function @S start {
    unum.chain @A
    unum.chain @B
  }
  unum.function @A checkpoint {
    // expected-error @+1 {{waits for '@B', which has no fan-in edge to '@D': the fan-in would never complete}}
    unum.fanin @D values ["A-unumIndex-0", "B-unumIndex-1"]
  }
  unum.function @B checkpoint {
    unum.chain @D
  }
  unum.function @D {}
}

// -----

unum.app @nocheckpoint {
  unum.function @A start {
    // expected-error @+1 {{needs its function '@A' to checkpoint}}
    unum.fanin @B values ["A"]
  }
  unum.function @B {}
}

// -----

unum.app @badname {
  // expected-error @+1 {{name 'A.B' is not a valid function name}}
  unum.function @"A.B" start {}
}

// -----

unum.app @infix {
  // expected-error @+1 {{name 'A-unumIndex-0' is not a valid function name}}
  unum.function @"A-unumIndex-0" start {}
}

// -----

unum.app @emptyfanout {
  // expected-error @+1 {{is marked 'fanout' but has no edges}}
  unum.function @A start fanout {}
}

// -----

unum.app @emptyvalues {
  unum.function @A start checkpoint {
    // expected-error @+1 {{has no values}}
    unum.fanin @A values []
  }
}

// -----

unum.app @notedge {
  unum.function @A start {
    // expected-error @+1 {{is not an edge}}
    unum.app @inner {}
  }
}

// -----

unum.app @notfunction {
  unum.function @A start {}
  // expected-error @+1 {{is not allowed in 'unum.app'}}
  unum.app @inner {
    unum.function @B start {}
  }
}

// -----

// expected-error @+1 {{expects parent op 'unum.function'}}
unum.chain @A

// -----

unum.app @negativeretry {
  // expected-error @+1 {{attribute 'retry' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  unum.function @A start retry(-1) {}
}

// -----

// An unreachable function is valid (unum-lint warns, see lint.mlir).
unum.app @unreachable {
  unum.function @A start {}
  unum.function @B {}
}

// -----

// A fan-in over every instance of a level must leave that level.
unum.app @globnopop {
  unum.function @A start fanout {
    unum.map @B
  }
  unum.function @B checkpoint {
    // expected-error @+1 {{collects every instance of '@B' at its innermost fan-out level ("B-unumIndex-*") but does not leave that level: add the modifier "Pop" (modifiers ["Pop"]), or the fan-in target would run once per index and never complete}}
    unum.fanin @C values ["B-unumIndex-*"]
  }
  unum.function @C {}
}

// -----

unum.app @stateinputunknown {
  // expected-error @+1 {{state_input @Nowhere is not a function of this app}}
  unum.function @Sink start state_input(@Nowhere) {}
}

// -----

unum.app @stateinputnotsaved {
  unum.function @Entry start {
    unum.chain @Sink
  }
  // expected-error @+1 {{reads the saved input of @Entry, which does not save its input (mark it 'save_input')}}
  unum.function @Sink state_input(@Entry) {}
}

// -----

unum.app @stateinputtworeaders {
  unum.function @Entry start save_input {
    unum.chain @A
    unum.chain @B
  }
  unum.function @A state_input(@Entry) {}
  // expected-error @+1 {{reads the saved input of @Entry that '@A' reads too: the first reader garbage-collects it}}
  unum.function @B state_input(@Entry) {}
}

// -----

unum.app @saveinputunread {
  // expected-error @+1 {{saves its input but no function reads it as its state_input: it would never be garbage-collected}}
  unum.function @Entry start save_input {}
}

// -----

unum.app @stateinputnotfanin {
  unum.function @Entry start save_input {
    unum.chain @Sink
  }
  // expected-error @+1 {{has a state_input but no fan-in edge leads to it: a sink reads its state's input when its fan-in completes}}
  unum.function @Sink state_input(@Entry) {}
}

// -----

// A misspelled function name gets a suggestion.
unum.app @misspelled {
  unum.function @Split start {
    // expected-error @+1 {{target '@Sqaure' is not a function of this app (did you mean '@Square'?)}}
    unum.chain @Sqaure
  }
  unum.function @Square {}
}
