//===- RuntimeTest.cpp - Workflows end to end on the local platform -------===//

#include "Apps.h"
#include "TestUtil.h"

#include "unum/Runtime/Runtime.h"

// Internal: the payload hints and the nodes a hint names.
#include "AppInternal.h"
#include "PayloadInternal.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

using namespace unum::runtime;
using namespace unum::runtime::test;

namespace {
Value outputsOf(const RunResult &r) {
  Value v = Value::object();
  for (auto &[k, out] : r.outputs)
    v.set(k, out);
  return v;
}

std::string errorsOf(const RunResult &r) {
  std::string s;
  for (const std::string &e : r.errors)
    s += e + "\n";
  return s;
}

/// Each checkpointed instance committed its effect exactly once.
void expectEffectsOnce(DataStore &store, const std::string &session,
                       const TestApp &t) {
  auto fx = store.effects(session);
  ASSERT_TRUE(fx.isOk()) << fx.getStatus().message();
  std::map<std::string, int> count;
  for (const Effect &e : *fx)
    ++count[e.instance];
  for (const std::string &i : t.checkpointed)
    EXPECT_EQ(count[i], 1) << t.name << ": effect of " << i;
  EXPECT_EQ(fx->size(), t.checkpointed.size()) << t.name;
}

class StoreRuntimeTest : public StoreTest {};
} // namespace

TEST_P(StoreRuntimeTest, EveryAppGivesItsOutputs) {
  for (TestApp &t : allApps()) {
    LocalRunner::Options opts;
    opts.workers = 3;
    LocalRunner runner(t.app, *store, opts);
    RunResult r = runner.run(t.input, /*keepSession=*/true);
    ASSERT_TRUE(r.ok()) << t.name << ": " << errorsOf(r);
    EXPECT_EQ(outputsOf(r), t.expected)
        << t.name << ": " << toJson(outputsOf(r));
    expectEffectsOnce(*store, r.session, t);
    // Garbage collection left no data and no pending completion set.
    auto st = store->stats(r.session);
    ASSERT_TRUE(st.isOk());
    EXPECT_EQ(st->dataRecords, 0u) << t.name;
    EXPECT_TRUE(st->pendingSets.empty()) << t.name;
    ASSERT_TRUE(store->deleteSession(r.session).isOk());
  }
}

TEST_P(StoreRuntimeTest, WithoutGcEveryCheckpointStays) {
  for (TestApp &t : allApps()) {
    LocalRunner::Options opts;
    opts.runtime.gc = false;
    LocalRunner runner(t.app, *store, opts);
    RunResult r = runner.run(t.input);
    ASSERT_TRUE(r.ok()) << t.name << ": " << errorsOf(r);
    EXPECT_EQ(outputsOf(r), t.expected) << t.name;
    auto st = store->stats(r.session);
    size_t records = t.checkpointed.size() + t.saved.size();
    EXPECT_EQ(st->dataRecords, records) << t.name;
    EXPECT_EQ(st->records, records) << t.name;
    ASSERT_TRUE(store->deleteSession(r.session).isOk());
  }
}

// A Map edge with MaxConcurrency k never has more than k iterations in
// flight, on a pool with more workers; with k = 1 they run in item order.
TEST_P(StoreRuntimeTest, MapMaxConcurrencyBoundsTheIterationsInFlight) {
  for (int k : {1, 2}) {
    TestApp t = maxConcurrencyApp(6, k);
    std::atomic<int> inFlight{0}, most{0};
    std::mutex mu;
    std::vector<int64_t> order;
    ASSERT_TRUE(
        t.app
            .setHandler(
                "B", makeFunctionHandler([&](const Value &in, Context &ctx) {
                  int now = ++inFlight;
                  for (int m = most;
                       now > m && !most.compare_exchange_weak(m, now);)
                    ;
                  {
                    std::lock_guard<std::mutex> lock(mu);
                    order.push_back(in.getInt());
                  }
                  std::this_thread::sleep_for(std::chrono::milliseconds(5));
                  --inFlight;
                  return HandlerResult::success(Value(in.getInt() + 100));
                }))
            .isOk());
    LocalRunner::Options opts;
    opts.workers = 4;
    LocalRunner runner(t.app, *store, opts);
    RunResult r = runner.run(t.input);
    ASSERT_TRUE(r.ok()) << errorsOf(r);
    EXPECT_EQ(outputsOf(r), t.expected);
    EXPECT_LE(most.load(), k);
    if (k == 1) {
      EXPECT_EQ(order, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
    }
  }
}

TEST_P(StoreRuntimeTest, RunDeletesTheSessionAfterwards) {
  TestApp t = fanInApp(5);
  LocalRunner runner(t.app, *store, {});
  RunResult r = runner.run(t.input);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  auto st = store->stats(r.session);
  EXPECT_EQ(st->records, 0u);
  EXPECT_EQ(st->consumedSets, 0u);
  EXPECT_EQ(st->effects, 0u);
}

TEST_P(StoreRuntimeTest, ConcurrentSessionsAreIsolated) {
  TestApp t = fanInApp(1);
  LocalRunner::Options opts;
  opts.workers = 4;
  LocalRunner runner(t.app, *store, opts);
  std::vector<std::string> sessions;
  for (int n = 1; n <= 8; ++n) {
    auto s = runner.start(Value(int64_t(n)));
    ASSERT_TRUE(s.isOk()) << s.getStatus().message();
    sessions.push_back(*s);
  }
  runner.wait();
  for (int n = 1; n <= 8; ++n) {
    RunResult r = runner.result(sessions[n - 1]);
    ASSERT_TRUE(r.ok()) << errorsOf(r);
    int64_t total = 0;
    for (int i = 1; i <= n; ++i)
      total += i * i;
    ASSERT_EQ(r.outputs.count("C"), 1u);
    EXPECT_EQ(*r.outputs["C"].find("sum"), Value(total)) << n;
    EXPECT_EQ(r.outputs["C"].find("inputs")->getArray().size(), size_t(n));
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreRuntimeTest,
                         ::testing::Values("memory", "sqlite", "redis"),
                         [](const auto &info) { return info.param; });

//===----------------------------------------------------------------------===//
// Semantics (memory store)
//===----------------------------------------------------------------------===//

namespace {
RunResult runApp(App &app, const Value &input, DataStore &store,
                 bool gc = true) {
  LocalRunner::Options opts;
  opts.runtime.gc = gc;
  LocalRunner runner(app, store, opts);
  return runner.run(input);
}
} // namespace

TEST(Runtime, ConditionalsOnTheOutput) {
  App app = appFromJson({
      R"({"Name": "Start", "Next": [
            {"Name": "Hello", "InputType": "Scalar", "Conditional": "$ret == 'hello'"},
            {"Name": "Bye", "InputType": "Scalar", "Conditional": "$out == 'bye'"}],
          "Checkpoint": true, "Start": true})",
      R"({"Name": "Hello", "Checkpoint": true})",
      R"({"Name": "Bye", "Checkpoint": true})"});
  (void)app.setHandler("Start", pure([](const Value &x) { return x; }));
  (void)app.setHandler("Hello",
                       pure([](const Value &) { return Value("hi"); }));
  (void)app.setHandler("Bye",
                       pure([](const Value &) { return Value("ciao"); }));
  auto store = createMemoryStore();
  RunResult r = runApp(app, Value("hello"), *store);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  // Conditional Scalar entries are alternatives (a lowered Choice), not
  // parallel branches: no fan-out level, so the instance is plain "Hello".
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs["Hello"], Value("hi"));
  r = runApp(app, Value("bye"), *store);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs["Bye"], Value("ciao"));
  // Neither: Start is terminal.
  r = runApp(app, Value("other"), *store);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs["Start"], Value("other"));
}

