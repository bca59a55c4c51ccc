//===- Paths.cpp - Evaluating JSONPath on values --------------------------===//
//
// A path is evaluated segment by segment on the set of values selected so
// far. `..` collects each value and all its descendants with an explicit
// stack (no recursion on the data's depth). Filters apply to the elements
// of an array and the member values of an object (as Goessner's JSONPath
// and the jsonpath-plus library do); a filter's comparison of values of
// different types is false, never an error. The recursion that remains
// follows the path text, whose nesting the parser bounds.
//
//===----------------------------------------------------------------------===//
#include "Paths.h"

#include <algorithm>

using namespace unum::runtime;
using namespace unum::runtime::paths;
namespace config = unum::config;
using unum::config::Filter;
using unum::config::JsonPath;
using unum::config::Literal;
using unum::config::Segment;
using unum::config::Selector;

namespace {

using Matches = std::vector<const Value *>;

class Selection {
public:
  explicit Selection(const Roots &roots) : roots(roots) {}

  /// The values `path` selects from `start` (or its root), in order.
  Result<Matches> run(const JsonPath &path, const Value *current) {
    const Value *root = &roots.input;
    if (path.root == JsonPath::Root::Context) {
      if (!roots.context)
        return Status::error("the context object ('$$') is not available "
                             "here");
      root = roots.context;
    } else if (path.root == JsonPath::Root::Current) {
      root = current;
    }
    Matches set{root};
    for (const Segment &seg : path.segments) {
      Matches next;
      if (seg.descendant) {
        Matches all;
        for (const Value *v : set)
          if (Status s = descendants(v, all); !s)
            return s;
        set = std::move(all);
      }
      for (const Value *v : set)
        for (const Selector &sel : seg.selectors)
          if (Status s = apply(sel, *v, next); !s)
            return s;
      set = std::move(next);
    }
    return set;
  }

private:
  Status add(Matches &out, const Value *v) {
    if (out.size() >= config::kMaxPathMatches)
      return Status::error("selects more than " +
                           std::to_string(config::kMaxPathMatches) + " values");
    out.push_back(v);
    return Status::ok();
  }

  /// `v` and everything inside it, in document order.
  Status descendants(const Value *v, Matches &out) {
    std::vector<const Value *> stack{v};
    while (!stack.empty()) {
      const Value *top = stack.back();
      stack.pop_back();
      if (Status s = add(out, top); !s)
        return s;
      size_t mark = stack.size();
      if (top->isArray())
        for (const Value &item : top->getArray())
          stack.push_back(&item);
      else if (top->isObject())
        for (const Value::Member &m : top->getObject())
          stack.push_back(&m.second);
      std::reverse(stack.begin() + mark, stack.end());
    }
    return Status::ok();
  }

  Status apply(const Selector &sel, const Value &v, Matches &out) {
    switch (sel.kind) {
    case Selector::Kind::Member:
      if (v.isObject())
        if (const Value *m = v.find(sel.name))
          return add(out, m);
      return Status::ok();
    case Selector::Kind::Index: {
      if (!v.isArray())
        return Status::ok();
      int64_t n = int64_t(v.getArray().size());
      int64_t i = sel.index < 0 ? sel.index + n : sel.index;
      if (i >= 0 && i < n)
        return add(out, &v.getArray()[size_t(i)]);
      return Status::ok();
    }
    case Selector::Kind::Wildcard:
      return children(v, out, nullptr);
    case Selector::Kind::Slice:
      return slice(sel, v, out);
    case Selector::Kind::Filter:
      return children(v, out, sel.filter.get());
    }
    return Status::ok();
  }

  /// The elements or member values of `v` (those `filter` accepts).
  Status children(const Value &v, Matches &out, const Filter *filter) {
    auto visit = [&](const Value &child) -> Status {
      if (filter) {
        auto keep = test(*filter, child);
        if (!keep)
          return keep.getStatus();
        if (!*keep)
          return Status::ok();
      }
      return add(out, &child);
    };
    if (v.isArray())
      for (const Value &item : v.getArray())
        if (Status s = visit(item); !s)
          return s;
    if (v.isObject())
      for (const Value::Member &m : v.getObject())
        if (Status s = visit(m.second); !s)
          return s;
    return Status::ok();
  }

  /// Python's slice semantics.
  Status slice(const Selector &sel, const Value &v, Matches &out) {
    if (!v.isArray())
      return Status::ok();
    const Value::Array &a = v.getArray();
    int64_t n = int64_t(a.size()), step = sel.step;
    auto clamp = [&](std::optional<int64_t> x, int64_t dflt) {
      if (!x)
        return dflt;
      int64_t i = *x < 0 ? *x + n : *x;
      if (step > 0)
        return std::clamp<int64_t>(i, 0, n);
      return std::clamp<int64_t>(i, -1, n - 1);
    };
    // Each loop stops before i += step could overflow (a step near INT64_MAX).
    if (step > 0) {
      for (int64_t i = clamp(sel.start, 0), e = clamp(sel.end, n); i < e;
           i += step) {
        if (Status s = add(out, &a[size_t(i)]); !s)
          return s;
        if (step >= e - i)
          break;
      }
    } else {
      for (int64_t i = clamp(sel.start, n - 1), e = clamp(sel.end, -1); i > e;
           i += step) {
        if (Status s = add(out, &a[size_t(i)]); !s)
          return s;
        if (step <= e - i)
          break;
      }
    }
    return Status::ok();
  }

