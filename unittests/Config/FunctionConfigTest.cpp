//===- FunctionConfigTest.cpp - Decoding and writing configs --------------===//

#include "unum/Config/FunctionConfig.h"
#include "unum/Config/AppFiles.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace unum::config;
using namespace unum::config::test;
namespace fs = std::filesystem;

namespace {

std::vector<Node> parseText(std::string_view text, Format format,
                            DiagnosticSink &diags) {
  std::vector<Node> docs;
  bool ok = format == Format::Json ? parseJson(text, docs, diags)
                                   : parseYaml(text, docs, diags);
  EXPECT_TRUE(ok) << allMessages(diags) << text;
  return docs;
}

/// Parses and decodes one config; the parse itself must succeed.
std::optional<FunctionConfig> decodeText(std::string_view text, Format format,
                                         DiagnosticSink &diags) {
  std::vector<Node> docs = parseText(text, format, diags);
  if (docs.size() != 1) {
    ADD_FAILURE() << "expected one document in:\n" << text;
    return std::nullopt;
  }
  return decodeConfig(docs[0], format, diags);
}

FunctionConfig decodeOk(std::string_view text, Format format) {
  DiagnosticSink diags("t");
  std::optional<FunctionConfig> config = decodeText(text, format, diags);
  EXPECT_TRUE(config.has_value()) << allMessages(diags) << text;
  EXPECT_FALSE(diags.hasErrors()) << allMessages(diags);
  return config ? *config : FunctionConfig();
}

void expectLoc(SourceLoc loc, unsigned line, unsigned col) {
  EXPECT_EQ(loc.line, line);
  EXPECT_EQ(loc.col, col);
}

/// Compares everything a config means (locations excluded).
void expectSameConfig(const FunctionConfig &a, const FunctionConfig &b,
                      const std::string &context = "") {
  SCOPED_TRACE(context);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.nextIsList, b.nextIsList);
  ASSERT_EQ(a.next.size(), b.next.size());
  for (size_t i = 0; i < a.next.size(); ++i) {
    const Edge &x = a.next[i], &y = b.next[i];
    EXPECT_EQ(x.target, y.target);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.values, y.values);
    EXPECT_EQ(x.conditional.has_value(), y.conditional.has_value());
    if (x.conditional && y.conditional) {
      EXPECT_EQ(x.conditional->text, y.conditional->text);
    }
  }
  EXPECT_EQ(a.modifiers, b.modifiers);
  EXPECT_EQ(a.checkpoint, b.checkpoint);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.debug, b.debug);
  EXPECT_EQ(a.retry, b.retry);
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

const char *kFullJson = R"cfg({
    "Name": "A",
    "Next": [
        {
            "Name": "B",
            "InputType": "Scalar",
            "Conditional": "$ret == 'x'"
        },
        {
            "Name": "C",
            "InputType": {"Fan-in": {"Values": ["A-unumIndex-*", "B-UnumIndex-($0-1)"]}}
        },
        {"Name": "D", "InputType": "Map"},
        {"Name": "E", "InputType": "Error"}
    ],
    "Next Payload Modifiers": ["Pop", "$0=$0+1"],
    "Checkpoint": true,
    "Debug": false,
    "Retry": 3,
    "Start": true,
    "Remove": false
})cfg";

const char *kFullYaml = R"cfg(Name: A
Next:
  - Name: B
    Type: Scalar
    Conditional: "$out == 'x'"
  - Name: C
    Type: Fan-in
    Values: [A-UnumIndex-*, "B-unumIndex-($0-1)"]
  - {Name: D, Type: Map}
  - Name: E
    Type: Error
Payload Modifiers: [Pop, $0=$0+1]
Checkpoint: true
Debug: false
Retry: 3
Start: true
)cfg";

TEST(DecodeTest, FullJsonConfig) {
  FunctionConfig c = decodeOk(kFullJson, Format::Json);
  EXPECT_EQ(c.name, "A");
  expectLoc(c.loc, 1, 1);
  expectLoc(c.nameLoc, 2, 13);
  EXPECT_TRUE(c.nextIsList);
  ASSERT_EQ(c.next.size(), 4u);
  const Edge &b = c.next[0];
  EXPECT_EQ(b.target, "B");
  EXPECT_EQ(b.kind, EdgeKind::Scalar);
  ASSERT_TRUE(b.conditional);
  EXPECT_EQ(b.conditional->text, "$out == 'x'");
  expectLoc(b.loc, 4, 9);
  expectLoc(b.targetLoc, 5, 21);
  expectLoc(b.conditionalLoc, 7, 29);
  const Edge &fanIn = c.next[1];
  EXPECT_EQ(fanIn.kind, EdgeKind::FanIn);
  ASSERT_EQ(fanIn.values.size(), 2u);
  EXPECT_EQ(fanIn.values[0].text, "A-unumIndex-*");
  EXPECT_EQ(fanIn.values[1].text, "B-unumIndex-($0-1)");
  ASSERT_EQ(fanIn.valueLocs.size(), 2u);
  expectLoc(fanIn.valueLocs[0], 11, 50);
  expectLoc(fanIn.valueLocs[1], 11, 67);
  EXPECT_FALSE(fanIn.conditional);
  EXPECT_EQ(c.next[2].kind, EdgeKind::Map);
  EXPECT_EQ(c.next[3].kind, EdgeKind::Error);
  ASSERT_EQ(c.modifiers.size(), 2u);
  EXPECT_EQ(c.modifiers[0].kind, Modifier::Kind::Pop);
  EXPECT_EQ(c.modifiers[1].kind, Modifier::Kind::AssignIndex);
  ASSERT_EQ(c.modifierLocs.size(), 2u);
  expectLoc(c.modifierLocs[1], 16, 40);
  EXPECT_TRUE(c.checkpoint);
  EXPECT_EQ(c.debug, std::optional<bool>(false));
  EXPECT_EQ(c.retry, std::optional<int64_t>(3));
  EXPECT_TRUE(c.start);
}

