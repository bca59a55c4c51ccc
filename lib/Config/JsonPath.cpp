//===- JsonPath.cpp - JSONPath, reference paths, intrinsic calls ----------===//
//
// One recursive-descent parser for the grammar in JsonPath.h. Every
// recursion (filters, parentheses, nested calls) counts its depth and fails
// past kMaxPathNesting, so no input can exhaust the stack.
//
//===----------------------------------------------------------------------===//
#include "unum/Config/JsonPath.h"
#include "unum/Config/Limits.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

using namespace unum::config;

//===----------------------------------------------------------------------===//
// Queries and the signature table
//===----------------------------------------------------------------------===//

bool JsonPath::isReference() const {
  for (const Segment &s : segments) {
    if (s.descendant || s.selectors.size() != 1)
      return false;
    const Selector &sel = s.selectors.front();
    if (sel.kind != Selector::Kind::Member &&
        !(sel.kind == Selector::Kind::Index && sel.index >= 0))
      return false;
  }
  return true;
}

bool JsonPath::isDefinite() const {
  for (const Segment &s : segments) {
    if (s.descendant || s.selectors.size() != 1)
      return false;
    Selector::Kind k = s.selectors.front().kind;
    if (k != Selector::Kind::Member && k != Selector::Kind::Index)
      return false;
  }
  return true;
}

const std::vector<IntrinsicSignature> &unum::config::intrinsicSignatures() {
  static const std::vector<IntrinsicSignature> table = {
      {"Format", Intrinsic::Format, 1, kVariadic, {"template", "value"}},
      {"StringToJson", Intrinsic::StringToJson, 1, 1, {"JSON text"}},
      {"JsonToString", Intrinsic::JsonToString, 1, 1, {"value"}},
      {"Array", Intrinsic::Array, 0, kVariadic, {"item"}},
      {"ArrayPartition",
       Intrinsic::ArrayPartition,
       2,
       2,
       {"array", "chunk size"}},
      {"ArrayContains", Intrinsic::ArrayContains, 2, 2, {"array", "value"}},
      {"ArrayRange", Intrinsic::ArrayRange, 3, 3, {"start", "end", "step"}},
      {"ArrayGetItem", Intrinsic::ArrayGetItem, 2, 2, {"array", "index"}},
      {"ArrayLength", Intrinsic::ArrayLength, 1, 1, {"array"}},
      {"ArrayUnique", Intrinsic::ArrayUnique, 1, 1, {"array"}},
      {"Base64Encode", Intrinsic::Base64Encode, 1, 1, {"data"}},
      {"Base64Decode", Intrinsic::Base64Decode, 1, 1, {"Base64 text"}},
      {"Hash", Intrinsic::Hash, 2, 2, {"data", "algorithm"}},
      {"JsonMerge",
       Intrinsic::JsonMerge,
       3,
       3,
       {"first object", "second object", "deep merge"}},
      {"MathRandom", Intrinsic::MathRandom, 2, 3, {"start", "end", "seed"}},
      {"MathAdd", Intrinsic::MathAdd, 2, 2, {"first number", "second number"}},
      {"StringSplit", Intrinsic::StringSplit, 2, 2, {"string", "delimiters"}},
      {"UUID", Intrinsic::UUID, 0, 0, {}},
  };
  return table;
}

const IntrinsicSignature *unum::config::findIntrinsic(std::string_view name) {
  for (const IntrinsicSignature &s : intrinsicSignatures())
    if (name == s.name)
      return &s;
  return nullptr;
}

