//===- unum-run.cpp - Run a compiled Unum application locally -------------===//
//
//   unum-run APPDIR --input FILE|- [--store memory|sqlite:PATH|redis://H:P]
//            [--workers N] [--trace] [--no-gc] [--crash-rate P [--seed N]]
//            [--effects FILE] [--session NAME | --new]
//            [--invoker inproc|http [--listen HOST:PORT] [--url-map FILE]
//                                   [--secret-file FILE] [--max-body BYTES]]
//   unum-run APPDIR --resume SESSION --store sqlite:PATH|redis://H:P ...
//
// Loads APPDIR/<Function>/{unum_config.json, handler}, starts the workflow at
// the start function with the input (a payload {"Data": ...} or a bare JSON
// value), runs it on a local thread pool over the chosen data store, and
// prints the terminal outputs as one JSON object keyed by instance name.
// With --invoker http every invocation is an HTTP POST of the wire payload
// to the function's URL; unum-run serves POST /fn/<Function> itself, and
// says which of the instances it sent to other endpoints never came back
// (exit 3).
//
// On a persistent store (sqlite, redis) the run is durable (LocalRunner): a
// killed run is finished by `--resume SESSION`, or by running the same
// command again, which finds the unfinished session of the same input and
// resumes it (saying so); --new starts a new session instead.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/HttpAuth.h"
#include "unum/Runtime/HttpServer.h"
#include "unum/Runtime/Runtime.h"
#include "unum/Version.h"

#include "Progress.h"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include <unistd.h>

using namespace unum::runtime;

static const char *const kUsage =
    "usage: unum-run APPDIR --input FILE|- [--store memory|sqlite:PATH|"
    "redis://HOST:PORT]\n"
    "                [--workers N] [--trace] [--no-gc] [--crash-rate P "
    "[--seed N]]\n"
    "                [--time-scale X] [--effects FILE] [--invoker inproc|http "
    "[--listen "
    "HOST:PORT]\n"
    "                [--url-map FILE] [--secret-file FILE] [--max-body "
    "BYTES]]\n"
    "                [--session NAME | --new]\n"
    "       unum-run APPDIR --resume SESSION --store sqlite:PATH|"
    "redis://HOST:PORT [...]\n"
    "\n"
    "Runs the application in APPDIR (one directory per function, each with "
    "its\n"
    "unum_config.json and an executable `handler` that reads its input as "
    "JSON\n"
    "on stdin and writes its output as JSON on stdout) and prints the outputs\n"
    "of the terminal instances as one JSON object keyed by instance name.\n"
    "\n"
    "  --input FILE|-   the workflow input: a payload {\"Data\": {\"Value\": "
    "...}}\n"
    "                   or any other JSON value (used as the input itself)\n"
    "  --store URI      memory (default), sqlite:PATH or redis://HOST:PORT\n"
    "                   (redis: ?timeout=SECONDS per command, default 5)\n"
    "                   or dynamodb://HOST:PORT/TABLE (?region=R, ?create=1;\n"
    "                   credentials from AWS_ACCESS_KEY_ID and\n"
    "                   AWS_SECRET_ACCESS_KEY; docs/Deploy.md)\n"
    "  --resume S       finish session S, which a stopped run left in the\n"
    "                   store (sqlite or redis): its pending invocations run\n"
    "                   again, every effect is still committed once, and the\n"
    "                   outputs are those of the whole session\n"
    "  --session NAME   name the new session (letters, digits, '-', '_')\n"
    "  --new            start a new session even if the store holds an\n"
    "                   unfinished one of the same input (which a plain\n"
    "                   rerun resumes)\n"
    "  --workers N      worker threads (default 4)\n"
    "  --trace          print each step to stderr, each line stamped with the\n"
    "                   seconds since the run started (functions with\n"
    "                   \"Debug\": true print theirs, timed, in any case)\n"
    "  --no-gc          keep checkpoints and completion sets\n"
    "  --crash-rate P   fault injection: crash each step boundary of each\n"
    "                   instance with probability P (0..0.9), once; crashed\n"
    "                   invocations are delivered again; --seed N picks\n"
    "                   the boundaries\n"
    "  --time-scale X   multiply every real wait (Wait states, Retry\n"
    "                   intervals) by X > 0 (default 1; tests use 0.001)\n"
    "  --effects FILE   write the side effects the run committed (staged by\n"
    "                   handlers on UNUM_EFFECTS_FD) to FILE as a JSON\n"
    "                   object of instance name -> list of effects\n"
    "  --invoker KIND   inproc (default): invocations go straight to the\n"
    "                   workers; http: each one is an HTTP POST of the JSON\n"
    "                   payload to the function's URL, and unum-run serves\n"
    "                   POST /fn/<Function> for the app's functions\n"
    "  --listen H:P     where unum-run serves (http; default 127.0.0.1:0,\n"
    "                   any free port)\n"
    "  --url-map FILE   (http) a JSON object of function name -> URL; \"*\"\n"
    "                   is a template for the others, {function} standing\n"
    "                   for the name; unlisted functions go to unum-run's\n"
    "                   own http://H:P/fn/<Function>\n"
    "  --secret-file F  (http) sign every request with the shared secret in\n"
    "                   F (at least 16 bytes; default: $UNUM_HTTP_SECRET)\n"
    "                   and refuse unsigned ones; required to --listen\n"
    "                   beyond loopback\n"
    "  --max-body N     (http) the largest request body served, in bytes\n"
    "                   (default 6291456)\n"
    "  --version        print Unum's version and the MLIR it was built with\n"
    "\n"
    "On a terminal, a run longer than a second shows its progress on stderr\n"
    "(invocations started and finished, fan-ins completed, time elapsed).\n"
    "\n"
    "On sqlite or redis every invocation is journaled in the store with the\n"
    "checkpoint that issues it: a run that is killed leaves a session that\n"
    "--resume (or the same command again) finishes, and a session is\n"
    "reported done only when all of its work is.\n"
    "\n"
    "Exit status: 0 done; 1 the workflow failed, or a bad value or file;\n"
    "2 an unknown option or a missing argument; 3 (http) instances went to\n"
    "other endpoints and never came back, so what they did is not observed\n"
    "(they are listed on stderr).\n";

