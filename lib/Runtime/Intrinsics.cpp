//===- Intrinsics.cpp - Step Functions intrinsic functions ----------------===//
//
// A call is parsed into a small tree first (so that a syntax error is
// reported whatever the data), then evaluated bottom-up. The grammar:
//
//   call     := 'States.' Name ws '(' ws [arg ws (',' ws arg ws)*] ')'
//   arg      := call | string | number | 'true' | 'false' | 'null' | path
//   string   := "'" (char | '\' ("'" | '{' | '}' | '\'))* "'"
//   path     := '$' ...   (up to a ',' or ')' outside brackets and quotes)
//
// In a string literal an unescaped `{}` is a States.Format placeholder and
// an escaped `\{\}` is not; any other backslash is an error, as in Step
// Functions. Every result is bounded (kMaxText, kMaxRange, kMaxCodecInput),
// so a bad input cannot make the runtime allocate without limit.
//
//===----------------------------------------------------------------------===//
#include "Intrinsics.h"

#include "Digest.h"
#include "Paths.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <unordered_map>

using namespace unum::runtime;
using namespace unum::runtime::intrinsics;

namespace {

using unum::config::CallArg;
using Expr = unum::config::Call;
using Fn = unum::config::Intrinsic;

std::string plural(size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

//===----------------------------------------------------------------------===//
// Helpers for the functions
//===----------------------------------------------------------------------===//

/// How a value is named in "must be X, not Y".
std::string describe(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::Int:
  case Value::Kind::Double:
  case Value::Kind::Bool:
  case Value::Kind::Null:
    return toJson(v);
  case Value::Kind::String:
    return "a string";
  case Value::Kind::Array:
    return "an array";
  case Value::Kind::Object:
    return "an object";
  }
  return "a value";
}

/// An integer argument: an integer, or a number rounded to the nearest one
/// (as Step Functions does); nullopt when not a number or out of range.
std::optional<int64_t> integer(const Value &v) {
  if (v.isInt())
    return v.getInt();
  if (!v.isDouble() || !std::isfinite(v.getDouble()))
    return std::nullopt;
  double r = std::round(v.getDouble());
  if (r < -9.2e18 || r > 9.2e18)
    return std::nullopt;
  return int64_t(r);
}

/// The number of code points of UTF-8 text (valid, as every Value string
/// read from JSON is).
size_t characters(std::string_view text) {
  size_t n = 0;
  for (unsigned char c : text)
    n += (c & 0xC0) != 0x80;
  return n;
}

/// The length of the UTF-8 sequence starting at `text[i]`, or 0 if it is not
/// a valid one (overlong forms, surrogates and values past U+10FFFF are not).
size_t sequenceLength(std::string_view text, size_t i) {
  unsigned char c = text[i];
  if (c < 0x80)
    return 1;
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > text.size())
    return 0;
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = text[i + k];
    if ((d & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (d & 0x3F);
  }
  static const uint32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < minimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

bool isUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = sequenceLength(text, i);
    if (n == 0)
      return false;
    i += n;
  }
  return true;
}

/// A hash consistent with Value's ==: numbers by their double value (1 ==
/// 1.0), object members in any order.
size_t hashValue(const Value &v) {
  auto mix = [](size_t h, size_t x) {
    return h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  };
  switch (v.kind()) {
  case Value::Kind::Null:
    return 0x51;
  case Value::Kind::Bool:
    return v.getBool() ? 0x71 : 0x70;
  case Value::Kind::Int:
  case Value::Kind::Double:
    return std::hash<double>()(v.getNumber() + 0.0); // -0.0 == 0.0
  case Value::Kind::String:
    return std::hash<std::string>()(v.getString());
  case Value::Kind::Array: {
    size_t h = 0xA7;
    for (const Value &item : v.getArray())
      h = mix(h, hashValue(item));
    return h;
  }
  case Value::Kind::Object: {
    size_t h = 0x0B;
    for (const Value::Member &m : v.getObject()) // order-independent sum
      h += mix(std::hash<std::string>()(m.first), hashValue(m.second));
    return h;
  }
  }
  return 0;
}

/// A 64-bit generator: SplitMix64, fixed so that a seeded States.MathRandom
/// gives the same number on every platform and version.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

/// 64 bits from the system's entropy source.
uint64_t freshSeed() {
  std::random_device rd;
  return uint64_t(rd()) << 32 ^ rd();
}

