//===- SfnToUnum.cpp - Step Functions state machines to Unum apps ---------===//
//
// The lowering works on a small graph of functions rather than on IR: first
// every state that runs code gets a function (helpers for Map and Parallel,
// numbered in the order the original compiler finished them), then the edges
// are derived from the transitions, then the original compiler's trimming
// removes the helpers that are not needed, and finally the graph is emitted as
// one `unum.app`. See the pass description in Passes.td for the rules.
//
//===----------------------------------------------------------------------===//
#include "unum/Config/Cycles.h"
#include "unum/Config/JsonPath.h"
#include "unum/Config/Limits.h"
#include "unum/Conversion/Passes.h"
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <map>

namespace unum {
#define GEN_PASS_DEF_CONVERTSFNTOUNUM
#include "unum/Conversion/Passes.h.inc"
} // namespace unum

using namespace mlir;
using namespace unum;
using namespace unum::sfn;

namespace {

enum class EdgeKind { Scalar, Map, FanIn, Error };

/// The most branches of a Parallel whose tails list each other in their
/// fan-ins (the original compiler's form, which the conformance configs
/// use); a wider Parallel's branches share one end function (addEdges).
constexpr size_t kMaxListedBranches = 16;

struct Edge {
  size_t target;
  EdgeKind kind = EdgeKind::Scalar;
  std::vector<std::string> values; // FanIn
  std::string cond;                // empty: always taken
  bool pop = false;
  Attribute resultPath; // Error: a Catch's ResultPath (unit: null)
  /// Error: passes an uncaught failure on to the body's last function.
  bool propagate = false;
  std::optional<int64_t> maxConcurrency; // Map: the state's MaxConcurrency
};

struct Function {
  enum class Role { User, MapEntry, MapSink, ParallelEntry, ParallelSink };
  std::string name;
  Location loc;
  Operation *anchor = nullptr; // see Lowering::addFunction
  Role role = Role::User;
  std::vector<Edge> edges;
  bool nextIsList = false;
  bool start = false;
  bool removed = false;
  std::optional<std::string> handler, builtin;
  ArrayAttr retriers;
  std::optional<int64_t> timeout; // TimeoutSeconds
  llvm::SmallVector<NamedAttribute> dataflow;
  /// A Map or Parallel entry whose sink needs the state's input, and that
  /// sink, naming the entry (see linkStateInput).
  bool saveInput = false;
  std::optional<size_t> stateInput;
  /// The ASL state the function runs ($$.State.Name), when it is not the
  /// function's name.
  std::string stateName;

  bool hasDataflow(ArrayRef<StringRef> except = {}) const {
    return llvm::any_of(dataflow, [&](NamedAttribute a) {
      return !llvm::is_contained(except, a.getName().getValue());
    });
  }
};

/// Where control goes when a state is entered: a function, or the end of the
/// enclosing scope; taken only when `cond` holds.
struct Target {
  std::optional<size_t> fn; // none: the scope ends here
  std::string cond;
};

std::string andExpr(const std::string &a, const std::string &b) {
  if (a.empty())
    return b;
  if (b.empty())
    return a;
  return "(" + a + ") and (" + b + ")";
}

std::string notExpr(const std::string &a) {
  return a.empty() ? "false" : "not (" + a + ")";
}

std::string quoteString(StringRef s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "'";
}

/// A reference path as a conditional on the function's output:
/// `$.a['b c'][0]` -> `$out.a['b c'][0]`; a context path on the context
/// object: `$$.Execution.Input.a` -> `$ctx.Execution.Input.a`. The importer
/// checked the path with the same grammar (unum/Config/JsonPath.h).
std::string pathToExpr(StringRef path) {
  config::ParseError error;
  std::optional<config::JsonPath> parsed = config::parseJsonPath(
      std::string_view(path.data(), path.size()), {true, true}, error);
  if (!parsed)
    return "$out" + path.drop_front(1).str(); // the parse of the result fails
  std::string out =
      parsed->root == config::JsonPath::Root::Context ? "$ctx" : "$out";
  for (const config::Segment &seg : parsed->segments) {
    const config::Selector &sel = seg.selectors.front();
    if (sel.kind == config::Selector::Kind::Index) {
      out += "[" + std::to_string(sel.index) + "]";
      continue;
    }
    StringRef name = sel.name;
    bool plain =
        !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
        llvm::all_of(name,
                     [](char c) { return llvm::isAlnum(c) || c == '_'; }) &&
        !llvm::is_contained({"and", "or", "not", "true", "false", "null"},
                            name);
    out += plain ? "." + name.str() : "[" + quoteString(name) + "]";
  }
  return out;
}

/// A function name usable in instance names: [A-Za-z0-9_-].
std::string sanitize(StringRef name) {
  std::string out;
  for (char c : name)
    out += (llvm::isAlnum(c) || c == '_' || c == '-') ? c : '_';
  if (out.empty())
    out = "State";
  // The index infix must never appear inside a name.
  for (size_t pos; (pos = StringRef(out).find_insensitive("-unumindex-")) !=
                   StringRef::npos;)
    out[pos] = '_';
  return out;
}

/// One scope of states: the state machine, a Parallel branch, a Map iterator.
struct Scope {
  Region *region;
  StringRef start;
  unsigned depth; // fan-out levels around it
  llvm::StringMap<Operation *> states;
  std::vector<std::pair<size_t, std::string>> exits; // function, condition
  /// The functions whose failure, when no Catch of theirs takes it (the
  /// condition), fails the Map iteration or Parallel branch this scope is.
  std::vector<std::pair<size_t, std::string>> raisers;
  /// A failure here must fail the state around (it, or a state around it,
  /// has Retry or Catch); otherwise it ends the workflow where it happens.
  bool propagates = false;

  Scope(Region &r, StringRef start, unsigned depth)
      : region(&r), start(start), depth(depth) {
    for (Operation &op : r.front())
      states[op.getAttrOfType<StringAttr>("name").getValue()] = &op;
  }
};

class Lowering {
public:
  Lowering(StateMachineOp machine, bool checkpoint, std::optional<bool> debug)
      : machine(machine), checkpoint(checkpoint), debug(debug) {}

  LogicalResult run();
  LogicalResult emit(OpBuilder &builder);

private:
  /// A function for `anchor`: the state it runs (a Map or Parallel state
  /// for its helpers and the end of its bodies), which decides its "Loop".
  size_t addFunction(StringRef name, Operation *anchor, Function::Role role) {
    std::string unique = name.str();
    for (unsigned i = 1; names.count(unique); ++i)
      unique = (name + "_" + Twine(i)).str();
    names.insert(unique);
    Function fn{unique, anchor->getLoc()};
    fn.anchor = anchor;
    fn.role = role;
    functions.push_back(std::move(fn));
    return functions.size() - 1;
  }

