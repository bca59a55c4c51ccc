//===- ConcurrencyTest.cpp - Wide maps and fan-ins under contention -------===//
//
// A 1000-wide map with a fan-in, 50 runs on each persistent store: the
// fan-in target runs exactly once every time, and sees all 1000 outputs in
// order. UNUM_CONCURRENCY_RUNS overrides the number of runs. And a function
// host's sweep racing an invocation that finishes while it reads, and the
// protocol between hosts whose continuations their sender journals with its
// checkpoint (the "Outbox" wire field, docs/Deploy.md).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

// Internal: the outbox test hook, a payload's hints.
#include "DataStoreInternal.h"
#include "PayloadInternal.h"

#include "unum/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace unum::runtime;
using namespace unum::runtime::test;

namespace {
class ConcurrencyTest : public StoreTest {};
} // namespace

TEST_P(ConcurrencyTest, WideMapFanInTargetRunsOnce) {
  constexpr int kWidth = 1000;
  int runs = 50;
  if (const char *env = std::getenv("UNUM_CONCURRENCY_RUNS"))
    runs = std::max(1, std::atoi(env));

  App app = appFromJson({
      R"({"Name": "Split", "Next": {"Name": "Work", "InputType": "Map"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "Work", "Next": {"Name": "Join", "InputType": {"Fan-in": {
            "Values": ["Work-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "Join", "Checkpoint": true})"});
  std::mutex mu;
  std::map<std::string, int> joinRuns; // session -> user-code runs
  (void)app.setHandler("Split",
                       makeFunctionHandler([](const Value &n, Context &) {
                         Value items = Value::array();
                         for (int64_t i = 0; i < n.getInt(); ++i)
                           items.push(Value(i));
                         return HandlerResult::success(items);
                       }));
  (void)app.setHandler("Work",
                       makeFunctionHandler([](const Value &x, Context &) {
                         return HandlerResult::success(Value(x.getInt() * 2));
                       }));
  (void)app.setHandler("Join",
                       makeFunctionHandler([&](const Value &xs, Context &ctx) {
                         {
                           std::lock_guard<std::mutex> lock(mu);
                           ++joinRuns[std::string(ctx.session)];
                         }
                         ctx.effect(Value("joined"));
                         const Value::Array &a = xs.getArray();
                         bool ordered = a.size() == size_t(kWidth);
                         for (size_t i = 0; ordered && i < a.size(); ++i)
                           ordered = a[i].getInt() == int64_t(2 * i);
                         return HandlerResult::success(Value(ordered));
                       }));

  LocalRunner::Options opts;
  opts.workers = 4;
  LocalRunner runner(app, *store, opts);
  for (int run = 0; run < runs; ++run) {
    RunResult r = runner.run(Value(int64_t(kWidth)), /*keepSession=*/true);
    ASSERT_TRUE(r.ok()) << "run " << run << ": " << r.errors[0];
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs["Join"], Value(true)) << "run " << run;
    {
      std::lock_guard<std::mutex> lock(mu);
      EXPECT_EQ(joinRuns[r.session], 1) << "run " << run;
    }
    auto fx = store->effects(r.session);
    ASSERT_TRUE(fx.isOk());
    EXPECT_EQ(fx->size(), 1u);
    auto st = store->stats(r.session);
    EXPECT_EQ(st->dataRecords, 0u);
    EXPECT_TRUE(st->pendingSets.empty());
    ASSERT_TRUE(store->deleteSession(r.session).isOk());
  }
}