/// Evaluates a parsed call tree.
class Evaluator {
public:
  explicit Evaluator(const PathResolver &resolve) : resolve(resolve) {}

  Result<Value> eval(const Expr &e) {
    std::vector<Value> args;
    args.reserve(e.args.size());
    for (size_t k = 0; k < e.args.size(); ++k) {
      const CallArg &arg = e.args[k];
      if (arg.kind == CallArg::Kind::Call) {
        auto v = eval(*arg.call);
        if (!v)
          return v;
        args.push_back(v.take());
      } else if (arg.kind == CallArg::Kind::Path) {
        auto v = resolve(arg.path);
        if (!v)
          return v.getStatus().withContext(name(e) + ": argument " +
                                           std::to_string(k + 1));
        args.push_back(v.take());
      } else {
        args.push_back(paths::literalValue(arg.value));
      }
    }
    return apply(e, args);
  }

private:
  static std::string name(const Expr &call) {
    return "States." + std::string(call.sig->name);
  }
  static const char *role(const Expr &call, size_t k) {
    const auto &roles = call.sig->roles;
    return roles[std::min(k, roles.size() - 1)];
  }
  /// "States.X: argument 2 (chunk size) must be <what>, not <value>".
  static Status bad(const Expr &call, size_t k, const std::string &what,
                    const Value &got) {
    return Status::error(name(call) + ": argument " + std::to_string(k + 1) +
                         " (" + role(call, k) + ") must be " + what + ", not " +
                         describe(got));
  }
  static Status failure(const Expr &call, const std::string &what) {
    return Status::error(name(call) + ": " + what);
  }
  /// A result past kMaxText bytes.
  static Status tooLong(const Expr &call) {
    return failure(call, "the result is longer than " +
                             std::to_string(kMaxText) + " bytes");
  }
  /// Argument k must be a string of at most `limit` characters.
  static Status text(const Expr &call, const std::vector<Value> &args, size_t k,
                     size_t limit) {
    if (!args[k].isString())
      return bad(call, k, "a string", args[k]);
    if (characters(args[k].getString()) > limit)
      return failure(call, "argument " + std::to_string(k + 1) + " (" +
                               role(call, k) + ") is longer than " +
                               std::to_string(limit) + " characters");
    return Status::ok();
  }

  Result<Value> apply(const Expr &call, std::vector<Value> &args);
  Result<Value> format(const Expr &call, std::vector<Value> &args);
  Result<Value> arrayRange(const Expr &call, std::vector<Value> &args);
  Result<Value> mathRandom(const Expr &call, std::vector<Value> &args);
  Result<Value> stringSplit(const Expr &call, std::vector<Value> &args);

  const PathResolver &resolve;
};

Result<Value> Evaluator::format(const Expr &call, std::vector<Value> &args) {
  if (!args[0].isString())
    return bad(call, 0, "a string", args[0]);
  const std::string &tmpl = args[0].getString();
  // A literal template knows which braces were escaped; a template read
  // from the input has a placeholder at every "{}".
  std::vector<size_t> holes;
  const CallArg &first = call.args[0];
  if (first.kind == CallArg::Kind::Literal) {
    holes = first.value.holes;
  } else {
    for (size_t at = tmpl.find("{}"); at != std::string::npos;
         at = tmpl.find("{}", at + 2))
      holes.push_back(at);
  }
  if (holes.size() != args.size() - 1)
    return failure(call, "the template has " +
                             plural(holes.size(), "'{}' placeholder") +
                             " but " + plural(args.size() - 1, "value") +
                             (args.size() == 2 ? " was" : " were") + " given");
  std::string out;
  size_t from = 0;
  for (size_t k = 1; k < args.size(); ++k) {
    const Value &v = args[k];
    if (v.isArray() || v.isObject())
      return bad(call, k, "a string, number, boolean or null", v);
    out.append(tmpl, from, holes[k - 1] - from);
    if (v.isString())
      out += v.getString();
    else
      appendJson(out, v);
    from = holes[k - 1] + 2;
    if (out.size() > kMaxText)
      return tooLong(call);
  }
  out.append(tmpl, from, std::string::npos);
  if (out.size() > kMaxText)
    return tooLong(call);
  return Value(std::move(out));
}

