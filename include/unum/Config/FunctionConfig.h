//===- FunctionConfig.h - One function's unum_config ------------*- C++ -*-===//
//
// The in-memory form of one `unum_config.{json,yaml}` file, its decoder from a
// located Node (both spellings) and its writers. No MLIR here: the runtime
// library links this.
//
// JSON spelling (what the original Unum runtime reads):
//   {"Name": "A", "Next": {"Name": "B", "InputType": "Scalar" | "Map" | "Error"
//      | {"Fan-in": {"Values": ["A-unumIndex-*"]}}, "Conditional": "$ret > 1"},
//    "Next Payload Modifiers": ["Pop"], "Checkpoint": true, "Start": true,
//    "Debug": false, "Retry": 3}
// YAML spelling (the documented Unum IR):
//   Name: A
//   Next: {Name: B, Type: Fan-in, Values: [A-UnumIndex-*], Conditional: ...}
//   Payload Modifiers: [Pop]
//   Checkpoint: true
//   Start: true   (Debug, Retry as in JSON; Type also Scalar|Map|Error)
// Keys for the runtime, spelled alike in both: Handler, Builtin, DataFlow,
// SaveInput, StateInput.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_CONFIG_FUNCTIONCONFIG_H
#define UNUM_CONFIG_FUNCTIONCONFIG_H

#include "unum/Config/Diagnostic.h"
#include "unum/Config/Document.h"
#include "unum/Config/Expr.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace unum::config {

enum class Format { Json, Yaml };

/// How a continuation passes this function's output on.
enum class EdgeKind { Scalar, Map, FanIn, Error };

struct Edge {
  std::string target;
  EdgeKind kind = EdgeKind::Scalar;
  std::vector<NamePattern> values; // FanIn only
  std::optional<Expression> conditional;
  /// An Error edge's "ResultPath" (a Step Functions Catch's): where the
  /// error goes in the failed function's input (a path, or null: the input
  /// unchanged); absent: the target gets the error itself.
  std::optional<Node> resultPath;
  /// "Propagate": true. On an Error edge: the failure is not handled here
  /// but passed on unchanged to the target, the last function of the Map
  /// iteration or Parallel branch the function runs in, which does not run
  /// its code. On a FanIn edge: the edge also reports the function's failure
  /// (not taken by an error edge, or passed on to it) to the target, the
  /// state's sink, which fails the state.
  bool propagate = false;
  /// A Map edge's "MaxConcurrency": at most this many iterations at once
  /// (a Step Functions Map's MaxConcurrency; absent: no bound).
  std::optional<int64_t> maxConcurrency;
  SourceLoc loc;       // the edge object
  SourceLoc targetLoc; // its Name value
  std::vector<SourceLoc> valueLocs;
  SourceLoc conditionalLoc; // start of the conditional's characters
};

/// One Step Functions retrier ("Retriers"): an error that matches
/// `errorEquals` (in order; States.ALL matches any, States.TaskFailed any
/// but States.Timeout) is retried up to `maxAttempts` times, after
/// `intervalSeconds * backoffRate^n` seconds (at most `maxDelaySeconds`;
/// with full jitter a fraction of it).
struct Retrier {
  std::vector<std::string> errorEquals;
  double intervalSeconds = 1;
  int64_t maxAttempts = 3;
  double backoffRate = 2;
  std::optional<double> maxDelaySeconds;
  bool fullJitter = false;
};

/// The fields of a retrier, as ASL spells them.
extern const char *const kRetrierFields[6];

/// A list of ASL retriers (an array node), checked as the ASL specification
/// says: each an object with a non-empty ErrorEquals of error names
/// (States.ALL alone, in the last retrier), IntervalSeconds and
/// MaxDelaySeconds positive integers, MaxAttempts a non-negative integer,
/// BackoffRate a number >= 1, JitterStrategy FULL or NONE, Comment a
/// string, and no other field. The one check of retriers: the ASL importer
/// (a Task's, Map's or Parallel's Retry) and the config decoder
/// ("Retriers") both call it. Every mistake goes to `error`; nullopt if
/// there was one.
std::optional<std::vector<Retrier>>
decodeRetriers(const Node &list,
               const std::function<void(SourceLoc, std::string)> &error);

