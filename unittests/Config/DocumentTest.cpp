//===- DocumentTest.cpp - JSON and YAML readers ---------------------------===//

#include "unum/Config/Document.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace unum::config;
using namespace unum::config::test;

namespace {

std::vector<Node> parseJsonOk(std::string_view text) {
  DiagnosticSink diags("t.json");
  std::vector<Node> docs;
  EXPECT_TRUE(parseJson(text, docs, diags)) << allMessages(diags);
  EXPECT_FALSE(diags.hasErrors());
  return docs;
}

std::vector<Node> parseYamlOk(std::string_view text) {
  DiagnosticSink diags("t.yaml");
  std::vector<Node> docs;
  EXPECT_TRUE(parseYaml(text, docs, diags)) << allMessages(diags);
  EXPECT_FALSE(diags.hasErrors());
  return docs;
}

void expectLoc(SourceLoc loc, unsigned line, unsigned col) {
  EXPECT_EQ(loc.line, line);
  EXPECT_EQ(loc.col, col);
}

//===----------------------------------------------------------------------===//
// Diagnostic
//===----------------------------------------------------------------------===//

TEST(DiagnosticTest, StrFormats) {
  Diagnostic d{
      Diagnostic::Severity::Error, "a/unum_config.json", {3, 7}, "bad"};
  EXPECT_EQ(d.str(), "a/unum_config.json:3:7: error: bad");
  d.loc = {};
  EXPECT_EQ(d.str(), "a/unum_config.json: error: bad");
  d.severity = Diagnostic::Severity::Note;
  d.file = "";
  EXPECT_EQ(d.str(), "note: bad");
  d.severity = Diagnostic::Severity::Warning;
  d.loc = {2, 1};
  EXPECT_EQ(d.str(), "2:1: warning: bad");
}

TEST(DiagnosticTest, SinkCountsErrorsAndNamesFile) {
  DiagnosticSink sink("f.yaml");
  sink.warning({1, 1}, "w");
  sink.note({1, 1}, "n");
  EXPECT_FALSE(sink.hasErrors());
  sink.error({2, 3}, "e");
  EXPECT_TRUE(sink.hasErrors());
  ASSERT_EQ(sink.diagnostics().size(), 3u);
  EXPECT_EQ(sink.diagnostics()[2].str(), "f.yaml:2:3: error: e");
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

TEST(JsonTest, ParsesEveryKindOfValue) {
  auto docs = parseJsonOk(
      R"({"s": "x", "i": -12, "f": 1.5e3, "t": true, "n": null,
          "a": [false, {}, []], "o": {"k": 0}})");
  ASSERT_EQ(docs.size(), 1u);
  const Node &root = docs[0];
  ASSERT_EQ(root.kind, Node::Kind::Object);
  ASSERT_EQ(root.members.size(), 7u);
  // Members stay in source order.
  EXPECT_EQ(root.members[0].key, "s");
  EXPECT_EQ(root.members[6].key, "o");
  EXPECT_EQ(root.find("s")->kind, Node::Kind::String);
  EXPECT_EQ(root.find("s")->text, "x");
  EXPECT_EQ(root.find("i")->kind, Node::Kind::Number);
  EXPECT_EQ(root.find("i")->text, "-12");
  EXPECT_TRUE(root.find("i")->isInteger());
  EXPECT_EQ(root.find("f")->text, "1.5e3");
  EXPECT_FALSE(root.find("f")->isInteger());
  EXPECT_EQ(root.find("t")->kind, Node::Kind::Bool);
  EXPECT_TRUE(root.find("t")->boolValue);
  EXPECT_EQ(root.find("n")->kind, Node::Kind::Null);
  const Node *a = root.find("a");
  ASSERT_EQ(a->kind, Node::Kind::Array);
  ASSERT_EQ(a->items.size(), 3u);
  EXPECT_EQ(a->items[0].kind, Node::Kind::Bool);
  EXPECT_FALSE(a->items[0].boolValue);
  EXPECT_EQ(a->items[1].kind, Node::Kind::Object);
  EXPECT_EQ(a->items[2].kind, Node::Kind::Array);
  EXPECT_EQ(root.find("o")->find("k")->text, "0");
  EXPECT_EQ(root.find("missing"), nullptr);
}

TEST(JsonTest, KindNames) {
  EXPECT_STREQ(Node::kindName(Node::Kind::Object), "object");
  EXPECT_STREQ(Node::kindName(Node::Kind::Array), "array");
  EXPECT_STREQ(Node::kindName(Node::Kind::String), "string");
  EXPECT_STREQ(Node::kindName(Node::Kind::Number), "number");
  EXPECT_STREQ(Node::kindName(Node::Kind::Bool), "boolean");
  EXPECT_STREQ(Node::kindName(Node::Kind::Null), "null");
}

TEST(JsonTest, LocationsOfKeysAndValues) {
  auto docs = parseJsonOk("{\n"
                          "  \"Name\": \"A\",\n"
                          "\t\"Next\": [1,\n"
                          "     {\"x\": null}]\n"
                          "}");
  ASSERT_EQ(docs.size(), 1u);
  const Node &root = docs[0];
  expectLoc(root.loc, 1, 1);
  expectLoc(root.members[0].keyLoc, 2, 3);
  expectLoc(root.members[0].value.loc, 2, 11);
  // The string's characters start after the quote.
  expectLoc(root.members[0].value.contentLoc, 2, 12);
  // A tab is one column.
  expectLoc(root.members[1].keyLoc, 3, 2);
  const Node &next = root.members[1].value;
  expectLoc(next.loc, 3, 10);
  expectLoc(next.items[0].loc, 3, 11);
  expectLoc(next.items[1].loc, 4, 6);
  expectLoc(next.items[1].members[0].keyLoc, 4, 7);
  expectLoc(next.items[1].members[0].value.loc, 4, 12);
}

TEST(JsonTest, ColumnsCountBytesAfterMultibyteText) {
  // "é" is two bytes and "😀" four: columns count bytes, as yaml-cpp's and
  // clang's do, so that shifted() by a byte offset stays exact.
  auto docs = parseJsonOk("{\"é\": \"😀x\", \"k\": 1}");
  ASSERT_EQ(docs.size(), 1u);
  const Node &root = docs[0];
  expectLoc(root.members[0].keyLoc, 1, 2);
  expectLoc(root.members[0].value.loc, 1, 8);
  expectLoc(root.members[0].value.contentLoc, 1, 9);
  EXPECT_EQ(root.members[0].value.text, "😀x");
  expectLoc(root.members[1].keyLoc, 1, 17);
  expectLoc(root.members[1].value.loc, 1, 22);
}

TEST(JsonTest, CrLfAndByteOrderMark) {
  auto docs = parseJsonOk("\xEF\xBB\xBF{\r\n\"a\": 1,\r\"b\": 2}");
  ASSERT_EQ(docs.size(), 1u);
  expectLoc(docs[0].loc, 1, 1);
  expectLoc(docs[0].members[0].keyLoc, 2, 1);
  // A lone carriage return also ends a line.
  expectLoc(docs[0].members[1].keyLoc, 3, 1);
}

TEST(JsonTest, Escapes) {
  auto docs = parseJsonOk(
      R"(["\"\\\/\b\f\n\r\t", "\u00e9\u20AC", "\ud83d\ude00", "a\u0000b"])");
  ASSERT_EQ(docs.size(), 1u);
  const auto &items = docs[0].items;
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].text, "\"\\/\b\f\n\r\t");
  EXPECT_EQ(items[1].text, "\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(items[2].text, "\xF0\x9F\x98\x80");
  EXPECT_EQ(items[3].text, std::string("a\0b", 3));
}

