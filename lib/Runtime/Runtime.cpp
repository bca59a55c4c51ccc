//===- Runtime.cpp - One function's step of a decentralised workflow ------===//

#include "unum/Runtime/Runtime.h"
#include "HotPath.h"

#include "unum/Runtime/Evaluator.h"

#include "AppInternal.h"
#include "DebugRuntime.h"
#include "InvokerInternal.h"
#include "Paths.h"
#include "PayloadInternal.h"
#include "StateEntry.h"
#include "StateInput.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

using namespace unum::runtime;
namespace config = unum::config;
using unum::config::Edge;
using unum::config::EdgeKind;
using unum::runtime::detail::FunctionNode;

Observer::~Observer() = default;
const char *unum::runtime::stepName(Step step) {
  switch (step) {
  case Step::BeforeUserCode:
    return "before-user-code";
  case Step::AfterUserCode:
    return "after-user-code";
  case Step::AfterSaveInput:
    return "after-save-input";
  case Step::AfterCheckpoint:
    return "after-checkpoint";
  case Step::AfterInvoke:
    return "after-invoke";
  case Step::BeforeFanInAdd:
    return "before-fan-in-add";
  case Step::AfterFanInAdd:
    return "after-fan-in-add";
  case Step::BeforeRetire:
    return "before-retire";
  case Step::AfterRetryRecord:
    return "after-retry-record";
  }
  return "?";
}

/// Runtime's state and the protocol's steps. The public class holds only a
/// pointer to this, allocated once with the Runtime: an invocation costs
/// one load and one direct call more, no allocation.
struct Runtime::Impl {
  Impl(const App &app, DataStore &store, Invoker &invoker,
       RuntimeOptions options)
      : app(app), store(store), invoker(invoker), opts(std::move(options)) {}

  Status handle(const std::string &function, const Payload &payload);
  Status handleJson(const std::string &function, const std::string &json);

  struct Invocation;
  class Sends;
  struct FanIn;
  Status run(Invocation &inv);
  static void nameVisit(Invocation &inv, const std::string &function);
  Status continuations(Invocation &inv);
  Status chainStep(Invocation &inv, const FunctionNode &target);
  static void fillChainPayload(Payload &p, Invocation &inv,
                               const FunctionNode &target, bool handOff);
  Status chainInvoke(Invocation &inv, const FunctionNode &target, bool handOff);
  // What a plain chain step does not need stays out of run() and
  // continuations(), so that a step's hot code is small (HotPath.h).
  Status adoptRecord(Invocation &inv, const std::string &rec, bool &finished,
                     const char *ifDone, const char *ifAdopted);
  Status readCheckpoint(Invocation &inv, bool &reused, bool &finished);
  struct FanInInputs;
  Status gatherFanIn(Invocation &inv, FanInInputs &in, bool &reused,
                     bool &finished);
  Status execute(Invocation &inv, const Value &effective);
  Status attempt(Invocation &inv, const Value &effective, HandlerResult &hr);
  Status resumeRetries(Invocation &inv, const Value &effective);
  Status retryOrFail(Invocation &inv, const Value &effective, HandlerResult &hr,
                     unsigned done = 0, std::vector<int64_t> counts = {});
  // The context object's fixed values (lib/Runtime/StateEntry.h).
  Status enterContext(Invocation &inv);
  // A Map or Parallel state's input, for a sink whose ResultPath applies to
  // it: only functions with SaveInput / StateInput call these.
  Status saveStateInput(Invocation &inv, const Value &effective);
  Status loadStateInput(Invocation &inv, FanInInputs &in, bool &reused,
                        bool &finished);
  // A Map or Parallel state whose iteration or branch failed (a fan-in
  // input is a failure): its Retry re-enters it, or it fails.
  Status stateFailed(Invocation &inv, FanInInputs &in);
  Status reenterState(Invocation &inv);
  Result<bool> errorEdgeTaken(const Invocation &inv, const EvalEnv &env) const;
  Status failure(Invocation &inv, const HandlerResult &hr,
                 const Value &effective);
  Result<Value> caught(Invocation &inv, const config::Edge &e);
  void traceRetry(const Invocation &inv, unsigned attempt,
                  const HandlerResult &hr, double delay) const;
  Result<char> recordFlag(const Invocation &inv) const;
  Status lostRace(Invocation &inv, const std::string &winner, bool &finished);
  static bool endsHere(const Invocation &inv);
  bool defersPut(const Invocation &inv) const;
  Status commitDeferred(Invocation &inv, Sends *sends, bool &finished,
                        bool &restart);
  Status commitUnchecked(const std::vector<Effect> &effects,
                         const std::string &session, NameList retire);
  Status addMapSends(Invocation &inv, const config::Edge &e,
                     const FunctionNode *targetSpec,
                     const std::vector<FanOutLevel> &post, Sends &sends);
  Status nextIteration(Invocation &inv);
  Status addFanIn(Invocation &inv, const config::Edge &e,
                  const FunctionNode *targetSpec, const EvalEnv &env,
                  const std::vector<FanOutLevel> &post,
                  std::vector<FanIn> &fanIns);
  Status reportFanIns(Invocation &inv, std::vector<FanIn> &fanIns,
                      const std::vector<FanOutLevel> &post);
  Status finishTerminal(Invocation &inv);
  static Status invokeConcurrently(Invoker &invoker, Sends &sends,
                                   unsigned bound);
  /// True if the fault hook crashes the step here. (The test that there
  /// is a hook is inline: without one a boundary costs a compare.)
  bool crashAt(Step step, const std::string &instance, unsigned k = 0) const {
    return opts.fault && injectCrash(step, instance, k);
  }
  bool injectCrash(Step step, const std::string &instance, unsigned k) const;
  bool tracing() const;
  void trace(const Invocation &inv, const std::string &msg) const;

  const App &app;
  DataStore &store;
  Invoker &invoker;
  RuntimeOptions opts;
  DataFlow defaultFlow;
  /// Runs the functions with "Debug": true, reporting their steps; null when
  /// the app has none (lib/Runtime/DebugRuntime.h).
  std::unique_ptr<DebugRuntime> debugRt;
};

struct Runtime::Impl::Invocation {
  const FunctionNode *fn = nullptr;
  const Payload *payload = nullptr;
  Context ctx;
  // The session is the payload's (a start function's is new) and the
  // instance name is the function's own unless it has fan-out levels: the
  // strings are borrowed, not copied; the context views them.
  const std::string *sessionName = nullptr;
  const std::string *instanceName = nullptr;
  const std::string &session() const { return *sessionName; }
  const std::string &instance() const { return *instanceName; }
  /// The instance's fan-out levels and top visit counter: the payload's, or,
  /// for a function with "Loop", `looped` (its scope's counter advanced).
  const std::vector<FanOutLevel> *levels = nullptr;
  int64_t visit = 0;
  struct Looped {
    std::vector<FanOutLevel> levels;
    std::string suffix; // "-unumVisit-...": on its name and its fan-ins'
  };
  bool failed = false; // `output` is an error object
  Value output;
  /// This execution ran the user code on a fresh payload and won its put:
  /// the invocations it issues are fresh too.
  bool fresh = false;
  /// A fan-in target's inputs (run() owns them).
  FanInInputs *fanIn = nullptr;
  /// The checkpoint put that run() left to continuations(), so that the
  /// continuations sent to other hosts are journaled with it
  /// (commitDeferred). What it refers to is run()'s.
  struct DeferredPut {
    std::string record;
    const std::vector<Effect> *effects = nullptr;
    NameList retire;
  };
  /// What only some steps have: made by more() on first use, so that a
  /// plain step neither builds nor destroys it (a few dozen instructions).
  struct Rare {
    std::string newSession, levelledName;
    std::optional<Looped> looped;
    /// The execution's fields that a start function fixed (else the
    /// payload's, passed on as they came).
    std::shared_ptr<const Value> started;
    /// Records of values fixed at first entry (StateEntry.h), retired with
    /// the checkpoint, and the EnteredTime once read.
    std::vector<std::string> pinned;
    std::optional<std::string> entered;
    std::optional<DeferredPut> deferred;
    /// The Map items that a function with ItemSelector made before its
    /// checkpoint (so that a failure is the step's, which Retry and Catch
    /// see); a redelivery that reuses the checkpoint makes them again.
    std::optional<Value::Array> items;
  };
  std::optional<Rare> rare;
  Rare &more() { return rare ? *rare : rare.emplace(); }

  const std::string &visitSuffix() const {
    static const std::string none;
    return rare && rare->looped ? rare->looped->suffix : none;
  }
  const std::shared_ptr<const Value> &execution() const {
    return rare && rare->started ? rare->started : payload->execution;
  }
  bool hasPinned() const { return rare && !rare->pinned.empty(); }
  bool deferred() const { return rare && rare->deferred; }
};

Runtime::Runtime(const App &app, DataStore &store, Invoker &invoker,
                 RuntimeOptions options)
    : impl(std::make_unique<Impl>(app, store, invoker, std::move(options))) {
  impl->debugRt = DebugRuntime::forApp(app, store, invoker, impl->opts);
}

Runtime::Runtime(const App &app, DataStore &store, Invoker &invoker,
                 RuntimeOptions options, WithoutDebug)
    : impl(std::make_unique<Impl>(app, store, invoker, std::move(options))) {}

Runtime::~Runtime() = default;

const RuntimeOptions &Runtime::options() const { return impl->opts; }

UNUM_HOT Status Runtime::handle(const std::string &function,
                                const Payload &payload) {
  return impl->handle(function, payload);
}

Status Runtime::handleJson(const std::string &function,
                           const std::string &json) {
  return impl->handleJson(function, json);
}

bool Runtime::Impl::injectCrash(Step step, const std::string &instance,
                                unsigned k) const {
  return opts.fault(StepPoint{step, instance, k});
}

UNUM_HOT bool Runtime::Impl::tracing() const {
  return opts.observer && opts.observer->tracing();
}

void Runtime::Impl::trace(const Invocation &inv, const std::string &msg) const {
  opts.observer->trace(inv.instance() + ": " + msg);
}

static Status crash(const void *, Step step) {
  return Status::crash(std::string("injected crash ") + stepName(step));
}

/// Store failures are transient as far as the runtime can tell: the
/// platform delivers the invocation again.
static Status storeFailure(const Status &s, const std::string &what) {
  return Status::crash(what + ": " + s.message());
}

