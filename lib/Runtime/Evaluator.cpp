//===- Evaluator.cpp - The safe evaluator of the config grammar -----------===//

#include "unum/Runtime/Evaluator.h"

#include "unum/Config/Timestamp.h"

#include <cmath>
#include <optional>

using namespace unum::runtime;
namespace config = unum::config;
using unum::config::Expr;

namespace {
using Op = Expr::Op;

/// "a number", "an array", ...
std::string aKind(Value::Kind kind) {
  std::string name = Value::kindName(kind);
  return (name[0] == 'a' || name[0] == 'o' ? "an " : "a ") + name;
}

Status err(const Expr &e, const std::string &msg) {
  return Status::error("at offset " + std::to_string(e.offset) + ": " + msg);
}

const char *opName(Op op) {
  switch (op) {
  case Op::Add:
    return "+";
  case Op::Sub:
    return "-";
  case Op::Mul:
    return "*";
  case Op::Div:
    return "/";
  case Op::Mod:
    return "%";
  case Op::Eq:
    return "==";
  case Op::Ne:
    return "!=";
  case Op::Lt:
    return "<";
  case Op::Le:
    return "<=";
  case Op::Gt:
    return ">";
  case Op::Ge:
    return ">=";
  case Op::And:
    return "and";
  case Op::Or:
    return "or";
  case Op::Not:
    return "not";
  case Op::Neg:
    return "-";
  default:
    return "?";
  }
}

/// A value the evaluator made (a literal, a sum), or one it reads in place:
/// `$out`, `$ctx` and their members are never copied, so a conditional that
/// names a large output many times costs no more than one that names it once.
class Ref {
public:
  Ref(Value v) : owned(std::move(v)) {}
  static Ref to(const Value &v) {
    Ref r;
    r.borrowed = &v;
    return r;
  }
  /// `part` (inside this value): borrowed if this is.
  Ref part(const Value &part) const { return borrowed ? to(part) : Ref(part); }
  const Value &operator*() const { return borrowed ? *borrowed : owned; }
  const Value *operator->() const { return &**this; }
  Value take() { return borrowed ? *borrowed : std::move(owned); }

private:
  Ref() = default;
  const Value *borrowed = nullptr;
  Value owned;
};

/// A value the evaluator made.
Result<Ref> own(Value v) { return Ref(std::move(v)); }

class Evaluator {
public:
  explicit Evaluator(const EvalEnv &env) : env(env) {}

