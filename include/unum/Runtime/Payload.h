//===- Payload.h - The message passed between function instances -*- C++
//-*-===//
//
// The wire format of the original Unum runtime:
//
//   {"Data": {"Source": "http", "Value": <input>},
//    "Session": "<id>",
//    "Fan-out": {"Type": "Map", "Index": 1, "Size": 3,
//                "OuterLoop": {"Type": "Parallel", "Index": 0, "Size": 2}},
//    "GC": {"Checkpoint": "<instance>", "Set": "<completion set>"},
//    "Execution": {"Input": <the execution's input>, "StartTime": "..."},
//    "Outbox": {"Id": <entry id>, "Issued": <ms since 1970>, "Fresh": true}}
//
// Source "http" carries the input itself; Source "checkpoint" (what a fan-in
// completer sends) carries the ordered list of instance names whose
// checkpoints the target reads as its input. GC.Checkpoint names the
// sender's instance when the receiver is its only continuation, so the
// receiver retires the sender's checkpoint in the same step as writing its
// own; GC.Set names the completion set a fan-in target consumes.
// Execution (only where a state reads $$.Execution.Input or StartTime) is
// fixed where the execution starts and passed on unchanged.
// Outbox (a continuation between unum-serve hosts on a store that journals
// it with the sender's checkpoint, docs/Deploy.md) names the outbox entry
// the sender wrote atomically with its checkpoint: the receiver answers
// without journaling it and retires that entry once it ran; Fresh: the
// sender's put won (the receiver skips its checkpoint lookup). It is decoded
// into the in-process hints, not into a public field.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_PAYLOAD_H
#define UNUM_RUNTIME_PAYLOAD_H

#include "unum/Runtime/Value.h"

#include <memory>
#include <string>
#include <vector>

namespace unum::runtime {

namespace detail {
struct FunctionNode;  // lib/Runtime/AppInternal.h
struct PayloadAccess; // lib/Runtime/PayloadInternal.h
} // namespace detail

/// One fan-out level. Levels are kept innermost first ($0 is levels[0]).
struct FanOutLevel {
  std::string type = "Map"; // "Map" or "Parallel"
  int64_t index = 0;
  int64_t size = 1;
  /// The visit counter of the scope this level opens (a Map iteration's or
  /// a Parallel branch's body): advanced by the functions that loop in it
  /// ("Loop"), 0 until one does.
  int64_t visit = 0;
  /// A Map level with MaxConcurrency ("Window", "Items"): at most `window`
  /// iterations run at once, and the iteration's tail invokes iteration
  /// `index + window`, whose item it reads from the record `items`.
  int64_t window = 0;
  std::string items;
  friend bool operator==(const FanOutLevel &a, const FanOutLevel &b) {
    return a.type == b.type && a.index == b.index && a.size == b.size &&
           a.visit == b.visit && a.window == b.window && a.items == b.items;
  }
};

/// What one function instance sends another: the input (or where to read
/// it), the session, the fan-out position and the garbage-collection names.
/// A value: copy and move it freely; not synchronised (one thread at a time
/// per object). An Invoker takes it by rvalue and may keep it.
struct Payload {
  /// Failure ("unum-failure" on the wire): a failure passed on by a
  /// "Propagate" error edge; the receiver fails with it without running its
  /// code.
  enum class Source { Http, Checkpoint, Failure };
  Source source = Source::Http;
  Value value;         // Http: the input; Checkpoint: array of instance names;
                       // Failure: the error, {"Error": name, "Cause": text}
  std::string session; // empty: none (only a start function may lack one)
  std::vector<FanOutLevel> fanout;
  /// The top scope's visit counter ("Visit"; each level has its own).
  int64_t visit = 0;
  /// The Step Functions execution's own fields ("Execution":
  /// {"Input": ..., "StartTime": "..."}), fixed once per execution where it
  /// starts and passed along unchanged to every continuation, so that
  /// `$$.Execution.Input` and `$$.Execution.StartTime` read the same values
  /// in every function and on every redelivery. Null unless the start
  /// function has "ExecutionContext" (a shared, immutable value: passing it
  /// on copies a pointer).
  std::shared_ptr<const Value> execution;
  std::string retire;   // GC.Checkpoint: the sender's instance
  std::string fanInSet; // GC.Set: the completion set that invoked us

private:
  friend struct detail::PayloadAccess;
  /// In-process delivery hints, never on the wire, kept by the runtime
  /// (lib/Runtime/PayloadInternal.h). Copied with the payload; a payload
  /// decoded or built by its user has none.
  struct Hints {
    bool fresh = false;
    bool noCheckpoint = false;
    const detail::FunctionNode *target = nullptr;
    uint64_t outboxId = 0;
    /// The "Outbox" wire field: when the sender wrote the entry (ms since
    /// 1970); 0: the payload carries no entry (not on the wire).
    int64_t issuedMs = 0;
  };
  Hints hints;
};

/// Maximum fan-out nesting accepted in a payload.
constexpr unsigned kMaxFanOutDepth = 32;

/// Decodes a payload; every malformed field is an error naming it.
Result<Payload> decodePayload(const Value &json);
Value encodePayload(const Payload &payload);

/// "Name" or "Name-unumIndex-i.j" (innermost first).
std::string instanceName(const std::string &function,
                         const std::vector<FanOutLevel> &fanout);

/// The infix before the visit counters in the name of a function with
/// "Loop".
inline constexpr const char kVisitInfix[] = "-unumVisit-";

/// What a function with "Loop": `loop` adds to its instance name at these
/// levels: "-unumVisit-" and the visit counters of the `loop` outermost
/// scopes (the top one, `visit`, and the outermost fan-out levels'),
/// innermost first. Empty when `loop` is 0.
std::string visitSuffix(int64_t loop, int64_t visit,
                        const std::vector<FanOutLevel> &fanout);

/// A function with "Loop": `loop` entered at these levels: if it loops in
/// its own scope (`loop` exceeds the fan-out depth), that scope's counter
/// advances (the top one's is `visit`, a level's is its `visit`).
void enterLoop(int64_t loop, int64_t &visit, std::vector<FanOutLevel> &fanout);

/// A fresh random session id: 15 characters of [0-9A-Za-z] (89 random
/// bits). Every payload and context carries it, and 15 characters is what a
/// std::string holds without allocating.
std::string newSessionId();

} // namespace unum::runtime

#endif // UNUM_RUNTIME_PAYLOAD_H