static Result<std::pair<bool, Value>> decodeRecord(const std::string &rec,
                                                   const std::string &name) {
  if (rec.empty() || (rec[0] != record::Output && rec[0] != record::Keep &&
                      rec[0] != record::Failed))
    return Status::error("checkpoint of '" + name + "' is not a record");
  auto v = parseJsonValue(std::string_view(rec).substr(1),
                          "checkpoint of '" + name + "'");
  if (!v)
    return v.getStatus();
  return std::make_pair(rec[0] == record::Failed, v.take());
}

/// Continues with a checkpoint found in the store (a retry's own, or that of
/// a duplicate that won the race) in place of running the user code.
static Status adopt(const std::string &rec, const std::string &name,
                    bool &failed, Value &output) {
  auto decoded = decodeRecord(rec, name);
  if (!decoded)
    return decoded.getStatus();
  failed = decoded->first;
  output = std::move(decoded->second);
  return Status::ok();
}

namespace {
/// dst = src. A payload reused by InvokerAccess::stage mostly holds a name of
/// the same length already (the session; the previous step's name): then the
/// bytes are copied in place, without a call into libstdc++.
inline void copyName(std::string &dst, const std::string &src) {
  if (dst.size() == src.size())
    std::memcpy(dst.data(), src.data(), src.size());
  else
    dst = src;
}

struct Send {
  const std::string *target = nullptr; // the edge's name, in the config
  Payload p;
  bool carriesOutput = false; // p.value is filled in after the edges
};

} // namespace

/// The continuations of one step, all built before any is issued. Most
/// steps have exactly one: it lives inline, so a step allocates no list.
class Runtime::Impl::Sends {
public:
  Send &add(const std::string &target, const FunctionNode *spec,
            const std::string &session, bool fresh, bool carriesOutput,
            const std::shared_ptr<const Value> &execution) {
    Send &s = n++ == 0 ? first : rest.emplace_back();
    s.target = &target;
    detail::hints(s.p).target = spec;
    s.p.session = session;
    s.p.execution = execution;
    detail::hints(s.p).fresh = fresh;
    s.carriesOutput = carriesOutput;
    return s;
  }
  void reserve(size_t total) {
    if (total > 1)
      rest.reserve(total - 1);
  }
  size_t size() const { return n; }
  bool empty() const { return n == 0; }
  Send &operator[](size_t k) { return k == 0 ? first : rest[k - 1]; }

private:
  size_t n = 0;
  Send first;
  std::vector<Send> rest;
};

