//===- Runtime.h - One function's step of a decentralised workflow -*- C++
//-*-===//
//
// Runtime::handle is what a deployed function runs per invocation:
//
//   1. name the instance (Name-unumIndex-i.j) and find or create the session;
//   2. look up its checkpoint: a retired one means a duplicate of a finished
//      instance (stop); a present one is reused (the user code is skipped);
//   3. otherwise assemble the input (inline, or the fan-in's checkpoints in
//      `values` order), run the user code with the config's retries, and
//      write the checkpoint with a conditional put (first writer wins; the
//      loser continues with the winner's output);
//   4. evaluate conditionals and fan-in values with the instance's own
//      indices, apply the payload modifiers, and run the continuations:
//      chain, parallel fan-out, map (bounded concurrency), error edges, and
//      fan-in through the target's completion set (the completer invokes the
//      target with the ordered list of checkpoint names);
//   5. garbage-collect: retire the instance's checkpoint once it is done,
//      or let its only continuation retire it in its own put; a fan-in
//      target retires its inputs and consumes its completion set.
//
// A Map or Parallel state whose ResultPath needs the state's input: its
// entry ("SaveInput") stores its effective input before its checkpoint, and
// its sink ("StateInput") reads it, applies ResultPath to it, and retires it
// in its own checkpoint put (lib/Runtime/StateInput.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_RUNTIME_H
#define UNUM_RUNTIME_RUNTIME_H

#include "unum/Config/Timestamp.h"
#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/Invoker.h"
#include "unum/Runtime/Payload.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace unum::runtime {

/// The step boundaries at which a fault-injection hook may crash an
/// invocation.
enum class Step {
  BeforeUserCode,   // after the checkpoint lookup
  AfterUserCode,    // before the checkpoint is written
  AfterSaveInput,   // a SaveInput function stored its input, before its
                    // checkpoint
  AfterCheckpoint,  // before any continuation
  AfterInvoke,      // after the k-th invocation was issued (mid fan-out/map)
  BeforeFanInAdd,   // before the k-th completion-set update
  AfterFanInAdd,    // after it (before invoking the target)
  BeforeRetire,     // all continuations issued, before garbage collection
  AfterRetryRecord, // the k-th attempt of a Task failed and its retry is
                    // recorded, before the wait and the next attempt
};
const char *stepName(Step step);

struct StepPoint {
  Step step;
  std::string instance;
  unsigned k = 0;
};

/// Returns true to crash the invocation at that point. A testing hook
/// (unum-run --crash-rate, the fault-injection tests): a step that crashes
/// returns a Crash status and the platform delivers the payload again.
/// Called from every worker thread at once: it must be thread-safe.
using FaultHook = std::function<bool(const StepPoint &)>;

/// Receives what happens in a run.
///
/// Thread safety: called from every worker thread at once; implementations
/// synchronise themselves. Lifetime: must outlive the Runtime (or
/// LocalRunner) whose options name it.
class Observer {
public:
  virtual ~Observer();
  /// An instance that took no continuation finished with `output`.
  virtual void terminal(const std::string &session, const std::string &instance,
                        const Value &output) {}
  /// A user function failed for good (retries used up, no error edge taken).
  virtual void failed(const std::string &session, const std::string &function,
                      const std::string &instance, const std::string &message) {
  }
  virtual void trace(const std::string &line) {}
  /// trace() is called (and its lines built) only when this is true.
  virtual bool tracing() const { return false; }
  /// A step of a function whose config has "Debug": true, tracing or not
  /// ("<instance>: <what>"). Default: "[unum] <line>" on stderr.
  virtual void debug(const std::string &line);
};

class DebugRuntime;

