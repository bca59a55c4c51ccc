//===- ValueTest.cpp - JSON values and payloads ---------------------------===//

#include "unum/Runtime/Value.h"
#include "unum/Runtime/Payload.h"

#include "PayloadInternal.h"
#include "unum/Config/Document.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

using namespace unum::runtime;

TEST(Value, RoundTrip) {
  const char *text = R"({"a":[1,-2,3.5,1e+300,true,false,null],)"
                     R"("s":"q\"\\\n\u0001é","o":{}})";
  auto v = parseJsonValue(text);
  ASSERT_TRUE(v.isOk()) << v.getStatus().message();
  EXPECT_EQ(toJson(*v), text);
  EXPECT_TRUE(v->find("a")->getArray()[0].isInt());
  EXPECT_TRUE(v->find("a")->getArray()[2].isDouble());
  auto again = parseJsonValue(toJson(*v, /*pretty=*/true));
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(*again, *v);
}

TEST(Value, NumbersStayExact) {
  auto big = parseJsonValue("9007199254740993");
  EXPECT_EQ(big->getInt(), 9007199254740993);
  auto huge = parseJsonValue("123456789012345678901234567890");
  EXPECT_TRUE(huge->isDouble());
  EXPECT_EQ(toJson(Value(2.0)), "2.0");
  EXPECT_EQ(toJson(Value(0.1)), "0.1");
}

TEST(Value, EqualityIgnoresKeyOrder) {
  EXPECT_EQ(*parseJsonValue(R"({"a":1,"b":[1,2]})"),
            *parseJsonValue(R"({"b":[1,2.0],"a":1})"));
  EXPECT_NE(*parseJsonValue("[1,2]"), *parseJsonValue("[2,1]"));
}

TEST(Value, LargeObjectEquality) {
  // 100,000 members in opposite orders: sorted once, O(n log n) (a search
  // per member was quadratic, minutes).
  const int n = 100000;
  Value::Object x, y;
  for (int i = 0; i < n; ++i) {
    x.emplace_back("k" + std::to_string(i), Value(i));
    y.emplace_back("k" + std::to_string(n - 1 - i), Value(n - 1 - i));
  }
  Value a(x), b(y);
  double start = test::threadCpuSeconds();
  EXPECT_EQ(a, b);
  y[n / 3].second = Value(-1); // one value differs
  EXPECT_NE(a, Value(y));
  y[n / 3] = {"other", Value(n - 1 - n / 3)}; // one name differs
  EXPECT_NE(a, Value(y));
  // The same order, with one value 1.0 for 1: the one-pass case.
  Value::Object z = x;
  z[1].second = Value(1.0);
  EXPECT_EQ(a, Value(z));
  double seconds = test::threadCpuSeconds() - start;
  EXPECT_LT(seconds, 2.0) << "== of 100,000-member objects";
}

TEST(Value, ParseErrorsAreLocated) {
  auto r = parseJsonValue("{\"a\": [1, }", "input.json");
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.getStatus().message().find("input.json:1:"), std::string::npos)
      << r.getStatus().message();
  EXPECT_FALSE(parseJsonValue("1 2").isOk());
  EXPECT_FALSE(parseJsonValue("").isOk());
}

// parseJsonValue reads JSON straight into a Value with the one JSON reader
// (lib/Config/JsonReader.h), unlocated, and reads an erroneous text again
// as located Nodes (parseJson) for the message: the two instantiations must
// accept the same texts and give the same Values (kinds included: 1 is an
// Int, 1.0 a Double), and an error must be the located reader's.
TEST(Value, FastPathAgreesWithTheLocatedReader) {
  const char *texts[] = {
      "0", "-0", "1", "-12", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "-9223372036854775809", "1.5", "-0.0", "1e3",
      "1E-3", "2.5e+10", "1e400", "true", "false", "null", "\"\"",
      "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "\"\\u00e9\\ud83d\\ude00\"",
      "\"caf\xc3\xa9\"", "[]", "{}", " [ 1 , 2 ] ", "\t{\"a\" :\r\n 1}\n",
      "{\"a\":{\"b\":[{}, [], [null]]}}", "\xEF\xBB\xBF{}",
      // Malformed: each must fail with a located message.
      "", " ", "01", "-", "1.", ".5", "1e", "1e+", "+1", "1x", "1.5.2", "tru",
      "truex", "nul", "[1,]", "[1 2]", "{\"a\":1,}", "{a:1}", "{\"a\" 1}",
      "{\"a\":1,\"a\":2}", "\"abc", "\"a\nb\"", "\"\\x\"", "\"\\ud800\"",
      "\"\\udc00x\"", "\"\xff\"", "[1] [2]", "1 2", "{", "[", "]", "}",
      "\"\x01\"", "// c\n1", "[1]x", "NaN", "Infinity"};
  std::vector<std::string> all(std::begin(texts), std::end(texts));
  all.push_back(std::string(400, '9'));      // a finite double
  all.push_back("1e" + std::string(5, '9')); // beyond a double
  // Objects past the size where duplicates are found with a set.
  std::string wide = "{", dup = "{";
  for (int i = 0; i < 40; ++i) {
    wide +=
        (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
    dup += (i ? ",\"k" : "\"k") + std::to_string(i % 30) + "\":0";
  }
  all.push_back(wide + "}");
  all.push_back(dup + "}");
  // Nesting at and beyond the limit.
  for (unsigned depth : {255u, 256u, 257u})
    all.push_back(std::string(depth, '[') + std::string(depth, ']'));
  for (const std::string &text : all) {
    unum::config::DiagnosticSink diags("t.json");
    std::vector<unum::config::Node> docs;
    bool located =
        unum::config::parseJson(text, docs, diags) && docs.size() == 1;
    auto fast = parseJsonValue(text, "t.json");
    ASSERT_EQ(fast.isOk(), located) << "'" << text << "'";
    if (located) {
      Value slow = valueOf(std::move(docs[0]));
      EXPECT_EQ(toJson(*fast), toJson(slow)) << "'" << text << "'";
      EXPECT_EQ(fast->kind(), slow.kind()) << "'" << text << "'";
    } else {
      EXPECT_EQ(fast.getStatus().message().rfind("t.json", 0), 0u)
          << "'" << text << "': " << fast.getStatus().message();
    }
  }
}

TEST(Payload, DecodeEncode) {
  auto v = parseJsonValue(R"({"Data": {"Source": "http", "Value": "foo"},
      "Session": "s1",
      "Fan-out": {"Type": "Map", "Index": 1, "Size": 3,
                  "OuterLoop": {"Type": "Parallel", "Index": 2, "Size": 5}},
      "GC": {"Checkpoint": "P"}})");
  auto p = decodePayload(*v);
  ASSERT_TRUE(p.isOk()) << p.getStatus().message();
  EXPECT_EQ(p->session, "s1");
  ASSERT_EQ(p->fanout.size(), 2u);
  EXPECT_EQ(p->fanout[0].index, 1);
  EXPECT_EQ(p->fanout[1].type, "Parallel");
  EXPECT_EQ(p->retire, "P");
  EXPECT_EQ(instanceName("F", p->fanout), "F-unumIndex-1.2");
  EXPECT_EQ(instanceName("F", {}), "F");
  EXPECT_EQ(encodePayload(*p), *v);
}