TEST(Runtime, SelfLoopWithModifiers) {
  // The handwritten chain-selfloop case: loop while $0 < $size - 1.
  App app = appFromJson({R"({"Name": "ChainPass",
      "Next": {"Name": "ChainPass", "InputType": "Scalar",
               "Conditional": "$0 < $size-1"},
      "Next Payload Modifiers": ["$0=$0+1"], "Checkpoint": true,
      "Start": true})"});
  (void)app.setHandler("ChainPass", pure([](const Value &x) {
                         return Value(x.isInt() ? x.getInt() + 1 : 1);
                       }));
  auto store = createMemoryStore();
  auto input = parseJsonValue(R"({"Data": {"Source": "http", "Value": 0},
      "Fan-out": {"Type": "Map", "Index": 0, "Size": 6}})");
  ASSERT_TRUE(input.isOk());
  RunResult r = runApp(app, *input, *store);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs["ChainPass-unumIndex-5"], Value(int64_t(6)));
}

TEST(Runtime, LoopsRunEveryVisit) {
  // A retry-until loop: A runs while its output is below 3. With "Loop",
  // each visit is an instance of its own (A-unumVisit-1, -2, -3): each runs
  // its user code and commits its effects once.
  App app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "A", "InputType": "Scalar",
          "Conditional": "$out < 3"}, "Checkpoint": true, "Start": true,
          "Loop": 1})"});
  std::atomic<int> runs{0};
  (void)app.setHandler("A",
                       makeFunctionHandler([&](const Value &x, Context &ctx) {
                         ++runs;
                         ctx.effect(Value(std::string(ctx.instance)));
                         return HandlerResult::success(Value(x.getInt() + 1));
                       }));
  ASSERT_TRUE(app.validate().isOk());
  auto store = createMemoryStore();
  LocalRunner runner(app, *store, {});
  RunResult r = runner.run(Value(int64_t(0)), /*keepSession=*/true);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  EXPECT_EQ(outputsOf(r), *parseJsonValue(R"({"A-unumVisit-3": 3})"))
      << toJson(outputsOf(r));
  EXPECT_EQ(runs.load(), 3);
  auto effects = store->effects(r.session);
  ASSERT_TRUE(effects.isOk());
  ASSERT_EQ(effects->size(), 3u);
}

TEST(Runtime, ALoopWithoutLoopIsRefused) {
  // Without "Loop" the second visit would find the first visit's
  // checkpoint and stop: the app is refused before it runs.
  auto app = App::fromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Scalar"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Next": {"Name": "A", "InputType": "Scalar",
          "Conditional": "$out < 3"}, "Checkpoint": true})"});
  ASSERT_TRUE(app.isOk()) << app.getStatus().message();
  (void)app->setHandler("A", pure([](const Value &x) { return x; }));
  (void)app->setHandler("B", pure([](const Value &x) { return x; }));
  Status s = app->validate();
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(),
            "function 'A' is on a loop but has no \"Loop\": each visit would "
            "reuse its instance names (and stop at the first visit's "
            "checkpoint)");
}

TEST(Payload, VisitCountersTravelAndName) {
  Payload p;
  p.session = "S";
  p.value = Value(int64_t(1));
  p.visit = 4;
  p.fanout = {FanOutLevel{"Map", 1, 3, 2}, FanOutLevel{"Parallel", 0, 2, 0}};
  Value wire = encodePayload(p);
  EXPECT_EQ(
      toJson(wire),
      R"({"Data":{"Source":"http","Value":1},"Session":"S",)"
      R"("Fan-out":{"Type":"Map","Index":1,"Size":3,"Visit":2,)"
      R"("OuterLoop":{"Type":"Parallel","Index":0,"Size":2}},"Visit":4})");
  auto back = decodePayload(wire);
  ASSERT_TRUE(back.isOk()) << back.getStatus().message();
  EXPECT_EQ(back->visit, 4);
  EXPECT_EQ(back->fanout, p.fanout);
  // Counters of the outermost scopes, innermost first.
  EXPECT_EQ(visitSuffix(0, p.visit, p.fanout), "");
  EXPECT_EQ(visitSuffix(1, p.visit, p.fanout), "-unumVisit-4");
  EXPECT_EQ(visitSuffix(3, p.visit, p.fanout), "-unumVisit-2.0.4");
  // Entering a function that loops in its own (innermost) scope.
  int64_t visit = p.visit;
  std::vector<FanOutLevel> levels = p.fanout;
  enterLoop(2, visit, levels); // loops in an outer scope: nothing moves
  EXPECT_EQ(levels, p.fanout);
  enterLoop(3, visit, levels);
  EXPECT_EQ(levels[0].visit, 3);
  std::vector<FanOutLevel> top;
  enterLoop(1, visit, top);
  EXPECT_EQ(visit, 5);
  EXPECT_FALSE(
      decodePayload(*parseJsonValue(R"({"Data": {"Value": 1}, "Visit": -1})"))
          .isOk());
}