  // `depth` is the node's level in the tree (the root's is 0): the parser
  // refuses trees deeper than kMaxEvalDepth, so these checks only guard
  // trees built by hand.
  Result<Ref> eval(const Expr &e, unsigned depth) {
    if (depth >= kMaxEvalDepth)
      return err(e, "expression nested too deeply");
    switch (e.kind) {
    case Expr::Kind::Int:
      return own(e.intValue);
    case Expr::Kind::Float:
      return own(e.floatValue);
    case Expr::Kind::String:
      return own(e.text);
    case Expr::Kind::Bool:
      return own(e.boolValue);
    case Expr::Kind::Null:
      return own(Value());
    case Expr::Kind::Output:
      if (!env.output)
        return err(e, "$out is not available here");
      return Ref::to(*env.output);
    case Expr::Kind::Context:
      if (!env.context)
        return err(e, "$ctx is not available here");
      return Ref::to(*env.context);
    case Expr::Kind::Index: {
      const auto *levels = env.fanout;
      if (!levels || e.index >= levels->size())
        return err(e, "$" + std::to_string(e.index) + " needs a fan-out " +
                          std::to_string(e.index + 1) +
                          " level(s) deep; this instance has " +
                          std::to_string(levels ? levels->size() : 0));
      return own((*levels)[e.index].index);
    }
    case Expr::Kind::Size:
      if (!env.fanout || env.fanout->empty())
        return err(e, "$size needs a fan-out; this instance has none");
      return own(env.fanout->front().size);
    case Expr::Kind::Field: {
      auto base = eval(*e.lhs, depth + 1);
      if (!base)
        return base;
      const Ref &b = *base;
      if (!b->isObject())
        return err(e, "'." + e.text + "' on " + aKind(b->kind()));
      const Value *member = b->find(e.text);
      if (!member)
        return err(e, "no member '" + e.text + "'");
      return b.part(*member);
    }
    case Expr::Kind::Subscript: {
      auto base = eval(*e.lhs, depth + 1);
      if (!base)
        return base;
      auto sub = eval(*e.rhs, depth + 1);
      if (!sub)
        return sub;
      const Ref &b = *base;
      const Value &s = **sub;
      if (b->isArray()) {
        if (!s.isInt())
          return err(e, "an array index must be an integer");
        int64_t i = s.getInt();
        const Value::Array &a = b->getArray();
        if (i < 0 || uint64_t(i) >= a.size())
          return err(e, "index " + std::to_string(i) + " out of range (size " +
                            std::to_string(a.size()) + ")");
        return b.part(a[i]);
      }
      if (b->isObject()) {
        if (!s.isString())
          return err(e, "an object subscript must be a string");
        const Value *member = b->find(s.getString());
        if (!member)
          return err(e, "no member '" + s.getString() + "'");
        return b.part(*member);
      }
      return err(e, std::string("subscript on ") + aKind(b->kind()));
    }
    case Expr::Kind::Unary:
      return unary(e, depth);
    case Expr::Kind::Binary:
      return binary(e, depth);
    case Expr::Kind::Call:
      return call(e, depth);
    }
    return err(e, "unsupported expression");
  }

private:
  /// A part of $out, or nullopt where the path leads nowhere (is_present).
  Result<std::optional<Ref>> access(const Expr &e, unsigned depth) {
    if (depth >= kMaxEvalDepth)
      return err(e, "expression nested too deeply");
    if (e.kind != Expr::Kind::Field && e.kind != Expr::Kind::Subscript) {
      auto v = eval(e, depth);
      if (!v)
        return v.getStatus();
      return std::optional<Ref>(v.take());
    }
    auto base = access(*e.lhs, depth + 1);
    if (!base || !*base)
      return base;
    const Ref &b = **base;
    if (e.kind == Expr::Kind::Field) {
      const Value *m = b->find(e.text);
      return m ? std::optional<Ref>(b.part(*m)) : std::nullopt;
    }
    auto sub = eval(*e.rhs, depth + 1);
    if (!sub)
      return sub.getStatus();
    const Value &s = **sub;
    if (b->isArray() && s.isInt()) {
      int64_t i = s.getInt();
      if (i < 0 || uint64_t(i) >= b->getArray().size())
        return std::optional<Ref>();
      return std::optional<Ref>(b.part(b->getArray()[i]));
    }
    if (b->isObject() && s.isString()) {
      const Value *m = b->find(s.getString());
      return m ? std::optional<Ref>(b.part(*m)) : std::nullopt;
    }
    return std::optional<Ref>();
  }

