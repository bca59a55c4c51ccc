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

#include "unum/Runtime/Runtime.h"

using namespace unum::runtime;
namespace config = unum::config;

DataFlow::~DataFlow() = default;

namespace {

/// One step of a reference path: a member name or an array index.
struct Step {
  std::string name;
  int64_t index = -1; // >= 0: an array index
};

/// The steps of a reference path, or of a context path (`$$...`) when
/// `context`.
Result<std::vector<Step>> parsePath(std::string_view path,
                                    bool context = false) {
  size_t i = context ? 2 : 1;
  if (path.size() < i || path.substr(0, i) != std::string_view("$$", i))
    return Status::error("'" + std::string(path) + "' is not a path");
  std::vector<Step> steps;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t start = ++i;
      while (i < path.size() && path[i] != '.' && path[i] != '[')
        ++i;
      if (i == start)
        return Status::error("empty member name in path '" +
                             std::string(path) + "'");
      steps.push_back({std::string(path.substr(start, i - start))});
    } else if (path[i] == '[' && i + 1 < path.size() &&
               (path[i + 1] == '\'' || path[i + 1] == '"')) {
      char quote = path[i + 1];
      size_t end = path.find(quote, i + 2);
      if (end == std::string_view::npos || end + 1 >= path.size() ||
          path[end + 1] != ']')
        return Status::error("unterminated member in path '" +
                             std::string(path) + "'");
      steps.push_back({std::string(path.substr(i + 2, end - i - 2))});
      i = end + 2;
    } else if (path[i] == '[') {
      size_t end = path.find(']', i);
      std::string digits(path.substr(i + 1, end - i - 1));
      if (end == std::string_view::npos || digits.empty() ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        return Status::error("only member names and array indices are "
                             "supported in path '" +
                             std::string(path) + "'");
      steps.push_back({"", std::stoll(digits)});
      i = end + 1;
    } else {
      return Status::error("unexpected '" + std::string(1, path[i]) +
                           "' in path '" + std::string(path) + "'");
    }
  }
  return steps;
}

/// What `steps[from...]` select in `root`; errors quote `path`.
Result<Value> walk(const Value &root, const std::vector<Step> &steps,
                   size_t from, const std::string &path) {
  const Value *v = &root;
  for (size_t k = from; k < steps.size(); ++k) {
    const Step &s = steps[k];
    if (s.index >= 0) {
      if (!v->isArray() || size_t(s.index) >= v->getArray().size())
        return Status::error("path '" + path + "' selects nothing");
      v = &v->getArray()[s.index];
    } else {
      const Value *next = v->isObject() ? v->find(s.name) : nullptr;
      if (!next)
        return Status::error("path '" + path + "' selects nothing");
      v = next;
    }
  }
  return *v;
}

Result<Value> select(const Value &root, const std::string &path) {
  auto steps = parsePath(path);
  if (!steps)
    return steps.getStatus();
  return walk(root, *steps, 0, path);
}

/// `target` with `value` stored at `path` (member names only), creating
/// objects on the way, as ResultPath does.
Result<Value> store(Value target, const std::string &path, Value value) {
  auto steps = parsePath(path);
  if (!steps)
    return steps.getStatus();
  if (steps->empty())
    return value;
  std::function<Status(Value &, size_t)> put = [&](Value &at,
                                                   size_t k) -> Status {
    const Step &s = (*steps)[k];
    if (s.index >= 0)
      return Status::error("ResultPath '" + path +
                           "' cannot index into an array");
    if (!at.isObject())
      at = Value::object();
    if (k + 1 == steps->size()) {
      at.set(s.name, std::move(value));
      return Status::ok();
    }
    const Value *existing = at.find(s.name);
    Value child = existing ? *existing : Value::object();
    if (Status st = put(child, k + 1); !st)
      return st;
    at.set(s.name, std::move(child));
    return Status::ok();
  };
  if (Status st = put(target, 0); !st)
    return st;
  return target;
}

/// What `$$` paths read: the invocation's context, and in ItemSelector the
/// Map item.
struct Scope {
  const Context &ctx;
  const Value *item = nullptr; // ItemSelector only
  int64_t index = 0;
};

/// The context object, as far as this runtime has its fields honestly.
Value contextObject(const Scope &scope) {
  Value execution = Value::object();
  execution.set("Id", scope.ctx.session);
  execution.set("Name", scope.ctx.session);
  Value state = Value::object();
  state.set("Name", scope.ctx.function);
  state.set("RetryCount", int64_t(scope.ctx.attempt));
  Value root = Value::object();
  root.set("Execution", std::move(execution));
  root.set("State", std::move(state));
  if (scope.item) {
    Value item = Value::object();
    item.set("Index", scope.index);
    item.set("Value", *scope.item);
    Value map = Value::object();
    map.set("Item", std::move(item));
    root.set("Map", std::move(map));
  }
  return root;
}

const char *const kContextFields =
    "$$.Execution.Id, $$.Execution.Name, $$.State.Name, $$.State.RetryCount, "
    "and $$.Map.Item.Index and $$.Map.Item.Value in ItemSelector";