TEST(DecodeTest, YamlSpellingDecodesToTheSameConfig) {
  FunctionConfig y = decodeOk(kFullYaml, Format::Yaml);
  expectSameConfig(y, decodeOk(kFullJson, Format::Json));
  expectLoc(y.nameLoc, 1, 7);
  expectLoc(y.next[0].conditionalLoc, 5, 19);
  expectLoc(y.next[1].valueLocs[0], 8, 14);
  expectLoc(y.next[1].valueLocs[1], 8, 30);
}

TEST(DecodeTest, Defaults) {
  FunctionConfig c = decodeOk(R"({"Name": "Solo"})", Format::Json);
  EXPECT_EQ(c.name, "Solo");
  EXPECT_TRUE(c.next.empty());
  EXPECT_FALSE(c.nextIsList);
  EXPECT_TRUE(c.modifiers.empty());
  EXPECT_FALSE(c.checkpoint);
  EXPECT_FALSE(c.start);
  EXPECT_FALSE(c.debug);
  EXPECT_FALSE(c.retry);
}

TEST(DecodeTest, NextShapes) {
  FunctionConfig object =
      decodeOk(R"({"Name": "A", "Next": {"Name": "B", "InputType": "Scalar"}})",
               Format::Json);
  EXPECT_FALSE(object.nextIsList);
  EXPECT_EQ(object.next.size(), 1u);

  // A one-element list is a one-branch fan-out, not the same as an object.
  FunctionConfig list = decodeOk(
      R"({"Name": "A", "Next": [{"Name": "B", "InputType": "Scalar"}]})",
      Format::Json);
  EXPECT_TRUE(list.nextIsList);
  EXPECT_EQ(list.next.size(), 1u);

  FunctionConfig empty = decodeOk(R"({"Name": "A", "Next": []})", Format::Json);
  EXPECT_FALSE(empty.nextIsList);
  EXPECT_TRUE(empty.next.empty());

  FunctionConfig yamlList =
      decodeOk("Name: A\nNext:\n  - Name: B\n    Type: Scalar\n", Format::Yaml);
  EXPECT_TRUE(yamlList.nextIsList);
}

TEST(DecodeTest, WhatIsWrittenReadsBack) {
  // A DataFlow key longer than a YAML implicit key (1024 characters), and
  // YAML numbers in spellings JSON lacks: each format reads back what
  // either writes.
  std::string key(1500, 'k');
  FunctionConfig c = decodeOk("Name: P\nBuiltin: Pass\nDataFlow:\n  Result: "
                              "{? \"" +
                                  key + "\" : [02, .5, 5., +7, 0x10]}\n",
                              Format::Yaml);
  for (Format f : {Format::Json, Format::Yaml}) {
    std::string text = writeConfig(c, f);
    FunctionConfig back = decodeOk(text, f);
    ASSERT_TRUE(back.dataFlow) << text;
    EXPECT_EQ(writeJsonValue(*back.dataFlow),
              "{\"Result\": {\"" + key + "\": [2, 0.5, 5.0, 7, 16]}}");
  }
}

TEST(DecodeTest, WaitSecondsIsBoundedLikeTheCompiler) {
  // Seconds past a year (the runtime's longest wait, which unumc checks
  // too) is refused where it is written, not by an abort at run time.
  for (const char *seconds : {"99999999999999999999", "31536001", "-1"}) {
    DiagnosticSink diags("t");
    std::string text = std::string(R"({"Name": "W", "Builtin": "Wait", )") +
                       R"("DataFlow": {"Seconds": )" + seconds + "}}";
    EXPECT_FALSE(decodeText(text, Format::Json, diags)) << seconds;
    EXPECT_NE(allMessages(diags).find("'Seconds'"), std::string::npos)
        << allMessages(diags);
  }
  EXPECT_TRUE(decodeOk(R"({"Name": "W", "Builtin": "Wait", )"
                       R"("DataFlow": {"Seconds": 31536000}})",
                       Format::Json)
                  .dataFlow);
}

TEST(DecodeTest, DuplicateEdgesAreAllowed) {
  FunctionConfig c = decodeOk(R"({"Name": "A", "Next": [
      {"Name": "B", "InputType": "Scalar"},
      {"Name": "B", "InputType": "Scalar"}]})",
                              Format::Json);
  ASSERT_EQ(c.next.size(), 2u);
  EXPECT_EQ(c.next[0].target, c.next[1].target);
}