/// A blocking invoker (HTTP): issues `sends` with at most `bound` in
/// flight. (Out of line: it would bloat every step's code.)
Status Runtime::Impl::invokeConcurrently(Invoker &invoker, Sends &sends,
                                         unsigned bound) {
  std::atomic<size_t> next{0};
  std::mutex mu;
  Status first;
  unsigned width =
      std::max(1u, std::min<unsigned>(bound, unsigned(sends.size())));
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < width; ++t)
    threads.emplace_back([&] {
      for (size_t k; (k = next++) < sends.size();) {
        Status s = invoker.invoke(*sends[k].target, std::move(sends[k].p));
        if (!s) {
          std::lock_guard<std::mutex> lock(mu);
          if (first.isOk())
            first = s.withContext("invoking '" + *sends[k].target + "'");
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  return first;
}

/// Whether a function's Next list is a parallel fan-out, and whether an
/// edge of it is one of the branches (each adding a level). Several
/// unconditional Scalar entries are branches, and so is a one-edge list's
/// (a one-branch Parallel); a lone Scalar entry beside fan-in or error edges
/// is a chain, and conditional Scalar entries are alternatives (a lowered
/// Choice), so neither adds a level.
static bool isBranchEdge(const Edge &e) {
  return e.kind == EdgeKind::Scalar && !e.conditional;
}
static int64_t branchCount(const config::FunctionConfig &cfg) {
  return std::count_if(cfg.next.begin(), cfg.next.end(), isBranchEdge);
}
static bool isParallel(const config::FunctionConfig &cfg, int64_t branches) {
  return branches > 1 ||
         (cfg.nextIsList && cfg.next.size() == 1 && branches == 1);
}

namespace {
/// Where a Map edge's instances are collected: the fan-in target that an
/// empty map continues to directly, with no inputs.
struct MapClosing {
  const FunctionNode *target = nullptr;
  std::vector<FanOutLevel> fanout; // the target's levels
};
} // namespace

/// Finds the fan-in that collects the instances of a Map edge to
/// `mapTarget`, from the mapper's outgoing levels `post`: the first fan-in
/// in the map body (followed through chains, branches and inner maps) whose
/// tail's modifiers drop the map's level. None if the body just ends. An
/// empty map has no instances to report to that fan-in's completion set, so
/// the mapper invokes its target itself, with an empty input list, as Step
/// Functions continues an empty Map with []. (Rare: kept out of line so
/// that it does not weigh on every step's code.)
[[gnu::noinline, gnu::cold]] static Result<std::optional<MapClosing>>
findMapClosing(const App &app, const std::string &mapTarget,
               const std::vector<FanOutLevel> &post) {
  struct Visit {
    const FunctionNode *fn;
    unsigned inner; // levels inside the map's own
  };
  std::vector<Visit> work;
  std::set<std::pair<const FunctionNode *, unsigned>> seen;
  auto visit = [&](const FunctionNode *fn, unsigned inner) {
    if (fn && inner + 1 + post.size() <= kMaxFanOutDepth &&
        seen.insert({fn, inner}).second)
      work.push_back({fn, inner});
  };
  visit(detail::AppAccess::node(app, mapTarget), 0);
  std::optional<MapClosing> found;
  while (!work.empty()) {
    Visit v = work.back();
    work.pop_back();
    const config::FunctionConfig &cfg = v.fn->config;
    long pops = 0;
    bool assigns = false;
    for (const config::Modifier &m : cfg.modifiers) {
      pops += m.kind == config::Modifier::Kind::Pop;
      assigns |= m.kind != config::Modifier::Kind::Pop;
    }
    const long after = long(v.inner) - pops; // < 0: the map's level is gone
    const bool parallel = isParallel(cfg, branchCount(cfg));
    for (size_t i = 0; i < cfg.next.size(); ++i) {
      const Edge &e = cfg.next[i];
      const FunctionNode *target = i < v.fn->targets.size() && v.fn->targets[i]
                                       ? v.fn->targets[i]
                                       : detail::AppAccess::node(app, e.target);
      if (after >= 0) {
        unsigned level =
            e.kind == EdgeKind::Map || (parallel && isBranchEdge(e));
        visit(target, unsigned(after) + level);
        continue;
      }
      if (e.kind != EdgeKind::FanIn || !target)
        continue; // leaves the map without collecting it
      if (assigns)
        return Status::error("its fan-in to '" + e.target +
                             "' rewrites "
                             "levels with modifiers that need an output");
      // The tail's levels: those inside the map, the map's own (no
      // items), then the mapper's.
      std::vector<FanOutLevel> tail(v.inner, FanOutLevel{"Map", 0, 0});
      tail.push_back(FanOutLevel{"Map", 0, 0});
      tail.insert(tail.end(), post.begin(), post.end());
      EvalEnv env{nullptr, &tail};
      auto values = resolveFanIn(e.values, env);
      if (!values)
        return values.getStatus().withContext("fan-in to '" + e.target + "'");
      if (values->count != 0)
        return Status::error("the fan-in to '" + e.target +
                             "' also waits for other instances (" +
                             values->key + ")");
      MapClosing c{target, std::vector<FanOutLevel>(
                               tail.begin() +
                                   std::min<size_t>(tail.size(), size_t(pops)),
                               tail.end())};
      if (found && (found->target != c.target || !(found->fanout == c.fanout)))
        return Status::error("its instances fan in to both '" +
                             found->target->config.name + "' and '" + e.target +
                             "'");
      found = std::move(c);
    }
  }
  return found;
}

Status Runtime::Impl::handleJson(const std::string &function,
                                 const std::string &json) {
  auto fail = [&](const Status &s) {
    if (opts.observer)
      opts.observer->failed("", function, function, s.message());
    return Status::error("function '" + function + "': " + s.message());
  };
  auto v = parseJsonValue(json, "payload");
  if (!v)
    return fail(v.getStatus());
  auto p = decodePayload(*v);
  if (!p)
    return fail(p.getStatus());
  return handle(function, *p);
}

UNUM_HOT Status Runtime::Impl::handle(const std::string &function,
                                      const Payload &payload) {
  Invocation inv;
  inv.payload = &payload;
  const FunctionNode *hint = detail::hints(payload).target;
  // (The pool names a task by its plan's own string: equal addresses.)
  inv.fn =
      hint && detail::AppAccess::owns(app, *hint) &&
              (&hint->plan.name == &function || hint->plan.name == function)
          ? hint
          : detail::AppAccess::node(app, function);
  if (debugRt && inv.fn && inv.fn->plan.debug)
    return debugRt->handle(function, payload);
  inv.levels = &payload.fanout;
  inv.visit = payload.visit;
  if (UNUM_UNLIKELY(inv.fn && inv.fn->plan.loop)) {
    nameVisit(inv, function);
  } else if (payload.fanout.empty()) {
    inv.instanceName = &function;
  } else {
    inv.more().levelledName = instanceName(function, payload.fanout);
    inv.instanceName = &inv.rare->levelledName;
  }
  inv.sessionName = &payload.session;
  Status s;
  if (!inv.fn) {
    s = Status::error("unknown function");
  } else if (!inv.fn->plan.handler) {
    s = Status::error("no handler");
  } else if (inv.session().empty() && !inv.fn->plan.start) {
    s = Status::error("payload has no Session (only a start function "
                      "creates one)");
  } else {
    if (inv.session().empty()) {
      inv.more().newSession = newSessionId();
      inv.sessionName = &inv.rare->newSession;
    }
    inv.ctx.session = inv.session();
    inv.ctx.instance = inv.instance();
    inv.ctx.function = function;
    inv.ctx.timeScale = opts.timeScale;
    if (UNUM_UNLIKELY(inv.fn->plan.timeout))
      inv.ctx.timeout = double(*inv.fn->config.timeoutSeconds) * opts.timeScale;
    if (!inv.levels->empty())
      inv.ctx.fanout = *inv.levels;
    if (UNUM_UNLIKELY(inv.fn->plan.dataFlow || payload.execution ||
                      inv.fn->plan.contextConditions))
      s = enterContext(inv);
    if (s.isOk())
      s = run(inv);
  }
  if (s.isOk() || s.isCrash())
    return s;
  // A named error (a data-flow failure after the checkpoint, such as an
  // ItemsPath that selects no list: States.Runtime) says its name first.
  std::string what = s.message();
  if (const std::string &name = s.errorName();
      !name.empty() && what.compare(0, name.size(), name) != 0)
    what = name + ": " + what;
  std::string msg =
      "function '" + function + "' (instance " + inv.instance() + "): " + what;
  if (opts.observer)
    opts.observer->failed(inv.session(), function, inv.instance(), msg);
  return Status::error(msg);
}

/// The context object's values that are fixed once (StateEntry.h): the
/// execution's, made here by a start function whose payload does not carry
/// them, and the instance's EnteredTime, fixed when first read.
Status Runtime::Impl::enterContext(Invocation &inv) {
  const Payload &payload = *inv.payload;
  if (inv.fn->plan.executionContext && !payload.execution) {
    // The execution starts here. In a session this step created, a
    // redelivery is another execution; in a given one, the first delivery's
    // fields are kept in a record of the start instance (never retired:
    // every later redelivery of this start needs it).
    Invocation::Rare &r = inv.more();
    r.started = detail::newExecution(payload.value, detail::contextTime(opts));
    if (r.newSession.empty()) {
      std::string name = inv.instance() + "#execution";
      std::string rec(1, record::Output);
      appendJson(rec, *r.started);
      auto put = store.putIfAbsent(inv.session(), name, std::move(rec), {}, {});
      if (!put)
        return storeFailure(put.getStatus(), "recording the execution");
      if (!put->won) {
        auto v = decodeRecord(put->record, name);
        if (!v)
          return v.getStatus();
        r.started = std::make_shared<const Value>(std::move(v->second));
      }
    }
  }
  inv.ctx.execution = inv.execution().get();
  if (inv.fn->plan.dataFlow)
    inv.ctx.enteredTime = [this, &inv]() -> Result<std::string> {
      Invocation::Rare &r = inv.more();
      if (!r.entered) {
        auto t = detail::pinEnteredTime(store, inv.session(), inv.instance(),
                                        detail::contextTime(opts), r.pinned);
        if (!t)
          return t;
        r.entered = t.take();
      }
      return *r.entered;
    };
  return Status::ok();
}

/// A function with "Loop" (it can run more than once at the same fan-out
/// indices): its scope's visit counter advances if it loops there, and its
/// name carries the counters, so that each visit is an instance of its own.
void Runtime::Impl::nameVisit(Invocation &inv, const std::string &function) {
  const int64_t loop = *inv.fn->config.loop;
  Invocation::Looped &l = inv.more().looped.emplace();
  l.levels = inv.payload->fanout;
  enterLoop(loop, inv.visit, l.levels);
  l.suffix = visitSuffix(loop, inv.visit, l.levels);
  inv.levels = &l.levels;
  inv.rare->levelledName = instanceName(function, l.levels) + l.suffix;
  inv.instanceName = &inv.rare->levelledName;
}

/// Continues with a record found in the store instead of the user code's
/// result: a retired one means that the instance has finished (`finished`:
/// nothing left to do); otherwise its output is adopted.
Status Runtime::Impl::adoptRecord(Invocation &inv, const std::string &rec,
                                  bool &finished, const char *ifDone,
                                  const char *ifAdopted) {
  if (!rec.empty() && rec[0] == record::Done) {
    if (tracing())
      trace(inv, ifDone);
    finished = true;
    return Status::ok();
  }
  if (Status s = adopt(rec, inv.instance(), inv.failed, inv.output); !s)
    return s;
  if (tracing())
    trace(inv, ifAdopted);
  return Status::ok();
}

/// A continuation's checkpoint found in the store. `finished`: a retired
/// one, so a duplicate of a finished instance that has nothing to do.
Status Runtime::Impl::readCheckpoint(Invocation &inv, bool &reused,
                                     bool &finished) {
  auto rec = store.get(inv.session(), inv.instance());
  if (!rec)
    return storeFailure(rec.getStatus(), "reading checkpoint");
  if (!*rec)
    return Status::ok();
  Status s = adoptRecord(inv, **rec, finished,
                         "duplicate of a finished instance; nothing to do",
                         "reusing its checkpoint; user code skipped");
  reused = s.isOk() && !finished;
  return s;
}

/// What a fan-in target reads before it runs.
struct Runtime::Impl::FanInInputs {
  Value gathered;
  std::vector<std::string> consumed; // the inputs this target retires
  /// The first failed input's error object, in `values` order: an
  /// iteration or branch of the target's Map or Parallel state failed.
  std::optional<Value> failure;
  /// A sink whose state has Retry: its retriers' counts so far.
  std::vector<int64_t> retries;
};

/// A fan-in target's input: its inputs' checkpoints, in `values` order.
/// `in.consumed` gets the inputs it retires once it has checkpointed.
Status Runtime::Impl::gatherFanIn(Invocation &inv, FanInInputs &in,
                                  bool &reused, bool &finished) {
  const Payload &payload = *inv.payload;
  Value &gathered = in.gathered;
  std::vector<std::string> &consumed = in.consumed;
  std::vector<std::string> names;
  for (const Value &n : payload.value.getArray())
    names.push_back(n.getString());
  auto recs = store.getMany(inv.session(), names);
  if (!recs)
    return storeFailure(recs.getStatus(), "reading fan-in inputs");
  gathered = Value::array();
  gathered.getArray().reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const auto &rec = (*recs)[i];
    if (!rec)
      return Status::error("fan-in input '" + names[i] + "' has no checkpoint");
    if (!rec->empty() && (*rec)[0] == record::Done) {
      // Only a target that has written its checkpoint retires its inputs:
      // a concurrent duplicate of this instance won the race.
      if (inv.fn->config.checkpoint) {
        auto own = store.get(inv.session(), inv.instance());
        if (!own)
          return storeFailure(own.getStatus(), "reading checkpoint");
        if (*own) {
          Status s = adoptRecord(
              inv, **own, finished, "a duplicate finished first; nothing to do",
              "a duplicate checkpointed first; continuing with its output");
          reused = s.isOk() && !finished;
          return s;
        }
      }
      return Status::error("fan-in input '" + names[i] +
                           "' was already garbage-collected");
    }
    auto decoded = decodeRecord(*rec, names[i]);
    if (!decoded)
      return decoded.getStatus();
    if ((*rec)[0] != record::Keep)
      consumed.push_back(names[i]);
    if (UNUM_UNLIKELY(decoded->first)) {
      // A failed iteration or branch (its last function reported the
      // failure): the target fails with the first one's error.
      const Value *name = decoded->second.find("Error");
      const Value *cause = decoded->second.find("Cause");
      if (!name || !name->isString() || !cause || !cause->isString())
        return Status::error("fan-in input '" + names[i] +
                             "' failed without an Error and Cause");
      if (!in.failure) {
        Value err = Value::object();
        err.set("Error", *name);
        err.set("Cause", *cause);
        in.failure = std::move(err);
      }
    }
    gathered.push(std::move(decoded->second));
  }
  // A Map or Parallel sink (a fan-in target, even over an empty Map) whose
  // ResultPath applies to its state's input.
  if (UNUM_UNLIKELY(inv.fn->config.stateInput.has_value()))
    return loadStateInput(inv, in, reused, finished);
  return Status::ok();
}

/// A function with SaveInput: stores its effective input, the input of the
/// Map or Parallel state it enters, for the state's sink (StateInput.h).
Status Runtime::Impl::saveStateInput(Invocation &inv, const Value &effective) {
  if (Status s = detail::saveStateInput(store, inv.session(), inv.instance(),
                                        effective);
      !s)
    return s;
  if (tracing())
    trace(inv, "saved its input for " + savedInputName(inv.instance()));
  if (crashAt(Step::AfterSaveInput, inv.instance()))
    return crash(&inv, Step::AfterSaveInput);
  return Status::ok();
}

/// A sink with StateInput: its state's input, which its ResultPath applies
/// to, goes to inv.output until execute() replaces it with the output (so
/// that a step without one pays nothing for a place to keep it); `consumed`
/// gets the record, retired with its checkpoint. If a duplicate checkpointed
/// first (and so retired the record), continue with that checkpoint like
/// gatherFanIn does.
Status Runtime::Impl::loadStateInput(Invocation &inv, FanInInputs &in,
                                     bool &reused, bool &finished) {
  std::optional<std::string> own;
  Status s = detail::loadStateInput(
      store, inv.fn->config, inv.session(), inv.instance(), inv.payload->fanout,
      inv.payload->visit, inv.output, in.consumed, own, &in.retries);
  if (!s || !own)
    return s;
  s = adoptRecord(inv, *own, finished,
                  "a duplicate finished first; nothing to do",
                  "a duplicate checkpointed first; continuing with its output");
  reused = s.isOk() && !finished;
  return s;
}

/// A Map over more items than a fan-in can collect (kMaxFanInInstances)
/// fails its state with States.DataLimitExceeded before any iteration runs:
/// a failure of the state, like its ItemSelector's, which its Catch takes.
/// (A conditional Map edge is checked when it is taken, in addMapSends,
/// which then ends the workflow.)
static bool mapTooLarge(const FunctionNode &fn, size_t items,
                        HandlerResult &hr) {
  if (UNUM_LIKELY(items <= kMaxFanInInstances))
    return false;
  for (const config::Edge &e : fn.config.next)
    if (e.kind == EdgeKind::Map && !e.conditional) {
      hr = HandlerResult::failure(
          "Map edge to '" + e.target + "': " + std::to_string(items) +
              " items, more than a fan-in can collect (" +
              std::to_string(kMaxFanInInstances) + ")",
          "States.DataLimitExceeded");
      return true;
    }
  return false;
}

/// Runs the user code with the config's retries (and the data flow around
/// it when the function has one); sets inv.output / inv.failed. ResultPath
/// applies to `effective`, or, for a sink with StateInput, to its state's
/// input, which loadStateInput() left in inv.output.
UNUM_HOT Status Runtime::Impl::execute(Invocation &inv,
                                       const Value &effective) {
  if (UNUM_UNLIKELY(inv.fanIn && inv.fn->plan.stateInput)) {
    // A Map or Parallel sink: its own data flow (the state's ResultSelector
    // and ResultPath) failing fails the state, as a failed iteration or
    // branch does: the state's Retry runs it again as a new attempt, its
    // Catch sees the state's input.
    HandlerResult hr;
    if (Status s = attempt(inv, effective, hr); !s)
      return s;
    if (hr.ok) {
      inv.output = std::move(hr.output);
      return Status::ok();
    }
    Value err = Value::object();
    err.set("Error", hr.error.empty() ? "States.TaskFailed" : hr.error);
    err.set("Cause", hr.cause);
    inv.fanIn->failure = std::move(err);
    return stateFailed(inv, *inv.fanIn);
  }
  // A redelivered step with Retry may be between attempts.
  if (UNUM_UNLIKELY(inv.fn->plan.retries && !detail::hints(*inv.payload).fresh))
    return resumeRetries(inv, effective);
  // The default data flow is the identity for a function without DataFlow
  // fields: then the user code reads the payload in place and its result
  // is moved, not copied.
  if (UNUM_LIKELY(!opts.dataFlow && !inv.fn->plan.dataFlow)) {
    HandlerResult hr = inv.fn->plan.handler->call(effective, inv.ctx);
    if (UNUM_LIKELY(hr.ok) &&
        !(UNUM_UNLIKELY(hr.output.isArray()) &&
          mapTooLarge(*inv.fn, hr.output.getArray().size(), hr))) {
      inv.output = std::move(hr.output);
      return Status::ok();
    }
    return retryOrFail(inv, effective, hr);
  }
  HandlerResult hr;
  if (Status s = attempt(inv, effective, hr); !s)
    return s;
  return retryOrFail(inv, effective, hr); // (takes a success as it is)
}

/// A step with Retry that may have been delivered before: it goes on after
/// the last attempt its retry records say failed (StateEntry.h), after that
/// retry's wait, with the retriers' counts so far.
Status Runtime::Impl::resumeRetries(Invocation &inv, const Value &effective) {
  detail::Attempts at;
  if (Status s = detail::loadAttempts(store, inv.session(), inv.instance(), at,
                                      inv.more().pinned);
      !s)
    return s;
  if (at.done > 0) {
    if (tracing())
      trace(inv, "resuming after failed attempt " + std::to_string(at.done));
    if (at.delay > 0)
      std::this_thread::sleep_for(
          std::chrono::duration<double>(at.delay * opts.timeScale));
    inv.ctx.attempt = at.done;
  }
  HandlerResult hr;
  if (Status s = attempt(inv, effective, hr); !s)
    return s;
  return retryOrFail(inv, effective, hr, at.done, std::move(at.counts));
}

/// A named error of the data flow around the user code (a Step Functions
/// States.* error) fails the step like the user code's errors do: Retry
/// and Catch see it. Any other failure of the data flow ends the workflow.
static Status stepError(const Status &s, const char *what, HandlerResult &hr) {
  if (s.errorName().empty())
    return s.withContext(what);
  hr = HandlerResult::failure(s.message(), s.errorName());
  return Status::ok();
}

/// One attempt of a step: the data flow in, the user code, the data flow
/// out. A failure of any of them that Retry and Catch may handle goes to
/// `hr`; the returned status is a failure that ends the workflow.
Status Runtime::Impl::attempt(Invocation &inv, const Value &effective,
                              HandlerResult &hr) {
  DataFlow &flow = opts.dataFlow ? *opts.dataFlow : defaultFlow;
  if (!opts.dataFlow && !inv.fn->plan.dataFlow) {
    hr = inv.fn->plan.handler->call(effective, inv.ctx);
    if (hr.ok && hr.output.isArray())
      mapTooLarge(*inv.fn, hr.output.getArray().size(), hr);
    return Status::ok();
  }
  // A Task's TimeoutSecondsPath: the attempt's time limit, from the state's
  // input; anything but a whole number of seconds in 1..a year is
  // States.Runtime.
  if (UNUM_UNLIKELY(inv.fn->config.dataFlow))
    for (const config::Node::Member &m : inv.fn->config.dataFlow->members) {
      if (m.key != "TimeoutSecondsPath")
        continue;
      auto v = dataflow::evaluateField(m.value.text, effective, inv.ctx,
                                       dataflow::stateName(inv.fn->config));
      if (!v || !v->isInt() || v->getInt() < 1 ||
          double(v->getInt()) > Context::kMaxWaitSeconds) {
        hr = HandlerResult::failure(
            "TimeoutSecondsPath '" + m.value.text +
                "' must select a whole number of seconds from 1 to 31536000 "
                "(a year), not " +
                (v ? toJson(*v) : v.getStatus().message()),
            "States.Runtime");
        return Status::ok();
      }
      inv.ctx.timeout = double(v->getInt()) * opts.timeScale;
    }
  // Step Functions applies Parameters per attempt: they may read
  // $$.State.RetryCount or call States.UUID.
  auto in = flow.input(*inv.fn->spec, effective, inv.ctx);
  if (!in)
    return stepError(in.getStatus(), "input", hr);
  hr = inv.fn->plan.handler->call(*in, inv.ctx);
  if (!hr.ok)
    return Status::ok();
  // ResultPath's base: for a sink with StateInput, its state's input, which
  // loadStateInput() left in inv.output.
  const Value &base = inv.fn->config.stateInput ? inv.output : effective;
  auto out = flow.output(*inv.fn->spec, base, hr.output, inv.ctx);
  if (!out)
    return stepError(out.getStatus(), "output", hr);
  hr.output = out.take();
  // A Map state's items, before the checkpoint: the failure of its
  // ItemSelector (States.ParameterPathFailure, States.IntrinsicFailure) or
  // too many items (States.DataLimitExceeded) is the state's, which its
  // Catch takes. Without ItemSelector a list that cannot be selected is
  // reported when the edge is taken (addMapSends), as before.
  if (UNUM_UNLIKELY(inv.fn->config.dataFlow))
    for (const config::Edge &e : inv.fn->config.next) {
      if (e.kind != EdgeKind::Map)
        continue;
      const bool selector = inv.fn->config.dataFlow->find("ItemSelector");
      if (!selector && e.conditional)
        break;
      if (inv.rare)
        inv.rare->items.reset();
      auto items = flow.items(*inv.fn->spec, e, hr.output, inv.ctx);
      if (!items)
        return selector ? stepError(items.getStatus(), "items", hr)
                        : Status::ok();
      if (!mapTooLarge(*inv.fn, items->size(), hr))
        inv.more().items = items.take();
      break;
    }
  return Status::ok();
}

/// States.Runtime ends the execution: no Retry or Catch takes it, not even
/// one that names it (AWS's error-handling documentation: "A States.Runtime
/// error isn't retriable, and will always cause the execution to fail. A
/// retry or catch on States.ALL won't catch States.Runtime errors.").
static bool endsExecution(const std::string &error) {
  return error == "States.Runtime";
}

/// Whether an ErrorEquals list names `error`: States.ALL names any error,
/// and on a Task (`task`) States.TaskFailed any but States.Timeout; neither
/// names States.Runtime. (On a Map or Parallel state States.TaskFailed is
/// just a name: the state's error is its iteration's or branch's.)
static bool errorMatches(const std::vector<std::string> &names,
                         const std::string &error, bool task) {
  if (endsExecution(error))
    return false;
  for (const std::string &n : names)
    if (n == error || n == "States.ALL" ||
        (task && n == "States.TaskFailed" && error != "States.Timeout"))
      return true;
  return false;
}

/// A fraction in [0, 1) that depends only on the instance and the attempt:
/// a redelivered step waits as long as the first delivery did.
static double jitterFraction(const std::string &session,
                             const std::string &instance, unsigned attempt) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s)
      h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  mix(session);
  mix(instance);
  mix(std::to_string(attempt));
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  return double(h >> 11) * 0x1p-53;
}