/// The data-flow hook: the Step Functions path fields of a config's
/// DataFlow (InputPath, Parameters, ResultSelector, ResultPath, OutputPath,
/// and ItemsPath / ItemSelector for Map edges; lib/Runtime/DataFlow.cpp).
/// The runtime uses this class itself unless RuntimeOptions::dataFlow names
/// a subclass (a host that adds its own fields).
///
/// Thread safety: called from every worker thread at once; the default is
/// stateless. Lifetime: a subclass named in RuntimeOptions must outlive the
/// Runtime.
class DataFlow {
public:
  virtual ~DataFlow();
  /// The user code's input, from the instance's effective input (the payload
  /// value, or a fan-in's list of outputs).
  virtual Result<Value> input(const FunctionSpec &fn, const Value &effective,
                              const Context &ctx);
  /// What the instance checkpoints and passes on, from its effective input
  /// (for a sink with StateInput: its Map or Parallel state's input) and the
  /// user code's result.
  virtual Result<Value> output(const FunctionSpec &fn, const Value &effective,
                               const Value &result, const Context &ctx);
  /// The items a Map edge fans out over (default: the output, a list).
  virtual Result<Value::Array> items(const FunctionSpec &fn,
                                     const config::Edge &edge,
                                     const Value &output, const Context &ctx);
};

/// How a Runtime behaves. Copied into the Runtime at construction (the
/// observer and dataFlow it points to are not copied: they must outlive it).
struct RuntimeOptions {
  /// Garbage-collect checkpoints and completion sets.
  bool gc = true;
  /// At most this many map invocations in flight at once on a blocking
  /// invoker (HTTP).
  unsigned mapConcurrency = 16;
  FaultHook fault;
  Observer *observer = nullptr;
  DataFlow *dataFlow = nullptr; // nullptr: pass-through
  /// Multiplies every real wait (Wait states, Retry intervals): tests run
  /// with a small scale (unum-run --time-scale).
  double timeScale = 1.0;
  /// The clock of the context object's times ($$.Execution.StartTime,
  /// $$.State.EnteredTime); empty: the system clock. Each time is read once
  /// per execution or instance and then kept in the payload or the store,
  /// so every redelivery sees the same. (Tests give one that moves on every
  /// reading, to show that.) Called from worker threads at once.
  std::function<config::Instant()> clock;
};

/// One function's (or one app's) step of the protocol, per invocation: what
/// a FaaS function host runs for each payload it is handed.
///
/// Thread safety: handle() and handleJson() may be called from any number
/// of threads at once (the thread pool's workers all share one Runtime);
/// a Runtime holds no per-invocation state between calls.
///
/// Lifetime: the Runtime keeps references to the App, the DataStore, the
/// Invoker and the options' observer and dataFlow: all must outlive it, and
/// the App must not change while it exists. Destroy the Runtime only when no
/// call to handle() is running (destroy or wait() the pool that calls it
/// first).
class Runtime {
public:
  Runtime(const App &app, DataStore &store, Invoker &invoker,
          RuntimeOptions options = {});
  ~Runtime();

  /// Handles one invocation of `function`. Ok: done (or a duplicate that
  /// had nothing to do). Crash: deliver the same payload again. Error: the
  /// workflow failed here (already reported to the observer if it was user
  /// code); the message names the function and instance.
  Status handle(const std::string &function, const Payload &payload);
  /// The same from JSON (as an HTTP endpoint receives it).
  Status handleJson(const std::string &function, const std::string &json);

  const RuntimeOptions &options() const;

private:
  friend class DebugRuntime;
  struct WithoutDebug {};
  Runtime(const App &app, DataStore &store, Invoker &invoker,
          RuntimeOptions options, WithoutDebug);