TEST(DecodeTest, BothInfixAndOutputSpellingsAreAccepted) {
  FunctionConfig y = decodeOk("Name: A\n"
                              "Next:\n"
                              "  Name: B\n"
                              "  Type: Fan-in\n"
                              "  Values: [\"A-unumIndex-$0\"]\n"
                              "  Conditional: \"$ret > 1\"\n",
                              Format::Yaml);
  EXPECT_EQ(y.next[0].values[0].text, "A-unumIndex-$0");
  EXPECT_EQ(y.next[0].conditional->text, "$out > 1");
  FunctionConfig j = decodeOk(
      R"({"Name": "A", "Next": {"Name": "B", "InputType": {"Fan-in":
          {"Values": ["A-UnumIndex-$0"]}}, "Conditional": "$out > 1"}})",
      Format::Json);
  expectSameConfig(y, j);
}

TEST(DecodeTest, RemoveIsIgnoredInJson) {
  FunctionConfig c =
      decodeOk(R"({"Name": "UnumMap0", "Remove": false})", Format::Json);
  EXPECT_EQ(c.name, "UnumMap0");
}

TEST(DecodeTest, StateInputFields) {
  // A Map entry saving the state's input, and the sink reading it.
  FunctionConfig entry =
      decodeOk(R"({"Name": "UnumMap0", "SaveInput": true, "Checkpoint": true})",
               Format::Json);
  EXPECT_TRUE(entry.saveInput);
  EXPECT_FALSE(entry.stateInput);
  FunctionConfig sink =
      decodeOk("Name: UnumSinkMap0\nStateInput: UnumMap0\nCheckpoint: true\n",
               Format::Yaml);
  EXPECT_FALSE(sink.saveInput);
  EXPECT_EQ(sink.stateInput, std::optional<std::string>("UnumMap0"));
  expectLoc(sink.stateInputLoc, 2, 13);
  EXPECT_FALSE(decodeOk(R"({"Name": "A"})", Format::Json).saveInput);
  EXPECT_FALSE(
      decodeOk(R"({"Name": "A", "SaveInput": false})", Format::Json).saveInput);

  // Written after DataFlow in both spellings, and read back.
  entry.dataFlow =
      decodeOk(R"({"Name": "X", "DataFlow": {"ItemsPath": "$.a"}})",
               Format::Json)
          .dataFlow;
  EXPECT_EQ(writeConfig(entry, Format::Json), R"({
    "Name": "UnumMap0",
    "Checkpoint": true,
    "DataFlow": {"ItemsPath": "$.a"},
    "SaveInput": true
}
)");
  EXPECT_EQ(writeConfig(sink, Format::Yaml), "Name: UnumSinkMap0\n"
                                             "Checkpoint: true\n"
                                             "StateInput: UnumMap0\n");
  for (Format f : {Format::Json, Format::Yaml}) {
    FunctionConfig e = decodeOk(writeConfig(entry, f), f);
    FunctionConfig k = decodeOk(writeConfig(sink, f), f);
    EXPECT_TRUE(e.saveInput);
    EXPECT_FALSE(e.stateInput);
    EXPECT_FALSE(k.saveInput);
    EXPECT_EQ(k.stateInput, sink.stateInput);
  }
}

TEST(DecodeTest, LoopField) {
  // A function in a loop: its names carry two scopes' visit counters.
  FunctionConfig json = decodeOk(
      R"({"Name": "Poll", "Loop": 2, "Checkpoint": true})", Format::Json);
  EXPECT_EQ(json.loop, std::optional<int64_t>(2));
  FunctionConfig yaml = decodeOk("Name: Poll\nLoop: 1\n", Format::Yaml);
  EXPECT_EQ(yaml.loop, std::optional<int64_t>(1));
  EXPECT_FALSE(decodeOk(R"({"Name": "A"})", Format::Json).loop);
  EXPECT_EQ(writeConfig(json, Format::Json), R"({
    "Name": "Poll",
    "Checkpoint": true,
    "Loop": 2
}
)");
  EXPECT_EQ(writeConfig(yaml, Format::Yaml), "Name: Poll\n"
                                             "Checkpoint: false\n"
                                             "Loop: 1\n");
  for (Format f : {Format::Json, Format::Yaml})
    EXPECT_EQ(decodeOk(writeConfig(json, f), f).loop, json.loop);
}

struct DecodeErrorCase {
  Format format;
  const char *text;
  unsigned line, col;
  const char *message;
};

std::string describe(const DecodeErrorCase &c) {
  return (c.format == Format::Json ? "JSON:\n" : "YAML:\n") +
         std::string(c.text);
}

class DecodeErrorTest : public ::testing::TestWithParam<DecodeErrorCase> {};

TEST_P(DecodeErrorTest, IsLocatedAndExplained) {
  const DecodeErrorCase &c = GetParam();
  DiagnosticSink diags("cfg");
  EXPECT_FALSE(decodeText(c.text, c.format, diags).has_value()) << describe(c);
  ASSERT_TRUE(diags.hasErrors()) << describe(c);
  Diagnostic d = firstError(diags);
  EXPECT_EQ(d.loc.line, c.line) << describe(c) << "\n" << d.str();
  EXPECT_EQ(d.loc.col, c.col) << describe(c) << "\n" << d.str();
  EXPECT_NE(d.message.find(c.message), std::string::npos) << describe(c) << "\n"
                                                          << d.str();
}

// Every JSON case is "{\n  \"Name\": \"A\",\n<line 3>\n}".
DecodeErrorCase json(const char *line3, unsigned col, const char *message) {
  // Test parameters outlive this call; a deque never moves its strings.
  static std::deque<std::string> texts;
  texts.push_back(std::string("{\n  \"Name\": \"A\",\n") + line3 + "\n}");
  return {Format::Json, texts.back().c_str(), 3, col, message};
}

