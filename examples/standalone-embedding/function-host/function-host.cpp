//===- function-host.cpp - Runtime::handle with the host's own invoker ----===//
//
//   function-host APPDIR STORE N
//
// What a FaaS function host does per invocation, in one process: the host
// receives a payload for a function and hands it to Runtime::handle, which
// runs the protocol (checkpoint lookup, user code, conditional put,
// continuations, garbage collection) against the store; every continuation
// comes back to the host through its Invoker. Here the "platform" is a
// queue drained on one thread, and the store is any URI openDataStore takes
// ("memory", "sqlite:PATH", "redis://HOST:PORT", ...). A Crash status (a
// failed store operation, say) means "deliver the same payload again",
// as a FaaS platform retries an invocation.
//
//===----------------------------------------------------------------------===//
#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/Invoker.h"
#include "unum/Runtime/Payload.h"
#include "unum/Runtime/Runtime.h"

#include "SumOfSquares.h"

#include <cstdlib>
#include <deque>
#include <iostream>

using namespace unum::runtime;

/// The platform's asynchronous invoke: queue the payload for later.
class QueueInvoker final : public Invoker {
public:
  Status invoke(const std::string &function, Payload &&payload) override {
    queue.emplace_back(function, std::move(payload));
    return Status::ok();
  }
  std::deque<std::pair<std::string, Payload>> queue;
};

/// Where the workflow's results and failures go.
class Print final : public Observer {
public:
  void terminal(const std::string &session, const std::string &instance,
                const Value &output) override {
    std::cout << instance << ": " << toJson(output) << "\n";
  }
  void failed(const std::string &session, const std::string &function,
              const std::string &instance,
              const std::string &message) override {
    std::cerr << "function-host: " << instance << " failed: " << message
              << "\n";
  }
};

static int fail(const std::string &message) {
  std::cerr << "function-host: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return fail("usage: function-host APPDIR STORE N");
  Result<App> app = App::load(argv[1]);
  if (!app)
    return fail(app.getStatus().message());
  if (Status s = sum_of_squares::setHandlers(*app); !s)
    return fail(s.message());
  Result<std::unique_ptr<DataStore>> store = openDataStore(argv[2]);
  if (!store)
    return fail(store.getStatus().message());

  // The App, the store, the invoker and the observer outlive the Runtime.
  QueueInvoker platform;
  Print print;
  RuntimeOptions options;
  options.observer = &print;
  Runtime runtime(*app, **store, platform, options);

  // The start: the input as a start payload in a new session.
  Result<Payload> start = startPayload(Value(int64_t(std::atoi(argv[3]))));
  if (!start)
    return fail(start.getStatus().message());
  const std::string session = start->session = newSessionId();
  (void)platform.invoke(app->startFunctions().at(0), start.take());

  unsigned steps = 0, redeliveries = 0;
  while (!platform.queue.empty()) {
    auto [function, payload] = std::move(platform.queue.front());
    platform.queue.pop_front();
    ++steps;
    Status s = runtime.handle(function, payload);
    if (s.isCrash() && ++redeliveries <= 3) {
      platform.queue.emplace_back(function, std::move(payload));
      continue;
    }
    if (!s)
      return fail(s.message());
  }
  std::cout << steps << " invocations on "
            << (*store)->describe() << "\n";
  // With garbage collection on, the session left only tombstones.
  Result<DataStore::Stats> left = (*store)->stats(session);
  if (left)
    std::cout << "records holding data: " << left->dataRecords << "\n";
  return (*store)->deleteSession(session) ? 0 : 1;
}