namespace {
/// The retrier that takes an error, and the wait before the next attempt.
struct RetryPlan {
  size_t retrier;
  double delay; // seconds, before the time scale
};
} // namespace

/// What `retriers` say about `error` after `counts[i]` retries by retrier
/// i: the first whose ErrorEquals names it, if it has attempts left, waiting
/// IntervalSeconds * BackoffRate^count, capped by MaxDelaySeconds, a fraction
/// `jitter` of it with FULL jitter. None: the error stands.
static std::optional<RetryPlan>
planRetry(const std::vector<config::Retrier> &retriers,
          const std::vector<int64_t> &counts, const std::string &error,
          double jitter, bool task) {
  auto r = std::find_if(retriers.begin(), retriers.end(),
                        [&](const config::Retrier &r) {
                          return errorMatches(r.errorEquals, error, task);
                        });
  if (r == retriers.end())
    return std::nullopt;
  size_t i = size_t(r - retriers.begin());
  int64_t count = i < counts.size() ? counts[i] : 0;
  if (count >= r->maxAttempts)
    return std::nullopt;
  double delay = r->intervalSeconds * std::pow(r->backoffRate, double(count));
  if (r->maxDelaySeconds)
    delay = std::min(delay, *r->maxDelaySeconds);
  // BackoffRate^count grows without bound (to inf).
  delay = std::min(delay, Context::kMaxWaitSeconds);
  if (r->fullJitter)
    delay *= jitter;
  return RetryPlan{i, delay};
}

