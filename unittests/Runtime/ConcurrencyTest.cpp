//===- ConcurrencyTest.cpp - Wide maps and fan-ins under contention -------===//
//
// A 1000-wide map with a fan-in, 50 runs on each persistent store: the
// fan-in target runs exactly once every time, and sees all 1000 outputs in
// order. UNUM_CONCURRENCY_RUNS overrides the number of runs.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "unum/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

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
