//===- StateEntry.h - What a state fixes when it is first entered -*- C++
//-*-===//
//
// The Step Functions context object has values that AWS fixes once: the
// execution's input and start time ($$.Execution.Input, StartTime) and the
// time a state was entered ($$.State.EnteredTime); and a Task's retry count
// ($$.State.RetryCount, and how many attempts each retrier has used) only
// grows. In a runtime where any step may be delivered again after a crash,
// each is fixed the first time it is needed and read back on a redelivery:
//
//  * the execution's fields are made where the execution starts (the start
//    function, or LocalRunner::start, with the session) and travel in every
//    payload ("Execution"); a start payload that carries them keeps them on
//    redelivery, and one that does not only ever starts a new session's
//    execution or finds its start function's checkpoint (see
//    Runtime::handle);
//  * an instance's EnteredTime is a record `<instance>#entered` written with
//    a conditional put the first time its data flow reads it (before the
//    user code, or in ResultSelector): a redelivery or a duplicate loses and
//    reads the first writer's time. The instance's checkpoint put retires
//    the record (a concurrent duplicate that reads it only after that takes
//    a time of its own, and its output loses the checkpoint race);
//  * a Task's retry state after its k-th failed attempt is a record
//    `<instance>#attempt-k` ({"Retries": [count per retrier], "Delay": the
//    wait before attempt k+1 in seconds}) written with
//    a conditional put before the retry's wait. A redelivery of the instance
//    reads the records 1, 2, ... that exist, waits the last one's delay
//    again (a crash during a wait makes it longer, never shorter) and
//    continues with the next attempt, so a crash between attempts neither
//    resets the counts nor repeats an attempt past MaxAttempts; the checkpoint
//    put retires them.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_STATEENTRY_H
#define UNUM_LIB_RUNTIME_STATEENTRY_H

#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/Value.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace unum::runtime {
struct RuntimeOptions;
} // namespace unum::runtime

namespace unum::runtime::detail {

/// The current time as Step Functions writes context times
/// (`2024-01-01T00:00:00.000Z`), from RuntimeOptions::clock when set.
std::string contextTime(const RuntimeOptions &opts);

/// A new execution's "Execution" value: {"Input": input, "StartTime": t}.
std::shared_ptr<const Value> newExecution(const Value &input,
                                          std::string startTime);

/// The record names (no instance has a '#').
std::string enteredName(const std::string &instance);
std::string attemptName(const std::string &instance, unsigned k);

/// The instance's EnteredTime: `now` if this is its first entry, else the
/// time its first entry recorded. `pinned` gets the record's name, to retire
/// with the checkpoint.
Result<std::string> pinEnteredTime(DataStore &store, const std::string &session,
                                   const std::string &instance, std::string now,
                                   std::vector<std::string> &pinned);

/// A Task's retry state, as the records say: `done` failed attempts so
/// far and each retrier's count.
struct Attempts {
  unsigned done = 0;
  std::vector<int64_t> counts;
  double delay = 0; // the wait before the next attempt, before time scale
};

/// Reads the retry records of `instance` (a redelivery); `pinned` gets
/// their names.
Status loadAttempts(DataStore &store, const std::string &session,
                    const std::string &instance, Attempts &attempts,
                    std::vector<std::string> &pinned);

/// Records that attempt `attempts.done` failed and `attempts.counts` are
/// the counts for the next; if a duplicate recorded that attempt first,
/// `attempts` becomes what it recorded.
Status saveAttempt(DataStore &store, const std::string &session,
                   const std::string &instance, Attempts &attempts,
                   std::vector<std::string> &pinned);

} // namespace unum::runtime::detail

#endif // UNUM_LIB_RUNTIME_STATEENTRY_H
