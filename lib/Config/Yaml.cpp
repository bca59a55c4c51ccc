//===- Yaml.cpp - A located YAML reader on top of yaml-cpp ----------------===//
//
// yaml-cpp's event parser (the machinery under YAML::LoadAll) feeds a builder
// that makes the located Node tree directly. Events, unlike the loaded
// YAML::Node tree, tell where an alias is used and let us see duplicate keys,
// which YAML::LoadAll silently merges. yaml-cpp reports errors by throwing;
// everything is caught here so callers see diagnostics only.
//
//===----------------------------------------------------------------------===//

#include "unum/Config/Document.h"
#include "unum/Config/Limits.h"

#include "Text.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <cctype>
#include <cstdint>
#include <sstream>
#include <unordered_map>

using namespace unum::config;

namespace {

constexpr unsigned kMaxDepth = unum::limits::kMaxNesting;
constexpr const char *kTagPrefix = "tag:yaml.org,2002:";

bool allDigits(std::string_view s, size_t from, int base) {
  if (from >= s.size())
    return false;
  for (size_t i = from; i < s.size(); ++i) {
    char c = s[i];
    bool ok = base == 8    ? (c >= '0' && c <= '7')
              : base == 16 ? std::isxdigit((unsigned char)c) != 0
                           : (c >= '0' && c <= '9');
    if (!ok)
      return false;
  }
  return true;
}

/// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool isCoreFloat(std::string_view s) {
  size_t i = 0, n = s.size();
  auto digits = [&] {
    size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
      ++i;
    return i - start;
  };
  if (i < n && (s[i] == '-' || s[i] == '+'))
    ++i;
  if (i < n && s[i] == '.') {
    ++i;
    if (digits() == 0)
      return false;
  } else {
    if (digits() == 0)
      return false;
    if (i < n && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '-' || s[i] == '+'))
      ++i;
    if (digits() == 0)
      return false;
  }
  return i == n;
}

/// `s`, a YAML core-schema decimal ([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)
/// ([eE][-+]?[0-9]+)?), in JSON's number grammar: no '+', no leading zeros,
/// a digit on each side of '.' (02 -> 2, .5 -> 0.5, 5. -> 5.0). Config
/// numbers are written out as they were read, so they must be JSON.
std::string jsonNumber(std::string_view s) {
  std::string out;
  size_t i = 0, n = s.size();
  if (s[i] == '-' || s[i] == '+') {
    if (s[i] == '-')
      out += '-';
    ++i;
  }
  auto digits = [&] {
    size_t from = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
      ++i;
    return s.substr(from, i - from);
  };
  std::string_view whole = digits();
  while (whole.size() > 1 && whole[0] == '0')
    whole.remove_prefix(1);
  out += whole.empty() ? std::string_view("0") : whole;
  if (i < n && s[i] == '.') {
    ++i;
    std::string_view fraction = digits();
    out += '.';
    out += fraction.empty() ? std::string_view("0") : fraction;
  }
  out += s.substr(i); // the exponent, which JSON takes as YAML writes it
  return out;
}

