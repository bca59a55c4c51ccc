//===- unum-serve.cpp - A function host for a compiled Unum application ---===//
//
//   unum-serve APPDIR [--function NAME]... [--listen HOST:PORT]
//              [--store URI] [--peer NAME=URL]... [--url-map FILE]
//              [--concurrency N] [--max-body BYTES] [--secret-file FILE]
//              [--drain-timeout S] [--sweep-interval S] [--time-scale X]
//              [--retain-sessions S]
//   unum-serve APPDIR --submit FILE|- --store URI --peer ...|--url-map FILE
//              [--effects FILE] [--timeout S]
//
// Serves the FaaS HTTP contract for one function of the application (or
// several, or all of them): POST the payload, get 202 once the invocation is
// durable; GET /healthz. Each accepted invocation runs the Unum runtime with
// the function's handler; continuations go to the functions hosted here
// directly, and to the others by an HTTP POST to their URL (--peer,
// --url-map, or the environment, as Knative, OpenFaaS and Cloud Run pass
// configuration).
//
// Exactly-once across a SIGKILL (docs/Tools/unum-serve.md): an invocation is
// journaled in the store's outbox (LocalRunner's durable mode) and the
// journal flushed before the 202 -- or, on Redis, a continuation from
// another host comes with the entry its sender wrote with its checkpoint
// (the payload's "Outbox" field) and is answered with no store access; it
// leaves the outbox only after it ran, which includes its continuations
// being journaled (docs/Deploy.md).
// A host that starts, and every --sweep-interval, delivers again the
// entries of its functions that no process of its own is running: those a
// killed host left. The checkpoint protocol makes every redelivery safe.
//
// --submit is the client: it starts a workflow on the hosts, waits for the
// store to show that all its work is done, and prints the outputs as
// unum-run does (then deletes the session).
//
//===----------------------------------------------------------------------===//

#include "unum/Config/Document.h"
#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/HttpAuth.h"
#include "unum/Runtime/HttpServer.h"
#include "unum/Runtime/Runtime.h"
#include "unum/Version.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <pthread.h>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

using namespace unum::runtime;

