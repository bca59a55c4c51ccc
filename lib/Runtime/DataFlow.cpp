//===- DataFlow.cpp - Step Functions data flow around a function ----------===//
//
// Applies a config's "DataFlow" fields as the Step Functions states they come
// from would: InputPath then Parameters on the way in; ResultSelector, then
// ResultPath (into the function's own input), then OutputPath on the way out;
// ItemsPath and ItemSelector for Map edges. Paths are reference paths
// (`$`, `$.a.b`, `$['a b']`, `$[0]`). In Parameters, ResultSelector and
// ItemSelector a key ending in `.$` takes a path, a context path (`$$.`,
// the context object below) or an intrinsic function call (Intrinsics.cpp).
//
//===----------------------------------------------------------------------===//
#include "Intrinsics.h"
#include "Paths.h"

#include "unum/Config/Limits.h"
#include "unum/Runtime/Runtime.h"

using namespace unum::runtime;
namespace config = unum::config;

DataFlow::~DataFlow() = default;

namespace {
struct Scope;
Result<Value> pathOrCall(const std::string &text, const Value &input,
                         const Scope &scope, const std::string *key = nullptr);
} // namespace

namespace {

config::PathRules fullPath() { return {false, true}; }
config::PathRules referencePath() { return {true, false}; }

/// `target` with `value` stored at the reference path `path`, as ResultPath
/// does.
Result<Value> store(Value target, const std::string &path, Value value) {
  auto parsed = paths::parse(path, referencePath());
  if (!parsed)
    return parsed.getStatus();
  return paths::store(std::move(target), *parsed, std::move(value));
}

/// What `$$` paths read: the invocation's context, and in ItemSelector the
/// Map item.
struct Scope {
  const Context &ctx;
  const Value *item = nullptr; // ItemSelector only
  int64_t index = 0;
  std::string_view stateName = {}; // empty: the function's name
};

/// Whether `path` (a `$$` path) reads $$.State.EnteredTime, the one field
/// that costs a store write the first time (StateEntry.h).
bool readsEnteredTime(const config::JsonPath &path) {
  const auto &segs = path.segments;
  auto named = [&](size_t k, const char *name) {
    return k < segs.size() && !segs[k].descendant &&
           segs[k].selectors.size() == 1 &&
           segs[k].selectors[0].kind == config::Selector::Kind::Member &&
           segs[k].selectors[0].name == name;
  };
  if (segs.empty())
    return true; // $$ itself
  if (!named(0, "State"))
    return false;
  return segs.size() == 1 || !(named(1, "Name") || named(1, "RetryCount"));
}

} // namespace

/// The context object: what the runtime has of it. EnteredTime only when
/// `entered` (reading it fixes it).
Result<Value> dataflow::contextObject(const Context &ctx,
                                      std::string_view stateName,
                                      bool entered) {
  Value execution = Value::object();
  execution.set("Id", ctx.session);
  execution.set("Name", ctx.session);
  if (ctx.execution) {
    execution.set("Input", *ctx.execution->find("Input"));
    execution.set("StartTime", *ctx.execution->find("StartTime"));
  }
  Value state = Value::object();
  state.set("Name", stateName.empty() ? ctx.function : stateName);
  state.set("RetryCount", int64_t(ctx.attempt));
  if (entered && ctx.enteredTime) {
    auto t = ctx.enteredTime();
    if (!t)
      return t.getStatus();
    state.set("EnteredTime", t.take());
  }
  Value root = Value::object();
  root.set("Execution", std::move(execution));
  root.set("State", std::move(state));
  return root;
}