TEST_P(ConcurrencyTest, FanInCostsLinearStoreOperations) {
  // Per tail: a lookup, the conditional put and the set update; then the
  // target's batched read, put and consume: O(n) in total.
  App app = appFromJson({
      R"({"Name": "Split", "Next": {"Name": "Work", "InputType": "Map"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "Work", "Next": {"Name": "Join", "InputType": {"Fan-in": {
            "Values": ["Work-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "Join", "Checkpoint": true})"});
  (void)app.setHandler("Split",
                       makeFunctionHandler([](const Value &n, Context &) {
                         Value items = Value::array();
                         for (int64_t i = 0; i < n.getInt(); ++i)
                           items.push(Value(i));
                         return HandlerResult::success(items);
                       }));
  (void)app.setHandler("Work",
                       makeFunctionHandler([](const Value &x, Context &) {
                         return HandlerResult::success(x);
                       }));
  (void)app.setHandler(
      "Join", makeFunctionHandler([](const Value &xs, Context &) {
        return HandlerResult::success(Value(int64_t(xs.getArray().size())));
      }));
  LocalRunner::Options opts;
  opts.workers = 2;
  LocalRunner runner(app, *store, opts);
  std::map<int, uint64_t> ops;
  for (int n : {100, 1000}) {
    uint64_t before = store->operationCount();
    RunResult r = runner.run(Value(int64_t(n)), /*keepSession=*/true);
    ASSERT_TRUE(r.ok()) << r.errors[0];
    ops[n] = store->operationCount() - before;
    ASSERT_TRUE(store->deleteSession(r.session).isOk());
  }
  // 3 per tail plus a constant.
  EXPECT_LE(ops[1000], 3u * 1000 + 20) << ops[1000];
  EXPECT_LE(ops[1000] - ops[100], 3u * 900 + 5);
}

INSTANTIATE_TEST_SUITE_P(Stores, ConcurrencyTest,
                         ::testing::Values("sqlite", "redis"),
                         [](const auto &info) { return info.param; });

namespace {
/// Holds a handler until it is opened.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void pass() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return open; });
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu);
      open = true;
    }
    cv.notify_all();
  }
};

/// F's handler: passes `gate`, counts its runs, returns its input.
void setGatedHandler(App &app, Gate &gate, std::atomic<int> &runs) {
  (void)app.setHandler("F",
                       makeFunctionHandler([&](const Value &in, Context &) {
                         gate.pass();
                         ++runs;
                         return HandlerResult::success(in);
                       }));
}

/// The one-function app F, whose handler counts its runs in `runs` and
/// returns its input.
App echoApp(std::atomic<int> &runs) {
  App app = appFromJson({R"({"Name": "F", "Start": true})"});
  (void)app.setHandler("F",
                       makeFunctionHandler([&runs](const Value &in, Context &) {
                         ++runs;
                         return HandlerResult::success(in);
                       }));
  return app;
}

/// echoApp's F and a SQLite store for it (a durable runner's).
struct EchoHost {
  TempDir tmp;
  std::string why;
  std::unique_ptr<DataStore> store = makeStore("sqlite", tmp, &why);
  std::atomic<int> runs{0};
  App app = echoApp(runs);
};

/// What a function host's runner keeps (unum-serve).
LocalRunner::Options hostOptions() {
  LocalRunner::Options opts;
  opts.workers = 2;
  opts.trackInFlight = true;
  opts.keepResults = false;
  return opts;
}

/// The sweep race below: the runner, and the handler's gate.
struct SweepRace {
  LocalRunner *runner = nullptr;
  Gate gate;
  bool fired = false;
  std::atomic<int> runs{0};
} race;

/// In the sweep's first outbox read, after it took its batch and before it
/// lists the outbox: the invocation running here finishes (its removal is
/// staged, too late for that read).
void finishDuringTheRead() {
  {
    std::lock_guard<std::mutex> lock(race.gate.mu);
    if (race.fired)
      return;
    race.fired = race.gate.open = true;
  }
  race.gate.cv.notify_all();
  race.runner->wait();
}
} // namespace

