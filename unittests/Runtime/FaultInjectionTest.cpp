//===- FaultInjectionTest.cpp - A crash at every step boundary ------------===//
//
// For each test app, a crash-free run records every step boundary it passes
// (after the checkpoint lookup, after user code, after a Map or Parallel
// entry saved its state's input, after the checkpoint, after each invocation
// of a fan-out or map, before and after each completion-set update, before
// garbage collection). Then, for each boundary, the app runs
// again with one crash injected there; the platform delivers the crashed
// invocation again. Every run must give the crash-free outputs, commit each
// instance's side effect exactly once, and leave no data behind. The same
// holds for subprocess handlers (effects staged on UNUM_EFFECTS_FD) and for
// functions with "Debug": true (run by the traced companion runtime).
//
//===----------------------------------------------------------------------===//

#include "Apps.h"
#include "TestUtil.h"

#include "unum/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <tuple>

using namespace unum::runtime;
using namespace unum::runtime::test;

namespace {
using Boundary = std::tuple<Step, std::string, unsigned>;

std::string describe(const Boundary &b) {
  return std::string(stepName(std::get<0>(b))) + " " + std::get<1>(b) + " #" +
         std::to_string(std::get<2>(b));
}

Value outputsOf(const RunResult &r) {
  Value v = Value::object();
  for (auto &[k, out] : r.outputs)
    v.set(k, out);
  return v;
}

/// Debug lines: counted, not printed (thousands of them).
std::atomic<size_t> debugLines{0};

/// Runs `t` with `hook`; checks outputs, effects and garbage collection.
void runAndCheck(TestApp &t, DataStore &store, FaultHook hook,
                 const std::string &what, unsigned maxDeliveries = 3) {
  LocalRunner::Options opts;
  opts.workers = 3;
  opts.maxDeliveries = maxDeliveries;
  opts.runtime.fault = std::move(hook);
  opts.runtime.timeScale = 0.001; // the retry waits of mapRetryApp
  opts.log = [](const std::string &) { ++debugLines; };
  LocalRunner runner(t.app, store, opts);
  RunResult r = runner.run(t.input, /*keepSession=*/true);
  std::string errors;
  for (const std::string &e : r.errors)
    errors += e + "\n";
  ASSERT_TRUE(r.ok()) << t.name << ", " << what << ": " << errors;
  EXPECT_EQ(outputsOf(r), t.expected)
      << t.name << ", " << what << ": " << toJson(outputsOf(r));
  auto fx = store.effects(r.session);
  ASSERT_TRUE(fx.isOk());
  std::map<std::string, int> count;
  for (const Effect &e : *fx) {
    ++count[e.instance];
    EXPECT_EQ(e.value, toJson(Value(e.instance))) << t.name << ", " << what;
  }
  for (const std::string &i : t.checkpointed)
    EXPECT_EQ(count[i], 1) << t.name << ", " << what << ": effect of " << i;
  EXPECT_EQ(fx->size(), t.checkpointed.size()) << t.name << ", " << what;
  auto st = store.stats(r.session);
  ASSERT_TRUE(st.isOk());
  EXPECT_EQ(st->dataRecords, 0u) << t.name << ", " << what;
  EXPECT_TRUE(st->pendingSets.empty()) << t.name << ", " << what;
  ASSERT_TRUE(store.deleteSession(r.session).isOk());
}

/// Calls `run` with a hook that records the step boundaries of a crash-free
/// run, then once per boundary with a hook that crashes there once. Returns
/// the boundaries.
std::set<Boundary> crashAtEachBoundary(
    const std::function<void(FaultHook, const std::string &)> &run) {
  std::mutex mu;
  std::set<Boundary> seen;
  run(
      [&](const StepPoint &p) {
        std::lock_guard<std::mutex> lock(mu);
        seen.insert({p.step, p.instance, p.k});
        return false;
      },
      "no crash");
  EXPECT_FALSE(seen.empty());
  for (const Boundary &b : seen) {
    std::atomic<bool> crashed{false};
    run(
        [&](const StepPoint &p) {
          if (p.step != std::get<0>(b) || p.instance != std::get<1>(b) ||
              p.k != std::get<2>(b))
            return false;
          return !crashed.exchange(true);
        },
        "crash " + describe(b));
    if (::testing::Test::HasFatalFailure())
      break;
    EXPECT_TRUE(crashed.load()) << "never reached " << describe(b);
  }
  return seen;
}

/// crashAtEachBoundary on one test app, counting the boundaries per step.
void crashAtEveryBoundary(TestApp &t, DataStore &store,
                          std::map<Step, unsigned> &perStep, size_t &total) {
  SCOPED_TRACE(t.name);
  for (const Boundary &b :
       crashAtEachBoundary([&](FaultHook hook, const std::string &what) {
         runAndCheck(t, store, std::move(hook), what);
       })) {
    ++perStep[std::get<0>(b)];
    ++total;
  }
}

class FaultInjectionTest : public StoreTest {};
} // namespace