/// The user code (or its data flow) failed: retry it as the function's
/// retriers say ("Retriers": the first whose ErrorEquals names the error,
/// each with its own count, waiting IntervalSeconds * BackoffRate^count,
/// capped by MaxDelaySeconds, a fraction of it with FULL jitter, all scaled
/// by RuntimeOptions::timeScale; or "Retry": n, any error n times at once),
/// then, if it still fails, its output is the error for the error edges.
/// A success (the first attempt's, or a retry's) becomes the output.
Status Runtime::Impl::retryOrFail(Invocation &inv, const Value &effective,
                                  HandlerResult &hr, unsigned done,
                                  std::vector<int64_t> counts) {
  const config::FunctionConfig &cfg = inv.fn->config;
  counts.resize(cfg.retriers.size());
  for (unsigned attempts = done; !hr.ok; ++attempts) {
    if (hr.error.empty())
      hr.error = "States.TaskFailed";
    double delay = 0;
    if (!cfg.retriers.empty()) {
      auto plan =
          planRetry(cfg.retriers, counts, hr.error,
                    jitterFraction(inv.session(), inv.instance(), attempts),
                    /*task=*/true);
      if (!plan)
        break;
      delay = plan->delay;
      ++counts[plan->retrier];
      if (cfg.checkpoint) {
        // Recorded before the wait: a redelivery goes on from here
        // (StateEntry.h); a duplicate that recorded it first wins.
        detail::Attempts at{attempts + 1, std::move(counts), delay};
        if (Status s = detail::saveAttempt(store, inv.session(), inv.instance(),
                                           at, inv.more().pinned);
            !s)
          return s;
        counts = std::move(at.counts);
        counts.resize(cfg.retriers.size());
        delay = at.delay;
        if (UNUM_UNLIKELY(
                crashAt(Step::AfterRetryRecord, inv.instance(), attempts)))
          return crash(&inv, Step::AfterRetryRecord);
      }
    } else if (endsExecution(hr.error) || attempts >= cfg.retry.value_or(0)) {
      break;
    }
    traceRetry(inv, attempts, hr, delay);
    if (delay > 0)
      std::this_thread::sleep_for(
          std::chrono::duration<double>(delay * opts.timeScale));
    inv.ctx.attempt = attempts + 1;
    inv.ctx.effects.clear();
    if (Status s = attempt(inv, effective, hr); !s)
      return s;
  }
  if (hr.ok) {
    inv.output = std::move(hr.output);
    return Status::ok();
  }
  return failure(inv, hr, effective);
}

void Runtime::Impl::traceRetry(const Invocation &inv, unsigned attempt,
                               const HandlerResult &hr, double delay) const {
  if (tracing())
    trace(inv, "attempt " + std::to_string(attempt + 1) + " failed (" +
                   hr.error + ": " + hr.cause + "); retrying" +
                   (delay > 0 ? " in " + std::to_string(delay) + " s" : ""));
}

/// The user code failed for good: its output is the error object that
/// error edges receive. If an error edge places the error in the state's
/// input (a Catch's ResultPath), that input goes along under "Input" (in
/// the checkpoint too, so that a redelivery can do the same).
Status Runtime::Impl::failure(Invocation &inv, const HandlerResult &hr,
                              const Value &effective) {
  inv.failed = true;
  inv.ctx.effects.clear(); // a failed attempt commits nothing
  Value err = Value::object();
  err.set("Error", hr.error.empty() ? "States.TaskFailed" : hr.error);
  err.set("Cause", hr.cause);
  if (inv.fn->plan.catchInput)
    err.set("Input", effective);
  inv.output = std::move(err);
  return Status::ok();
}

/// A failure that is not the function's own (an iteration or branch
/// failed): it fails with it, and passes it on only along "Propagate" edges
/// or its fan-in, never its own Catch. The mark survives in its checkpoint.
static void passOn(bool &failed, Value &output, const Value &error) {
  failed = true;
  Value out = Value::object();
  out.set("Error", *error.find("Error"));
  out.set("Cause", *error.find("Cause"));
  out.set("Propagated", true);
  output = std::move(out);
}

/// A sink (with StateInput) whose fan-in input is a failure: an iteration or
/// branch of its Map or Parallel state failed, so the state fails with that
/// error. With
/// "Retriers" (the state's Retry) the first that takes the error re-enters
/// the state after its wait: the output records the decision (the state's
/// input and the counts, under "Retries") and continuations() acts on it,
/// so that a redelivery does the same. Otherwise the error goes to the
/// error edges (the state's Catch, with ResultPath applied to the state's
/// input) like a Task's.
Status Runtime::Impl::stateFailed(Invocation &inv, FanInInputs &in) {
  const config::FunctionConfig &cfg = inv.fn->config;
  HandlerResult hr =
      HandlerResult::failure(in.failure->find("Cause")->getString(),
                             in.failure->find("Error")->getString());
  // A sink with StateInput holds its state's input in inv.output.
  Value stateInput = std::move(inv.output);
  if (!cfg.retriers.empty()) {
    std::vector<int64_t> counts = in.retries;
    counts.resize(cfg.retriers.size());
    int64_t attempts = 0;
    for (int64_t c : counts)
      attempts += c;
    auto plan = planRetry(
        cfg.retriers, counts, hr.error,
        jitterFraction(inv.session(), inv.instance(), unsigned(attempts)),
        /*task=*/false);
    if (plan) {
      ++counts[plan->retrier];
      traceRetry(inv, unsigned(attempts), hr, plan->delay);
      if (plan->delay > 0)
        std::this_thread::sleep_for(
            std::chrono::duration<double>(plan->delay * opts.timeScale));
      Value out = Value::object();
      out.set("Error", hr.error);
      out.set("Cause", hr.cause);
      out.set("Input", std::move(stateInput));
      Value retries = Value::array();
      for (int64_t c : counts)
        retries.push(Value(c));
      out.set("Retries", std::move(retries));
      inv.failed = true;
      inv.output = std::move(out);
      return Status::ok();
    }
  }
  return failure(inv, hr, stateInput);
}

/// A sink's Retry: the state's entry runs again on the state's input, as a
/// new attempt (see StateInput.h): its visit counter advances, so every
/// instance of the attempt has a name of its own.
Status Runtime::Impl::reenterState(Invocation &inv) {
  const std::string &entry = *inv.fn->config.stateInput;
  const FunctionNode *spec = detail::AppAccess::node(app, entry);
  const Value *input = inv.output.find("Input");
  const Value *counts = inv.output.find("Retries");
  if (!spec || !input || !counts || !counts->isArray())
    return Status::error("the retry record of '" + inv.fn->config.name +
                         "' is incomplete");
  std::vector<int64_t> retries;
  for (const Value &c : counts->getArray())
    retries.push_back(c.isInt() ? c.getInt() : 0);
  // The entry's instance on the next attempt: its counters advance from
  // ours as on any entry.
  std::vector<FanOutLevel> levels = *inv.levels;
  int64_t visit = inv.visit;
  const int64_t loop = spec->config.loop.value_or(0);
  enterLoop(loop, visit, levels);
  std::string next =
      instanceName(entry, levels) + visitSuffix(loop, visit, levels);
  if (Status s =
          detail::saveRetryInput(store, inv.session(), next, *input, retries);
      !s)
    return s;
  Payload p;
  detail::hints(p).target = spec;
  p.session = inv.session();
  p.execution = inv.execution();
  p.value = *input;
  p.fanout = *inv.levels;
  p.visit = inv.visit;
  if (opts.gc && inv.fn->config.checkpoint)
    p.retire = inv.instance(); // the only continuation
  if (tracing())
    trace(inv, "retrying its state: invoking " + entry + " (" + next + ")");
  if (Status s = invoker.invoke(entry, std::move(p)); !s)
    return s.withContext("invoking '" + entry + "'");
  if (crashAt(Step::AfterInvoke, inv.instance(), 0))
    return crash(&inv, Step::AfterInvoke);
  if (crashAt(Step::BeforeRetire, inv.instance()))
    return crash(&inv, Step::BeforeRetire);
  return Status::ok();
}

/// Whether a failed instance takes one of its error edges (else, with a
/// fan-in edge, it reports the failure there). A failure passed on by a
/// "Propagate" edge takes none, and States.Runtime only a "Propagate" one.
Result<bool> Runtime::Impl::errorEdgeTaken(const Invocation &inv,
                                           const EvalEnv &env) const {
  if (inv.output.find("Propagated"))
    return false;
  const Value *name = inv.output.find("Error");
  const bool ends =
      name && name->isString() && endsExecution(name->getString());
  for (const Edge &e : inv.fn->config.next) {
    if (e.kind != EdgeKind::Error || (ends && !e.propagate))
      continue;
    if (!e.conditional)
      return true;
    auto c = evaluateCondition(*e.conditional, env);
    if (!c)
      return c.getStatus().withContext("edge to '" + e.target + "'");
    if (*c)
      return true;
  }
  return false;
}

/// What an error edge passes on: the error, {"Error", "Cause"}, or, with a
/// ResultPath, the failed function's input with the error placed there
/// (null: the input unchanged), as DataFlow::output places a result.
Result<Value> Runtime::Impl::caught(Invocation &inv, const Edge &e) {
  // A Failed record adopted from the store is only known to be JSON.
  const Value *name = inv.output.find("Error");
  const Value *cause = inv.output.find("Cause");
  if (!name || !cause)
    return Status::error("the failed checkpoint of '" + inv.fn->config.name +
                         "' has no Error and Cause");
  Value error = Value::object();
  error.set("Error", *name);
  error.set("Cause", *cause);
  const Value *input = inv.output.find("Input");
  if (!e.resultPath || !input)
    return error;
  FunctionSpec place;
  place.config.name = inv.fn->config.name;
  config::Node fields;
  fields.kind = config::Node::Kind::Object;
  fields.members.push_back({"ResultPath", {}, *e.resultPath});
  place.config.dataFlow = std::move(fields);
  DataFlow &flow = opts.dataFlow ? *opts.dataFlow : defaultFlow;
  auto out = flow.output(place, *input, error, inv.ctx);
  if (!out)
    return out.getStatus().withContext("the Catch's ResultPath");
  return out.take();
}

/// An output that several fan-ins read is never retired by a target.
Result<char> Runtime::Impl::recordFlag(const Invocation &inv) const {
  if (inv.failed)
    return record::Failed;
  unsigned fanIns = 0;
  EvalEnv env{&inv.output, inv.levels};
  for (const Edge &e : inv.fn->config.next) {
    if (e.kind != EdgeKind::FanIn)
      continue;
    bool taken = true;
    if (e.conditional) {
      auto c = evaluateCondition(*e.conditional, env);
      if (!c)
        return c.getStatus();
      taken = *c;
    }
    fanIns += taken;
  }
  return fanIns > 1 ? record::Keep : record::Output;
}

/// Lost the conditional put: continue with the winner's output, or stop if
/// the winner has already finished.
Status Runtime::Impl::lostRace(Invocation &inv, const std::string &winner,
                               bool &finished) {
  inv.fresh = false;
  return adoptRecord(
      inv, winner, finished, "lost the checkpoint race to a finished instance",
      "lost the checkpoint race; continuing with the winner's output");
}