namespace {

/// The context object of a data-flow field: in ItemSelector with the Map
/// item.
Result<Value> contextObject(const Scope &scope, bool entered) {
  auto object = dataflow::contextObject(scope.ctx, scope.stateName, entered);
  if (!object)
    return object;
  Value &root = *object;
  if (scope.item) {
    Value item = Value::object();
    item.set("Index", scope.index);
    item.set("Value", *scope.item);
    Value map = Value::object();
    map.set("Item", std::move(item));
    root.set("Map", std::move(map));
  }
  return object;
}

/// A context path (`$$`, `$$.Execution.Id`, ...). Step Functions fields
/// that this runtime cannot give are refused by name.
Result<Value> contextPath(const config::JsonPath &path, const Scope &scope) {
  // The same check as the ASL importer's: what it accepted is here.
  if (auto err = config::checkContextPaths(
          path, scope.item ? config::ContextScope::ItemSelector
                           : config::ContextScope::State))
    return Status::error(err->message);
  auto context = contextObject(scope, readsEnteredTime(path));
  if (!context)
    return context.getStatus();
  auto r = paths::select(path, {*context, &*context});
  if (!r) {
    const char *missing =
        scope.ctx.execution
            ? ""
            : " (the execution's Input and StartTime are there only when "
              "the start function records them: DataFlow \"ExecutionContext\", "
              "which unumc sets where they are read)";
    return Status::error(r.getStatus().message() +
                         " in the context object (it has " +
                         config::kContextFields + ")" + missing);
  }
  return r;
}

/// A `.$` value's path argument: `$...` in `input`, `$$...` in the context.
Result<Value> resolvePath(const config::JsonPath &path, const Value &input,
                          const Scope &scope) {
  if (path.root == config::JsonPath::Root::Context)
    return contextPath(path, scope);
  return paths::select(path, {input});
}

/// What the path field `text` (InputPath, OutputPath, ItemsPath) selects in
/// `input`.
Result<Value> select(const Value &input, const std::string &text,
                     const Scope &scope) {
  auto parsed = paths::parse(text, fullPath());
  if (!parsed)
    return parsed.getStatus();
  return resolvePath(*parsed, input, scope);
}

/// `s` as the Step Functions error `name` (Retry and Catch match it).
Status named(const char *name, const Status &s) {
  return Status::named(name, s.message());
}

/// A value the data flow built (a template, a ResultPath) that nests past
/// the JSON limit could be passed on and checkpointed but never read back:
/// States.Runtime instead.
Status checkNesting(const Value &v, const char *what) {
  if (!nestsDeeperThan(v, unum::limits::kMaxNesting))
    return Status::ok();
  return Status::named("States.Runtime",
                       std::string(what) + " nests deeper than " +
                           std::to_string(unum::limits::kMaxNesting) +
                           " levels (the JSON nesting limit)");
}

/// A path, a context path or an intrinsic function call, on `input`. A
/// syntax error names the template `key` when there is one.
Result<Value> pathOrCall(const std::string &text, const Value &input,
                         const Scope &scope, const std::string *key) {
  config::ParseError err;
  auto parsed = config::parsePathOrCall(text, fullPath(), err);
  if (!parsed)
    return Status::error(
        (key ? "'" + *key + "': " : std::string()) + "invalid " +
        (intrinsics::isCall(text) ? "intrinsic function call" : "path") + " '" +
        text + "' at character " + std::to_string(err.offset + 1) + ": " +
        err.message);
  auto resolve = [&](const config::JsonPath &path) {
    return resolvePath(path, input, scope);
  };
  return parsed->call ? intrinsics::evaluate(*parsed->call, resolve)
                      : resolve(*parsed->path);
}

/// Parameters, ResultSelector and ItemSelector: keys ending in `.$` take the
/// value of their path or intrinsic function call; everything else is
/// copied, nested objects and arrays recursively.
Result<Value> instantiate(const Value &tmpl, const Value &input,
                          const Scope &scope) {
  if (tmpl.isArray()) {
    Value out = Value::array();
    for (const Value &v : tmpl.getArray()) {
      auto r = instantiate(v, input, scope);
      if (!r)
        return r;
      out.push(std::move(*r));
    }
    return out;
  }
  if (!tmpl.isObject())
    return tmpl;
  Value out = Value::object();
  for (const auto &[key, v] : tmpl.getObject()) {
    if (key.size() < 2 || key.compare(key.size() - 2, 2, ".$") != 0) {
      auto r = instantiate(v, input, scope);
      if (!r)
        return r;
      out.set(key, std::move(*r));
      continue;
    }
    if (!v.isString())
      return Status::error("'" + key +
                           "' must be a path or an intrinsic function call");
    auto r = pathOrCall(v.getString(), input, scope, &key);
    if (!r)
      return named(intrinsics::isCall(v.getString())
                       ? "States.IntrinsicFailure"
                       : "States.ParameterPathFailure",
                   r.getStatus());
    out.set(key.substr(0, key.size() - 2), std::move(*r));
  }
  return out;
}

/// The function's DataFlow field `key`, or nullptr.
const config::Node *field(const FunctionSpec &fn, const char *key) {
  return fn.config.dataFlow ? fn.config.dataFlow->find(key) : nullptr;
}

/// The scope of a function's `$$` paths outside ItemSelector.
Scope scopeOf(const FunctionSpec &fn, const Context &ctx) {
  return {ctx, nullptr, 0, dataflow::stateName(fn.config)};
}

Status context(Status s, const FunctionSpec &fn, const char *key) {
  return s.withContext(std::string(key) + " of '" + fn.config.name + "'");
}

} // namespace

