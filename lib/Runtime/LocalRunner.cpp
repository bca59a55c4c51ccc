//===- LocalRunner.cpp - Running an application in one process ------------===//
//
// On a persistent store the runner is durable: every invocation the pool
// accepts is staged in the store's outbox with its payload and staged as
// finished once it ran (not when it crashed: a crash leaves it to a
// redelivery or to resume()); terminal outputs and failures are written to
// the session ("out:<instance>", "err:<instance>"), and the start input to
// "run". The outbox changes become durable with the store's next write, so
// whatever that write depends on having been issued is durable with it: a
// killed process leaves a session whose outbox holds every invocation that
// may not have finished, and delivering them again finishes it with every
// effect committed once (the checkpoint protocol makes redelivery safe).
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/Runtime.h"

#include "AppInternal.h"
#include "DataStoreInternal.h"
#include "PayloadInternal.h"
#include "StateEntry.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

using namespace unum::runtime;

namespace {
constexpr const char kOutputKey[] = "out:";
constexpr const char kErrorKey[] = "err:";
/// The outbox entry that stands for reporting the session: issued with the
/// start, finished once a runner has collected the session's result. A
/// session whose work is done but whose result a killed process never
/// reported is still unfinished, and resuming it reports it.
constexpr uint64_t kReportId = 0;
/// An entry that is no invocation: the report entry, or the start marker of
/// a session that a host named itself (acceptNewSession; its id is unique,
/// as SQLite keys the outbox by id alone). No function has an empty name.
bool isMarker(const DataStore::Pending &e) { return e.function.empty(); }

/// The runner's observer: terminal outputs and failures, kept for
/// result() and journaled in the store.
class Collector final : public Observer {
public:
  Collector(bool traceOn, std::function<void(const std::string &)> log,
            DataStore *journal, bool keep)
      : traceOn(traceOn), log(std::move(log)), journal(journal), keep(keep) {}

  void terminal(const std::string &session, const std::string &instance,
                const Value &output) override {
    // Written before the instance retires its checkpoint: a redelivery
    // after the retirement finds nothing to do, and the output here.
    Status s = journal ? detail::StoreAccess::put(*journal, session,
                                                  kOutputKey + instance,
                                                  toJson(output))
                       : Status::ok();
    if (!keep) {
      if (!s)
        debug("cannot record the output of " + instance + ": " + s.message());
      return;
    }
    std::lock_guard<std::mutex> lock(mu);
    results[session].outputs[instance] = output;
    if (!s)
      results[session].errors.push_back("cannot record the output of " +
                                        instance + ": " + s.message());
  }
  void failed(const std::string &session, const std::string &,
              const std::string &instance,
              const std::string &message) override {
    if (journal && !session.empty())
      (void)detail::StoreAccess::put(*journal, session, kErrorKey + instance,
                                     message);
    if (!keep)
      return;
    std::lock_guard<std::mutex> lock(mu);
    results[session].errors.push_back(message);
  }
  /// An invocation that crashed on every delivery. Those with the same
  /// cause (a store that is down fails them all alike) are reported once.
  void gaveUp(const std::string &session, const std::string &function,
              const std::string &instance, const std::string &cause) {
    if (!keep) { // left in the outbox for a later delivery: said, not kept
      debug("session " + session + ": function '" + function + "' (instance " +
            instance + ") crashed on every delivery: " + cause);
      return;
    }
    std::lock_guard<std::mutex> lock(mu);
    GaveUp &g = results[session].gaveUp[cause];
    if (g.count++ == 0)
      g.first = "function '" + function + "' (instance " + instance + ")";
  }
  bool tracing() const override { return traceOn; }
  void trace(const std::string &line) override {
    if (traceOn)
      debug(line);
  }
  void debug(const std::string &line) override {
    std::lock_guard<std::mutex> lock(mu);
    if (log)
      log(line);
    else
      std::cerr << "[unum] " << line << "\n";
  }

