//===- PathsTest.cpp - JSONPath evaluated on runtime values ---------------===//

#include "Paths.h"
#include "TestUtil.h"

#include "unum/Runtime/App.h"
#include "unum/Runtime/Runtime.h"

#include "gtest/gtest.h"

using namespace unum::runtime;

namespace {

Value json(const std::string &text) {
  auto v = parseJsonValue(text);
  EXPECT_TRUE(v.isOk()) << text << ": " << v.getStatus().message();
  return v.isOk() ? *v : Value();
}

const char *kStore = R"({
  "store": {
    "book": [
      {"category": "reference", "author": "Nigel Rees", "price": 8.95},
      {"category": "fiction", "author": "Evelyn Waugh", "price": 12.99},
      {"category": "fiction", "author": "Herman Melville", "price": 8.99,
       "isbn": "0-553-21311-3"},
      {"category": "fiction", "author": "J. R. R. Tolkien", "price": 22.99,
       "isbn": "0-395-19395-8"}
    ],
    "bicycle": {"color": "red", "price": 19.95}
  },
  "min": 10,
  "odd key": [1, 2, 3, 4, 5]
})";

/// `path` selects `expected` (JSON) from `input`.
void expectSelect(const std::string &path, const std::string &expected,
                  const std::string &input = kStore) {
  auto parsed = paths::parse(path, {false, true});
  ASSERT_TRUE(parsed.isOk()) << parsed.getStatus().message();
  Value in = json(input), context = json(R"({"State": {"Name": "S"}})");
  auto r = paths::select(*parsed, {in, &context});
  ASSERT_TRUE(r.isOk()) << path << ": " << r.getStatus().message();
  EXPECT_EQ(*r, json(expected)) << path << " gave " << toJson(*r);
}

} // namespace

TEST(Paths, Definite) {
  expectSelect("$.store.bicycle.color", R"("red")");
  expectSelect("$['odd key'][1]", "2");
  expectSelect("$['odd key'][-1]", "5");
  expectSelect("$$.State.Name", R"("S")");
  auto parsed = paths::parse("$.nope", {true, false});
  Value in = json(kStore);
  auto r = paths::select(*parsed, {in});
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.getStatus().message(), "path '$.nope' selects nothing");
}

TEST(Paths, WildcardsSlicesUnions) {
  expectSelect("$.store.book[*].author",
               R"(["Nigel Rees", "Evelyn Waugh", "Herman Melville",
                   "J. R. R. Tolkien"])");
  expectSelect("$.store.bicycle.*", R"(["red", 19.95])");
  expectSelect("$['odd key'][1:3]", "[2, 3]");
  expectSelect("$['odd key'][::2]", "[1, 3, 5]");
  expectSelect("$['odd key'][::-1]", "[5, 4, 3, 2, 1]");
  expectSelect("$['odd key'][-2:]", "[4, 5]");
  // A step near the int64 limits takes one element (i += step would overflow).
  expectSelect("$['odd key'][1::9223372036854775807]", "[2]");
  expectSelect("$['odd key'][3::-9223372036854775807]", "[4]");
  expectSelect("$['odd key'][10:]", "[]");
  expectSelect("$['odd key'][0,4]", "[1, 5]");
  expectSelect("$.nothing[*]", "[]");
}

TEST(Paths, RecursiveDescent) {
  expectSelect("$..author", R"(["Nigel Rees", "Evelyn Waugh",
                                 "Herman Melville", "J. R. R. Tolkien"])");
  expectSelect("$.store..price", "[8.95, 12.99, 8.99, 22.99, 19.95]");
  expectSelect("$..book[2].isbn", R"(["0-553-21311-3"])");
  expectSelect("$..x", R"([1, 2, 3])",
               R"({"x": 1, "a": {"x": 2, "b": [{"x": 3}]}})");
  // Deep data does not recurse on the stack.
  std::string deep;
  for (int k = 0; k < 5000; ++k)
    deep += "[";
  deep += "7";
  for (int k = 0; k < 5000; ++k)
    deep += "]";
  auto v = parseJsonValue(deep);
  if (v.isOk()) {
    auto parsed = paths::parse("$..[?(@ == 7)]", {false, true});
    ASSERT_TRUE(parsed.isOk()) << parsed.getStatus().message();
    auto r = paths::select(*parsed, {*v});
    ASSERT_TRUE(r.isOk()) << r.getStatus().message();
    EXPECT_EQ(toJson(*r), "[7]");
  }
}

