//===- serve_bench.cpp - Per-transition latency through unum-serve --------===//
//
//   unum-serve-bench --store redis://H:P --app DIR --url-map FILE
//                    --sink-port P [--transitions N] [--repeat R]
//                    [--host-pids P,P] [--redis-pid P]
//
// Two measurements over loopback and the same Redis, interleaved: R rounds,
// each one block of each, the block that goes first alternating between
// rounds (so that a drift of the machine's speed within a round counts
// against both equally):
//
//  * the floor: N bare HTTP round trips in a row (httpPost, kept-alive
//    connection, to an HttpServer in this process) whose handler does one
//    Redis write (a SET, DataStore::put) before it answers 202: what any
//    FaaS hop with a durable accept costs at least;
//  * unum: a workflow that is a chain of N functions (Pass states, no
//    handler process) served by unum-serve hosts (utils/bench/serve_bench.py
//    starts them: consecutive functions on different hosts, so every
//    transition is an HTTP POST), started as `unum-serve --submit` does;
//    the last function's continuation is a POST to a sink in this process
//    (function "Sink", at 127.0.0.1:P), whose arrival ends the measurement:
//    no polling of the store. Its time / N.
//
// Both clients use the same HTTP client (httpPost: one kept-alive
// connection per server, TCP_NODELAY) and the same Redis client as the
// hosts. Prints, per round, floor and transition per step and their ratio;
// then the median of the per-round ratios (the figure for issue 17's goal,
// at most 1.5x), their range and quartiles, with the CPU model, its
// features and the load average before and after. With the pids of the
// hosts and of redis-server, also the CPU time per step (user and system,
// mean over all R rounds): the floor's is this process's (client and
// server) and redis-server's during the floor blocks, unum's the hosts' and
// redis-server's during the chains (the client's start excluded). CPU time
// hardly depends on the machine's load, latency does.
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
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
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

/// Context switches (voluntary and not) of process `pid`'s live threads so
/// far: a thread that blocks (a read, a lock, a timed wait) and is woken
/// again counts one, so per step it counts the wake-ups that a step's
/// latency pays for, whatever the load.
static double switchesOf(int pid) {
  double n = 0;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      if (e->d_name[0] == '.')
        continue;
      std::ifstream f(dir + "/" + e->d_name + "/status");
      for (std::string line; std::getline(f, line);)
        if (line.find("ctxt_switches:") != std::string::npos)
          n += std::stod(line.substr(line.find(':') + 1));
    }
    closedir(d);
  }
  return n;
}

static double switchesOfAll(const std::vector<int> &pids) {
  double n = 0;
  for (int pid : pids)
    n += switchesOf(pid);
  return n;
}

static double switchesOfSelf() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_nvcsw + u.ru_nivcsw);
}

/// The CPU's model, its count and the features that matter for a latency
/// figure (a VM, the TSC, the vector width).
static std::string cpuDescription() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model = "unknown", flags;
  unsigned cpus = 0;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0 && model == "unknown")
      model = line.substr(line.find(':') + 2);
    else if (line.rfind("processor", 0) == 0)
      ++cpus;
    else if (line.rfind("flags", 0) == 0 && flags.empty())
      flags = " " + line.substr(line.find(':') + 1) + " ";
  }
  std::string out = model + ", " + std::to_string(cpus) + " CPU(s); features:";
  for (const char *feature :
       {"hypervisor", "constant_tsc", "nonstop_tsc", "avx2", "avx512f"})
    out += flags.find(std::string(" ") + feature + " ") != std::string::npos
               ? std::string(" ") + feature
               : std::string(" no-") + feature;
  return out;
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