  LogicalResult createFunctions(Scope &scope);
  LogicalResult visitState(Scope &scope, Operation *state);
  FailureOr<std::vector<Target>> entryTargets(Scope &scope, StringRef name,
                                              unsigned depth = 0);
  FailureOr<std::vector<Target>> choiceTargets(Scope &scope, ChoiceOp choice,
                                               unsigned depth = 0);
  LogicalResult connect(Scope &scope, size_t from, Operation *state);
  LogicalResult connectCatchers(Scope &scope, size_t from, Operation *state);
  LogicalResult applyChoiceOutputPath(Scope &scope, ChoiceOp choice,
                                      SmallVector<Target> &targets);
  LogicalResult addEdges(Scope &scope);
  FailureOr<size_t> scopeEntry(Scope &scope);
  FailureOr<size_t> entryFunction(Scope &scope, StringRef name, bool direct);
  FailureOr<size_t> scopeExit(Scope &scope, Operation *owner, size_t sink,
                              StringRef branch,
                              std::optional<size_t> *shared = nullptr);
  void propagateFailures(Scope &scope, size_t last);
  std::optional<int64_t> loopOf(const Function &fn) const;
  void trim();

  StateMachineOp machine;
  bool checkpoint;
  std::optional<bool> debug;
  std::vector<Function> functions;
  llvm::StringSet<> names;
  llvm::StringSet<> usedResources;
  llvm::DenseMap<Operation *, size_t> stateFunction; // Task and built-ins
  /// A Choice without Default: the built-in Fail its no-match case runs.
  llvm::DenseMap<Operation *, size_t> noChoiceMatched;
  llvm::DenseMap<Operation *, std::pair<size_t, size_t>> helpers; // entry, sink
  llvm::DenseSet<Operation *> visited;
  llvm::DenseSet<Operation *> resolving; // cycle guard for entryTargets
  llvm::DenseSet<Operation *> cyclic;    // states on a loop of their scope
  llvm::DenseMap<Operation *, size_t> materialized; // see entryFunction
  unsigned mapCount = 0, parallelCount = 0;
};

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

void addField(Function &fn, Operation *op, StringRef attr, StringRef key) {
  Attribute value = op->getAttr(attr);
  // `$` is the default of every path field: nothing to do at run time.
  auto path = dyn_cast_or_null<StringAttr>(value);
  if (path && path.getValue() == "$" && key.ends_with("Path"))
    return;
  if (value)
    fn.dataflow.push_back(
        NamedAttribute(StringAttr::get(op->getContext(), key), value));
}

/// A Map or Parallel sink applies its ResultPath to the state's input, which
/// only its entry has: unless ResultPath is `$` (the default, which addField
/// drops) the entry saves its input for the sink. So it does when the state
/// has Retry (the sink re-enters the state with that input) or a Catch (a
/// ResultPath places the error in that input; and a sink with StateInput is
/// where the runtime knows that a failed iteration or branch fails the state,
/// so that its Catch applies).
void linkStateInput(std::vector<Function> &functions, size_t entry, size_t sink,
                    Operation *state) {
  bool relative = llvm::any_of(functions[sink].dataflow, [](NamedAttribute a) {
    return a.getName() == "ResultPath";
  });
  if (state->getAttr("retry"))
    relative = true;
  if (state->getAttr("catchers"))
    relative = true;
  if (!relative)
    return;
  functions[entry].saveInput = true;
  functions[sink].stateInput = entry;
}

/// The text of a function's data-flow fields.
std::string dataflowText(ArrayRef<NamedAttribute> dataflow) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (NamedAttribute field : dataflow)
    os << field.getValue();
  return text;
}

/// Whether a data-flow field reads the context object (`$$...`), which is
/// where the state's name matters.
bool readsContext(ArrayRef<NamedAttribute> dataflow) {
  return StringRef(dataflowText(dataflow)).contains("$$");
}

/// Whether `text` may read the execution's Input or StartTime through
/// `root` (`$$` in a data-flow field, `$ctx` in a condition): any use of
/// the whole object or of $$.Execution but its Id and Name.
bool readsExecution(StringRef text, StringRef root) {
  for (size_t at = text.find(root); at != StringRef::npos;
       at = text.find(root, at + 1)) {
    StringRef rest = text.substr(at + root.size());
    if (!rest.consume_front("."))
      return true; // the whole object
    if (!rest.consume_front("Execution"))
      continue;
    if (!rest.consume_front("."))
      return true;
    if (!rest.starts_with("Id") && !rest.starts_with("Name"))
      return true;
  }
  return false;
}

/// Whether a Choice rule (or a rule inside it) reads the context object.
bool ruleReadsContext(DictionaryAttr rule) {
  for (NamedAttribute field : rule) {
    Attribute v = field.getValue();
    if (auto s = dyn_cast<StringAttr>(v);
        s && s.getValue().starts_with("$$") &&
        (field.getName() == "Variable" ||
         field.getName().getValue().ends_with("Path")))
      return true;
    if (auto inner = dyn_cast<DictionaryAttr>(v);
        inner && ruleReadsContext(inner))
      return true;
    if (auto list = dyn_cast<ArrayAttr>(v))
      for (Attribute item : list)
        if (auto d = dyn_cast<DictionaryAttr>(item); d && ruleReadsContext(d))
          return true;
  }
  return false;
}

/// Fan-out indices are the config language's $0..$31: a Map or Parallel
/// nested deeper has no index to name its instances by.
LogicalResult checkDepth(Operation *state, unsigned depth) {
  if (depth <= config::kMaxIndexVariables)
    return success();
  // Located at the state, without the op (which means nothing to the ASL's
  // author).
  return mlir::emitError(state->getLoc())
         << "Map and Parallel states nest " << depth
         << " levels deep here; Unum configs address at most "
         << config::kMaxIndexVariables << " levels of fan-out ($0..$"
         << config::kMaxIndexVariables - 1 << ")";
}

bool isIdentityPass(PassOp pass) {
  return !pass.getResult() && !pass.getParameters() && !pass.getResultPath() &&
         !pass.getInputPath() && !pass.getOutputPath();
}

/// The states a state can go to, in the order its transitions are written:
/// Next, the Choice rules' and Default, the Catchers'.
SmallVector<StringRef> successors(Operation *state) {
  SmallVector<StringRef> out;
  if (auto next = state->getAttrOfType<StringAttr>("next"))
    out.push_back(next.getValue());
  if (auto choice = dyn_cast<ChoiceOp>(state)) {
    for (Attribute rule : choice.getChoices())
      out.push_back(
          cast<DictionaryAttr>(rule).getAs<StringAttr>("Next").getValue());
    if (auto def = choice.getDefaultState())
      out.push_back(*def);
  }
  if (auto catchers = state->getAttrOfType<ArrayAttr>("catchers"))
    for (Attribute c : catchers)
      out.push_back(
          cast<DictionaryAttr>(c).getAs<StringAttr>("Next").getValue());
  return out;
}