// The "Outbox" wire field (a continuation its sender journaled) travels
// into the hints and back, through both encoders; a malformed one is
// refused.
TEST(Payload, OutboxFieldTravels) {
  Payload p;
  p.session = "S";
  p.value = Value(int64_t(1));
  detail::hints(p).outboxId = 4611686018427387905ull;
  detail::hints(p).issuedMs = 1700000000123;
  detail::hints(p).fresh = true;
  const char *text = R"({"Data":{"Source":"http","Value":1},"Session":"S",)"
                     R"("Outbox":{"Id":4611686018427387905,)"
                     R"("Issued":1700000000123,"Fresh":true}})";
  EXPECT_EQ(toJson(encodePayload(p)), text);
  EXPECT_EQ(detail::payloadJson(p), text);
  auto back = decodePayload(*parseJsonValue(text));
  ASSERT_TRUE(back.isOk()) << back.getStatus().message();
  EXPECT_EQ(detail::hints(*back).outboxId, 4611686018427387905ull);
  EXPECT_EQ(detail::hints(*back).issuedMs, 1700000000123);
  EXPECT_TRUE(detail::hints(*back).fresh);
  // Without an issue time the hints stay in the process.
  detail::hints(p).issuedMs = 0;
  EXPECT_EQ(detail::payloadJson(p),
            R"({"Data":{"Source":"http","Value":1},"Session":"S"})");
  for (const char *bad :
       {R"({"Data": {"Value": 1}, "Outbox": 1})",
        R"({"Data": {"Value": 1}, "Outbox": {"Id": 1}})",
        R"({"Data": {"Value": 1}, "Outbox": {"Id": 0, "Issued": 1}})",
        R"({"Data": {"Value": 1}, "Outbox": {"Id": "1", "Issued": 1}})",
        R"({"Data": {"Value": 1}, "Outbox": {"Id": 1, "Issued": 1,
                                             "Fresh": 1}})"})
    EXPECT_FALSE(decodePayload(*parseJsonValue(bad)).isOk()) << bad;
}

TEST(Payload, ExecutionFieldsTravel) {
  // $$.Execution.Input and StartTime go along with every payload.
  Payload p;
  p.session = "S";
  p.value = Value(int64_t(1));
  p.execution = std::make_shared<const Value>(*parseJsonValue(
      R"({"Input": {"k": [1]}, "StartTime": "2024-01-01T00:00:00.000Z"})"));
  Value wire = encodePayload(p);
  EXPECT_EQ(toJson(wire),
            R"({"Data":{"Source":"http","Value":1},"Session":"S",)"
            R"("Execution":{"Input":{"k":[1]},)"
            R"("StartTime":"2024-01-01T00:00:00.000Z"}})");
  auto back = decodePayload(wire);
  ASSERT_TRUE(back.isOk()) << back.getStatus().message();
  ASSERT_TRUE(back->execution);
  EXPECT_EQ(*back->execution, *p.execution);
  for (const char *bad :
       {R"({"Data": {"Value": 1}, "Execution": 1})",
        R"({"Data": {"Value": 1}, "Execution": {"Input": 1}})",
        R"({"Data": {"Value": 1}, "Execution": {"StartTime": "x"}})",
        R"({"Data": {"Value": 1}, "Execution": {"Input": 1, "StartTime": 2}})"})
    EXPECT_FALSE(decodePayload(*parseJsonValue(bad)).isOk()) << bad;
}

TEST(Runtime, ShiftedFanInValues) {
  // ExCamera's shape: E-i waits for [E-$0, X-($0-1)] and X-(i-1) for
  // [E-($0+1), X-$0] (then $0=$0+1 names the same target): the same two
  // instances. E's lone Scalar entry beside a fan-in is a chain, not a
  // one-branch parallel, so X keeps E's index.
  App app = appFromJson({
      R"j({"Name": "Start", "Next": {"Name": "E", "InputType": "Map"},
          "Checkpoint": true, "Start": true})j",
      R"j({"Name": "E", "Next": [
            {"Name": "X", "InputType": "Scalar", "Conditional": "$0 < $size - 1"},
            {"Name": "J", "InputType": {"Fan-in": {"Values":
              ["E-unumIndex-$0", "X-unumIndex-($0-1)"]}},
             "Conditional": "$0 > 0"}],
          "Checkpoint": true})j",
      R"j({"Name": "X", "Next": {"Name": "J", "InputType": {"Fan-in": {"Values":
            ["E-unumIndex-($0+1)", "X-unumIndex-$0"]}}},
          "Next Payload Modifiers": ["$0=$0+1"], "Checkpoint": true})j",
      R"j({"Name": "J", "Checkpoint": true})j"});
  (void)app.setHandler("Start", pure([](const Value &) {
                         Value v = Value::array();
                         for (int i = 0; i < 4; ++i)
                           v.push(Value(int64_t(i)));
                         return v;
                       }));
  (void)app.setHandler("E", pure([](const Value &x) { return x; }));
  (void)app.setHandler(
      "X", pure([](const Value &x) { return Value(x.getInt() * 100); }));
  (void)app.setHandler("J", pure([](const Value &x) { return x; }));
  for (const char *kind : {"memory", "sqlite"}) {
    TempDir tmp;
    std::string why;
    auto store = makeStore(kind, tmp, &why);
    RunResult r = runApp(app, Value(), *store);
    ASSERT_TRUE(r.ok()) << errorsOf(r);
    EXPECT_EQ(outputsOf(r), *parseJsonValue(R"j({
        "J-unumIndex-1": [1, 0], "J-unumIndex-2": [2, 100],
        "J-unumIndex-3": [3, 200]})j"))
        << toJson(outputsOf(r));
  }
}

TEST(Runtime, RetriesThenSuccess) {
  App app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Scalar"},
          "Checkpoint": true, "Start": true, "Retry": 2})",
      R"({"Name": "B", "Checkpoint": true})"});
  std::atomic<int> calls{0};
  (void)app.setHandler("A",
                       makeFunctionHandler([&](const Value &x, Context &ctx) {
                         ++calls;
                         if (ctx.attempt < 2)
                           return HandlerResult::failure("flaky");
                         return HandlerResult::success(x);
                       }));
  (void)app.setHandler("B", pure([](const Value &x) { return x; }));
  auto store = createMemoryStore();
  RunResult r = runApp(app, Value("ok"), *store);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(r.outputs["B"], Value("ok"));
}

TEST(Runtime, ErrorEdgeAfterRetries) {
  // handwritten/catch-retry-error: First retries 3 times, then FirstError.
  App app = appFromJson({
      R"({"Name": "First", "Next": [
            {"Name": "Second", "InputType": "Scalar"},
            {"Name": "FirstError", "InputType": "Error"}],
          "Checkpoint": true, "Start": true, "Retry": 3})",
      R"({"Name": "Second", "Checkpoint": true})",
      R"({"Name": "FirstError", "Checkpoint": true})"});
  std::atomic<int> calls{0};
  (void)app.setHandler(
      "First", makeFunctionHandler([&](const Value &, Context &) {
        ++calls;
        return HandlerResult::failure("disk on fire", "Custom.Error");
      }));
  (void)app.setHandler("Second", pure([](const Value &x) { return x; }));
  (void)app.setHandler("FirstError", pure([](const Value &x) { return x; }));
  auto store = createMemoryStore();
  RunResult r = runApp(app, Value(), *store);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  EXPECT_EQ(calls.load(), 4);
  ASSERT_EQ(r.outputs.size(), 1u);
  auto expected =
      parseJsonValue(R"({"Error": "Custom.Error", "Cause": "disk on fire"})");
  EXPECT_EQ(r.outputs["FirstError"], *expected);
}