static std::string plural(size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string unum::config::intrinsicArity(const IntrinsicSignature &sig) {
  if (sig.max == 0)
    return "takes no arguments";
  std::string roles;
  for (size_t i = 0; i < sig.roles.size(); ++i)
    roles += (i ? ", " : "") + std::string(sig.roles[i]);
  std::string count;
  if (sig.max == kVariadic) {
    roles += "...";
    count = "at least " + plural(sig.min, "argument");
  } else if (sig.min == sig.max) {
    count = plural(sig.min, "argument");
  } else {
    count = std::to_string(sig.min) + " or " + plural(sig.max, "argument");
  }
  return "takes " + count + " (" + roles + ")";
}

//===----------------------------------------------------------------------===//
// The parser
//===----------------------------------------------------------------------===//

namespace {

/// Where a path embedded in a larger text ends.
enum class Context { Alone, CallArg, FilterOperand };

class Parser {
public:
  Parser(std::string_view text, ParseError &error) : s(text), error(error) {}

  bool tooLong() {
    if (s.size() <= kMaxPathText)
      return false;
    fail(kMaxPathText,
         "longer than " + std::to_string(kMaxPathText) + " characters");
    return true;
  }

  std::optional<JsonPath> wholePath(PathRules rules) {
    auto path = parsePath(rules, Context::Alone, 0);
    if (path && i != s.size()) {
      fail(i, std::string("unexpected '") + s[i] + "'");
      return std::nullopt;
    }
    return path;
  }

  CallPtr wholeCall() {
    CallPtr call = parseCall(1, 0);
    if (!call)
      return nullptr;
    skipSpace();
    if (i != s.size()) {
      fail(i, "unexpected text after the call");
      return nullptr;
    }
    return call;
  }

private:
  bool fail(size_t at, std::string message) {
    if (!failed) {
      error.offset = static_cast<unsigned>(at);
      error.message = std::move(message);
      failed = true;
    }
    return false;
  }
  bool nest(unsigned depth) {
    if (depth <= kMaxPathNesting)
      return true;
    return fail(i, "nested deeper than " + std::to_string(kMaxPathNesting) +
                       " levels");
  }
  bool at(char c) const { return i < s.size() && s[i] == c; }
  bool startsWith(std::string_view w) const {
    return s.substr(i, w.size()) == w;
  }
  void skipSpace() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
  }

  /// A character that ends a dot-name.
  static bool endsName(char c) {
    switch (c) {
    case '.':
    case '[':
    case ']':
    case '(':
    case ')':
    case '\'':
    case '"':
    case ',':
    case '=':
    case '!':
    case '<':
    case '>':
    case '&':
    case '|':
      return true;
    default:
      return std::isspace(static_cast<unsigned char>(c));
    }
  }

  //--- Paths ---------------------------------------------------------------

  std::optional<JsonPath> parsePath(PathRules rules, Context where,
                                    unsigned depth) {
    JsonPath path;
    size_t begin = i;
    if (at('@')) {
      if (where != Context::FilterOperand) {
        fail(i, "'@' (the current item) is only allowed in a filter");
        return std::nullopt;
      }
      path.root = JsonPath::Root::Current;
      ++i;
    } else if (startsWith("$$")) {
      if (!rules.context) {
        fail(i, "a context path ('$$') is not allowed here");
        return std::nullopt;
      }
      path.root = JsonPath::Root::Context;
      i += 2;
      if (i < s.size() && !at('.') && !at('[') && where == Context::Alone) {
        fail(i, "expected '.' or '[' after '$$'");
        return std::nullopt;
      }
    } else if (at('$')) {
      ++i;
    } else {
      fail(i, "a path must start with '$'");
      return std::nullopt;
    }
    while (i < s.size()) {
      // A reference path places a value (ResultPath): each segment is a
      // level of the JSON it builds, which must stay readable.
      if (rules.reference &&
          path.segments.size() >= unum::limits::kMaxNesting) {
        fail(i, "a reference path has at most " +
                    std::to_string(unum::limits::kMaxNesting) +
                    " segments (the JSON nesting limit)");
        return std::nullopt;
      }
      if (at('.')) {
        if (!parseDotSegment(path, rules, depth))
          return std::nullopt;
      } else if (at('[')) {
        Segment seg;
        seg.offset = static_cast<unsigned>(i);
        if (!parseBracket(seg, rules, depth))
          return std::nullopt;
        path.segments.push_back(std::move(seg));
      } else if (where == Context::Alone) {
        fail(i, std::string("unexpected '") + s[i] + "'");
        return std::nullopt;
      } else {
        break; // the enclosing call or filter continues here
      }
    }
    path.text = std::string(s.substr(begin, i - begin));
    return path;
  }

  bool parseDotSegment(JsonPath &path, PathRules rules, unsigned depth) {
    Segment seg;
    seg.offset = static_cast<unsigned>(i);
    ++i; // '.'
    if (at('.')) {
      if (rules.reference)
        return fail(i - 1, "'..' (recursive descent) is not allowed in a "
                           "reference path");
      seg.descendant = true;
      ++i;
      if (at('[')) {
        if (!parseBracket(seg, rules, depth))
          return false;
        path.segments.push_back(std::move(seg));
        return true;
      }
    }
    if (at('*')) {
      if (rules.reference)
        return fail(i, "'*' is not allowed in a reference path");
      ++i;
      Selector sel;
      sel.kind = Selector::Kind::Wildcard;
      seg.selectors.push_back(std::move(sel));
      path.segments.push_back(std::move(seg));
      return true;
    }
    size_t begin = i;
    while (i < s.size() && !endsName(s[i]))
      ++i;
    if (i == begin) {
      if (i < s.size() && s[i] != '.' && s[i] != '[' &&
          !std::isspace(static_cast<unsigned char>(s[i])))
        return fail(i, std::string("'") + s[i] + "' is not allowed in a " +
                           (rules.reference ? "reference path" : "path") +
                           " name (quote it: ['...'])");
      return fail(i, "expected a field name after '.'");
    }
    Selector sel;
    sel.name = std::string(s.substr(begin, i - begin));
    seg.selectors.push_back(std::move(sel));
    path.segments.push_back(std::move(seg));
    return true;
  }

  bool parseBracket(Segment &seg, PathRules rules, unsigned depth) {
    size_t open = i++;
    for (;;) {
      skipSpace();
      Selector sel;
      size_t start = i;
      if (at('\'') || at('"')) {
        auto name = parseQuoted();
        if (!name)
          return false;
        sel.name = std::move(*name);
      } else if (at('*')) {
        if (rules.reference)
          return fail(i, "'*' is not allowed in a reference path");
        ++i;
        sel.kind = Selector::Kind::Wildcard;
      } else if (at('?')) {
        if (rules.reference)
          return fail(i, "a filter is not allowed in a reference path");
        ++i;
        if (!at('('))
          return fail(i, "expected '(' after '?'");
        ++i;
        FilterPtr f = parseOr(depth + 1);
        if (!f)
          return false;
        skipSpace();
        if (!at(')'))
          return fail(i, "expected ')' to close the filter");
        ++i;
        sel.kind = Selector::Kind::Filter;
        sel.filter = std::move(f);
      } else if (at('(')) {
        return fail(i, "script expressions '(...)' are not supported; use a "
                       "filter '?(...)'");
      } else {
        std::optional<int64_t> first;
        if (at('-') || (i < s.size() && std::isdigit((unsigned char)s[i]))) {
          first = parseInteger();
          if (!first)
            return false;
        }
        skipSpace();
        if (at(':')) {
          if (rules.reference)
            return fail(start, "a slice is not allowed in a reference path");
          sel.kind = Selector::Kind::Slice;
          sel.start = first;
          ++i;
          skipSpace();
          if (at('-') || (i < s.size() && std::isdigit((unsigned char)s[i]))) {
            sel.end = parseInteger();
            if (!sel.end)
              return false;
          }
          skipSpace();
          if (at(':')) {
            ++i;
            skipSpace();
            if (at('-') ||
                (i < s.size() && std::isdigit((unsigned char)s[i]))) {
              size_t stepAt = i;
              auto step = parseInteger();
              if (!step)
                return false;
              if (*step == 0)
                return fail(stepAt, "a slice's step must not be 0");
              sel.step = *step;
            }
          }
        } else if (first) {
          if (*first < 0 && rules.reference)
            return fail(start, "a negative index is not allowed in a "
                               "reference path");
          sel.kind = Selector::Kind::Index;
          sel.index = *first;
        } else if (i >= s.size()) {
          return fail(open, "unbalanced '['");
        } else {
          return fail(i, rules.reference
                             ? "a reference path allows only '[<index>]' "
                               "and \"['<name>']\" in brackets"
                             : "expected an index, a slice, '*', a quoted "
                               "name or a filter in brackets");
        }
      }
      seg.selectors.push_back(std::move(sel));
      skipSpace();
      if (at(']')) {
        ++i;
        return true;
      }
      if (at(',')) {
        if (rules.reference)
          return fail(i, "a union ',' is not allowed in a reference path");
        ++i;
        continue;
      }
      if (i >= s.size())
        return fail(open, "unbalanced '['");
      return fail(i, "expected ']' or ','");
    }
  }

  std::optional<int64_t> parseInteger() {
    size_t begin = i;
    if (at('-'))
      ++i;
    size_t digits = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
      ++i;
    if (i == digits) {
      fail(begin, "expected digits");
      return std::nullopt;
    }
    std::string text(s.substr(begin, i - begin));
    errno = 0;
    long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE) {
      fail(begin, "index out of range");
      return std::nullopt;
    }
    return int64_t(v);
  }

  /// 'name' or "name"; a backslash escapes the next character.
  std::optional<std::string> parseQuoted() {
    size_t open = i;
    char quote = s[i++];
    std::string out;
    while (i < s.size() && s[i] != quote) {
      if (s[i] == '\\' && i + 1 < s.size())
        ++i;
      out += s[i++];
    }
    if (i >= s.size()) {
      fail(open, "unterminated quoted name in a path");
      return std::nullopt;
    }
    ++i;
    return out;
  }

  //--- Filters -------------------------------------------------------------

  FilterPtr parseOr(unsigned depth) {
    if (!nest(depth))
      return nullptr;
    FilterPtr lhs = parseAnd(depth + 1);
    while (lhs) {
      skipSpace();
      if (!startsWith("||"))
        break;
      i += 2;
      FilterPtr rhs = parseAnd(depth + 1);
      if (!rhs)
        return nullptr;
      auto f = std::make_shared<Filter>();
      f->kind = Filter::Kind::Or;
      f->lhs = std::move(lhs);
      f->rhs = std::move(rhs);
      lhs = std::move(f);
    }
    return lhs;
  }

  FilterPtr parseAnd(unsigned depth) {
    FilterPtr lhs = parseNot(depth);
    while (lhs) {
      skipSpace();
      if (!startsWith("&&"))
        break;
      i += 2;
      FilterPtr rhs = parseNot(depth);
      if (!rhs)
        return nullptr;
      auto f = std::make_shared<Filter>();
      f->kind = Filter::Kind::And;
      f->lhs = std::move(lhs);
      f->rhs = std::move(rhs);
      lhs = std::move(f);
    }
    return lhs;
  }

  FilterPtr parseNot(unsigned depth) {
    if (!nest(depth))
      return nullptr;
    skipSpace();
    if (at('!') && !startsWith("!=")) {
      ++i;
      FilterPtr inner = parseNot(depth + 1);
      if (!inner)
        return nullptr;
      auto f = std::make_shared<Filter>();
      f->kind = Filter::Kind::Not;
      f->lhs = std::move(inner);
      return f;
    }
    if (at('(')) {
      ++i;
      FilterPtr inner = parseOr(depth + 1);
      if (!inner)
        return nullptr;
      skipSpace();
      if (!at(')')) {
        fail(i, "expected ')'");
        return nullptr;
      }
      ++i;
      return inner;
    }
    FilterPtr lhs = parseOperand(depth);
    if (!lhs)
      return nullptr;
    skipSpace();
    static const std::pair<const char *, Filter::Op> ops[] = {
        {"==", Filter::Op::Eq}, {"!=", Filter::Op::Ne}, {"<=", Filter::Op::Le},
        {">=", Filter::Op::Ge}, {"<", Filter::Op::Lt},  {">", Filter::Op::Gt}};
    if (startsWith("=~")) {
      fail(i, "regular expressions '=~' are not supported in filters");
      return nullptr;
    }
    for (auto [text, op] : ops) {
      if (!startsWith(text))
        continue;
      i += std::string_view(text).size();
      FilterPtr rhs = parseOperand(depth);
      if (!rhs)
        return nullptr;
      auto f = std::make_shared<Filter>();
      f->kind = Filter::Kind::Compare;
      f->op = op;
      f->lhs = std::move(lhs);
      f->rhs = std::move(rhs);
      return f;
    }
    if (lhs->kind != Filter::Kind::Path) {
      fail(i, "expected a comparison after a literal in a filter");
      return nullptr;
    }
    return lhs;
  }

  FilterPtr parseOperand(unsigned depth) {
    skipSpace();
    auto f = std::make_shared<Filter>();
    if (at('@') || at('$')) {
      auto path = parsePath({false, true}, Context::FilterOperand, depth + 1);
      if (!path)
        return nullptr;
      f->kind = Filter::Kind::Path;
      f->path = std::move(*path);
      return f;
    }
    f->kind = Filter::Kind::Literal;
    if (at('\'') || at('"')) {
      auto text = parseQuoted();
      if (!text)
        return nullptr;
      f->value.kind = Literal::Kind::String;
      f->value.text = std::move(*text);
      return f;
    }
    if (!parseScalar(f->value)) {
      if (!failed)
        fail(i, "expected '@', a path, a number, a quoted string, true, "
                "false or null in a filter");
      return nullptr;
    }
    return f;
  }

  /// A number, true, false or null.
  bool parseScalar(Literal &out) {
    if (at('-') || (i < s.size() && std::isdigit((unsigned char)s[i])))
      return parseNumber(out);
    for (auto [word, kind, value] :
         {std::tuple{"true", Literal::Kind::Bool, true},
          {"false", Literal::Kind::Bool, false},
          {"null", Literal::Kind::Null, false}}) {
      std::string_view w(word);
      if (startsWith(w) &&
          (i + w.size() == s.size() ||
           !std::isalnum(static_cast<unsigned char>(s[i + w.size()])))) {
        i += w.size();
        out.kind = kind;
        out.boolValue = value;
        return true;
      }
    }
    return false;
  }

  bool parseNumber(Literal &out) {
    size_t begin = i;
    auto digits = [&] {
      size_t from = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
        ++i;
      return i > from;
    };
    bool integral = true;
    if (at('-'))
      ++i;
    if (!digits())
      return fail(i, "expected digits");
    if (at('.')) {
      ++i;
      integral = false;
      if (!digits())
        return fail(i, "expected digits after '.'");
    }
    if (at('e') || at('E')) {
      ++i;
      integral = false;
      if (at('+') || at('-'))
        ++i;
      if (!digits())
        return fail(i, "expected digits in the exponent");
    }
    std::string text(s.substr(begin, i - begin));
    errno = 0;
    if (integral) {
      long long v = std::strtoll(text.c_str(), nullptr, 10);
      if (errno != ERANGE) {
        out.kind = Literal::Kind::Int;
        out.intValue = v;
        return true;
      }
    }
    out.kind = Literal::Kind::Double;
    out.doubleValue = std::strtod(text.c_str(), nullptr);
    return true;
  }

  //--- Intrinsic calls -----------------------------------------------------

  CallPtr parseCall(unsigned nesting, unsigned depth) {
    size_t begin = i;
    if (nesting > kMaxIntrinsicNesting) {
      fail(i, "intrinsic function calls nested deeper than " +
                  std::to_string(kMaxIntrinsicNesting));
      return nullptr;
    }
    if (!nest(depth))
      return nullptr;
    if (!startsWith("States.")) {
      fail(i, "an intrinsic function call starts with 'States.'");
      return nullptr;
    }
    i += 7;
    size_t nameBegin = i;
    while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i])))
      ++i;
    std::string_view name = s.substr(nameBegin, i - nameBegin);
    auto call = std::make_shared<Call>();
    call->offset = static_cast<unsigned>(begin);
    call->sig = findIntrinsic(name);
    if (!call->sig) {
      fail(begin,
           "unknown intrinsic function 'States." + std::string(name) + "'");
      return nullptr;
    }
    skipSpace();
    if (!at('(')) {
      fail(i, "expected '(' after 'States." + std::string(name) + "'");
      return nullptr;
    }
    ++i;
    skipSpace();
    if (at(')')) {
      ++i;
    } else {
      for (;;) {
        skipSpace();
        CallArg arg;
        if (!parseArg(arg, nesting, depth))
          return nullptr;
        call->args.push_back(std::move(arg));
        skipSpace();
        if (at(',')) {
          ++i;
          continue;
        }
        if (at(')')) {
          ++i;
          break;
        }
        fail(i,
             i < s.size() ? "expected ',' or ')'" : "missing ')' at the end");
        return nullptr;
      }
    }
    const IntrinsicSignature &sig = *call->sig;
    size_t n = call->args.size();
    if (n < sig.min || n > sig.max) {
      fail(begin, "States." + std::string(sig.name) + " " +
                      intrinsicArity(sig) + ", not " + std::to_string(n));
      return nullptr;
    }
    return call;
  }

  bool parseArg(CallArg &arg, unsigned nesting, unsigned depth) {
    arg.offset = static_cast<unsigned>(i);
    if (i >= s.size())
      return fail(i, "missing argument");
    if (startsWith("States.")) {
      arg.kind = CallArg::Kind::Call;
      arg.call = parseCall(nesting + 1, depth + 1);
      return arg.call != nullptr;
    }
    if (at('\''))
      return parseCallString(arg.value);
    if (at('$')) {
      auto path = parsePath({false, true}, Context::CallArg, depth + 1);
      if (!path)
        return false;
      arg.kind = CallArg::Kind::Path;
      arg.path = std::move(*path);
      return true;
    }
    if (parseScalar(arg.value))
      return true;
    if (failed)
      return false;
    return fail(i, "expected an argument (a string in single quotes, a "
                   "number, true, false, null, a path or an intrinsic "
                   "function call)");
  }

  bool parseCallString(Literal &out) {
    size_t open = i++;
    out.kind = Literal::Kind::String;
    for (;;) {
      if (i >= s.size())
        return fail(open, "unterminated string");
      char c = s[i];
      if (c == '\'') {
        ++i;
        return true;
      }
      if (c == '\\') {
        char next = i + 1 < s.size() ? s[i + 1] : '\0';
        if (next != '\'' && next != '{' && next != '}' && next != '\\')
          return fail(i, "a backslash in a string must escape ', {, } or \\");
        out.text += next;
        i += 2;
        continue;
      }
      if (c == '{' && i + 1 < s.size() && s[i + 1] == '}') {
        out.holes.push_back(out.text.size());
        out.text += "{}";
        i += 2;
        continue;
      }
      out.text += c;
      ++i;
    }
  }

  std::string_view s;
  ParseError &error;
  size_t i = 0;
  bool failed = false;
};

} // namespace

