//===- App.h - The functions of an application and their code ---*- C++ -*-===//
//
// A deployed function knows only its own config; locally (unum-run, tests)
// all functions of an application live in one process, so an App maps each
// function name to its config and handler.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_APP_H
#define UNUM_RUNTIME_APP_H

#include "unum/Config/FunctionConfig.h"
#include "unum/Runtime/Handler.h"
#include "unum/Runtime/Status.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace unum::runtime {

class App;

/// What a step reads of its function, derived from the config, the handler
/// and the targets, and kept current by the App. It heads the spec: a step
/// of a large app touches one cache line of its function, not the config's
/// scattered fields, edges and target list (each a likely cache miss).
struct StepPlan {
  Handler *handler = nullptr;
  /// A plain chain step (one unconditional Scalar edge, written as an
  /// object, and no modifiers) to this known function; else nullptr.
  const FunctionSpec *chainTarget = nullptr;
  bool checkpoint = false;
  bool debug = false;
  bool dataFlow = false;   // the config has DataFlow fields
  bool fanInEdge = false;  // some edge is a fan-in
  bool saveInput = false;  // "SaveInput": a Map or Parallel entry
  bool loop = false;       // "Loop": names carry visit counters
  bool catchInput = false; // an Error edge has a ResultPath
  /// A start function with DataFlow "ExecutionContext": it fixes the
  /// execution's input and start time for $$.Execution.
  bool executionContext = false;
  /// An edge's condition reads the context object ($ctx: a Choice rule's
  /// `$$` Variable).
  bool contextConditions = false;
};

struct FunctionSpec {
  StepPlan plan; // first: see StepPlan
  /// Kept by the App: the App that holds this spec (next to the plan: a
  /// step checks it), and per config.next entry the target's spec (nullptr
  /// while it is unknown). The runtime passes a target's spec along with an
  /// in-process invocation, which then needs no lookup by name (a cold hash
  /// probe per step in a large app).
  const App *owner = nullptr;
  std::vector<const FunctionSpec *> targets;
  config::FunctionConfig config;
  std::shared_ptr<Handler> handler;
  std::string dir; // the function's directory, if loaded from disk
};

class App {
public:
  App() = default;
  // Copies and moves re-point the specs' owner and targets.
  App(const App &other) : fns(other.fns) { reindex(); }
  App(App &&other) noexcept : fns(std::move(other.fns)) { reindex(); }
  App &operator=(const App &other);
  App &operator=(App &&other) noexcept;

  /// Adds a function; a second function of the same name is an error.
  Status add(config::FunctionConfig config,
             std::shared_ptr<Handler> handler = nullptr, std::string dir = "");
  /// Sets (or replaces) the handler of an existing function.
  Status setHandler(const std::string &function,
                    std::shared_ptr<Handler> handler);

  const FunctionSpec *find(const std::string &function) const;
  /// True if `spec` belongs to this App.
  bool owns(const FunctionSpec &spec) const { return spec.owner == this; }
  const std::map<std::string, FunctionSpec> &functions() const { return fns; }
  std::vector<std::string> startFunctions() const;

  /// Every function has a handler and every edge target and fan-in function
  /// exists. (The compiler's verifier checks much more; this is what the
  /// runtime needs to not get lost.)
  Status validate() const;

  /// Loads APPDIR/<Function>/unum_config.json (or .yaml when there is no
  /// JSON). Handlers: APPDIR/<Function>/handler if executable, else a
  /// builtin; functions with neither keep no handler (validate() says so).
  static Result<App> load(const std::string &dir);

  /// Decodes configs given as JSON texts (tests, benchmarks).
  static Result<App> fromJson(const std::vector<std::string> &configs);

private:
  Status validateStateInputs() const;
  Status validateLoops() const;
  void reindex();
  /// Registers `spec` in the index and links edges to and from it.
  void link(FunctionSpec &spec);

  std::map<std::string, FunctionSpec> fns;
  /// find() runs once per invocation: a hashed index over fns' nodes (whose
  /// addresses and keys never move) instead of a tree walk.
  std::unordered_map<std::string_view, const FunctionSpec *> index;
  /// Edges whose target is not (yet) in the App: name -> (spec, edge).
  std::unordered_map<std::string,
                     std::vector<std::pair<FunctionSpec *, size_t>>>
      dangling;
};

} // namespace unum::runtime

#endif // UNUM_RUNTIME_APP_H
