//===- Value.cpp - JSON values for payloads and outputs -------------------===//

#include "unum/Runtime/Value.h"
#include "HotPath.h"
// The config library's private JSON reader, instantiated for Value.
#include "../Config/JsonReader.h"

#include "unum/Config/Document.h"
#include "unum/Config/Limits.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_set>

using namespace unum::runtime;
namespace config = unum::config;
using unum::config::Node;

const Value *Value::find(std::string_view key) const {
  if (!isObject())
    return nullptr;
  for (const Member &m : getObject())
    if (m.first == key)
      return &m.second;
  return nullptr;
}

void Value::set(std::string key, Value value) {
  Object &obj = getObject();
  for (Member &m : obj)
    if (m.first == key) {
      m.second = std::move(value);
      return;
    }
  obj.emplace_back(std::move(key), std::move(value));
}

bool unum::runtime::operator==(const Value &a, const Value &b) {
  if (a.isNumber() && b.isNumber()) {
    if (a.isInt() && b.isInt())
      return a.getInt() == b.getInt();
    return a.getNumber() == b.getNumber();
  }
  if (a.kind() != b.kind())
    return false;
  switch (a.kind()) {
  case Value::Kind::Null:
    return true;
  case Value::Kind::Bool:
    return a.getBool() == b.getBool();
  case Value::Kind::String:
    return a.getString() == b.getString();
  case Value::Kind::Array:
    return a.getArray() == b.getArray();
  case Value::Kind::Object: {
    const Value::Object &x = a.getObject(), &y = b.getObject();
    if (x.size() != y.size())
      return false;
    // The members in the same order (the usual case): one pass.
    size_t same = 0;
    for (; same < x.size() && x[same].first == y[same].first; ++same)
      if (!(x[same].second == y[same].second))
        return false;
    if (same == x.size())
      return true;
    // The rest by name: y's sorted, each of x's found by binary search
    // (O(n log n); comparing member by member was quadratic).
    std::vector<const Value::Member *> sorted;
    sorted.reserve(y.size() - same);
    for (size_t i = same; i < y.size(); ++i)
      sorted.push_back(&y[i]);
    auto byName = [](const Value::Member *m, const Value::Member *n) {
      return m->first < n->first;
    };
    std::sort(sorted.begin(), sorted.end(), byName);
    for (size_t i = same; i < x.size(); ++i) {
      auto it = std::lower_bound(sorted.begin(), sorted.end(), &x[i], byName);
      if (it == sorted.end() || (*it)->first != x[i].first ||
          !(x[i].second == (*it)->second))
        return false;
    }
    return true;
  }
  default:
    return false;
  }
}

const char *Value::kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "boolean";
  case Kind::Int:
  case Kind::Double:
    return "number";
  case Kind::String:
    return "string";
  case Kind::Array:
    return "array";
  case Kind::Object:
    return "object";
  }
  return "value";
}

bool unum::runtime::nestsDeeperThan(const Value &value, unsigned limit) {
  // Containers still to visit, with their level (the outermost is 1).
  std::vector<std::pair<const Value *, unsigned>> todo;
  if (value.isArray() || value.isObject())
    todo.push_back({&value, 1});
  while (!todo.empty()) {
    auto [v, level] = todo.back();
    todo.pop_back();
    if (level > limit)
      return true;
    auto visit = [&](const Value &child) {
      if (child.isArray() || child.isObject())
        todo.push_back({&child, level + 1});
    };
    if (v->isArray())
      for (const Value &child : v->getArray())
        visit(child);
    else
      for (const Value::Member &m : v->getObject())
        visit(m.second);
  }
  return false;
}

