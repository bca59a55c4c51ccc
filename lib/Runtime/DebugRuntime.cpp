//===- DebugRuntime.cpp - "Debug": true functions, traced -----------------===//

#include "DebugRuntime.h"
#include "AppInternal.h"
#include "DataStoreInternal.h"
#include "PayloadInternal.h"

#include <chrono>
#include <cstdio>
#include <mutex>
#include <unistd.h>

using namespace unum::runtime;

namespace {
using Clock = std::chrono::steady_clock;

std::string ms(Clock::duration d) {
  double us = std::chrono::duration<double, std::micro>(d).count();
  char buf[32];
  if (us < 1000)
    std::snprintf(buf, sizeof(buf), "%.0f us", us);
  else
    std::snprintf(buf, sizeof(buf), "%.2f ms", us / 1000);
  return buf;
}

/// A value for a log line: its JSON, cut at a few hundred bytes.
std::string excerpt(std::string_view json) {
  constexpr size_t kMax = 300;
  if (json.size() <= kMax)
    return std::string(json);
  return std::string(json.substr(0, kMax)) + "... (" +
         std::to_string(json.size()) + " bytes)";
}

/// The invocation of a Debug function that this thread is running: what
/// the store wrapper and the step hook add to. (A stack: a platform may run
/// an invocation inside another's thread.)
struct Scope {
  std::string instance;
  Clock::time_point start = Clock::now();
  Clock::duration store{};
  unsigned storeOps = 0;
  Clock::time_point userStart;
  Clock::duration storeAtUserStart{};
  Clock::duration user{};
  bool ranUser = false;
  Scope *prev = nullptr;
};
thread_local Scope *current = nullptr;

std::string recordKind(const std::optional<std::string> &rec) {
  if (!rec)
    return "none";
  if (rec->empty())
    return "empty record";
  std::string data = " " + excerpt(std::string_view(*rec).substr(1));
  switch ((*rec)[0]) {
  case record::Output:
    return "output" + data;
  case record::Keep:
    return "output (read by several fan-ins)" + data;
  case record::Failed:
    return "error" + data;
  case record::Done:
    return "tombstone (finished)";
  }
  return "unknown record";
}

std::string names(NameList list) {
  std::string s;
  for (const std::string &n : list)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}

const Status &statusOf(const Status &s) { return s; }
template <typename T> const Status &statusOf(const Result<T> &r) {
  return r.getStatus();
}
} // namespace

/// "[unum] <line>" on stderr in one write, so that concurrent invocations
/// do not interleave.
static void writeToStderr(const std::string &line) {
  static std::mutex mu;
  std::string out = "[unum] " + line + "\n";
  std::lock_guard<std::mutex> lock(mu);
  for (size_t done = 0; done < out.size();) {
    ssize_t w = ::write(2, out.data() + done, out.size() - done);
    if (w <= 0)
      break;
    done += size_t(w);
  }
}

void Observer::debug(const std::string &line) { writeToStderr(line); }

/// Forwards to the runtime's store, timing each operation and reporting it
/// under the current Debug instance.
class DebugRuntime::TimingStore final : public DataStore {
public:
  TimingStore(DebugRuntime &owner, DataStore &inner)
      : owner(owner), inner(inner) {}

  std::string describe() const override { return inner.describe(); }

  Result<std::optional<std::string>> get(const std::string &session,
                                         const std::string &instance) override {
    return timed(
        "get " + instance, [&] { return inner.get(session, instance); },
        [](const auto &r) { return recordKind(*r); });
  }
  Result<std::vector<std::optional<std::string>>>
  getMany(const std::string &session,
          const std::vector<std::string> &instances) override {
    return timed(
        "getMany " + std::to_string(instances.size()) + " records",
        [&] { return inner.getMany(session, instances); },
        [](const auto &r) {
          size_t found = 0;
          for (const auto &rec : *r)
            found += rec.has_value();
          return std::to_string(found) + " found";
        });
  }
  Result<PutResult> putIfAbsent(const std::string &session,
                                const std::string &instance, std::string record,
                                const std::vector<Effect> &effects,
                                NameList retire) override {
    return timed(
        "putIfAbsent " + instance,
        // A copy: the report below shows the record that was written.
        [&] {
          return inner.putIfAbsent(session, instance, record, effects, retire);
        },
        [&](const auto &r) {
          std::string s = r->won
                              ? "written, " + std::to_string(effects.size()) +
                                    " effect(s) committed"
                              : "lost to an existing record";
          if (!retire.empty())
            s += ", retired " + names(retire);
          return s + "; " + recordKind(r->won ? record : r->record);
        });
  }
  Status retire(const std::string &session, NameList instances) override {
    return timedStatus("retire " + names(instances),
                       [&] { return inner.retire(session, instances); });
  }
  Result<AddResult> addToSet(const std::string &session, const std::string &set,
                             const std::string &member,
                             size_t expected) override {
    return timed(
        "addToSet " + set,
        [&] { return inner.addToSet(session, set, member, expected); },
        [&](const auto &r) {
          std::string count =
              std::to_string(r->count) + "/" + std::to_string(expected);
          switch (r->state) {
          case AddResult::Pending:
            return count + " members";
          case AddResult::Completer:
            return count + " members, this one completes the set";
          case AddResult::Consumed:
            return std::string("already consumed");
          }
          return count;
        });
  }
  Status consumeSet(const std::string &session,
                    const std::string &set) override {
    return timedStatus("consumeSet " + set,
                       [&] { return inner.consumeSet(session, set); });
  }
  Status appendEffects(const std::string &session,
                       const std::vector<Effect> &effects) override {
    return timedStatus("appendEffects (" + std::to_string(effects.size()) +
                           " effect(s))",
                       [&] { return inner.appendEffects(session, effects); });
  }
  Result<std::vector<Effect>> effects(const std::string &session) override {
    return inner.effects(session);
  }
  Status put(const std::string &session, const std::string &key,
             const std::string &value) override {
    return detail::StoreAccess::put(inner, session, key, value);
  }
  Result<Stats> stats(const std::string &session) override {
    return inner.stats(session);
  }
  Status deleteSession(const std::string &session) override {
    return inner.deleteSession(session);
  }

private:
  /// Runs `op`, adds its time to the current instance, and reports
  /// "store <what>: <describe(result)> (<time>)".
  template <typename Op, typename Describe>
  auto timed(const std::string &what, Op op, Describe describe)
      -> decltype(op()) {
    Clock::time_point t0 = Clock::now();
    auto r = op();
    Clock::duration d = Clock::now() - t0;
    Scope *s = current;
    if (s) {
      s->store += d;
      ++s->storeOps;
    }
    std::string outcome = r ? describe(r) : "failed: " + statusOf(r).message();
    owner.emit((s ? s->instance : std::string("?")) + ": store " + what + " (" +
               ms(d) + "): " + outcome);
    return r;
  }
  template <typename Op> Status timedStatus(const std::string &what, Op op) {
    return timed(what, op, [](const Status &) { return std::string("done"); });
  }