static int fail(const std::string &msg) {
  std::cerr << "unum-run: error: " << msg << "\n";
  return 1;
}

/// Function name -> URL, from --url-map: explicit entries, then the "*"
/// template, then unum-run's own gateway.
class UrlMap {
public:
  static Result<UrlMap> load(const std::string &path, const App &app) {
    UrlMap map;
    if (path.empty())
      return map;
    if (Status s = map.urls.addFile(path); !s)
      return s;
    if (Status s = map.urls.check(app, path); !s)
      return s;
    return map;
  }

  std::string operator()(const std::string &gateway,
                         const std::string &function) const {
    std::string url = urls.urlFor(function);
    return url.empty() ? gateway + "/fn/" + function : url;
  }

private:
  FunctionUrls urls;
};

/// --invoker http with a --url-map: the invocations that leave for other
/// endpoints, and those that reach this gateway. An instance sent elsewhere
/// that never came back here (a proxy forwards it back; a deployed function
/// does not) ran outside this process: its output, its failure and the work
/// it continued are not observed here, so the run says so.
class Routes final : public Invoker {
public:
  Routes(std::function<std::string(const std::string &)> urlFor,
         std::string ownPrefix, std::string secret)
      : remote(makeRemoteInvoker(urlFor, 30000, std::move(secret))),
        urlFor(std::move(urlFor)), ownPrefix(std::move(ownPrefix)) {}

  Status invoke(const std::string &function, Payload &&payload) override {
    std::string url = urlFor(function);
    if (url.rfind(ownPrefix, 0) != 0) {
      std::lock_guard<std::mutex> lock(mu);
      sent[function].url = url;
      sent[function].instances.insert(instanceName(function, payload.fanout));
    }
    return remote->invoke(function, std::move(payload));
  }
  bool blocking() const override { return true; }
  void setOnRefusal(OnRefusal onRefusal) override {
    remote->setOnRefusal(std::move(onRefusal));
  }

  void arrived(const std::string &function, const Payload &payload) {
    std::lock_guard<std::mutex> lock(mu);
    came.insert(instanceName(function, payload.fanout));
  }

  struct Away {
    std::string url;
    std::set<std::string> instances;
  };
  /// Per function, the instances sent elsewhere that never came back.
  std::map<std::string, Away> unobserved() const {
    std::lock_guard<std::mutex> lock(mu);
    std::map<std::string, Away> away;
    for (const auto &[fn, s] : sent)
      for (const std::string &i : s.instances)
        if (!came.count(i)) {
          away[fn].url = s.url;
          away[fn].instances.insert(i);
        }
    return away;
  }

private:
  /// An http:// host or an arn:aws:lambda: function (makeRemoteInvoker).
  std::unique_ptr<Invoker> remote;
  std::function<std::string(const std::string &)> urlFor;
  std::string ownPrefix;
  mutable std::mutex mu;
  std::map<std::string, Away> sent;
  std::set<std::string> came;
};

