//===- AppInternal.h - What the runtime derives from an App ----*- C++ -*-===//
//
// Private to the runtime library (not installed). Per function the App keeps
// a FunctionNode: the step plan (what a step reads of its function, in one
// cache line), the App it belongs to and its edges' targets as nodes. An
// in-process continuation carries its target's node in the payload's hints
// (PayloadInternal.h), so the receiver needs no lookup by name (a cold hash
// probe per step in a large app).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_APPINTERNAL_H
#define UNUM_LIB_RUNTIME_APPINTERNAL_H

#include "unum/Runtime/App.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace unum::runtime::detail {

struct FunctionNode;

/// What a step reads of its function, derived from the config, the handler
/// and the targets, and kept current by the App: one cache line (the node's
/// first). A plain chain step reads nothing else of its function (not the
/// config, whose fields are scattered over several lines and heap blocks):
/// in a large app each of those lines is a likely cache miss per step.
struct alignas(64) StepPlan {
  StepPlan()
      : checkpoint(false), debug(false), dataFlow(false), fanInEdge(false),
        saveInput(false), loop(false), catchInput(false),
        executionContext(false), contextConditions(false), start(false),
        timeout(false), retries(false), stateInput(false) {}

  Handler *handler = nullptr;
  /// A plain chain step (one unconditional Scalar edge, written as an
  /// object, and no modifiers) to this known function; else nullptr.
  const FunctionNode *chainTarget = nullptr;
  /// The index of the App that holds this node (a step checks that a hint
  /// is its own App's).
  const void *owner = nullptr;
  bool checkpoint : 1;
  bool debug : 1;
  bool dataFlow : 1;   // the config has DataFlow fields
  bool fanInEdge : 1;  // some edge is a fan-in
  bool saveInput : 1;  // "SaveInput": a Map or Parallel entry
  bool loop : 1;       // "Loop": names carry visit counters
  bool catchInput : 1; // an Error edge has a ResultPath
  /// A start function with DataFlow "ExecutionContext": it fixes the
  /// execution's input and start time for $$.Execution.
  bool executionContext : 1;
  /// An edge's condition reads the context object ($ctx: a Choice rule's
  /// `$$` Variable).
  bool contextConditions : 1;
  bool start : 1;      // "Start": may create the session
  bool timeout : 1;    // "TimeoutSeconds"
  bool retries : 1;    // "Retriers" (not empty)
  bool stateInput : 1; // "StateInput": a Map or Parallel sink
  /// The function's name (config.name's copy, in this line when short: the
  /// pool's task, the instance name and the store's key read it). The
  /// in-process invoker names a task by this string (Invoker.cpp).
  std::string name;
};
static_assert(sizeof(StepPlan) == 64, "a step plan is one cache line");

struct FunctionNode {
  explicit FunctionNode(const FunctionSpec &spec)
      : config(spec.config), spec(&spec) {
    plan.name = spec.config.name;
  }
  StepPlan plan;                        // first: see StepPlan
  const config::FunctionConfig &config; // spec->config
  const FunctionSpec *spec;
  /// Per config.next entry, the target's node (nullptr while unknown).
  std::vector<const FunctionNode *> targets;
};

struct AppIndex {
  AppIndex() = default;
  AppIndex(const AppIndex &) = delete;
  AppIndex &operator=(const AppIndex &) = delete;
  ~AppIndex();

  /// A new node for `spec` (whose name is not in the index yet).
  FunctionNode &add(const FunctionSpec &spec);
  /// The nodes in the order they were added.
  template <typename F> void forEach(F &&f) const {
    for (size_t i = 0; i < count; ++i)
      f(at(i));
  }

  /// find() runs once per invocation that carries no hint: a hashed index
  /// over the nodes, keyed by the specs' names (whose addresses, in fns'
  /// map nodes, never move).
  std::unordered_map<std::string_view, FunctionNode *> nodes;
  /// The start functions by name, and how many functions have "Debug":
  /// a runner's start and a Runtime's construction read these, not every
  /// function's config (in a large app, a cache miss per function).
  std::map<std::string_view, const FunctionNode *> starts;
  size_t debugging = 0;
  /// Edges whose target is not (yet) in the App: name -> (node, edge).
  std::unordered_map<std::string,
                     std::vector<std::pair<detail::FunctionNode *, size_t>>>
      dangling;

private:
  /// The nodes live side by side in chunks, in the order the functions were
  /// added (not each in a heap block of its own among the configs' blocks):
  /// a step touches its node's first line and nothing around it, and
  /// neighbouring functions' plans share pages.
  static constexpr size_t kChunk = 64;
  struct Chunk {
    alignas(FunctionNode) unsigned char bytes[kChunk][sizeof(FunctionNode)];
  };
  FunctionNode &at(size_t i) const {
    return *reinterpret_cast<FunctionNode *>(
        chunks[i / kChunk]->bytes[i % kChunk]);
  }
  std::vector<std::unique_ptr<Chunk>> chunks;
  size_t count = 0;
};

/// The runtime's access to an App's nodes.
struct AppAccess {
  static const FunctionNode *node(const App &app, std::string_view function) {
    if (!app.index)
      return nullptr;
    auto it = app.index->nodes.find(function);
    return it == app.index->nodes.end() ? nullptr : it->second;
  }
  /// True if some function of `app` has "Debug": true.
  static bool debugs(const App &app) {
    return app.index && app.index->debugging > 0;
  }
  /// True if `node` belongs to `app`.
  static bool owns(const App &app, const FunctionNode &node) {
    return node.plan.owner == app.index.get();
  }
};

} // namespace unum::runtime::detail

#endif // UNUM_LIB_RUNTIME_APPINTERNAL_H