TEST(JsonTest, RawUtf8IsKept) {
  auto docs = parseJsonOk("\"h\xC3\xA9llo \xE4\xB8\x96\"");
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].text, "h\xC3\xA9llo \xE4\xB8\x96");
}

TEST(JsonTest, ConcatenatedValuesFormAStream) {
  auto docs = parseJsonOk("{\"a\": 1}{\"b\": 2}\n[3] \"x\" 4 true");
  ASSERT_EQ(docs.size(), 6u);
  EXPECT_EQ(docs[0].members[0].key, "a");
  EXPECT_EQ(docs[1].members[0].key, "b");
  expectLoc(docs[1].loc, 1, 9);
  expectLoc(docs[2].loc, 2, 1);
  EXPECT_EQ(docs[3].text, "x");
  EXPECT_EQ(docs[4].text, "4");
  EXPECT_TRUE(docs[5].boolValue);
}

struct JsonErrorCase {
  const char *text;
  unsigned line, col;
  const char *message; // a substring of the message
};

class JsonErrorTest : public ::testing::TestWithParam<JsonErrorCase> {};

TEST_P(JsonErrorTest, IsLocated) {
  const JsonErrorCase &c = GetParam();
  DiagnosticSink diags("t.json");
  std::vector<Node> docs;
  EXPECT_FALSE(parseJson(c.text, docs, diags)) << c.text;
  ASSERT_TRUE(diags.hasErrors());
  Diagnostic d = firstError(diags);
  EXPECT_EQ(d.loc.line, c.line) << c.text << "\n" << d.str();
  EXPECT_EQ(d.loc.col, c.col) << c.text << "\n" << d.str();
  EXPECT_NE(d.message.find(c.message), std::string::npos) << c.text << "\n"
                                                          << d.str();
  EXPECT_EQ(d.file, "t.json");
}