std::optional<JsonPath> unum::config::parseJsonPath(std::string_view text,
                                                    PathRules rules,
                                                    ParseError &error) {
  Parser p(text, error);
  if (p.tooLong())
    return std::nullopt;
  return p.wholePath(rules);
}

CallPtr unum::config::parseIntrinsicCall(std::string_view text,
                                         ParseError &error) {
  Parser p(text, error);
  if (p.tooLong())
    return nullptr;
  return p.wholeCall();
}

std::optional<PathOrCall> unum::config::parsePathOrCall(std::string_view text,
                                                        PathRules rules,
                                                        ParseError &error) {
  PathOrCall out;
  out.text = std::string(text);
  if (isIntrinsicCall(text)) {
    out.call = parseIntrinsicCall(text, error);
    if (!out.call)
      return std::nullopt;
    return out;
  }
  out.path = parseJsonPath(text, rules, error);
  if (!out.path)
    return std::nullopt;
  return out;
}

//===----------------------------------------------------------------------===//
// The context object
//===----------------------------------------------------------------------===//

const char *const unum::config::kContextFields =
    "$$.Execution.Id, $$.Execution.Name, $$.Execution.Input, "
    "$$.Execution.StartTime, $$.State.Name, $$.State.EnteredTime, "
    "$$.State.RetryCount, and $$.Map.Item.Index and $$.Map.Item.Value in "
    "ItemSelector";

