//===- serve_bench.cpp - Per-transition latency through unum-serve --------===//
//
//   unum-serve-bench --store redis://H:P --app DIR --url-map FILE
//                    [--transitions N] [--repeat R]
//                    [--host-pids P,P] [--redis-pid P]
//
// Two measurements, both sequential, over loopback and the same Redis:
//
//  * the floor: a bare HTTP round trip (httpPost to an HttpServer in this
//    process) whose handler does one Redis write (DataStore::put) before it
//    answers 202: what any FaaS hop with a durable accept costs at least;
//  * unum: a workflow that is a chain of N functions (Pass states, no
//    handler process) served by unum-serve hosts (utils/bench/serve_bench.py
//    starts them: consecutive functions on different hosts, so every
//    transition is an HTTP POST), started and awaited as `unum-serve
//    --submit` does (polling the store every millisecond); its time / N.
//
// Prints both per-step figures (best of R) and their ratio (goal: <= 1.5),
// with the CPU model and the load average before and after. With the pids
// of the hosts and of redis-server, also the CPU time per step (user and
// system, mean over all R runs): the floor's is this process's (client and
// server) and redis-server's during the floor runs, unum's the hosts' and
// redis-server's during the chain runs (the client's start and polling
// excluded). CPU time hardly depends on the machine's load, latency does.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/HttpServer.h"
#include "unum/Runtime/Runtime.h"

// The floor's plain store write (DataStore::put) is internal.
#include "DataStoreInternal.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

using namespace unum::runtime;
using Clock = std::chrono::steady_clock;

static int fail(const std::string &msg) {
  std::cerr << "unum-serve-bench: error: " << msg << "\n";
  return 1;
}

/// User and system CPU seconds.
struct Cpu {
  double user = 0, sys = 0;
  Cpu &operator+=(const Cpu &o) {
    user += o.user;
    sys += o.sys;
    return *this;
  }
  Cpu operator+(const Cpu &o) const { return {user + o.user, sys + o.sys}; }
  Cpu operator-(const Cpu &o) const { return {user - o.user, sys - o.sys}; }
};

/// Process `pid`'s CPU time so far (all its threads, the ended ones too).
static Cpu cpuOf(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(f)),
                   std::istreambuf_iterator<char>());
  size_t close = text.rfind(')'); // the command may hold spaces
  if (close == std::string::npos)
    return {};
  std::istringstream in(text.substr(close + 2));
  std::string field;
  std::vector<std::string> fields;
  while (in >> field && fields.size() < 13)
    fields.push_back(field);
  if (fields.size() < 13)
    return {};
  double tick = double(sysconf(_SC_CLK_TCK));
  // utime and stime: the 14th and 15th fields of the line.
  return {std::stod(fields[11]) / tick, std::stod(fields[12]) / tick};
}

static Cpu cpuOfSelf() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return {double(u.ru_utime.tv_sec) + double(u.ru_utime.tv_usec) * 1e-6,
          double(u.ru_stime.tv_sec) + double(u.ru_stime.tv_usec) * 1e-6};
}

static Cpu cpuOfAll(const std::vector<int> &pids) {
  Cpu c;
  for (int pid : pids)
    c += cpuOf(pid);
  return c;
}

static std::string cpuModel() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0)
      return line.substr(line.find(':') + 2);
  return "unknown";
}

static std::string loadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

static std::vector<int> parsePids(const std::string &list) {
  std::vector<int> out;
  std::istringstream in(list);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(std::atoi(item.c_str()));
  return out;
}