INSTANTIATE_TEST_SUITE_P(
    Syntax, JsonErrorTest,
    ::testing::Values(
        JsonErrorCase{"", 1, 1,
                      "unexpected end of input; expected a JSON value"},
        // Beyond a double: read as infinity, it could not be written back.
        JsonErrorCase{"{\"a\": 1e400}", 1, 7, "'1e400' is out of range"},
        JsonErrorCase{"[1, -2.5E+999]", 1, 5, "out of range"},
        JsonErrorCase{"  \n ", 2, 2, "expected a JSON value"},
        JsonErrorCase{"{\"a\": 1,}", 1, 8, "trailing comma in object"},
        JsonErrorCase{"[1,]", 1, 3, "trailing comma in array"},
        JsonErrorCase{"{\"a\" 1}", 1, 6, "unexpected '1'; expected ':'"},
        JsonErrorCase{"{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}'"},
        JsonErrorCase{"{a: 1}", 1, 2, "keys must be double-quoted"},
        JsonErrorCase{"{\"a\": 1, 2}", 1, 10, "expected a string key"},
        JsonErrorCase{"[1 2]", 1, 4, "expected ',' or ']'"},
        JsonErrorCase{"{\"a\": 1", 1, 8,
                      "unexpected end of input; expected ',' or '}'"},
        JsonErrorCase{"[1,\n 2", 2, 3, "unexpected end of input"},
        JsonErrorCase{"\"abc", 1, 1, "unterminated string"},
        JsonErrorCase{"[\"ab\ncd\"]", 1, 2, "unterminated string"},
        JsonErrorCase{"\"a\tb\"", 1, 3, "control character U+0009"},
        JsonErrorCase{"\"a\\qb\"", 1, 3, "invalid escape sequence '\\q'"},
        JsonErrorCase{"\"a\\u12\"", 1, 7, "4 hexadecimal digits"},
        JsonErrorCase{"\"x\\ud83d\"", 1, 3, "unpaired high surrogate"},
        JsonErrorCase{"\"x\\ude00\"", 1, 3, "unpaired low surrogate"},
        JsonErrorCase{"\"\\ud83d\\u0041\"", 1, 8, "expected a low surrogate"},
        JsonErrorCase{"\"a\xFF\"", 1, 3, "invalid UTF-8"},
        JsonErrorCase{"\"\xC0\xAF\"", 1, 2, "invalid UTF-8"}, // overlong '/'
        JsonErrorCase{"01", 1, 2, "leading zeros"},
        JsonErrorCase{"-", 1, 2, "expected a digit after '-'"},
        JsonErrorCase{"-x", 1, 2, "unexpected 'x'; expected a digit"},
        JsonErrorCase{"1.", 1, 3, "expected a digit after '.'"},
        JsonErrorCase{"1e+", 1, 4, "a digit in the exponent"},
        JsonErrorCase{"12abc", 1, 3, "unexpected 'a' in number"},
        JsonErrorCase{"+1", 1, 1, "unexpected '+'; expected a JSON value"},
        JsonErrorCase{"tru", 1, 1, "invalid literal 'tru'"},
        JsonErrorCase{"True", 1, 1, "invalid literal 'True'"},
        JsonErrorCase{"nullx", 1, 1, "invalid literal 'nullx'"},
        JsonErrorCase{"{\"a\": 1} // c", 1, 10, "comments are not allowed"},
        JsonErrorCase{"{\"a\": 1}}", 1, 9, "unexpected '}'"},
        JsonErrorCase{"{\"a\":\n  [1,\n   2,\n  }", 4, 3,
                      "unexpected '}'; expected a JSON value"},
        JsonErrorCase{"[\x01]", 1, 2, "unexpected U+0001"}));