  /// An operand's value; nullopt when a path selects nothing.
  Result<std::optional<Value>> operand(const Filter &f, const Value &current) {
    if (f.kind == Filter::Kind::Literal)
      return std::optional<Value>(literalValue(f.value));
    auto m = run(f.path, &current);
    if (!m)
      return m.getStatus();
    if (f.path.isDefinite()) {
      if (m->empty())
        return std::optional<Value>();
      return std::optional<Value>(*m->front());
    }
    Value list = Value::array();
    for (const Value *v : *m)
      list.push(*v);
    return std::optional<Value>(std::move(list));
  }

  Result<bool> test(const Filter &f, const Value &current) {
    switch (f.kind) {
    case Filter::Kind::Not: {
      auto r = test(*f.lhs, current);
      if (!r)
        return r;
      return !*r;
    }
    case Filter::Kind::And:
    case Filter::Kind::Or: {
      auto l = test(*f.lhs, current);
      if (!l || *l == (f.kind == Filter::Kind::Or))
        return l;
      return test(*f.rhs, current);
    }
    case Filter::Kind::Path:
    case Filter::Kind::Literal: {
      auto v = operand(f, current);
      if (!v)
        return v.getStatus();
      return v->has_value();
    }
    case Filter::Kind::Compare: {
      auto l = operand(*f.lhs, current);
      if (!l)
        return l.getStatus();
      auto r = operand(*f.rhs, current);
      if (!r)
        return r.getStatus();
      if (!*l || !*r)
        return false;
      return compare(f.op, **l, **r);
    }
    }
    return false;
  }

  static bool compare(Filter::Op op, const Value &l, const Value &r) {
    int c = 0;
    if (l.isNumber() && r.isNumber()) {
      if (l.isInt() && r.isInt())
        c = l.getInt() < r.getInt() ? -1 : l.getInt() > r.getInt();
      else
        c = l.getNumber() < r.getNumber() ? -1 : l.getNumber() > r.getNumber();
    } else if (l.isString() && r.isString()) {
      c = l.getString().compare(r.getString());
    } else if (op == Filter::Op::Eq || op == Filter::Op::Ne) {
      return (l == r) == (op == Filter::Op::Eq);
    } else {
      return false; // different types do not order
    }
    switch (op) {
    case Filter::Op::Eq:
      return c == 0;
    case Filter::Op::Ne:
      return c != 0;
    case Filter::Op::Lt:
      return c < 0;
    case Filter::Op::Le:
      return c <= 0;
    case Filter::Op::Gt:
      return c > 0;
    case Filter::Op::Ge:
      return c >= 0;
    }
    return false;
  }

  const Roots &roots;
};

} // namespace

Result<Value> paths::select(const JsonPath &path, const Roots &roots) {
  Selection sel(roots);
  auto m = sel.run(path, nullptr);
  if (!m)
    return Status::error("path '" + path.text + "' " + m.getStatus().message());
  if (path.isDefinite()) {
    if (m->empty())
      return Status::error("path '" + path.text + "' selects nothing");
    return *m->front();
  }
  Value list = Value::array();
  list.getArray().reserve(m->size());
  for (const Value *v : *m)
    list.push(*v);
  return list;
}

Result<Value> paths::store(Value target, const JsonPath &path, Value value) {
  if (!path.isReference())
    return Status::error("'" + path.text + "' is not a reference path");
  if (path.segments.empty())
    return value;
  Value *at = &target;
  for (size_t k = 0; k < path.segments.size(); ++k) {
    const Selector &sel = path.segments[k].selectors.front();
    bool last = k + 1 == path.segments.size();
    if (sel.kind == Selector::Kind::Index) {
      if (!at->isArray() || size_t(sel.index) >= at->getArray().size())
        return Status::error("ResultPath '" + path.text + "' indexes " +
                             (at->isArray()
                                  ? "past the end of an array"
                                  : std::string("into a value of type ") +
                                        Value::kindName(at->kind())));
      at = &at->getArray()[size_t(sel.index)];
    } else {
      if (!at->isObject())
        return Status::error("ResultPath '" + path.text +
                             "' cannot place a field into a value of type " +
                             Value::kindName(at->kind()));
      Value::Object &obj = at->getObject();
      auto it = std::find_if(obj.begin(), obj.end(), [&](const auto &m) {
        return m.first == sel.name;
      });
      if (it == obj.end()) {
        obj.emplace_back(sel.name, Value::object());
        it = obj.end() - 1;
      }
      at = &it->second;
    }
    if (last)
      *at = std::move(value);
  }
  return target;
}

Value paths::literalValue(const Literal &l) {
  switch (l.kind) {
  case Literal::Kind::Null:
    return Value();
  case Literal::Kind::Bool:
    return Value(l.boolValue);
  case Literal::Kind::Int:
    return Value(l.intValue);
  case Literal::Kind::Double:
    return Value(l.doubleValue);
  case Literal::Kind::String:
    return Value(l.text);
  }
  return Value();
}

Result<config::JsonPath> paths::parse(const std::string &text,
                                      config::PathRules rules) {
  config::ParseError err;
  auto path = config::parseJsonPath(text, rules, err);
  if (!path)
    return Status::error("invalid path '" + text + "' at character " +
                         std::to_string(err.offset + 1) + ": " + err.message);
  return std::move(*path);
}