INSTANTIATE_TEST_SUITE_P(
    Json, DecodeErrorTest,
    ::testing::Values(
        json(R"(  "Checkpoint": "yes")", 17,
             "'Checkpoint' must be a boolean, not a string"),
        json(R"(  "Start": 1)", 12, "'Start' must be a boolean, not a number"),
        json(R"(  "Debug": null)", 12, "'Debug' must be a boolean, not null"),
        json(R"(  "Retry": -1)", 12,
             "'Retry' must be a non-negative integer, not -1"),
        json(R"(  "Retry": 1.5)", 12,
             "'Retry' must be a non-negative integer, not 1.5"),
        json(R"(  "Retry": "3")", 12,
             "'Retry' must be an integer, not a string"),
        json(R"(  "Retry": 99999999999999999999)", 12, "'Retry' is too large"),
        json(R"(  "Loop": 0)", 11, "'Loop' must be a positive integer, not 0"),
        json(R"(  "Loop": true)", 11,
             "'Loop' must be an integer, not a boolean"),
        json(R"(  "Next": "B")", 11,
             "'Next' must be an object or a list, not a string; 'Next' naming "
             "a function is from an obsolete early config format"),
        json(R"(  "Next": ["B"])", 12,
             "a 'Next' entry must be an object, not a string"),
        json(R"(  "Next": {"Name": "B"})", 11,
             "'Next' entry has no 'InputType'"),
        json(R"(  "Next": {"InputType": "Scalar"})", 11,
             "'Next' entry has no 'Name'"),
        json(R"(  "Next": {"Name": "B", "InputType": "Fan-in"})", 38,
             "a Fan-in 'InputType' needs its values"),
        json(R"(  "Next": {"Name": "B", "InputType": "Tree"})", 38,
             "unknown 'InputType' \"Tree\"; expected \"Scalar\", \"Map\", "
             "\"Error\" or {\"Fan-in\""),
        json(R"(  "Next": {"Name": "B", "InputType": 3})", 38,
             "'InputType' must be a string or an object, not a number"),
        json(R"(  "Next": {"Name": "B", "InputType": {}})", 38,
             "empty 'InputType' object"),
        json(R"(  "Next": {"Name": "B", "InputType": {"Fan-in": {}}})", 49,
             "'Fan-in' has no 'Values'"),
        json(R"(  "Next": {"Name": "B", "InputType": {"Fan-in": []}})", 49,
             "'Fan-in' must be an object, not an array"),
        json(
            R"(  "Next": {"Name": "B", "InputType": {"Fan-in": {"Values": []}}})",
            60, "'Values' must name at least one instance"),
        json(
            R"(  "Next": {"Name": "B", "InputType": {"Fan-in": {"Values": "A"}}})",
            60, "'Values' must be an array, not a string"),
        json(
            R"(  "Next": {"Name": "B", "InputType": {"Fan-in": {"Values": [1]}}})",
            61, "a 'Values' entry must be a string, not a number"),
        json(
            R"(  "Next": {"Name": "B", "InputType": {"Fan-in": {"Values": ["A"], "Wait": true}}})",
            67, "'Wait' is from the obsolete 2021 config format"),
        json(
            R"(  "Next": {"Name": "B", "InputType": {"Fan-in": {"Values": ["A"], "X": 1}}})",
            67, "unknown key 'X' in 'Fan-in'"),
        json(
            R"(  "Next": {"Name": "B", "InputType": {"Fan-in": {"Values": ["A"]}, "X": 1}})",
            68, "unknown key 'X' in 'InputType'"),
        json(
            R"(  "Next": {"Name": "B", "InputType": {"Fan-in": {"Values": ["A-unumIndex-$x"]}}})",
            74, "unknown variable '$x'"),
        json(
            R"(  "Next": {"Name": "B", "InputType": "Scalar", "Conditional": "$0 < $x"})",
            69,
            "unknown variable '$x'; expected $out, $ret, $ctx, $0..$31 or "
            "$size"),
        json(
            R"(  "Next": {"Name": "B", "InputType": "Scalar", "Conditional": "$0 <"})",
            68, "expected an expression"),
        json(
            R"(  "Next": {"Name": "B", "InputType": "Scalar", "Conditional": 1})",
            63, "'Conditional' must be a string, not a number"),
        json(R"(  "Next Payload Modifiers": ["Pop", "$0 = $out"])", 43,
             "only arithmetic on $0..$31, $size and integers is allowed in a "
             "payload modifier"),
        json(R"(  "Next Payload Modifiers": "Pop")", 29,
             "'Next Payload Modifiers' must be an array, not a string"),
        json(
            R"(  "Next Payload Modifiers": [true])", 30,
            "a 'Next Payload Modifiers' entry must be a string, not a boolean"),
        json(R"(  "Payload Modifiers": ["Pop"])", 3,
             "unknown key 'Payload Modifiers' in a config; 'Payload Modifiers' "
             "belongs to the YAML format, JSON uses 'Next Payload Modifiers'"),
        json(R"(  "checkpoint": true)", 3,
             "unknown key 'checkpoint' in a config; did you mean "
             "'Checkpoint'?"),
        json(R"(  "Colour": "red")", 3, "unknown key 'Colour' in a config"),
        json(R"(  "SaveInput": 1)", 16,
             "'SaveInput' must be a boolean, not a number"),
        json(R"(  "StateInput": ["UnumMap0"])", 17,
             "'StateInput' must be a string, not an array"),
        json(R"(  "StateInput": "Unum Map0")", 22,
             "unexpected ' ' in function name 'Unum Map0'"),
        json(R"(  "stateinput": "UnumMap0")", 3,
             "unknown key 'stateinput' in a config; did you mean "
             "'StateInput'?"),
        json(R"(  "Next": {"Name": "B", "Type": "Scalar"})", 25,
             "unknown key 'Type' in a 'Next' entry; 'Type' belongs to the YAML "
             "format, JSON uses 'InputType'"),
        json(
            R"(  "Next": {"Name": "B", "InputType": "Scalar", "Values": ["A"]})",
            48, "'Values' belongs to the YAML format"),
        json(R"(  "Next": {"Name": "B C", "InputType": "Scalar"})", 22,
             "unexpected ' ' in function name 'B C'"),
        json(R"(  "Next": {"Name": "B-unumIndex-1", "InputType": "Scalar"})",
             22, "must not contain '-unumIndex-'"),
        json(R"(  "Next": {"Name": "", "InputType": "Scalar"})", 20,
             "'Name' must not be empty"),
        json(R"(  "Next": {"Name": 7, "InputType": "Scalar"})", 20,
             "'Name' must be a string, not a number")));

