// RUN: unum-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{start state 'Nope' is not a state of this scope}}
sfn.state_machine "m" start "Nope" {
  sfn.succeed "A"
}

// -----

sfn.state_machine "m" start "A" {
  // expected-note @+1 {{first used here}}
  sfn.task "A" next "A" {resource = "f"}
  // expected-error @+1 {{state name 'A' is already used in this scope}}
  sfn.succeed "A"
}

// -----

sfn.state_machine "m" start "A" {
  // expected-error @+1 {{next state 'B' is not a state of this scope}}
  sfn.task "A" next "B" {resource = "f"}
}

// -----

sfn.state_machine "m" start "A" {
  // expected-error @+1 {{has neither 'Next' nor 'End'}}
  sfn.task "A" {resource = "f"}
}

// -----

sfn.state_machine "m" start "A" {
  // expected-error @+1 {{cannot have 'Next' or 'End': a terminal state}}
  sfn.succeed "A" end
}

// -----

sfn.state_machine "m" start "A" {
  // expected-error @+1 {{choice target 'Z' is not a state of this scope}}
  sfn.choice "A" {choices = [{Variable = "$", IsNull = true, Next = "Z"}]}
}

// -----

// A branch is its own scope: it cannot jump to the state machine's states.
sfn.state_machine "m" start "P" {
  sfn.parallel "P" end attributes {starts = ["B"]} {
    // expected-error @+1 {{next state 'Out' is not a state of this scope}}
    sfn.task "B" next "Out" {resource = "f"}
  }
  sfn.succeed "Out"
}

// -----

sfn.state_machine "m" start "A" {
  // expected-error @+1 {{catch target 'H' is not a state of this scope}}
  sfn.task "A" end {resource = "f", catchers = [{ErrorEquals = ["States.ALL"], Next = "H"}]}
}

// -----

// A misspelled state name gets a suggestion.
sfn.state_machine "m" start "Split" {
  // expected-error @+1 {{next state 'Sqaure' is not a state of this scope (did you mean 'Square'?)}}
  sfn.task "Split" next "Sqaure" {resource = "Split"}
  sfn.task "Square" end {resource = "Square"}
}