/// Resolves a plain scalar by the YAML 1.2 core schema. Numbers are kept in
/// JSON's spelling (0o/0x integers become decimal); returns an error for a
/// number that JSON cannot hold (.inf, .nan, beyond a double's range).
std::string resolvePlain(const std::string &value, Node &node) {
  if (value.empty() || value == "~" || value == "null" || value == "Null" ||
      value == "NULL") {
    node.kind = Node::Kind::Null;
    return "";
  }
  if (value == "true" || value == "True" || value == "TRUE" ||
      value == "false" || value == "False" || value == "FALSE") {
    node.kind = Node::Kind::Bool;
    node.boolValue = value[0] == 't' || value[0] == 'T';
    return "";
  }
  std::string_view s = value;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    int base = s[1] == 'o' ? 8 : 16;
    if (allDigits(s, 2, base)) {
      uint64_t v = 0;
      for (size_t i = 2; i < s.size(); ++i) {
        unsigned d = std::isdigit((unsigned char)s[i])
                         ? s[i] - '0'
                         : std::tolower((unsigned char)s[i]) - 'a' + 10;
        if (v > (UINT64_MAX - d) / base)
          return "integer '" + value + "' is out of range (at most 64 bits)";
        v = v * base + d;
      }
      node.kind = Node::Kind::Number;
      node.text = std::to_string(v);
      return "";
    }
  }
  size_t sign = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (allDigits(s, sign, 10) || isCoreFloat(s)) {
    node.kind = Node::Kind::Number;
    node.text = jsonNumber(s);
    if (!detail::finiteNumber(node.text))
      return "number '" + value + "' is out of range (beyond a double)";
    return "";
  }
  std::string_view rest = s.substr(sign);
  if (rest == ".inf" || rest == ".Inf" || rest == ".INF" || s == ".nan" ||
      s == ".NaN" || s == ".NAN")
    return "'" + value +
           "' has no JSON equivalent: a config holds JSON "
           "values only (quote it for a string)";
  node.kind = Node::Kind::String;
  node.text = value;
  return "";
}

class Builder : public YAML::EventHandler {
public:
  /// Thrown after reporting an error, to stop yaml-cpp's parser.
  struct Abort {};

  Builder(std::string_view text, std::vector<Node> &documents,
          DiagnosticSink &diags)
      : text(text), documents(documents), diags(diags),
        maxNodes(4 * text.size() + 64) {}

  void OnDocumentStart(const YAML::Mark &) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark &mark, YAML::anchor_t) override {
    countNode(mark);
    if (expectingKey())
      abort(loc(mark), "a mapping key must not be null or empty");
    Node node;
    node.loc = node.contentLoc = loc(mark);
    add(std::move(node));
  }

  void OnAlias(const YAML::Mark &mark, YAML::anchor_t) override {
    abort(loc(mark), "YAML aliases are not supported in a config");
  }

  void OnScalar(const YAML::Mark &mark, const std::string &tag, YAML::anchor_t,
                const std::string &value) override;

  void OnSequenceStart(const YAML::Mark &mark, const std::string &tag,
                       YAML::anchor_t, YAML::EmitterStyle::value) override {
    startCollection(mark, tag, Node::Kind::Array);
  }
  void OnSequenceEnd() override { endCollection(); }

  void OnMapStart(const YAML::Mark &mark, const std::string &tag,
                  YAML::anchor_t, YAML::EmitterStyle::value) override {
    startCollection(mark, tag, Node::Kind::Object);
  }
  void OnMapEnd() override { endCollection(); }

private:
  struct Frame {
    Node node;
    bool haveKey = false;
    std::string key;
    SourceLoc keyLoc;
    std::unordered_map<std::string, SourceLoc> keys;
  };

  static SourceLoc loc(const YAML::Mark &mark) {
    if (mark.is_null())
      return {};
    return {unsigned(mark.line + 1), unsigned(mark.column + 1)};
  }

  [[noreturn]] void abort(SourceLoc at, std::string message) {
    diags.error(at, std::move(message));
    throw Abort{};
  }

  /// yaml-cpp 0.7 can loop forever on some malformed flow collections,
  /// emitting empty nodes without consuming input. A real document has far
  /// fewer nodes than this bound, so exceeding it means the parser is stuck.
  void countNode(const YAML::Mark &mark) {
    if (++nodes > maxNodes)
      abort(loc(mark), "the YAML parser stopped making progress here");
  }

  bool expectingKey() const {
    return !stack.empty() && stack.back().node.kind == Node::Kind::Object &&
           !stack.back().haveKey;
  }

  void startCollection(const YAML::Mark &mark, const std::string &tag,
                       Node::Kind kind);
  void endCollection();
  void add(Node node);
  void checkTag(const YAML::Mark &mark, const std::string &tag,
                std::string_view allowed);
  SourceLoc contentStart(const YAML::Mark &mark);

  std::string_view text;
  std::vector<Node> &documents;
  DiagnosticSink &diags;
  std::vector<Frame> stack;
  size_t nodes = 0;
  size_t maxNodes;
};