INSTANTIATE_TEST_SUITE_P(
    Yaml, DecodeErrorTest,
    ::testing::Values(
        DecodeErrorCase{
            Format::Yaml, "Name: A\nNext:\n  Name: B\n  InputType: Scalar\n", 4,
            3,
            "unknown key 'InputType' in a 'Next' entry; 'InputType' "
            "belongs to the JSON format, YAML uses 'Type'"},
        DecodeErrorCase{Format::Yaml,
                        "Name: A\nNext Payload Modifiers: [Pop]\n", 2, 1,
                        "'Next Payload Modifiers' belongs to the JSON format, "
                        "YAML uses 'Payload Modifiers'"},
        DecodeErrorCase{Format::Yaml, "Name: A\nRemove: false\n", 2, 1,
                        "'Remove' belongs to the JSON format"},
        DecodeErrorCase{
            Format::Yaml,
            "Name: A\nNext:\n  Name: B\n  Type: Scalar\n  Values: [A]\n", 5, 3,
            "'Values' is only allowed with 'Type: Fan-in'"},
        DecodeErrorCase{Format::Yaml,
                        "Name: A\nNext:\n  Name: B\n  Type: Fan-in\n", 3, 3,
                        "a 'Type: Fan-in' entry needs 'Values'"},
        DecodeErrorCase{Format::Yaml, "Name: A\nNext:\n  Name: B\n", 3, 3,
                        "'Next' entry has no 'Type'"},
        DecodeErrorCase{
            Format::Yaml, "Name: A\nNext:\n  Name: B\n  Type: Tree\n", 4, 9,
            "unknown 'Type' 'Tree'; expected Scalar, Map, Fan-in or "
            "Error"},
        DecodeErrorCase{
            Format::Yaml,
            "Name: A\nNext:\n  Name: B\n  Type: Fan-in\n  Values: []\n", 5, 11,
            "'Values' must name at least one instance"},
        DecodeErrorCase{Format::Yaml, "Name: A\nCheckpoint: yes\n", 2, 13,
                        "'Checkpoint' must be a boolean, not a string"},
        DecodeErrorCase{Format::Yaml, "Name: A\nRetry: 0x10\nStart: 2\n", 3, 8,
                        "'Start' must be a boolean, not a number"},
        DecodeErrorCase{Format::Yaml,
                        "Name: A\nNext:\n  Name: B\n  Type: Fan-in\n"
                        "  Values: [\"A-UnumIndex-(\"]\n",
                        5, 26, "expected ')'"},
        DecodeErrorCase{Format::Yaml,
                        "Name: A\nNext:\n  Name: B\n  Type: Scalar\n"
                        "  Conditional: $0 <\n",
                        5, 20, "expected an expression"},
        DecodeErrorCase{Format::Yaml,
                        "Name: A\nPayload Modifiers:\n  - Pop\n  - $1 == 2\n",
                        4, 8, "expected '=' after '$1'"},
        DecodeErrorCase{Format::Yaml, "- Name: A\n", 1, 1,
                        "a config must be an object, not an array"},
        DecodeErrorCase{Format::Yaml, "NextInput: Scalar\nName: A\n", 1, 1,
                        "'NextInput' is from the obsolete 2021 config format; "
                        "each 'Next' entry now has its own 'Type'"}));

