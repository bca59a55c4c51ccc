//===- JsonPathTest.cpp - The JSONPath and intrinsic call grammar ---------===//
//
// The parser that the ASL importer checks with and the runtime evaluates:
// what each form parses to, where errors point, the reference-path
// restrictions, and the limits.
//
//===----------------------------------------------------------------------===//

#include "unum/Config/JsonPath.h"

#include <gtest/gtest.h>

using namespace unum::config;

namespace {

const PathRules kFull{false, true};
const PathRules kReference{true, false};

JsonPath parseOk(const std::string &text, PathRules rules = kFull) {
  ParseError err;
  auto p = parseJsonPath(text, rules, err);
  EXPECT_TRUE(p.has_value())
      << text << ": " << err.message << " at " << err.offset;
  return p ? *p : JsonPath();
}

/// `text` fails at `offset` with a message containing `what`.
void expectError(const std::string &text, unsigned offset,
                 const std::string &what, PathRules rules = kFull) {
  ParseError err;
  auto p = parseJsonPath(text, rules, err);
  ASSERT_FALSE(p.has_value()) << text;
  EXPECT_EQ(err.offset, offset) << text << ": " << err.message;
  EXPECT_NE(err.message.find(what), std::string::npos)
      << text << ": " << err.message;
}

} // namespace

TEST(JsonPath, ReferencePaths) {
  JsonPath p = parseOk("$.a['b c'][2].d", kReference);
  ASSERT_EQ(p.segments.size(), 4u);
  EXPECT_EQ(p.segments[0].selectors[0].name, "a");
  EXPECT_EQ(p.segments[1].selectors[0].name, "b c");
  EXPECT_EQ(p.segments[2].selectors[0].kind, Selector::Kind::Index);
  EXPECT_EQ(p.segments[2].selectors[0].index, 2);
  EXPECT_TRUE(p.isReference());
  EXPECT_TRUE(p.isDefinite());
  EXPECT_TRUE(parseOk("$", kReference).segments.empty());
  // Quoted names keep escaped quotes and any character.
  EXPECT_EQ(parseOk(R"($["it\"s"]['a.b[c]'])").segments[1].selectors[0].name,
            "a.b[c]");
  EXPECT_EQ(parseOk(R"($["it\"s"])").segments[0].selectors[0].name, "it\"s");
}

TEST(JsonPath, FullJsonPath) {
  JsonPath p = parseOk("$.items[*].price");
  EXPECT_EQ(p.segments[1].selectors[0].kind, Selector::Kind::Wildcard);
  EXPECT_FALSE(p.isDefinite());
  p = parseOk("$.a[1:-1:2]");
  const Selector &s = p.segments[1].selectors[0];
  EXPECT_EQ(s.kind, Selector::Kind::Slice);
  EXPECT_EQ(*s.start, 1);
  EXPECT_EQ(*s.end, -1);
  EXPECT_EQ(s.step, 2);
  p = parseOk("$.a[:2]");
  EXPECT_FALSE(p.segments[1].selectors[0].start.has_value());
  p = parseOk("$..name");
  EXPECT_TRUE(p.segments[0].descendant);
  p = parseOk("$..[0]");
  EXPECT_TRUE(p.segments[0].descendant);
  p = parseOk("$.a[0,2,'x']");
  EXPECT_EQ(p.segments[1].selectors.size(), 3u);
  p = parseOk("$.a.*");
  EXPECT_EQ(p.segments[1].selectors[0].kind, Selector::Kind::Wildcard);
  p = parseOk("$.a[-1]");
  EXPECT_TRUE(p.isDefinite());
  EXPECT_FALSE(p.isReference());
  p = parseOk("$.books[?(@.price < 10 && !(@.tag == 'old') || @.isbn)]");
  const Filter &f = *p.segments[1].selectors[0].filter;
  EXPECT_EQ(f.kind, Filter::Kind::Or);
  EXPECT_EQ(f.lhs->kind, Filter::Kind::And);
  EXPECT_EQ(f.rhs->kind, Filter::Kind::Path);
  EXPECT_EQ(f.lhs->rhs->kind, Filter::Kind::Not);
  p = parseOk("$.a[?(@.n >= $.min)]");
  EXPECT_EQ(p.segments[1].selectors[0].filter->rhs->path.root,
            JsonPath::Root::Input);
  JsonPath c = parseOk("$$.Map.Item.Value");
  EXPECT_EQ(c.root, JsonPath::Root::Context);
}