TEST(Runtime, FailureWithoutErrorEdgeNamesTheFunction) {
  App app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Scalar"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Checkpoint": true, "Retry": 1})"});
  (void)app.setHandler("A", pure([](const Value &x) { return x; }));
  (void)app.setHandler("B", makeFunctionHandler([](const Value &, Context &) {
                         return HandlerResult::failure("bad input");
                       }));
  auto store = createMemoryStore();
  RunResult r = runApp(app, Value(), *store);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("function 'B'"), std::string::npos) << r.errors[0];
  EXPECT_NE(r.errors[0].find("bad input"), std::string::npos) << r.errors[0];
}

TEST(Runtime, MapOverANonListFailsLoudly) {
  TestApp t = mapApp();
  (void)t.app.setHandler("A", pure([](const Value &) { return Value("x"); }));
  auto store = createMemoryStore();
  RunResult r = runApp(t.app, t.input, *store);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].find("needs 'A' to return a list"), std::string::npos)
      << r.errors[0];
}

TEST(Runtime, EmptyMapWithoutAFanInEndsAtTheMapper) {
  TestApp t = mapApp(0);
  auto store = createMemoryStore();
  RunResult r = runApp(t.app, t.input, *store);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs["A"], Value::array());
}

namespace {
/// A maps over `items`; C collects B's instances and Never, which never runs.
App waitsForNeverApp(int items) {
  App app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Map"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Next": {"Name": "C", "InputType": {"Fan-in": {
            "Values": ["B-unumIndex-*", "Never"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "C", "Checkpoint": true})",
      R"({"Name": "Never", "Checkpoint": true})"});
  (void)app.setHandler("A", pure([items](const Value &) {
                         Value v = Value::array();
                         for (int i = 1; i <= items; ++i)
                           v.push(Value(i));
                         return v;
                       }));
  for (const char *f : {"B", "C", "Never"})
    (void)app.setHandler(f, pure([](const Value &x) { return x; }));
  return app;
}
} // namespace

TEST(Runtime, IncompleteFanInIsReported) {
  App app = waitsForNeverApp(2);
  auto store = createMemoryStore();
  RunResult r = runApp(app, Value(), *store);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].find("fan-in to 'C' never completed: 2 of 3"),
            std::string::npos)
      << errorsOf(r);
}

TEST(Runtime, EmptyMapIntoAFanInThatWaitsForMoreFailsLoudly) {
  App app = waitsForNeverApp(0);
  auto store = createMemoryStore();
  RunResult r = runApp(app, Value(), *store);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].find("Map edge to 'B' over an empty list: the fan-in "
                             "to 'C' also waits for other instances"),
            std::string::npos)
      << r.errors[0];
}

TEST(Runtime, FanInMustNameTheTail) {
  App app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Map"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Next": {"Name": "C", "InputType": {"Fan-in": {
            "Values": ["B-unumIndex-7"]}}}, "Checkpoint": true})",
      R"({"Name": "C", "Checkpoint": true})"});
  (void)app.setHandler("A", pure([](const Value &) {
                         Value v = Value::array();
                         v.push(Value(1));
                         return v;
                       }));
  (void)app.setHandler("B", pure([](const Value &x) { return x; }));
  (void)app.setHandler("C", pure([](const Value &x) { return x; }));
  auto store = createMemoryStore();
  RunResult r = runApp(app, Value(), *store);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].find("do not name this instance"), std::string::npos)
      << errorsOf(r);
}

TEST(Runtime, BadPayloadsFailLoudlyAndLeaveTheStoreAlone) {
  TestApp t = chainApp();
  auto store = createMemoryStore();
  ThreadPoolInvoker pool(1);
  struct Errors : Observer {
    std::vector<std::string> messages;
    void failed(const std::string &, const std::string &, const std::string &,
                const std::string &m) override {
      messages.push_back(m);
    }
  } errors;
  RuntimeOptions opts;
  opts.observer = &errors;
  Runtime rt(t.app, *store, pool, opts);
  struct Case {
    const char *function, *json, *expect;
  } cases[] = {
      {"A", "not json", "payload"},
      {"A", "[1]", "expected an object"},
      {"A", R"({"Session": "s"})", "missing Data"},
      {"A", R"({"Data": 1})", "Data"},
      {"B", R"({"Data": {"Value": 1}})", "no Session"},
      {"B", R"({"Data": {"Value": 1}, "Session": "s",
                "Fan-out": {"Index": "0", "Size": 1}})",
       "Fan-out.Index"},
      {"B", R"({"Data": {"Value": 1}, "Session": "s",
                "Fan-out": {"Index": 0, "Size": -1}})",
       "negative"},
      {"B", R"({"Data": {"Value": 1}, "Session": "s", "Extra": 1})",
       "unknown field 'Extra'"},
      {"B", R"({"Data": {"Source": "checkpoint", "Value": 1}, "Session": "s"})",
       "list of instance names"},
      {"C", R"({"Data": {"Source": "checkpoint", "Value": ["Nope"]},
                "Session": "s"})",
       "has no checkpoint"},
      {"Nope", R"({"Data": {"Value": 1}, "Session": "s"})", "unknown function"},
  };
  for (const Case &c : cases) {
    Status s = rt.handleJson(c.function, c.json);
    ASSERT_FALSE(s.isOk()) << c.json;
    EXPECT_FALSE(s.isCrash()) << c.json;
    EXPECT_NE(s.message().find(c.expect), std::string::npos)
        << c.json << " -> " << s.message();
    EXPECT_NE(s.message().find(c.function), std::string::npos) << s.message();
  }
  EXPECT_EQ(errors.messages.size(), std::size(cases));
  auto st = store->stats("s");
  EXPECT_EQ(st->records, 0u);
  EXPECT_EQ(st->effects, 0u);
  EXPECT_TRUE(st->pendingSets.empty());
}