TEST(DecodeTest, BadYamlTypeDoesNotCascadeToValues) {
  DiagnosticSink diags;
  EXPECT_FALSE(decodeText("Name: A\nNext:\n  Name: B\n  Type: Fanin\n"
                          "  Values: [A]\n",
                          Format::Yaml, diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u) << allMessages(diags);
  EXPECT_NE(diags.diagnostics()[0].message.find("unknown 'Type' 'Fanin'"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Obsolete formats
//===----------------------------------------------------------------------===//

/// Decodes `text` (expected to fail) and returns its error messages.
std::vector<Diagnostic> legacyErrors(std::string_view text) {
  DiagnosticSink diags("legacy.json");
  EXPECT_FALSE(decodeText(text, Format::Json, diags).has_value()) << text;
  std::vector<Diagnostic> errors;
  for (const Diagnostic &d : diags.diagnostics())
    if (d.severity == Diagnostic::Severity::Error)
      errors.push_back(d);
  return errors;
}

bool mentions(const std::vector<Diagnostic> &errors, const std::string &text) {
  return std::any_of(errors.begin(), errors.end(), [&](const Diagnostic &d) {
    return d.message.find(text) != std::string::npos;
  });
}

TEST(LegacyTest, OldNextInputFormat) {
  // legacy/hello-bye-old/Hello: the old format's edges have no InputType;
  // only NextInput is reported, not each edge.
  auto errors = legacyErrors(R"({
	"Name": "Hello",
	"Next": {
		"Name": "World"
	},
	"NextInput": "Scalar",
	"Checkpoint": true
})");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].str(),
            "legacy.json:6:2: error: 'NextInput' is from the obsolete 2021 "
            "config format; each 'Next' entry now has its own 'InputType'");
}

TEST(LegacyTest, FanOutModifiers) {
  auto errors = legacyErrors(
      R"({"Name": "UnumMap", "Next": {"Name": "Mapper", "InputType": "Map"},
          "Fan-out Modifiers": ["Pop"]})");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("'Fan-out Modifiers' is from the obsolete "
                                   "2021 config format; it is now 'Next "
                                   "Payload Modifiers'"),
            std::string::npos);
  expectLoc(errors[0].loc, 2, 11);
}

TEST(LegacyTest, EarlyWaitForFormat) {
  auto errors = legacyErrors(
      R"({"Next": "Publish", "WaitFor": "Thumbnail", "NextInput": "Fan-in"})");
  EXPECT_TRUE(mentions(errors, "'WaitFor' is from an obsolete early config"));
  EXPECT_TRUE(mentions(errors, "'NextInput'"));
  EXPECT_TRUE(mentions(errors, "obsolete early config format"));
  EXPECT_TRUE(mentions(errors, "config has no 'Name'"));
  auto list = legacyErrors(R"({"Next": ["FaceDetection", "Thumbnail"]})");
  EXPECT_TRUE(mentions(list, "a list of function names is from an obsolete"));
}

TEST(LegacyTest, V0Format) {
  auto errors = legacyErrors(R"({
	"type": "oneToOne",
	"next": "arn:aws:lambda:us-west-1:1:function:f2",
	"invokeeReturnStore": {}
})");
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].message, "'type' is from the obsolete v0 config format, "
                               "which cannot be converted");
  expectLoc(errors[0].loc, 2, 2);
  EXPECT_NE(errors[1].message.find("'next'"), std::string::npos);
  expectLoc(errors[1].loc, 3, 2);
  EXPECT_NE(errors[2].message.find("'invokeeReturnStore'"), std::string::npos);
  EXPECT_NE(errors[3].message.find("config has no 'Name'"), std::string::npos);
  expectLoc(errors[3].loc, 1, 1);
}

TEST(LegacyTest, EmptyConfigHasNoName) {
  auto errors = legacyErrors("{}");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].str(), "legacy.json:1:1: error: config has no 'Name' (an "
                             "empty '{}' config is from an obsolete format)");
}

TEST(LegacyTest, EveryConformanceLegacyFileIsRejectedNamingTheField) {
  std::string root = conformanceDir();
  if (root.empty())
    GTEST_SKIP() << "conformance data not found (set UNUM_SHARED_DIR)";
  const char *legacyKeys[] = {"NextInput", "Fan-out Modifiers",
                              "WaitFor",   "type",
                              "next",      "invokeeReturnStore"};
  unsigned checked = 0, rejected = 0;
  for (const auto &entry : fs::recursive_directory_iterator(root + "/legacy")) {
    if (entry.path().filename() != "unum_config.json")
      continue;
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    DiagnosticSink diags(entry.path().string());
    std::vector<Node> docs = parseText(text.str(), Format::Json, diags);
    ASSERT_EQ(docs.size(), 1u);
    bool obsolete = !docs[0].find("Name");
    // Each obsolete key present is reported at the key, by name.
    std::optional<FunctionConfig> config =
        decodeConfig(docs[0], Format::Json, diags);
    for (const Node::Member &member : docs[0].members) {
      if (std::find(std::begin(legacyKeys), std::end(legacyKeys), member.key) ==
          std::end(legacyKeys))
        continue;
      obsolete = true;
      bool found = false;
      for (const Diagnostic &d : diags.diagnostics())
        found |= d.loc.line == member.keyLoc.line &&
                 d.loc.col == member.keyLoc.col &&
                 d.message.find("'" + member.key + "'") != std::string::npos;
      EXPECT_TRUE(found) << member.key << "\n" << allMessages(diags);
    }
    if (!docs[0].find("Name")) {
      EXPECT_TRUE(mentions(diags.diagnostics(), "config has no 'Name'"))
          << allMessages(diags);
    }
    // Terminal functions of the old format ({"Name", "Checkpoint"}) are
    // valid today; everything else is rejected.
    EXPECT_EQ(config.has_value(), !obsolete) << allMessages(diags);
    rejected += obsolete;
    ++checked;
  }
  EXPECT_GE(rejected, 25u);
  EXPECT_GE(checked, 30u);
}