/// The q-quantile of `v` (sorted), interpolated.
static double quantile(const std::vector<double> &v, double q) {
  double at = q * double(v.size() - 1);
  size_t lo = size_t(at);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

int main(int argc, char **argv) {
  std::string storeUri, appDir, urlMap;
  std::vector<int> hostPids;
  int redisPid = 0, sinkPort = -1;
  int transitions = 200, repeat = 40;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--store")
      storeUri = v;
    else if (a == "--app")
      appDir = v;
    else if (a == "--url-map")
      urlMap = v;
    else if (a == "--sink-port")
      sinkPort = std::atoi(v.c_str());
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
  if (storeUri.empty() || appDir.empty() || urlMap.empty() || sinkPort < 0)
    return fail("usage: unum-serve-bench --store URI --app DIR --url-map "
                "FILE --sink-port P [--transitions N] [--repeat R]");
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
  // The chain's end: the last function's continuation arrives here.
  std::mutex sinkMu;
  std::condition_variable sinkCv;
  std::string sinkSession; // the session whose end is awaited
  bool sinkReached = false;
  Clock::time_point sinkAt;
  auto sink = HttpServer::listen(
      "127.0.0.1", sinkPort,
      [&](const std::string &, const std::string &payload) {
        Clock::time_point now = Clock::now();
        std::lock_guard<std::mutex> lock(sinkMu);
        if (!sinkSession.empty() &&
            payload.find("\"" + sinkSession + "\"") != std::string::npos) {
          sinkReached = true;
          sinkAt = now;
          sinkCv.notify_all();
        }
        return HttpResponse{202, ""};
      });
  if (!sink)
    return fail("the sink: " + sink.getStatus().message());
  // Unum: the chain on the hosts, started like --submit.
  HttpInvoker http([&urls](const std::string &fn) { return urls.urlFor(fn); });
  LocalRunner::Options opts;
  opts.workers = 1;
  opts.platform = &http;
  LocalRunner client(*app, db, opts);
  int steps = 0; // the chain's functions (the sink is not one of its steps)
  for (const auto &fn : app->functions())
    steps += fn.first != "Sink";

  auto floorRound = [&]() -> Result<double> {
    auto t0 = Clock::now();
    for (int i = 0; i < transitions; ++i) {
      auto resp =
          httpPost((*server)->url() + "/fn/F", body, "application/json", 5000);
      if (!resp || resp->status != 202)
        return Status::error("the floor's POST failed");
    }
    return std::chrono::duration<double>(Clock::now() - t0).count() /
           transitions;
  };
  auto chainRound = [&]() -> Result<double> {
    auto t0 = Clock::now();
    std::string id = newSessionId();
    {
      std::lock_guard<std::mutex> lock(sinkMu);
      sinkSession = id;
      sinkReached = false;
    }
    auto session = client.start(*parseJsonValue(R"({"n": 0})"), id);
    if (!session)
      return session.getStatus();
    std::unique_lock<std::mutex> lock(sinkMu);
    if (!sinkCv.wait_for(lock, std::chrono::seconds(120),
                         [&] { return sinkReached; }))
      return Status::error("the chain did not reach the sink in 120 s");
    double perStep = std::chrono::duration<double>(sinkAt - t0).count() / steps;
    sinkSession.clear();
    lock.unlock();
    // Its records go (the sink's outbox entry stays: nobody runs it).
    if (Status s = db.deleteSession(*session); !s)
      return s;
    return perStep;
  };

  std::vector<int> redis;
  if (redisPid)
    redis.push_back(redisPid);
  Cpu floorCpu, unumCpu;
  // Context switches: of this process and redis-server in the floor's
  // halves; of the hosts and redis-server in the chain's.
  double floorSwitches = 0, hostSwitches = 0, redisSwitches = 0;
  std::vector<double> floors, chains, ratios;
  const std::string loadBefore = loadAverage();
  std::printf("CPU: %s\n", cpuDescription().c_str());
  std::printf("load average before: %s\n", loadBefore.c_str());
  std::printf("%d rounds of %d floor round trips and a chain of %d steps "
              "(first in turn):\n",
              repeat, transitions, steps);
  std::printf("  round  floor us  transition us  ratio\n");
  for (int r = 0; r < repeat; ++r) {
    double f = 0, u = 0;
    for (int half = 0; half < 2; ++half) {
      if ((half == 0) == (r % 2 == 0)) {
        Cpu c0 = cpuOfSelf() + cpuOfAll(redis);
        double s0 = switchesOfSelf() + switchesOfAll(redis);
        auto t = floorRound();
        if (!t)
          return fail(t.getStatus().message());
        f = *t;
        floorCpu += cpuOfSelf() + cpuOfAll(redis) - c0;
        floorSwitches += switchesOfSelf() + switchesOfAll(redis) - s0;
      } else {
        Cpu c0 = cpuOfAll(hostPids) + cpuOfAll(redis);
        double h0 = switchesOfAll(hostPids), r0 = switchesOfAll(redis);
        auto t = chainRound();
        if (!t)
          return fail(t.getStatus().message());
        u = *t;
        unumCpu += cpuOfAll(hostPids) + cpuOfAll(redis) - c0;
        hostSwitches += switchesOfAll(hostPids) - h0;
        redisSwitches += switchesOfAll(redis) - r0;
      }
    }
    floors.push_back(f * 1e6);
    chains.push_back(u * 1e6);
    ratios.push_back(u / f);
    std::printf("  %5d  %8.1f  %13.1f  %5.2f\n", r + 1, f * 1e6, u * 1e6,
                u / f);
  }
  (void)db.deleteSession("bench-floor");
  for (auto *v : {&floors, &chains, &ratios})
    std::sort(v->begin(), v->end());
  std::printf("load average after: %s\n", loadAverage().c_str());
  std::printf("per step, median [min-max] of %d rounds:\n", repeat);
  std::printf(
      "  floor (HTTP round trip + 1 Redis write): %8.1f us [%.1f-%.1f]\n",
      quantile(floors, 0.5), floors.front(), floors.back());
  std::printf(
      "  unum-serve transition (HTTP + runtime):  %8.1f us [%.1f-%.1f]\n",
      quantile(chains, 0.5), chains.front(), chains.back());
  std::printf("  ratio, median of the rounds' ratios: %.2fx [%.2f-%.2f], "
              "quartiles %.2f-%.2f (goal: at most 1.5x)\n",
              quantile(ratios, 0.5), ratios.front(), ratios.back(),
              quantile(ratios, 0.25), quantile(ratios, 0.75));
  if (!hostPids.empty() && redisPid) {
    const double nf = double(transitions) * repeat, nu = double(steps) * repeat;
    std::printf("CPU time per step, mean of %d rounds (user + system):\n",
                repeat);
    std::printf("  floor (client, server, redis-server):    %6.1f + %6.1f us\n",
                floorCpu.user / nf * 1e6, floorCpu.sys / nf * 1e6);
    std::printf("  unum-serve (both hosts, redis-server):   %6.1f + %6.1f us\n",
                unumCpu.user / nu * 1e6, unumCpu.sys / nu * 1e6);
    std::printf("  ratio: %.2fx user, %.2fx user + system\n",
                unumCpu.user / nu / (floorCpu.user / nf),
                (unumCpu.user + unumCpu.sys) / nu /
                    ((floorCpu.user + floorCpu.sys) / nf));
    std::printf("context switches per step, mean of %d rounds:\n", repeat);
    std::printf("  floor (client and server, redis-server):  %5.2f\n",
                floorSwitches / nf);
    std::printf("  unum-serve (both hosts, redis-server):     %5.2f + %.2f\n",
                hostSwitches / nu, redisSwitches / nu);
  }
  return 0;
}