TEST(Runtime, StartPayloadWrapsBareValues) {
  auto bare = startPayload(*parseJsonValue(R"({"Data": 1, "x": 2})"));
  ASSERT_TRUE(bare.isOk());
  EXPECT_EQ(bare->value, *parseJsonValue(R"({"Data": 1, "x": 2})"));
  auto payload = startPayload(*parseJsonValue(
      R"({"Data": {"Source": "http", "Value": [1]}, "Session": "abc"})"));
  ASSERT_TRUE(payload.isOk());
  EXPECT_EQ(payload->session, "abc");
  EXPECT_EQ(payload->value, *parseJsonValue("[1]"));
}

TEST(Runtime, DuplicateOfAFinishedInstanceDoesNothing) {
  TestApp t = chainApp();
  auto store = createMemoryStore();
  std::atomic<int> bRuns{0};
  (void)t.app.setHandler("B",
                         makeFunctionHandler([&](const Value &x, Context &ctx) {
                           ++bRuns;
                           ctx.effect(ctx.instance);
                           return HandlerResult::success(Value(x.getInt() * 2));
                         }));
  LocalRunner runner(t.app, *store, {});
  RunResult r = runner.run(t.input, /*keepSession=*/true);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  // Deliver B's payload again, as a confused platform might.
  Payload p;
  p.session = r.session;
  p.value = Value(int64_t(6));
  ASSERT_TRUE(runner.runtime().handle("B", p).isOk());
  runner.wait();
  EXPECT_EQ(bRuns.load(), 1);
  EXPECT_EQ(store->effects(r.session)->size(), 3u);
}

TEST(Runtime, OnlyASuccessfulAttemptCommitsItsEffects) {
  // Retries: the failed attempt's effect is dropped. An error edge that
  // catches the last failure: that attempt's effect is dropped too.
  App app = appFromJson({
      R"({"Name": "A", "Next": [{"Name": "B", "InputType": "Scalar"},
            {"Name": "Caught", "InputType": "Error"}],
          "Checkpoint": true, "Start": true, "Retry": 1})",
      R"({"Name": "B", "Next": [{"Name": "C", "InputType": "Scalar"},
            {"Name": "Caught", "InputType": "Error"}],
          "Checkpoint": true})",
      R"({"Name": "C", "Checkpoint": true})",
      R"({"Name": "Caught", "Checkpoint": true})"});
  (void)app.setHandler("A",
                       makeFunctionHandler([](const Value &x, Context &ctx) {
                         ctx.effect("A attempt " + std::to_string(ctx.attempt));
                         if (ctx.attempt == 0)
                           return HandlerResult::failure("flaky");
                         return HandlerResult::success(x);
                       }));
  (void)app.setHandler("B",
                       makeFunctionHandler([](const Value &, Context &ctx) {
                         ctx.effect("B charged the card");
                         return HandlerResult::failure("declined");
                       }));
  (void)app.setHandler("C", pure([](const Value &x) { return x; }));
  (void)app.setHandler("Caught", pure([](const Value &x) { return x; }));
  auto store = createMemoryStore();
  LocalRunner runner(app, *store, {});
  RunResult r = runner.run(Value(1), /*keepSession=*/true);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  ASSERT_EQ(r.outputs.count("Caught"), 1u);
  auto fx = store->effects(r.session);
  ASSERT_TRUE(fx.isOk());
  std::vector<std::string> got;
  for (const Effect &e : *fx)
    got.push_back(e.instance + " " + e.value);
  EXPECT_EQ(got, (std::vector<std::string>{R"(A "A attempt 1")",
                                           R"(Caught "Caught")"}));
}

namespace {
/// The log lines of a run of chainApp() (A -> B -> C) whose B has the given
/// "Debug" setting.
std::vector<std::string> debugLinesOfChain(std::optional<bool> debugB,
                                           bool trace = false,
                                           bool failB = false) {
  TestApp t = chainApp();
  App app;
  for (const auto &[name, spec] : t.app.functions()) {
    unum::config::FunctionConfig c = spec.config;
    if (name == "B")
      c.debug = debugB;
    (void)app.add(std::move(c), spec.handler);
  }
  if (failB)
    (void)app.setHandler("B", makeFunctionHandler([](const Value &, Context &) {
                           return HandlerResult::failure("out of paper");
                         }));
  auto store = createMemoryStore();
  std::vector<std::string> lines;
  LocalRunner::Options opts;
  opts.trace = trace;
  opts.log = [&](const std::string &l) { lines.push_back(l); };
  LocalRunner runner(app, *store, opts);
  RunResult r = runner.run(t.input);
  EXPECT_EQ(r.ok(), !failB) << errorsOf(r);
  if (!failB) {
    EXPECT_EQ(outputsOf(r), t.expected);
  }
  return lines;
}

size_t countPrefix(const std::vector<std::string> &lines,
                   const std::string &prefix) {
  return std::count_if(lines.begin(), lines.end(), [&](const std::string &l) {
    return l.rfind(prefix, 0) == 0;
  });
}

/// The one line starting with `prefix`, or "".
std::string lineWith(const std::vector<std::string> &lines,
                     const std::string &prefix) {
  for (const std::string &l : lines)
    if (l.rfind(prefix, 0) == 0)
      return l;
  return "";
}
} // namespace

TEST(Runtime, DebugFunctionReportsItsSteps) {
  std::vector<std::string> lines = debugLinesOfChain(true);
  std::string all;
  for (const std::string &l : lines)
    all += l + "\n";
  // Only B says anything, tracing off: its payload, user code, checkpoint
  // (with its effect and the retirement of A's record it carries out), its
  // continuation and the totals.
  EXPECT_EQ(countPrefix(lines, "B: "), lines.size()) << all;
  EXPECT_NE(lineWith(lines, "B: start in session ")
                .find(", first delivery (no checkpoint lookup); input 6"),
            std::string::npos)
      << all;
  EXPECT_EQ(countPrefix(lines, "B: user code ran ("), 1u) << all;
  EXPECT_NE(
      lineWith(lines, "B: store putIfAbsent B (")
          .find("): written, 1 effect(s) committed, retired A; output 12"),
      std::string::npos)
      << all;
  EXPECT_EQ(countPrefix(lines, "B: invoked 1 continuation(s)"), 1u) << all;
  EXPECT_NE(lineWith(lines, "B: done in ").find("(user code "),
            std::string::npos)
      << all;
  EXPECT_NE(lineWith(lines, "B: done in ").find(", 1 store operation(s) "),
            std::string::npos)
      << all;
  // The order of events.
  ASSERT_GE(lines.size(), 5u) << all;
  EXPECT_EQ(lines.front().rfind("B: start", 0), 0u) << all;
  EXPECT_EQ(lines.back().rfind("B: done", 0), 0u) << all;
}

