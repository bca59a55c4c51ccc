//===- runtime_bench.cpp - Runtime overhead per transition and fan-in cost
//-===//
//
// Not a test: prints a table, with every ratio measured in the same run.
//
//  * chain: a chain of N no-op functions (checkpoints on, the compiler's
//    default), run by the in-process invoker with one worker, on each store.
//    The floor is what any runtime must pay per step on the same store: a
//    bare call of the same no-op handler plus one conditional put of its
//    checkpoint that retires the previous step's (exactly-once with GC:
//    see floorOnce). Goals (issue 17): memory store at most 1.5x the
//    floor, SQLite at most 1.2x. Columns: the best chain run over the best
//    floor run ("ratio"), and the median and range of the per-round ratios
//    (each chain run over the floor run just before it: the rounds
//    alternate, so a ratio compares runs that saw the same machine), and
//    the number of rounds: --repeat, or with --repeat 3 or more on a fast
//    store as many as make 100 ms of floor time (at most 50).
//  * map + fan-in: one function maps over W items, W tails fan in to one
//    target. Reports time and store operations per item (target: O(n) in
//    total, i.e. a constant per item).
//
// usage: unum-runtime-bench [--chain N] [--width W] [--repeat R]
//                           [--redis redis://HOST:PORT]
//                           [--stores memory,sqlite,redis]
//                           [--checkpoints on|off|both] [--clock wall|cpu]
//                           [--cpu auto|none|N]
// The chain table runs pinned to one CPU (auto: the one it starts on).
// Without --redis, a private redis-server is started if one is installed.
// --stores limits the run (e.g. `--stores memory --width 0` under callgrind);
// --width 0 skips the map + fan-in table.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <netinet/in.h>
#include <sched.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace unum::runtime;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
/// Wall-clock seconds, or with --clock cpu the process's CPU seconds (all
/// threads): on a shared machine, time the process spent preempted does not
/// count. The chain runs on one worker while the main thread sleeps in
/// wait(), so both clocks measure the same work.
bool cpuClock = false;
double now() {
  if (cpuClock) {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
  }
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

void die(const std::string &msg) {
  std::fprintf(stderr, "unum-runtime-bench: %s\n", msg.c_str());
  std::exit(1);
}

App chainApp(int n, bool checkpoint) {
  std::vector<std::string> configs;
  configs.reserve(n);
  std::string ck = checkpoint ? "true" : "false";
  for (int i = 0; i < n; ++i) {
    std::string c = "{\"Name\": \"F" + std::to_string(i) + "\"";
    if (i + 1 < n)
      c += ", \"Next\": {\"Name\": \"F" + std::to_string(i + 1) +
           "\", \"InputType\": \"Scalar\"}";
    c += ", \"Checkpoint\": " + ck;
    if (i == 0)
      c += ", \"Start\": true";
    configs.push_back(c + "}");
  }
  auto app = App::fromJson(configs);
  if (!app)
    die(app.getStatus().message());
  return app.take();
}

std::shared_ptr<Handler> noop() {
  return makeFunctionHandler(
      [](const Value &in, Context &) { return HandlerResult::success(in); });
}

/// Seconds for one run of `app` from its start function; `ops` gets the
/// store operations it issued.
/// A fresh runner per run (its worker thread starts cold, like a new
/// process; keeping one across runs measured slower here, not faster).
double runOnce(const App &app, DataStore &store, const Value &input,
               unsigned workers, uint64_t &ops, bool durable = true) {
  LocalRunner::Options opts;
  opts.workers = workers;
  opts.durable = durable;
  LocalRunner runner(app, store, opts);
  uint64_t before = store.operationCount();
  double t0 = now();
  auto session = runner.start(input);
  if (!session)
    die(session.getStatus().message());
  runner.wait();
  double t1 = now();
  ops = store.operationCount() - before;
  RunResult r = runner.result(*session);
  if (!r.ok())
    die(r.errors[0]);
  (void)store.deleteSession(*session);
  return t1 - t0;
}

/// The floor: the least store work a transition with exactly-once
/// checkpoints and garbage collection needs, with no runtime around it.
/// Per step, the same no-op handler called directly, then one conditional
/// put of its checkpoint (first writer wins: what makes a redelivered step
/// reuse the first run's output) that retires the previous step's
/// checkpoint in the same operation (one transaction on SQLite, one round
/// trip on Redis). That is one store operation per step, as the chain
/// issues (its "store ops" column). What a chain step costs beyond it is
/// the runtime's: the payload and its hand-off to the next function, the
/// plan, the context, and on a persistent store the durable runner's
/// outbox rows (written inside the same transaction: they are the local
/// platform's queue, which a FaaS platform keeps elsewhere).
double floorOnce(DataStore &store, int n, std::string &session) {
  auto handler = noop();
  session = newSessionId();
  Value v = Value(int64_t(1));
  Context ctx;
  std::string previous;
  double t0 = now();
  for (int i = 0; i < n; ++i) {
    HandlerResult r = handler->call(v, ctx);
    std::string instance = "F" + std::to_string(i);
    auto put =
        store.putIfAbsent(session, instance, "c" + toJson(r.output), {},
                          previous.empty() ? NameList() : NameList(previous));
    if (!put)
      die(put.getStatus().message());
    previous = std::move(instance);
  }
  return now() - t0;
}

/// floorOnce and the session's deletion (not timed; out of floorOnce, so
/// that callgrind's inclusive count of floorOnce is what the clock times).
double floorRun(DataStore &store, int n) {
  std::string session;
  double t = floorOnce(store, n, session);
  (void)store.deleteSession(session);
  return t;
}

struct Redis {
  pid_t pid = -1;
  std::string dir;
  ~Redis() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
    std::error_code ec;
    if (!dir.empty())
      fs::remove_all(dir, ec);
  }
};