  /// The protocol's steps and state (lib/Runtime/Runtime.cpp).
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// The result of a local run.
struct RunResult {
  std::string session;
  std::map<std::string, Value> outputs; // terminal instance -> output
  std::vector<std::string> errors;      // failures, in report order
  bool ok() const { return errors.empty(); }
};

/// Runs an App locally: a ThreadPoolInvoker as the platform, a Runtime per
/// process, an observer collecting terminal outputs. One LocalRunner can run
/// many workflows, concurrently.
///
/// Thread safety: start(), run(), resume(), redeliver(), awaitSession() and
/// result() may be called from several threads at once, and so may
/// invoker().invoke() (a gateway's connection threads). wait() (and so
/// run() and resume()) returns when the whole pool is idle, other threads'
/// work included.
///
/// Lifetime: the runner owns its pool and Runtime, and keeps references to
/// the App, the DataStore, Options::platform and Options::runtime's
/// dataFlow: all must outlive it. Its destructor lets the workers run
/// what is queued (and what that issues), then joins them. A durable
/// runner with a platform takes the platform's OnRefusal (one such runner
/// per platform) and gives it back (nullptr) in its destructor.
class LocalRunner {
public:
  struct Options {
    unsigned workers = 4;
    unsigned maxDeliveries = 3; // crash redeliveries per invocation
    bool trace = false;         // trace lines to stderr
    /// Where trace lines and the lines of "Debug": true functions go;
    /// default: "[unum] <line>" on stderr.
    std::function<void(const std::string &line)> log;
    RuntimeOptions runtime; // observer is set by the runner
    /// How invocations (the start and every continuation) reach a
    /// function; nullptr: straight onto the pool. An HttpInvoker whose URLs
    /// lead to a gateway that feeds invoker() runs the workflow over HTTP
    /// (unum-run --invoker http).
    Invoker *platform = nullptr;
    /// On a persistent store (sqlite, redis): journal every invocation the
    /// pool accepts in the store's outbox, and terminal outputs and
    /// failures in the session, so that resume() can finish a session that
    /// a killed process left (DataStore.h).
    bool durable = true;
    /// (durable) Remember which outbox entries this runner is working on,
    /// so that redeliver() skips them: a function host that sweeps the
    /// store's outboxes for work a dead process left (unum-serve).
    bool trackInFlight = false;
    /// Keep terminal outputs and failures in memory for result() (they are
    /// journaled in the store anyway when durable). A long-running function
    /// host turns this off: no session of its ever "ends" in its memory.
    bool keepResults = true;
    /// (trackInFlight) How old an outbox entry that its sender journaled
    /// (a payload's "Outbox" field: the sender's host POSTs it right after
    /// writing it) must be before redeliver() takes it: a younger one is
    /// probably on its way here by HTTP, and delivering it from the store
    /// too would run it twice. unum-serve: two sweep intervals.
    std::chrono::milliseconds issueGrace{0};
  };

  LocalRunner(const App &app, DataStore &store, Options options);
  ~LocalRunner();
  LocalRunner(const LocalRunner &) = delete;
  LocalRunner &operator=(const LocalRunner &) = delete;

  /// Starts a workflow at the app's start function with `input`, a payload
  /// (an object with Data) or a bare value, and waits for all its work.
  /// After a successful run with gc on, the session's leftovers (tombstones,
  /// consumed markers, effects) are deleted unless `keepSession`. A session
  /// is reported done only if all of its work finished: nothing left in the
  /// outbox, every completion set complete and (gc on) consumed.
  RunResult run(const Value &input, bool keepSession = false,
                const std::string &session = "");
  /// Finishes a session that a stopped process left in a persistent store:
  /// delivers its pending invocations again and waits, then reports like
  /// run(), with the outputs and failures recorded by every process that
  /// worked on the session.
  RunResult resume(const std::string &session, bool keepSession = false);
  /// True if this runner journals its work (Options::durable on a
  /// persistent store).
  bool durable() const;

  /// Delivers again, onto the pool, the session's pending outbox entries
  /// whose function `take` accepts, except those this runner is working on
  /// (Options::trackInFlight) and those journaled by their sender less
  /// than Options::issueGrace ago, without waiting for them (never as
  /// fresh: they look for their checkpoint). Returns how many.
  Result<size_t>
  redeliver(const std::string &session,
            const std::function<bool(const std::string &function)> &take);
  /// Waits until a session that runs elsewhere (started with a platform
  /// whose URLs lead to function hosts) has no pending invocation left in
  /// the store, polling every `poll`, then reports it like run(). Gives up
  /// with an error after `timeout`.
  RunResult awaitSession(const std::string &session, bool keepSession,
                         std::chrono::milliseconds timeout,
                         std::chrono::milliseconds poll);