/// Whether run() leaves the checkpoint put to continuations(), which
/// journals there the continuations that go to other hosts
/// (Invoker::carriesOutboxEntries) atomically with it, only if it wins
/// (DataStore::putIfAbsentIssuing): their receivers then answer without
/// store access (docs/Deploy.md). Only for a delivery that has an outbox
/// entry of its own (the continuations' ids derive from it), and only where
/// building the continuations writes nothing (no Map with MaxConcurrency)
/// and reads no completion set (not a fan-in target); not for a failure.
bool Runtime::Impl::defersPut(const Invocation &inv) const {
  const Payload &p = *inv.payload;
  if (!detail::hints(p).outboxId || !inv.fn->plan.checkpoint || inv.failed ||
      !p.fanInSet.empty() || p.source == Payload::Source::Checkpoint ||
      !store.issuesWithPut())
    return false;
  // A plain chain step whose one continuation stays in this process (the
  // pool) has nothing to journal with its put.
  if (const FunctionNode *t = inv.fn->plan.chainTarget)
    return invoker.carriesOutboxEntries(t->plan.name);
  for (const Edge &e : inv.fn->config.next)
    if (e.kind == EdgeKind::Map && e.maxConcurrency)
      return false;
  return true;
}

/// The id of the outbox entry of a step's `k`th continuation, to `target`:
/// derived from the step's own entry, so that every delivery of that entry
/// derives the same (63 bits, never 0: SQLite keeps them as positive
/// integers, and 0 is the runner's report entry).
static uint64_t continuationId(uint64_t sender, const std::string &target,
                               size_t k) {
  uint64_t h = 1469598103934665603ull ^ sender;
  for (unsigned char c : target)
    h = (h ^ c) * 1099511628211ull;
  h ^= uint64_t(k) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  // splitmix64's finaliser
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  h ^= h >> 31;
  return (h >> 1) | 1;
}

/// The checkpoint put run() deferred: the continuations in `sends` that
/// leave for another host get their outbox entries (id, issue time, fresh)
/// and are written with it, only if it wins. `restart`: it lost, and the
/// continuations must be built again from the winner's output (`sends` was
/// built from ours; those go as today: without entries).
Status Runtime::Impl::commitDeferred(Invocation &inv, Sends *sends,
                                     bool &finished, bool &restart) {
  Invocation::DeferredPut d = std::move(*inv.rare->deferred);
  inv.rare->deferred.reset();
  std::vector<DataStore::Pending> issues;
  const uint64_t sender = detail::hints(*inv.payload).outboxId;
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  for (size_t k = 0; sends && k < sends->size(); ++k) {
    Send &s = (*sends)[k];
    if (s.p.source == Payload::Source::Checkpoint ||
        !invoker.carriesOutboxEntries(*s.target))
      continue;
    auto &h = detail::hints(s.p);
    h.outboxId = continuationId(sender, *s.target, k);
    h.issuedMs = now;
    h.fresh = true; // written only if this put wins: then it is
    issues.push_back({h.outboxId, *s.target, detail::payloadJson(s.p)});
  }
  auto put = store.putIfAbsentIssuing(inv.session(), inv.instance(),
                                      std::move(d.record), *d.effects, d.retire,
                                      issues);
  if (!put)
    return storeFailure(put.getStatus(), "writing checkpoint");
  if (UNUM_UNLIKELY(!put->won)) {
    if (Status s = lostRace(inv, put->record, finished); !s || finished)
      return s;
    restart = true;
    return Status::ok();
  }
  if (UNUM_UNLIKELY(crashAt(Step::AfterCheckpoint, inv.instance())))
    return crash(&inv, Step::AfterCheckpoint);
  return Status::ok();
}

/// A function without checkpoints commits its effects and garbage-collects
/// on its own (at least once).
Status Runtime::Impl::commitUnchecked(const std::vector<Effect> &effects,
                                      const std::string &session,
                                      NameList retire) {
  if (!effects.empty())
    if (Status s = store.appendEffects(session, effects); !s)
      return storeFailure(s, "writing effects");
  if (!retire.empty())
    if (Status s = store.retire(session, retire); !s)
      return storeFailure(s, "garbage-collecting");
  return Status::ok();
}

/// A failure goes on only along an error edge, a "Propagate" fan-in (a Map
/// iteration's or Parallel branch's last function reports it to the state's
/// sink), or back into its state (a sink's Retry); else it ends here. (Out
/// of run(): a step that succeeds reads nothing of its config.)
[[gnu::noinline]] bool Runtime::Impl::endsHere(const Invocation &inv) {
  const std::vector<Edge> &next = inv.fn->config.next;
  return !inv.output.find("Retries") &&
         std::none_of(next.begin(), next.end(), [](const Edge &e) {
           return e.kind == EdgeKind::Error ||
                  (e.kind == EdgeKind::FanIn && e.propagate);
         });
}

/// A checkpoint's record: its flag and its output's JSON.
static std::string checkpointRecord(char flag, const Value &output) {
  std::string rec;
  rec.push_back(flag); // (inline: the (count, char) constructor is not)
  appendJson(rec, output);
  return rec;
}

static void stageEffects(const Context &ctx, std::vector<Effect> &effects) {
  for (const Value &e : ctx.effects)
    effects.push_back({std::string(ctx.instance), toJson(e)});
}

UNUM_HOT Status Runtime::Impl::run(Invocation &inv) {
  const Payload &payload = *inv.payload;
  const bool ckpt = inv.fn->plan.checkpoint;

  bool reused = false, finished = false;
  // What the checkpoint put refers to (continuations() may make it).
  std::vector<std::string> withPinned;
  std::optional<std::vector<Effect>> staged;
  if (ckpt && !detail::hints(payload).fresh &&
      !detail::hints(payload).noCheckpoint) {
    if (Status s = readCheckpoint(inv, reused, finished); !s || finished)
      return s;
  }
  if (UNUM_UNLIKELY(crashAt(Step::BeforeUserCode, inv.instance())))
    return crash(&inv, Step::BeforeUserCode);

  // The effective input: inline (read in place), or a fan-in's checkpoints
  // in order. (Made only for a fan-in target, like the other lists below:
  // a chain step does not pay for building and destroying empty ones.)
  std::unique_ptr<FanInInputs> fanIn;
  const Value *effective = &payload.value;
  if (!reused && UNUM_UNLIKELY(payload.source == Payload::Source::Checkpoint)) {
    fanIn = std::make_unique<FanInInputs>();
    inv.fanIn = fanIn.get();
    effective = &fanIn->gathered;
    if (Status s = gatherFanIn(inv, *fanIn, reused, finished); !s || finished)
      return s;
  }

  if (!reused) {
    if (UNUM_UNLIKELY(payload.source == Payload::Source::Failure)) {
      // A failure passed on by a "Propagate" edge: this instance fails
      // with it, without running its code, and reports it (its fan-in).
      passOn(inv.failed, inv.output, payload.value);
    } else if (UNUM_UNLIKELY(fanIn && fanIn->failure)) {
      // A Map or Parallel state's sink fails (or retries the state); any
      // other fan-in target (a sink was bypassed) passes the failure on.
      if (!inv.fn->config.stateInput)
        passOn(inv.failed, inv.output, *fanIn->failure);
      else if (Status s = stateFailed(inv, *fanIn); !s)
        return s;
    } else if (Status s = execute(inv, *effective); !s) {
      return s;
    }
    if (UNUM_UNLIKELY(crashAt(Step::AfterUserCode, inv.instance())))
      return crash(&inv, Step::AfterUserCode);
    if (UNUM_UNLIKELY(inv.failed) && endsHere(inv))
      return Status::error(inv.output.find("Error")->getString() + ": " +
                           inv.output.find("Cause")->getString());
    // A Map or Parallel entry whose sink needs the state's input.
    if (UNUM_UNLIKELY(inv.fn->plan.saveInput) && !inv.failed)
      if (Status s = saveStateInput(inv, *effective); !s)
        return s;

    char flag = inv.failed ? record::Failed : record::Output;
    if (UNUM_UNLIKELY(inv.fn->plan.fanInEdge)) {
      auto f = recordFlag(inv);
      if (!f)
        return f.getStatus();
      flag = *f;
    }

    // What this step retires: its sender's record (a chain step's only
    // continuation) or a fan-in's inputs, passed without a copy.
    NameList retire;
    const bool sender = opts.gc && !payload.retire.empty();
    const bool inputs = opts.gc && ckpt && fanIn && !fanIn->consumed.empty();
    if (UNUM_UNLIKELY(sender && inputs)) {
      // A step that retires both (not seen): the list is extended.
      fanIn->consumed.push_back(payload.retire);
      retire = fanIn->consumed;
    } else if (sender) {
      retire = payload.retire;
    } else if (inputs) {
      retire = fanIn->consumed;
    }
    // And what it fixed on its first entry (StateEntry.h).
    if (UNUM_UNLIKELY(opts.gc && inv.hasPinned())) {
      const std::vector<std::string> &pinned = inv.rare->pinned;
      withPinned.assign(retire.begin(), retire.end());
      withPinned.insert(withPinned.end(), pinned.begin(), pinned.end());
      retire = withPinned;
    }
    static const std::vector<Effect> noEffects;
    if (UNUM_UNLIKELY(!inv.ctx.effects.empty()))
      stageEffects(inv.ctx, staged.emplace());
    const std::vector<Effect> &effects = staged ? *staged : noEffects;

    inv.fresh = detail::hints(payload).fresh;
    if (UNUM_UNLIKELY(detail::hints(payload).outboxId) && defersPut(inv)) {
      // Made by continuations(), with the continuations it journals.
      auto &d = inv.more().deferred.emplace();
      d.record = checkpointRecord(flag, inv.output);
      d.effects = &effects;
      d.retire = retire;
      return continuations(inv);
    }
    if (UNUM_LIKELY(ckpt)) {
      // (The record is made in the argument: no move of it.)
      auto put = store.putIfAbsent(inv.session(), inv.instance(),
                                   checkpointRecord(flag, inv.output), effects,
                                   retire);
      if (!put)
        return storeFailure(put.getStatus(), "writing checkpoint");
      if (UNUM_UNLIKELY(!put->won))
        if (Status s = lostRace(inv, put->record, finished); !s || finished)
          return s;
    } else if (Status s = commitUnchecked(effects, inv.session(), retire); !s) {
      return s;
    }
    if (UNUM_UNLIKELY(crashAt(Step::AfterCheckpoint, inv.instance())))
      return crash(&inv, Step::AfterCheckpoint);
  }

  // A fan-in target consumes its completion set once its output is safe.
  if (UNUM_UNLIKELY(opts.gc && !payload.fanInSet.empty()))
    if (Status s = store.consumeSet(inv.session(), payload.fanInSet); !s)
      return storeFailure(s, "consuming completion set");

  // (continuations() tests this first too; called from here, a chain step
  // skips its frame, which is sized for the general case.)
  if (const FunctionNode *target = inv.fn->plan.chainTarget;
      UNUM_LIKELY(target && !inv.failed && !inv.deferred()))
    return chainStep(inv, *target);
  return continuations(inv);
}

