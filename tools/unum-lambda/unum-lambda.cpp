//===- unum-lambda.cpp - An AWS Lambda custom runtime for Unum functions --===//
//
// Deployed as the `bootstrap` of a function's package (provided.al2023
// runtime), next to the application's directories. It speaks the Lambda
// Runtime API (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html)
// at $AWS_LAMBDA_RUNTIME_API:
//
//   GET  /2018-06-01/runtime/invocation/next          the next event
//   POST /2018-06-01/runtime/invocation/ID/response   it was handled
//   POST /2018-06-01/runtime/invocation/ID/error      it was not (retry)
//   POST /2018-06-01/runtime/init/error               cannot start
//
// Each event is a Unum payload ({"Data": ..., "Session": ...}; the start
// function also takes a bare input) for the function named by $_HANDLER (or
// $UNUM_FUNCTION) of the application in $LAMBDA_TASK_ROOT (or $UNUM_APP). It
// runs the Unum runtime for that function with the handler, the store of
// $UNUM_STORE, and continuations to the URLs of $UNUM_PEERS / $UNUM_URL_MAP
// (as unum-serve). What it answers:
//
//   * done, or the workflow failed here (the failure is recorded in the
//     store, as unum-run and unum-serve record it): /response with
//     {"Session": ..., "Function": ...} (and "Failed": message);
//   * the runtime crashed (a store or a continuation that could not be
//     reached): /error, errorType Unum.Crash, so that Lambda's asynchronous
//     retry delivers the event again (the checkpoint protocol makes that
//     safe);
//   * an event that is not a payload: /error, errorType Unum.BadPayload.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/HttpAuth.h"
#include "unum/Runtime/Invoker.h"
#include "unum/Runtime/Runtime.h"
#include "unum/Version.h"

#include <chrono>
#include <climits>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>

using namespace unum::runtime;

static const char *const kUsage =
    "usage: unum-lambda   (as the `bootstrap` of an AWS Lambda custom "
    "runtime)\n"
    "\n"
    "Runs one function of a compiled Unum application on AWS Lambda: takes\n"
    "events from the Lambda Runtime API and runs the Unum runtime for each.\n"
    "Configured by the environment:\n"
    "  AWS_LAMBDA_RUNTIME_API  HOST:PORT of the Runtime API (set by Lambda)\n"
    "  _HANDLER                the function's name (the package's handler\n"
    "                          setting; or UNUM_FUNCTION)\n"
    "  LAMBDA_TASK_ROOT        the application directory (or UNUM_APP)\n"
    "  UNUM_STORE              the store the app's functions share\n"
    "                          (redis://HOST:PORT, ...; default memory)\n"
    "  UNUM_PEERS, UNUM_URL_MAP  where the other functions are served\n"
    "                          (NAME=URL,...; a JSON file), as unum-serve\n"
    "  UNUM_HTTP_SECRET        the secret continuations are signed with\n"
    "  UNUM_TIME_SCALE         multiply real waits by this (tests)\n"
    "\n"
    "Exit status: 1 when it cannot start (reported to /runtime/init/error)\n"
    "or the Runtime API goes away; it does not exit otherwise.\n";

static const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

static std::string errorBody(const std::string &type,
                             const std::string &message) {
  Value e = Value::object();
  e.set("errorMessage", message);
  e.set("errorType", type);
  e.set("stackTrace", Value::array());
  return toJson(e);
}

namespace {
/// The Runtime API at HOST:PORT.
class RuntimeApi {
public:
  explicit RuntimeApi(std::string hostPort)
      : base("http://" + std::move(hostPort) + "/2018-06-01/runtime") {}

  /// Blocks until Lambda has an event.
  Result<HttpResponse> next() {
    // The long poll has no deadline of ours: Lambda freezes the sandbox
    // while there is nothing to do.
    return httpRequest("GET", base + "/invocation/next", "", {}, INT_MAX, "",
                       kMaxEvent);
  }
  Status respond(const std::string &id, const std::string &body) {
    return post("/invocation/" + id + "/response", body, "");
  }
  Status error(const std::string &id, const std::string &type,
               const std::string &message) {
    return post("/invocation/" + id + "/error", errorBody(type, message), type);
  }
  Status initError(const std::string &type, const std::string &message) {
    return post("/init/error", errorBody(type, message), type);
  }