// A function host's sweep (LocalRunner::redeliver) delivers again only the
// outbox entries that nobody runs: not one that finished here while the
// sweep read the outbox. Delivered again, a finished invocation reuses its
// checkpoint, but a fan-in completer sends its target once more: the
// target's user code then ran twice when the first was still running
// (seen once in the multi-process test, without kills). Deterministic: the
// invocation finishes inside the sweep's read (the store's test hook), and
// runs no second time. Redis: the other stores lock the read against the
// invocation's own writes there.
TEST(SweepTest, AnInvocationFinishedDuringTheReadIsNotDeliveredAgain) {
  TempDir tmp;
  std::string why;
  std::unique_ptr<DataStore> store = makeStore("redis", tmp, &why);
  if (!store)
    GTEST_SKIP() << why;
  App app = appFromJson({R"({"Name": "F", "Start": true})"});
  setGatedHandler(app, race.gate, race.runs);
  LocalRunner::Options opts = hostOptions();
  LocalRunner runner(app, *store, opts);
  ASSERT_TRUE(runner.durable());
  race.runner = &runner;
  auto session = runner.start(Value(int64_t(1)));
  ASSERT_TRUE(session.isOk()) << session.getStatus().message();
  ASSERT_TRUE(store->flushOutbox().isOk()); // F's entry is in the outbox
  // Something for the sweep's read to flush (another session's entry).
  std::string other = newSessionId();
  store->stageIssued(other, 99, "F", "{}");
  detail::StoreAccess::onOutboxBatchTaken(finishDuringTheRead);
  auto delivered =
      runner.redeliver(*session, [](const std::string &) { return true; });
  detail::StoreAccess::onOutboxBatchTaken(nullptr);
  runner.wait();
  ASSERT_TRUE(delivered.isOk()) << delivered.getStatus().message();
  EXPECT_TRUE(race.fired);
  EXPECT_EQ(*delivered, 0u);
  EXPECT_EQ(race.runs.load(), 1);
  store->stageFinished(other, 99, "F");
  EXPECT_TRUE(store->deleteSession(other).isOk());
  EXPECT_TRUE(store->deleteSession(*session).isOk());
}

// A host's sweep deletes a session once it holds nothing but markers, one
// of them a host's start marker (LocalRunner::acceptNewSession), and only
// after `retain`; a session with pending work, or with only a client's
// report entry (the client reports and deletes it), is left alone.
TEST(SweepTest, FinishedSessionsAreCollectedAfterTheirRetention) {
  EchoHost host;
  ASSERT_TRUE(host.store) << host.why;
  DataStore *store = host.store.get();
  LocalRunner runner(host.app, *store, {});
  ASSERT_TRUE(runner.durable());
  Payload start;
  start.session = "direct";
  start.value = Value(int64_t(1));
  ASSERT_TRUE(runner.acceptNewSession("F", std::move(start)).isOk());
  runner.wait();
  store->stageIssued("client", 0, "", "");   // a client's report entry
  store->stageIssued("busy", 41, "", "");    // a start marker ...
  store->stageIssued("busy", 42, "F", "{}"); // ... and work pending
  ASSERT_TRUE(store->putIfAbsent("busy", "X", "c", {}, {}).isOk());
  std::vector<std::string> sessions = *store->unfinishedSessions();
  EXPECT_EQ(sessions, (std::vector<std::string>{"busy", "client", "direct"}));
  // Done, but not yet retained for an hour.
  auto n = runner.collectSessions(sessions, std::chrono::hours(1));
  ASSERT_TRUE(n.isOk()) << n.getStatus().message();
  EXPECT_EQ(*n, 0u);
  EXPECT_FALSE(store->scan("direct", "out:")->empty()); // readable still
  n = runner.collectSessions(sessions, std::chrono::milliseconds(0));
  ASSERT_TRUE(n.isOk()) << n.getStatus().message();
  EXPECT_EQ(*n, 1u);
  EXPECT_TRUE(store->outbox("direct")->empty());
  EXPECT_TRUE(store->scan("direct", "")->empty());
  EXPECT_EQ(store->stats("direct")->records, 0u);
  EXPECT_EQ(*store->unfinishedSessions(),
            (std::vector<std::string>{"busy", "client"}));
  EXPECT_EQ(store->stats("busy")->records, 1u);
}

namespace {
/// A payload of session `session` to `F`'s instance carrying the outbox
/// entry `id` that its sender journaled at `issuedMs`.
Payload journaledPayload(const std::string &session, uint64_t id,
                         int64_t issuedMs, bool fresh) {
  auto v = parseJsonValue(
      R"({"Data": {"Source": "http", "Value": 1}, "Session": ")" + session +
      R"(", "Outbox": {"Id": )" + std::to_string(id) + R"(, "Issued": )" +
      std::to_string(issuedMs) + R"(, "Fresh": )" + (fresh ? "true" : "false") +
      "}}");
  auto p = decodePayload(*v);
  EXPECT_TRUE(p.isOk()) << p.getStatus().message();
  return p.take();
}

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
} // namespace