TEST(JsonTest, UnclosedObjectNotesWhereItStarts) {
  DiagnosticSink diags;
  std::vector<Node> docs;
  EXPECT_FALSE(parseJson("[0,\n {\"a\": 1", docs, diags));
  ASSERT_EQ(diags.diagnostics().size(), 2u);
  EXPECT_EQ(diags.diagnostics()[1].severity, Diagnostic::Severity::Note);
  expectLoc(diags.diagnostics()[1].loc, 2, 2);
}

TEST(JsonTest, DuplicateKeyIsAnError) {
  DiagnosticSink diags("d.json");
  std::vector<Node> docs;
  EXPECT_FALSE(
      parseJson("{\"a\": 1,\n \"b\": {\"a\": 0},\n \"a\": 2}", docs, diags));
  ASSERT_EQ(diags.diagnostics().size(), 2u);
  EXPECT_EQ(diags.diagnostics()[0].str(),
            "d.json:3:2: error: duplicate key 'a'");
  EXPECT_EQ(diags.diagnostics()[1].severity, Diagnostic::Severity::Note);
  expectLoc(diags.diagnostics()[1].loc, 1, 2);
}

TEST(JsonTest, SameKeyInDifferentObjectsIsFine) {
  auto docs = parseJsonOk("{\"a\": {\"a\": {\"a\": 1}}}");
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].find("a")->find("a")->find("a")->text, "1");
}

TEST(JsonTest, DepthLimitIs256) {
  std::string ok = std::string(256, '[') + std::string(256, ']');
  EXPECT_EQ(parseJsonOk(ok).size(), 1u);

  std::string mixed;
  for (int i = 0; i < 128; ++i)
    mixed += "{\"k\": [";
  mixed += "1";
  for (int i = 0; i < 128; ++i)
    mixed += "]}";
  EXPECT_EQ(parseJsonOk(mixed).size(), 1u);

  DiagnosticSink diags;
  std::vector<Node> docs;
  std::string deep = std::string(257, '[') + std::string(257, ']');
  EXPECT_FALSE(parseJson(deep, docs, diags));
  Diagnostic d = firstError(diags);
  expectLoc(d.loc, 1, 257);
  EXPECT_NE(d.message.find("deeper than 256"), std::string::npos);

  // Far deeper input fails the same way instead of exhausting the stack.
  DiagnosticSink diags2;
  EXPECT_FALSE(parseJson(std::string(1000000, '['), docs, diags2));
  expectLoc(firstError(diags2).loc, 1, 257);
}

TEST(JsonTest, ValuesBeforeAnErrorAreKept) {
  DiagnosticSink diags;
  std::vector<Node> docs;
  EXPECT_FALSE(parseJson("{} [1] ]", docs, diags));
  EXPECT_EQ(docs.size(), 2u);
  expectLoc(firstError(diags).loc, 1, 8);
}

//===----------------------------------------------------------------------===//
// YAML
//===----------------------------------------------------------------------===//