  /// Synchronous invocations carry up to 6 MB; the headroom is HTTP's.
  static constexpr size_t kMaxEvent = 7 * 1024 * 1024;

private:
  Status post(const std::string &path, const std::string &body,
              const std::string &errorType) {
    std::vector<std::pair<std::string, std::string>> headers{
        {"Content-Type", "application/json"}};
    if (!errorType.empty())
      headers.emplace_back("Lambda-Runtime-Function-Error-Type", errorType);
    auto r = httpRequest("POST", base + path, body, headers, 30000);
    if (!r)
      return r.getStatus();
    if (r->status != 202)
      return Status::error("the Runtime API answered " + base + path +
                           " with HTTP " + std::to_string(r->status) + ": " +
                           r->body);
    return Status::ok();
  }
  std::string base;
};
} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--version") {
      std::cout << "unum-lambda (Unum) " UNUM_VERSION_STRING
                   "\n  built with MLIR " UNUM_MLIR_VERSION_STRING "\n";
      return 0;
    }
    std::cerr << "unum-lambda: error: unexpected argument '" << arg
              << "' (it is configured by the environment)\n"
              << kUsage;
    return 2;
  }
  const char *api = env("AWS_LAMBDA_RUNTIME_API");
  if (!api) {
    std::cerr << "unum-lambda: error: AWS_LAMBDA_RUNTIME_API is not set: "
                 "this is the bootstrap of a Lambda custom runtime\n";
    return 1;
  }
  RuntimeApi lambda(api);
  auto initFailed = [&](const std::string &message) {
    std::cerr << "unum-lambda: error: " << message << "\n";
    if (Status s = lambda.initError("Unum.InitError", message); !s)
      std::cerr << "unum-lambda: error: " << s.message() << "\n";
    return 1;
  };

  // The configuration, as unum-serve reads it from the environment.
  const char *fnName = env("_HANDLER") ? env("_HANDLER") : env("UNUM_FUNCTION");
  const char *appDir =
      env("LAMBDA_TASK_ROOT") ? env("LAMBDA_TASK_ROOT") : env("UNUM_APP");
  if (!fnName)
    return initFailed("no function: set the handler (_HANDLER) or "
                      "UNUM_FUNCTION to the function's name");
  if (!appDir)
    return initFailed("no application: LAMBDA_TASK_ROOT or UNUM_APP must "
                      "name its directory");
  auto app = App::load(appDir);
  if (!app)
    return initFailed(app.getStatus().message());
  if (Status s = app->validate(); !s)
    return initFailed(s.message());
  const std::string function = fnName;
  const FunctionSpec *spec = app->find(function);
  if (!spec)
    return initFailed("'" + function + "' (_HANDLER) is not a function of " +
                      appDir);
  FunctionUrls peers;
  if (const char *v = env("UNUM_PEERS")) {
    std::istringstream in(v);
    for (std::string entry; std::getline(in, entry, ',');)
      if (!entry.empty())
        if (Status s = peers.addEntry(entry, "UNUM_PEERS"); !s)
          return initFailed(s.message());
  }
  if (const char *v = env("UNUM_URL_MAP"))
    if (Status s = peers.addFile(v); !s)
      return initFailed(s.message());
  if (Status s = peers.check(*app, "UNUM_PEERS"); !s)
    return initFailed(s.message());
  auto secret = httpauth::loadSecret("");
  if (!secret)
    return initFailed(secret.getStatus().message());
  auto store = openDataStore(env("UNUM_STORE") ? env("UNUM_STORE") : "memory");
  if (!store)
    return initFailed(store.getStatus().message());

  // Continuations: every function is elsewhere (its own Lambda function, or
  // a host), this one included (a loop's next visit is a new event).
  HttpInvoker continuations(
      [&peers](const std::string &fn) { return peers.urlFor(fn); }, 30000,
      *secret);
  LocalRunner::Options opts;
  opts.workers = 1;
  opts.platform = &continuations;
  opts.keepResults = false;
  if (const char *v = env("UNUM_TIME_SCALE"))
    opts.runtime.timeScale = std::strtod(v, nullptr) > 0
                                 ? std::strtod(v, nullptr)
                                 : opts.runtime.timeScale;
  // Events are not journaled here (the runner's pool is not used): Lambda's
  // event queue is the inbox, an event stays there until /response, and
  // /error retries it. Terminal outputs and failures are recorded in a
  // persistent store, as unum-serve records them.
  opts.durable = true;
  LocalRunner runner(*app, **store, opts);
  std::cerr << "unum-lambda: serving '" << function << "' on "
            << (*store)->describe() << "\n";

  for (unsigned apiFailures = 0;;) {
    auto event = lambda.next();
    if (!event || event->status != 200) {
      std::string why = event ? "HTTP " + std::to_string(event->status)
                              : event.getStatus().message();
      std::cerr << "unum-lambda: error: next invocation: " << why << "\n";
      if (++apiFailures == 5)
        return 1; // the Runtime API is gone: the sandbox is ending
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    apiFailures = 0;
    std::string id = event->header("lambda-runtime-aws-request-id");
    if (id.empty()) {
      std::cerr << "unum-lambda: error: an event without "
                   "Lambda-Runtime-Aws-Request-Id\n";
      return 1;
    }
    Status answered;
    auto v = parseJsonValue(event->body, "event");
    auto p = !v                   ? Result<Payload>(v.getStatus())
             : spec->config.start ? startPayload(*v)
                                  : decodePayload(*v);
    if (p && p->session.empty() && !spec->config.start)
      p = Status::error("a payload for '" + function + "' needs a Session");
    if (!p) {
      answered = lambda.error(id, "Unum.BadPayload", p.getStatus().message());
    } else {
      if (p->session.empty())
        p->session = newSessionId();
      std::string session = p->session;
      Status s = runner.runtime().handle(function, *p);
      if (s.isCrash()) {
        answered = lambda.error(id, "Unum.Crash", s.message());
      } else {
        Value ack = Value::object();
        ack.set("Session", session);
        ack.set("Function", function);
        if (!s)
          ack.set("Failed", s.message());
        answered = lambda.respond(id, toJson(ack));
      }
    }
    if (!answered)
      std::cerr << "unum-lambda: error: " << answered.message() << "\n";
  }
}