TEST(Runtime, DebugOffOrAbsentSaysNothing) {
  EXPECT_TRUE(debugLinesOfChain(false).empty());
  EXPECT_TRUE(debugLinesOfChain(std::nullopt).empty());
}

TEST(Runtime, DebugWithTraceSaysEachLineOnce) {
  std::vector<std::string> lines = debugLinesOfChain(true, /*trace=*/true);
  std::string all;
  for (const std::string &l : lines)
    all += l + "\n";
  EXPECT_EQ(countPrefix(lines, "A: invoked 1 continuation(s)"), 1u) << all;
  EXPECT_EQ(countPrefix(lines, "B: invoked 1 continuation(s)"), 1u) << all;
  EXPECT_EQ(countPrefix(lines, "B: start"), 1u) << all;
  EXPECT_EQ(countPrefix(lines, "A: start"), 0u) << all; // A is not Debug
}

TEST(Runtime, DebugFunctionReportsItsFailure) {
  std::vector<std::string> lines =
      debugLinesOfChain(true, /*trace=*/false, /*failB=*/true);
  std::string last = lines.empty() ? "" : lines.back();
  EXPECT_EQ(last.rfind("B: failed after ", 0), 0u) << last;
  EXPECT_NE(last.find("States.TaskFailed: out of paper"), std::string::npos)
      << last;
}

TEST(Runtime, DebugWithoutAnObserverWritesToStderr) {
  // A deployed function: a bare Runtime, no observer; its log is stderr.
  App app = appFromJson({R"({"Name": "F", "Start": true, "Debug": true,
                             "Checkpoint": true})"});
  (void)app.setHandler("F", pure([](const Value &x) { return x; }));
  auto store = createMemoryStore();
  ThreadPoolInvoker pool(1);
  Runtime rt(app, *store, pool);
  Payload p;
  p.value = Value("hello");
  testing::internal::CaptureStderr();
  Status s = rt.handle("F", p);
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_NE(err.find("[unum] F: start in a new session; input \"hello\"\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("[unum] F: store putIfAbsent F ("), std::string::npos)
      << err;
  EXPECT_NE(err.find("[unum] F: done in "), std::string::npos) << err;
}

TEST(Runtime, BadConfigsFailLoudly) {
  auto unknownTarget = App::fromJson(
      {R"({"Name": "A", "Next": {"Name": "Nope", "InputType": "Scalar"},
           "Start": true})"});
  ASSERT_TRUE(unknownTarget.isOk());
  Status s = unknownTarget->validate();
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("continues to unknown function 'Nope'"),
            std::string::npos)
      << s.message();

  auto unknownValue = App::fromJson(
      {R"({"Name": "A", "Next": {"Name": "A", "InputType": {"Fan-in":
           {"Values": ["Ghost-unumIndex-*"]}}}, "Start": true})"});
  ASSERT_TRUE(unknownValue.isOk());
  s = unknownValue->validate();
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("names unknown function 'Ghost'"),
            std::string::npos)
      << s.message();

  // Obsolete formats and bad expressions are rejected with a location.
  auto obsolete = App::fromJson(
      {R"({"Name": "A", "Next": [{"Name": "B"}], "NextInput": "Scalar"})"});
  ASSERT_FALSE(obsolete.isOk());
  EXPECT_NE(obsolete.getStatus().message().find("NextInput"), std::string::npos)
      << obsolete.getStatus().message();
  auto badCond = App::fromJson(
      {R"({"Name": "A", "Next": {"Name": "A", "InputType": "Scalar",
           "Conditional": "$0 <"}})"});
  ASSERT_FALSE(badCond.isOk());
  EXPECT_NE(badCond.getStatus().message().find("config0.json:"),
            std::string::npos)
      << badCond.getStatus().message();

  auto twice = App::fromJson({R"({"Name": "A"})", R"({"Name": "A"})"});
  ASSERT_FALSE(twice.isOk());
  EXPECT_NE(twice.getStatus().message().find("defined twice"),
            std::string::npos);

  // A built-in whose DataFlow asks for what it does not do is refused
  // before the run.
  auto builtin =
      App::fromJson({R"({"Name": "S", "Builtin": "Succeed", "Start": true,
           "DataFlow": {"Result": 1}})"});
  ASSERT_TRUE(builtin.isOk()) << builtin.getStatus().message();
  s = builtin->validate();
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("built-in 'Succeed'"), std::string::npos)
      << s.message();
}

TEST(Runtime, BuiltinsNeedNoUserCode) {
  // Pass with a Result, Wait, Succeed; then a Fail caught by an error edge.
  App app = appFromJson({
      R"({"Name": "Hello", "Builtin": "Pass", "DataFlow": {"Result": {"greeting": "hi"}},
          "Next": {"Name": "Pause", "InputType": "Scalar"}, "Start": true})",
      R"({"Name": "Pause", "Builtin": "Wait", "DataFlow": {"Seconds": 0},
          "Next": {"Name": "Done", "InputType": "Scalar"}})",
      R"({"Name": "Done", "Builtin": "Succeed",
          "Next": {"Name": "Boom", "InputType": "Scalar"}})",
      R"({"Name": "Boom", "Builtin": "Fail", "DataFlow": {"Error": "Bad", "Cause": "no luck"},
          "Next": {"Name": "Catch", "InputType": "Error", "Conditional": "$out.Error == 'Bad'"}})",
      R"({"Name": "Catch"})"});
  Value seen;
  (void)app.setHandler("Catch", pure([&](const Value &x) {
                         seen = x;
                         return x;
                       }));
  ASSERT_TRUE(app.validate().isOk()) << app.validate().message();
  auto store = createMemoryStore();
  RunResult r = runApp(app, Value("ignored"), *store);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  ASSERT_EQ(r.outputs.size(), 1u);
  auto expected = parseJsonValue(R"({"Error": "Bad", "Cause": "no luck"})");
  ASSERT_TRUE(expected.isOk());
  EXPECT_EQ(r.outputs["Catch"], *expected) << toJson(r.outputs["Catch"]);
}

TEST(Runtime, SeveralStartFunctionsAreAnError) {
  App app = appFromJson(
      {R"({"Name": "A", "Start": true})", R"({"Name": "B", "Start": true})"});
  auto store = createMemoryStore();
  LocalRunner runner(app, *store, {});
  RunResult r = runner.run(Value());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].find("several start functions (A, B)"),
            std::string::npos)
      << r.errors[0];
}

