//===- Json.cpp - A located JSON reader -----------------------------------===//
//
// A small recursive-descent reader instead of a JSON library: the config
// library must not depend on one, and diagnostics need the line and column of
// every key and value. Columns count bytes, like yaml-cpp's marks and like
// clang, so that SourceLoc::shifted() with a byte offset into a string stays
// exact.
//
//===----------------------------------------------------------------------===//

#include "Text.h"
#include "unum/Config/Document.h"
#include "unum/Config/Limits.h"

#include <string>
#include <unordered_map>

using namespace unum::config;
using namespace unum::config::detail;

namespace {

constexpr unsigned kMaxDepth = unum::limits::kMaxNesting;

class JsonReader {
public:
  JsonReader(std::string_view text, DiagnosticSink &diags)
      : text(text), diags(diags) {}

  bool readStream(std::vector<Node> &documents);

private:
  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return text[pos]; }
  SourceLoc here() const { return {line, unsigned(pos - lineStart + 1)}; }

  bool fail(SourceLoc loc, std::string message) {
    diags.error(loc, std::move(message));
    return false;
  }
  bool failHere(std::string message) {
    return fail(here(), std::move(message));
  }
  /// Reports an unexpected character (or the end of input) at the cursor.
  bool unexpected(const std::string &expected);

  void skipWhitespace();
  bool readValue(Node &node, unsigned depth);
  bool readObject(Node &node, unsigned depth);
  bool readArray(Node &node, unsigned depth);
  bool readString(std::string &out, SourceLoc &contentLoc);
  bool readHex4(uint32_t &value);
  bool readNumber(Node &node);
  bool readLiteral(Node &node);

  std::string_view text;
  DiagnosticSink &diags;
  size_t pos = 0;
  size_t lineStart = 0;
  unsigned line = 1;
};

bool isWordChar(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

} // namespace

bool JsonReader::unexpected(const std::string &expected) {
  if (atEnd())
    return failHere("unexpected end of input; expected " + expected);
  if (peek() == '/')
    return failHere("comments are not allowed in JSON");
  if (isWordChar(peek())) {
    size_t end = pos;
    while (end < text.size() && isWordChar(text[end]))
      ++end;
    return failHere("unexpected '" + std::string(text.substr(pos, end - pos)) +
                    "'; expected " + expected);
  }
  return failHere("unexpected " + describeChar(text, pos) + "; expected " +
                  expected);
}

void JsonReader::skipWhitespace() {
  while (!atEnd()) {
    char c = peek();
    if (c == ' ' || c == '\t') {
      ++pos;
    } else if (c == '\n' || c == '\r') {
      // "\r\n" and a lone "\r" both end a line.
      ++pos;
      if (c == '\r' && !atEnd() && peek() == '\n')
        ++pos;
      ++line;
      lineStart = pos;
    } else {
      break;
    }
  }
}

bool JsonReader::readStream(std::vector<Node> &documents) {
  // A UTF-8 byte order mark is not part of the text; columns start after it.
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    pos = lineStart = 3;
  size_t before = documents.size();
  while (true) {
    skipWhitespace();
    if (atEnd())
      break;
    Node node;
    if (!readValue(node, 0))
      return false;
    documents.push_back(std::move(node));
  }
  if (documents.size() == before)
    return unexpected("a JSON value");
  return true;
}

bool JsonReader::readValue(Node &node, unsigned depth) {
  if (atEnd())
    return unexpected("a JSON value");
  node.loc = node.contentLoc = here();
  char c = peek();
  if (c == '{' || c == '[') {
    if (depth >= kMaxDepth)
      return failHere("nesting is deeper than " + std::to_string(kMaxDepth) +
                      " levels");
    return c == '{' ? readObject(node, depth + 1) : readArray(node, depth + 1);
  }
  if (c == '"') {
    node.kind = Node::Kind::String;
    return readString(node.text, node.contentLoc);
  }
  if (c == '-' || (c >= '0' && c <= '9'))
    return readNumber(node);
  if (std::isalpha((unsigned char)c))
    return readLiteral(node);
  return unexpected("a JSON value");
}

bool JsonReader::readObject(Node &node, unsigned depth) {
  node.kind = Node::Kind::Object;
  SourceLoc open = here();
  ++pos;
  skipWhitespace();
  if (!atEnd() && peek() == '}') {
    ++pos;
    return true;
  }
  std::unordered_map<std::string, SourceLoc> seen;
  SourceLoc lastComma;
  while (true) {
    if (atEnd() || peek() != '"') {
      if (lastComma.line != 0 && !atEnd() && peek() == '}')
        return fail(lastComma, "trailing comma in object");
      if (!atEnd() && (std::isalpha((unsigned char)peek()) || peek() == '_'))
        return failHere("object keys must be double-quoted strings");
      unexpected("a string key");
      if (atEnd())
        diags.note(open, "the object starts here");
      return false;
    }
    Node::Member member;
    member.keyLoc = here();
    SourceLoc keyContent;
    if (!readString(member.key, keyContent))
      return false;
    auto [it, inserted] = seen.emplace(member.key, member.keyLoc);
    if (!inserted) {
      fail(member.keyLoc, "duplicate key '" + member.key + "'");
      diags.note(it->second, "'" + member.key + "' was first defined here");
      return false;
    }
    skipWhitespace();
    if (atEnd() || peek() != ':')
      return unexpected("':' after the object key");
    ++pos;
    skipWhitespace();
    if (!readValue(member.value, depth))
      return false;
    node.members.push_back(std::move(member));
    skipWhitespace();
    if (!atEnd() && peek() == ',') {
      lastComma = here();
      ++pos;
      skipWhitespace();
      continue;
    }
    if (!atEnd() && peek() == '}') {
      ++pos;
      return true;
    }
    unexpected("',' or '}' in object");
    if (atEnd())
      diags.note(open, "the object starts here");
    return false;
  }
}