  RunResult take(const std::string &session) {
    std::lock_guard<std::mutex> lock(mu);
    Collected c = std::move(results[session]);
    results.erase(session);
    RunResult r;
    r.session = session;
    r.outputs = std::move(c.outputs);
    r.errors = std::move(c.errors);
    for (auto &[cause, g] : c.gaveUp)
      r.errors.push_back(
          g.count == 1
              ? g.first + ": crashed on every delivery: " + cause
              : std::to_string(g.count) +
                    " invocations crashed on every delivery (the first: " +
                    g.first + "): " + cause);
    return r;
  }

private:
  struct GaveUp {
    size_t count = 0;
    std::string first;
  };
  struct Collected {
    std::map<std::string, Value> outputs;
    std::vector<std::string> errors;
    std::map<std::string, GaveUp> gaveUp; // by cause
  };
  bool traceOn;
  std::function<void(const std::string &)> log;
  DataStore *journal;
  bool keep;
  std::mutex mu;
  std::map<std::string, Collected> results;
};
} // namespace

struct LocalRunner::Impl {
  Impl(const App &app, DataStore &store, Options options);
  ~Impl();

  /// `run`: admit() (not queued, left in *run); nullptr: accept().
  Status accept(const std::string &function, Payload &&payload,
                bool newSession = false, std::function<void()> *run = nullptr);
  /// accept()'s last step: queues the invocation, or leaves it in `*run`.
  Status queueOrHandBack(const std::string &function, Payload &&payload,
                         std::function<void()> *run);
  Result<size_t> collectSessions(const std::vector<std::string> &sessions,
                                 std::chrono::milliseconds retain);
  Result<size_t>
  redeliver(const std::string &session,
            const std::function<bool(const std::string &function)> &take);
  RunResult awaitSession(const std::string &session, bool keepSession,
                         std::chrono::milliseconds timeout,
                         std::chrono::milliseconds poll);
  Result<std::string> start(const Value &input, const std::string &session);
  RunResult resume(const std::string &session, bool keepSession);
  RunResult finish(const std::string &session, bool keepSession);
  void journalIssued(const std::string &function, Payload &p);
  /// A continuation this process sent that its receiver refused for good
  /// after the step (Invoker::OnRefusal): the session fails with `why`,
  /// and the entry leaves the outbox (no sweep delivers it again).
  void deadLetter(const std::string &function, const Payload &p,
                  const std::string &why);
  /// Decodes the entries `take` accepts and puts them on the pool.
  Result<size_t>
  deliverPending(const std::string &session,
                 std::vector<DataStore::Pending> &entries,
                 const std::function<bool(const std::string &)> &take,
                 std::chrono::milliseconds grace);
  void setInFlight(uint64_t id, bool running);
  bool isInFlight(uint64_t id);
  /// Marks `id` in flight unless it is: false then (already running here).
  bool claim(uint64_t id);

  const App &app;
  DataStore &store;
  Options opts;
  bool journaling = false;
  std::atomic<uint64_t> nextOutboxId{0};
  std::mutex inFlightMu;
  std::set<uint64_t> inFlight; // Options::trackInFlight
  /// collectSessions: when each session was first seen with its work done.
  std::mutex idleMu;
  std::map<std::string, std::chrono::steady_clock::time_point> idleSince;
  std::unique_ptr<Collector> collector;
  std::unique_ptr<ThreadPoolInvoker> pool;
  std::unique_ptr<Runtime> rt;
};

Result<Payload> unum::runtime::startPayload(const Value &input) {
  bool isPayload = input.isObject() && input.find("Data");
  if (isPayload)
    for (const Value::Member &m : input.getObject())
      if (m.first != "Data" && m.first != "Session" && m.first != "Fan-out" &&
          m.first != "GC" && m.first != "Execution" && m.first != "Outbox")
        isPayload = false;
  if (isPayload)
    return decodePayload(input);
  Payload p;
  p.value = input;
  return p;
}

/// The part of a store failure that names the store: every operation that
/// fails on a store that is down reports the same.
static std::string storeCause(const std::string &message,
                              const std::string &store) {
  size_t at = message.find(store);
  return at == std::string::npos ? message : message.substr(at);
}