TEST_P(FaultInjectionTest, CrashAtEveryStepBoundary) {
  std::map<Step, unsigned> perStep;
  size_t total = 0;
  for (TestApp &t : allApps())
    crashAtEveryBoundary(t, *store, perStep, total);
  // Every kind of boundary was exercised.
  for (Step s : {Step::BeforeUserCode, Step::AfterUserCode,
                 Step::AfterSaveInput, Step::AfterCheckpoint, Step::AfterInvoke,
                 Step::BeforeFanInAdd, Step::AfterFanInAdd, Step::BeforeRetire})
    EXPECT_GT(perStep[s], 0u) << stepName(s);
  EXPECT_GT(total, 100u);
}

// Retry and Catch on a Map state (a failed iteration fails the state, which
// is re-run as a new attempt, then caught) and MaxConcurrency (each tail
// invokes the next iteration): a crash anywhere changes neither the outputs
// nor the committed effects, and nothing is left behind.
TEST_P(FaultInjectionTest, MapRetryCatchAndMaxConcurrencyAtEveryBoundary) {
  std::map<Step, unsigned> perStep;
  size_t total = 0;
  std::vector<TestApp> apps;
  apps.push_back(mapRetryApp(/*recovers=*/true));
  apps.push_back(mapRetryApp(/*recovers=*/false));
  apps.push_back(maxConcurrencyApp(5, 2));
  apps.push_back(maxConcurrencyApp(3, 1));
  for (TestApp &t : apps)
    crashAtEveryBoundary(t, *store, perStep, total);
  EXPECT_GT(total, 50u);
}

TEST_P(FaultInjectionTest, SubprocessEffectsAtEveryStepBoundary) {
  // Handlers in another language stage their effects on UNUM_EFFECTS_FD:
  // still exactly once per instance, whatever boundary crashes.
  TempDir dir;
  TestApp t = subprocessApp(dir.path());
  std::map<Step, unsigned> perStep;
  size_t total = 0;
  crashAtEveryBoundary(t, *store, perStep, total);
  EXPECT_GT(perStep[Step::AfterUserCode], 0u);
  EXPECT_GT(total, 20u);
}

TEST_P(FaultInjectionTest, DebugFunctionsAtEveryStepBoundary) {
  // "Debug": true runs through a traced companion runtime over a timing
  // store: the protocol, and so exactly-once, must not change.
  std::map<Step, unsigned> perStep;
  size_t total = 0;
  size_t before = debugLines.load();
  for (TestApp &t : allApps()) {
    TestApp d = withDebug(std::move(t));
    crashAtEveryBoundary(d, *store, perStep, total);
  }
  EXPECT_GT(total, 100u);
  // Every run reported its steps (start, store operations, outcome).
  EXPECT_GT(debugLines.load() - before, 3 * total);
}

TEST_P(FaultInjectionTest, ManyRandomCrashes) {
  // Each boundary crashes with probability 1/4; deliveries are retried until
  // one gets through.
  for (TestApp &t : allApps()) {
    for (unsigned seed = 1; seed <= 5; ++seed) {
      std::mutex mu;
      std::mt19937 rng(seed);
      unsigned crashes = 0;
      runAndCheck(
          t, *store,
          [&](const StepPoint &) {
            std::lock_guard<std::mutex> lock(mu);
            bool crash = rng() % 4 == 0;
            crashes += crash;
            return crash;
          },
          "seed " + std::to_string(seed), /*maxDeliveries=*/64);
      if (HasFatalFailure())
        return;
    }
  }
}