struct FunctionConfig {
  std::string name;
  std::vector<Edge> next;
  /// `Next` was written as a list. With one edge this is a one-branch fan-out,
  /// which differs from a plain object at run time.
  bool nextIsList = false;
  std::vector<Modifier>
      modifiers; // "Next Payload Modifiers" / "Payload Modifiers"
  bool checkpoint = false;
  bool start = false;
  std::optional<bool> debug;
  std::optional<int64_t> retry; // "Retry": n (any error, n times, at once)
  /// "Retriers": the Step Functions retrier list (decoded), and as written.
  std::vector<Retrier> retriers;
  std::optional<Node> retriersNode;
  /// "Handler": the user code to run, when several functions share one.
  std::optional<std::string> handler;
  /// "Builtin": Pass, Wait, Succeed or Fail; the runtime provides the code.
  std::optional<std::string> builtin;
  /// "DataFlow": Step Functions data-flow fields the runtime applies around
  /// the function (kDataFlowFields), kept as written.
  std::optional<Node> dataFlow;
  /// "SaveInput": the function enters a Map or Parallel state whose sink
  /// needs the state's input (its ResultPath is not `$`): the runtime stores
  /// the function's effective input before its checkpoint, for that sink.
  bool saveInput = false;
  /// "StateInput": the function is such a sink; this names the function that
  /// saved the state's input (at the same fan-out levels). The sink applies
  /// its ResultPath to that input and garbage-collects it.
  std::optional<std::string> stateInput;
  /// "Loop": n: the function can run more than once at the same fan-out
  /// indices (it lies in a loop of its own state machine scope, or inside a
  /// Map or Parallel state that does). Its instance names carry the visit
  /// counters of the n outermost scopes (the top one and the n-1 outermost
  /// fan-out levels); when n exceeds its fan-out depth, it is in a loop of
  /// its own scope and advances that scope's counter on entry.
  std::optional<int64_t> loop;
  /// "TimeoutSeconds": a Task's TimeoutSeconds. An attempt of the user code
  /// that runs longer fails with States.Timeout (a handler executable is
  /// killed).
  std::optional<int64_t> timeoutSeconds;

  SourceLoc loc;           // the config object
  SourceLoc nameLoc;       // its Name value
  SourceLoc stateInputLoc; // its StateInput value
  std::vector<SourceLoc> modifierLocs;
};

/// The keys allowed in "DataFlow": InputPath, Parameters, ResultSelector,
/// ResultPath, OutputPath (around the function), ItemsPath, ItemSelector (for
/// its Map edges), Result (Pass), Seconds, Timestamp, SecondsPath,
/// TimestampPath (Wait), Error, Cause, ErrorPath, CausePath (Fail),
/// LambdaInvoke (true: the function gets the Payload of its parameters and
/// its result is wrapped as Lambda's response), StateName (the ASL state's
/// name, for $$.State.Name, when it is not the function's),
/// TimeoutSecondsPath (a Task's: the attempt's time limit, read from the
/// function's effective input), ExecutionContext (true, on a start function:
/// the execution's input and start time are fixed where it starts and go
/// along with every payload, for $$.Execution.Input and
/// $$.Execution.StartTime).
extern const char *const kDataFlowFields[20];
/// The values of "Builtin".
extern const char *const kBuiltins[4];

/// Decodes one config object written in `format`'s spelling (the other
/// format's keys are errors that say which format they belong to; the index
/// infix and output variable are accepted in either spelling). Obsolete
/// formats (`NextInput`, `Fan-out Modifiers`, `WaitFor`, v0 `type`/`next`,
/// a missing `Name`) are rejected with a diagnostic naming the field.
/// Returns std::nullopt after reporting at least one error.
std::optional<FunctionConfig> decodeConfig(const Node &node, Format format,
                                           DiagnosticSink &diags);

/// Writes one config in `format`'s spelling, in the key order of the original
/// compiler (Name, Next, Next Payload Modifiers, Checkpoint, Debug, Retry,
/// then Handler, Builtin, DataFlow, SaveInput, StateInput, and Start),
/// 4-space indented JSON or block-style YAML, ending in a newline.
std::string writeConfig(const FunctionConfig &config, Format format);

/// The file name of a config in an app directory: "unum_config.json"/".yaml".
const char *configFileName(Format format);

} // namespace unum::config

#endif // UNUM_CONFIG_FUNCTIONCONFIG_H