LocalRunner::Impl::Impl(const App &app, DataStore &store, Options options)
    : app(app), store(store), opts(std::move(options)) {
  journaling = opts.durable && store.persistent();
  collector = std::make_unique<Collector>(
      opts.trace, opts.log, journaling ? &store : nullptr, opts.keepResults);
  pool = std::make_unique<ThreadPoolInvoker>(opts.workers, opts.maxDeliveries);
  RuntimeOptions ro = opts.runtime;
  ro.observer = collector.get();
  rt = std::make_unique<Runtime>(app, store,
                                 opts.platform ? *opts.platform : *pool, ro);
  if (journaling) {
    // Ids are unique per process (a random start), so a resumed session's
    // new invocations do not collide with the ones a dead process left.
    // (63 bits: SQLite keeps them as positive integers.)
    std::random_device rd;
    nextOutboxId = ((uint64_t(rd()) << 32 | rd()) >> 1) | 1;
    pool->setOnAccept(
        [this](const std::string &fn, Payload &p) { journalIssued(fn, p); });
    pool->setDispatch([this](const std::string &fn, const Payload &p) {
      Status s = rt->handle(fn, p);
      if (detail::hints(p).outboxId && !s.isCrash()) {
        this->store.stageFinished(p.session, detail::hints(p).outboxId, fn);
        if (opts.trackInFlight)
          setInFlight(detail::hints(p).outboxId, false);
      }
      return s;
    });
  } else {
    pool->setDispatch([this](const std::string &fn, const Payload &p) {
      return rt->handle(fn, p);
    });
  }
  if (journaling && opts.platform)
    opts.platform->setOnRefusal(
        [this](const std::string &fn, const Payload &p,
               const std::string &why) { deadLetter(fn, p, why); });
  pool->setOnFailure(
      [this](const std::string &fn, const Payload &p, const Status &s) {
        // Errors were reported by the runtime; only give-ups are new here.
        // (A give-up stays in the outbox: resume() delivers it again.)
        if (s.isCrash()) {
          collector->gaveUp(p.session, fn, instanceName(fn, p.fanout),
                            storeCause(s.message(), this->store.describe()));
          // A later redeliver() takes it.
          if (opts.trackInFlight && detail::hints(p).outboxId)
            setInFlight(detail::hints(p).outboxId, false);
        }
      });
}

LocalRunner::Impl::~Impl() {
  pool.reset(); // joins the workers before the runtime goes away
  if (journaling && opts.platform)
    opts.platform->setOnRefusal(nullptr); // waits for one running
}

void LocalRunner::Impl::deadLetter(const std::string &function,
                                   const Payload &p, const std::string &why) {
  const uint64_t id = detail::hints(p).outboxId;
  if (p.session.empty() || !id)
    return;
  // The failure first: a process killed in between leaves the entry (for
  // a sweep), never a session that looks done without its failure.
  collector->failed(p.session, function, instanceName(function, p.fanout), why);
  store.stageFinished(p.session, id, function);
  if (Status s = store.flushOutbox(); !s)
    collector->debug("session " + p.session + ": " + s.message());
}

void LocalRunner::Impl::journalIssued(const std::string &function, Payload &p) {
  if (detail::hints(p).outboxId || p.session.empty())
    return; // delivered again by resume(), or not resumable
  detail::hints(p).outboxId =
      nextOutboxId.fetch_add(1, std::memory_order_relaxed);
  if (opts.trackInFlight)
    setInFlight(detail::hints(p).outboxId, true);
  store.stageIssued(p.session, detail::hints(p).outboxId, function,
                    detail::payloadJson(p));
}

Status LocalRunner::Impl::queueOrHandBack(const std::string &function,
                                          Payload &&p,
                                          std::function<void()> *run) {
  if (!run)
    return pool->invoke(function, std::move(p));
  // Reserved before the caller's answer, so that wait() does not return
  // between the answer and the run; given up by the run, or when `run` is
  // destroyed without being called. (std::function needs a copyable
  // callable: the reserved work is shared.)
  struct Reserved {
    Payload payload;
    ThreadPoolInvoker::Slot slot;
  };
  auto work =
      std::make_shared<Reserved>(Reserved{std::move(p), pool->reserve()});
  *run = [this, function, work] {
    const uint64_t id = detail::hints(work->payload).outboxId;
    // The pool refuses only while it is destroyed: the journal entry stays
    // for a sweep (then no longer in flight here).
    if (!pool->invokeHere(std::move(work->slot), function,
                          std::move(work->payload)) &&
        opts.trackInFlight && id)
      setInFlight(id, false);
  };
  return Status::ok();
}