TEST(YamlTest, CoreSchemaTypes) {
  auto docs = parseYamlOk("a: 1\n"
                          "b: -2\n"
                          "c: 1.5\n"
                          "d: true\n"
                          "e: True\n"
                          "f: FALSE\n"
                          "g: null\n"
                          "h: ~\n"
                          "i:\n"
                          "j: \"1\"\n"
                          "k: 'true'\n"
                          "l: hello world\n"
                          "m: 0x1F\n"
                          "n: 0o17\n"
                          "o: +5\n"
                          "p: .5\n"
                          "q: 1e3\n"
                          "r: yes\n"
                          "s: \"\"\n"
                          "t: 007\n"
                          "u: -5.\n"
                          "v: +00.25e+3\n"
                          "w: -0\n");
  ASSERT_EQ(docs.size(), 1u);
  const Node &root = docs[0];
  auto kind = [&](const char *key) { return root.find(key)->kind; };
  auto text = [&](const char *key) { return root.find(key)->text; };
  EXPECT_EQ(kind("a"), Node::Kind::Number);
  EXPECT_EQ(text("a"), "1");
  EXPECT_TRUE(root.find("a")->isInteger());
  EXPECT_EQ(text("b"), "-2");
  EXPECT_TRUE(root.find("b")->isInteger());
  EXPECT_EQ(kind("c"), Node::Kind::Number);
  EXPECT_FALSE(root.find("c")->isInteger());
  EXPECT_EQ(kind("d"), Node::Kind::Bool);
  EXPECT_TRUE(root.find("d")->boolValue);
  EXPECT_EQ(kind("e"), Node::Kind::Bool);
  EXPECT_TRUE(root.find("e")->boolValue);
  EXPECT_EQ(kind("f"), Node::Kind::Bool);
  EXPECT_FALSE(root.find("f")->boolValue);
  EXPECT_EQ(kind("g"), Node::Kind::Null);
  EXPECT_EQ(kind("h"), Node::Kind::Null);
  EXPECT_EQ(kind("i"), Node::Kind::Null);
  // Quoted scalars are strings whatever they look like.
  EXPECT_EQ(kind("j"), Node::Kind::String);
  EXPECT_EQ(text("j"), "1");
  EXPECT_EQ(kind("k"), Node::Kind::String);
  EXPECT_EQ(text("k"), "true");
  EXPECT_EQ(kind("l"), Node::Kind::String);
  EXPECT_EQ(text("l"), "hello world");
  // Hexadecimal and octal become decimal so that consumers can read them.
  EXPECT_EQ(text("m"), "31");
  EXPECT_TRUE(root.find("m")->isInteger());
  EXPECT_EQ(text("n"), "15");
  EXPECT_EQ(text("o"), "5");
  // Numbers are kept in JSON's spelling: configs write them as read.
  EXPECT_EQ(text("p"), "0.5");
  EXPECT_EQ(kind("q"), Node::Kind::Number);
  EXPECT_EQ(text("q"), "1e3");
  // YAML 1.2: "yes" is not a boolean.
  EXPECT_EQ(kind("r"), Node::Kind::String);
  EXPECT_EQ(kind("s"), Node::Kind::String);
  EXPECT_EQ(text("t"), "7");
  EXPECT_TRUE(root.find("t")->isInteger());
  EXPECT_EQ(text("u"), "-5.0");
  EXPECT_EQ(text("v"), "0.25e+3");
  EXPECT_EQ(text("w"), "-0");
  // Every number the YAML reader gives is one the JSON reader reads.
  for (const Node::Member &m : root.members)
    if (m.value.kind == Node::Kind::Number)
      EXPECT_EQ(parseJsonOk(m.value.text).at(0).text, m.value.text) << m.key;
}

TEST(YamlTest, Collections) {
  auto docs = parseYamlOk("Next:\n"
                          "  - Name: B\n"
                          "    Values: [x, \"y\"]\n"
                          "  - {Name: C}\n");
  ASSERT_EQ(docs.size(), 1u);
  const Node *next = docs[0].find("Next");
  ASSERT_NE(next, nullptr);
  ASSERT_EQ(next->kind, Node::Kind::Array);
  ASSERT_EQ(next->items.size(), 2u);
  EXPECT_EQ(next->items[0].find("Name")->text, "B");
  const Node *values = next->items[0].find("Values");
  ASSERT_EQ(values->items.size(), 2u);
  EXPECT_EQ(values->items[1].text, "y");
  EXPECT_EQ(next->items[1].find("Name")->text, "C");
}

TEST(YamlTest, Locations) {
  auto docs = parseYamlOk("Name: A\n"
                          "Next:\n"
                          "  - Name: \"B\"\n"
                          "    Conditional: '$0 > 1'\n"
                          "é: x\n"
                          "t: !!str 12\n"
                          "b: |\n"
                          "\n"
                          "    text\n");
  ASSERT_EQ(docs.size(), 1u);
  const Node &root = docs[0];
  expectLoc(root.loc, 1, 1);
  expectLoc(root.members[0].keyLoc, 1, 1);
  expectLoc(root.members[0].value.loc, 1, 7);
  expectLoc(root.members[0].value.contentLoc, 1, 7);
  const Node &next = root.members[1].value;
  expectLoc(next.loc, 3, 3);
  const Node &edge = next.items[0];
  expectLoc(edge.loc, 3, 5);
  expectLoc(edge.members[0].keyLoc, 3, 5);
  expectLoc(edge.members[0].value.loc, 3, 11);
  expectLoc(edge.members[0].value.contentLoc, 3, 12);
  expectLoc(edge.members[1].keyLoc, 4, 5);
  expectLoc(edge.members[1].value.contentLoc, 4, 19);
  // Byte columns after a two-byte character, as in JSON.
  expectLoc(root.members[2].value.loc, 5, 5);
  // The content of a tagged scalar starts after the tag.
  EXPECT_EQ(root.members[3].value.kind, Node::Kind::String);
  EXPECT_EQ(root.members[3].value.text, "12");
  expectLoc(root.members[3].value.contentLoc, 6, 10);
  // A block scalar's content starts on a later line (a literal block keeps
  // its leading blank line).
  EXPECT_EQ(root.members[4].value.text, "\ntext\n");
  expectLoc(root.members[4].value.contentLoc, 9, 5);
}

