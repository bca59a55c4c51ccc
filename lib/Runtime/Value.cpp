//===- Value.cpp - JSON values for payloads and outputs -------------------===//

#include "unum/Runtime/Value.h"
#include "HotPath.h"

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

namespace {
/// parseJsonValue's common case: well-formed JSON read straight into a
/// Value, without the located reader's nodes (lines, columns, a map per
/// object for duplicate keys), about a fifth of its instructions on a
/// payload. It accepts exactly what that reader accepts and turns into the
/// same Value, or gives up (false), and the located reader then parses the
/// text again: on any error (which that reader reports with its line and
/// column), and on what is rare enough to leave to it: a byte order mark,
/// \u escapes, bytes beyond ASCII (UTF-8 to validate), numbers that are
/// not finite as doubles, nesting at the depth limit.
class FastJson {
public:
  explicit FastJson(std::string_view text)
      : p(text.data()), end(text.data() + text.size()) {}

  /// The text is one JSON value, with whitespace around it.
  bool document(Value &out) {
    skipSpace();
    if (!value(out, 0))
      return false;
    skipSpace();
    return p == end;
  }

private:
  static bool isWordChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
  }
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }

  void skipSpace() {
    while (p != end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
      ++p;
  }

  bool value(Value &out, unsigned depth) {
    if (p == end)
      return false;
    switch (*p) {
    case '{':
      return depth < unum::limits::kMaxNesting && object(out, depth + 1);
    case '[':
      return depth < unum::limits::kMaxNesting && array(out, depth + 1);
    case '"': {
      std::string s;
      if (!string(s))
        return false;
      out = Value(std::move(s));
      return true;
    }
    case 't':
      return literal("true", Value(true), out);
    case 'f':
      return literal("false", Value(false), out);
    case 'n':
      return literal("null", Value(), out);
    default:
      return (*p == '-' || isDigit(*p)) && number(out);
    }
  }

  bool literal(std::string_view word, Value v, Value &out) {
    if (size_t(end - p) < word.size() ||
        std::string_view(p, word.size()) != word)
      return false;
    p += word.size();
    if (p != end && isWordChar(*p))
      return false; // "truex": the located reader's "invalid literal"
    out = std::move(v);
    return true;
  }

  bool eat(char c) {
    if (p == end || *p != c)
      return false;
    ++p;
    return true;
  }

  /// After '{' or '[' (at `p`): the items `one` reads, separated by commas,
  /// up to `close`.
  template <typename ReadOne> bool items(char close, ReadOne one) {
    ++p;
    skipSpace();
    if (eat(close))
      return true;
    for (;;) {
      if (!one())
        return false;
      skipSpace();
      if (!eat(','))
        return eat(close);
      skipSpace();
    }
  }

  bool object(Value &out, unsigned depth) {
    Value::Object o;
    std::unique_ptr<std::unordered_set<std::string>> many; // keys, when many
    bool ok = items('}', [&] {
      if (p == end || *p != '"')
        return false;
      std::string key;
      if (!string(key))
        return false;
      // Duplicate keys are an error (the located reader says where).
      if (!many && o.size() >= 16) {
        many = std::make_unique<std::unordered_set<std::string>>();
        for (const Value::Member &m : o)
          many->insert(m.first);
      }
      if (many ? !many->insert(key).second
               : std::any_of(o.begin(), o.end(), [&](const Value::Member &m) {
                   return m.first == key;
                 }))
        return false;
      skipSpace();
      if (!eat(':'))
        return false;
      skipSpace();
      o.emplace_back(std::move(key), Value());
      return value(o.back().second, depth);
    });
    if (ok)
      out = Value(std::move(o));
    return ok;
  }

  bool array(Value &out, unsigned depth) {
    Value::Array a;
    bool ok = items(']', [&] {
      a.emplace_back();
      return value(a.back(), depth);
    });
    if (ok)
      out = Value(std::move(a));
    return ok;
  }

  bool string(std::string &out) {
    ++p; // the opening quote
    for (;;) {
      const char *run = p;
      while (p != end && *p != '"' && *p != '\\' &&
             static_cast<unsigned char>(*p) >= 0x20 &&
             static_cast<unsigned char>(*p) < 0x80)
        ++p;
      out.append(run, p);
      if (p == end)
        return false;
      if (*p == '"') {
        ++p;
        return true;
      }
      if (*p != '\\' || end - p < 2)
        return false; // a control character, or beyond ASCII
      // The one-character escapes (\u is left to the located reader: its
      // surrogates need checking).
      static const char kEscaped[] = "\"\\/bfnrt", kMeant[] = "\"\\/\b\f\n\r\t";
      const void *at = std::memchr(kEscaped, p[1], sizeof kEscaped - 1);
      if (!at)
        return false;
      out += kMeant[static_cast<const char *>(at) - kEscaped];
      p += 2;
    }
  }

  /// Skips digits: false if there is none.
  bool digits() {
    const char *start = p;
    while (p != end && isDigit(*p))
      ++p;
    return p != start;
  }

  bool number(Value &out) {
    const char *start = p;
    if (*p == '-')
      ++p;
    if (p == end || !isDigit(*p))
      return false;
    if (*p == '0') {
      ++p;
      if (p != end && isDigit(*p))
        return false; // a leading zero
    } else {
      digits();
    }
    bool integer = true;
    if (eat('.')) {
      integer = false;
      if (!digits())
        return false;
    }
    if (p != end && (*p == 'e' || *p == 'E')) {
      integer = false;
      ++p;
      if (!eat('+'))
        eat('-');
      if (!digits())
        return false;
    }
    if (p != end && (isWordChar(*p) || *p == '.'))
      return false;
    if (integer) {
      int64_t i = 0;
      auto [q, ec] = std::from_chars(start, p, i);
      if (ec == std::errc() && q == p) {
        out = Value(i);
        return true;
      }
    }
    // Out-of-range integers and decimals become doubles.
    double d = std::strtod(std::string(start, p).c_str(), nullptr);
    if (!std::isfinite(d))
      return false;
    out = Value(d);
    return true;
  }

  const char *p, *end;
};
} // namespace

Result<Value> unum::runtime::parseJsonValue(std::string_view text,
                                            const std::string &what) {
  {
    Value v;
    if (FastJson(text).document(v))
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