  /// The Step Functions Choice type tests, StringMatches and instant. A type
  /// test of a part of $out that is absent is false, as a Choice comparison
  /// of an absent variable does not match.
  Result<Ref> call(const Expr &e, unsigned depth) {
    auto present = access(*e.lhs, depth + 1);
    if (!present)
      return present.getStatus();
    if (e.text == "is_present")
      return own(present->has_value());
    if (e.text != "matches" && e.text != "instant" && !present->has_value())
      return own(false);
    if (!present->has_value())
      return err(e, e.text + " of an absent value");
    const Value &v = ***present;
    if (e.text == "is_null")
      return own(v.isNull());
    if (e.text == "is_numeric")
      return own(v.isNumber());
    if (e.text == "is_string")
      return own(v.isString());
    if (e.text == "is_boolean")
      return own(v.isBool());
    if (e.text == "is_timestamp")
      return own(v.isString() && instant(v.getString()).has_value());
    if (e.text == "instant") {
      std::optional<std::string> key =
          v.isString() ? instant(v.getString()) : std::nullopt;
      if (!key)
        return err(e, "instant needs an RFC 3339 timestamp, got " +
                          (v.isString() ? "'" + v.getString() + "'"
                                        : aKind(v.kind())));
      return own(std::move(*key));
    }
    if (e.text == "matches") {
      if (!e.rhs || e.rhs->kind != Expr::Kind::String)
        return err(e, "matches needs a pattern string");
      if (!v.isString())
        return err(e, std::string("matches needs a string, got ") +
                          aKind(v.kind()));
      return own(globMatch(v.getString(), e.rhs->text));
    }
    return err(e, "unknown function '" + e.text + "'");
  }

  /// The conditional language's instant(): a key that orders as the
  /// instant, or nullopt when `s` is not an ASL timestamp.
  static std::optional<std::string> instant(const std::string &s) {
    std::optional<config::Instant> t = config::parseTimestamp(s);
    if (!t)
      return std::nullopt;
    return config::instantKey(*t);
  }

  Result<Ref> unary(const Expr &e, unsigned depth) {
    auto r = eval(*e.lhs, depth + 1);
    if (!r)
      return r;
    const Value &v = **r;
    if (e.op == Op::Not) {
      if (!v.isBool())
        return err(e, std::string("'not' needs a boolean, got ") +
                          aKind(v.kind()));
      return own(!v.getBool());
    }
    if (v.isInt()) {
      if (v.getInt() == INT64_MIN)
        return err(e, "integer overflow");
      return own(-v.getInt());
    }
    if (v.isDouble())
      return own(-v.getDouble());
    return err(e, std::string("'-' needs a number, got ") + aKind(v.kind()));
  }

  Result<Ref> binary(const Expr &e, unsigned depth) {
    if (e.op == Op::And || e.op == Op::Or) {
      auto l = eval(*e.lhs, depth + 1);
      if (!l)
        return l;
      if (!(*l)->isBool())
        return err(e, std::string("'") + opName(e.op) +
                          "' needs booleans, got " + aKind((*l)->kind()));
      if ((*l)->getBool() == (e.op == Op::Or))
        return l;
      auto r = eval(*e.rhs, depth + 1);
      if (!r)
        return r;
      if (!(*r)->isBool())
        return err(e, std::string("'") + opName(e.op) +
                          "' needs booleans, got " + aKind((*r)->kind()));
      return r;
    }
    auto lr = eval(*e.lhs, depth + 1);
    if (!lr)
      return lr;
    auto rr = eval(*e.rhs, depth + 1);
    if (!rr)
      return rr;
    const Value &l = **lr, &r = **rr;
    switch (e.op) {
    case Op::Eq:
    case Op::Ne: {
      // Numbers are equal by value, whatever their representation (1 and
      // 1.0); everything else by Value equality.
      bool eq = l.isNumber() && r.isNumber()
                    ? (l.isInt() && r.isInt() ? l.getInt() == r.getInt()
                                              : l.getNumber() == r.getNumber())
                    : l == r;
      return own(eq == (e.op == Op::Eq));
    }
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      return compare(e, l, r);
    default:
      return arith(e, l, r);
    }
  }

  Result<Ref> compare(const Expr &e, const Value &l, const Value &r) {
    int c;
    if (l.isNumber() && r.isNumber()) {
      if (l.isInt() && r.isInt())
        c = l.getInt() < r.getInt() ? -1 : l.getInt() > r.getInt();
      else
        c = l.getNumber() < r.getNumber() ? -1 : l.getNumber() > r.getNumber();
    } else if (l.isString() && r.isString()) {
      c = l.getString().compare(r.getString());
    } else {
      return err(e, std::string("cannot compare ") + aKind(l.kind()) +
                        " with " + aKind(r.kind()) + " using '" + opName(e.op) +
                        "'");
    }
    switch (e.op) {
    case Op::Lt:
      return own(c < 0);
    case Op::Le:
      return own(c <= 0);
    case Op::Gt:
      return own(c > 0);
    default:
      return own(c >= 0);
    }
  }