TEST(DiagnosticFormatTest, FileLineColumn) {
  DiagnosticSink diags("app/A/unum_config.json");
  decodeText("{\"Name\": \"A\",\n \"Checkpoint\": 1}", Format::Json, diags);
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].str(),
            "app/A/unum_config.json:2:16: error: 'Checkpoint' must be a "
            "boolean, not a number");
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

Expression conditional(const char *text) {
  ParseError error;
  return *parseConditional(text, error);
}
NamePattern pattern(const char *text) {
  ParseError error;
  return *parseNamePattern(text, error);
}
Modifier modifier(const char *text) {
  ParseError error;
  return *parseModifier(text, error);
}

FunctionConfig smallConfig() {
  FunctionConfig c;
  c.name = "A";
  Edge b;
  b.target = "B";
  b.kind = EdgeKind::Scalar;
  b.conditional = conditional("$ret == 'x'");
  Edge fanIn;
  fanIn.target = "C";
  fanIn.kind = EdgeKind::FanIn;
  fanIn.values = {pattern("A-unumIndex-*"), pattern("B-UnumIndex-($0-1)")};
  c.next = {b, fanIn};
  c.nextIsList = true;
  c.modifiers = {modifier("Pop")};
  c.checkpoint = true;
  c.debug = false;
  c.retry = 2;
  c.start = true;
  return c;
}

TEST(WriteTest, JsonExactText) {
  EXPECT_EQ(writeConfig(smallConfig(), Format::Json), R"cfg({
    "Name": "A",
    "Next": [
        {
            "Name": "B",
            "InputType": "Scalar",
            "Conditional": "$ret == 'x'"
        },
        {
            "Name": "C",
            "InputType": {
                "Fan-in": {
                    "Values": [
                        "A-unumIndex-*",
                        "B-unumIndex-($0-1)"
                    ]
                }
            }
        }
    ],
    "Next Payload Modifiers": [
        "Pop"
    ],
    "Checkpoint": true,
    "Debug": false,
    "Retry": 2,
    "Start": true
}
)cfg");
}

TEST(WriteTest, YamlExactText) {
  EXPECT_EQ(writeConfig(smallConfig(), Format::Yaml), R"cfg(Name: A
Next:
  - Name: B
    Type: Scalar
    Conditional: "$out == 'x'"
  - Name: C
    Type: Fan-in
    Values:
      - "A-UnumIndex-*"
      - "B-UnumIndex-($0-1)"
Payload Modifiers:
  - "Pop"
Checkpoint: true
Debug: false
Retry: 2
Start: true
)cfg");
}

TEST(WriteTest, SingleEdgeAndOptionalKeys) {
  FunctionConfig c;
  c.name = "A";
  Edge e;
  e.target = "B";
  e.kind = EdgeKind::Map;
  c.next = {e};
  EXPECT_EQ(writeConfig(c, Format::Json), R"({
    "Name": "A",
    "Next": {
        "Name": "B",
        "InputType": "Map"
    },
    "Checkpoint": false
}
)");
  EXPECT_EQ(writeConfig(c, Format::Yaml), "Name: A\n"
                                          "Next:\n"
                                          "  Name: B\n"
                                          "  Type: Map\n"
                                          "Checkpoint: false\n");
  // A one-element list stays a list.
  c.nextIsList = true;
  EXPECT_NE(writeConfig(c, Format::Json).find("\"Next\": [\n        {"),
            std::string::npos);
  EXPECT_NE(writeConfig(c, Format::Yaml).find("Next:\n  - Name: B\n"),
            std::string::npos);
  // No edges: no Next at all.
  c.next.clear();
  EXPECT_EQ(writeConfig(c, Format::Json),
            "{\n    \"Name\": \"A\",\n    \"Checkpoint\": false\n}\n");
  EXPECT_EQ(writeConfig(c, Format::Yaml), "Name: A\nCheckpoint: false\n");
}

TEST(WriteTest, EscapesAndQuotesStrings) {
  FunctionConfig c;
  c.name = "true"; // a valid function name that YAML would read as a boolean
  Edge e;
  e.target = "123";
  e.kind = EdgeKind::Scalar;
  e.conditional = conditional("$ret == \"a\\\"b\\\\c\" or $out.k == 'é\\n'");
  c.next = {e};
  std::string json = writeConfig(c, Format::Json);
  EXPECT_NE(
      json.find(
          R"("Conditional": "$ret == \"a\\\"b\\\\c\" or $ret.k == 'é\\n'")"),
      std::string::npos)
      << json;
  std::string yaml = writeConfig(c, Format::Yaml);
  EXPECT_NE(yaml.find("Name: \"true\"\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("Name: \"123\"\n"), std::string::npos) << yaml;
  for (Format format : {Format::Json, Format::Yaml}) {
    FunctionConfig back = decodeOk(writeConfig(c, format), format);
    expectSameConfig(back, c, writeConfig(c, format));
  }
}

TEST(WriteTest, ControlCharactersSurviveTheRoundTrip) {
  FunctionConfig c;
  c.name = "A";
  Edge e;
  e.target = "B";
  e.kind = EdgeKind::Scalar;
  e.conditional = conditional("$out == '\t\x01\x7f\xC2\x85\xE2\x80\xA8'");
  c.next = {e};
  std::string json = writeConfig(c, Format::Json);
  EXPECT_NE(json.find("\\t\\u0001"), std::string::npos) << json;
  for (Format format : {Format::Json, Format::Yaml}) {
    std::string text = writeConfig(c, format);
    expectSameConfig(decodeOk(text, format), c, text);
  }
}