TEST(Runtime, StepFunctionsDataFlow) {
  // Prepare reads part of its input, reshaped by Parameters, and merges its
  // selected result back with ResultPath; OutputPath passes the order on;
  // Each maps over ItemsPath with an ItemSelector reading the item context.
  App app = appFromJson({
      R"({"Name": "Prepare", "Start": true, "Checkpoint": true,
          "DataFlow": {"InputPath": "$.order", "Parameters": {"n.$": "$.qty", "fixed": 1},
                       "ResultSelector": {"total.$": "$.sum"}, "ResultPath": "$.order.priced",
                       "OutputPath": "$.order"},
          "Next": {"Name": "Each", "InputType": "Scalar"}})",
      R"({"Name": "Each", "Checkpoint": true,
          "DataFlow": {"ItemsPath": "$.lines",
                       "ItemSelector": {"line.$": "$$.Map.Item.Value", "at.$": "$$.Map.Item.Index",
                                        "total.$": "$.priced.total"}},
          "Next": {"Name": "Line", "InputType": "Map"}})",
      R"({"Name": "Line", "Checkpoint": true,
          "Next": {"Name": "Done", "InputType": {"Fan-in": {"Values": ["Line-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"]})",
      R"({"Name": "Done", "Builtin": "Pass", "DataFlow": {"Result": "ok", "ResultPath": "$[1].status"}})"});
  Value prepareInput;
  (void)app.setHandler("Prepare", pure([&](const Value &x) {
                         prepareInput = x;
                         return *parseJsonValue(
                             R"({"sum": 42, "noise": true})");
                       }));
  (void)app.setHandler("Each", pure([](const Value &x) { return x; }));
  (void)app.setHandler("Line", pure([](const Value &x) { return x; }));
  auto input = parseJsonValue(
      R"({"order": {"qty": 3, "lines": ["a", "b"]}, "other": 0})");
  ASSERT_TRUE(input.isOk());
  auto store = createMemoryStore();
  RunResult r = runApp(app, *input, *store);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  EXPECT_EQ(toJson(prepareInput), R"({"n":3,"fixed":1})");
  ASSERT_EQ(r.outputs.size(), 1u);
  // Done's input is the fan-in list; its Result lands in the second line,
  // at $[1].status. (ResultPath $.status, a field of the list itself, would
  // be States.ResultPathMatchFailure, see PathsTest.)
  EXPECT_EQ(toJson(r.outputs["Done"]),
            R"([{"line":"a","at":0,"total":42},)"
            R"({"line":"b","at":1,"total":42,"status":"ok"}])");

  // The items Each fanned out over, as Line received them.
  App app2 = appFromJson({
      R"({"Name": "Each", "Start": true, "Checkpoint": true,
          "DataFlow": {"ItemsPath": "$.lines",
                       "ItemSelector": {"line.$": "$$.Map.Item.Value", "at.$": "$$.Map.Item.Index"}},
          "Next": {"Name": "Line", "InputType": "Map"}})",
      R"({"Name": "Line", "Checkpoint": true})"});
  (void)app2.setHandler("Each", pure([](const Value &x) { return x; }));
  (void)app2.setHandler("Line", pure([](const Value &x) { return x; }));
  r = runApp(app2, *parseJsonValue(R"({"lines": ["a", "b"]})"), *store);
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  EXPECT_EQ(toJson(r.outputs["Line-unumIndex-0"]), R"({"line":"a","at":0})");
  EXPECT_EQ(toJson(r.outputs["Line-unumIndex-1"]), R"({"line":"b","at":1})");
}

TEST(Runtime, DataFlowErrorsNameTheFieldAndFunction) {
  App app = appFromJson({R"({"Name": "F", "Start": true,
                            "DataFlow": {"InputPath": "$.missing"}})"});
  (void)app.setHandler("F", pure([](const Value &x) { return x; }));
  auto store = createMemoryStore();
  RunResult r = runApp(app, Value::object(), *store);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(errorsOf(r).find("InputPath of 'F'"), std::string::npos)
      << errorsOf(r);
  EXPECT_NE(errorsOf(r).find("selects nothing"), std::string::npos)
      << errorsOf(r);
}

TEST(App, TargetsAreLinkedInAnyOrderAndFollowCopies) {
  // B is added before the function that continues to it, C after.
  App app = appFromJson({R"({"Name": "B", "Next": {"Name": "C",
                               "InputType": "Scalar"}})",
                         R"({"Name": "A", "Start": true, "Next": [
                               {"Name": "B", "InputType": "Scalar"},
                               {"Name": "A", "InputType": "Scalar",
                                "Conditional": "false"}]})",
                         R"({"Name": "C"})"});
  using detail::AppAccess;
  const detail::FunctionNode *a = AppAccess::node(app, "A");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->targets.size(), 2u);
  EXPECT_EQ(a->targets[0], AppAccess::node(app, "B"));
  EXPECT_EQ(a->targets[1], a); // a self-loop
  EXPECT_EQ(AppAccess::node(app, "B")->targets[0], AppAccess::node(app, "C"));
  EXPECT_EQ(a->spec, app.find("A"));
  EXPECT_TRUE(app.owns(*a->spec));
  EXPECT_TRUE(AppAccess::owns(app, *a));

  App copy = app;
  const detail::FunctionNode *ca = AppAccess::node(copy, "A");
  EXPECT_TRUE(copy.owns(*ca->spec));
  EXPECT_FALSE(copy.owns(*a->spec));
  EXPECT_FALSE(AppAccess::owns(copy, *a));
  EXPECT_EQ(ca->targets[0], AppAccess::node(copy, "B"));
  App moved = std::move(copy);
  // A move keeps the specs and nodes: they now belong to `moved`.
  EXPECT_TRUE(moved.owns(*moved.find("A")));
  EXPECT_EQ(moved.find("A"), ca->spec);
  EXPECT_TRUE(AppAccess::owns(moved, *ca));
  EXPECT_EQ(AppAccess::node(moved, "A")->targets[0],
            AppAccess::node(moved, "B"));
}

TEST(Runtime, ASpecHintFromAnotherAppIsIgnored) {
  auto constant = [](int64_t k) {
    return makeFunctionHandler(
        [k](const Value &, Context &) { return HandlerResult::success(k); });
  };
  App mine = appFromJson({R"({"Name": "F", "Start": true})"});
  App other = mine;
  (void)mine.setHandler("F", constant(1));
  (void)other.setHandler("F", constant(2));
  auto store = createMemoryStore();
  LocalRunner runner(mine, *store, {});
  Payload p;
  p.session = "s1";
  p.value = Value(int64_t(0));
  detail::hints(p).target =
      detail::AppAccess::node(other, "F"); // same name, another App's code
  ASSERT_TRUE(runner.runtime().handle("F", p).isOk());
  runner.wait();
  EXPECT_EQ(runner.result("s1").outputs["F"], Value(int64_t(1)));
  // A hint must also name the function it is delivered to.
  detail::hints(p).target = detail::AppAccess::node(mine, "F");
  Status s = runner.runtime().handle("G", p);
  EXPECT_NE(s.message().find("unknown function"), std::string::npos)
      << s.message();
}

