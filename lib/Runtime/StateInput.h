//===- StateInput.h - A Map or Parallel state's input -------*- C++ -*-===//
//
// Step Functions places a Map or Parallel state's result (the list of its
// iterations' or branches' outputs) into the state's own input, as
// ResultPath says. In Unum only the state's entry function sees that input
// and only its sink sees the list, so an entry with "SaveInput" stores its
// effective input (the state's input, before InputPath) in a record of its
// own, and the sink ("StateInput": the entry's name) reads it at its own
// fan-out levels, which are the entry's.
//
// Exactly once and garbage-collected:
//  * the entry saves with a conditional put after its user code and before
//    its checkpoint, so the record exists before any iteration or branch is
//    invoked; a redelivered entry saves again and loses to the same input
//    (a duplicate's effective input is the same checkpointed data);
//  * the sink retires the record in its own checkpoint put, with its fan-in
//    inputs, so it lives exactly until the sink's output is safe; a
//    duplicate of the sink that finds it retired continues with the
//    checkpoint that retired it (or stops if that one is retired too);
//  * an empty Map continues straight to its sink, which finds the record
//    like any other.
//
// A state with Retry (its sink has "Retriers"): when an iteration or branch
// failed and a retrier applies, the sink re-enters the state. It writes the
// next attempt's record itself, under the name the entry will have on that
// attempt (its visit counter advances, as on any entry of a function with
// "Loop"), holding the state's input and the retriers' counts so far
// ({"Input": ..., "Retries": [...]}, flagged record::Keep); then it invokes
// the entry with that input. The entry's own save loses to it, and the next
// attempt's sink reads the counts from it.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_STATEINPUT_H
#define UNUM_LIB_RUNTIME_STATEINPUT_H

#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/Payload.h"
#include "unum/Runtime/Value.h"

#include "unum/Config/FunctionConfig.h"

#include <optional>
#include <string>
#include <vector>

namespace unum::runtime::detail {

/// A function with "SaveInput": stores `input`, its effective input, for the
/// sink of its state. Call before its checkpoint put.
Status saveStateInput(DataStore &store, const std::string &session,
                      const std::string &instance, const Value &input);

/// A sink with "StateInput" (`config`) at `fanout` and top visit counter
/// `visit` (as it received them): reads its state's input
/// into `input` and adds the record to `retire` (what its checkpoint put
/// retires). If a duplicate of this sink checkpointed first, the record is
/// retired already: `own` is then that checkpoint's record (a tombstone if
/// it is finished too), to continue with instead.
Status loadStateInput(DataStore &store, const config::FunctionConfig &config,
                      const std::string &session, const std::string &instance,
                      const std::vector<FanOutLevel> &fanout, int64_t visit,
                      Value &input, std::vector<std::string> &retire,
                      std::optional<std::string> &own,
                      std::vector<int64_t> *retries = nullptr);

/// A sink re-entering its state: the record the entry's next attempt
/// (instance `entryInstance`) reads, with the retriers' counts.
Status saveRetryInput(DataStore &store, const std::string &session,
                      const std::string &entryInstance, const Value &input,
                      const std::vector<int64_t> &retries);

} // namespace unum::runtime::detail

#endif // UNUM_LIB_RUNTIME_STATEINPUT_H