/// Says on stderr which instances ran elsewhere and were not observed.
static void reportUnobserved(const std::map<std::string, Routes::Away> &away,
                             const App &app, const DataStore &store,
                             const std::string &session) {
  size_t n = 0;
  for (const auto &[fn, a] : away)
    n += a.instances.size();
  std::cerr << "unum-run: warning: " << n
            << " instance(s) went to other endpoints and did not come back "
               "to this gateway before the run ended; their outputs, "
               "failures and the work they continued are not observed here:\n";
  for (const auto &[fn, a] : away) {
    std::cerr << "unum-run: warning:   " << fn << " at " << a.url << ": ";
    size_t shown = 0;
    for (const std::string &i : a.instances) {
      if (shown == 8) {
        std::cerr << " and " << a.instances.size() - shown << " more";
        break;
      }
      std::cerr << (shown++ ? ", " : "") << i;
    }
    const FunctionSpec *spec = app.find(fn);
    if (spec && spec->config.next.empty())
      std::cerr << " (terminal: missing from the outputs)";
    std::cerr << "\n";
  }
  if (store.describe() != "memory")
    std::cerr << "unum-run: warning: session " << session
              << " is kept in the store for the work that may still run "
                 "there\n";
}

/// --session NAME must name a session the store does not hold yet.
static Status sessionIsNew(DataStore &store, const std::string &session) {
  auto st = store.stats(session);
  auto pending = store.outbox(session);
  if (!st || !pending)
    return st ? pending.getStatus() : st.getStatus();
  if (st->records || st->effects || st->consumedSets ||
      !st->pendingSets.empty() || !pending->empty())
    return Status::error("--session: " + store.describe() +
                         " already holds session '" + session +
                         "' (finish it with --resume " + session + ")");
  return Status::ok();
}

/// The process a session's run record names, if it is still running.
static bool ownerAlive(const Value &run) {
  const Value *pid = run.find("pid");
  if (!pid || !pid->isInt() || pid->getInt() <= 0 ||
      pid->getInt() == int64_t(getpid()))
    return false;
  return kill(pid_t(pid->getInt()), 0) == 0 || errno == EPERM;
}

/// A plain rerun: the unfinished session that an earlier run of the same
/// input left (resumed unless --new), after saying so; other unfinished
/// sessions are pointed out. Empty: start a new session.
static Result<std::string> findUnfinished(DataStore &store, const Value &input,
                                          bool forceNew) {
  auto sessions = store.unfinishedSessions();
  if (!sessions)
    return sessions.getStatus();
  std::string same;
  std::vector<std::string> others, running;
  const std::string want = toJson(input);
  for (const std::string &s : *sessions) {
    auto recs = store.scan(s, "run");
    if (!recs)
      return recs.getStatus();
    std::optional<Value> run;
    if (!recs->empty())
      if (auto v = parseJsonValue(recs->front().second, "session record"))
        run = v.take();
    const Value *in = run ? run->find("input") : nullptr;
    if (run && ownerAlive(*run))
      running.push_back(s);
    else if (same.empty() && !forceNew && in && toJson(*in) == want)
      same = s;
    else
      others.push_back(s);
  }
  auto list = [](const std::vector<std::string> &v) {
    std::string out;
    for (size_t i = 0; i < v.size() && i < 8; ++i)
      out += (i ? ", " : "") + v[i];
    if (v.size() > 8)
      out += " and " + std::to_string(v.size() - 8) + " more";
    return out;
  };
  if (!same.empty())
    std::cerr << "unum-run: resuming session " << same
              << ": an earlier run of this input stopped before it finished "
                 "(--new starts another session instead)\n";
  if (!running.empty())
    std::cerr << "unum-run: note: " << store.describe() << " holds "
              << running.size()
              << " session(s) that another unum-run is working on: "
              << list(running) << "\n";
  if (!others.empty())
    std::cerr << "unum-run: note: " << store.describe() << " holds "
              << others.size()
              << " other unfinished session(s): " << list(others)
              << " (finish one with --resume SESSION)\n";
  return same;
}