struct Runtime::Impl::FanIn {
  const std::string *target;
  const FunctionNode *spec;
  std::string set;
  FanInValues values;
};

/// A Map edge: one invocation per item (or, over an empty list, the
/// collecting fan-in's target with no inputs).
Status Runtime::Impl::addMapSends(Invocation &inv, const Edge &e,
                                  const FunctionNode *targetSpec,
                                  const std::vector<FanOutLevel> &post,
                                  Sends &sends) {
  DataFlow &flow = opts.dataFlow ? *opts.dataFlow : defaultFlow;
  auto items = inv.rare && inv.rare->items
                   ? Result<Value::Array>(*inv.rare->items)
                   : flow.items(*inv.fn->spec, e, inv.output, inv.ctx);
  if (!items)
    return items.getStatus();
  if (post.size() + 1 > kMaxFanOutDepth)
    return Status::error("fan-out nested deeper than " +
                         std::to_string(kMaxFanOutDepth));
  // The iterations' fan-in could not name them all: refused before any
  // runs (each used to run, and then fail at the fan-in).
  if (items->size() > kMaxFanInInstances)
    return Status::error("Map edge to '" + e.target +
                         "': " + std::to_string(items->size()) +
                         " items, more than a fan-in can collect (" +
                         std::to_string(kMaxFanInInstances) + ")");
  int64_t n = int64_t(items->size());
  if (n == 0) {
    auto closing = findMapClosing(app, e.target, post);
    if (!closing)
      return closing.getStatus().withContext("Map edge to '" + e.target +
                                             "' over an empty list");
    if (*closing) {
      // The collecting fan-in's target, with no inputs: [].
      const MapClosing &c = **closing;
      Payload &m = sends
                       .add(c.target->config.name, c.target, inv.session(),
                            inv.fresh, false, inv.execution())
                       .p;
      m.source = Payload::Source::Checkpoint;
      m.value = Value::array();
      m.fanout = c.fanout;
      m.visit = inv.visit;
    }
    return Status::ok();
  }
  // MaxConcurrency: the first `window` iterations now; each iteration's
  // tail invokes the one `window` after it (nextIteration), reading its item
  // from a record of this instance's, which the collecting fan-in's
  // completer retires.
  FanOutLevel level{"Map", 0, n};
  int64_t issued = n;
  if (UNUM_UNLIKELY(e.maxConcurrency && *e.maxConcurrency < n)) {
    level.window = *e.maxConcurrency;
    level.items = inv.instance() + "#items";
    issued = level.window;
    Value rec = Value::object();
    rec.set("Target", e.target);
    Value list = Value::array();
    for (const Value &item : *items)
      list.push(item);
    rec.set("Items", std::move(list));
    std::string text(1, record::Output);
    appendJson(text, rec);
    // Losing is fine: a redelivery saves the same items (or the record is
    // retired: every iteration was issued).
    auto put = store.putIfAbsent(inv.session(), level.items, text, {}, {});
    if (!put)
      return storeFailure(put.getStatus(), "saving the Map's items");
  }
  sends.reserve(sends.size() + size_t(issued));
  for (int64_t i = 0; i < issued; ++i) {
    Payload &m = sends
                     .add(e.target, targetSpec, inv.session(), inv.fresh, false,
                          inv.execution())
                     .p;
    m.value = std::move((*items)[i]);
    m.fanout.reserve(post.size() + 1);
    level.index = i;
    m.fanout.push_back(level);
    m.fanout.insert(m.fanout.end(), post.begin(), post.end());
    m.visit = inv.visit;
  }
  return Status::ok();
}

/// The tail of an iteration of a Map with MaxConcurrency k (its level has a
/// window): before it reports to the fan-in, it invokes iteration i + k, so
/// that at most k run at once. A redelivered tail invokes it again (the
/// iteration's checkpoint makes that harmless); once the fan-in completed,
/// the items record is retired and every iteration was issued.
Status Runtime::Impl::nextIteration(Invocation &inv) {
  const FanOutLevel &level = inv.payload->fanout.front();
  const int64_t next = level.index + level.window;
  if (next >= level.size)
    return Status::ok();
  auto rec = store.get(inv.session(), level.items);
  if (!rec)
    return storeFailure(rec.getStatus(), "reading the Map's items");
  if (*rec && !(*rec)->empty() && (**rec)[0] == record::Done)
    return Status::ok();
  const Value *target = nullptr, *list = nullptr;
  Value items;
  if (*rec && !(*rec)->empty() && (**rec)[0] == record::Output) {
    auto v = parseJsonValue(std::string_view(**rec).substr(1), level.items);
    if (!v)
      return v.getStatus();
    items = v.take();
    target = items.find("Target");
    list = items.find("Items");
  }
  if (!target || !target->isString() || !list || !list->isArray() ||
      int64_t(list->getArray().size()) != level.size)
    return Status::error("the Map's items record '" + level.items +
                         "' is missing or broken");
  const std::string &name = target->getString();
  Payload p;
  detail::hints(p).target = detail::AppAccess::node(app, name);
  p.session = inv.session();
  p.execution = inv.execution();
  p.value = list->getArray()[size_t(next)];
  p.fanout = inv.payload->fanout;
  p.fanout.front().index = next;
  p.fanout.front().visit = 0;
  p.visit = inv.payload->visit;
  if (tracing())
    trace(inv,
          "invoking the next iteration, " + name + " #" + std::to_string(next));
  if (Status s = invoker.invoke(name, std::move(p)); !s)
    return s.withContext("invoking '" + name + "'");
  return Status::ok();
}

/// A fan-in edge: the completion set this instance reports to.
Status Runtime::Impl::addFanIn(Invocation &inv, const Edge &e,
                               const FunctionNode *targetSpec,
                               const EvalEnv &env,
                               const std::vector<FanOutLevel> &post,
                               std::vector<FanIn> &fanIns) {
  if (!inv.fn->config.checkpoint)
    return Status::error("fan-in to '" + e.target +
                         "' needs Checkpoint: the target reads its "
                         "inputs from the checkpoints");
  auto values = resolveFanIn(e.values, env);
  if (!values)
    return values.getStatus().withContext("fan-in to '" + e.target + "'");
  // A tail in a loop names its fan-in's instances, and so the completion
  // set, with its own visit counters: those of the scopes around the Map or
  // Parallel state it ends a body of, which all its tails share.
  const std::string &suffix = inv.visitSuffix();
  std::string_view self = inv.instance();
  self.remove_suffix(suffix.size());
  if (!values->contains(std::string(self)))
    return Status::error("fan-in to '" + e.target + "': its values (" +
                         values->key + ") do not name this instance");
  std::string targetInstance = instanceName(e.target, post);
  std::string set = targetInstance + "|" + values->key + suffix;
  fanIns.push_back({&e.target, targetSpec, std::move(set), values.take()});
  return Status::ok();
}

/// Fan-ins last: once every tail has reported, a tail has nothing left to
/// do, which is what lets the target retire the tails' checkpoints.
Status Runtime::Impl::reportFanIns(Invocation &inv, std::vector<FanIn> &fanIns,
                                   const std::vector<FanOutLevel> &post) {
  for (size_t k = 0; k < fanIns.size(); ++k) {
    FanIn &f = fanIns[k];
    if (crashAt(Step::BeforeFanInAdd, inv.instance(), unsigned(k)))
      return crash(&inv, Step::BeforeFanInAdd);
    auto added =
        store.addToSet(inv.session(), f.set, inv.instance(), f.values.count);
    if (!added)
      return storeFailure(added.getStatus(), "updating completion set");
    if (crashAt(Step::AfterFanInAdd, inv.instance(), unsigned(k)))
      return crash(&inv, Step::AfterFanInAdd);
    if (added->state != DataStore::AddResult::Completer) {
      if (tracing())
        trace(inv, "reported to " + *f.target + " (" +
                       std::to_string(added->count) + "/" +
                       std::to_string(f.values.count) + ")");
      continue;
    }
    Payload p;
    p.source = Payload::Source::Checkpoint;
    p.session = inv.session();
    p.execution = inv.execution();
    // Only the add that completed the set is fresh; a retried completer
    // (told again) is not.
    detail::hints(p).fresh = inv.fresh && added->count == f.values.count &&
                             detail::hints(*inv.payload).fresh;
    p.value = Value::array();
    const std::string &suffix = inv.visitSuffix();
    for (std::string &name : f.values.expand())
      p.value.push(suffix.empty() ? std::move(name) : name + suffix);
    p.fanout = post;
    p.visit = inv.visit;
    p.fanInSet = f.set;
    detail::hints(p).target = f.spec;
    if (tracing())
      trace(inv, "completed the fan-in; invoking " + *f.target);
    if (Status s = invoker.invoke(*f.target, std::move(p)); !s)
      return s.withContext("invoking '" + *f.target + "'");
    // Every iteration of a Map with MaxConcurrency was issued: its items
    // record goes.
    if (const std::vector<FanOutLevel> &levels = inv.payload->fanout;
        opts.gc && !levels.empty() && levels.front().window > 0 &&
        post.size() < levels.size())
      if (Status s = store.retire(inv.session(), levels.front().items); !s)
        return storeFailure(s, "garbage-collecting the Map's items");
  }
  return Status::ok();
}