Status LocalRunner::Impl::accept(const std::string &function, Payload &&p,
                                 bool newSession, std::function<void()> *run) {
  if (journaling && detail::hints(p).issuedMs && !p.session.empty()) {
    // Journaled by its sender with its checkpoint (Payload.h "Outbox"): no
    // store access before the 202. A duplicate of an entry running here
    // (the sweep took it, or the sender sent it again) is dropped; one of
    // an entry that finished runs again, and its checkpoint (looked for
    // unless fresh) stops it.
    const uint64_t id = detail::hints(p).outboxId;
    if (opts.trackInFlight && !claim(id))
      return Status::ok();
    if (Status s = queueOrHandBack(function, std::move(p), run); !s) {
      if (opts.trackInFlight)
        setInFlight(id, false);
      return s;
    }
    return Status::ok();
  }
  if (!journaling || p.session.empty() || detail::hints(p).outboxId)
    return queueOrHandBack(function, std::move(p), run);
  journalIssued(function, p);
  const uint64_t id = detail::hints(p).outboxId;
  // After the invocation: a batch that another thread takes in between
  // holds the invocation without the marker (not yet collectable), never
  // the marker alone (a finished session).
  if (newSession)
    store.stageIssued(p.session,
                      nextOutboxId.fetch_add(1, std::memory_order_relaxed), "",
                      "");
  // The checkpoint a delivery of this instance left, looked for in the
  // round trip that journals it (Redis pipelines the two). Only where the
  // instance's name is the function's at the payload's fan-out indices (a
  // function with Loop names its visits), and not for a fan-in target,
  // which reads its inputs anyway. A failed lookup is left to the run.
  const detail::FunctionNode *node = detail::AppAccess::node(app, function);
  if (node && node->plan.checkpoint && !node->plan.loop &&
      p.source != Payload::Source::Checkpoint) {
    auto rec = store.get(p.session, instanceName(function, p.fanout));
    if (rec && !*rec)
      detail::hints(p).noCheckpoint = true;
  }
  // Durable before it is accepted (the lookup may have carried it, or
  // another thread's batch).
  if (Status s = store.flushOutbox(); !s) {
    // Staged still: the next flush writes it, and the sweep then runs it.
    if (opts.trackInFlight)
      setInFlight(id, false);
    return s;
  }
  return queueOrHandBack(function, std::move(p), run);
}

Result<size_t>
LocalRunner::Impl::collectSessions(const std::vector<std::string> &sessions,
                                   std::chrono::milliseconds retain) {
  if (!journaling || !opts.runtime.gc)
    return size_t(0);
  const auto now = std::chrono::steady_clock::now();
  size_t deleted = 0;
  std::set<std::string> listed(sessions.begin(), sessions.end());
  for (const std::string &session : sessions) {
    auto pending = store.outbox(session);
    if (!pending)
      return pending.getStatus();
    // Done: markers only, one of them a host's start marker (a session
    // that a client such as unum-run started holds only its report entry
    // while the client reports it, and the client deletes it).
    bool done = !pending->empty() &&
                std::all_of(pending->begin(), pending->end(), isMarker) &&
                std::any_of(pending->begin(), pending->end(),
                            [](const DataStore::Pending &e) {
                              return e.id != kReportId;
                            });
    std::lock_guard<std::mutex> lock(idleMu);
    if (!done) {
      idleSince.erase(session);
      continue;
    }
    auto since = idleSince.try_emplace(session, now).first->second;
    if (now - since < retain)
      continue;
    if (Status s = store.deleteSession(session); !s)
      return s;
    idleSince.erase(session);
    ++deleted;
  }
  // Sessions no longer listed were deleted or resumed elsewhere.
  std::lock_guard<std::mutex> lock(idleMu);
  for (auto it = idleSince.begin(); it != idleSince.end();)
    it = listed.count(it->first) ? std::next(it) : idleSince.erase(it);
  return deleted;
}

void LocalRunner::Impl::setInFlight(uint64_t id, bool running) {
  std::lock_guard<std::mutex> lock(inFlightMu);
  if (running)
    inFlight.insert(id);
  else
    inFlight.erase(id);
}

bool LocalRunner::Impl::claim(uint64_t id) {
  std::lock_guard<std::mutex> lock(inFlightMu);
  return inFlight.insert(id).second;
}

bool LocalRunner::Impl::isInFlight(uint64_t id) {
  std::lock_guard<std::mutex> lock(inFlightMu);
  return inFlight.count(id) != 0;
}