/// After a failed run on a persistent store: what is left and what to do.
static void tellHowToResume(DataStore &store, const std::string &session) {
  auto pending = store.outbox(session);
  if (!pending) {
    std::cerr << "unum-run: session " << session << " is kept in "
              << store.describe()
              << ", which cannot be read now: once it answers, finish the "
                 "session with --resume "
              << session << "\n";
    return;
  }
  size_t left = 0;
  for (const DataStore::Pending &p : *pending)
    left += !p.function.empty(); // (not the report's own entry)
  if (left)
    std::cerr << "unum-run: session " << session << " is kept in "
              << store.describe() << " with " << left
              << " pending invocation(s): finish it with --resume " << session
              << "\n";
}

int main(int argc, char **argv) {
  std::string appDir, inputPath, storeUri = "memory";
  std::string invokerKind = "inproc", listenAt = "127.0.0.1:0", urlMapPath;
  std::string effectsPath, resumeSession, newSession, secretFile;
  size_t maxBody = HttpServerOptions().maxBody;
  unsigned workers = 4;
  bool trace = false, gc = true, forceNew = false;
  double crashRate = 0;
  double timeScale = 1;
  unsigned long seed = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        std::cerr << "unum-run: error: " << name << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--version") {
      std::cout << "unum-run (Unum) " UNUM_VERSION_STRING
                   "\n  built with MLIR " UNUM_MLIR_VERSION_STRING "\n";
      return 0;
    } else if (arg == "--input") {
      inputPath = value("--input");
    } else if (arg == "--store") {
      storeUri = value("--store");
    } else if (arg == "--workers") {
      const char *v = value("--workers");
      char *end = nullptr;
      long n = std::strtol(v, &end, 10);
      if (*end || n < 1 || n > 1024)
        return fail(std::string("--workers: expected 1..1024, got '") + v +
                    "'");
      workers = unsigned(n);
    } else if (arg == "--invoker") {
      invokerKind = value("--invoker");
      if (invokerKind != "inproc" && invokerKind != "http")
        return fail("--invoker: expected inproc or http, got '" + invokerKind +
                    "'");
    } else if (arg == "--listen") {
      listenAt = value("--listen");
    } else if (arg == "--url-map") {
      urlMapPath = value("--url-map");
    } else if (arg == "--secret-file") {
      secretFile = value("--secret-file");
    } else if (arg == "--max-body") {
      const char *v = value("--max-body");
      char *end = nullptr;
      unsigned long long n = std::strtoull(v, &end, 10);
      if (*end || !*v || n < 1 || n > (1ull << 32))
        return fail(std::string("--max-body: expected 1..4294967296, got '") +
                    v + "'");
      maxBody = size_t(n);
    } else if (arg == "--effects") {
      effectsPath = value("--effects");
    } else if (arg == "--resume") {
      resumeSession = value("--resume");
    } else if (arg == "--session") {
      newSession = value("--session");
      bool good = !newSession.empty() && newSession.size() <= 64;
      for (char c : newSession)
        good &=
            std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
      if (!good)
        return fail("--session: expected 1 to 64 letters, digits, '-' or "
                    "'_', got '" +
                    newSession + "'");
    } else if (arg == "--new") {
      forceNew = true;
    } else if (arg == "--trace") {
      trace = true;
    } else if (arg == "--no-gc") {
      gc = false;
    } else if (arg == "--crash-rate") {
      const char *v = value("--crash-rate");
      char *end = nullptr;
      crashRate = std::strtod(v, &end);
      if (*end || crashRate < 0 || crashRate > 0.9)
        return fail(std::string("--crash-rate: expected 0..0.9, got '") + v +
                    "'");
    } else if (arg == "--time-scale") {
      const char *v = value("--time-scale");
      char *end = nullptr;
      timeScale = std::strtod(v, &end);
      if (*end || !(timeScale > 0) || timeScale > 1e6)
        return fail(std::string("--time-scale: expected a number > 0, got '") +
                    v + "'");
    } else if (arg == "--seed") {
      const char *v = value("--seed");
      char *end = nullptr;
      seed = std::strtoul(v, &end, 10);
      if (*end)
        return fail(std::string("--seed: expected a number, got '") + v + "'");
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      std::cerr << "unum-run: error: unknown option '" << arg << "'\n"
                << kUsage;
      return 2;
    } else if (appDir.empty()) {
      appDir = arg;
    } else {
      std::cerr << "unum-run: error: unexpected argument '" << arg << "'\n"
                << kUsage;
      return 2;
    }
  }
  const bool resuming = !resumeSession.empty();
  if (appDir.empty() || (inputPath.empty() && !resuming)) {
    std::cerr << kUsage;
    return 2;
  }
  if (resuming && (!inputPath.empty() || !newSession.empty() || forceNew))
    return fail("--resume finishes a session with the input it started "
                "with: no --input, --session or --new");
  if (!newSession.empty() && forceNew)
    return fail("--session names a new session already: --new is not needed");

  const bool http = invokerKind == "http";
  if (!http && (!urlMapPath.empty() || listenAt != "127.0.0.1:0" ||
                !secretFile.empty() || maxBody != HttpServerOptions().maxBody))
    return fail("--listen, --url-map, --secret-file and --max-body need "
                "--invoker http");
  size_t colon = listenAt.rfind(':');
  char *portEnd = nullptr;
  long listenPort =
      colon == std::string::npos
          ? -1
          : std::strtol(listenAt.c_str() + colon + 1, &portEnd, 10);
  if (colon == std::string::npos || colon == 0 || *portEnd || listenPort < 0 ||
      listenPort > 65535)
    return fail("--listen: expected HOST:PORT, got '" + listenAt + "'");

  Result<Value> input = Value();
  if (!resuming) {
    auto text = readFileOrStdin(inputPath);
    if (!text)
      return fail("cannot read input '" + inputPath + "'");
    input = parseJsonValue(*text, inputPath == "-" ? "<stdin>" : inputPath);
    if (!input)
      return fail(input.getStatus().message());
  }

  auto app = App::load(appDir);
  if (!app)
    return fail(app.getStatus().message());
  if (Status s = app->validate(); !s)
    return fail(s.message());

  // A bad --effects path is found before the run, not after it.
  if (!effectsPath.empty() && !std::ofstream(effectsPath, std::ios::app))
    return fail("--effects: cannot write '" + effectsPath + "'");

  auto urlMap = UrlMap::load(urlMapPath, *app);
  if (!urlMap)
    return fail(urlMap.getStatus().message());

  auto store = openDataStore(storeUri);
  if (!store)
    return fail(store.getStatus().message());
  if (resuming && !(*store)->persistent())
    return fail("--resume needs the store the session is in (sqlite:PATH or "
                "redis://HOST:PORT); " +
                storeUri + " keeps nothing");
  if (!newSession.empty())
    if (Status s = sessionIsNew(**store, newSession); !s)
      return fail(s.message());
  // A plain rerun on a persistent store: an unfinished session of the same
  // input is resumed, and others are pointed out.
  if (!resuming && newSession.empty() && (*store)->persistent()) {
    auto found = findUnfinished(**store, *input, forceNew);
    if (!found)
      return fail(found.getStatus().message());
    resumeSession = found.take();
  }

  // --invoker http: the gateway accepts POST /fn/<Function> (202) and runs
  // the payload on the runner's workers (LocalRunner::admit), as a FaaS
  // platform accepts an asynchronous invocation; the runner's invocations
  // are POSTs.
  std::atomic<LocalRunner *> runner{nullptr};
  std::unique_ptr<HttpServer> gateway;
  std::unique_ptr<Routes> routes;
  std::atomic<Routes *> arrivals{nullptr};
  if (http) {
    auto secret = httpauth::loadSecret(secretFile);
    if (!secret)
      return fail(secret.getStatus().message());
    HttpServerOptions serverOptions;
    serverOptions.secret = *secret;
    serverOptions.maxBody = maxBody;
    const App &a = *app;
    auto server = HttpServer::listen(
        listenAt.substr(0, colon), int(listenPort),
        [&a, &runner, &arrivals](const std::string &path,
                                 const std::string &body) -> HttpServer::Reply {
          std::string fn = path.rfind("/fn/", 0) == 0 ? path.substr(4) : "";
          if (fn.empty() || !a.find(fn))
            return {{404, "no function at '" + path + "'"}};
          auto v = parseJsonValue(body, "payload");
          if (!v)
            return {{400, v.getStatus().message()}};
          auto p = decodePayload(*v);
          if (!p)
            return {{400, p.getStatus().message()}};
          LocalRunner *r = runner.load();
          if (!r)
            return {{503, "not running a workflow"}};
          if (Routes *routes = arrivals.load())
            routes->arrived(fn, *p);
          // Accepted (journaled when durable) before the 202, then run on
          // this connection's thread when a worker slot is free, as
          // unum-serve does; the runner's wait() counts it from here on.
          std::function<void()> run;
          if (Status s = r->admit(fn, p.take(), run); !s)
            return {{503, s.message()}};
          return {{202, ""}, std::move(run)};
        },
        serverOptions);
    if (!server) {
      std::string msg = server.getStatus().message();
      if (msg.find("without a shared secret") != std::string::npos)
        msg += " (give one with --secret-file or $" +
               std::string(httpauth::kSecretEnv) + ")";
      return fail(msg);
    }
    gateway = server.take();
    std::string base = gateway->url();
    routes = std::make_unique<Routes>(
        [base, map = *urlMap](const std::string &fn) { return map(base, fn); },
        base + "/fn/", *secret);
    arrivals = routes.get();
  }

  LocalRunner::Options opts;
  opts.workers = workers;
  opts.trace = trace;
  const auto runBegin = std::chrono::steady_clock::now();
  if (trace)
    // Seconds since the run started: where the time of a slow run goes.
    opts.log = [runBegin](const std::string &line) {
      double secs = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - runBegin)
                        .count();
      char stamp[32];
      std::snprintf(stamp, sizeof stamp, "[unum %.6f] ", secs);
      std::cerr << stamp << line << "\n";
    };
  opts.runtime.gc = gc;
  opts.platform = routes.get();
  opts.runtime.timeScale = timeScale;
  // Each step boundary of each instance crashes with probability P, decided
  // by a hash of the seed and the boundary (so a seed gives the same crashes
  // whatever the threads' interleaving), and at most once: the redelivery
  // gets past it, as it would past a real crash that does not recur. So
  // every run finishes, whatever P and however many boundaries it has.
  std::mutex crashedMutex;
  std::set<std::string> crashed;
  if (crashRate > 0) {
    opts.maxDeliveries = 1u << 20; // each boundary crashes once at most
    opts.runtime.fault = [&, seed, crashRate](const StepPoint &p) {
      std::string boundary =
          p.instance + "/" + stepName(p.step) + "/" + std::to_string(p.k);
      uint64_t h = std::hash<std::string>{}(boundary) ^
                   (uint64_t(seed) * 0x9E3779B97F4A7C15ull);
      h ^= h >> 33; // a finaliser: the hash's low bits need not be uniform
      h *= 0xFF51AFD7ED558CCDull;
      h ^= h >> 33;
      if (double(h >> 11) * 0x1p-53 >= crashRate)
        return false;
      std::lock_guard<std::mutex> lock(crashedMutex);
      if (!crashed.insert(boundary).second)
        return false;
      if (trace)
        opts.log(p.instance + ": injected crash at " + stepName(p.step));
      return true;
    };
  }
  RunResult result;
  {
    std::optional<unum::run::Progress> progress; // outlives the runner
    LocalRunner local(*app, **store, opts);
    // On a terminal, a long run redraws a progress line (not with --trace:
    // the trace is the progress then).
    if (!trace && unum::run::Progress::stderrIsTerminal()) {
      progress.emplace(*app);
      progress->observe(local);
      progress->draw(std::cerr, std::chrono::seconds(1),
                     std::chrono::milliseconds(250));
    }
    runner = &local;
    // The session is deleted below, once the effects are read and only if
    // no work went elsewhere.
    result = resumeSession.empty()
                 ? local.run(*input, /*keepSession=*/true, newSession)
                 : local.resume(resumeSession, /*keepSession=*/true);
    gateway.reset(); // joins the server: no request reaches a gone runner
    runner = nullptr;
  }
  std::map<std::string, Routes::Away> away;
  if (routes)
    away = routes->unobserved();
  if (!effectsPath.empty() && !result.session.empty())
    // Written for a failed run too: what was committed stays committed.
    if (Status s = writeEffectsFile(**store, result.session, effectsPath); !s)
      result.errors.push_back(s.message());
  if (!result.ok()) {
    for (const std::string &e : result.errors)
      std::cerr << "unum-run: error: " << e << "\n";
    if (!away.empty())
      reportUnobserved(away, *app, **store, result.session);
    else if (!result.session.empty() && (*store)->persistent())
      tellHowToResume(**store, result.session);
    return 1;
  }
  Value out = Value::object();
  for (auto &[instance, output] : result.outputs)
    out.set(instance, output);
  std::cout << toJson(out, /*pretty=*/true) << std::endl;
  if (!away.empty()) {
    reportUnobserved(away, *app, **store, result.session);
    return 3;
  }
  // Deleted only once the outputs are out: a run killed before this point
  // leaves the session to a rerun, which reports it again.
  if (gc)
    if (Status d = (*store)->deleteSession(result.session); !d)
      return fail(d.message());
  return 0;
}