Result<Value> DataFlow::input(const FunctionSpec &fn, const Value &effective,
                              const Context &ctx) {
  Value v = effective;
  if (const config::Node *path = field(fn, "InputPath")) {
    if (path->kind == config::Node::Kind::Null) {
      v = Value::object();
    } else {
      auto r = select(v, path->text, scopeOf(fn, ctx));
      if (!r)
        return context(named("States.Runtime", r.getStatus()), fn, "InputPath");
      v = std::move(*r);
    }
  }
  if (const config::Node *params = field(fn, "Parameters")) {
    auto r = instantiate(valueOf(*params), v, scopeOf(fn, ctx));
    if (!r)
      return context(r.getStatus(), fn, "Parameters");
    if (Status s = checkNesting(*r, "the value it builds"); !s)
      return context(s, fn, "Parameters");
    v = std::move(*r);
  }
  if (field(fn, "LambdaInvoke")) {
    // lambda:invoke sends the Payload of its parameters (none: {}).
    const Value *payload = v.find("Payload");
    return payload ? *payload : Value::object();
  }
  return v;
}

Result<Value> DataFlow::output(const FunctionSpec &fn, const Value &effective,
                               const Value &result, const Context &ctx) {
  Value r = result;
  if (field(fn, "LambdaInvoke")) {
    // Lambda's response to a synchronous invocation, as lambda:invoke
    // returns it.
    Value response = Value::object();
    response.set("ExecutedVersion", Value("$LATEST"));
    response.set("Payload", std::move(r));
    response.set("StatusCode", int64_t(200));
    r = std::move(response);
  }
  if (const config::Node *selector = field(fn, "ResultSelector")) {
    auto s = instantiate(valueOf(*selector), r, scopeOf(fn, ctx));
    if (!s)
      return context(s.getStatus(), fn, "ResultSelector");
    if (Status deep = checkNesting(*s, "the value it builds"); !deep)
      return context(deep, fn, "ResultSelector");
    r = std::move(*s);
  }
  if (const config::Node *path = field(fn, "ResultPath")) {
    if (path->kind == config::Node::Kind::Null) {
      r = effective; // the result is discarded
    } else {
      auto s = store(effective, path->text, std::move(r));
      if (!s)
        return context(named("States.ResultPathMatchFailure", s.getStatus()),
                       fn, "ResultPath");
      if (Status deep = checkNesting(*s, "the output it places"); !deep)
        return context(deep, fn, "ResultPath");
      r = std::move(*s);
    }
  }
  if (const config::Node *path = field(fn, "OutputPath")) {
    if (path->kind == config::Node::Kind::Null)
      return Value::object();
    auto s = select(r, path->text, scopeOf(fn, ctx));
    if (!s)
      return context(named("States.Runtime", s.getStatus()), fn, "OutputPath");
    r = std::move(*s);
  }
  return r;
}

Result<Value::Array> DataFlow::items(const FunctionSpec &fn,
                                     const config::Edge &edge,
                                     const Value &output, const Context &ctx) {
  Value list = output;
  if (const config::Node *path = field(fn, "ItemsPath")) {
    auto s = select(output, path->text, scopeOf(fn, ctx));
    if (!s)
      return context(named("States.Runtime", s.getStatus()), fn, "ItemsPath");
    list = std::move(*s);
  }
  if (!list.isArray())
    return Status::named(
        "States.Runtime",
        "Map edge to '" + edge.target + "' needs '" + fn.config.name +
            "' to return a list, not " +
            std::string(list.isArray() || list.isObject() ? "an " : "a ") +
            Value::kindName(list.kind()));
  const config::Node *selector = field(fn, "ItemSelector");
  if (!selector)
    return list.getArray();
  Value tmpl = valueOf(*selector);
  Scope scope = scopeOf(fn, ctx);
  Value::Array items;
  int64_t index = 0;
  for (const Value &item : list.getArray()) {
    auto s = instantiate(tmpl, output, {ctx, &item, index++, scope.stateName});
    if (!s)
      return context(s.getStatus(), fn, "ItemSelector");
    if (Status deep = checkNesting(*s, "an item it builds"); !deep)
      return context(deep, fn, "ItemSelector");
    items.push_back(std::move(*s));
  }
  return items;
}

Result<Value> dataflow::evaluateField(const std::string &text,
                                      const Value &input, const Context &ctx,
                                      std::string_view stateName) {
  return pathOrCall(text, input, {ctx, nullptr, 0, stateName});
}

std::string_view dataflow::stateName(const config::FunctionConfig &config) {
  const config::Node *name =
      config.dataFlow ? config.dataFlow->find("StateName") : nullptr;
  return name ? std::string_view(name->text) : std::string_view();
}