Result<Value> Evaluator::arrayRange(const Expr &call,
                                    std::vector<Value> &args) {
  int64_t bound[3];
  for (size_t k = 0; k < 3; ++k) {
    auto v = integer(args[k]);
    if (!v || (k == 2 && *v == 0))
      return bad(call, k, k == 2 ? "a non-zero integer" : "an integer",
                 args[k]);
    bound[k] = *v;
  }
  auto [start, end, step] = bound;
  if ((step > 0 && start > end) || (step < 0 && start < end))
    return Value::array();
  // Unsigned: the distance and the step's magnitude may not fit in int64.
  uint64_t distance = step > 0 ? uint64_t(end) - uint64_t(start)
                               : uint64_t(start) - uint64_t(end);
  uint64_t stride = step > 0 ? uint64_t(step) : 0 - uint64_t(step);
  // distance / stride + 1 wraps to 0 over the whole int64 range.
  if (distance / stride >= kMaxRange)
    return failure(call, "the range would have more than " +
                             std::to_string(kMaxRange) + " elements");
  uint64_t count = distance / stride + 1;
  Value::Array out;
  out.reserve(size_t(count));
  for (uint64_t k = 0; k < count; ++k) // every element lies in [start, end]
    out.push_back(Value(int64_t(uint64_t(start) + k * uint64_t(step))));
  return Value(std::move(out));
}

Result<Value> Evaluator::mathRandom(const Expr &call,
                                    std::vector<Value> &args) {
  int64_t bound[3] = {0, 0, 0};
  for (size_t k = 0; k < args.size(); ++k) {
    auto v = integer(args[k]);
    if (!v)
      return bad(call, k, "an integer", args[k]);
    bound[k] = *v;
  }
  int64_t start = bound[0], end = bound[1];
  if (start >= end)
    return failure(call, "the start (" + std::to_string(start) +
                             ") must be less than the end (" +
                             std::to_string(end) + ")");
  SplitMix64 rng{args.size() == 3 ? uint64_t(bound[2]) : freshSeed()};
  // Uniform in [start, end): reject the few draws that would bias the
  // remainder.
  uint64_t range = uint64_t(end) - uint64_t(start);
  uint64_t threshold = (0 - range) % range;
  uint64_t r;
  do
    r = rng.next();
  while (r < threshold);
  return Value(int64_t(uint64_t(start) + r % range));
}

Result<Value> Evaluator::stringSplit(const Expr &call,
                                     std::vector<Value> &args) {
  // The text is bounded before it is split: at most kMaxText characters, so
  // at most kMaxText / 2 + 1 pieces (a 32 MB text made 827 MB of them).
  if (Status s = text(call, args, 0, kMaxText); !s)
    return s;
  if (!args[1].isString())
    return bad(call, 1, "a string", args[1]);
  const std::string &text = args[0].getString();
  const std::string &delims = args[1].getString();
  if (delims.empty())
    return bad(call, 1, "a non-empty string", args[1]);
  // Every character of the second argument is a delimiter; runs of them
  // make no empty strings (Step Functions splits like a tokenizer).
  std::vector<std::string_view> set;
  for (size_t i = 0; i < delims.size();) {
    size_t n = std::max<size_t>(1, sequenceLength(delims, i));
    set.push_back(std::string_view(delims).substr(i, n));
    i += n;
  }
  Value::Array out;
  std::string_view rest(text);
  size_t tokenStart = 0;
  for (size_t i = 0; i < rest.size();) {
    size_t n = std::max<size_t>(1, sequenceLength(rest, i));
    std::string_view ch = rest.substr(i, n);
    if (std::find(set.begin(), set.end(), ch) != set.end()) {
      if (i > tokenStart)
        out.push_back(Value(rest.substr(tokenStart, i - tokenStart)));
      tokenStart = i + n;
    }
    i += n;
  }
  if (rest.size() > tokenStart)
    out.push_back(Value(rest.substr(tokenStart)));
  return Value(std::move(out));
}