// A host's sweep leaves alone an outbox entry that its sender journaled
// less than Options::issueGrace ago (its POST is probably on its way), and
// delivers an older one as a redelivery: not fresh, so it looks for its
// checkpoint (here one exists: the user code does not run).
TEST(SweepTest, AnEntryItsSenderJournaledWaitsForTheGrace) {
  TempDir tmp;
  std::string why;
  std::unique_ptr<DataStore> store = makeStore("sqlite", tmp, &why);
  ASSERT_TRUE(store) << why;
  App app = appFromJson({R"({"Name": "F", "Checkpoint": true})"});
  Gate open;
  open.release();
  std::atomic<int> runs{0};
  setGatedHandler(app, open, runs);
  LocalRunner::Options opts = hostOptions();
  opts.issueGrace = std::chrono::hours(1);
  LocalRunner runner(app, *store, opts);
  const std::string s = "graced";
  store->stageIssued(
      s, 7, "F", detail::payloadJson(journaledPayload(s, 7, nowMs(), true)));
  auto take = [](const std::string &) { return true; };
  auto young = runner.redeliver(s, take);
  ASSERT_TRUE(young.isOk()) << young.getStatus().message();
  EXPECT_EQ(*young, 0u);
  const int64_t twoHoursAgo = nowMs() - 2 * 3600 * 1000;
  store->stageIssued(
      s, 8, "F",
      detail::payloadJson(journaledPayload(s, 8, twoHoursAgo, true)));
  ASSERT_TRUE(store->putIfAbsent(s, "F", "c42", {}, {}).isOk());
  auto old = runner.redeliver(s, take);
  ASSERT_TRUE(old.isOk()) << old.getStatus().message();
  EXPECT_EQ(*old, 1u);
  runner.wait();
  EXPECT_EQ(runs.load(), 0); // the checkpoint was looked for, and reused
  auto left = store->outbox(s);
  ASSERT_TRUE(left.isOk());
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].id, 7u); // 8 ran and was removed
  auto out = store->scan(s, "out:F");
  ASSERT_TRUE(out.isOk());
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].second, "42");
  EXPECT_TRUE(store->deleteSession(s).isOk());
}

// A host answers a payload that carries its sender's outbox entry without
// journaling it; a duplicate of it that arrives while it runs here is
// dropped; finishing it removes the sender's entry.
TEST(SweepTest, ADuplicateOfAnEntryRunningHereIsDropped) {
  TempDir tmp;
  std::string why;
  std::unique_ptr<DataStore> store = makeStore("sqlite", tmp, &why);
  ASSERT_TRUE(store) << why;
  App app = appFromJson({R"({"Name": "F", "Checkpoint": true})"});
  Gate gate;
  std::atomic<int> runs{0};
  setGatedHandler(app, gate, runs);
  LocalRunner::Options opts = hostOptions();
  LocalRunner runner(app, *store, opts);
  const std::string s = "deduped";
  const uint64_t ops = store->operationCount();
  // The sender's entry (written with its checkpoint).
  store->stageIssued(
      s, 9, "F", detail::payloadJson(journaledPayload(s, 9, nowMs(), true)));
  ASSERT_TRUE(runner.accept("F", journaledPayload(s, 9, nowMs(), true)).isOk());
  ASSERT_TRUE(runner.accept("F", journaledPayload(s, 9, nowMs(), true)).isOk());
  EXPECT_EQ(store->operationCount(), ops); // no store access to accept
  gate.release();
  runner.wait();
  EXPECT_EQ(runs.load(), 1);
  auto left = store->outbox(s);
  ASSERT_TRUE(left.isOk());
  EXPECT_TRUE(left->empty());
  EXPECT_TRUE(store->deleteSession(s).isOk());
}

namespace {
/// A platform whose function G is on another host (the one that takes
/// journaled continuations): records what it is sent.
class OtherHost final : public Invoker {
public:
  Status invoke(const std::string &function, Payload &&p) override {
    std::lock_guard<std::mutex> lock(mu);
    sent.emplace_back(function, std::move(p));
    return Status::ok();
  }
  bool carriesOutboxEntries(const std::string &function) const override {
    return function == "G";
  }
  std::mutex mu;
  std::vector<std::pair<std::string, Payload>> sent;
};
} // namespace

