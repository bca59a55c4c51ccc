//===- Handler.h - User code ------------------------------------*- C++ -*-===//
//
// A Handler runs one function's user code on its input. In-process handlers
// are C++ callables registered by name; subprocess handlers run the
// `handler` executable of the function's directory (JSON on stdin, JSON on
// stdout, any language); builtins stand in for functions the compiler
// invents (the UnumMap/UnumParallel/UnumSink pass-throughs).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_HANDLER_H
#define UNUM_RUNTIME_HANDLER_H

#include "unum/Config/FunctionConfig.h"
#include "unum/Config/Limits.h"
#include "unum/Runtime/Payload.h"
#include "unum/Runtime/Value.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace unum::runtime {

/// What user code sees of its invocation. The names are views, valid for
/// the duration of the call (copy them to keep them): a step copies no name.
/// A context belongs to one call on one thread: do not keep it, or a
/// pointer into it, after the call returns.
struct Context {
  std::string_view function;
  std::string_view instance;
  std::string_view session;
  std::vector<FanOutLevel> fanout; // innermost first
  unsigned attempt = 0;            // 0, then 1.. for config retries
  /// Multiplies every real wait a handler does (a Wait state's):
  /// RuntimeOptions::timeScale.
  double timeScale = 1.0;
  /// The attempt's time limit in seconds, already scaled ("TimeoutSeconds"
  /// times timeScale); 0: none. A handler executable that runs longer is
  /// killed and the attempt fails with States.Timeout.
  double timeout = 0;
  /// The longest real wait the runtime does, in seconds (a year, Step
  /// Functions' longest execution): longer Wait states are refused, longer
  /// retry delays and time limits are cut to it (a longer duration would
  /// overflow the clocks).
  static constexpr double kMaxWaitSeconds = double(limits::kMaxWaitSeconds);

  /// The Step Functions context object's parts that the runtime fixes once
  /// (see lib/Runtime/StateEntry.h): `execution` is {"Input", "StartTime"}
  /// of the execution when its start function records them (DataFlow
  /// "ExecutionContext"), else null (valid for the call); `enteredTime`,
  /// when set, gives $$.State.EnteredTime, the RFC 3339 time of the
  /// instance's first entry, the same on every redelivery and retry (the
  /// first call in an instance may write it to the store; an error is the
  /// store's).
  const Value *execution = nullptr;
  std::function<Result<std::string>()> enteredTime;

  /// Stages a side effect. With checkpoints on, the effects of exactly one
  /// execution per instance name are committed, atomically with its
  /// checkpoint; without, effects are committed after every run. Only a
  /// successful attempt's effects count: a failed one's are dropped, even
  /// when an error edge catches the failure.
  void effect(Value value) { effects.push_back(std::move(value)); }
  std::vector<Value> effects;
};

/// A user-code outcome: an output, or an error in Step Functions' terms.
struct HandlerResult {
  bool ok = true;
  Value output;
  /// The error name when !ok; empty means "States.TaskFailed". (Empty by
  /// default so that a success allocates nothing.)
  std::string error;
  std::string cause; // human-readable detail

  static HandlerResult success(Value v) {
    HandlerResult r;
    r.output = std::move(v);
    return r;
  }
  static HandlerResult failure(std::string cause,
                               std::string error = "States.TaskFailed") {
    HandlerResult r;
    r.ok = false;
    r.error = std::move(error);
    r.cause = std::move(cause);
    return r;
  }
};

/// User code. Thread safety: call() runs on several worker threads at once,
/// for the same or different instances. Lifetime: shared (App, builtins);
/// it lives as long as the last App or caller holding it.
class Handler {
public:
  virtual ~Handler();
  /// Runs the user code. Must be safe to call from several threads at once.
  virtual HandlerResult call(const Value &input, Context &ctx) = 0;
};

using HandlerFn = std::function<HandlerResult(const Value &, Context &)>;

/// A C++ callable as a handler.
std::shared_ptr<Handler> makeFunctionHandler(HandlerFn fn);

/// Runs `executable` in `workingDir` per call: the input as JSON on stdin;
/// the output is the JSON on stdout. A non-zero exit with a JSON object on
/// stdout that has a string "errorType" (the Lambda convention) fails with
/// that error name and "errorMessage" as the cause; any other non-zero
/// exit, a signal, or stdout that is not one JSON value is a
/// States.TaskFailed whose cause quotes stderr. The
/// child's environment adds UNUM_FUNCTION, UNUM_INSTANCE, UNUM_SESSION,
/// UNUM_ATTEMPT and UNUM_EFFECTS_FD: a descriptor (3) on which the child
/// stages side effects, one JSON value per line, as Context::effect does. A
/// line that is not one JSON value fails the call, naming the line; a
/// failed call stages nothing.
std::shared_ptr<Handler> makeSubprocessHandler(std::string executable,
                                               std::string workingDir);

/// The code the runtime provides for a function, or nullptr. The helpers the
/// compiler invents (UnumMap<k>, UnumParallel<k>, UnumSinkMap<k>,
/// UnumSinkParallel<k>) pass their input through.
///
/// This is where the "Builtin" functions (Pass, Wait, Succeed, Fail) plug
/// in; until they are implemented a function with "Builtin" gets no handler
/// and App::validate() reports it.
std::shared_ptr<Handler> builtinHandler(const config::FunctionConfig &config);

} // namespace unum::runtime

#endif // UNUM_RUNTIME_HANDLER_H