static std::optional<ParseError> checkContext(const JsonPath &path,
                                              ContextScope scope);

static std::optional<ParseError> checkFilter(const Filter &f,
                                             ContextScope scope) {
  if (f.kind == Filter::Kind::Path)
    return checkContext(f.path, scope);
  for (const FilterPtr &sub : {f.lhs, f.rhs})
    if (sub)
      if (auto err = checkFilter(*sub, scope))
        return err;
  return std::nullopt;
}

static std::optional<ParseError> checkContext(const JsonPath &path,
                                              ContextScope scope) {
  for (const Segment &seg : path.segments)
    for (const Selector &sel : seg.selectors)
      if (sel.filter)
        if (auto err = checkFilter(*sel.filter, scope))
          return err;
  if (path.root != JsonPath::Root::Context)
    return std::nullopt;
  const auto &segs = path.segments;
  auto named = [&](size_t k, const char *name) {
    return k < segs.size() && !segs[k].descendant &&
           segs[k].selectors.size() == 1 &&
           segs[k].selectors[0].kind == Selector::Kind::Member &&
           segs[k].selectors[0].name == name;
  };
  auto refuse = [&](std::string why) {
    ParseError err;
    err.message = "'" + path.text + "' " + why;
    return err;
  };
  if (scope == ContextScope::Choice &&
      (segs.empty() || (named(0, "State") && segs.size() == 1) ||
       (named(0, "State") && named(1, "EnteredTime"))))
    return refuse("is not available in a Choice rule: a Choice decides again "
                  "on every redelivery, and $$.State.EnteredTime is fixed "
                  "only where a state reads it in its data flow (copy it "
                  "into the data with a Pass state's Parameters first)");
  if (segs.empty())
    return std::nullopt; // $$ itself: what there is
  if (named(0, "Map")) {
    if (scope != ContextScope::ItemSelector)
      return refuse("is only available in a Map state's ItemSelector");
    return std::nullopt; // $$.Map.Item.Index, $$.Map.Item.Value
  }
  // The objects themselves hold what the runtime has of them.
  if (named(0, "Execution") &&
      (segs.size() == 1 || named(1, "Id") || named(1, "Name") ||
       named(1, "Input") || named(1, "StartTime")))
    return std::nullopt;
  if (named(0, "State") && (segs.size() == 1 || named(1, "Name") ||
                            named(1, "RetryCount") || named(1, "EnteredTime")))
    return std::nullopt;
  return refuse(std::string("is not available in this runtime (it has ") +
                kContextFields + ")");
}

std::optional<ParseError> unum::config::checkContextPaths(const JsonPath &path,
                                                          ContextScope scope) {
  return checkContext(path, scope);
}

std::optional<ParseError> unum::config::checkContextPaths(const Call &call,
                                                          ContextScope scope) {
  for (const CallArg &arg : call.args) {
    std::optional<ParseError> err;
    if (arg.kind == CallArg::Kind::Path)
      err = checkContext(arg.path, scope);
    else if (arg.kind == CallArg::Kind::Call)
      err = checkContextPaths(*arg.call, scope);
    if (err) {
      if (arg.kind == CallArg::Kind::Path)
        err->offset = arg.offset;
      return err;
    }
  }
  return std::nullopt;
}