/// yaml-cpp 0.7 decodes the escapes \N (U+0085) and \_ (U+00A0) to the
/// single bytes 0x85 and 0xA0, not to UTF-8. The input is valid UTF-8 and
/// every other escape decodes to whole sequences, so a byte that starts no
/// well-formed sequence in a scalar is one of these two: re-encode it.
std::string repairLatin1Escapes(const std::string &value) {
  if (!detail::invalidUtf8(value))
    return value;
  std::string out;
  out.reserve(value.size() + 8);
  for (size_t i = 0; i < value.size();) {
    uint32_t cp;
    if (size_t len = detail::decodeUtf8(value, i, cp)) {
      out.append(value, i, len);
      i += len;
    } else {
      detail::appendUtf8(out, (unsigned char)value[i++]);
    }
  }
  return out;
}

} // namespace

void Builder::checkTag(const YAML::Mark &mark, const std::string &tag,
                       std::string_view allowed) {
  if (tag.empty() || tag == "?" || tag == "!" ||
      tag == std::string(kTagPrefix) + std::string(allowed))
    return;
  abort(loc(mark), "unsupported YAML tag '" + tag + "'");
}

void Builder::startCollection(const YAML::Mark &mark, const std::string &tag,
                              Node::Kind kind) {
  countNode(mark);
  if (expectingKey())
    abort(loc(mark),
          "a mapping key must be a scalar, not a " +
              std::string(kind == Node::Kind::Array ? "sequence" : "mapping"));
  checkTag(mark, tag, kind == Node::Kind::Array ? "seq" : "map");
  if (stack.size() >= kMaxDepth)
    abort(loc(mark),
          "nesting is deeper than " + std::to_string(kMaxDepth) + " levels");
  Frame frame;
  frame.node.kind = kind;
  frame.node.loc = frame.node.contentLoc = loc(mark);
  stack.push_back(std::move(frame));
}

void Builder::endCollection() {
  Node node = std::move(stack.back().node);
  stack.pop_back();
  add(std::move(node));
}

void Builder::add(Node node) {
  if (stack.empty()) {
    documents.push_back(std::move(node));
    return;
  }
  Frame &top = stack.back();
  if (top.node.kind == Node::Kind::Array) {
    top.node.items.push_back(std::move(node));
    return;
  }
  top.node.members.push_back({std::move(top.key), top.keyLoc, std::move(node)});
  top.haveKey = false;
}

/// Where the characters of the scalar at `mark` start: after node properties
/// (tags, anchors), after an opening quote, or on the line after a block
/// scalar indicator. Also catches an unterminated quoted scalar at the end of
/// the input, which yaml-cpp 0.7 accepts.
SourceLoc Builder::contentStart(const YAML::Mark &mark) {
  SourceLoc at = loc(mark);
  if (mark.is_null() || mark.pos < 0 || size_t(mark.pos) >= text.size())
    return at;
  size_t p = mark.pos;
  auto advance = [&] {
    if (text[p] == '\n')
      at = {at.line + 1, 1};
    else
      ++at.col;
    ++p;
  };
  auto space = [&] {
    return text[p] == ' ' || text[p] == '\t' || text[p] == '\r' ||
           text[p] == '\n';
  };
  while (p < text.size() && (text[p] == '!' || text[p] == '&')) {
    while (p < text.size() && !space())
      advance();
    while (p < text.size() && space())
      advance();
  }
  if (p >= text.size())
    return at;
  char c = text[p];
  if (c == '"' || c == '\'') {
    SourceLoc quote = at;
    advance();
    size_t q = p;
    while (q < text.size()) {
      if (c == '"' && text[q] == '\\') {
        q += 2;
      } else if (text[q] == c) {
        if (c == '\'' && q + 1 < text.size() && text[q + 1] == '\'') {
          q += 2;
          continue;
        }
        return at;
      } else {
        ++q;
      }
    }
    abort(quote, "unterminated quoted scalar");
  }
  if (c == '|' || c == '>') {
    while (p < text.size() && text[p] != '\n')
      advance();
    // Skip blank lines and the indentation of the first content line.
    while (p < text.size() && space())
      advance();
  }
  return at;
}

