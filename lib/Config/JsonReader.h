//===- JsonReader.h - The one JSON reader (private) -------------*- C++ -*-===//
//
// A small recursive-descent JSON reader instead of a JSON library: the config
// library must not depend on one, and diagnostics need the line and column of
// every key and value. Columns count bytes, like yaml-cpp's marks and like
// clang, so that SourceLoc::shifted() with a byte offset into a string stays
// exact.
//
// One grammar, two trees:
//  * JsonReader<Node> (parseJson, lib/Config/Json.cpp): every node with its
//    line and column; errors reported, located, to a DiagnosticSink.
//  * JsonReader<Value> for the runtime's Value (runtime::parseJsonValue,
//    lib/Runtime/Value.cpp, which includes this private header): read
//    straight into the Value, with no line tracking and no messages; on
//    an error it only stops (false), and the caller reads the text again
//    as a Node stream for the located message. Same acceptance, same
//    values (the grammar decides both).
//
// T is Node, or a type with Node-like JSON kinds built as Value is:
// T(std::string), T(bool), T(int64_t), T(double), T(), T::Array
// (std::vector<T>) and T::Object (std::vector<std::pair<std::string, T>>),
// T(Array), T(Object).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_CONFIG_JSONREADER_H
#define UNUM_LIB_CONFIG_JSONREADER_H

#include "Text.h"
#include "unum/Config/Diagnostic.h"
#include "unum/Config/Document.h"
#include "unum/Config/Limits.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace unum::config::detail {

// The reader's steps inlined into its value and member loops (the runtime
// reads every payload with it).
#if defined(__GNUC__)
#define UNUM_JSON_INLINE [[gnu::always_inline]] inline
#else
#define UNUM_JSON_INLINE inline
#endif

inline bool isJsonWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/// The containers an object's members and an array's items are read into.
template <typename T, bool Located> struct JsonParts {
  using Members = typename T::Object;
  using Items = typename T::Array;
};
template <typename T> struct JsonParts<T, true> {
  using Members = std::vector<Node::Member>;
  using Items = std::vector<Node>;
};

template <typename T> class JsonReader {
public:
  /// Located (Node): errors go to `diags`. Otherwise `diags` is null.
  static constexpr bool kLocated = std::is_same_v<T, Node>;

  JsonReader(std::string_view text, DiagnosticSink *diags)
      : text(text), diags(diags), base(text.data()), cur(base),
        stop(base + text.size()) {}

  /// A stream of values (Node): one or more, whitespace around them.
  bool readStream(std::vector<T> &documents) {
    // A UTF-8 byte order mark is not part of the text; columns start after
    // it.
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
      cur = base + (lineStart = 3);
    size_t before = documents.size();
    while (true) {
      skipWhitespace();
      if (atEnd())
        break;
      T node;
      if (!readValue(node, 0))
        return false;
      documents.push_back(std::move(node));
    }
    if (documents.size() == before)
      return unexpected("a JSON value");
    return true;
  }

  /// Exactly one value, whitespace around it (the runtime's payloads).
  bool readDocument(T &out) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
      cur = base + (lineStart = 3);
    skipWhitespace();
    if (!readValue(out, 0))
      return false;
    skipWhitespace();
    return atEnd();
  }