// The sender's side: a checkpointed step whose continuation goes to another
// host writes that continuation's outbox entry with its checkpoint (the id
// derived from its own entry's), and sends it fresh with the entry's id;
// a redelivery that reuses the checkpoint, and an execution that lost its
// put, send without an entry (the receiver journals those), and write none.
class ServeProtocol : public ::testing::TestWithParam<std::string> {};

TEST_P(ServeProtocol, ContinuationsToOtherHostsAreJournaledWithTheCheckpoint) {
  TempDir tmp;
  std::string why;
  std::unique_ptr<DataStore> store = makeStore(GetParam(), tmp, &why);
  if (!store)
    GTEST_SKIP() << why;
  ASSERT_TRUE(store->issuesWithPut());
  App app = appFromJson({R"({"Name": "F", "Checkpoint": true,
           "Next": {"Name": "G", "InputType": "Scalar"}})",
                         R"({"Name": "G", "Checkpoint": true})"});
  for (const char *fn : {"F", "G"})
    (void)app.setHandler(fn,
                         makeFunctionHandler([](const Value &in, Context &) {
                           return HandlerResult::success(in);
                         }));
  OtherHost host;
  Runtime rt(app, *store, host, {});
  const std::string s = newSessionId();
  Payload first = journaledPayload(s, 77, nowMs(), true);
  ASSERT_TRUE(rt.handle("F", first).isOk());
  ASSERT_EQ(host.sent.size(), 1u);
  const Payload &g = host.sent[0].second;
  EXPECT_EQ(host.sent[0].first, "G");
  EXPECT_NE(detail::hints(g).outboxId, 0u);
  EXPECT_NE(detail::hints(g).outboxId, 77u);
  EXPECT_TRUE(detail::hints(g).fresh);
  EXPECT_GT(detail::hints(g).issuedMs, 0);
  EXPECT_EQ(g.retire, "F");
  auto entries = store->outbox(s);
  ASSERT_TRUE(entries.isOk()) << entries.getStatus().message();
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].id, detail::hints(g).outboxId);
  EXPECT_EQ((*entries)[0].function, "G");
  EXPECT_EQ((*entries)[0].payload, detail::payloadJson(g));
  // Delivered again (not fresh): reuses its checkpoint, sends without one.
  ASSERT_TRUE(rt.handle("F", journaledPayload(s, 77, nowMs(), false)).isOk());
  ASSERT_EQ(host.sent.size(), 2u);
  EXPECT_EQ(detail::hints(host.sent[1].second).issuedMs, 0);
  EXPECT_EQ(store->outbox(s)->size(), 1u);
  // A fresh delivery that loses its put (another execution's checkpoint
  // is there): the winner's output goes on, and no entry is written.
  const std::string s2 = newSessionId();
  ASSERT_TRUE(store->putIfAbsent(s2, "F", "c5", {}, {}).isOk());
  ASSERT_TRUE(rt.handle("F", journaledPayload(s2, 78, nowMs(), true)).isOk());
  ASSERT_EQ(host.sent.size(), 3u);
  EXPECT_EQ(detail::hints(host.sent[2].second).issuedMs, 0);
  EXPECT_EQ(host.sent[2].second.value, Value(int64_t(5)));
  EXPECT_TRUE(store->outbox(s2)->empty());
  EXPECT_TRUE(store->deleteSession(s).isOk());
  EXPECT_TRUE(store->deleteSession(s2).isOk());
}

// The stores that write a host's entries with its checkpoint.
INSTANTIATE_TEST_SUITE_P(Stores, ServeProtocol,
                         ::testing::Values("redis", "sqlite"),
                         [](const auto &info) { return info.param; });