TEST(Paths, Filters) {
  expectSelect("$.store.book[?(@.price < 10)].author",
               R"(["Nigel Rees", "Herman Melville"])");
  expectSelect("$.store.book[?(@.isbn)].price", "[8.99, 22.99]");
  expectSelect("$.store.book[?(@.price > $.min && @.category == 'fiction')]"
               ".author",
               R"(["Evelyn Waugh", "J. R. R. Tolkien"])");
  expectSelect("$.store.book[?(!(@.category == 'fiction'))].author",
               R"(["Nigel Rees"])");
  expectSelect("$.store.book[?(@.category != 'fiction' || @.price >= 22.99)]"
               ".price",
               "[8.95, 22.99]");
  // A comparison of different types is false, not an error.
  expectSelect("$.store.book[?(@.author > 3)]", "[]");
  expectSelect("$['odd key'][?(@ >= 4)]", "[4, 5]");
}

TEST(Paths, StoreIsResultPath) {
  auto store = [](const std::string &target, const std::string &path,
                  const std::string &value) -> Result<Value> {
    auto parsed = paths::parse(path, {true, false});
    EXPECT_TRUE(parsed.isOk()) << parsed.getStatus().message();
    return paths::store(json(target), *parsed, json(value));
  };
  auto r = store(R"({"a": 1})", "$.b.c", "2");
  ASSERT_TRUE(r.isOk());
  EXPECT_EQ(*r, json(R"({"a": 1, "b": {"c": 2}})"));
  r = store(R"({"a": [1, 2]})", "$.a[1]", R"("x")");
  ASSERT_TRUE(r.isOk());
  EXPECT_EQ(*r, json(R"({"a": [1, "x"]})"));
  r = store(R"({"a": 1})", "$", "5");
  ASSERT_TRUE(r.isOk());
  EXPECT_EQ(*r, json("5"));
  r = store(R"("text")", "$.a", "5");
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.getStatus().message(),
            "ResultPath '$.a' cannot place a field into a value of type "
            "string");
  r = store(R"({"a": [1]})", "$.a[3]", "5");
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.getStatus().message(),
            "ResultPath '$.a[3]' indexes past the end of an array");
}

TEST(Paths, DataFlowErrorsAreNamed) {
  // The Step Functions error each data-flow failure raises, for Retry and
  // Catch to match.
  auto errorOf = [](const std::string &dataFlow, const char *input,
                    bool output = false) {
    auto app = App::fromJson(
        {R"J({"Name": "Fn", "Start": true, "DataFlow": )J" + dataFlow + "}"});
    EXPECT_TRUE(app.isOk()) << app.getStatus().message();
    const FunctionSpec *fn = app->find("Fn");
    Context ctx;
    ctx.function = "Fn";
    DataFlow flow;
    Value in = json(input);
    Status s = output ? flow.output(*fn, in, json("1"), ctx).getStatus()
                      : flow.input(*fn, in, ctx).getStatus();
    EXPECT_FALSE(s.isOk()) << dataFlow;
    return s.errorName();
  };
  EXPECT_EQ(errorOf(R"J({"Parameters": {"a.$": "$.nope"}})J", "{}"),
            "States.ParameterPathFailure");
  EXPECT_EQ(
      errorOf(R"J({"Parameters": {"n": {"a.$": "States.ArrayLength($.s)"}}})J",
              R"J({"s": "x"})J"),
      "States.IntrinsicFailure");
  EXPECT_EQ(errorOf(R"J({"InputPath": "$.nope"})J", "{}"), "States.Runtime");
  EXPECT_EQ(errorOf(R"J({"ResultPath": "$.r"})J", "[1]", /*output=*/true),
            "States.ResultPathMatchFailure");
  EXPECT_EQ(errorOf(R"J({"ResultSelector": {"a.$": "$.x"}})J", "{}",
                    /*output=*/true),
            "States.ParameterPathFailure");
}