TEST(WriteTest, ConfigFileNames) {
  EXPECT_STREQ(configFileName(Format::Json), "unum_config.json");
  EXPECT_STREQ(configFileName(Format::Yaml), "unum_config.yaml");
}

//===----------------------------------------------------------------------===//
// Conformance data
//===----------------------------------------------------------------------===//

/// JSON equality as the conformance README defines it: key order ignored,
/// array order significant, numbers by literal.
bool sameJson(const Node &a, const Node &b) {
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Node::Kind::Null:
    return true;
  case Node::Kind::Bool:
    return a.boolValue == b.boolValue;
  case Node::Kind::Number:
  case Node::Kind::String:
    return a.text == b.text;
  case Node::Kind::Array:
    if (a.items.size() != b.items.size())
      return false;
    for (size_t i = 0; i < a.items.size(); ++i)
      if (!sameJson(a.items[i], b.items[i]))
        return false;
    return true;
  case Node::Kind::Object:
    if (a.members.size() != b.members.size())
      return false;
    for (const Node::Member &member : a.members) {
      const Node *other = b.find(member.key);
      if (!other || !sameJson(member.value, *other))
        return false;
    }
    return true;
  }
  return false;
}

std::vector<fs::path> conformanceConfigs(const std::string &root) {
  std::vector<fs::path> paths;
  for (const char *kind : {"compile", "handwritten", "frontend-only"}) {
    for (const auto &entry :
         fs::recursive_directory_iterator(fs::path(root) / kind)) {
      if (entry.path().filename() == "unum_config.json")
        paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(ConformanceTest, WritersRoundTripEveryConfig) {
  std::string root = conformanceDir();
  if (root.empty())
    GTEST_SKIP() << "conformance data not found (set UNUM_SHARED_DIR)";
  std::vector<fs::path> paths = conformanceConfigs(root);
  ASSERT_GE(paths.size(), 90u);
  for (const fs::path &path : paths) {
    SCOPED_TRACE(path.string());
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    DiagnosticSink diags(path.string());
    std::vector<Node> docs = parseText(buffer.str(), Format::Json, diags);
    ASSERT_EQ(docs.size(), 1u);
    std::optional<FunctionConfig> config =
        decodeConfig(docs[0], Format::Json, diags);
    ASSERT_TRUE(config) << allMessages(diags);
    // The folder is named after the function.
    EXPECT_EQ(config->name, path.parent_path().filename().string());

    for (Format format : {Format::Json, Format::Yaml}) {
      std::string text = writeConfig(*config, format);
      DiagnosticSink again("written");
      std::optional<FunctionConfig> back = decodeText(text, format, again);
      ASSERT_TRUE(back) << allMessages(again) << text;
      expectSameConfig(*back, *config, text);
      // Writing is a fixed point.
      EXPECT_EQ(writeConfig(*back, format), text);
    }

    // The JSON writer reproduces the file as a JSON value, minus the
    // meaningless "Remove".
    Node original = docs[0];
    original.members.erase(
        std::remove_if(original.members.begin(), original.members.end(),
                       [](const Node::Member &m) { return m.key == "Remove"; }),
        original.members.end());
    DiagnosticSink writtenDiags("written");
    std::vector<Node> written = parseText(writeConfig(*config, Format::Json),
                                          Format::Json, writtenDiags);
    ASSERT_EQ(written.size(), 1u);
    EXPECT_TRUE(sameJson(original, written[0]))
        << writeConfig(*config, Format::Json);
  }
}

TEST(ConformanceTest, ExCameraFanInsAgreeUpToShift) {
  std::string root = conformanceDir();
  if (root.empty())
    GTEST_SKIP() << "conformance data not found (set UNUM_SHARED_DIR)";
  std::vector<SourceFile> files;
  DiagnosticSink diags;
  ASSERT_TRUE(readConfigSources(root + "/handwritten/excamera", Format::Json,
                                files, diags))
      << allMessages(diags);
  std::vector<FunctionConfig> configs;
  std::vector<Diagnostic> diagnostics;
  ASSERT_TRUE(loadConfigs(files, Format::Json, configs, diagnostics));
  ASSERT_EQ(configs.size(), 5u);
  // Fan-ins into the same target from the same functions (issued by
  // different tails, at different indices) name the same instances.
  std::map<std::string, std::vector<std::vector<NamePattern>>> groups;
  for (const FunctionConfig &config : configs) {
    for (const Edge &edge : config.next) {
      if (edge.kind != EdgeKind::FanIn)
        continue;
      std::string key = edge.target + ":";
      for (const NamePattern &value : edge.values)
        key += value.function + ",";
      groups[key].push_back(edge.values);
    }
  }
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups["reencode:vpxenc,xcdec,"].size(), 2u);
  EXPECT_EQ(groups["rebase:vpxenc,xcdec,"].size(), 2u);
  EXPECT_EQ(groups["rebase:rebase,reencode,"].size(), 2u);
  for (const auto &[key, lists] : groups)
    for (const auto &a : lists)
      for (const auto &b : lists)
        EXPECT_TRUE(sameInstancesUpToShift(a, b)) << key;
  // The first rebase waits for other functions than the later ones.
  EXPECT_FALSE(sameInstancesUpToShift(groups["rebase:vpxenc,xcdec,"][0],
                                      groups["rebase:rebase,reencode,"][0]));
}

} // namespace