  DebugRuntime &owner;
  DataStore &inner;
};

/// The companion runtime's observer: results go to the runtime's own
/// observer, trace lines to the debug output.
class DebugRuntime::Tracer final : public Observer {
public:
  explicit Tracer(const DebugRuntime &owner) : owner(owner) {}
  void terminal(const std::string &session, const std::string &instance,
                const Value &output) override {
    if (owner.outer)
      owner.outer->terminal(session, instance, output);
  }
  void failed(const std::string &session, const std::string &function,
              const std::string &instance,
              const std::string &message) override {
    if (owner.outer)
      owner.outer->failed(session, function, instance, message);
  }
  bool tracing() const override { return true; }
  void trace(const std::string &line) override { owner.emit(line); }

private:
  const DebugRuntime &owner;
};

std::unique_ptr<DebugRuntime>
DebugRuntime::forApp(const App &app, DataStore &store, Invoker &invoker,
                     const RuntimeOptions &options) {
  if (!detail::AppAccess::debugs(app)) // (not a walk over every config)
    return nullptr;
  return std::make_unique<DebugRuntime>(app, store, invoker, options);
}

DebugRuntime::DebugRuntime(const App &app, DataStore &store, Invoker &invoker,
                           const RuntimeOptions &options)
    : app(app), outer(options.observer),
      timed(std::make_unique<TimingStore>(*this, store)),
      tracer(std::make_unique<Tracer>(*this)) {
  RuntimeOptions ro = options;
  ro.observer = tracer.get();
  // The step boundaries bracket the user code: its time is what passes
  // between them, less the store operations in between (a fan-in's read).
  ro.fault = [this, outerFault = options.fault](const StepPoint &p) {
    Scope *s = current;
    if (s && p.step == Step::BeforeUserCode) {
      s->userStart = Clock::now();
      s->storeAtUserStart = s->store;
    } else if (s && p.step == Step::AfterUserCode) {
      s->user = Clock::now() - s->userStart - (s->store - s->storeAtUserStart);
      s->ranUser = true;
      emit(s->instance + ": user code ran (" + ms(s->user) + ")");
    }
    return outerFault && outerFault(p);
  };
  rt.reset(new Runtime(app, *timed, invoker, std::move(ro),
                       Runtime::WithoutDebug{}));
}

DebugRuntime::~DebugRuntime() = default;

void DebugRuntime::emit(const std::string &line) const {
  if (outer)
    outer->debug(line);
  else
    writeToStderr(line);
}

Status DebugRuntime::handle(const std::string &function,
                            const Payload &payload) {
  Scope scope;
  scope.instance = instanceName(function, payload.fanout);
  if (const FunctionSpec *fn = app.find(function); fn && fn->config.loop) {
    // The name the runtime gives it (its counters advanced on entry).
    std::vector<FanOutLevel> levels = payload.fanout;
    int64_t visit = payload.visit;
    enterLoop(*fn->config.loop, visit, levels);
    scope.instance = instanceName(function, levels) +
                     visitSuffix(*fn->config.loop, visit, levels);
  }
  scope.prev = current;
  current = &scope;
  std::string what = "start in ";
  what +=
      payload.session.empty() ? "a new session" : "session " + payload.session;
  if (payload.source == Payload::Source::Checkpoint && payload.value.isArray())
    what += ", fan-in of " + std::to_string(payload.value.getArray().size()) +
            " checkpoint(s)";
  if (detail::hints(payload).fresh)
    what += ", first delivery (no checkpoint lookup)";
  if (payload.source == Payload::Source::Http)
    what += "; input " + excerpt(toJson(payload.value));
  emit(scope.instance + ": " + what);

  Status s = rt->handle(function, payload);

  std::string took = ms(Clock::now() - scope.start);
  std::string totals = "user code ";
  totals += scope.ranUser ? ms(scope.user) : std::string("not run");
  totals += ", " + std::to_string(scope.storeOps) + " store operation(s) " +
            ms(scope.store);
  if (s.isOk())
    emit(scope.instance + ": done in " + took + " (" + totals + ")");
  else if (s.isCrash())
    emit(scope.instance + ": crashed after " + took + " (" + totals +
         "), to be delivered again: " + s.message());
  else
    emit(scope.instance + ": failed after " + took + " (" + totals +
         "): " + s.message());
  current = scope.prev;
  return s;
}