private:
  static constexpr unsigned kMaxDepth = unum::limits::kMaxNesting;

  bool atEnd() const { return cur == stop; }
  char peek() const { return *cur; }
  size_t offset() const { return size_t(cur - base); }
  SourceLoc here() const {
    if constexpr (!kLocated)
      return {}; // nothing is reported
    return {line, unsigned(offset() - lineStart + 1)};
  }

  bool fail(SourceLoc loc, const std::string &message) {
    if constexpr (kLocated)
      diags->error(loc, message);
    return false;
  }
  bool failHere(const std::string &message) { return fail(here(), message); }
  void note(SourceLoc loc, const std::string &message) {
    if constexpr (kLocated)
      diags->note(loc, message);
  }

  /// Reports an unexpected character (or the end of input) at the cursor.
  bool unexpected(const std::string &expected) {
    if constexpr (!kLocated)
      return false;
    if (atEnd())
      return failHere("unexpected end of input; expected " + expected);
    if (peek() == '/')
      return failHere("comments are not allowed in JSON");
    if (isJsonWordChar(peek())) {
      size_t at = offset(), end = at;
      while (end < text.size() && isJsonWordChar(text[end]))
        ++end;
      return failHere("unexpected '" + std::string(text.substr(at, end - at)) +
                      "'; expected " + expected);
    }
    return failHere("unexpected " + describeChar(text, offset()) +
                    "; expected " + expected);
  }

  void skipWhitespace() {
    if constexpr (!kLocated) { // no lines to count
      while (cur != stop &&
             (*cur == ' ' || *cur == '\t' || *cur == '\n' || *cur == '\r'))
        ++cur;
      return;
    }
    while (!atEnd()) {
      char c = peek();
      if (c == ' ' || c == '\t') {
        ++cur;
      } else if (c == '\n' || c == '\r') {
        // "\r\n" and a lone "\r" both end a line.
        ++cur;
        if constexpr (kLocated) {
          if (c == '\r' && !atEnd() && peek() == '\n')
            ++cur;
          ++line;
          lineStart = offset();
        }
      } else {
        break;
      }
    }
  }

  bool readValue(T &node, unsigned depth) {
    if (atEnd())
      return unexpected("a JSON value");
    if constexpr (kLocated)
      node.loc = node.contentLoc = here();
    switch (char c = peek()) {
    case '"':
      if constexpr (kLocated) {
        node.kind = Node::Kind::String;
        return readString(node.text, node.contentLoc);
      } else {
        std::string s;
        SourceLoc unused;
        if (!readString(s, unused))
          return false;
        node = T(std::move(s));
        return true;
      }
    case '{':
    case '[':
      if (depth >= kMaxDepth)
        return failHere("nesting is deeper than " + std::to_string(kMaxDepth) +
                        " levels");
      return c == '{' ? readContainer<true>(node, depth + 1)
                      : readContainer<false>(node, depth + 1);
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
      return readNumber(node);
    default:
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return readLiteral(node);
      return unexpected("a JSON value");
    }
  }

  /// Whether `key` is already among an object's `members` (looked for in
  /// `keys` once there are many: made then).
  template <typename Members, typename KeyOf>
  static bool duplicate(const Members &members, KeyOf keyOf,
                        std::unique_ptr<std::unordered_set<std::string>> &keys,
                        const std::string &key) {
    if (!keys && members.size() >= 16) {
      keys = std::make_unique<std::unordered_set<std::string>>();
      for (const auto &m : members)
        keys->insert(keyOf(m));
    }
    if (keys)
      return !keys->insert(key).second;
    return std::any_of(members.begin(), members.end(),
                       [&](const auto &m) { return keyOf(m) == key; });
  }

  enum class Separated { Next, Closed, Error };
  /// After an item of an object ('}') or an array (']') opened at `open`:
  /// Next after a comma (at `lastComma`), Closed after `close`, else an
  /// Error (reported).
  UNUM_JSON_INLINE Separated separator(char close, SourceLoc open,
                                       SourceLoc &lastComma, bool &comma) {
    skipWhitespace();
    if (!atEnd() && peek() == ',') {
      lastComma = here();
      comma = true;
      ++cur;
      skipWhitespace();
      return Separated::Next;
    }
    if (!atEnd() && peek() == close) {
      ++cur;
      return Separated::Closed;
    }
    const bool object = close == '}';
    unexpected(object ? "',' or '}' in object" : "',' or ']' in array");
    if (atEnd())
      note(open, object ? "the object starts here" : "the array starts here");
    return Separated::Error;
  }

  /// An object (`Object`) or an array: its members or items, then the node.
  template <bool Object> bool readContainer(T &node, unsigned depth) {
    using Parts = JsonParts<T, kLocated>;
    std::conditional_t<Object, typename Parts::Members, typename Parts::Items>
        parts;
    bool ok;
    if constexpr (Object)
      ok = readMembers(parts, depth);
    else
      ok = readItems(parts, depth);
    if constexpr (!kLocated) {
      if (ok)
        node = T(std::move(parts));
    } else if constexpr (Object) {
      node.kind = Node::Kind::Object;
      node.members = std::move(parts);
    } else {
      node.kind = Node::Kind::Array;
      node.items = std::move(parts);
    }
    return ok;
  }

  template <typename Members>
  bool readMembers(Members &members, unsigned depth) {
    SourceLoc open = here();
    ++cur;
    skipWhitespace();
    if (!atEnd() && peek() == '}') {
      ++cur;
      return true;
    }
    std::unique_ptr<std::unordered_set<std::string>> keys; // when many
    SourceLoc lastComma;
    bool comma = false;
    while (true) {
      if (atEnd() || peek() != '"') {
        if (comma && !atEnd() && peek() == '}')
          return fail(lastComma, "trailing comma in object");
        if (!atEnd() && (std::isalpha((unsigned char)peek()) || peek() == '_'))
          return failHere("object keys must be double-quoted strings");
        unexpected("a string key");
        if (atEnd())
          note(open, "the object starts here");
        return false;
      }
      SourceLoc keyLoc = here(), keyContent;
      std::string key;
      if (!readString(key, keyContent))
        return false;
      if constexpr (kLocated) {
        auto keyOf = [](const Node::Member &m) -> const std::string & {
          return m.key;
        };
        if (duplicate(members, keyOf, keys, key)) {
          fail(keyLoc, "duplicate key '" + key + "'");
          for (const Node::Member &m : members)
            if (m.key == key)
              note(m.keyLoc, "'" + key + "' was first defined here");
          return false;
        }
      } else {
        auto keyOf = [](const typename T::Member &m) -> const std::string & {
          return m.first;
        };
        if (duplicate(members, keyOf, keys, key))
          return false;
      }
      skipWhitespace();
      if (atEnd() || peek() != ':')
        return unexpected("':' after the object key");
      ++cur;
      skipWhitespace();
      if constexpr (kLocated) {
        Node::Member member;
        member.key = std::move(key);
        member.keyLoc = keyLoc;
        if (!readValue(member.value, depth))
          return false;
        members.push_back(std::move(member));
      } else {
        members.emplace_back(std::move(key), T());
        if (!readValue(members.back().second, depth))
          return false;
      }
      switch (separator('}', open, lastComma, comma)) {
      case Separated::Next:
        continue;
      case Separated::Closed:
        return true;
      case Separated::Error:
        return false;
      }
    }
  }

  template <typename Items> bool readItems(Items &items, unsigned depth) {
    SourceLoc open = here();
    ++cur;
    skipWhitespace();
    if (!atEnd() && peek() == ']') {
      ++cur;
      return true;
    }
    SourceLoc lastComma;
    bool comma = false;
    while (true) {
      if (comma && !atEnd() && peek() == ']')
        return fail(lastComma, "trailing comma in array");
      items.emplace_back();
      if (!readValue(items.back(), depth))
        return false;
      switch (separator(']', open, lastComma, comma)) {
      case Separated::Closed:
        return true;
      case Separated::Error:
        return false;
      case Separated::Next:
        break;
      }
    }
  }

  bool readHex4(uint32_t &value) {
    value = 0;
    for (int i = 0; i < 4; ++i, ++cur) {
      if (atEnd() || !std::isxdigit((unsigned char)peek()))
        return failHere("expected 4 hexadecimal digits after '\\u'");
      char c = peek();
      value =
          value * 16 +
          (c <= '9' ? c - '0' : (std::tolower((unsigned char)c) - 'a' + 10));
    }
    return true;
  }

  UNUM_JSON_INLINE bool readString(std::string &out, SourceLoc &contentLoc) {
    SourceLoc open = here();
    ++cur;
    contentLoc = here();
    out.clear();
    while (true) {
      // A run of plain ASCII characters, appended at once.
      const char *run = cur;
      while (cur != stop && *cur != '"' && *cur != '\\' &&
             static_cast<unsigned char>(*cur) >= 0x20 &&
             static_cast<unsigned char>(*cur) < 0x80)
        ++cur;
      out.append(run, size_t(cur - run));
      if (atEnd())
        return fail(open, "unterminated string");
      unsigned char c = peek();
      if (c == '"') {
        ++cur;
        return true;
      }
      if (c < 0x20) {
        if (c == '\n' || c == '\r')
          return fail(open, "unterminated string (a newline must be escaped "
                            "as \\n)");
        return failHere("unescaped control character " +
                        describeChar(text, offset()) + " in string");
      }
      if (c >= 0x80) {
        uint32_t cp;
        size_t len = decodeUtf8(text, offset(), cp);
        if (len == 0)
          return failHere("invalid UTF-8 in string");
        out.append(cur, len);
        cur += len;
        continue;
      }
      // A backslash.
      SourceLoc escapeLoc = here();
      ++cur;
      if (atEnd())
        return fail(open, "unterminated string");
      char e = peek();
      ++cur;
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp;
        if (!readHex4(cp))
          return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
          return fail(escapeLoc, "unpaired low surrogate in \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          // UTF-16 surrogate pair: a second \uXXXX must hold the low half.
          if (text.substr(offset(), 2) != "\\u")
            return fail(escapeLoc, "unpaired high surrogate in \\u escape");
          SourceLoc lowLoc = here();
          cur += 2;
          uint32_t low;
          if (!readHex4(low))
            return false;
          if (low < 0xDC00 || low > 0xDFFF)
            return fail(lowLoc, "expected a low surrogate after a high "
                                "surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --cur;
        return fail(escapeLoc, "invalid escape sequence '\\" +
                                   std::string(text.substr(offset(), 1)) +
                                   "' in string");
      }
    }
  }

  UNUM_JSON_INLINE bool readNumber(T &node) {
    const size_t start = offset();
    const char *const end = stop;
    const char *p = cur;
    auto digit = [&] { return p != end && *p >= '0' && *p <= '9'; };
    auto digits = [&] {
      while (digit())
        ++p;
    };
    // Errors are reported at the cursor.
    auto at = [&]() -> JsonReader & {
      cur = p;
      return *this;
    };
    if (*p == '-')
      ++p;
    if (!digit())
      return at().unexpected("a digit after '-'");
    if (*p == '0') {
      ++p;
      if (digit())
        return at().failHere("leading zeros are not allowed in numbers");
    } else {
      digits();
    }
    bool integer = true;
    if (p != end && *p == '.') {
      integer = false;
      ++p;
      if (!digit())
        return at().unexpected("a digit after '.'");
      digits();
    }
    if (p != end && (*p == 'e' || *p == 'E')) {
      integer = false;
      ++p;
      if (p != end && (*p == '+' || *p == '-'))
        ++p;
      if (!digit())
        return at().unexpected("a digit in the exponent");
      digits();
    }
    at();
    if (!atEnd() && (isJsonWordChar(peek()) || peek() == '.'))
      return failHere("unexpected " + describeChar(text, offset()) +
                      " in number");
    if constexpr (kLocated) {
      node.kind = Node::Kind::Number;
      node.text = std::string(text.substr(start, offset() - start));
      if (!finiteNumber(node.text))
        return fail({line, unsigned(start - lineStart + 1)},
                    "number '" +
                        (node.text.size() > 40 ? node.text.substr(0, 40) + "..."
                                               : node.text) +
                        "' is out of range (beyond a double)");
      return true;
    } else {
      // As valueOf(Node) converts: an integer that fits, else a double.
      const char *first = base + start, *last = cur;
      if (integer) {
        int64_t i = 0;
        auto [q, ec] = std::from_chars(first, last, i);
        if (ec == std::errc() && q == last) {
          node = T(i);
          return true;
        }
      }
      double d = std::strtod(std::string(first, last).c_str(), nullptr);
      if (!std::isfinite(d))
        return false; // out of range (beyond a double)
      node = T(d);
      return true;
    }
  }

  bool readLiteral(T &node) {
    size_t at = offset(), end = at;
    while (end < text.size() && isJsonWordChar(text[end]))
      ++end;
    std::string_view word = text.substr(at, end - at);
    if (word == "true" || word == "false") {
      if constexpr (kLocated) {
        node.kind = Node::Kind::Bool;
        node.boolValue = word == "true";
      } else {
        node = T(word == "true");
      }
    } else if (word == "null") {
      if constexpr (kLocated)
        node.kind = Node::Kind::Null;
      else
        node = T();
    } else {
      return failHere("invalid literal '" + std::string(word) +
                      "'; expected true, false, null, a number, a string, "
                      "an array or an object");
    }
    cur = base + end;
    return true;
  }

  std::string_view text;
  DiagnosticSink *diags;
  const char *base, *cur, *stop; // the text, the cursor, its end
  size_t lineStart = 0;          // the offset of the line's start
  unsigned line = 1;
};

} // namespace unum::config::detail

#undef UNUM_JSON_INLINE

#endif // UNUM_LIB_CONFIG_JSONREADER_H
