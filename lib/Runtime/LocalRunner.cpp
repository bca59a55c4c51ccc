//===- LocalRunner.cpp - Running an application in one process ------------===//

#include "unum/Runtime/Runtime.h"

#include <iostream>

using namespace unum::runtime;

class LocalRunner::Collector final : public Observer {
public:
  Collector(bool traceOn, std::function<void(const std::string &)> log)
      : traceOn(traceOn), log(std::move(log)) {}

  void terminal(const std::string &session, const std::string &instance,
                const Value &output) override {
    std::lock_guard<std::mutex> lock(mu);
    results[session].outputs[instance] = output;
  }
  void failed(const std::string &session, const std::string &,
              const std::string &, const std::string &message) override {
    std::lock_guard<std::mutex> lock(mu);
    results[session].errors.push_back(message);
  }
  bool tracing() const override { return traceOn; }
  void trace(const std::string &line) override {
    if (traceOn)
      debug(line);
  }
  void debug(const std::string &line) override {
    std::lock_guard<std::mutex> lock(mu);
    if (log)
      log(line);
    else
      std::cerr << "[unum] " << line << "\n";
  }

  RunResult take(const std::string &session) {
    std::lock_guard<std::mutex> lock(mu);
    RunResult r = std::move(results[session]);
    results.erase(session);
    r.session = session;
    return r;
  }

private:
  bool traceOn;
  std::function<void(const std::string &)> log;
  std::mutex mu;
  std::map<std::string, RunResult> results;
};

Result<Payload> unum::runtime::startPayload(const Value &input) {
  bool isPayload = input.isObject() && input.find("Data");
  if (isPayload)
    for (const Value::Member &m : input.getObject())
      if (m.first != "Data" && m.first != "Session" && m.first != "Fan-out" &&
          m.first != "GC")
        isPayload = false;
  if (isPayload)
    return decodePayload(input);
  Payload p;
  p.value = input;
  return p;
}

LocalRunner::LocalRunner(const App &app, DataStore &store, Options options)
    : app(app), store(store), opts(std::move(options)) {
  collector = std::make_unique<Collector>(opts.trace, opts.log);
  pool = std::make_unique<ThreadPoolInvoker>(opts.workers, opts.maxDeliveries);
  RuntimeOptions ro = opts.runtime;
  ro.observer = collector.get();
  rt = std::make_unique<Runtime>(app, store,
                                 opts.platform ? *opts.platform : *pool, ro);
  pool->setDispatch([this](const std::string &fn, const Payload &p) {
    return rt->handle(fn, p);
  });
  pool->setOnFailure(
      [this](const std::string &fn, const Payload &p, const Status &s) {
        // Errors were reported by the runtime; only give-ups are new here.
        if (s.isCrash())
          collector->failed(p.session, fn, "",
                            "function '" + fn + "' (instance " +
                                instanceName(fn, p.fanout) +
                                "): crashed on every delivery: " + s.message());
      });
}

LocalRunner::~LocalRunner() {
  pool.reset(); // joins the workers before the runtime goes away
}

Result<std::string> LocalRunner::start(const Value &input) {
  auto p = startPayload(input);
  if (!p)
    return p.getStatus();
  std::vector<std::string> starts = app.startFunctions();
  if (starts.empty())
    return Status::error("the application has no start function");
  if (starts.size() > 1) {
    std::string names;
    for (const std::string &s : starts)
      names += (names.empty() ? "" : ", ") + s;
    return Status::error("the application has several start functions (" +
                         names + ")");
  }
  if (p->session.empty()) {
    p->session = newSessionId();
    p->fresh = true; // a new session has no checkpoints
  }
  std::string session = p->session;
  Invoker &platform = opts.platform ? *opts.platform : *pool;
  if (Status s = platform.invoke(starts[0], p.take()); !s)
    return s;
  return session;
}

void LocalRunner::wait() { pool->wait(); }

RunResult LocalRunner::result(const std::string &session) {
  return collector->take(session);
}

RunResult LocalRunner::run(const Value &input, bool keepSession) {
  auto session = start(input);
  if (!session) {
    RunResult r;
    r.errors.push_back(session.getStatus().message());
    return r;
  }
  wait();
  RunResult r = result(*session);
  if (r.ok()) {
    // A fan-in that never completed leaves a pending set: say so.
    auto st = store.stats(*session);
    if (!st) {
      r.errors.push_back(st.getStatus().message());
    } else {
      for (const DataStore::PendingSet &p : st->pendingSets) {
        if (p.count >= p.expected)
          continue; // complete, just not consumed (gc off)
        std::string target = p.set.substr(0, p.set.find('|'));
        r.errors.push_back("fan-in to '" + target + "' never completed: " +
                           std::to_string(p.count) + " of " +
                           std::to_string(p.expected) + " inputs arrived");
      }
    }
  }
  if (r.ok() && opts.runtime.gc && !keepSession)
    if (Status s = store.deleteSession(*session); !s)
      r.errors.push_back(s.message());
  return r;
}