TEST(Runtime, StateInputCostsOneWriteAndOneRead) {
  // The same Map without a ResultPath relative to its input: the entry does
  // not save, the sink does not read.
  TestApp t = mapResultPathApp(3);
  App plain;
  for (const auto &[name, spec] : t.app.functions()) {
    unum::config::FunctionConfig c = spec.config;
    c.saveInput = false;
    c.stateInput.reset();
    if (name == "Collect")
      c.dataFlow.reset();
    ASSERT_TRUE(plain.add(std::move(c), spec.handler).isOk());
  }
  auto opsOf = [&](const App &app, Value *output) {
    auto store = createMemoryStore();
    LocalRunner runner(app, *store, {});
    RunResult r = runner.run(t.input, /*keepSession=*/true);
    EXPECT_TRUE(r.ok()) << errorsOf(r);
    *output = r.outputs["Collect"];
    auto st = store->stats(r.session);
    EXPECT_EQ(st->dataRecords, 0u);
    return store->operationCount();
  };
  Value withInput, without;
  uint64_t saving = opsOf(t.app, &withInput);
  uint64_t plainOps = opsOf(plain, &without);
  EXPECT_EQ(withInput, t.expected.getObject()[0].second);
  EXPECT_EQ(toJson(without), "[1,4,9]");
  EXPECT_EQ(saving, plainOps + 2) << saving << " vs " << plainOps;
}

TEST(Runtime, StateInputsAreValidated) {
  auto check = [](std::vector<std::string> configs, const char *message) {
    App app = appFromJson(configs);
    Status s = app.validate();
    ASSERT_FALSE(s.isOk()) << message;
    EXPECT_NE(s.message().find(message), std::string::npos) << s.message();
  };
  check({R"({"Name": "Sink", "Start": true, "StateInput": "Nowhere"})"},
        "function 'Sink' reads the state input of unknown function "
        "'Nowhere'");
  check({R"({"Name": "Entry", "Start": true,
             "Next": {"Name": "Sink", "InputType": "Scalar"}})",
         R"({"Name": "Sink", "StateInput": "Entry"})"},
        "function 'Sink' reads the state input of 'Entry', which does not "
        "save its input (SaveInput)");
  check({R"({"Name": "Entry", "Start": true, "SaveInput": true,
             "Next": [{"Name": "A", "InputType": "Scalar"},
                      {"Name": "B", "InputType": "Scalar"}]})",
         R"({"Name": "A", "StateInput": "Entry"})",
         R"({"Name": "B", "StateInput": "Entry"})"},
        "functions 'A' and 'B' both read the state input of 'Entry'");
  check({R"({"Name": "Entry", "Start": true, "SaveInput": true})"},
        "function 'Entry' saves its input (SaveInput) but no function reads "
        "it (StateInput)");
  // Reached by a chain, it would never read its state's input.
  check({R"({"Name": "Entry", "Start": true, "SaveInput": true,
             "Next": {"Name": "Sink", "InputType": "Scalar"}})",
         R"({"Name": "Sink", "StateInput": "Entry"})"},
        "function 'Sink' has a StateInput but no fan-in leads to it (a sink "
        "reads its state's input when its fan-in completes)");
  TestApp ok = nestedResultPathApp();
  EXPECT_TRUE(ok.app.validate().isOk()) << ok.app.validate().message();
}

TEST(Runtime, ASinkWithoutItsSavedInputFailsNamingIt) {
  TestApp t = mapResultPathApp(0);
  auto store = createMemoryStore();
  LocalRunner runner(t.app, *store, {});
  Payload p;
  p.session = "s1";
  p.source = Payload::Source::Checkpoint;
  p.value = Value::array();
  Status s = runner.runtime().handle("Collect", p);
  ASSERT_FALSE(s.isOk());
  EXPECT_FALSE(s.isCrash());
  EXPECT_NE(s.message().find("function 'Collect' (instance Collect): the "
                             "state input saved by 'Enter' (Enter#input) is "
                             "missing"),
            std::string::npos)
      << s.message();
}

TEST(Runtime, ADuplicateSinkContinuesWithTheCheckpointThatRetiredItsInput) {
  // The sink of an empty Map dies after its checkpoint put, which retired
  // the saved input, on its only delivery.
  TestApp t = mapResultPathApp(0);
  auto store = createMemoryStore();
  LocalRunner::Options opts;
  opts.maxDeliveries = 1;
  opts.runtime.fault = [](const StepPoint &p) {
    return p.instance == "Collect" && p.step == Step::AfterCheckpoint;
  };
  LocalRunner runner(t.app, *store, opts);
  RunResult r = runner.run(t.input, /*keepSession=*/true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(errorsOf(r).find("crashed on every delivery"), std::string::npos)
      << errorsOf(r);
  auto saved = store->get(r.session, savedInputName("Enter"));
  ASSERT_TRUE(saved.isOk() && *saved);
  EXPECT_EQ(**saved, std::string(1, record::Done));

  // A duplicate that raced it past the checkpoint lookup (fresh: no lookup)
  // finds the input retired and continues with that checkpoint.
  Payload p;
  p.session = r.session;
  p.source = Payload::Source::Checkpoint;
  p.value = Value::array();
  detail::hints(p).fresh = true;
  ASSERT_TRUE(runner.runtime().handle("Collect", p).isOk());
  runner.wait();
  RunResult again = runner.result(r.session);
  ASSERT_TRUE(again.ok()) << errorsOf(again);
  EXPECT_EQ(outputsOf(again), t.expected) << toJson(outputsOf(again));
  // One later still finds that checkpoint retired too, and stops.
  ASSERT_TRUE(runner.runtime().handle("Collect", p).isOk());
  runner.wait();
  EXPECT_TRUE(runner.result(r.session).outputs.empty());

  auto st = store->stats(r.session);
  ASSERT_TRUE(st.isOk());
  EXPECT_EQ(st->dataRecords, 0u);
  auto fx = store->effects(r.session);
  ASSERT_TRUE(fx.isOk());
  EXPECT_EQ(
      std::count_if(fx->begin(), fx->end(),
                    [](const Effect &e) { return e.instance == "Collect"; }),
      1);
}