bool JsonReader::readArray(Node &node, unsigned depth) {
  node.kind = Node::Kind::Array;
  SourceLoc open = here();
  ++pos;
  skipWhitespace();
  if (!atEnd() && peek() == ']') {
    ++pos;
    return true;
  }
  SourceLoc lastComma;
  while (true) {
    if (lastComma.line != 0 && !atEnd() && peek() == ']')
      return fail(lastComma, "trailing comma in array");
    Node item;
    if (!readValue(item, depth))
      return false;
    node.items.push_back(std::move(item));
    skipWhitespace();
    if (!atEnd() && peek() == ',') {
      lastComma = here();
      ++pos;
      skipWhitespace();
      continue;
    }
    if (!atEnd() && peek() == ']') {
      ++pos;
      return true;
    }
    unexpected("',' or ']' in array");
    if (atEnd())
      diags.note(open, "the array starts here");
    return false;
  }
}

bool JsonReader::readHex4(uint32_t &value) {
  value = 0;
  for (int i = 0; i < 4; ++i, ++pos) {
    if (atEnd() || !std::isxdigit((unsigned char)peek()))
      return failHere("expected 4 hexadecimal digits after '\\u'");
    char c = peek();
    value = value * 16 +
            (c <= '9' ? c - '0' : (std::tolower((unsigned char)c) - 'a' + 10));
  }
  return true;
}

bool JsonReader::readString(std::string &out, SourceLoc &contentLoc) {
  SourceLoc open = here();
  ++pos;
  contentLoc = here();
  out.clear();
  while (true) {
    if (atEnd())
      return fail(open, "unterminated string");
    unsigned char c = peek();
    if (c == '"') {
      ++pos;
      return true;
    }
    if (c < 0x20) {
      if (c == '\n' || c == '\r')
        return fail(open, "unterminated string (a newline must be escaped "
                          "as \\n)");
      return failHere("unescaped control character " + describeChar(text, pos) +
                      " in string");
    }
    if (c >= 0x80) {
      uint32_t cp;
      size_t len = decodeUtf8(text, pos, cp);
      if (len == 0)
        return failHere("invalid UTF-8 in string");
      out.append(text.substr(pos, len));
      pos += len;
      continue;
    }
    if (c != '\\') {
      out += char(c);
      ++pos;
      continue;
    }
    SourceLoc escapeLoc = here();
    ++pos;
    if (atEnd())
      return fail(open, "unterminated string");
    char e = peek();
    ++pos;
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
        if (text.substr(pos, 2) != "\\u")
          return fail(escapeLoc, "unpaired high surrogate in \\u escape");
        SourceLoc lowLoc = here();
        pos += 2;
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
      --pos;
      return fail(escapeLoc, "invalid escape sequence '\\" +
                                 std::string(text.substr(pos, 1)) +
                                 "' in string");
    }
  }
}

bool JsonReader::readNumber(Node &node) {
  size_t start = pos;
  auto digit = [&] { return !atEnd() && peek() >= '0' && peek() <= '9'; };
  if (peek() == '-')
    ++pos;
  if (!digit())
    return unexpected("a digit after '-'");
  if (peek() == '0') {
    ++pos;
    if (digit())
      return failHere("leading zeros are not allowed in numbers");
  } else {
    while (digit())
      ++pos;
  }
  if (!atEnd() && peek() == '.') {
    ++pos;
    if (!digit())
      return unexpected("a digit after '.'");
    while (digit())
      ++pos;
  }
  if (!atEnd() && (peek() == 'e' || peek() == 'E')) {
    ++pos;
    if (!atEnd() && (peek() == '+' || peek() == '-'))
      ++pos;
    if (!digit())
      return unexpected("a digit in the exponent");
    while (digit())
      ++pos;
  }
  if (!atEnd() && (isWordChar(peek()) || peek() == '.'))
    return failHere("unexpected " + describeChar(text, pos) + " in number");
  node.kind = Node::Kind::Number;
  node.text = std::string(text.substr(start, pos - start));
  if (!finiteNumber(node.text))
    return fail({line, unsigned(start - lineStart + 1)},
                "number '" +
                    (node.text.size() > 40 ? node.text.substr(0, 40) + "..."
                                           : node.text) +
                    "' is out of range (beyond a double)");
  return true;
}

bool JsonReader::readLiteral(Node &node) {
  size_t end = pos;
  while (end < text.size() && isWordChar(text[end]))
    ++end;
  std::string_view word = text.substr(pos, end - pos);
  if (word == "true" || word == "false") {
    node.kind = Node::Kind::Bool;
    node.boolValue = word == "true";
  } else if (word == "null") {
    node.kind = Node::Kind::Null;
  } else {
    return failHere("invalid literal '" + std::string(word) +
                    "'; expected true, false, null, a number, a string, an "
                    "array or an object");
  }
  pos = end;
  return true;
}

bool unum::config::parseJson(std::string_view text,
                             std::vector<Node> &documents,
                             DiagnosticSink &diags) {
  return JsonReader(text, diags).readStream(documents);
}