static Value fromNode(Node &node) {
  switch (node.kind) {
  case Node::Kind::Null:
    return Value();
  case Node::Kind::Bool:
    return Value(node.boolValue);
  case Node::Kind::Number: {
    const std::string &t = node.text;
    if (node.isInteger()) {
      int64_t i = 0;
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
      if (ec == std::errc() && p == t.data() + t.size())
        return Value(i);
    }
    // Out-of-range integers and decimals become doubles.
    return Value(std::strtod(t.c_str(), nullptr));
  }
  case Node::Kind::String:
    return Value(std::move(node.text));
  case Node::Kind::Array: {
    Value::Array a;
    a.reserve(node.items.size());
    for (Node &item : node.items)
      a.push_back(fromNode(item));
    return Value(std::move(a));
  }
  case Node::Kind::Object: {
    Value::Object o;
    o.reserve(node.members.size());
    for (Node::Member &m : node.members)
      o.emplace_back(std::move(m.key), fromNode(m.value));
    return Value(std::move(o));
  }
  }
  return Value();
}

Value unum::runtime::valueOf(Node node) { return fromNode(node); }

Result<Value> unum::runtime::parseJsonValue(std::string_view text,
                                            const std::string &what) {
  // The one JSON reader, straight into a Value; on an error it only
  // stops, and reads the text again as located nodes for the message.
  {
    Value v;
    if (config::detail::JsonReader<Value>(text, nullptr).readDocument(v))
      return v;
  }
  config::DiagnosticSink diags(what);
  std::vector<Node> docs;
  if (!config::parseJson(text, docs, diags)) {
    std::string msg;
    for (const config::Diagnostic &d : diags.diagnostics())
      if (d.severity == config::Diagnostic::Severity::Error) {
        msg = d.str();
        break;
      }
    return Status::error(msg.empty() ? what + ": invalid JSON" : msg);
  }
  if (docs.size() != 1)
    return Status::error(what + ": expected one JSON value, found " +
                         std::to_string(docs.size()));
  return fromNode(docs[0]);
}

static void writeString(std::string &out, const std::string &s) {
  config::appendJsonString(out, s);
}

static void newline(std::string &out, bool pretty, unsigned depth) {
  if (!pretty)
    return;
  out += '\n';
  out.append(depth * 2, ' ');
}

UNUM_HOT static void write(std::string &out, const Value &v, bool pretty,
                           unsigned depth) {
  char buf[64];
  switch (v.kind()) {
  case Value::Kind::Null:
    out += "null";
    return;
  case Value::Kind::Bool:
    out += v.getBool() ? "true" : "false";
    return;
  case Value::Kind::Int: {
    auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v.getInt());
    out.append(buf, p);
    return;
  }
  case Value::Kind::Double: {
    double d = v.getDouble();
    if (!std::isfinite(d)) {
      out += "null";
      return;
    }
    auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), d);
    std::string_view s(buf, p - buf);
    out += s;
    // Keep it a JSON number that reads back as a double.
    if (s.find_first_of(".eE") == std::string_view::npos)
      out += ".0";
    return;
  }
  case Value::Kind::String:
    writeString(out, v.getString());
    return;
  case Value::Kind::Array: {
    const Value::Array &a = v.getArray();
    out += '[';
    for (size_t i = 0; i < a.size(); ++i) {
      if (i)
        out += ',';
      newline(out, pretty, depth + 1);
      write(out, a[i], pretty, depth + 1);
    }
    if (!a.empty())
      newline(out, pretty, depth);
    out += ']';
    return;
  }
  case Value::Kind::Object: {
    const Value::Object &o = v.getObject();
    out += '{';
    for (size_t i = 0; i < o.size(); ++i) {
      if (i)
        out += ',';
      newline(out, pretty, depth + 1);
      writeString(out, o[i].first);
      out += pretty ? ": " : ":";
      write(out, o[i].second, pretty, depth + 1);
    }
    if (!o.empty())
      newline(out, pretty, depth);
    out += '}';
    return;
  }
  }
}

std::string unum::runtime::toJson(const Value &value, bool pretty) {
  std::string out;
  write(out, value, pretty, 0);
  return out;
}

UNUM_HOT void unum::runtime::appendJson(std::string &out, const Value &value) {
  write(out, value, false, 0);
}