TEST(YamlTest, MultipleDocuments) {
  auto docs = parseYamlOk("Name: A\n---\nName: B\n...\n---\n- 1\n");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0].find("Name")->text, "A");
  EXPECT_EQ(docs[1].find("Name")->text, "B");
  expectLoc(docs[1].members[0].keyLoc, 3, 1);
  EXPECT_EQ(docs[2].kind, Node::Kind::Array);
  expectLoc(docs[2].items[0].loc, 6, 3);
}

// YAML's \N and \_ escapes are U+0085 and U+00A0, written as UTF-8 (the
// fuzzer found yaml-cpp's single Latin-1 bytes in a key and in a value: the
// config's JSON spelling did not read back).
TEST(YamlTest, NextLineAndNoBreakSpaceEscapesAreUtf8) {
  auto docs = parseYamlOk("\"k\\N\": \"\\\\\\N\\_\\x85\u00e9\\_\"\n");
  ASSERT_EQ(docs.size(), 1u);
  ASSERT_EQ(docs[0].members.size(), 1u);
  EXPECT_EQ(docs[0].members[0].key, "k\xC2\x85");
  EXPECT_EQ(docs[0].members[0].value.text,
            "\\\xC2\x85\xC2\xA0\xC2\x85\xC3\xA9\xC2\xA0");
  std::vector<Node> again;
  DiagnosticSink diags("rewritten.json");
  EXPECT_TRUE(parseJson(writeJsonValue(docs[0]), again, diags));
}

TEST(YamlTest, EmptyStreamHasNoDocuments) {
  EXPECT_TRUE(parseYamlOk("").empty());
  EXPECT_TRUE(parseYamlOk("# only a comment\n").empty());
}

struct YamlErrorCase {
  std::string text;
  unsigned line, col;
  const char *message;
};

class YamlErrorTest : public ::testing::TestWithParam<YamlErrorCase> {};

TEST_P(YamlErrorTest, IsLocated) {
  const YamlErrorCase &c = GetParam();
  DiagnosticSink diags("t.yaml");
  std::vector<Node> docs;
  EXPECT_FALSE(parseYaml(c.text, docs, diags)) << c.text;
  ASSERT_TRUE(diags.hasErrors());
  Diagnostic d = firstError(diags);
  EXPECT_EQ(d.loc.line, c.line) << c.text << "\n" << d.str();
  EXPECT_EQ(d.loc.col, c.col) << c.text << "\n" << d.str();
  EXPECT_NE(d.message.find(c.message), std::string::npos) << c.text << "\n"
                                                          << d.str();
}