Result<size_t> LocalRunner::Impl::deliverPending(
    const std::string &session, std::vector<DataStore::Pending> &entries,
    const std::function<bool(const std::string &)> &take,
    std::chrono::milliseconds grace) {
  size_t n = 0;
  for (DataStore::Pending &e : entries) {
    if (isMarker(e))
      continue; // what finish() or collectSessions() does
    if (!take(e.function) || (opts.trackInFlight && isInFlight(e.id)))
      continue;
    auto v = parseJsonValue(e.payload, "outbox entry " + std::to_string(e.id));
    auto p = v ? decodePayload(*v) : Result<Payload>(v.getStatus());
    if (!p || p->session != session)
      return Status::error("session '" + session + "': outbox entry " +
                           std::to_string(e.id) +
                           " is not a payload of this session" +
                           (p ? "" : ": " + p.getStatus().message()));
    auto &h = detail::hints(*p);
    // Journaled by its sender just now: its POST is probably on its way.
    if (grace.count() && h.issuedMs &&
        std::chrono::system_clock::now() <
            std::chrono::system_clock::time_point(
                std::chrono::milliseconds(h.issuedMs)) +
                grace)
      continue;
    h.outboxId = e.id; // finishing it removes this entry
    h.fresh = false;   // delivered again: it may have run (Outbox.Fresh)
    h.noCheckpoint = false;
    if (opts.trackInFlight && !claim(e.id))
      continue; // its POST arrived in the meantime
    // Straight to the pool.
    if (Status s = pool->invoke(e.function, p.take()); !s) {
      if (opts.trackInFlight)
        setInFlight(e.id, false);
      return s;
    }
    ++n;
  }
  return n;
}

Result<size_t> LocalRunner::Impl::redeliver(
    const std::string &session,
    const std::function<bool(const std::string &function)> &take) {
  if (!journaling)
    return size_t(0);
  auto pending = store.outbox(session);
  if (!pending)
    return pending.getStatus();
  if (opts.trackInFlight) {
    // An entry that looks abandoned (hosted here, not running here) may
    // have finished here while the read was on its way: listed because its
    // removal was staged after the read began. Its invocation stages the
    // removal before it clears its in-flight mark, and a read waits for
    // what was staged before it (DataStore::outbox): so the entries not
    // running here now that a second read still lists are abandoned, and
    // only those go. (Delivered again, a finished invocation reuses its
    // checkpoint, but a fan-in completer sends its target once more, whose
    // user code then ran twice when the first was still running.)
    auto abandoned = [&](const DataStore::Pending &e) {
      return take(e.function) && !isInFlight(e.id);
    };
    if (std::any_of(pending->begin(), pending->end(), abandoned)) {
      auto again = store.outbox(session);
      if (!again)
        return again.getStatus();
      std::set<uint64_t> listed;
      for (const DataStore::Pending &e : *again)
        listed.insert(e.id);
      pending->erase(std::remove_if(pending->begin(), pending->end(),
                                    [&](const DataStore::Pending &e) {
                                      return !abandoned(e) ||
                                             !listed.count(e.id);
                                    }),
                     pending->end());
    }
  }
  return deliverPending(session, *pending, take, opts.issueGrace);
}

RunResult LocalRunner::Impl::awaitSession(const std::string &session,
                                          bool keepSession,
                                          std::chrono::milliseconds timeout,
                                          std::chrono::milliseconds poll) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto pending = store.outbox(session);
    if (!pending) {
      RunResult r = collector->take(session);
      r.session = session;
      r.errors.push_back(pending.getStatus().message());
      return r;
    }
    bool left =
        std::any_of(pending->begin(), pending->end(),
                    [](const DataStore::Pending &p) { return !isMarker(p); });
    if (!left)
      return finish(session, keepSession);
    if (std::chrono::steady_clock::now() >= deadline) {
      RunResult r = collector->take(session);
      r.session = session;
      r.errors.push_back("session " + session + " did not finish within " +
                         std::to_string(timeout.count() / 1000) +
                         " s: " + std::to_string(pending->size() - 1) +
                         " invocation(s) still pending");
      return r;
    }
    std::this_thread::sleep_for(poll);
  }
}