// The outbox and the HTTP body write a payload's JSON straight into the
// text; it must be exactly what the Value encoder writes, for every field.
TEST(Payload, WireTextIsTheEncodedPayload) {
  std::vector<Payload> cases(7);
  cases[0].value = Value(int64_t(1)); // a chain step: no session yet
  cases[1].session = "s\"1\\\n";
  cases[1].value =
      parseJsonValue(R"({"a": [1, 2.5, "x\u0001", null, true]})").take();
  cases[1].retire = "F-unumIndex-3";
  cases[2].source = Payload::Source::Checkpoint;
  cases[2].session = "s";
  cases[2].value = parseJsonValue(R"(["A", "B"])").take();
  cases[2].fanInSet = "T|set";
  cases[2].retire = "R";
  cases[3].source = Payload::Source::Failure;
  cases[3].session = "s";
  cases[3].value = parseJsonValue(R"({"Error": "E", "Cause": "c"})").take();
  cases[3].fanInSet = "only-set";
  for (Payload *p : {&cases[4], &cases[5]}) {
    p->session = "s";
    FanOutLevel inner, outer;
    inner.index = 4;
    inner.size = 9;
    inner.visit = 2;
    inner.window = 3;
    inner.items = "Items#\"x\"";
    outer.type = "Parallel";
    outer.index = 1;
    outer.size = 2;
    p->fanout = {inner, outer};
  }
  cases[5].fanout.pop_back();
  cases[5].visit = 7;
  cases[5].execution = std::make_shared<const Value>(
      parseJsonValue(R"({"Input": {"k": 1}, "StartTime": "t"})").take());
  cases[6].session = "s";
  cases[6].visit = 5;
  for (const Payload &p : cases) {
    std::string text = detail::payloadJson(p);
    EXPECT_EQ(text, toJson(encodePayload(p)));
    auto back = parseJsonValue(text);
    ASSERT_TRUE(back.isOk()) << back.getStatus().message();
    EXPECT_TRUE(decodePayload(*back).isOk()) << text;
  }
}

TEST(Payload, OriginalRuntimeShapes) {
  // The original runtime's GC object and store-typed sources are accepted.
  auto v = parseJsonValue(R"({"Data": {"Source": "dynamodb",
      "Value": ["A-unumIndex-0"]}, "Session": "s",
      "GC": {"A": ["B"]}})");
  auto p = decodePayload(*v);
  ASSERT_TRUE(p.isOk()) << p.getStatus().message();
  EXPECT_EQ(p->source, Payload::Source::Checkpoint);
  EXPECT_TRUE(p->retire.empty());
}

TEST(Payload, DeepFanOutIsRejected) {
  std::string text = R"({"Data": {"Value": 0}, "Fan-out": )";
  for (int i = 0; i < 40; ++i)
    text += R"({"Index": 0, "Size": 1, "OuterLoop": )";
  text += "null";
  for (int i = 0; i < 40; ++i)
    text += "}";
  text += "}";
  auto v = parseJsonValue(text);
  ASSERT_TRUE(v.isOk());
  auto p = decodePayload(*v);
  ASSERT_FALSE(p.isOk());
  EXPECT_NE(p.getStatus().message().find("deeper"), std::string::npos);
}

TEST(Payload, SessionIdsDiffer) {
  EXPECT_NE(newSessionId(), newSessionId());
  std::string id = newSessionId();
  EXPECT_EQ(id.size(), 15u); // fits a std::string without allocating
  EXPECT_EQ(id.find_first_not_of("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "abcdefghijklmnopqrstuvwxyz"),
            std::string::npos);
}