INSTANTIATE_TEST_SUITE_P(
    Syntax, YamlErrorTest,
    ::testing::Values(
        // yaml-cpp's own syntax errors keep its message and mark.
        YamlErrorCase{"a: b: c\n", 1, 5, "illegal map value"},
        YamlErrorCase{"a: [1, 2\n", 2, 1, "end of sequence flow not found"},
        YamlErrorCase{"a:\n  - b\n - c\n", 3, 2, "end of map not found"},
        YamlErrorCase{"a: \"\\q\"\n", 1, 7, "unknown escape character"},
        // yaml-cpp accepts an unterminated quote at the end of input.
        YamlErrorCase{"a: \"abc\n", 1, 4, "unterminated quoted scalar"},
        YamlErrorCase{"a: 'it''s\n", 1, 4, "unterminated quoted scalar"},
        YamlErrorCase{"a: &x 1\nb: *x\n", 2, 4, "aliases are not supported"},
        YamlErrorCase{"? [x]\n: y\n", 1, 3, "must be a scalar, not a sequence"},
        YamlErrorCase{"{a: 1}: y\n", 1, 1, "must be a scalar, not a mapping"},
        YamlErrorCase{"a: 1\nb: 2\na: 3\n", 3, 1, "duplicate key 'a'"},
        YamlErrorCase{": x\n", 1, 1, "must not be null"},
        YamlErrorCase{"a: !foo x\n", 1, 4, "unsupported YAML tag '!foo'"},
        YamlErrorCase{"a: !!int x\n", 1, 4, "not a valid !!int"},
        YamlErrorCase{"ok: 1\n---\nbad: [\n", 4, 1, "end of sequence"},
        // yaml-cpp 0.7 loops forever on this, emitting empty documents.
        YamlErrorCase{"{a: 1}, b\n", 1, 7, "stopped making progress"},
        // Numbers JSON cannot hold.
        YamlErrorCase{"a: .inf\n", 1, 4, "has no JSON equivalent"},
        YamlErrorCase{"a: [1, -.Inf]\n", 1, 8, "has no JSON equivalent"},
        YamlErrorCase{"a: .nan\n", 1, 4, "has no JSON equivalent"},
        YamlErrorCase{"a: 1e400\n", 1, 4, "out of range"},
        YamlErrorCase{"a: 0x1FFFFFFFFFFFFFFFF\n", 1, 4, "out of range"},
        // A config is text.
        YamlErrorCase{"a: 1\nb: \"x\xff\"\n", 2, 6, "invalid UTF-8"},
        YamlErrorCase{"a: \xc3\x28\n", 1, 4, "invalid UTF-8"},
        // YAML is printable characters (a NUL among the first bytes also
        // made yaml-cpp read the text as UTF-16 or UTF-32: fuzz finding).
        YamlErrorCase{std::string("-\0\0\0\x15\n", 6), 1, 2,
                      "control character U+0000 in YAML text"},
        YamlErrorCase{"a: 1\nb: x\x15y\n", 2, 5, "control character U+0015"},
        YamlErrorCase{"a: \x7f\n", 1, 4, "control character U+007F"}));

TEST(YamlTest, ControlCharactersAsEscapes) {
  // Escaped in a double-quoted string they are data, and their JSON
  // spelling reads back.
  DiagnosticSink diags;
  std::vector<Node> docs;
  ASSERT_TRUE(parseYaml("a: \"\\0\\x15\\t\"\n", docs, diags));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].find("a")->text, std::string("\0\x15\t", 3));
  std::string json = writeJsonValue(docs[0]);
  std::vector<Node> again;
  ASSERT_TRUE(parseJson(json, again, diags)) << json;
  EXPECT_EQ(writeJsonValue(again[0]), json);
}

TEST(YamlTest, DuplicateKeyNotesTheFirst) {
  DiagnosticSink diags;
  std::vector<Node> docs;
  EXPECT_FALSE(parseYaml("x:\n  a: 1\n  a: 2\n", docs, diags));
  ASSERT_EQ(diags.diagnostics().size(), 2u);
  expectLoc(diags.diagnostics()[0].loc, 3, 3);
  expectLoc(diags.diagnostics()[1].loc, 2, 3);
}

TEST(YamlTest, DocumentsBeforeAnErrorAreKept) {
  DiagnosticSink diags;
  std::vector<Node> docs;
  EXPECT_FALSE(parseYaml("a: 1\n---\nb: [\n", docs, diags));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].find("a")->text, "1");
}

TEST(YamlTest, DepthLimitIs256) {
  std::string ok = std::string(256, '[') + std::string(256, ']');
  EXPECT_EQ(parseYamlOk(ok).size(), 1u);
  DiagnosticSink diags;
  std::vector<Node> docs;
  std::string deep = std::string(257, '[') + std::string(257, ']');
  EXPECT_FALSE(parseYaml(deep, docs, diags));
  Diagnostic d = firstError(diags);
  expectLoc(d.loc, 1, 257);
  EXPECT_NE(d.message.find("deeper than 256"), std::string::npos);
}

TEST(YamlTest, AnchorsWithoutAliasesAreHarmless) {
  auto docs = parseYamlOk("a: &x \"v\"\n");
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].find("a")->text, "v");
  expectLoc(docs[0].find("a")->contentLoc, 1, 8);
}

} // namespace