// invokeHere runs an invocation on the calling thread while one of the
// pool's `workers` slots is free, and queues it otherwise; the pool's own
// threads take a queued task only while a slot is free, so the bound holds
// for both together. Ordering, not timing: a task queued while the only
// slot runs on the caller starts only after that one ended.
TEST(ThreadPool, InvokeHereRunsOnTheCallerWithinTheBound) {
  ThreadPoolInvoker pool(1);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> log; // "start X" / "end X" / "X"
  std::map<std::string, std::thread::id> where;
  bool release = false, started = false;
  pool.setDispatch([&](const std::string &fn, const Payload &) {
    std::unique_lock<std::mutex> lock(mu);
    where[fn] = std::this_thread::get_id();
    if (fn.rfind("block", 0) != 0) {
      log.push_back(fn);
      return Status::ok();
    }
    log.push_back("start " + fn);
    started = true;
    cv.notify_all();
    EXPECT_TRUE(
        cv.wait_for(lock, std::chrono::seconds(30), [&] { return release; }));
    log.push_back("end " + fn);
    return Status::ok();
  });
  // A free slot: it runs here, before invokeHere returns.
  ASSERT_TRUE(pool.invokeHere("here", Payload()));
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_EQ(log, std::vector<std::string>{"here"});
    EXPECT_EQ(where["here"], std::this_thread::get_id());
  }
  // The only slot runs on another caller's thread: the worker leaves a
  // queued task alone until it ends, and invokeHere queues too.
  std::thread caller(
      [&] { EXPECT_TRUE(pool.invokeHere("block1", Payload())); });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return started; });
  }
  ASSERT_TRUE(pool.invoke("queued", Payload()));
  ASSERT_TRUE(pool.invokeHere("queuedHere", Payload())); // returns at once
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
    cv.notify_all();
  }
  caller.join();
  pool.wait();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(log, (std::vector<std::string>{"here", "start block1", "end block1",
                                           "queued", "queuedHere"}));
  EXPECT_NE(where["queuedHere"], std::this_thread::get_id());
  EXPECT_NE(where["queued"], where["block1"]);
}

// A reserved Slot counts as running for wait() until it is used or
// destroyed: a host answers 202 before the work runs (HttpServer's
// Reply::after), and wait() must not see an idle pool in between. The work
// comes 200 ms after the reservation; without it wait() returns at once.
// Ordering, not timing: a slow machine only makes wait() wait longer.
TEST(ThreadPool, AReservedSlotKeepsWaitFromReturning) {
  ThreadPoolInvoker pool(1);
  std::atomic<int> ran{0};
  pool.setDispatch([&](const std::string &, const Payload &) {
    ++ran;
    return Status::ok();
  });
  ThreadPoolInvoker::Slot slot = pool.reserve();
  ASSERT_TRUE(slot);
  std::thread later([&pool, slot = std::move(slot)]() mutable {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_TRUE(pool.invokeHere(std::move(slot), "F", Payload()));
  });
  pool.wait();
  EXPECT_EQ(ran.load(), 1);
  later.join();

  // Destroyed unused: given up, and wait() returns without a run.
  std::atomic<bool> dropped{false};
  std::optional<ThreadPoolInvoker::Slot> unused(pool.reserve());
  std::thread drop([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    dropped = true;
    unused.reset();
  });
  pool.wait();
  EXPECT_TRUE(dropped.load());
  drop.join();
  EXPECT_EQ(ran.load(), 1);
}

// LocalRunner::admit reserves the slot before the host's answer: a run
// left to after the answer, delayed, is still waited for. And a `run`
// destroyed uncalled (a dropped Reply::after) gives its slot up.
TEST(ThreadPool, AdmittedWorkIsWaitedForBeforeItsRun) {
  EchoHost host;
  ASSERT_TRUE(host.store) << host.why;
  LocalRunner runner(host.app, *host.store, hostOptions());
  Payload start;
  start.session = "admitted";
  start.value = Value(int64_t(1));
  std::function<void()> run;
  ASSERT_TRUE(runner.admit("F", std::move(start), run, true).isOk());
  ASSERT_TRUE(run);
  std::thread after([run = std::move(run)] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    run();
  });
  runner.wait();
  EXPECT_EQ(host.runs.load(), 1);
  after.join();

  Payload again;
  again.session = "dropped";
  again.value = Value(int64_t(2));
  std::function<void()> dropped;
  ASSERT_TRUE(runner.admit("F", std::move(again), dropped).isOk());
  dropped = nullptr; // the slot goes with it
  runner.wait();
  EXPECT_EQ(host.runs.load(), 1);
  EXPECT_TRUE(host.store->deleteSession("admitted").isOk());
  EXPECT_TRUE(host.store->deleteSession("dropped").isOk());
}