Result<std::string> LocalRunner::Impl::start(const Value &input,
                                             const std::string &session) {
  auto p = startPayload(input);
  if (!p)
    return p.getStatus();
  std::vector<std::string> starts = app.startFunctions();
  if (starts.empty())
    return Status::error("the application has no start function");
  if (starts.size() > 1) {
    std::string names;
    for (const std::string &s : starts)
      names += (names.empty() ? "" : ", ") + s;
    return Status::error("the application has several start functions (" +
                         names + ")");
  }
  if (!session.empty()) {
    p->session = session;
  } else if (p->session.empty()) {
    p->session = newSessionId();
    detail::hints(*p).fresh = true; // a new session has no checkpoints
  }
  // $$.Execution: fixed here, with the session, so that a redelivered or
  // resumed start reads the same (lib/Runtime/StateEntry.h).
  if (const detail::FunctionNode *start =
          detail::AppAccess::node(app, starts[0]);
      start && start->plan.executionContext && !p->execution)
    p->execution =
        detail::newExecution(p->value, detail::contextTime(opts.runtime));
  std::string id = p->session;
  if (journaling)
    store.stageIssued(id, kReportId, "", "");
  Invoker &platform = opts.platform ? *opts.platform : *pool;
  if (Status s = platform.invoke(starts[0], p.take()); !s)
    return s;
  if (journaling) {
    // The run's input (what a rerun compares) and the process working on
    // it, written with the start's outbox entry.
    Value run = Value::object();
    run.set("input", input);
    run.set("pid", int64_t(getpid()));
    // The start is on its way: a failure here is the session's, reported
    // once its work has ended.
    if (Status s = detail::StoreAccess::put(store, id, "run", toJson(run)); !s)
      collector->failed(id, "", "",
                        s.withContext("recording the session").message());
  }
  return id;
}

RunResult LocalRunner::Impl::resume(const std::string &session,
                                    bool keepSession) {
  RunResult failed;
  failed.session = session;
  if (!journaling) {
    failed.errors.push_back(store.describe() +
                            " keeps nothing to resume from (a persistent "
                            "store does: sqlite:PATH or redis://HOST:PORT)");
    return failed;
  }
  auto pending = store.outbox(session);
  if (!pending) {
    failed.errors.push_back(pending.getStatus().message());
    return failed;
  }
  auto known = store.scan(session, "run");
  if (!known) {
    failed.errors.push_back(known.getStatus().message());
    return failed;
  }
  if (pending->empty() && known->empty()) {
    failed.errors.push_back("no session '" + session + "' in " +
                            store.describe());
    return failed;
  }
  if (!known->empty()) { // this process works on it now
    auto run = parseJsonValue(known->front().second, "session record");
    if (run && run->isObject()) {
      run->set("pid", int64_t(getpid()));
      if (Status s =
              detail::StoreAccess::put(store, session, "run", toJson(*run));
          !s) {
        failed.errors.push_back(s.message());
        return failed;
      }
    }
  }
  auto delivered = deliverPending(
      session, *pending, [](const std::string &) { return true; },
      std::chrono::milliseconds(0));
  if (!delivered) {
    failed.errors.push_back(delivered.getStatus().message());
    return failed;
  }
  pool->wait();
  return finish(session, keepSession);
}

/// Adds `message` unless an error already says it (a store that is down
/// fails every read alike).
static void addError(RunResult &r, const std::string &message) {
  for (const std::string &e : r.errors)
    if (e.find(message) != std::string::npos)
      return;
  r.errors.push_back(message);
}

RunResult LocalRunner::Impl::finish(const std::string &session,
                                    bool keepSession) {
  RunResult r = collector->take(session);
  if (journaling) {
    // What every process that worked on the session recorded.
    auto outs = store.scan(session, kOutputKey);
    auto errs = store.scan(session, kErrorKey);
    if (!outs || !errs) {
      addError(r, (outs ? errs.getStatus() : outs.getStatus()).message());
    } else {
      for (auto &[key, json] : *outs) {
        std::string instance = key.substr(sizeof(kOutputKey) - 1);
        auto v = parseJsonValue(json, "output of " + instance);
        if (v)
          r.outputs[instance] = v.take();
        else
          addError(r, v.getStatus().message());
      }
      for (auto &[key, message] : *errs)
        if (std::find(r.errors.begin(), r.errors.end(), message) ==
            r.errors.end())
          addError(r, message);
    }
    auto pending = store.outbox(session);
    if (!pending) {
      addError(r, pending.getStatus().message());
    } else {
      size_t left = std::count_if(
          pending->begin(), pending->end(),
          [](const DataStore::Pending &p) { return !isMarker(p); });
      if (left && r.ok())
        addError(r, "session " + session + " did not finish: " +
                        std::to_string(left) + " invocation(s) still pending");
      // Reported as failed, or done and kept (gc off): nothing to resume.
      // (Done with gc on: deleting the session finishes it.)
      if (!left && (!r.ok() || !opts.runtime.gc)) {
        store.stageFinished(session, kReportId, "");
        if (Status s = store.flushOutbox(); !s)
          addError(r, s.message());
      }
    }
  }
  if (r.ok()) {
    // A fan-in that never completed leaves a pending set, and one whose
    // target never finished (gc on) a complete one that is not consumed.
    auto st = store.stats(session);
    if (!st) {
      addError(r, st.getStatus().message());
    } else {
      for (const DataStore::PendingSet &p : st->pendingSets) {
        std::string target = p.set.substr(0, p.set.find('|'));
        if (p.count < p.expected)
          addError(r, "fan-in to '" + target + "' never completed: " +
                          std::to_string(p.count) + " of " +
                          std::to_string(p.expected) + " inputs arrived");
        else if (opts.runtime.gc)
          addError(r, "fan-in to '" + target +
                          "' completed, but its target never finished");
      }
    }
  }
  if (r.ok() && opts.runtime.gc && !keepSession)
    if (Status s = store.deleteSession(session); !s)
      addError(r, s.message());
  return r;
}