TEST_P(FaultInjectionTest, CrashingEveryDeliveryFailsLoudly) {
  TestApp t = chainApp();
  LocalRunner::Options opts;
  opts.maxDeliveries = 3;
  // B dies after its user code, before its checkpoint, on every delivery.
  opts.runtime.fault = [](const StepPoint &p) {
    return p.instance == "B" && p.step == Step::AfterUserCode;
  };
  LocalRunner runner(t.app, *store, opts);
  RunResult r = runner.run(t.input);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].find("function 'B' (instance B): crashed on every "
                             "delivery"),
            std::string::npos)
      << r.errors[0];
  // B's user code ran three times, but none of its effects was committed.
  auto fx = store->effects(r.session);
  std::map<std::string, int> count;
  for (const Effect &e : *fx)
    ++count[e.instance];
  EXPECT_EQ(count["A"], 1);
  EXPECT_EQ(count["B"], 0);
  EXPECT_EQ(count["C"], 0);
}

TEST_P(FaultInjectionTest, NondeterministicIntrinsicsReachTheRestOnce) {
  // F's Parameters and G's ItemSelector call States.UUID, which differs on
  // every evaluation: a crash makes F's user code (or G's fan-out) run again
  // with other ids. Downstream must still see one id per instance: the one
  // in the winning checkpoint.
  const char *configs[] = {
      R"J({"Name": "F", "Start": true, "Checkpoint": true,
          "DataFlow": {"Parameters": {"id.$": "States.UUID()",
                                      "items.$": "$.items"}},
          "Next": {"Name": "G", "InputType": "Scalar"}})J",
      R"J({"Name": "G", "Checkpoint": true,
          "DataFlow": {"ItemsPath": "$.items",
                       "ItemSelector": {"tag.$": "States.UUID()", "id.$": "$.id",
                                        "item.$": "$$.Map.Item.Value"}},
          "Next": {"Name": "H", "InputType": "Map"}})J",
      R"J({"Name": "H", "Checkpoint": true,
          "Next": {"Name": "J",
                   "InputType": {"Fan-in": {"Values": ["H-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"]})J",
      R"J({"Name": "J", "Checkpoint": true})J"};
  App app = appFromJson({configs[0], configs[1], configs[2], configs[3]});
  std::mutex mu;
  std::set<std::string> fIds, gIds;               // ids F's and G's code saw
  std::map<int64_t, std::set<std::string>> hTags; // tags each H item saw
  auto record = [&](std::function<void(const Value &)> note) {
    return pure([&mu, note](const Value &x) {
      std::lock_guard<std::mutex> lock(mu);
      note(x);
      return x;
    });
  };
  (void)app.setHandler("F", record([&](const Value &x) {
                         fIds.insert(x.find("id")->getString());
                       }));
  (void)app.setHandler("G", record([&](const Value &x) {
                         gIds.insert(x.find("id")->getString());
                       }));
  (void)app.setHandler("H", record([&](const Value &x) {
                         hTags[x.find("item")->getInt()].insert(
                             x.find("tag")->getString());
                       }));
  (void)app.setHandler("J", pure([](const Value &x) { return x; }));
  Value input = *parseJsonValue(R"({"items": [0, 1, 2]})");

  unsigned rerunF = 0; // runs in which F's code saw two ids
  auto run = [&](FaultHook hook, const std::string &what) {
    fIds.clear();
    gIds.clear();
    hTags.clear();
    LocalRunner::Options opts;
    opts.workers = 3;
    opts.runtime.fault = std::move(hook);
    LocalRunner runner(app, *store, opts);
    RunResult r = runner.run(input, /*keepSession=*/true);
    ASSERT_TRUE(r.ok()) << what;
    ASSERT_EQ(r.outputs.size(), 1u) << what;
    const Value &list = r.outputs["J"];
    ASSERT_TRUE(list.isArray()) << what << ": " << toJson(list);
    ASSERT_EQ(list.getArray().size(), 3u) << what;
    // G ran on exactly one of the ids F's code saw, and so did every item.
    ASSERT_EQ(gIds.size(), 1u) << what;
    EXPECT_TRUE(fIds.count(*gIds.begin())) << what;
    std::set<std::string> tags;
    for (int64_t i = 0; i < 3; ++i) {
      const Value &out = list.getArray()[i];
      EXPECT_EQ(*out.find("item"), Value(i)) << what;
      EXPECT_EQ(out.find("id")->getString(), *gIds.begin()) << what;
      const std::string &tag = out.find("tag")->getString();
      EXPECT_TRUE(hTags[i].count(tag)) << what << ": item " << i;
      tags.insert(tag);
    }
    EXPECT_EQ(tags.size(), 3u) << what; // one UUID per item
    rerunF += fIds.size() > 1;
    auto st = store->stats(r.session);
    ASSERT_TRUE(st.isOk());
    EXPECT_EQ(st->dataRecords, 0u) << what;
    ASSERT_TRUE(store->deleteSession(r.session).isOk());
  };

  crashAtEachBoundary(run);
  // Some crashes did make States.UUID give F another id, which was lost.
  // (A redelivered fan-out makes new tags too, but H's checkpoints usually
  // answer the duplicates before their code runs, so that is not counted.)
  EXPECT_GT(rerunF, 0u);
}