/// An instance that took no continuation: report its output (or fail).
Status Runtime::Impl::finishTerminal(Invocation &inv) {
  if (inv.failed)
    return Status::error(inv.output.find("Error")->getString() + ": " +
                         inv.output.find("Cause")->getString() +
                         " (no error edge taken)");
  if (opts.observer)
    opts.observer->terminal(inv.session(), inv.instance(), inv.output);
  return Status::ok();
}

/// A chain step's continuation: into `p`, a payload reset by
/// InvokerAccess::stage() (whose session, retire and value are still the
/// last payload's) or a new one.
[[gnu::always_inline]] inline void
Runtime::Impl::fillChainPayload(Payload &p, Invocation &inv,
                                const FunctionNode &target, bool handOff) {
  detail::hints(p).target = &target;
  copyName(p.session, inv.session());
  p.execution = inv.execution();
  detail::hints(p).fresh = inv.fresh;
  if (!inv.levels->empty())
    p.fanout = *inv.levels;
  p.visit = inv.visit;
  p.value = std::move(inv.output);
  if (handOff)
    copyName(p.retire, inv.instance());
  else
    p.retire.clear();
}

/// A plain chain step's only continuation (StepPlan::chainTarget): what
/// continuations() does for it, reading nothing of the config.
UNUM_HOT Status Runtime::Impl::chainStep(Invocation &inv,
                                         const FunctionNode &target) {
  // The only continuation retires this checkpoint in its own put.
  const bool handOff = opts.gc && inv.fn->plan.checkpoint;
  const std::string &name = target.plan.name;
  if (Payload *p = detail::InvokerAccess::stage(invoker); UNUM_LIKELY(p)) {
    fillChainPayload(*p, inv, target, handOff);
    if (Status s = detail::InvokerAccess::invokeStaged(invoker, name); !s)
      return s.withContext("invoking '" + name + "'");
  } else if (Status s = chainInvoke(inv, target, handOff); !s) {
    return s;
  }
  if (UNUM_UNLIKELY(crashAt(Step::AfterInvoke, inv.instance(), 0)))
    return crash(&inv, Step::AfterInvoke);
  if (UNUM_UNLIKELY(tracing()))
    trace(inv, "invoked 1 continuation(s)");
  if (UNUM_UNLIKELY(crashAt(Step::BeforeRetire, inv.instance())))
    return crash(&inv, Step::BeforeRetire);
  return Status::ok();
}

/// chainStep() on an invoker that keeps no payloads (HTTP, or a call from
/// outside the pool): a payload of its own.
Status Runtime::Impl::chainInvoke(Invocation &inv, const FunctionNode &target,
                                  bool handOff) {
  Payload p;
  fillChainPayload(p, inv, target, handOff);
  const std::string &name = target.plan.name;
  if (Status s = invoker.invoke(name, std::move(p)); !s)
    return s.withContext("invoking '" + name + "'");
  return Status::ok();
}

UNUM_HOT Status Runtime::Impl::continuations(Invocation &inv) {
  if (const FunctionNode *target = inv.fn->plan.chainTarget;
      UNUM_LIKELY(target && !inv.failed && !inv.deferred()))
    return chainStep(inv, *target);
  const config::FunctionConfig &cfg = inv.fn->config;

  // Conditionals and fan-in values see this instance's own levels; the
  // modifiers then shape what is passed on.
  EvalEnv env{&inv.output, inv.levels};
  std::optional<Value> context;
  if (UNUM_UNLIKELY(inv.fn->plan.contextConditions)) {
    // A Choice rule's `$$` Variable: the fields that are the same on every
    // delivery (no EnteredTime: the importer refuses it there).
    auto c = dataflow::contextObject(inv.ctx, dataflow::stateName(cfg), false);
    if (!c)
      return c.getStatus();
    context = c.take();
    env.context = &*context;
  }
  std::vector<FanOutLevel> modified;
  const std::vector<FanOutLevel> *post = inv.levels;
  if (UNUM_UNLIKELY(!cfg.modifiers.empty())) {
    auto m = applyModifiers(cfg.modifiers, *inv.levels, &inv.output);
    if (!m)
      return m.getStatus();
    modified = m.take();
    post = &modified;
  }

  // A failure takes the error edges (a Catch, or "Propagate"); if none
  // takes it, the "Propagate" fan-in edges report it (the state's sink
  // fails); a sink that decided to retry its state re-enters it.
  bool errorTaken = false, runtimeError = false;
  if (UNUM_UNLIKELY(inv.failed)) {
    if (cfg.stateInput && inv.output.find("Retries"))
      return reenterState(inv);
    auto taken = errorEdgeTaken(inv, env);
    if (!taken)
      return taken.getStatus();
    errorTaken = *taken;
    const Value *name = inv.output.find("Error");
    runtimeError = name && name->isString() && endsExecution(name->getString());
  }

  Sends sends;
  std::vector<FanIn> fanIns;
  // Parallel branches add a level each (isBranchEdge says which entries
  // are branches; ExCamera's lone chain beside fan-ins and a lowered
  // Choice's alternatives add none).
  const int64_t nScalar = branchCount(cfg);
  const bool parallel = isParallel(cfg, nScalar);
  int64_t scalarPos = 0;
  for (size_t edge = 0; edge < cfg.next.size(); ++edge) {
    const Edge &e = cfg.next[edge];
    const FunctionNode *targetSpec =
        edge < inv.fn->targets.size() ? inv.fn->targets[edge] : nullptr;
    bool branchEdge = isBranchEdge(e);
    int64_t branch = branchEdge ? scalarPos++ : 0;
    if (UNUM_UNLIKELY(inv.failed)) {
      bool take = e.kind == EdgeKind::Error
                      ? errorTaken && (e.propagate || !runtimeError)
                      : e.kind == EdgeKind::FanIn && e.propagate && !errorTaken;
      if (!take)
        continue;
    } else if (e.kind == EdgeKind::Error) {
      continue;
    }
    if (UNUM_UNLIKELY(e.conditional)) {
      auto c = evaluateCondition(*e.conditional, env);
      if (!c)
        return c.getStatus().withContext("edge to '" + e.target + "'");
      if (!*c)
        continue;
    }
    if (UNUM_UNLIKELY(e.kind == EdgeKind::Map)) {
      if (Status s = addMapSends(inv, e, targetSpec, *post, sends); !s)
        return s;
    } else if (UNUM_UNLIKELY(e.kind == EdgeKind::FanIn)) {
      if (Status s = addFanIn(inv, e, targetSpec, env, *post, fanIns); !s)
        return s;
    } else { // Scalar or Error
      const bool level = branchEdge && parallel;
      if (UNUM_UNLIKELY(post->size() + level > kMaxFanOutDepth))
        return Status::error("fan-out nested deeper than " +
                             std::to_string(kMaxFanOutDepth));
      const bool error = e.kind == EdgeKind::Error;
      Send &s = sends.add(e.target, targetSpec, inv.session(), inv.fresh,
                          !error, inv.execution());
      if (UNUM_UNLIKELY(error)) {
        auto value = caught(inv, e);
        if (!value)
          return value.getStatus().withContext("edge to '" + e.target + "'");
        s.p.value = value.take();
        if (e.propagate)
          s.p.source = Payload::Source::Failure;
      }
      if (level)
        s.p.fanout.push_back(FanOutLevel{"Parallel", branch, nScalar});
      s.p.fanout.insert(s.p.fanout.end(), post->begin(), post->end());
      s.p.visit = inv.visit;
    }
  }

  // The output goes to every chain or branch target: copies for all but the
  // last, which takes it (the rest of this step needs only its names).
  const bool terminal = sends.empty() && fanIns.empty();
  for (size_t k = sends.size(); k-- > 0;)
    if (sends[k].carriesOutput) {
      for (size_t j = 0; j < k; ++j)
        if (sends[j].carriesOutput)
          sends[j].p.value = inv.output;
      sends[k].p.value = std::move(inv.output);
      break;
    }
  // The only continuation retires this checkpoint in its own put: one store
  // operation fewer per chain step.
  const bool handOff =
      opts.gc && cfg.checkpoint && sends.size() == 1 && fanIns.empty();
  if (handOff)
    sends[0].p.retire = inv.instance();
  if (UNUM_UNLIKELY(inv.deferred())) {
    bool finished = false, restart = false;
    if (Status s = commitDeferred(inv, &sends, finished, restart);
        !s || finished)
      return s;
    if (restart) // lost the put: the winner's output goes on
      return continuations(inv);
  }

  if (UNUM_LIKELY(sends.size() <= 1 || !invoker.blocking())) {
    for (size_t k = 0; k < sends.size(); ++k) {
      if (Status s = invoker.invoke(*sends[k].target, std::move(sends[k].p));
          !s)
        return s.withContext("invoking '" + *sends[k].target + "'");
      if (UNUM_UNLIKELY(
              crashAt(Step::AfterInvoke, inv.instance(), unsigned(k))))
        return crash(&inv, Step::AfterInvoke);
    }
  } else {
    if (Status s = invokeConcurrently(invoker, sends, opts.mapConcurrency); !s)
      return s;
    if (crashAt(Step::AfterInvoke, inv.instance(), unsigned(sends.size() - 1)))
      return crash(&inv, Step::AfterInvoke);
  }
  if (UNUM_UNLIKELY(!sends.empty() && tracing()))
    trace(inv, "invoked " + std::to_string(sends.size()) + " continuation(s)");

  if (UNUM_UNLIKELY(!fanIns.empty())) {
    // The tail of an iteration of a Map with MaxConcurrency.
    if (const std::vector<FanOutLevel> &levels = inv.payload->fanout;
        !levels.empty() && levels.front().window > 0 &&
        post->size() < levels.size())
      if (Status s = nextIteration(inv); !s)
        return s;
    if (Status s = reportFanIns(inv, fanIns, *post); !s)
      return s;
  }
  if (UNUM_UNLIKELY(terminal))
    if (Status s = finishTerminal(inv); !s)
      return s;
  if (UNUM_UNLIKELY(crashAt(Step::BeforeRetire, inv.instance())))
    return crash(&inv, Step::BeforeRetire);
  if (opts.gc && cfg.checkpoint && !handOff && fanIns.empty())
    if (Status s = store.retire(inv.session(), inv.instance()); !s)
      return storeFailure(s, "garbage-collecting");
  return Status::ok();
}