LocalRunner::LocalRunner(const App &app, DataStore &store, Options options)
    : impl(std::make_unique<Impl>(app, store, std::move(options))) {}

LocalRunner::~LocalRunner() = default;

bool LocalRunner::durable() const { return impl->journaling; }

Status LocalRunner::accept(const std::string &function, Payload &&payload) {
  return impl->accept(function, std::move(payload));
}

Status LocalRunner::acceptNewSession(const std::string &function,
                                     Payload &&payload) {
  return impl->accept(function, std::move(payload), /*newSession=*/true);
}

Status LocalRunner::admit(const std::string &function, Payload &&payload,
                          std::function<void()> &run, bool newSession) {
  return impl->accept(function, std::move(payload), newSession, &run);
}

Result<size_t>
LocalRunner::collectSessions(const std::vector<std::string> &sessions,
                             std::chrono::milliseconds retain) {
  return impl->collectSessions(sessions, retain);
}

Result<size_t> LocalRunner::redeliver(
    const std::string &session,
    const std::function<bool(const std::string &function)> &take) {
  return impl->redeliver(session, take);
}

RunResult LocalRunner::awaitSession(const std::string &session,
                                    bool keepSession,
                                    std::chrono::milliseconds timeout,
                                    std::chrono::milliseconds poll) {
  return impl->awaitSession(session, keepSession, timeout, poll);
}

Result<std::string> LocalRunner::start(const Value &input,
                                       const std::string &session) {
  return impl->start(input, session);
}

void LocalRunner::wait() { impl->pool->wait(); }

RunResult LocalRunner::result(const std::string &session) {
  return impl->collector->take(session);
}

RunResult LocalRunner::run(const Value &input, bool keepSession,
                           const std::string &name) {
  auto session = impl->start(input, name);
  if (!session) {
    RunResult r;
    r.errors.push_back(session.getStatus().message());
    return r;
  }
  impl->pool->wait();
  return impl->finish(*session, keepSession);
}

RunResult LocalRunner::resume(const std::string &session, bool keepSession) {
  return impl->resume(session, keepSession);
}

Runtime &LocalRunner::runtime() { return *impl->rt; }

ThreadPoolInvoker &LocalRunner::invoker() { return *impl->pool; }

Status unum::runtime::writeEffectsFile(DataStore &store,
                                       const std::string &session,
                                       const std::string &path) {
  auto fx = store.effects(session);
  if (!fx)
    return fx.getStatus().withContext("reading effects");
  std::map<std::string, Value> byInstance;
  for (const Effect &e : *fx) {
    auto v = parseJsonValue(e.value, "effect of '" + e.instance + "'");
    if (!v)
      return v.getStatus();
    auto it = byInstance.try_emplace(e.instance, Value::array()).first;
    it->second.push(v.take());
  }
  Value out = Value::object();
  for (auto &[instance, list] : byInstance)
    out.getObject().emplace_back(instance, std::move(list)); // keys unique
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << toJson(out, /*pretty=*/true) << "\n";
  f.close();
  if (!f)
    return Status::error("--effects: cannot write '" + path + "'");
  return Status::ok();
}

Result<std::string> unum::runtime::readFileOrStdin(const std::string &path) {
  std::ostringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      return Status::error("cannot read '" + path + "'");
    ss << in.rdbuf();
  }
  return ss.str();
}
