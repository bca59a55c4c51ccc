//===- ConformanceRunTest.cpp - Running the conformance apps --------------===//
//
// Runs the applications of the conformance data (../shared/conformance/unum,
// or UNUM_SHARED_DIR) with pass-through handlers and their sample events.
// Skipped when the data is absent (users do not have it).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "unum/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace unum::runtime;
using namespace unum::runtime::test;
namespace fs = std::filesystem;

namespace {
std::string conformanceDir() {
  fs::path shared;
  if (const char *env = std::getenv("UNUM_SHARED_DIR"))
    shared = env;
  else
    shared = fs::path(sourceDir()) / ".." / "shared";
  fs::path dir = shared / "conformance" / "unum";
  std::error_code ec;
  return fs::is_directory(dir, ec) ? dir.string() : "";
}

Value readJson(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  auto v = parseJsonValue(ss.str(), p.string());
  EXPECT_TRUE(v.isOk()) << v.getStatus().message();
  return v ? v.take() : Value();
}

/// Every function passes its input through (the compiler's helpers do).
App loadWithPassThrough(const fs::path &dir) {
  auto app = App::load(dir.string());
  EXPECT_TRUE(app.isOk()) << app.getStatus().message();
  if (!app)
    return App();
  std::vector<std::string> names;
  for (auto &[name, spec] : app->functions())
    names.push_back(name);
  for (const std::string &n : names)
    (void)app->setHandler(n,
                          makeFunctionHandler([](const Value &in, Context &) {
                            return HandlerResult::success(in);
                          }));
  return app.take();
}

#define REQUIRE_CONFORMANCE(dir)                                               \
  std::string dir = conformanceDir();                                          \
  if (dir.empty())                                                             \
    GTEST_SKIP() << "no conformance data (set UNUM_SHARED_DIR)";
} // namespace

TEST(ConformanceRun, CompiledAppsRunTheirEvents) {
  REQUIRE_CONFORMANCE(dir);
  struct Case {
    const char *name, *event;
    std::vector<std::string> terminals;
  } cases[] = {
      {"chain-ab", "event.json", {"B"}},
      {"map-abc", "10-event.json", {"C"}},
      {"parallel-abcd", "event.json", {"D"}},
      {"chain8-nocheckpoint", "event.json", {"H"}},
      {"iot-pipeline", "event.json", {}},
      {"retry-dest-demo", "event.json", {"Second"}},
      {"chain-pass-debug", "event.json", {}},
  };
  for (const Case &c : cases) {
    fs::path app = fs::path(dir) / "compile" / c.name / "expected";
    App a = loadWithPassThrough(app);
    auto store = createMemoryStore();
    LocalRunner::Options opts;
    std::vector<std::string> lines;
    opts.log = [&](const std::string &l) { lines.push_back(l); };
    LocalRunner runner(a, *store, opts);
    RunResult r = runner.run(
        readJson(fs::path(dir) / "compile" / c.name / "events" / c.event));
    ASSERT_TRUE(r.ok()) << c.name << ": " << r.errors[0];
    EXPECT_EQ(r.outputs.size(), 1u) << c.name;
    for (const std::string &t : c.terminals)
      EXPECT_EQ(r.outputs.count(t), 1u) << c.name << ": no output of " << t;
    // Only chain-pass-debug has "Debug": true (on both functions): each
    // reports its steps; "Debug": false (retry-dest-demo) and no Debug say
    // nothing.
    size_t done = 0;
    for (const std::string &l : lines)
      done += l.find(": done in ") != std::string::npos;
    EXPECT_EQ(done, std::string(c.name) == "chain-pass-debug" ? 2u : 0u)
        << c.name;
  }
}

TEST(ConformanceRun, MapAbcGivesTheListBack) {
  REQUIRE_CONFORMANCE(dir);
  fs::path base = fs::path(dir) / "compile" / "map-abc";
  App a = loadWithPassThrough(base / "expected");
  auto store = createMemoryStore();
  LocalRunner runner(a, *store, {});
  Value event = readJson(base / "events" / "100-event.json");
  RunResult r = runner.run(event);
  ASSERT_TRUE(r.ok()) << r.errors[0];
  // Pass-through all the way: the fan-in target sees the 100 items in order.
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs.begin()->second, *event.find("Data")->find("Value"));
}