  Result<Ref> arith(const Expr &e, const Value &l, const Value &r) {
    if (!l.isNumber() || !r.isNumber())
      return err(e, std::string("'") + opName(e.op) + "' needs numbers, got " +
                        Value::kindName(l.kind()) + " and " +
                        Value::kindName(r.kind()));
    if (l.isInt() && r.isInt()) {
      int64_t a = l.getInt(), b = r.getInt(), out = 0;
      switch (e.op) {
      case Op::Add:
        if (__builtin_add_overflow(a, b, &out))
          return err(e, "integer overflow");
        return own(out);
      case Op::Sub:
        if (__builtin_sub_overflow(a, b, &out))
          return err(e, "integer overflow");
        return own(out);
      case Op::Mul:
        if (__builtin_mul_overflow(a, b, &out))
          return err(e, "integer overflow");
        return own(out);
      case Op::Div:
        if (b == 0)
          return err(e, "division by zero");
        if (a == INT64_MIN && b == -1)
          return err(e, "integer overflow");
        if (a % b == 0)
          return own(a / b);
        return own(double(a) / double(b));
      case Op::Mod: {
        if (b == 0)
          return err(e, "modulo by zero");
        if (b == -1)
          return own(int64_t(0));
        int64_t m = a % b;
        if (m != 0 && ((m < 0) != (b < 0)))
          m += b;
        return own(m);
      }
      default:
        break;
      }
      return err(e, "unknown operator");
    }
    double a = l.getNumber(), b = r.getNumber();
    switch (e.op) {
    case Op::Add:
      return own(a + b);
    case Op::Sub:
      return own(a - b);
    case Op::Mul:
      return own(a * b);
    case Op::Div:
      if (b == 0)
        return err(e, "division by zero");
      return own(a / b);
    case Op::Mod:
      return err(e, "'%' needs integers");
    default:
      break;
    }
    return err(e, "unknown operator");
  }

  const EvalEnv &env;
};
/// The first occurrence of `needle` (non-empty) in `hay` at or after `from`
/// (Knuth-Morris-Pratt: O(|hay| + |needle|) whatever the text), or npos.
size_t findLinear(std::string_view hay, std::string_view needle, size_t from) {
  std::vector<size_t> border(needle.size(), 0);
  for (size_t i = 1, k = 0; i < needle.size(); ++i) {
    while (k > 0 && needle[i] != needle[k])
      k = border[k - 1];
    if (needle[i] == needle[k])
      ++k;
    border[i] = k;
  }
  for (size_t i = from, k = 0; i < hay.size(); ++i) {
    while (k > 0 && hay[i] != needle[k])
      k = border[k - 1];
    if (hay[i] == needle[k] && ++k == needle.size())
      return i + 1 - needle.size();
  }
  return std::string_view::npos;
}
} // namespace

bool unum::runtime::globMatch(std::string_view s, std::string_view pattern) {
  // The literal runs between unescaped stars.
  std::vector<std::string> segments(1);
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\' && i + 1 < pattern.size())
      segments.back() += pattern[++i];
    else if (pattern[i] == '*')
      segments.emplace_back();
    else
      segments.back() += pattern[i];
  }
  const std::string &first = segments.front(), &last = segments.back();
  if (segments.size() == 1)
    return s == first;
  // The first run anchors at the start, the last at the end (not
  // overlapping); the ones between, each leftmost after the one before, is
  // a match if there is any (a star takes whatever lies between).
  if (s.size() < first.size() + last.size() ||
      s.substr(0, first.size()) != first ||
      s.substr(s.size() - last.size()) != last)
    return false;
  std::string_view middle =
      s.substr(first.size(), s.size() - first.size() - last.size());
  size_t at = 0;
  for (size_t k = 1; k + 1 < segments.size(); ++k) {
    if (segments[k].empty())
      continue;
    at = findLinear(middle, segments[k], at);
    if (at == std::string_view::npos)
      return false;
    at += segments[k].size();
  }
  return true;
}