int main(int argc, char **argv) {
  std::string storeUri, appDir, urlMap;
  std::vector<int> hostPids;
  int redisPid = 0;
  int transitions = 200, repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--store")
      storeUri = v;
    else if (a == "--app")
      appDir = v;
    else if (a == "--url-map")
      urlMap = v;
    else if (a == "--transitions")
      transitions = std::max(1, std::atoi(v.c_str()));
    else if (a == "--repeat")
      repeat = std::max(1, std::atoi(v.c_str()));
    else if (a == "--host-pids")
      hostPids = parsePids(v);
    else if (a == "--redis-pid")
      redisPid = std::atoi(v.c_str());
    else
      return fail("unknown option '" + a + "'");
  }
  if (storeUri.empty() || appDir.empty() || urlMap.empty())
    return fail("usage: unum-serve-bench --store URI --app DIR --url-map "
                "FILE [--transitions N] [--repeat R]");
  auto store = openDataStore(storeUri);
  if (!store)
    return fail(store.getStatus().message());
  auto app = App::load(appDir);
  if (!app)
    return fail(app.getStatus().message());
  FunctionUrls urls;
  if (Status s = urls.addFile(urlMap); !s)
    return fail(s.message());

  // The floor: HTTP round trip + one Redis write, N times in a row. The
  // body is a chain step's payload.
  DataStore &db = **store;
  auto server = HttpServer::listen(
      "127.0.0.1", 0, [&db](const std::string &, const std::string &body) {
        Status s = detail::StoreAccess::put(db, "bench-floor", "k", body);
        return s ? HttpResponse{202, ""} : HttpResponse{503, s.message()};
      });
  if (!server)
    return fail(server.getStatus().message());
  const std::string body =
      R"({"Data": {"Source": "http", "Value": {"n": 1}}, "Session": )"
      R"("0123456789abcdef0123456789abcdef", "GC": {"Checkpoint": "F1"}})";
  // Unum: the chain on the hosts, started and awaited like --submit.
  HttpInvoker http([&urls](const std::string &fn) { return urls.urlFor(fn); });
  LocalRunner::Options opts;
  opts.workers = 1;
  opts.platform = &http;
  LocalRunner client(*app, db, opts);
  const int steps = int(app->functions().size());
  // The two alternate, so that both see the same load; best of R each.
  double floorBest = 1e30, unumBest = 1e30;
  std::vector<int> redis;
  if (redisPid)
    redis.push_back(redisPid);
  Cpu floorCpu, unumCpu;
  const std::string loadBefore = loadAverage();
  for (int r = 0; r < repeat; ++r) {
    Cpu c0 = cpuOfSelf() + cpuOfAll(redis);
    auto t0 = Clock::now();
    for (int i = 0; i < transitions; ++i) {
      auto resp =
          httpPost((*server)->url() + "/fn/F", body, "application/json", 5000);
      if (!resp || resp->status != 202)
        return fail("the floor's POST failed");
    }
    floorBest = std::min(
        floorBest,
        std::chrono::duration<double>(Clock::now() - t0).count() / transitions);
    floorCpu += cpuOfSelf() + cpuOfAll(redis) - c0;
    c0 = cpuOfAll(hostPids) + cpuOfAll(redis);
    t0 = Clock::now();
    auto session = client.start(*parseJsonValue(R"({"n": 0})"));
    if (!session)
      return fail(session.getStatus().message());
    RunResult res =
        client.awaitSession(*session, false, std::chrono::seconds(120),
                            std::chrono::milliseconds(1));
    if (!res.ok())
      return fail(res.errors.front());
    unumBest = std::min(
        unumBest,
        std::chrono::duration<double>(Clock::now() - t0).count() / steps);
    unumCpu += cpuOfAll(hostPids) + cpuOfAll(redis) - c0;
  }
  (void)db.deleteSession("bench-floor");
  std::printf("CPU: %s; load average %s before, %s after\n", cpuModel().c_str(),
              loadBefore.c_str(), loadAverage().c_str());
  std::printf("per step, best of %d (%d transitions each):\n", repeat, steps);
  std::printf("  floor (HTTP round trip + 1 Redis write): %8.1f us\n",
              floorBest * 1e6);
  std::printf("  unum-serve transition (HTTP + runtime):  %8.1f us\n",
              unumBest * 1e6);
  std::printf("  ratio: %.2fx (goal: at most 1.5x)\n", unumBest / floorBest);
  if (!hostPids.empty() && redisPid) {
    const double nf = double(transitions) * repeat, nu = double(steps) * repeat;
    std::printf("CPU time per step, mean of %d runs (user + system):\n",
                repeat);
    std::printf("  floor (client, server, redis-server):    %6.1f + %6.1f us\n",
                floorCpu.user / nf * 1e6, floorCpu.sys / nf * 1e6);
    std::printf("  unum-serve (both hosts, redis-server):   %6.1f + %6.1f us\n",
                unumCpu.user / nu * 1e6, unumCpu.sys / nu * 1e6);
    std::printf("  ratio: %.2fx user, %.2fx user + system\n",
                unumCpu.user / nu / (floorCpu.user / nf),
                (unumCpu.user + unumCpu.sys) / nu /
                    ((floorCpu.user + floorCpu.sys) / nf));
  }
  return 0;
}