TEST(ConformanceRun, ChainSelfLoop) {
  REQUIRE_CONFORMANCE(dir);
  fs::path base = fs::path(dir) / "handwritten" / "chain-selfloop";
  App a = loadWithPassThrough(base);
  auto store = createMemoryStore();
  LocalRunner runner(a, *store, {});
  RunResult r = runner.run(readJson(base / "events" / "event.json"));
  ASSERT_TRUE(r.ok()) << r.errors[0];
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs.begin()->first, "ChainPass-unumIndex-1");
}

TEST(ConformanceRun, CatchRetryError) {
  REQUIRE_CONFORMANCE(dir);
  fs::path base = fs::path(dir) / "handwritten" / "catch-retry-error";
  App a = loadWithPassThrough(base);
  int firstRuns = 0;
  (void)a.setHandler("First",
                     makeFunctionHandler([&](const Value &, Context &) {
                       ++firstRuns;
                       return HandlerResult::failure("user crash");
                     }));
  auto store = createMemoryStore();
  LocalRunner::Options opts;
  opts.workers = 1;
  LocalRunner runner(a, *store, opts);
  RunResult r = runner.run(readJson(base / "events" / "event.json"));
  ASSERT_TRUE(r.ok()) << r.errors[0];
  EXPECT_EQ(firstRuns, 4); // Retry: 3
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs.begin()->first, "FirstError");
  EXPECT_EQ(*r.outputs.begin()->second.find("Cause"), Value("user crash"));
}

TEST(ConformanceRun, ExCamera) {
  // The hand-written ExCamera graph: shifted fan-in values, conditional
  // fan-ins, $0=$0+1, and a rebase chain that fans in to itself.
  REQUIRE_CONFORMANCE(dir);
  fs::path base = fs::path(dir) / "handwritten" / "excamera";
  App a = loadWithPassThrough(base);
  auto tag = [](const char *fn) {
    return makeFunctionHandler([fn](const Value &in, Context &ctx) {
      Value v = Value::object();
      v.set("fn", fn);
      v.set("at", ctx.instance);
      v.set("in", in);
      return HandlerResult::success(v);
    });
  };
  (void)a.setHandler("UnumMap0",
                     makeFunctionHandler([](const Value &in, Context &) {
                       return HandlerResult::success(*in.find("chunks"));
                     }));
  for (const char *fn : {"vpxenc", "xcdec", "reencode", "rebase"})
    (void)a.setHandler(fn, tag(fn));
  for (const char *kind : {"memory", "sqlite", "dynamodb"}) {
    TempDir tmp;
    std::string why;
    auto store = makeStore(kind, tmp, &why);
    if (!store) {
      std::cerr << "ExCamera on " << kind << " skipped: " << why << "\n";
      continue;
    }
    LocalRunner::Options opts;
    opts.workers = 4;
    LocalRunner runner(a, *store, opts);
    RunResult r = runner.run(readJson(base / "events" / "event.json"));
    ASSERT_TRUE(r.ok()) << kind << ": " << r.errors[0];
    // The rebase chain ends at the last chunk.
    ASSERT_EQ(r.outputs.size(), 1u) << kind;
    ASSERT_EQ(r.outputs.begin()->first, "rebase-unumIndex-15") << kind;
    // rebase-15 got [rebase-14, reencode-15], and reencode-15 got
    // [vpxenc-15, xcdec-14].
    const Value &last = r.outputs.begin()->second;
    const Value::Array &in = last.find("in")->getArray();
    ASSERT_EQ(in.size(), 2u);
    EXPECT_EQ(*in[0].find("at"), Value("rebase-unumIndex-14"));
    EXPECT_EQ(*in[1].find("at"), Value("reencode-unumIndex-15"));
    const Value::Array &re = in[1].find("in")->getArray();
    EXPECT_EQ(*re[0].find("at"), Value("vpxenc-unumIndex-15"));
    EXPECT_EQ(*re[1].find("at"), Value("xcdec-unumIndex-14"));
  }
}