  /// What a function host does with an invocation it received (before it
  /// answers 202): journals it (durable), and puts it on the pool. On
  /// a persistent store the journal entry goes out in the round trip that
  /// looks for the instance's checkpoint (so that the run skips that
  /// lookup when there is none). An error: the invocation is not
  /// accepted (the sender tries again; a journal entry that was written
  /// anyway is delivered again by redeliver()). A payload that carries the
  /// outbox entry its sender journaled (the "Outbox" wire field) is not
  /// journaled again and costs no store access: it goes onto the pool
  /// (dropped if this runner already works on that entry, with
  /// Options::trackInFlight), and finishing it removes that entry.
  Status accept(const std::string &function, Payload &&payload);

  /// accept() for a workflow's start that reaches a function host (a
  /// direct POST, which no client may wait for to report and delete it):
  /// also journals a start marker, so that collectSessions() deletes the
  /// session once all its work is done.
  Status acceptNewSession(const std::string &function, Payload &&payload);
  /// accept() (acceptNewSession() with `newSession`) for a host that
  /// answers before the invocation runs: on success the invocation is not
  /// queued but left in `run`, which the caller must call exactly once,
  /// after its answer: it runs the invocation on the calling thread when
  /// one of the `workers` slots is free (ThreadPoolInvoker::invokeHere),
  /// else queues it. (No hand-off to a worker thread on the critical
  /// path.) Call or destroy it before the runner is destroyed; wait()
  /// counts the invocation as running from admit() on (a
  /// ThreadPoolInvoker::Slot that `run` holds), until it ran or `run` is
  /// destroyed uncalled (then the journal entry waits for redeliver()).
  Status admit(const std::string &function, Payload &&payload,
               std::function<void()> &run, bool newSession = false);
  /// Deletes, among `sessions` (DataStore::unfinishedSessions()), those
  /// started by acceptNewSession() (on any host sharing the store) whose
  /// work is all done (their outbox holds no invocation), once this runner
  /// has seen them done for `retain` (0: at once). Their outputs (kept in
  /// the session) can be read until then. Nothing with gc off or without a
  /// journal. Returns how many it deleted. A host's sweep calls it.
  Result<size_t> collectSessions(const std::vector<std::string> &sessions,
                                 std::chrono::milliseconds retain);

  /// Starts without waiting; wait() then collects. `session` names a new
  /// session (empty: a fresh id; a payload's own Session otherwise).
  Result<std::string> start(const Value &input,
                            const std::string &session = "");
  void wait();
  RunResult result(const std::string &session);

  Runtime &runtime();
  /// The worker pool: where a gateway queues the invocations it accepts.
  ThreadPoolInvoker &invoker();

private:
  /// The pool, the Runtime, the journal and the collected results
  /// (lib/Runtime/LocalRunner.cpp).
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// The record in which a function with "SaveInput" keeps its effective input
/// for the sink that reads it ("StateInput"): `<instance>#input`, a name no
/// instance has.
std::string savedInputName(const std::string &instance);

/// Wraps a bare input as a start payload; keeps a payload as it is.
Result<Payload> startPayload(const Value &input);

/// Writes the session's committed effects to `path` as a JSON object of
/// instance name -> list of effects, instances sorted, each one's effects
/// in commit order (unum-run and unum-serve --effects).
Status writeEffectsFile(DataStore &store, const std::string &session,
                        const std::string &path);

/// The contents of the file at `path`, or of stdin for "-".
Result<std::string> readFileOrStdin(const std::string &path);

} // namespace unum::runtime

#endif // UNUM_RUNTIME_RUNTIME_H