static const char *const kUsage =
    "usage: unum-serve APPDIR [--function NAME]... [--listen HOST:PORT]\n"
    "                  [--store URI] [--peer NAME=URL]... [--url-map FILE]\n"
    "                  [--concurrency N] [--max-body BYTES] [--secret-file "
    "FILE]\n"
    "                  [--drain-timeout S] [--sweep-interval S] [--time-scale "
    "X]\n"
    "                  [--retain-sessions S]\n"
    "       unum-serve APPDIR --submit FILE|- --store URI (--peer "
    "NAME=URL... |\n"
    "                  --url-map FILE) [--effects FILE] [--timeout S]\n"
    "\n"
    "Hosts functions of the application in APPDIR (one directory per\n"
    "function with its unum_config.json and handler, as unumc writes it) as\n"
    "an HTTP endpoint: POST / (one function hosted) or POST /fn/NAME with a\n"
    "payload {\"Data\": ..., \"Session\": ...} (a start function also takes\n"
    "a bare value) is answered 202 once the invocation is durable in the\n"
    "store (journaled here, or by its sender with its checkpoint); GET\n"
    "/healthz (also /health, /_/health) answers 200, or 503 while shutting\n"
    "down. SIGTERM: stop accepting, finish the invocations that\n"
    "run (at most --drain-timeout), leave the rest in the store's outbox.\n"
    "\n"
    "  --function NAME   a function to host (repeat; default: all; env\n"
    "                    UNUM_FUNCTION, comma-separated)\n"
    "  --listen H:P      where to listen (default 127.0.0.1:$PORT, or\n"
    "                    127.0.0.1:8080; env UNUM_LISTEN); an address beyond\n"
    "                    loopback needs a shared secret\n"
    "  --store URI       sqlite:PATH or redis://HOST:PORT (the functions of\n"
    "                    an app share it; memory: one process only, nothing\n"
    "                    survives it; env UNUM_STORE; default memory)\n"
    "  --peer NAME=URL   where function NAME is served (repeat; NAME * is a\n"
    "                    template for the others, {function} standing for\n"
    "                    the name; env UNUM_PEERS, comma-separated)\n"
    "  --url-map FILE    the same as a JSON object of name -> URL (env\n"
    "                    UNUM_URL_MAP)\n"
    "  --concurrency N   invocations run at once (default 4; env\n"
    "                    UNUM_CONCURRENCY)\n"
    "  --max-body N      the largest request body, in bytes (default\n"
    "                    6291456; env UNUM_MAX_BODY)\n"
    "  --secret-file F   sign continuations with, and require of requests,\n"
    "                    the shared secret in F (default $UNUM_HTTP_SECRET)\n"
    "  --drain-timeout S on SIGTERM, wait at most S seconds for running\n"
    "                    invocations (default 20)\n"
    "  --sweep-interval S  how often to look for work a killed host left\n"
    "                    in the store (default 1); an entry younger than\n"
    "                    two intervals (the grace) is left to its POST\n"
    "  --retain-sessions S  delete a session started here S seconds after\n"
    "                    all its work is done (default 60; its outputs\n"
    "                    can be read from the store until then)\n"
    "  --time-scale X    multiply real waits (Wait, Retry) by X\n"
    "  --trace           print each step to stderr\n"
    "  --submit FILE     client: start the workflow with this input on the\n"
    "                    hosts, wait until it is done, print the outputs\n"
    "  --effects FILE    (--submit) write the committed effects to FILE\n"
    "  --timeout S       (--submit) give up after S seconds (default 300)\n"
    "  --version         print Unum's version\n"
    "\n"
    "Exit status: 0 done (a host: shut down cleanly); 1 a bad value, a\n"
    "failed workflow, or a host that could not start; 2 a usage error.\n";

static int fail(const std::string &msg) {
  std::cerr << "unum-serve: error: " << msg << "\n";
  return 1;
}

static std::vector<std::string> splitList(const std::string &s) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

/// The runtime's platform: a hosted function's invocation goes onto the
/// local pool (journaled there), any other goes to its target: an HTTP POST
/// to its host, or an asynchronous AWS Lambda Invoke (makeRemoteInvoker).
/// `retryFor`: how long an invocation a host refused or could not take (a
/// host being restarted) is tried again here; 0: not at all (the runner
/// delivers the invocation again, then the sweep does). `peerHosts`: the
/// functions served by another unum-serve (an http:// URL), which take a
/// continuation that its sender journaled with its checkpoint without
/// journaling it again (carriesOutboxEntries).
class Routes final : public Invoker {
public:
  Routes(std::set<std::string> hosted, const FunctionUrls &peers,
         std::string secret, std::chrono::milliseconds retryFor,
         std::set<std::string> peerHosts = {})
      : hosted(std::move(hosted)), peerHosts(std::move(peerHosts)),
        remote(makeRemoteInvoker(
            [&peers](const std::string &fn) { return peers.urlFor(fn); }, 30000,
            std::move(secret))),
        retryFor(retryFor) {}
  void setLocal(Invoker *pool) { local = pool; }