/// Adds to `cyclic` the states of `block` (one scope) that lie on a loop of
/// its transitions.
void markCycles(Block &block, llvm::DenseSet<Operation *> &cyclic) {
  std::vector<Operation *> nodes;
  llvm::StringMap<unsigned> id;
  for (Operation &op : block) {
    id[op.getAttrOfType<StringAttr>("name").getValue()] = nodes.size();
    nodes.push_back(&op);
  }
  std::vector<std::vector<unsigned>> succ(nodes.size());
  for (unsigned v = 0; v < nodes.size(); ++v)
    for (StringRef name : successors(nodes[v]))
      if (auto it = id.find(name); it != id.end())
        succ[v].push_back(it->second);
  std::vector<bool> onCycle = config::onCycle(succ);
  for (unsigned v = 0; v < nodes.size(); ++v)
    if (onCycle[v])
      cyclic.insert(nodes[v]);
  // A Map or Parallel state with Retry re-enters itself: a loop of one.
  for (Operation *state : nodes)
    if (isa<sfn::MapOp, ParallelOp>(state) && state->getAttr("retry"))
      cyclic.insert(state);
}

/// Depth-first from the start, in the order the transitions are written
/// (states nested in a Map or Parallel first): the order in which the
/// original compiler numbered its helpers. Iterative, since chains can be
/// as long as the state machine.
LogicalResult Lowering::createFunctions(Scope &scope) {
  auto it = scope.states.find(scope.start);
  if (it == scope.states.end())
    return machine.emitOpError()
           << "unknown start state '" << scope.start << "'";
  SmallVector<Operation *> stack = {it->second};
  while (!stack.empty()) {
    Operation *state = stack.pop_back_val();
    if (!visited.insert(state).second)
      continue;
    if (failed(visitState(scope, state)))
      return failure();
    SmallVector<StringRef> next = successors(state);
    for (StringRef name : llvm::reverse(next))
      stack.push_back(scope.states.lookup(name));
  }
  return success();
}