Result<Value> Evaluator::apply(const Expr &call, std::vector<Value> &args) {
  switch (call.sig->fn) {
  case Fn::Format:
    return format(call, args);

  case Fn::StringToJson: {
    if (Status s = text(call, args, 0, kMaxText); !s)
      return s;
    auto v = parseJsonValue(args[0].getString(), "argument 1 (JSON text)");
    if (!v)
      return failure(call, v.getStatus().message());
    return v;
  }

  case Fn::JsonToString: {
    std::string text = toJson(args[0]);
    if (text.size() > kMaxText)
      return tooLong(call);
    return Value(std::move(text));
  }

  case Fn::Array:
    return Value(Value::Array(std::make_move_iterator(args.begin()),
                              std::make_move_iterator(args.end())));

  case Fn::ArrayPartition: {
    if (!args[0].isArray())
      return bad(call, 0, "an array", args[0]);
    auto size = integer(args[1]);
    if (!size || *size <= 0)
      return bad(call, 1, "a positive integer", args[1]);
    Value::Array &items = args[0].getArray();
    Value::Array out;
    for (size_t i = 0; i < items.size(); i += size_t(*size)) {
      size_t end = std::min(items.size(), i + size_t(*size));
      out.push_back(
          Value(Value::Array(std::make_move_iterator(items.begin() + i),
                             std::make_move_iterator(items.begin() + end))));
    }
    return Value(std::move(out));
  }

  case Fn::ArrayContains: {
    if (!args[0].isArray())
      return bad(call, 0, "an array", args[0]);
    const Value::Array &items = args[0].getArray();
    return Value(std::find(items.begin(), items.end(), args[1]) != items.end());
  }

  case Fn::ArrayRange:
    return arrayRange(call, args);

  case Fn::ArrayGetItem: {
    if (!args[0].isArray())
      return bad(call, 0, "an array", args[0]);
    auto index = integer(args[1]);
    if (!index || *index < 0)
      return bad(call, 1, "a non-negative integer", args[1]);
    Value::Array &items = args[0].getArray();
    if (uint64_t(*index) >= items.size())
      return failure(call, "index " + std::to_string(*index) +
                               " is out of range for an array of " +
                               plural(items.size(), "item"));
    return std::move(items[size_t(*index)]);
  }

  case Fn::ArrayLength:
    if (!args[0].isArray())
      return bad(call, 0, "an array", args[0]);
    return Value(int64_t(args[0].getArray().size()));

  case Fn::ArrayUnique: {
    if (!args[0].isArray())
      return bad(call, 0, "an array", args[0]);
    // The first of equal items stays, in order; hashing keeps it linear.
    std::unordered_multimap<size_t, size_t> seen;
    Value::Array &items = args[0].getArray();
    Value::Array out;
    for (Value &item : items) {
      size_t h = hashValue(item);
      auto [lo, hi] = seen.equal_range(h);
      bool dup = false;
      for (auto it = lo; it != hi && !dup; ++it)
        dup = out[it->second] == item;
      if (dup)
        continue;
      seen.emplace(h, out.size());
      out.push_back(std::move(item));
    }
    return Value(std::move(out));
  }

  case Fn::Base64Encode: {
    if (Status s = text(call, args, 0, kMaxCodecInput); !s)
      return s;
    return Value(base64Encode(args[0].getString()));
  }

  case Fn::Base64Decode: {
    if (Status s = text(call, args, 0, kMaxCodecInput); !s)
      return s;
    auto bytes = base64Decode(args[0].getString());
    if (!bytes)
      return failure(call, bytes.getStatus().message());
    if (!isUtf8(*bytes))
      return failure(call, "the decoded data is not UTF-8 text");
    return Value(bytes.take());
  }

  case Fn::Hash: {
    if (Status s = text(call, args, 0, kMaxCodecInput); !s)
      return s;
    if (!args[1].isString())
      return bad(call, 1, "a string", args[1]);
    auto algorithm = digest::algorithmNamed(args[1].getString());
    if (!algorithm)
      return failure(call, "argument 2 (algorithm) must be one of MD5, "
                           "SHA-1, SHA-256, SHA-384, SHA-512, not '" +
                               args[1].getString() + "'");
    return Value(digest::hex(digest::compute(*algorithm, args[0].getString())));
  }

  case Fn::JsonMerge: {
    for (size_t k = 0; k < 2; ++k)
      if (!args[k].isObject())
        return bad(call, k, "an object", args[k]);
    if (!args[2].isBool())
      return bad(call, 2, "a boolean", args[2]);
    if (args[2].getBool())
      return failure(call, "deep merging (argument 3 true) is not supported; "
                           "as in Step Functions, only false (a shallow "
                           "merge) is");
    // The second object's members replace the first's of the same name, in
    // place; the others follow in their order. The first's names are
    // sorted once and each of the second's found by binary search:
    // O((n + m) log n) (a member-by-member search was quadratic).
    Value out = std::move(args[0]);
    Value::Object &members = out.getObject();
    std::vector<size_t> byName(members.size());
    for (size_t i = 0; i < byName.size(); ++i)
      byName[i] = i;
    std::sort(byName.begin(), byName.end(), [&](size_t i, size_t j) {
      return members[i].first < members[j].first;
    });
    Value::Object added;
    for (Value::Member &m : args[1].getObject()) {
      auto it = std::lower_bound(
          byName.begin(), byName.end(), m.first,
          [&](size_t i, const std::string &k) { return members[i].first < k; });
      if (it != byName.end() && members[*it].first == m.first)
        members[*it].second = std::move(m.second);
      else
        added.push_back(std::move(m));
    }
    members.insert(members.end(), std::make_move_iterator(added.begin()),
                   std::make_move_iterator(added.end()));
    return out;
  }

  case Fn::MathRandom:
    return mathRandom(call, args);

  case Fn::MathAdd: {
    int64_t sum = 0;
    for (size_t k = 0; k < 2; ++k) {
      auto v = integer(args[k]);
      if (!v || *v < INT32_MIN || *v > INT32_MAX)
        return bad(call, k, "an integer from -2147483648 to 2147483647",
                   args[k]);
      sum += *v;
    }
    return Value(sum);
  }

  case Fn::StringSplit:
    return stringSplit(call, args);

  case Fn::UUID: {
    // Version 4: 122 random bits.
    uint64_t hi = freshSeed(), lo = freshSeed();
    hi = (hi & ~0xF000ULL) | 0x4000ULL;                        // version
    lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL; // variant
    std::string bytes;
    for (int k = 7; k >= 0; --k)
      bytes += char(hi >> (8 * k));
    for (int k = 7; k >= 0; --k)
      bytes += char(lo >> (8 * k));
    std::string h = digest::hex(bytes);
    return Value(h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) +
                 "-" + h.substr(16, 4) + "-" + h.substr(20));
  }
  }
  return failure(call, "not implemented");
}

} // namespace