  Status invoke(const std::string &function, Payload &&payload) override {
    if (hosted.count(function))
      return local.load()->invoke(function, std::move(payload));
    const auto deadline = std::chrono::steady_clock::now() + retryFor;
    for (;;) {
      Payload copy = retryFor.count() ? payload : Payload();
      Status s = remote->invoke(
          function, retryFor.count() ? std::move(copy) : std::move(payload));
      if (!s.isCrash() || std::chrono::steady_clock::now() >= deadline)
        return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  bool blocking() const override { return true; }
  bool carriesOutboxEntries(const std::string &function) const override {
    return peerHosts.count(function) != 0;
  }
  void setOnRefusal(OnRefusal onRefusal) override {
    remote->setOnRefusal(std::move(onRefusal));
  }

private:
  std::set<std::string> hosted, peerHosts;
  std::unique_ptr<Invoker> remote;
  std::chrono::milliseconds retryFor;
  std::atomic<Invoker *> local{nullptr};
};

/// Parses a number of seconds in (0, max].
static bool parseSeconds(const char *v, double max, double &out,
                         bool zero = false) {
  char *end = nullptr;
  double d = std::strtod(v, &end);
  if (*end || !*v || !(d > 0 || (zero && d == 0)) || d > max)
    return false;
  out = d;
  return true;
}

static const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

namespace {
struct Config {
  std::string appDir, storeUri = "memory", listenAt, urlMapPath, secretFile;
  std::string submitPath, effectsPath;
  std::vector<std::string> functions, peerEntries;
  unsigned concurrency = 4;
  size_t maxBody = HttpServerOptions().maxBody;
  double drainSeconds = 20, sweepSeconds = 1, timeScale = 1,
         timeoutSeconds = 300, retainSeconds = 60;
  bool trace = false;
};
} // namespace

/// The client: starts a workflow on the hosts and reports it.
static int submit(const Config &cfg, const App &app, DataStore &store,
                  const FunctionUrls &peers, const std::string &secret) {
  if (!store.persistent())
    return fail("--submit needs the store the hosts share (sqlite:PATH or "
                "redis://HOST:PORT)");
  auto text = readFileOrStdin(cfg.submitPath);
  if (!text)
    return fail(text.getStatus().message());
  auto input =
      parseJsonValue(*text, cfg.submitPath == "-" ? "<stdin>" : cfg.submitPath);
  if (!input)
    return fail(input.getStatus().message());
  for (const std::string &fn : app.startFunctions())
    if (peers.urlFor(fn).empty())
      return fail("no URL for the start function '" + fn +
                  "' (give one with --peer or --url-map)");
  // A host being restarted refuses for a moment: the start is tried again
  // for 30 s.
  Routes routes({}, peers, secret, std::chrono::seconds(30));
  LocalRunner::Options opts;
  opts.workers = 1;
  opts.platform = &routes;
  LocalRunner client(app, store, opts);
  auto session = client.start(*input);
  if (!session) // what start() staged dies with this process
    return fail(session.getStatus().message());
  RunResult r = client.awaitSession(
      *session, /*keepSession=*/true,
      std::chrono::milliseconds(int64_t(cfg.timeoutSeconds * 1000)),
      std::chrono::milliseconds(20));
  if (!cfg.effectsPath.empty())
    if (Status s = writeEffectsFile(store, *session, cfg.effectsPath); !s)
      r.errors.push_back(s.message());
  if (!r.ok()) {
    for (const std::string &e : r.errors)
      std::cerr << "unum-serve: error: " << e << "\n";
    std::cerr << "unum-serve: session " << *session << " is kept in "
              << store.describe() << "\n";
    return 1;
  }
  Value out = Value::object();
  for (auto &[instance, output] : r.outputs)
    out.set(instance, output);
  std::cout << toJson(out, /*pretty=*/true) << std::endl;
  if (Status d = store.deleteSession(*session); !d)
    return fail(d.message());
  return 0;
}

/// The host.
static int serve(const Config &cfg, const App &app, DataStore &store,
                 const FunctionUrls &peers, const std::string &secret,
                 const std::set<std::string> &hosted, sigset_t stopSignals) {
  for (const auto &[name, fn] : app.functions())
    if (!hosted.count(name) && peers.urlFor(name).empty())
      return fail("no URL for function '" + name +
                  "', which is not hosted here (give one with --peer, "
                  "--url-map or UNUM_PEERS)");
  if (!store.persistent() && hosted.size() != app.functions().size())
    return fail("the store " + store.describe() +
                " is this process's own: hosting only some functions needs "
                "a store the hosts share (sqlite:PATH or redis://HOST:PORT)");
  std::string single = hosted.size() == 1 ? *hosted.begin() : "";
  std::string who =
      single.empty() ? "unum-serve" : "unum-serve[" + single + "]";

  std::set<std::string> peerHosts;
  for (const auto &[name, fn] : app.functions())
    if (!hosted.count(name) && peers.urlFor(name).rfind("http://", 0) == 0)
      peerHosts.insert(name);
  Routes routes(hosted, peers, secret, std::chrono::milliseconds(0),
                std::move(peerHosts));
  std::mutex logMu;
  auto log = [&logMu, who](const std::string &line) {
    std::lock_guard<std::mutex> lock(logMu);
    std::cerr << who << ": " << line << "\n";
  };
  LocalRunner::Options opts;
  opts.workers = cfg.concurrency;
  opts.trace = cfg.trace;
  opts.log = log;
  opts.platform = &routes;
  opts.trackInFlight = true;
  opts.keepResults = false;
  opts.runtime.timeScale = cfg.timeScale;
  // A continuation its sender journaled is POSTed right after: the sweep
  // leaves such an entry alone for two sweeps (docs/Deploy.md).
  opts.issueGrace =
      std::chrono::milliseconds(int64_t(2 * cfg.sweepSeconds * 1000));
  LocalRunner runner(app, store, opts);
  routes.setLocal(&runner.invoker());
  const bool durable = runner.durable();

  std::atomic<bool> draining{false};
  // Requests accepted so far: the background flush waits while they come.
  std::atomic<uint64_t> requests{0};
  // Answers 202 once the invocation is durable, then runs it on the
  // connection's thread (Reply::after) when one of the --concurrency slots
  // is free, else queues it for the runner's workers.
  auto accept = [&](const std::string &path,
                    const std::string &body) -> HttpServer::Reply {
    std::string fn = path == "/"                  ? single
                     : path.rfind("/fn/", 0) == 0 ? path.substr(4)
                                                  : "";
    if (fn.empty() || !hosted.count(fn))
      return {404, path == "/" ? "several functions are hosted here: POST "
                                 "/fn/NAME\n"
                               : "no function at '" + path + "'\n"};
    if (draining)
      return {503, "shutting down\n"};
    requests.fetch_add(1, std::memory_order_relaxed);
    auto v = parseJsonValue(body, "payload");
    if (!v)
      return {400, v.getStatus().message() + "\n"};
    const FunctionSpec *spec = app.find(fn);
    auto p = spec->config.start ? startPayload(*v) : decodePayload(*v);
    if (!p)
      return {400, p.getStatus().message() + "\n"};
    // A workflow's start (not a continuation into a start function that
    // a loop targets): its session gets a start marker, so that the sweep
    // deletes it --retain-sessions after its work is done, whoever started
    // it (a direct POST, or unum-serve --submit, which deletes it itself).
    const bool starts = spec->config.start && p->retire.empty() &&
                        p->fanInSet.empty() && p->fanout.empty() &&
                        p->visit == 0 && p->source == Payload::Source::Http;
    if (p->session.empty()) {
      if (!spec->config.start)
        return {400, "a payload for '" + fn + "' needs a Session\n"};
      p->session = newSessionId(); // journaled, so a restart finishes it
    }
    std::string session = p->session;
    // Durable before the 202: a host killed now leaves it in the outbox.
    std::function<void()> run;
    if (Status s = runner.admit(fn, p.take(), run, /*newSession=*/starts); !s)
      return {503, s.message() + "\n"};
    // {"Session": ID}, written directly (every invocation's answer).
    std::string ack = "{\"Session\":";
    unum::config::appendJsonString(ack, session);
    ack += "}\n";
    return {{202, std::move(ack)}, std::move(run)};
  };

  HttpServerOptions serverOptions;
  serverOptions.secret = secret;
  serverOptions.maxBody = cfg.maxBody;
  // A request's handler only journals the invocation (its Reply::after or
  // the runner's workers, --concurrency at once, run it): twice as many may
  // journal at once, so that their outbox flushes share round trips.
  serverOptions.maxHandlers = std::max(4u, 2 * cfg.concurrency);
  serverOptions.onGet = [&draining](const std::string &path) -> HttpResponse {
    if (path != "/healthz" && path != "/health" && path != "/_/health")
      return {404, "not found\n"};
    return draining ? HttpResponse{503, "shutting down\n"}
                    : HttpResponse{200, "ok\n"};
  };
  size_t colon = cfg.listenAt.rfind(':');
  char *portEnd = nullptr;
  long port = colon == std::string::npos
                  ? -1
                  : std::strtol(cfg.listenAt.c_str() + colon + 1, &portEnd, 10);
  if (colon == std::string::npos || colon == 0 || *portEnd || port < 0 ||
      port > 65535)
    return fail("--listen: expected HOST:PORT, got '" + cfg.listenAt + "'");
  std::string host = cfg.listenAt.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  auto server = HttpServer::listen(host, int(port), accept, serverOptions);
  if (!server) {
    std::string msg = server.getStatus().message();
    if (msg.find("without a shared secret") != std::string::npos)
      msg += " (give one with --secret-file or $" +
             std::string(httpauth::kSecretEnv) + ")";
    return fail(msg);
  }
  std::unique_ptr<HttpServer> gateway = server.take();

  // In the background: staged outbox changes (invocations finished) are
  // flushed within milliseconds, and the outboxes are swept for the work of
  // hosted functions that no process of ours runs (a killed host's).
  std::mutex bgMu;
  std::condition_variable bgWake;
  bool bgStop = false;
  auto sweep = [&] {
    auto sessions = store.unfinishedSessions();
    if (!sessions)
      return log("sweep: " + sessions.getStatus().message());
    size_t n = 0;
    for (const std::string &s : *sessions) {
      auto k = runner.redeliver(
          s, [&](const std::string &fn) { return hosted.count(fn) != 0; });
      if (!k)
        log("sweep: " + k.getStatus().message());
      else
        n += *k;
    }
    auto gone = runner.collectSessions(
        *sessions,
        std::chrono::milliseconds(int64_t(cfg.retainSeconds * 1000)));
    if (!gone)
      log("sweep: " + gone.getStatus().message());
    else if (*gone && cfg.trace)
      log("deleted " + std::to_string(*gone) + " finished session(s)");
    if (n && cfg.trace)
      log("delivered " + std::to_string(n) +
          " pending invocation(s) again from " + store.describe());
  };
  // While requests keep coming, the store round trip of each (its
  // checkpoint put, or the journal of a client's request) carries what the
  // invocations before it staged: the background's own flush (a round trip
  // that holds the store's batch lock against the request path) waits until
  // they stop for a period, or kFlushAtLeast has passed since the last one.
  constexpr std::chrono::milliseconds kFlushPeriod{5}, kFlushAtLeast{50};
  std::thread background([&] {
    auto nextSweep = std::chrono::steady_clock::now();
    auto lastFlush = nextSweep;
    uint64_t seen = requests.load(std::memory_order_relaxed);
    std::unique_lock<std::mutex> lock(bgMu);
    while (!bgStop) {
      lock.unlock();
      const uint64_t count = requests.load(std::memory_order_relaxed);
      const auto now = std::chrono::steady_clock::now();
      if (count == seen || now - lastFlush >= kFlushAtLeast) {
        if (Status s = store.flushOutbox(); !s)
          log(s.message());
        lastFlush = now;
      }
      seen = count;
      if (durable && std::chrono::steady_clock::now() >= nextSweep) {
        sweep();
        nextSweep = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(int64_t(cfg.sweepSeconds * 1000));
      }
      lock.lock();
      bgWake.wait_for(lock, kFlushPeriod);
    }
  });
  log("serving " +
      (single.empty() ? std::to_string(hosted.size()) + " functions"
                      : "'" + single + "'") +
      " at " + gateway->url() + " on " + store.describe());

  int sig = 0;
  sigwait(&stopSignals, &sig);
  log(std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") +
      ": draining");
  draining = true;
  // Running invocations finish within the drain timeout; what is left stays
  // in the store's outbox for the next host of these functions. The
  // gateway stops accepting at once; its destructor waits for the
  // invocations that run on its connections' threads (Reply::after),
  // runner.wait() for the workers'.
  std::mutex doneMu;
  std::condition_variable doneCv;
  bool done = false;
  std::thread waiter([&] {
    gateway.reset();
    runner.wait();
    std::lock_guard<std::mutex> lock(doneMu);
    done = true;
    doneCv.notify_all();
  });
  {
    std::lock_guard<std::mutex> lock(bgMu);
    bgStop = true;
  }
  bgWake.notify_all();
  background.join();
  bool drained;
  {
    std::unique_lock<std::mutex> lock(doneMu);
    drained = doneCv.wait_for(
        lock, std::chrono::milliseconds(int64_t(cfg.drainSeconds * 1000)),
        [&] { return done; });
  }
  Status flushed = store.flushOutbox();
  if (!flushed)
    log(flushed.message());
  if (!drained) {
    log("drain timeout: the invocations still running are left in " +
        store.describe() + " for the next host");
    std::cerr.flush();
    std::_Exit(durable && flushed ? 0 : 1);
  }
  waiter.join();
  log("stopped");
  return flushed ? 0 : 1;
}

int main(int argc, char **argv) {
  Config cfg;
  // The environment first (as platforms configure a container), flags
  // override it.
  if (const char *v = env("UNUM_APP"))
    cfg.appDir = v;
  if (const char *v = env("UNUM_STORE"))
    cfg.storeUri = v;
  if (const char *v = env("UNUM_FUNCTION"))
    cfg.functions = splitList(v);
  if (const char *v = env("UNUM_PEERS"))
    cfg.peerEntries = splitList(v);
  if (const char *v = env("UNUM_URL_MAP"))
    cfg.urlMapPath = v;
  cfg.listenAt =
      std::string("127.0.0.1:") + (env("PORT") ? env("PORT") : "8080");
  if (const char *v = env("UNUM_LISTEN"))
    cfg.listenAt = v;
  std::string concurrency =
      env("UNUM_CONCURRENCY") ? env("UNUM_CONCURRENCY") : "";
  std::string maxBody = env("UNUM_MAX_BODY") ? env("UNUM_MAX_BODY") : "";
  bool flagFunctions = false, flagPeers = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        std::cerr << "unum-serve: error: " << name << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    auto seconds = [&](const char *name, double max, double &out,
                       bool zero = false) {
      const char *v = value(name);
      if (!parseSeconds(v, max, out, zero)) {
        std::cerr << "unum-serve: error: " << name
                  << ": expected a number of seconds "
                  << (zero ? ">= 0" : "> 0") << ", got '" << v << "'\n";
        std::exit(1);
      }
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--version") {
      std::cout << "unum-serve (Unum) " UNUM_VERSION_STRING
                   "\n  built with MLIR " UNUM_MLIR_VERSION_STRING "\n";
      return 0;
    } else if (arg == "--function") {
      if (!flagFunctions)
        cfg.functions.clear();
      flagFunctions = true;
      cfg.functions.push_back(value("--function"));
    } else if (arg == "--peer") {
      if (!flagPeers)
        cfg.peerEntries.clear();
      flagPeers = true;
      cfg.peerEntries.push_back(value("--peer"));
    } else if (arg == "--listen") {
      cfg.listenAt = value("--listen");
    } else if (arg == "--store") {
      cfg.storeUri = value("--store");
    } else if (arg == "--url-map") {
      cfg.urlMapPath = value("--url-map");
    } else if (arg == "--secret-file") {
      cfg.secretFile = value("--secret-file");
    } else if (arg == "--concurrency") {
      concurrency = value("--concurrency");
    } else if (arg == "--max-body") {
      maxBody = value("--max-body");
    } else if (arg == "--drain-timeout") {
      seconds("--drain-timeout", 3600, cfg.drainSeconds);
    } else if (arg == "--sweep-interval") {
      seconds("--sweep-interval", 3600, cfg.sweepSeconds);
    } else if (arg == "--retain-sessions") {
      seconds("--retain-sessions", 30 * 86400, cfg.retainSeconds,
              /*zero=*/true);
    } else if (arg == "--time-scale") {
      seconds("--time-scale", 1e6, cfg.timeScale);
    } else if (arg == "--timeout") {
      seconds("--timeout", 86400, cfg.timeoutSeconds);
    } else if (arg == "--submit") {
      cfg.submitPath = value("--submit");
    } else if (arg == "--effects") {
      cfg.effectsPath = value("--effects");
    } else if (arg == "--trace") {
      cfg.trace = true;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "unum-serve: error: unknown option '" << arg << "'\n"
                << kUsage;
      return 2;
    } else if (cfg.appDir.empty() || i == 1) {
      cfg.appDir = arg;
    } else {
      std::cerr << "unum-serve: error: unexpected argument '" << arg << "'\n"
                << kUsage;
      return 2;
    }
  }
  if (cfg.appDir.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  if (!concurrency.empty()) {
    char *end = nullptr;
    long n = std::strtol(concurrency.c_str(), &end, 10);
    if (*end || n < 1 || n > 1024)
      return fail("--concurrency: expected 1..1024, got '" + concurrency + "'");
    cfg.concurrency = unsigned(n);
  }
  if (!maxBody.empty()) {
    char *end = nullptr;
    unsigned long long n = std::strtoull(maxBody.c_str(), &end, 10);
    if (*end || n < 1 || n > (1ull << 32))
      return fail("--max-body: expected 1..4294967296, got '" + maxBody + "'");
    cfg.maxBody = size_t(n);
  }
  const bool submitting = !cfg.submitPath.empty();
  if (!submitting && (!cfg.effectsPath.empty()))
    return fail("--effects needs --submit");

  auto app = App::load(cfg.appDir);
  if (!app)
    return fail(app.getStatus().message());
  if (Status s = app->validate(); !s)
    return fail(s.message());
  std::set<std::string> hosted;
  for (const std::string &fn : cfg.functions) {
    if (!app->find(fn))
      return fail("--function: '" + fn + "' is not a function of " +
                  cfg.appDir);
    hosted.insert(fn);
  }
  if (hosted.empty())
    for (const auto &[name, fn] : app->functions())
      hosted.insert(name);

  FunctionUrls peers;
  for (const std::string &e : cfg.peerEntries)
    if (Status s = peers.addEntry(e, "--peer"); !s)
      return fail(s.message());
  if (!cfg.urlMapPath.empty())
    if (Status s = peers.addFile(cfg.urlMapPath); !s)
      return fail(s.message());
  if (Status s = peers.check(*app, cfg.urlMapPath.empty() ? "--peer"
                                                          : "--peer/--url-map");
      !s)
    return fail(s.message());
  auto secret = httpauth::loadSecret(cfg.secretFile);
  if (!secret)
    return fail(secret.getStatus().message());

  // SIGTERM and SIGINT are taken by sigwait in the host's main thread:
  // blocked before any thread starts, so every thread inherits the mask.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  if (!submitting)
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  auto store = openDataStore(cfg.storeUri);
  if (!store)
    return fail(store.getStatus().message());
  if (submitting)
    return submit(cfg, *app, **store, peers, *secret);
  return serve(cfg, *app, **store, peers, *secret, hosted, stopSignals);
}