Result<Value> unum::runtime::evaluate(const Expr &expr, const EvalEnv &env) {
  auto r = Evaluator(env).eval(expr, 0);
  if (!r)
    return r.getStatus();
  return r->take();
}

Result<bool> unum::runtime::evaluateCondition(const config::Expression &cond,
                                              const EvalEnv &env) {
  if (!cond.root)
    return Status::error("conditional '" + cond.text + "' was not parsed");
  auto v = Evaluator(env).eval(*cond.root, 0);
  if (!v)
    return v.getStatus().withContext("conditional '" + cond.text + "'");
  if (!(*v)->isBool())
    return Status::error("conditional '" + cond.text + "' gave " +
                         aKind((*v)->kind()) + ", not a boolean");
  return (*v)->getBool();
}

Result<FanInValues>
unum::runtime::resolveFanIn(const std::vector<config::NamePattern> &values,
                            const EvalEnv &env) {
  FanInValues out;
  size_t total = 0;
  const std::vector<FanOutLevel> empty;
  const std::vector<FanOutLevel> &levels = env.fanout ? *env.fanout : empty;
  for (const config::NamePattern &pattern : values) {
    FanInValues::Pattern resolved;
    resolved.function = pattern.function;
    std::string key = pattern.function;
    size_t count = 1;
    for (size_t p = 0; p < pattern.parts.size(); ++p) {
      const config::IndexPart &part = pattern.parts[p];
      FanInValues::Part r;
      switch (part.kind) {
      case config::IndexPart::Kind::Constant:
        r.value = part.value;
        break;
      case config::IndexPart::Kind::Variable:
        if (part.var >= levels.size())
          return Status::error("fan-in value '" + pattern.text + "': $" +
                               std::to_string(part.var) +
                               " is deeper than this instance's fan-out (" +
                               std::to_string(levels.size()) + " level(s))");
        r.value = levels[part.var].index;
        break;
      case config::IndexPart::Kind::Wildcard:
        // '*' at position p ranges over the instance's own level p.
        if (p >= levels.size())
          return Status::error(
              "fan-in value '" + pattern.text + "': '*' at level " +
              std::to_string(p) + " but this instance has " +
              std::to_string(levels.size()) + " fan-out level(s)");
        r.wildcard = true;
        r.value = levels[p].size;
        if (r.value == 0 || count > kMaxFanInInstances / size_t(r.value))
          count = r.value == 0 ? 0 : kMaxFanInInstances + 1;
        else
          count *= size_t(r.value);
        break;
      case config::IndexPart::Kind::Arithmetic: {
        if (!part.expr)
          return Status::error("fan-in value '" + pattern.text +
                               "' was not parsed");
        EvalEnv indexEnv{nullptr, env.fanout};
        auto v = evaluate(*part.expr, indexEnv);
        if (!v)
          return v.getStatus().withContext("fan-in value '" + pattern.text +
                                           "'");
        if (!v->isInt())
          return Status::error("fan-in value '" + pattern.text +
                               "': index expression gave a non-integer");
        r.value = v->getInt();
        break;
      }
      }
      if (!r.wildcard && r.value < 0)
        return Status::error("fan-in value '" + pattern.text +
                             "': negative index " + std::to_string(r.value));
      key += p == 0 ? "-unumIndex-" : ".";
      key += r.wildcard ? "*[" + std::to_string(r.value) + "]"
                        : std::to_string(r.value);
      resolved.parts.push_back(r);
    }
    total += count;
    if (total > kMaxFanInInstances)
      return Status::error("fan-in names more than " +
                           std::to_string(kMaxFanInInstances) + " instances");
    if (!out.key.empty())
      out.key += ',';
    out.key += key;
    out.patterns.push_back(std::move(resolved));
  }
  out.count = total;
  return out;
}

