//===- DebugRuntime.h - "Debug": true functions, traced ---------*- C++ -*-===//
//
// A function whose config says "Debug": true is handled by a companion
// Runtime that runs the same protocol over a timing wrapper of the store and
// reports every step of that function: the instance and its payload, each
// store operation (checkpoint lookup, conditional put won or lost, effects,
// retirements, completion-set counts) with its duration, the time spent in
// user code, the continuations and fan-in reports (the runtime's own trace
// lines), and the outcome with the totals. The lines go to the observer's
// debug() (stderr by default), whether or not tracing is on.
//
// Keeping this out of Runtime::run means a function without Debug pays one
// branch per invocation, and an app without any Debug function a null test.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_DEBUGRUNTIME_H
#define UNUM_LIB_RUNTIME_DEBUGRUNTIME_H

#include "unum/Runtime/Runtime.h"

#include <memory>
#include <string>

namespace unum::runtime {

class DebugRuntime {
public:
  /// Null when no function of `app` has "Debug": true.
  static std::unique_ptr<DebugRuntime> forApp(const App &app, DataStore &store,
                                              Invoker &invoker,
                                              const RuntimeOptions &options);
  DebugRuntime(const App &app, DataStore &store, Invoker &invoker,
               const RuntimeOptions &options);
  ~DebugRuntime();

  /// Runtime::handle for a Debug function, with its steps reported.
  Status handle(const std::string &function, const Payload &payload);

  /// Writes one line ("<instance>: <what>") where debug lines go.
  void emit(const std::string &line) const;

private:
  class TimingStore;
  class Tracer;
  const App &app;
  Observer *outer; // the runtime's own observer, or null
  std::unique_ptr<TimingStore> timed;
  std::unique_ptr<Tracer> tracer;
  std::unique_ptr<Runtime> rt;
};

} // namespace unum::runtime

#endif // UNUM_LIB_RUNTIME_DEBUGRUNTIME_H