std::string intrinsics::base64Encode(std::string_view bytes) {
  static const char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t v = 0;
    for (size_t k = 0; k < 3; ++k)
      v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0);
    for (size_t k = 0; k < 4; ++k)
      out += k <= n ? alphabet[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

Result<std::string> intrinsics::base64Decode(std::string_view text) {
  auto digit = [](char c) -> int {
    if (c >= 'A' && c <= 'Z')
      return c - 'A';
    if (c >= 'a' && c <= 'z')
      return c - 'a' + 26;
    if (c >= '0' && c <= '9')
      return c - '0' + 52;
    if (c == '+')
      return 62;
    if (c == '/')
      return 63;
    return -1;
  };
  size_t end = text.size();
  size_t pad = 0;
  while (end > 0 && text[end - 1] == '=' && pad < 2) {
    --end;
    ++pad;
  }
  std::string out;
  out.reserve(end / 4 * 3 + 2);
  uint32_t acc = 0;
  unsigned bits = 0;
  for (size_t i = 0; i < end; ++i) {
    int d = digit(text[i]);
    if (d < 0)
      return Status::error("argument 1 (Base64 text) has '" +
                           std::string(1, text[i]) + "' at character " +
                           std::to_string(i + 1) +
                           ", which is not a Base64 digit");
    acc = acc << 6 | uint32_t(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xFF);
    }
  }
  if ((pad && text.size() % 4) || end % 4 == 1)
    return Status::error("argument 1 (Base64 text) has a length that is not "
                         "valid Base64");
  return out;
}

Result<Value> intrinsics::evaluate(const config::Call &call,
                                   const PathResolver &resolve) {
  return Evaluator(resolve).eval(call);
}

Result<Value> intrinsics::evaluate(std::string_view text,
                                   const PathResolver &resolve) {
  config::ParseError err;
  config::CallPtr call = config::parseIntrinsicCall(text, err);
  if (!call)
    return Status::error("invalid intrinsic function call \"" +
                         std::string(text) + "\": " + err.message +
                         " at character " + std::to_string(err.offset + 1));
  return evaluate(*call, resolve);
}