/// A context path (`$$`, `$$.Execution.Id`, ...). Step Functions fields
/// that this runtime cannot give are refused by name.
Result<Value> contextPath(const std::string &path, const Scope &scope) {
  auto parsed = parsePath(path, /*context=*/true);
  if (!parsed)
    return parsed.getStatus();
  const std::vector<Step> &steps = *parsed;
  auto named = [&](size_t k, const char *name) {
    return k < steps.size() && steps[k].index < 0 && steps[k].name == name;
  };
  if (named(0, "Map")) {
    if (!scope.item)
      return Status::error("'" + path +
                           "': the Map item is only in the context of an "
                           "ItemSelector");
    // The item and its index without copying the item into a context
    // object (ItemSelector runs once per item).
    if (named(1, "Item") && named(2, "Value"))
      return walk(*scope.item, steps, 3, path);
    if (named(1, "Item") && named(2, "Index") && steps.size() == 3)
      return Value(scope.index);
  }
  if (named(0, "Execution") && named(1, "Input"))
    return Status::error("'" + path +
                         "' is not available: this runtime does not keep the "
                         "execution's input (pass what later states need "
                         "along in their data)");
  static const char *const unavailable[][2] = {{"Execution", "StartTime"},
                                               {"Execution", "RoleArn"},
                                               {"Execution", "RedriveCount"},
                                               {"Execution", "RedriveTime"},
                                               {"State", "EnteredTime"},
                                               {"StateMachine", nullptr},
                                               {"Task", nullptr}};
  for (const auto &field : unavailable)
    if (named(0, field[0]) && (!field[1] || named(1, field[1])))
      return Status::error("'" + path +
                           "' is not available in this runtime (it has " +
                           kContextFields + ")");
  auto r = walk(contextObject(scope), steps, 0, path);
  if (!r)
    return Status::error(r.getStatus().message() +
                         " in the context object (it has " + kContextFields +
                         ")");
  return r;
}

/// A `.$` value's path argument: `$...` in `input`, `$$...` in the context.
Result<Value> resolvePath(const std::string &path, const Value &input,
                          const Scope &scope) {
  if (path.rfind("$$", 0) == 0)
    return contextPath(path, scope);
  return select(input, path);
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
    const std::string *text = v.isString() ? &v.getString() : nullptr;
    if (!text || (text->rfind('$', 0) != 0 && !intrinsics::isCall(*text)))
      return Status::error("'" + key +
                           "' must be a path or an intrinsic function call" +
                           (text ? ", not '" + *text + "'" : std::string()));
    auto resolve = [&](const std::string &path) {
      return resolvePath(path, input, scope);
    };
    auto r = intrinsics::isCall(*text) ? intrinsics::evaluate(*text, resolve)
                                       : resolve(*text);
    if (!r)
      return r;
    out.set(key.substr(0, key.size() - 2), std::move(*r));
  }
  return out;
}

/// The function's DataFlow field `key`, or nullptr.
const config::Node *field(const FunctionSpec &fn, const char *key) {
  return fn.config.dataFlow ? fn.config.dataFlow->find(key) : nullptr;
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
      auto r = select(v, path->text);
      if (!r)
        return context(r.getStatus(), fn, "InputPath");
      v = std::move(*r);
    }
  }
  if (const config::Node *params = field(fn, "Parameters")) {
    auto r = instantiate(valueOf(*params), v, {ctx});
    if (!r)
      return context(r.getStatus(), fn, "Parameters");
    v = std::move(*r);
  }
  return v;
}

Result<Value> DataFlow::output(const FunctionSpec &fn, const Value &effective,
                               const Value &result, const Context &ctx) {
  Value r = result;
  if (const config::Node *selector = field(fn, "ResultSelector")) {
    auto s = instantiate(valueOf(*selector), r, {ctx});
    if (!s)
      return context(s.getStatus(), fn, "ResultSelector");
    r = std::move(*s);
  }
  if (const config::Node *path = field(fn, "ResultPath")) {
    if (path->kind == config::Node::Kind::Null) {
      r = effective; // the result is discarded
    } else {
      auto s = store(effective, path->text, std::move(r));
      if (!s)
        return context(s.getStatus(), fn, "ResultPath");
      r = std::move(*s);
    }
  }
  if (const config::Node *path = field(fn, "OutputPath")) {
    if (path->kind == config::Node::Kind::Null)
      return Value::object();
    auto s = select(r, path->text);
    if (!s)
      return context(s.getStatus(), fn, "OutputPath");
    r = std::move(*s);
  }
  return r;
}

Result<Value::Array> DataFlow::items(const FunctionSpec &fn,
                                     const config::Edge &edge,
                                     const Value &output, const Context &ctx) {
  Value list = output;
  if (const config::Node *path = field(fn, "ItemsPath")) {
    auto s = select(output, path->text);
    if (!s)
      return context(s.getStatus(), fn, "ItemsPath");
    list = std::move(*s);
  }
  if (!list.isArray())
    return Status::error(
        "Map edge to '" + edge.target + "' needs '" + fn.config.name +
        "' to return a list, not " +
        std::string(list.isArray() || list.isObject() ? "an " : "a ") +
        Value::kindName(list.kind()));
  const config::Node *selector = field(fn, "ItemSelector");
  if (!selector)
    return list.getArray();
  Value tmpl = valueOf(*selector);
  Value::Array items;
  int64_t index = 0;
  for (const Value &item : list.getArray()) {
    auto s = instantiate(tmpl, output, {ctx, &item, index++});
    if (!s)
      return context(s.getStatus(), fn, "ItemSelector");
    items.push_back(std::move(*s));
  }
  return items;
}
