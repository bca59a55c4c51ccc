//===- serve_bench.cpp - Per-transition latency through unum-serve --------===//
//
//   unum-serve-bench --store redis://H:P --app DIR --url-map FILE
//                    [--transitions N] [--repeat R]
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
// Prints both per-step figures (best of R) and their ratio (goal: <= 1.5).
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
#include <iostream>
#include <string>

using namespace unum::runtime;
using Clock = std::chrono::steady_clock;

static int fail(const std::string &msg) {
  std::cerr << "unum-serve-bench: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  std::string storeUri, appDir, urlMap;
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
  for (int r = 0; r < repeat; ++r) {
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
  }
  (void)db.deleteSession("bench-floor");
  std::printf("per step, best of %d (%d transitions each):\n", repeat, steps);
  std::printf("  floor (HTTP round trip + 1 Redis write): %8.1f us\n",
              floorBest * 1e6);
  std::printf("  unum-serve transition (HTTP + runtime):  %8.1f us\n",
              unumBest * 1e6);
  std::printf("  ratio: %.2fx (goal: at most 1.5x)\n", unumBest / floorBest);
  return 0;
}