std::string startRedis(Redis &r) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr));
  getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  std::string tmpl = (fs::temp_directory_path() / "unum-bench-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    return "";
  r.dir = tmpl;
  std::vector<std::string> args = {
      "redis-server", "--port",    std::to_string(port), "--bind", "127.0.0.1",
      "--save",       "",          "--appendonly",       "no",     "--dir",
      r.dir,          "--logfile", r.dir + "/log"};
  std::vector<char *> argv;
  for (auto &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawnp(&r.pid, "redis-server", nullptr, nullptr, argv.data(),
                   environ) != 0) {
    r.pid = -1;
    return "";
  }
  std::string uri = "redis://127.0.0.1:" + std::to_string(port);
  for (int i = 0; i < 100; ++i) {
    if (openDataStore(uri))
      return uri;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}
} // namespace

int main(int argc, char **argv) {
  int chain = 10000, width = 10000, repeat = 3;
  std::string cpu = "auto";
  std::string redisUri, only = "memory,sqlite,redis", cks = "both";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--chain")
      chain = std::atoi(next().c_str());
    else if (a == "--width")
      width = std::atoi(next().c_str());
    else if (a == "--repeat")
      repeat = std::max(1, std::atoi(next().c_str()));
    else if (a == "--redis")
      redisUri = next();
    else if (a == "--stores")
      only = "," + next() + ",";
    else if (a == "--checkpoints")
      cks = next();
    else if (a == "--cpu")
      cpu = next();
    else if (a == "--clock") {
      std::string c = next();
      if (c != "wall" && c != "cpu")
        die("--clock is wall or cpu");
      cpuClock = c == "cpu";
    } else
      die("usage: unum-runtime-bench [--chain N] [--width W] [--repeat R] "
          "[--redis redis://HOST:PORT] [--stores memory,sqlite,redis] "
          "[--checkpoints on|off|both] [--clock wall|cpu] [--cpu auto|none|N]");
  }
  auto wanted = [&](const std::string &label) {
    return only.find(label) != std::string::npos;
  };

  Redis redis;
  if (redisUri.empty() && wanted("redis"))
    redisUri = startRedis(redis);
  std::string tmpl = (fs::temp_directory_path() / "unum-bench-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    die("cannot create a temporary directory");
  std::string sqlitePath = tmpl + "/bench.db";

  std::vector<std::pair<std::string, std::string>> stores;
  if (wanted("memory"))
    stores.push_back({"memory", "memory"});
  if (wanted("sqlite"))
    stores.push_back({"sqlite", "sqlite:" + sqlitePath});
  if (!redisUri.empty())
    stores.push_back({"redis", redisUri});
  else if (wanted("redis"))
    std::printf("(redis: no redis-server; skipped)\n");

  App ckChain = chainApp(chain, true);
  App plainChain = chainApp(chain, false);
  for (auto *app : {&ckChain, &plainChain})
    for (auto &[name, spec] : app->functions())
      (void)app->setHandler(name, noop());

  App fanIn = *App::fromJson({
      R"({"Name": "Split", "Next": {"Name": "Work", "InputType": "Map"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "Work", "Next": {"Name": "Join", "InputType": {"Fan-in": {
            "Values": ["Work-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "Join", "Checkpoint": true})"});
  (void)fanIn.setHandler("Split",
                         makeFunctionHandler([](const Value &n, Context &) {
                           Value items = Value::array();
                           for (int64_t i = 0; i < n.getInt(); ++i)
                             items.push(Value(i));
                           return HandlerResult::success(items);
                         }));
  (void)fanIn.setHandler("Work", noop());
  (void)fanIn.setHandler(
      "Join", makeFunctionHandler([](const Value &xs, Context &) {
        return HandlerResult::success(Value(int64_t(xs.getArray().size())));
      }));

  // The memory store's chain rows run on one CPU: the floor's loop and the
  // chain's worker then see the same core and caches (the runner's main
  // thread only sleeps in wait()). The other stores talk to a server or a
  // file and run unpinned, like the map table below (two workers).
  cpu_set_t all, one;
  sched_getaffinity(0, sizeof(all), &all);
  CPU_ZERO(&one);
  int n = -1;
  if (cpu != "none") {
    n = cpu == "auto" ? sched_getcpu() : std::atoi(cpu.c_str());
    if (n < 0 || n >= CPU_SETSIZE || !CPU_ISSET(n, &all))
      die("cannot pin to CPU " + cpu);
    CPU_SET(n, &one);
  }
  std::printf("Per-transition overhead: a chain of %d no-op functions, "
              "in-process invoker, 1 worker, %s (at least %d rounds, %s clock; "
              "floor and chains interleaved)\n\n",
              chain,
              n < 0 ? "unpinned"
                    : ("memory on CPU " + std::to_string(n)).c_str(),
              repeat, cpuClock ? "cpu" : "wall");
  std::printf("%-7s %-13s %9s %9s %7s %7s %13s %9s %6s\n", "store",
              "checkpoints", "us/step", "floor us", "ratio", "median", "range",
              "store ops", "rounds");
  for (auto &[label, uri] : stores) {
    auto store = openDataStore(uri);
    if (!store)
      die(store.getStatus().message());
    bool pin = cpu != "none" && label == "memory";
    sched_setaffinity(0, sizeof(cpu_set_t), pin ? &one : &all);
    // The floor and the chains take turns, so that each ratio compares
    // runs that saw the same machine (a shared machine's load drifts).
    // The rows: checkpoints on and off, and on a persistent store also
    // checkpoints on without the durable runner's outbox (what the
    // journal costs: a FaaS platform's own queue does that work).
    struct Row {
      bool ck, durable;
      const char *name;
      double best = 1e30;
      uint64_t ops = 0;
      // Each chain run is also compared with the floor run just before
      // it: the median of those ratios holds up when the machine's speed
      // drifts between runs (a shared VM), where best/best may pair a
      // lucky floor with an unlucky chain.
      std::vector<double> pairs;
    };
    std::vector<Row> rows;
    for (bool ck : {true, false})
      if (cks == "both" || (cks == "on") == ck)
        rows.push_back({ck, true, ck ? "on" : "off"});
    if ((*store)->persistent() && cks != "off")
      rows.push_back({true, false, "on, no outbox"});
    double floorBest = 1e30;
    // At least --repeat rounds; with 3 or more, on a fast store (a memory
    // store round takes milliseconds) as many as 100 ms of floor time hold,
    // up to 50: a median over a handful of short rounds moves with every
    // neighbour's burst on a shared machine. (--repeat 1 or 2: exactly
    // that, e.g. under callgrind.)
    int rounds = repeat;
    for (int r = 0; r < rounds; ++r) {
      double f = floorRun(**store, chain);
      if (r == 0 && f > 0 && repeat >= 3)
        rounds = std::max(repeat, std::min(50, int(0.1 / f) + 1));
      floorBest = std::min(floorBest, f);
      for (Row &row : rows) {
        double t = runOnce(row.ck ? ckChain : plainChain, **store,
                           Value(int64_t(1)), 1, row.ops, row.durable);
        row.best = std::min(row.best, t);
        row.pairs.push_back(t / f);
      }
    }
    for (Row &row : rows) {
      std::vector<double> &p = row.pairs;
      std::sort(p.begin(), p.end());
      char range[32];
      std::snprintf(range, sizeof(range), "%.2f-%.2fx", p.front(), p.back());
      std::printf("%-7s %-13s %9.2f %9.2f %6.2fx %6.2fx %13s %9.2f %6d\n",
                  label.c_str(), row.name, row.best / chain * 1e6,
                  floorBest / chain * 1e6, row.best / floorBest,
                  p[p.size() / 2], range, double(row.ops) / chain, rounds);
    }
  }

  sched_setaffinity(0, sizeof(all), &all);
  if (width <= 0)
    stores.clear(); // the chain table is all that was asked for
  else {
    std::printf("\nMap + fan-in: %d tails fanning in to one target, "
                "in-process invoker, 2 workers (best of %d)\n\n",
                width, repeat);
    std::printf("%-7s %8s %10s %12s %14s %12s\n", "store", "width", "total s",
                "us/item", "store ops", "ops/item");
  }
  for (auto &[label, uri] : stores) {
    auto store = openDataStore(uri);
    if (!store)
      die(store.getStatus().message());
    for (int w : {width / 10, width}) {
      double best = 1e30;
      uint64_t ops = 0;
      for (int r = 0; r < repeat; ++r)
        best =
            std::min(best, runOnce(fanIn, **store, Value(int64_t(w)), 2, ops));
      std::printf("%-7s %8d %10.3f %12.2f %14llu %12.2f\n", label.c_str(), w,
                  best, best / w * 1e6, (unsigned long long)ops,
                  double(ops) / w);
    }
  }
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  return 0;
}