TEST_P(FaultInjectionTest, ContextTimesAndRetryCountsAreFixedOnce) {
  // The context object's times and a Task's retry count are fixed the first
  // time (lib/Runtime/StateEntry.h), whatever boundary crashes: every
  // reading of the clock gives a new time, yet each instance's code sees
  // one $$.Execution.StartTime, one $$.State.EnteredTime, and retry counts
  // that never go back (a crash between attempts resumes the count; only a
  // crash after the last attempt's code, before its checkpoint, runs that
  // attempt again).
  const char *configs[] = {
      R"J({"Name": "Start", "Start": true, "Checkpoint": true,
          "DataFlow": {"ExecutionContext": true, "Parameters": {
            "start.$": "$$.Execution.StartTime", "in.$": "$$.Execution.Input",
            "entered.$": "$$.State.EnteredTime"}},
          "Next": {"Name": "Work", "InputType": "Scalar"}})J",
      R"J({"Name": "Work", "Checkpoint": true,
          "Retriers": [{"ErrorEquals": ["Flaky"], "IntervalSeconds": 1,
                        "MaxAttempts": 3}],
          "DataFlow": {"Parameters": {
            "prev.$": "$", "start.$": "$$.Execution.StartTime",
            "entered.$": "$$.State.EnteredTime",
            "retry.$": "$$.State.RetryCount"}},
          "Next": {"Name": "End", "InputType": "Scalar"}})J",
      R"J({"Name": "End", "Checkpoint": true})J"};
  App app = appFromJson({configs[0], configs[1], configs[2]});
  std::mutex mu;
  struct Seen { // what the handlers saw, per run
    std::set<std::string> starts, startEntered, workEntered;
    std::vector<int64_t> retries; // Work's $$.State.RetryCount, per call
  } seen;
  auto &starts = seen.starts;
  auto &startEntered = seen.startEntered;
  auto &workEntered = seen.workEntered;
  auto &retries = seen.retries;
  (void)app.setHandler("Start",
                       makeFunctionHandler([&](const Value &in, Context &ctx) {
                         std::lock_guard<std::mutex> lock(mu);
                         starts.insert(in.find("start")->getString());
                         startEntered.insert(in.find("entered")->getString());
                         ctx.effect(ctx.instance);
                         return HandlerResult::success(in);
                       }));
  (void)app.setHandler("Work",
                       makeFunctionHandler([&](const Value &in, Context &ctx) {
                         std::lock_guard<std::mutex> lock(mu);
                         starts.insert(in.find("start")->getString());
                         workEntered.insert(in.find("entered")->getString());
                         int64_t retry = in.find("retry")->getInt();
                         retries.push_back(retry);
                         if (retry < 2)
                           return HandlerResult::failure("not yet", "Flaky");
                         ctx.effect(ctx.instance);
                         return HandlerResult::success(in);
                       }));
  (void)app.setHandler("End",
                       makeFunctionHandler([](const Value &in, Context &ctx) {
                         ctx.effect(ctx.instance);
                         return HandlerResult::success(in);
                       }));
  Value input = *parseJsonValue(R"({"order": 7})");
  std::atomic<int64_t> ticks{1700000000000};
  unsigned resumed = 0; // runs in which a crash fell between attempts
  auto run = [&](FaultHook hook, const std::string &what) {
    seen = Seen();
    LocalRunner::Options opts;
    opts.workers = 2;
    opts.runtime.fault = std::move(hook);
    opts.runtime.timeScale = 0.001;
    opts.runtime.clock = [&] {
      int64_t ms = ticks.fetch_add(1); // a new time on every reading
      return unum::config::Instant{ms / 1000, uint32_t(ms % 1000) * 1000000};
    };
    LocalRunner runner(app, *store, opts);
    RunResult r = runner.run(input, /*keepSession=*/true);
    ASSERT_TRUE(r.ok()) << what;
    ASSERT_EQ(r.outputs.size(), 1u) << what;
    const Value &out = r.outputs["End"];
    // One time each, whatever was delivered again, and the output has it.
    // (Concurrent duplicates of Work, from a crash of Start after it
    // invoked Work, may both run: one that starts after the other's
    // checkpoint retired the record takes a time of its own, and its
    // output loses the checkpoint race. The output has the first time.)
    const bool duplicated = what.find(" Start ") != std::string::npos &&
                            (what.find("after-invoke") != std::string::npos ||
                             what.find("before-retire") != std::string::npos);
    ASSERT_EQ(starts.size(), 1u) << what;
    ASSERT_EQ(startEntered.size(), 1u) << what;
    ASSERT_GE(workEntered.size(), 1u) << what;
    ASSERT_LE(workEntered.size(), duplicated ? 2u : 1u) << what;
    EXPECT_EQ(out.find("start")->getString(), *starts.begin()) << what;
    EXPECT_EQ(out.find("entered")->getString(), *workEntered.begin()) << what;
    EXPECT_EQ(*out.find("retry"), Value(int64_t(2))) << what;
    EXPECT_EQ(*out.find("prev")->find("in"), input) << what;
    EXPECT_EQ(out.find("prev")->find("entered")->getString(),
              *startEntered.begin())
        << what;
    EXPECT_LT(*starts.begin(), *startEntered.begin()) << what;
    EXPECT_LT(*startEntered.begin(), *workEntered.begin()) << what;
    // Attempts 0 and 1 ran once each, attempt 2 at most twice (a crash
    // after its code, before the checkpoint), and never a count past 2,
    // whatever boundary of Work crashed. (A crash of Start after it invoked
    // Work delivers Work twice at once: two concurrent duplicates each run
    // the attempts, as any user code runs once per delivery, in step with
    // each other's retry records.)
    std::map<int64_t, int> calls;
    for (int64_t c : retries)
      ++calls[c];
    EXPECT_GE(calls[0], 1) << what;
    EXPECT_LE(calls[0], duplicated ? 2 : 1) << what;
    EXPECT_GE(calls[1], 1) << what;
    EXPECT_LE(calls[1], duplicated ? 2 : 1) << what;
    EXPECT_GE(calls[2], 1) << what;
    EXPECT_LE(calls[2], 2) << what;
    EXPECT_EQ(calls.size(), 3u) << what;
    resumed += what.find("after-retry-record") != std::string::npos;
    auto fx = store->effects(r.session);
    ASSERT_TRUE(fx.isOk());
    EXPECT_EQ(fx->size(), 3u) << what; // one per instance
    auto st = store->stats(r.session);
    ASSERT_TRUE(st.isOk());
    EXPECT_EQ(st->dataRecords, 0u) << what;
    ASSERT_TRUE(store->deleteSession(r.session).isOk());
  };
  std::set<Boundary> boundaries = crashAtEachBoundary(run);
  EXPECT_EQ(resumed, 2u); // after attempts 0 and 1
  EXPECT_GT(boundaries.size(), 10u);
}

INSTANTIATE_TEST_SUITE_P(Stores, FaultInjectionTest,
                         ::testing::Values("memory", "sqlite", "redis"),
                         [](const auto &info) { return info.param; });