TEST(JsonPath, ErrorsPointIntoTheText) {
  expectError("a.b", 0, "must start with '$'");
  expectError("$.", 2, "expected a field name");
  expectError("$.a[", 3, "unbalanced '['");
  expectError("$.a[1", 3, "unbalanced '['");
  expectError("$.a['x", 4, "unterminated quoted name");
  expectError("$.a[1:2:0]", 8, "step must not be 0");
  expectError("$.a[?(@.x =~ /a/)]", 10, "regular expressions");
  expectError("$.a[?(@.x > )]", 12, "expected '@'");
  expectError("$.a[?(@.x > 1]", 13, "expected ')'");
  expectError("$.a[(@.length-1)]", 4, "script expressions");
  expectError("$.a b", 3, "unexpected ' '");
  expectError("@.a", 0, "only allowed in a filter");
  expectError("$$x", 2, "expected '.' or '[' after '$$'");
  expectError("$$.Execution.Id", 0, "context path ('$$') is not allowed",
              kReference);
}

TEST(JsonPath, ReferencePathRestrictions) {
  expectError("$..a", 1,
              "'..' (recursive descent) is not allowed in a "
              "reference path",
              kReference);
  expectError("$.a[*]", 4, "'*' is not allowed in a reference path",
              kReference);
  expectError("$.a.*", 4, "'*' is not allowed", kReference);
  expectError("$.a[1:2]", 4, "slice is not allowed", kReference);
  expectError("$.a[?(@.x)]", 4, "filter is not allowed", kReference);
  expectError("$.a[-1]", 4, "negative index", kReference);
  expectError("$.a[0,1]", 5, "union", kReference);
}

TEST(JsonPath, LimitsAreErrors) {
  std::string deep = "$.a[?(";
  for (unsigned k = 0; k < 100; ++k)
    deep += "(";
  deep += "@.x";
  for (unsigned k = 0; k < 100; ++k)
    deep += ")";
  deep += ")]";
  ParseError err;
  EXPECT_FALSE(parseJsonPath(deep, kFull, err));
  EXPECT_NE(err.message.find("nested deeper than"), std::string::npos)
      << err.message;
  std::string nots = "$.a[?(" + std::string(10000, '!') + "@.x)]";
  EXPECT_FALSE(parseJsonPath(nots, kFull, err));
  std::string longPath = "$" + std::string(kMaxPathText, 'a');
  EXPECT_FALSE(parseJsonPath(longPath, kFull, err));
  EXPECT_NE(err.message.find("longer than"), std::string::npos);
}

TEST(JsonPath, IntrinsicCalls) {
  ParseError err;
  CallPtr call = parseIntrinsicCall(
      "States.Format('{} \\{x\\} {}', $.a[0], States.ArrayLength($..b))", err);
  ASSERT_TRUE(call) << err.message;
  EXPECT_EQ(call->sig->fn, Intrinsic::Format);
  ASSERT_EQ(call->args.size(), 3u);
  EXPECT_EQ(call->args[0].value.text, "{} {x} {}");
  EXPECT_EQ(call->args[0].value.holes, (std::vector<size_t>{0, 7}));
  EXPECT_EQ(call->args[1].kind, CallArg::Kind::Path);
  EXPECT_EQ(call->args[1].path.text, "$.a[0]");
  EXPECT_EQ(call->args[2].kind, CallArg::Kind::Call);
  EXPECT_TRUE(call->args[2].call->args[0].path.segments[0].descendant);

  EXPECT_FALSE(parseIntrinsicCall("States.Array($.a[)", err));
  EXPECT_FALSE(parseIntrinsicCall("States.ArrayLength()", err));
  EXPECT_EQ(err.offset, 0u);
  EXPECT_NE(err.message.find("takes 1 argument (array), not 0"),
            std::string::npos)
      << err.message;

  auto either = parsePathOrCall("States.UUID()", kFull, err);
  ASSERT_TRUE(either);
  EXPECT_TRUE(either->call);
  either = parsePathOrCall("$.x", kFull, err);
  ASSERT_TRUE(either);
  EXPECT_TRUE(either->path);
}