LogicalResult Lowering::visitState(Scope &scope, Operation *state) {
  StringRef stateName = state->getAttrOfType<StringAttr>("name").getValue();

  if (auto task = dyn_cast<TaskOp>(state)) {
    StringRef resource = task.getResource();
    if (resource.starts_with("arn:"))
      resource = resource.rsplit(':').second;
    // The first state to use a handler names the function after it; later
    // states get their own function running the same handler.
    bool shared = !usedResources.insert(resource).second;
    size_t fn = addFunction(shared ? sanitize(stateName) : sanitize(resource),
                            state, Function::Role::User);
    if (shared || functions[fn].name != resource)
      functions[fn].handler = resource.str();
    for (auto [attr, key] : {std::pair{"input_path", "InputPath"},
                             {"parameters", "Parameters"},
                             {"lambda_invoke", "LambdaInvoke"},
                             {"result_selector", "ResultSelector"},
                             {"result_path", "ResultPath"},
                             {"output_path", "OutputPath"},
                             {"timeout_seconds_path", "TimeoutSecondsPath"}})
      addField(functions[fn], task, attr, key);
    // The retriers as written: the runtime applies them (ErrorEquals in
    // order, waits with backoff and jitter).
    functions[fn].retriers = task.getRetryAttr();
    if (auto timeout = task->getAttrOfType<IntegerAttr>("timeout_seconds"))
      functions[fn].timeout = timeout.getInt();
    stateFunction[state] = fn;
  } else if (auto pass = dyn_cast<PassOp>(state)) {
    if (!isIdentityPass(pass)) {
      size_t fn = addFunction(sanitize(stateName), state, Function::Role::User);
      functions[fn].builtin = "Pass";
      for (auto [attr, key] : {std::pair{"input_path", "InputPath"},
                               {"result", "Result"},
                               {"parameters", "Parameters"},
                               {"result_path", "ResultPath"},
                               {"output_path", "OutputPath"}})
        addField(functions[fn], pass, attr, key);
      stateFunction[state] = fn;
    }
  } else if (auto wait = dyn_cast<WaitOp>(state)) {
    size_t fn = addFunction(sanitize(stateName), state, Function::Role::User);
    functions[fn].builtin = "Wait";
    for (auto [attr, key] : {std::pair{"input_path", "InputPath"},
                             {"seconds", "Seconds"},
                             {"timestamp", "Timestamp"},
                             {"seconds_path", "SecondsPath"},
                             {"timestamp_path", "TimestampPath"},
                             {"output_path", "OutputPath"}})
      addField(functions[fn], wait, attr, key);
    stateFunction[state] = fn;
  } else if (isa<SucceedOp>(state)) {
    // A Succeed with InputPath or OutputPath shapes the output: a built-in
    // (without them it folds away).
    auto shapes = [&](StringRef attr) {
      auto path = dyn_cast_or_null<StringAttr>(state->getAttr(attr));
      return state->getAttr(attr) && !(path && path.getValue() == "$");
    };
    if (shapes("input_path") || shapes("output_path")) {
      size_t fn = addFunction(sanitize(stateName), state, Function::Role::User);
      functions[fn].builtin = "Succeed";
      for (auto [attr, key] : {std::pair{"input_path", "InputPath"},
                               {"output_path", "OutputPath"}})
        addField(functions[fn], state, attr, key);
      stateFunction[state] = fn;
    }
  } else if (auto choice = dyn_cast<ChoiceOp>(state)) {
    auto path = [&](StringRef attr) {
      auto p = dyn_cast_or_null<StringAttr>(state->getAttr(attr));
      return state->getAttr(attr) && !(p && p.getValue() == "$");
    };
    bool context = llvm::any_of(choice.getChoices(), [](Attribute rule) {
      return ruleReadsContext(cast<DictionaryAttr>(rule));
    });
    if (path("input_path") || path("output_path") || context) {
      // The rules see the input after InputPath, which is also what the
      // Choice passes on: a built-in Pass whose output the rules read
      // (OutputPath then applies on the way to the next state: connect).
      // Rules that read the context object ($$) read the Choice's own (its
      // $$.State.Name): they too are this function's.
      size_t fn = addFunction(sanitize(stateName), state, Function::Role::User);
      functions[fn].builtin = "Pass";
      addField(functions[fn], state, "input_path", "InputPath");
      stateFunction[state] = fn;
    }
    if (!choice.getDefaultState()) {
      size_t fn = addFunction(sanitize(stateName) + "-NoChoiceMatched", state,
                              Function::Role::User);
      functions[fn].builtin = "Fail";
      MLIRContext *context = state->getContext();
      functions[fn].dataflow.push_back(
          NamedAttribute(StringAttr::get(context, "Error"),
                         StringAttr::get(context, "States.NoChoiceMatched")));
      functions[fn].dataflow.push_back(NamedAttribute(
          StringAttr::get(context, "Cause"),
          StringAttr::get(context, "no choice rule of '" + stateName +
                                       "' matched and it has no Default")));
      noChoiceMatched[state] = fn;
    }
  } else if (auto fail = dyn_cast<FailOp>(state)) {
    size_t fn = addFunction(sanitize(stateName), state, Function::Role::User);
    functions[fn].builtin = "Fail";
    for (auto [attr, key] : {std::pair{"error", "Error"},
                             {"cause", "Cause"},
                             {"error_path", "ErrorPath"},
                             {"cause_path", "CausePath"}})
      addField(functions[fn], fail, attr, key);
    stateFunction[state] = fn;
  } else if (auto map = dyn_cast<sfn::MapOp>(state)) {
    if (failed(checkDepth(state, scope.depth + 1)))
      return failure();
    Scope inner(map.getIterator(), map.getStart(), scope.depth + 1);
    if (failed(createFunctions(inner)))
      return failure();
    unsigned k = mapCount++;
    size_t entry = addFunction(("UnumMap" + Twine(k)).str(), state,
                               Function::Role::MapEntry);
    size_t sink = addFunction(("UnumSinkMap" + Twine(k)).str(), state,
                              Function::Role::MapSink);
    addField(functions[entry], map, "input_path", "InputPath");
    addField(functions[entry], map, "items_path", "ItemsPath");
    addField(functions[entry], map, "item_selector", "ItemSelector");
    addField(functions[sink], map, "result_selector", "ResultSelector");
    addField(functions[sink], map, "result_path", "ResultPath");
    addField(functions[sink], map, "output_path", "OutputPath");
    linkStateInput(functions, entry, sink, state);
    functions[sink].retriers = map.getRetryAttr();
    helpers[state] = {entry, sink};
  } else if (auto parallel = dyn_cast<ParallelOp>(state)) {
    if (failed(checkDepth(state, scope.depth + 1)))
      return failure();
    for (auto [region, start] :
         llvm::zip(parallel.getBranches(), parallel.getStarts())) {
      Scope inner(region, cast<StringAttr>(start).getValue(), scope.depth + 1);
      if (failed(createFunctions(inner)))
        return failure();
    }
    unsigned k = parallelCount++;
    size_t entry = addFunction(("UnumParallel" + Twine(k)).str(), state,
                               Function::Role::ParallelEntry);
    size_t sink = addFunction(("UnumSinkParallel" + Twine(k)).str(), state,
                              Function::Role::ParallelSink);
    addField(functions[entry], parallel, "input_path", "InputPath");
    addField(functions[entry], parallel, "parameters", "Parameters");
    addField(functions[sink], parallel, "result_selector", "ResultSelector");
    addField(functions[sink], parallel, "result_path", "ResultPath");
    addField(functions[sink], parallel, "output_path", "OutputPath");
    linkStateInput(functions, entry, sink, state);
    functions[sink].retriers = parallel.getRetryAttr();
    helpers[state] = {entry, sink};
  }
  // $$.State.Name is the state's name, which the function's may not be.
  for (auto *map : {&stateFunction, &noChoiceMatched})
    if (auto it = map->find(state); it != map->end())
      functions[it->second].stateName = stateName.str();
  if (auto it = helpers.find(state); it != helpers.end()) {
    functions[it->second.first].stateName = stateName.str();
    functions[it->second.second].stateName = stateName.str();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Choice rules -> conditionals
//===----------------------------------------------------------------------===//

FailureOr<std::string> literal(Attribute value, Operation *op) {
  if (auto s = dyn_cast<StringAttr>(value))
    return quoteString(s.getValue());
  if (auto b = dyn_cast<BoolAttr>(value))
    return std::string(b.getValue() ? "true" : "false");
  if (auto i = dyn_cast<IntegerAttr>(value))
    return std::to_string(i.getInt());
  if (auto f = dyn_cast<FloatAttr>(value)) {
    // The shortest text that reads back as the same double.
    char text[32];
    double d = f.getValueAsDouble();
    for (int precision = 1; precision <= 17; ++precision) {
      std::snprintf(text, sizeof text, "%.*g", precision, d);
      if (std::strtod(text, nullptr) == d)
        break;
    }
    std::string out = text;
    // A conditional reads "1" as an integer: keep the number a float.
    if (out.find_first_of(".eEn") == std::string::npos)
      out += ".0";
    return out;
  }
  return failure();
}

FailureOr<std::string> ruleToExpr(DictionaryAttr rule, Operation *choice) {
  auto combine = [&](StringRef key, StringRef op) -> FailureOr<std::string> {
    std::string out;
    for (Attribute sub : rule.getAs<ArrayAttr>(key)) {
      FailureOr<std::string> part =
          ruleToExpr(cast<DictionaryAttr>(sub), choice);
      if (failed(part))
        return failure();
      out += (out.empty() ? "(" : " " + op.str() + " (") + *part + ")";
    }
    return out;
  };
  if (rule.get("And"))
    return combine("And", "and");
  if (rule.get("Or"))
    return combine("Or", "or");
  if (auto inner = rule.getAs<DictionaryAttr>("Not")) {
    FailureOr<std::string> part = ruleToExpr(inner, choice);
    if (failed(part))
      return failure();
    return "not (" + *part + ")";
  }
  auto variable = rule.getAs<StringAttr>("Variable");
  if (!variable)
    return choice->emitOpError() << "has a choice rule without 'Variable'";
  std::string lhs = pathToExpr(variable.getValue());

  // As the ASL specification says: a comparison whose variable (or, for a
  // *Path operator, whose other path) is absent or of another type than the
  // operator's does not match; it is never an error.
  static const std::pair<StringRef, StringRef> comparisons[] = {
      {"Equals", "=="},
      {"LessThan", "<"},
      {"GreaterThan", ">"},
      {"LessThanEquals", "<="},
      {"GreaterThanEquals", ">="}};
  static const std::pair<StringRef, StringRef> typeTests[] = {
      {"IsPresent", "is_present"}, {"IsNull", "is_null"},
      {"IsNumeric", "is_numeric"}, {"IsString", "is_string"},
      {"IsBoolean", "is_boolean"}, {"IsTimestamp", "is_timestamp"}};
  for (NamedAttribute field : rule) {
    StringRef key = field.getName().getValue();
    if (key == "Variable" || key == "Next" || key == "Comment")
      continue;
    for (auto [name, predicate] : typeTests) {
      if (key != name)
        continue;
      std::string test = predicate.str() + "(" + lhs + ")";
      if (cast<BoolAttr>(field.getValue()).getValue())
        return test;
      // IsX: false holds for a present value of another type.
      return key == "IsPresent" ? "not " + test
                                : "is_present(" + lhs + ") and not " + test;
    }
    if (key == "StringMatches")
      return "is_string(" + lhs + ") and matches(" + lhs + ", " +
             quoteString(cast<StringAttr>(field.getValue()).getValue()) + ")";
    static const std::pair<StringRef, StringRef> types[] = {
        {"String", "is_string"},
        {"Numeric", "is_numeric"},
        {"Boolean", "is_boolean"},
        {"Timestamp", "is_timestamp"}};
    for (auto [type, guard] : types) {
      if (!key.consume_front(type))
        continue;
      bool isPath = key.consume_back("Path");
      for (auto [suffix, op] : comparisons) {
        if (key != suffix)
          continue;
        std::string rhs;
        if (isPath) {
          rhs = pathToExpr(cast<StringAttr>(field.getValue()).getValue());
        } else {
          FailureOr<std::string> value = literal(field.getValue(), choice);
          if (failed(value))
            break;
          rhs = *value;
        }
        std::string test = guard.str() + "(" + lhs + ")";
        if (isPath)
          test += " and " + guard.str() + "(" + rhs + ")";
        // Timestamps compare as the instants they denote.
        if (type == "Timestamp")
          return test + " and instant(" + lhs + ") " + op.str() + " instant(" +
                 rhs + ")";
        return test + " and " + lhs + " " + op.str() + " " + rhs;
      }
      break;
    }
    return choice->emitOpError()
           << "choice operator '" << field.getName().getValue()
           << "' cannot be expressed as a Unum conditional yet";
  }
  return choice->emitOpError() << "has a choice rule without an operator";
}

/// The targets of a Choice's rules and Default; `depth` counts the Choice
/// states folded into the conditions on the way here (see entryTargets).
FailureOr<std::vector<Target>>
Lowering::choiceTargets(Scope &scope, ChoiceOp choice, unsigned depth) {
  std::vector<Target> targets;
  std::string noneBefore; // none of the earlier rules matched
  auto addBranch = [&](StringRef next,
                       const std::string &guard) -> LogicalResult {
    FailureOr<std::vector<Target>> inner = entryTargets(scope, next, depth);
    if (failed(inner))
      return failure();
    for (Target t : *inner) {
      t.cond = andExpr(guard, t.cond);
      targets.push_back(std::move(t));
    }
    return success();
  };
  for (Attribute ruleAttr : choice.getChoices()) {
    auto rule = cast<DictionaryAttr>(ruleAttr);
    FailureOr<std::string> expr = ruleToExpr(rule, choice);
    if (failed(expr))
      return failure();
    if (failed(addBranch(rule.getAs<StringAttr>("Next").getValue(),
                         andExpr(noneBefore, *expr))))
      return failure();
    noneBefore = andExpr(noneBefore, notExpr(*expr));
  }
  if (auto def = choice.getDefaultState()) {
    if (failed(addBranch(*def, noneBefore)))
      return failure();
  } else if (noneBefore != "false") {
    // No rule matched and there is no Default: States.NoChoiceMatched.
    targets.push_back({noChoiceMatched.lookup(choice), noneBefore});
  }
  return targets;
}

//===----------------------------------------------------------------------===//
// Edges
//===----------------------------------------------------------------------===//

/// Where entering state `name` leads. Identity Pass states are followed in
/// a loop (a chain of them can be as long as the state machine); a Choice
/// folds its rules into the conditions of the targets it leads to, nesting
/// them a level deeper, so more Choice states in a row than a condition can
/// nest (limits::kMaxExprNesting) are refused here, at the Choice, rather
/// than followed recursively.
FailureOr<std::vector<Target>>
Lowering::entryTargets(Scope &scope, StringRef name, unsigned depth) {
  SmallVector<Operation *> entered; // folded states on the way
  llvm::scope_exit done([&] {
    for (Operation *state : entered)
      resolving.erase(state);
  });
  for (;;) {
    Operation *state = scope.states.lookup(name);
    if (auto it = stateFunction.find(state); it != stateFunction.end())
      return std::vector<Target>{{it->second, ""}};
    if (auto it = helpers.find(state); it != helpers.end())
      return std::vector<Target>{{it->second.first, ""}};
    if (isa<SucceedOp>(state))
      return std::vector<Target>{{std::nullopt, ""}};

    // Folded states: follow them, guarding against loops of folded states.
    if (!resolving.insert(state).second)
      return state->emitOpError()
             << "is part of a loop of Choice and Pass states that never runs "
                "a function";
    entered.push_back(state);
    if (auto choice = dyn_cast<ChoiceOp>(state)) {
      if (depth >= limits::kMaxExprNesting)
        return mlir::emitError(state->getLoc())
               << "more than " << limits::kMaxExprNesting
               << " Choice states in a row before a state that runs a "
                  "function: their rules would make a condition nested "
                  "deeper than a condition can be (put a Pass with a "
                  "Result, or another state that runs, between them)";
      return choiceTargets(scope, choice, depth + 1);
    }
    auto next = cast<PassOp>(state).getNext();
    if (!next)
      return std::vector<Target>{{std::nullopt, ""}};
    name = *next;
  }
}

LogicalResult Lowering::connect(Scope &scope, size_t from, Operation *state) {
  SmallVector<Target> targets;
  if (auto choice = dyn_cast<ChoiceOp>(state)) {
    // A Choice with InputPath or OutputPath: its rules decide where its
    // function goes.
    FailureOr<std::vector<Target>> rules = choiceTargets(scope, choice);
    if (failed(rules))
      return failure();
    targets.append(rules->begin(), rules->end());
    if (failed(applyChoiceOutputPath(scope, choice, targets)))
      return failure();
  } else if (auto next = state->getAttrOfType<StringAttr>("next")) {
    FailureOr<std::vector<Target>> entry = entryTargets(scope, next.getValue());
    if (failed(entry))
      return failure();
    targets.append(entry->begin(), entry->end());
  } else if (!isa<FailOp>(state)) {
    targets.push_back({std::nullopt, ""});
  }
  for (Target &t : targets) {
    if (t.fn)
      functions[from].edges.push_back({*t.fn, EdgeKind::Scalar, {}, t.cond});
    else
      scope.exits.push_back({from, t.cond});
  }
  return connectCatchers(scope, from, state);
}

/// The Catch edges of `from`, which runs `state` (or enters it); what they
/// do not catch fails the body `scope` is (a raiser).
LogicalResult Lowering::connectCatchers(Scope &scope, size_t from,
                                        Operation *state) {
  // Catchers, tried in order: the first whose ErrorEquals matches. On an
  // error edge `$out` is the error: {"Error": ..., "Cause": ...}.
  std::string noneBefore;
  if (auto catchers = state->getAttrOfType<ArrayAttr>("catchers")) {
    for (Attribute c : catchers) {
      auto dict = cast<DictionaryAttr>(c);
      std::string matches;
      for (Attribute e : dict.getAs<ArrayAttr>("ErrorEquals")) {
        StringRef error = cast<StringAttr>(e).getValue();
        if (error == "States.ALL") {
          matches.clear();
          break;
        }
        // On a Task, States.TaskFailed names every error but
        // States.Timeout; on a Map or Parallel (whose error is an
        // iteration's or branch's) it is just a name.
        std::string test =
            error == "States.TaskFailed" && !isa<sfn::MapOp, ParallelOp>(state)
                ? "$out.Error != 'States.Timeout'"
                : "$out.Error == " + quoteString(error);
        matches = matches.empty() ? test : matches + " or " + test;
      }
      // The handler state gets a function even if it would fold away (a
      // Succeed, an identity Pass, a Choice): the caught value is its input.
      FailureOr<size_t> handler =
          entryFunction(scope, dict.getAs<StringAttr>("Next").getValue(),
                        /*direct=*/false);
      if (failed(handler))
        return failure();
      std::string guard =
          andExpr(noneBefore, matches.empty() ? "" : "(" + matches + ")");
      Edge edge{*handler, EdgeKind::Error, {}, guard};
      edge.resultPath = dict.get("ResultPath");
      functions[from].edges.push_back(std::move(edge));
      if (matches.empty())
        return success(); // everything is caught (but States.Runtime)
      noneBefore = andExpr(noneBefore, notExpr(matches));
    }
  }
  scope.raisers.push_back({from, noneBefore});
  return success();
}

/// A Choice's OutputPath applies to what it passes on, after its rules read
/// their input: each target is reached through a built-in Pass with the
/// OutputPath (one per target state; the NoChoiceMatched Fail needs none).
LogicalResult Lowering::applyChoiceOutputPath(Scope &scope, ChoiceOp choice,
                                              SmallVector<Target> &targets) {
  auto path = dyn_cast_or_null<StringAttr>(choice->getAttr("output_path"));
  if (!choice->getAttr("output_path") || (path && path.getValue() == "$"))
    return success();
  StringRef name = choice->getAttrOfType<StringAttr>("name").getValue();
  std::optional<size_t> noMatch;
  if (auto it = noChoiceMatched.find(choice); it != noChoiceMatched.end())
    noMatch = it->second;
  std::map<std::optional<size_t>, size_t> through;
  for (Target &t : targets) {
    if (t.fn && t.fn == noMatch)
      continue;
    auto [it, fresh] = through.try_emplace(t.fn, 0);
    if (fresh) {
      size_t out = addFunction(sanitize(name) + "-OutputPath", choice,
                               Function::Role::User);
      functions[out].builtin = "Pass";
      functions[out].stateName = name.str();
      addField(functions[out], choice, "output_path", "OutputPath");
      if (t.fn)
        functions[out].edges.push_back({*t.fn, EdgeKind::Scalar, {}, ""});
      else
        scope.exits.push_back({out, ""});
      // OutputPath can fail (States.Runtime).
      scope.raisers.push_back({out, ""});
      it->second = out;
    }
    t.fn = it->second;
  }
  return success();
}

/// The function that enters `scope`: its start state's (see
/// entryFunction).
FailureOr<size_t> Lowering::scopeEntry(Scope &scope) {
  return entryFunction(scope, scope.start, /*direct=*/true);
}

/// The function that runs when state `name` is entered: its own, or, when
/// it folds away (a Choice, an identity Pass, a Succeed), the one it leads
/// to if that is a single unconditional function and `direct` allows it,
/// else a built-in pass-through that evaluates the conditions and continues
/// (made once per state).
FailureOr<size_t> Lowering::entryFunction(Scope &scope, StringRef name,
                                          bool direct) {
  Operation *state = scope.states.lookup(name);
  if (auto it = materialized.find(state); it != materialized.end())
    return it->second;
  FailureOr<std::vector<Target>> entry = entryTargets(scope, name);
  if (failed(entry))
    return failure();
  bool single =
      entry->size() == 1 && (*entry)[0].fn && (*entry)[0].cond.empty();
  bool own = stateFunction.count(state) || helpers.count(state);
  if (single && (direct || own))
    return *(*entry)[0].fn;
  size_t fn = addFunction(sanitize(name), state, Function::Role::User);
  functions[fn].builtin = "Pass";
  materialized[state] = fn;
  for (Target &t : *entry) {
    if (t.fn)
      functions[fn].edges.push_back({*t.fn, EdgeKind::Scalar, {}, t.cond});
    else
      scope.exits.push_back({fn, t.cond});
  }
  return fn;
}

/// The last function of a Map iterator or Parallel branch: the one tail
/// that reports to the sink's fan-in. A body that ends in one function,
/// unconditionally, and not in a loop ends there (so loop-free apps keep
/// their functions); otherwise (several end states, a Choice that ends it,
/// a last state that loops) every end goes to a new built-in Pass
/// ("UnumEnd..."), which runs once per iteration or branch, after any loop.
/// With `shared`, every branch of a wide Parallel ends in that one built-in
/// Pass (made by the first branch), whatever its end: see addEdges.
FailureOr<size_t> Lowering::scopeExit(Scope &scope, Operation *owner,
                                      size_t sink, StringRef branch,
                                      std::optional<size_t> *shared) {
  // A body whose every path ends in a Fail never reports: the Fail ends
  // the workflow (the Map or Parallel state fails with its error). Its end
  // function is then never reached.
  if (!shared && !scope.exits.empty()) {
    size_t fn = scope.exits.front().first;
    bool single = llvm::all_of(scope.exits, [&](auto &exit) {
      return exit.first == fn && exit.second.empty();
    });
    if (single && !cyclic.contains(functions[fn].anchor))
      return fn;
  }
  StringRef kind = functions[sink].name;
  kind.consume_front("UnumSink");
  size_t end =
      shared && *shared
          ? **shared
          : addFunction(("UnumEnd" + kind + (shared ? "" : branch)).str(),
                        owner, Function::Role::User);
  functions[end].builtin = "Pass";
  if (shared)
    *shared = end;
  for (auto &[from, cond] : scope.exits)
    functions[from].edges.push_back({end, EdgeKind::Scalar, {}, cond});
  return end;
}

/// A failure inside a Map iteration or Parallel branch that no Catch there
/// takes fails the state: each raiser passes it on to the body's last
/// function (a "Propagate" error edge), which reports it to the sink as its
/// outcome over its "Propagate" fan-in; the last function itself reports
/// its own failures. Only where a Retry or Catch of the state, or of a state
/// around it, needs the failure: elsewhere it ends the workflow where it
/// happens, as before, and the functions keep their configs.
void Lowering::propagateFailures(Scope &scope, size_t last) {
  if (!scope.propagates)
    return;
  for (auto &[from, cond] : scope.raisers) {
    if (from == last)
      continue;
    Edge edge{last, EdgeKind::Error, {}, cond};
    edge.propagate = true;
    functions[from].edges.push_back(std::move(edge));
  }
}

/// "Loop": the function can run more than once at the same fan-out indices
/// when its state, or a Map or Parallel state around it, is on a loop of
/// its scope. Its names then carry the visit counters of the scopes down to
/// the innermost such loop (the state's depth, plus one for the top scope).
std::optional<int64_t> Lowering::loopOf(const Function &fn) const {
  for (Operation *a = fn.anchor; a && !isa<StateMachineOp>(a);
       a = a->getParentOp()) {
    if (!cyclic.contains(a))
      continue;
    int64_t depth = 0;
    for (Operation *p = a->getParentOp(); p && !isa<StateMachineOp>(p);
         p = p->getParentOp())
      ++depth;
    return depth + 1;
  }
  return std::nullopt;
}

/// The outer fan-out levels, as seen from a tail: `.$1.$2...`.
static std::string outerIndices(unsigned depth) {
  std::string out;
  for (unsigned i = 1; i < depth; ++i)
    out += ".$" + std::to_string(i);
  return out;
}

LogicalResult Lowering::addEdges(Scope &scope) {
  for (Operation &op : scope.region->front()) {
    Operation *state = &op;
    if (!visited.contains(state))
      continue; // unreachable (warned about by the importer)
    if (auto it = noChoiceMatched.find(state); it != noChoiceMatched.end())
      scope.raisers.push_back({it->second, ""});
    if (auto it = stateFunction.find(state); it != stateFunction.end()) {
      if (failed(connect(scope, it->second, state)))
        return failure();
      continue;
    }
    auto helper = helpers.find(state);
    if (helper == helpers.end())
      continue;
    auto [entry, sink] = helper->second;
    const bool propagates = scope.propagates || state->getAttr("retry") ||
                            state->getAttr("catchers");
    // An entry with data-flow fields can fail (a path that selects nothing),
    // and so can a Map's (more items than a fan-in collects: the runtime's
    // States.DataLimitExceeded): the state fails, and its Catch applies.
    if ((functions[entry].hasDataflow() ||
         (isa<sfn::MapOp>(state) && state->getAttr("catchers"))) &&
        failed(connectCatchers(scope, entry, state)))
      return failure();
    std::vector<std::string> values;
    std::vector<size_t> lasts;
    if (auto map = dyn_cast<sfn::MapOp>(state)) {
      Scope inner(map.getIterator(), map.getStart(), scope.depth + 1);
      inner.propagates = propagates;
      FailureOr<size_t> first = scopeEntry(inner);
      if (failed(first) || failed(addEdges(inner)))
        return failure();
      Edge edge{*first, EdgeKind::Map, {}, ""};
      // MaxConcurrency 0 is no bound.
      if (std::optional<int64_t> k = map.getMaxConcurrency(); k && *k > 0)
        edge.maxConcurrency = *k;
      functions[entry].edges.push_back(std::move(edge));
      FailureOr<size_t> last = scopeExit(inner, state, sink, "");
      if (failed(last))
        return failure();
      propagateFailures(inner, *last);
      lasts.push_back(*last);
      values.push_back(functions[*last].name + "-unumIndex-*" +
                       outerIndices(inner.depth));
    } else {
      auto parallel = cast<ParallelOp>(state);
      functions[entry].nextIsList = true;
      // Each branch's tail lists every branch's tail in its fan-in, as the
      // original compiler does: quadratic in the branches. Beyond
      // kMaxListedBranches every branch ends in one shared built-in Pass
      // instead, whose instances (one per branch index) fan in like a
      // Map's, `UnumEndParallel<k>-unumIndex-*`: one hop more per branch,
      // and configs linear in the branches.
      std::optional<size_t> sharedEnd;
      const bool wide = parallel.getBranches().size() > kMaxListedBranches;
      for (auto [i, branch] : llvm::enumerate(parallel.getBranches())) {
        Scope inner(branch,
                    cast<StringAttr>(parallel.getStarts()[i]).getValue(),
                    scope.depth + 1);
        inner.propagates = propagates;
        FailureOr<size_t> first = scopeEntry(inner);
        if (failed(first) || failed(addEdges(inner)))
          return failure();
        functions[entry].edges.push_back({*first, EdgeKind::Scalar, {}, ""});
        FailureOr<size_t> last =
            scopeExit(inner, state, sink, "_" + std::to_string(i),
                      wide ? &sharedEnd : nullptr);
        if (failed(last))
          return failure();
        propagateFailures(inner, *last);
        if (wide)
          continue;
        lasts.push_back(*last);
        values.push_back(functions[*last].name + "-unumIndex-" +
                         std::to_string(i) + outerIndices(inner.depth));
      }
      if (wide) {
        lasts.push_back(*sharedEnd);
        values.push_back(functions[*sharedEnd].name + "-unumIndex-*" +
                         outerIndices(scope.depth + 1));
      }
    }
    for (size_t last : lasts) {
      Edge edge{sink, EdgeKind::FanIn, values, "", /*pop=*/true};
      edge.propagate = propagates;
      functions[last].edges.push_back(std::move(edge));
    }
    if (failed(connect(scope, sink, state)))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Trimming (the original compiler's `-o trim`)
//===----------------------------------------------------------------------===//

void Lowering::trim() {
  using Role = Function::Role;
  // Who points at whom, kept up to date as edges move; entries whose edge
  // has since been retargeted are skipped on use.
  std::vector<std::vector<std::pair<size_t, size_t>>> preds(functions.size());
  for (size_t f = 0; f < functions.size(); ++f)
    for (size_t i = 0; i < functions[f].edges.size(); ++i)
      preds[functions[f].edges[i].target].push_back({f, i});
  auto references = [&](size_t target) {
    SmallVector<std::pair<size_t, size_t>> live;
    for (auto [f, i] : preds[target])
      if (!functions[f].removed && i < functions[f].edges.size() &&
          functions[f].edges[i].target == target)
        live.push_back({f, i});
    return live;
  };
  auto retarget = [&](size_t f, size_t i, size_t target) {
    functions[f].edges[i].target = target;
    preds[target].push_back({f, i});
  };

  // A sink followed by a plain Scalar edge is bypassed.
  for (size_t s = 0; s < functions.size(); ++s) {
    Function &sink = functions[s];
    if ((sink.role != Role::MapSink && sink.role != Role::ParallelSink) ||
        sink.hasDataflow() || sink.edges.size() != 1 || sink.retriers)
      continue;
    const Edge &out = sink.edges.front();
    if (out.kind != EdgeKind::Scalar || !out.cond.empty() || out.target == s)
      continue;
    for (auto [f, i] : references(s))
      retarget(f, i, out.target);
    sink.removed = true;
  }

  // An UnumMap<k> reached by a Scalar edge is folded into its predecessor.
  for (size_t m = 0; m < functions.size(); ++m) {
    Function &helper = functions[m];
    // An entry that saves the state's input is kept: its predecessor's
    // input is not the state's.
    if (helper.role != Role::MapEntry || helper.start || helper.saveInput ||
        helper.edges.size() != 1 ||
        helper.hasDataflow({"ItemsPath", "ItemSelector"}))
      continue;
    bool keep = false;
    for (auto [f, i] : references(m)) {
      Function &pred = functions[f];
      Edge &e = pred.edges[i];
      bool predHasItems = llvm::any_of(pred.dataflow, [](NamedAttribute a) {
        return a.getName() == "ItemsPath" || a.getName() == "ItemSelector";
      });
      // Folding into a list would renumber the Parallel branches that the
      // list's Scalar edges stand for.
      if (e.kind != EdgeKind::Scalar || pred.nextIsList ||
          pred.edges.size() != 1 || (helper.hasDataflow() && predHasItems)) {
        keep = true;
        continue;
      }
      e.kind = EdgeKind::Map;
      e.maxConcurrency = helper.edges.front().maxConcurrency;
      retarget(f, i, helper.edges.front().target);
      pred.dataflow.append(helper.dataflow.begin(), helper.dataflow.end());
    }
    helper.removed = !keep;
  }

  // An UnumParallel<k> that is its predecessor's only edge is replaced by
  // its branches.
  for (size_t p = 0; p < functions.size(); ++p) {
    Function &helper = functions[p];
    if (helper.role != Role::ParallelEntry || helper.start ||
        helper.saveInput || helper.hasDataflow() ||
        llvm::any_of(helper.edges,
                     [](const Edge &e) { return e.kind != EdgeKind::Scalar; }))
      continue;
    bool keep = false;
    for (auto [f, i] : references(p)) {
      Function &pred = functions[f];
      const Edge &e = pred.edges[i];
      if (f == p || e.kind != EdgeKind::Scalar || !e.cond.empty() ||
          pred.edges.size() != 1 || pred.nextIsList) {
        keep = true;
        continue;
      }
      pred.edges = helper.edges;
      pred.nextIsList = true;
      for (size_t j = 0; j < pred.edges.size(); ++j)
        preds[pred.edges[j].target].push_back({f, j});
    }
    helper.removed = !keep;
  }
}

LogicalResult Lowering::run() {
  machine->walk([&](Operation *op) {
    if (isa<StateMachineOp, sfn::MapOp, ParallelOp>(op))
      for (Region &region : op->getRegions())
        if (!region.empty())
          markCycles(region.front(), cyclic);
  });
  Scope top(machine.getBody(), machine.getStart(), 0);
  if (failed(createFunctions(top)) || failed(addEdges(top)))
    return failure();
  FailureOr<size_t> entry = scopeEntry(top);
  if (failed(entry))
    return failure();
  functions[*entry].start = true;
  trim();
  return success();
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

LogicalResult Lowering::emit(OpBuilder &builder) {
  MLIRContext *context = builder.getContext();
  auto app = AppOp::create(builder, machine.getLoc(), machine.getSymName());
  builder.setInsertionPointToEnd(&app.getBodyBlock());
  config::ParseError ignored;
  ArrayAttr pop = builder.getArrayAttr(
      {ModifierAttr::get(context, *config::parseModifier("Pop", ignored))});
  // $$.Execution.Input and StartTime: the start function fixes them.
  bool execution = llvm::any_of(functions, [](const Function &fn) {
    return !fn.removed && (readsExecution(dataflowText(fn.dataflow), "$$") ||
                           llvm::any_of(fn.edges, [](const Edge &e) {
                             return readsExecution(e.cond, "$ctx");
                           }));
  });
  for (Function &fn : functions) {
    if (fn.removed)
      continue;
    if (fn.start && execution)
      fn.dataflow.push_back(
          NamedAttribute(builder.getStringAttr("ExecutionContext"),
                         builder.getBoolAttr(true)));
    auto op = FunctionOp::create(builder, fn.loc, fn.name);
    bool fanIn = llvm::any_of(
        fn.edges, [](const Edge &e) { return e.kind == EdgeKind::FanIn; });
    op.setStart(fn.start);
    op.setCheckpoint(checkpoint || fanIn);
    op.setFanout(fn.nextIsList && fn.edges.size() == 1);
    if (debug)
      op.setDebug(*debug);
    if (fn.retriers)
      op.setRetriersAttr(fn.retriers);
    if (fn.timeout)
      op.setTimeout(static_cast<uint64_t>(*fn.timeout));
    if (fn.handler)
      op.setHandler(StringRef(*fn.handler));
    if (fn.builtin)
      op.setBuiltin(StringRef(*fn.builtin));
    bool condsReadContext = llvm::any_of(fn.edges, [](const Edge &e) {
      return StringRef(e.cond).contains("$ctx");
    });
    if (!fn.stateName.empty() && fn.stateName != fn.name &&
        (readsContext(fn.dataflow) || condsReadContext))
      fn.dataflow.push_back(
          NamedAttribute(builder.getStringAttr("StateName"),
                         builder.getStringAttr(fn.stateName)));
    if (!fn.dataflow.empty())
      op.setDataflowAttr(builder.getDictionaryAttr(fn.dataflow));
    op.setSaveInput(fn.saveInput);
    if (fn.stateInput)
      op.setStateInputAttr(
          FlatSymbolRefAttr::get(context, functions[*fn.stateInput].name));
    if (std::optional<int64_t> loop = loopOf(fn))
      op.setLoop(static_cast<uint64_t>(*loop));

    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&op.getBodyBlock());
    for (Edge &e : fn.edges) {
      auto target = FlatSymbolRefAttr::get(context, functions[e.target].name);
      ConditionAttr cond;
      if (!e.cond.empty()) {
        config::ParseError error;
        std::optional<config::Expression> expr =
            config::parseConditional(e.cond, error);
        if (!expr) {
          // The condition can be long (Choice rules folded together): at
          // most a line of it around where the parse failed.
          size_t from = error.offset > 60 ? error.offset - 60 : 0;
          std::string shown = e.cond.substr(from, 120);
          return emitError(fn.loc)
                 << "cannot express the condition '" << (from ? "..." : "")
                 << shown << (from + shown.size() < e.cond.size() ? "..." : "")
                 << "': " << error.message;
        }
        cond = ConditionAttr::get(context, *expr);
      }
      ArrayAttr mods = e.pop ? pop : ArrayAttr();
      switch (e.kind) {
      case EdgeKind::Scalar:
        ChainOp::create(builder, fn.loc, target, cond, mods);
        break;
      case EdgeKind::Map:
        unum::MapOp::create(builder, fn.loc, target, cond, mods,
                            e.maxConcurrency
                                ? builder.getI64IntegerAttr(*e.maxConcurrency)
                                : IntegerAttr());
        break;
      case EdgeKind::Error:
        ErrorOp::create(builder, fn.loc, target, cond, mods, e.resultPath,
                        e.propagate ? builder.getUnitAttr() : UnitAttr());
        break;
      case EdgeKind::FanIn: {
        SmallVector<Attribute> values;
        for (const std::string &v : e.values) {
          config::ParseError error;
          values.push_back(NamePatternAttr::get(
              context, *config::parseNamePattern(v, error)));
        }
        FanInOp::create(builder, fn.loc, target, cond, mods,
                        builder.getArrayAttr(values),
                        e.propagate ? builder.getUnitAttr() : UnitAttr());
        break;
      }
      }
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Parses a tri-state option: empty (unset), true or false.
LogicalResult parseBoolOption(StringRef value, StringRef name, Operation *op,
                              std::optional<bool> &result) {
  if (value == "true" || value == "1")
    result = true;
  else if (value == "false" || value == "0")
    result = false;
  else if (!value.empty())
    return op->emitError() << "option '" << name
                           << "' must be true or false, not '" << value << "'";
  return success();
}

struct ConvertSfnToUnumPass
    : public unum::impl::ConvertSfnToUnumBase<ConvertSfnToUnumPass> {
  using ConvertSfnToUnumBase::ConvertSfnToUnumBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<bool> checkpointOpt, debugOpt;
    if (failed(
            parseBoolOption(checkpoint, "checkpoint", module, checkpointOpt)) ||
        failed(parseBoolOption(debug, "debug", module, debugOpt)))
      return signalPassFailure();

    for (StateMachineOp machine :
         llvm::make_early_inc_range(module.getOps<StateMachineOp>())) {
      bool ckpt =
          checkpointOpt.value_or(machine.getCheckpoint().value_or(true));
      std::optional<bool> dbg = debugOpt ? debugOpt : machine.getDebug();
      Lowering lowering(machine, ckpt, dbg);
      if (failed(lowering.run()))
        return signalPassFailure();
      OpBuilder builder(machine);
      if (failed(lowering.emit(builder)))
        return signalPassFailure();
      machine.erase();
    }
  }
};

} // namespace