void Builder::OnScalar(const YAML::Mark &mark, const std::string &tag,
                       YAML::anchor_t, const std::string &decoded) {
  countNode(mark);
  const std::string value = repairLatin1Escapes(decoded);
  if (expectingKey()) {
    Frame &top = stack.back();
    SourceLoc keyLoc = loc(mark);
    contentStart(mark); // diagnoses unterminated quotes
    auto [it, inserted] = top.keys.emplace(value, keyLoc);
    if (!inserted) {
      diags.error(keyLoc, "duplicate key '" + value + "'");
      diags.note(it->second, "'" + value + "' was first defined here");
      throw Abort{};
    }
    top.key = value;
    top.keyLoc = keyLoc;
    top.haveKey = true;
    return;
  }

  Node node;
  node.loc = loc(mark);
  node.contentLoc = contentStart(mark);
  if (tag == "?") {
    if (std::string err = resolvePlain(value, node); !err.empty())
      abort(node.contentLoc, err);
  } else if (tag == "!" || tag.empty() ||
             tag == std::string(kTagPrefix) + "str") {
    // Quoted and block scalars are strings whatever they look like.
    node.kind = Node::Kind::String;
    node.text = value;
  } else if (tag.rfind(kTagPrefix, 0) == 0) {
    std::string type = tag.substr(std::string(kTagPrefix).size());
    if (std::string err = resolvePlain(value, node); !err.empty())
      abort(node.contentLoc, err);
    bool ok = (type == "null" && node.kind == Node::Kind::Null) ||
              (type == "bool" && node.kind == Node::Kind::Bool) ||
              (type == "int" && node.isInteger()) ||
              (type == "float" && node.kind == Node::Kind::Number);
    if (!ok)
      abort(node.loc, "'" + value + "' is not a valid !!" + type);
  } else {
    abort(node.loc, "unsupported YAML tag '" + tag + "'");
  }
  add(std::move(node));
}

bool unum::config::parseYaml(std::string_view text,
                             std::vector<Node> &documents,
                             DiagnosticSink &diags) {
  // yaml-cpp skips a byte order mark without counting it in positions; drop
  // it here so that marks index `text` directly.
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    text.remove_prefix(3);
  // yaml-cpp passes invalid UTF-8 through; the JSON reader refuses it, and
  // so does this one (a config is text).
  if (std::optional<SourceLoc> bad = detail::invalidUtf8(text)) {
    diags.error(*bad, "invalid UTF-8");
    return false;
  }
  // YAML text is printable characters only (YAML 1.2, c-printable): no C0
  // control but tab, line feed and carriage return, and no DEL. A control
  // character is written as an escape in a double-quoted scalar ("\x15").
  // yaml-cpp would also take a NUL among the first bytes for a UTF-16 or
  // UTF-32 encoding and read the rest as other characters.
  unsigned line = 1;
  size_t lineStart = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    unsigned char c = text[pos];
    if (c == '\n') {
      ++line;
      lineStart = pos + 1;
    } else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F) {
      diags.error({line, unsigned(pos - lineStart + 1)},
                  "control character " + detail::describeChar(text, pos) +
                      " in YAML text (write it as an escape in a "
                      "double-quoted string)");
      return false;
    }
  }
  std::istringstream input{std::string(text)};
  Builder builder(text, documents, diags);
  try {
    YAML::Parser parser(input);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const Builder::Abort &) {
    return false;
  } catch (const YAML::Exception &e) {
    SourceLoc at;
    if (!e.mark.is_null())
      at = {unsigned(e.mark.line + 1), unsigned(e.mark.column + 1)};
    diags.error(at, e.msg.empty() ? std::string(e.what()) : e.msg);
    return false;
  } catch (const std::exception &e) {
    diags.error({}, std::string("YAML parser failed: ") + e.what());
    return false;
  }
  return true;
}