bool FanInValues::contains(const std::string &instance) const {
  static const std::string infix = "-unumIndex-";
  size_t at = instance.find(infix);
  std::string function = instance.substr(0, at);
  std::vector<int64_t> indices;
  if (at != std::string::npos) {
    size_t pos = at + infix.size();
    while (pos <= instance.size()) {
      size_t dot = instance.find('.', pos);
      if (dot == std::string::npos)
        dot = instance.size();
      indices.push_back(std::strtoll(instance.c_str() + pos, nullptr, 10));
      pos = dot + 1;
    }
  }
  for (const Pattern &p : patterns) {
    if (p.function != function || p.parts.size() != indices.size())
      continue;
    bool match = true;
    for (size_t i = 0; i < indices.size() && match; ++i)
      match = p.parts[i].wildcard
                  ? indices[i] >= 0 && indices[i] < p.parts[i].value
                  : indices[i] == p.parts[i].value;
    if (match)
      return true;
  }
  return false;
}

std::vector<std::string> FanInValues::expand() const {
  std::vector<std::string> names;
  names.reserve(count);
  for (const Pattern &p : patterns) {
    std::vector<int64_t> cur(p.parts.size());
    for (size_t i = 0; i < p.parts.size(); ++i) {
      if (p.parts[i].wildcard && p.parts[i].value == 0)
        goto next; // an empty range names no instance
      cur[i] = p.parts[i].wildcard ? 0 : p.parts[i].value;
    }
    for (;;) {
      std::string name = p.function;
      for (size_t i = 0; i < cur.size(); ++i) {
        name += i == 0 ? "-unumIndex-" : ".";
        name += std::to_string(cur[i]);
      }
      names.push_back(std::move(name));
      // Odometer over the wildcards, innermost fastest.
      size_t i = 0;
      for (; i < cur.size(); ++i) {
        if (!p.parts[i].wildcard)
          continue;
        if (++cur[i] < p.parts[i].value)
          break;
        cur[i] = 0;
      }
      if (i == cur.size())
        break;
    }
  next:;
  }
  return names;
}

Result<std::vector<FanOutLevel>>
unum::runtime::applyModifiers(const std::vector<config::Modifier> &modifiers,
                              std::vector<FanOutLevel> fanout,
                              const Value *output) {
  for (const config::Modifier &m : modifiers) {
    switch (m.kind) {
    case config::Modifier::Kind::Pop:
      if (!fanout.empty())
        fanout.erase(fanout.begin());
      break;
    case config::Modifier::Kind::AssignIndex:
    case config::Modifier::Kind::AssignSize: {
      if (!m.value.root)
        return Status::error("modifier '" + m.text + "' was not parsed");
      EvalEnv env{output, &fanout};
      auto v = evaluate(*m.value.root, env);
      if (!v)
        return v.getStatus().withContext("modifier '" + m.text + "'");
      if (!v->isInt() || v->getInt() < 0)
        return Status::error("modifier '" + m.text +
                             "' must give a non-negative integer");
      size_t level =
          m.kind == config::Modifier::Kind::AssignSize ? 0 : size_t(m.var);
      if (level >= fanout.size())
        return Status::error(
            "modifier '" + m.text + "' needs " + std::to_string(level + 1) +
            " fan-out level(s); there are " + std::to_string(fanout.size()));
      if (m.kind == config::Modifier::Kind::AssignSize)
        fanout[0].size = v->getInt();
      else
        fanout[level].index = v->getInt();
      break;
    }
    }
  }
  return fanout;
}
