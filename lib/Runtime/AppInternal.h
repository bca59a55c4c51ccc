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

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace unum::runtime::detail {

struct FunctionNode;

/// What a step reads of its function, derived from the config, the handler
/// and the targets, and kept current by the App. It heads the node: a step
/// of a large app touches one cache line of its function, not the config's
/// scattered fields, edges and target list (each a likely cache miss).
struct StepPlan {
  Handler *handler = nullptr;
  /// A plain chain step (one unconditional Scalar edge, written as an
  /// object, and no modifiers) to this known function; else nullptr.
  const FunctionNode *chainTarget = nullptr;
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

struct FunctionNode {
  explicit FunctionNode(const FunctionSpec &spec)
      : config(spec.config), spec(&spec) {}
  StepPlan plan; // first: see StepPlan
  /// The index of the App that holds this node (next to the plan: a step
  /// checks that a hint is its own App's).
  const void *owner = nullptr;
  const config::FunctionConfig &config; // spec->config
  const FunctionSpec *spec;
  /// Per config.next entry, the target's node (nullptr while unknown).
  std::vector<const FunctionNode *> targets;
};

struct AppIndex {
  /// find() runs once per invocation that carries no hint: a hashed index
  /// over the nodes, keyed by the specs' names (whose addresses, in fns'
  /// map nodes, never move).
  std::unordered_map<std::string_view, detail::FunctionNode> nodes;
  /// Edges whose target is not (yet) in the App: name -> (node, edge).
  std::unordered_map<std::string,
                     std::vector<std::pair<detail::FunctionNode *, size_t>>>
      dangling;
};

/// The runtime's access to an App's nodes.
struct AppAccess {
  static const FunctionNode *node(const App &app, std::string_view function) {
    if (!app.index)
      return nullptr;
    auto it = app.index->nodes.find(function);
    return it == app.index->nodes.end() ? nullptr : &it->second;
  }
  /// True if `node` belongs to `app`.
  static bool owns(const App &app, const FunctionNode &node) {
    return node.owner == app.index.get();
  }
};

} // namespace unum::runtime::detail

#endif // UNUM_LIB_RUNTIME_APPINTERNAL_H
