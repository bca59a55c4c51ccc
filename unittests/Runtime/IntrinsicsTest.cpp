//===- IntrinsicsTest.cpp - Intrinsic functions and the context object ----===//
//
// The evaluator on its own (every intrinsic, its values and its errors, the
// call syntax, the limits), the digests and Base64 against published
// vectors, then intrinsics and `$$` paths through the runtime's data flow.
//
//===----------------------------------------------------------------------===//

#include "Intrinsics.h"
#include "Apps.h"
#include "Digest.h"
#include "TestUtil.h"

#include "unum/Runtime/Runtime.h"

#include "unum/Config/Timestamp.h"

#include "gtest/gtest.h"

#include <mutex>
#include <regex>
#include <set>

using namespace unum::runtime;
using namespace unum::runtime::test;
namespace in = unum::runtime::intrinsics;

namespace {

Value json(const std::string &text) {
  auto v = parseJsonValue(text);
  EXPECT_TRUE(v.isOk()) << text << ": " << v.getStatus().message();
  return v.isOk() ? *v : Value();
}

/// Resolves `$`, `$.member` in `input` and `$$.Execution.Id`; enough for
/// the evaluator (DataFlow's paths are tested through the runtime below).
in::PathResolver resolverFor(Value input) {
  return [input](const unum::config::JsonPath &parsed) -> Result<Value> {
    const std::string &path = parsed.text;
    if (path == "$")
      return input;
    if (path == "$$.Execution.Id")
      return Value("session-1");
    if (path.rfind("$.", 0) == 0)
      if (const Value *v = input.find(path.substr(2)))
        return *v;
    return Status::error("path '" + path + "' selects nothing");
  };
}

Result<Value> eval(const std::string &call, const std::string &input = "{}") {
  return in::evaluate(call, resolverFor(json(input)));
}

/// `call` on `input` gives `expected` (JSON).
void expectValue(const std::string &call, const std::string &expected,
                 const std::string &input = "{}") {
  auto r = eval(call, input);
  ASSERT_TRUE(r.isOk()) << call << ": " << r.getStatus().message();
  EXPECT_EQ(*r, json(expected)) << call << " gave " << toJson(*r);
}

/// `call` on `input` fails with exactly `message`.
void expectError(const std::string &call, const std::string &message,
                 const std::string &input = "{}") {
  auto r = eval(call, input);
  ASSERT_FALSE(r.isOk()) << call << " gave " << toJson(*r);
  EXPECT_EQ(r.getStatus().message(), message) << call;
}

} // namespace

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

TEST(Intrinsics, LiteralsPathsAndNestedCalls) {
  expectValue("States.Array('a', 1, -2.5, 1e3, true, false, null)",
              R"(["a", 1, -2.5, 1000.0, true, false, null])");
  expectValue("States.Array()", "[]");
  expectValue("States.Array( $.a ,$ , $$.Execution.Id )",
              R"([1, {"a": 1}, "session-1"])", R"({"a": 1})");
  // Nine calls deep, as in Step Functions' documentation.
  expectValue("States.Format('{}.{}', "
              "States.ArrayGetItem(States.StringSplit(States.ArrayGetItem("
              "States.StringSplit($.arn, '/'), 2), '.'), 0), "
              "States.ArrayGetItem(States.StringSplit(States.ArrayGetItem("
              "States.StringSplit($.arn, '/'), 2), '.'), 1))",
              R"("1.2")",
              R"({"arn": "arn:aws:imagebuilder:r:1:image/x/1.2.3/4"})");
  // A path argument may hold commas and parentheses inside brackets.
  auto r =
      in::evaluate("States.Array($['a,b)'], $[0])",
                   [](const unum::config::JsonPath &path) -> Result<Value> {
                     return Value(path.text);
                   });
  ASSERT_TRUE(r.isOk()) << r.getStatus().message();
  EXPECT_EQ(toJson(*r), R"(["$['a,b)']","$[0]"])");
}

TEST(Intrinsics, StringEscapes) {
  // \' \{ \} \\ stand for the character; an escaped {} is no placeholder.
  expectValue(R"(States.Format('it\'s \{literal\} {} \\ {}', $.a, 'x'))",
              R"("it's {literal} 1 \\ x")", R"({"a": 1})");
  expectValue(R"(States.Array('\{\}'))", R"(["{}"])");
  expectValue("States.Format('a lone { or } is kept')",
              R"("a lone { or } is kept")");
  expectError(R"(States.Format('\n'))",
              R"J(invalid intrinsic function call "States.Format('\n')": a )J"
              R"(backslash in a string must escape ', {, } or \ at )"
              "character 16");
  expectError("States.Format('abc", "invalid intrinsic function call "
                                    "\"States.Format('abc\": unterminated "
                                    "string at character 15");
}

TEST(Intrinsics, SyntaxErrorsSayWhere) {
  expectError("States.Format('{}' $.a)",
              "invalid intrinsic function call \"States.Format('{}' $.a)\": "
              "expected ',' or ')' at character 20");
  expectError("States.Nope(1)", "invalid intrinsic function call "
                                "\"States.Nope(1)\": unknown intrinsic "
                                "function 'States.Nope' at character 1");
  expectError("States.UUID", "invalid intrinsic function call "
                             "\"States.UUID\": expected '(' after "
                             "'States.UUID' at character 12");
  expectError("States.Array(1,", "invalid intrinsic function call "
                                 "\"States.Array(1,\": missing argument at "
                                 "character 16");
  expectError("States.Array(1", "invalid intrinsic function call "
                                "\"States.Array(1\": missing ')' at the end "
                                "at character 15");
  expectError("States.Array(1) x", "invalid intrinsic function call "
                                   "\"States.Array(1) x\": unexpected text "
                                   "after the call at character 17");
  expectError("States.Array(foo)",
              "invalid intrinsic function call \"States.Array(foo)\": "
              "expected an argument (a string in single quotes, a number, "
              "true, false, null, a path or an intrinsic function call) at "
              "character 14");
  expectError("States.Array(-)", "invalid intrinsic function call "
                                 "\"States.Array(-)\": expected digits at "
                                 "character 15");
  expectError("States.Array($['a)", "invalid intrinsic function call "
                                    "\"States.Array($['a)\": unterminated "
                                    "quoted name in a path at character 16");
}

TEST(Intrinsics, ArgumentCountsAreCheckedBeforeEvaluation) {
  // Even though $.missing selects nothing, the count is what is reported.
  expectError("States.ArrayPartition($.missing)",
              "invalid intrinsic function call "
              "\"States.ArrayPartition($.missing)\": States.ArrayPartition "
              "takes 2 arguments (array, chunk size), not 1 at character 1");
  expectError("States.UUID(1)", "invalid intrinsic function call "
                                "\"States.UUID(1)\": States.UUID takes no "
                                "arguments, not 1 at character 1");
  expectError("States.MathRandom(1)",
              "invalid intrinsic function call \"States.MathRandom(1)\": "
              "States.MathRandom takes 2 or 3 arguments (start, end, seed), "
              "not 1 at character 1");
  expectError("States.Format()",
              "invalid intrinsic function call \"States.Format()\": "
              "States.Format takes at least 1 argument (template, value...), "
              "not 0 at character 1");
}

TEST(Intrinsics, NestingIsBounded) {
  std::string call = "1";
  for (unsigned k = 0; k < in::kMaxNesting; ++k)
    call = "States.Array(" + call + ")";
  auto ok = eval(call);
  ASSERT_TRUE(ok.isOk()) << ok.getStatus().message();
  auto deep = eval("States.Array(" + call + ")");
  ASSERT_FALSE(deep.isOk());
  EXPECT_NE(deep.getStatus().message().find(
                "intrinsic function calls nested deeper than 10"),
            std::string::npos)
      << deep.getStatus().message();
}

TEST(Intrinsics, PathErrorsNameTheArgument) {
  expectError("States.Format('{}', $.missing)",
              "States.Format: argument 2: path '$.missing' selects nothing");
  // A nested call's error names that call.
  expectError("States.Array(States.ArrayLength($.nope))",
              "States.ArrayLength: argument 1: path '$.nope' selects nothing");
}

//===----------------------------------------------------------------------===//
// Each intrinsic
//===----------------------------------------------------------------------===//

TEST(Intrinsics, Format) {
  expectValue("States.Format('Hello, my name is {}.', $.name)",
              R"("Hello, my name is Arnav.")", R"({"name": "Arnav"})");
  // A template read from the input: every {} is a placeholder.
  expectValue("States.Format($.template, $.name)",
              R"("Hello, my name is Arnav.")",
              R"({"name": "Arnav", "template": "Hello, my name is {}."})");
  expectValue("States.Format('{}|{}|{}|{}|{}', 1, 2.5, true, null, 'x')",
              R"("1|2.5|true|null|x")");
  expectValue("States.Format('no holes')", R"("no holes")");
  expectError("States.Format('{} and {}', 1)",
              "States.Format: the template has 2 '{}' placeholders but 1 "
              "value was given");
  expectError("States.Format('{}', 1, 2)",
              "States.Format: the template has 1 '{}' placeholder but 2 "
              "values were given");
  expectError("States.Format($.n)",
              "States.Format: argument 1 (template) must be a string, not 7",
              R"({"n": 7})");
  expectError("States.Format('{}', $.o)",
              "States.Format: argument 2 (value) must be a string, number, "
              "boolean or null, not an object",
              R"({"o": {}})");
  // Bounded: a template repeated from the input cannot grow without limit.
  std::string big(in::kMaxText / 2 + 1, 'x');
  expectError("States.Format('{}{}', $.s, $.s)",
              "States.Format: the result is longer than 262144 bytes",
              R"({"s": ")" + big + R"("})");
}

TEST(Intrinsics, StringToJsonAndJsonToString) {
  expectValue("States.StringToJson($.s)", R"({"foo": "bar"})",
              R"({"s": "{\"foo\": \"bar\"}"})");
  expectValue("States.StringToJson(' [1, 2] ')", "[1, 2]");
  expectValue("States.JsonToString($.o)", R"("{\"foo\":\"bar\",\"n\":[1]}")",
              R"({"o": {"foo": "bar", "n": [1]}})");
  expectValue("States.StringToJson(States.JsonToString($))",
              R"({"a": [1, {"b": null}]})", R"({"a": [1, {"b": null}]})");
  expectError("States.StringToJson(1)",
              "States.StringToJson: argument 1 (JSON text) must be a string, "
              "not 1");
  auto bad = eval("States.StringToJson('{oops')");
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.getStatus().message().rfind(
                "States.StringToJson: argument 1 (JSON text):", 0),
            0u)
      << bad.getStatus().message();
  std::string big(in::kMaxText, 'x');
  expectError("States.JsonToString($.s)",
              "States.JsonToString: the result is longer than 262144 bytes",
              R"({"s": ")" + big + R"("})");
  expectError("States.StringToJson($.s)",
              "States.StringToJson: argument 1 (JSON text) is longer than "
              "262144 characters",
              R"({"s": ")" + big + R"( "})");
}

TEST(Intrinsics, ArrayAndPartition) {
  expectValue("States.Array($.Id)", "[123456]", R"({"Id": 123456})");
  expectValue("States.ArrayPartition($.a, 4)",
              "[[1, 2, 3, 4], [5, 6, 7, 8], [9]]",
              R"({"a": [1, 2, 3, 4, 5, 6, 7, 8, 9]})");
  expectValue("States.ArrayPartition($.a, 10)", "[[1, 2]]", R"({"a": [1, 2]})");
  expectValue("States.ArrayPartition($.a, 2)", "[]", R"({"a": []})");
  // A non-integer chunk size is rounded, as Step Functions does.
  expectValue("States.ArrayPartition($.a, 1.6)", "[[1, 2]]",
              R"({"a": [1, 2]})");
  expectError("States.ArrayPartition($.a, 0)",
              "States.ArrayPartition: argument 2 (chunk size) must be a "
              "positive integer, not 0",
              R"({"a": [1]})");
  expectError("States.ArrayPartition($.a, '2')",
              "States.ArrayPartition: argument 2 (chunk size) must be a "
              "positive integer, not a string",
              R"({"a": [1]})");
  expectError("States.ArrayPartition('x', 2)",
              "States.ArrayPartition: argument 1 (array) must be an array, "
              "not a string");
}

TEST(Intrinsics, ArrayContainsLengthGetItem) {
  const char *input = R"({"a": [1, "two", {"x": 1, "y": [2]}], "k": 1.0})";
  expectValue("States.ArrayContains($.a, 'two')", "true", input);
  expectValue("States.ArrayContains($.a, 3)", "false", input);
  // Structural equality: 1 == 1.0, object member order is irrelevant.
  expectValue("States.ArrayContains($.a, $.k)", "true", input);
  expectValue(
      "States.ArrayContains($.a, States.StringToJson('{\"y\":[2],\"x\":1}'))",
      "true", input);
  expectValue("States.ArrayLength($.a)", "3", input);
  expectValue("States.ArrayLength(States.Array())", "0");
  expectValue("States.ArrayGetItem($.a, 1)", R"("two")", input);
  expectValue("States.ArrayGetItem($.a, 2)", R"({"x": 1, "y": [2]})", input);
  expectError("States.ArrayGetItem($.a, 3)",
              "States.ArrayGetItem: index 3 is out of range for an array of "
              "3 items",
              input);
  expectError("States.ArrayGetItem($.a, -1)",
              "States.ArrayGetItem: argument 2 (index) must be a "
              "non-negative integer, not -1",
              input);
  expectError("States.ArrayContains($.k, 1)",
              "States.ArrayContains: argument 1 (array) must be an array, "
              "not 1.0",
              input);
  expectError("States.ArrayLength($)",
              "States.ArrayLength: argument 1 (array) must be an array, not "
              "an object",
              input);
}

TEST(Intrinsics, ArrayRange) {
  expectValue("States.ArrayRange(1, 9, 2)", "[1, 3, 5, 7, 9]");
  expectValue("States.ArrayRange(0, 10, 3)", "[0, 3, 6, 9]");
  expectValue("States.ArrayRange(5, 1, -2)", "[5, 3, 1]");
  expectValue("States.ArrayRange(5, 1, 1)", "[]");
  expectValue("States.ArrayRange(3, 3, 7)", "[3]");
  // Extreme bounds do not overflow.
  expectValue("States.ArrayRange(-9223372036854775807, 9223372036854775807, "
              "9223372036854775807)",
              "[-9223372036854775807, 0, 9223372036854775807]");
  auto max = eval("States.ArrayRange(1, 1000, 1)");
  ASSERT_TRUE(max.isOk());
  EXPECT_EQ(max->getArray().size(), 1000u);
  expectError("States.ArrayRange(0, 1000, 1)",
              "States.ArrayRange: the range would have more than 1000 "
              "elements");
  // The whole int64 range with step 1: its count would wrap to 0.
  expectError("States.ArrayRange(-9223372036854775808, 9223372036854775807, 1)",
              "States.ArrayRange: the range would have more than 1000 "
              "elements");
  expectError("States.ArrayRange(0, 10, 0)",
              "States.ArrayRange: argument 3 (step) must be a non-zero "
              "integer, not 0");
  expectError("States.ArrayRange('a', 10, 1)",
              "States.ArrayRange: argument 1 (start) must be an integer, not "
              "a string");
}

TEST(Intrinsics, ArrayUnique) {
  expectValue("States.ArrayUnique($.a)", "[1, 2, 3, 4]",
              R"({"a": [1, 2, 3, 3, 3, 3, 3, 3, 4]})");
  // The first of equal items stays, in order; 1.0 equals 1, {"a":1,"b":2}
  // equals {"b":2,"a":1}.
  expectValue("States.ArrayUnique($.a)",
              R"([{"a": 1, "b": 2}, 1, "1", [1], null])",
              R"({"a": [{"a": 1, "b": 2}, 1, "1", {"b": 2, "a": 1}, 1.0,
                        [1], null, [1.0], null]})");
  // Linear, not quadratic: 100k distinct items.
  std::string many = R"({"a": [)";
  for (int i = 0; i < 100000; ++i)
    many += (i ? "," : "") + std::to_string(i % 50000);
  many += "]}";
  auto r = eval("States.ArrayLength(States.ArrayUnique($.a))", many);
  ASSERT_TRUE(r.isOk()) << r.getStatus().message();
  EXPECT_EQ(*r, Value(int64_t(50000)));
  expectError("States.ArrayUnique(1)",
              "States.ArrayUnique: argument 1 (array) must be an array, not "
              "1");
}

TEST(Intrinsics, Base64) {
  // RFC 4648's test vectors.
  const std::pair<const char *, const char *> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (auto [plain, encoded] : vectors) {
    EXPECT_EQ(in::base64Encode(plain), encoded);
    auto d = in::base64Decode(encoded);
    ASSERT_TRUE(d.isOk()) << encoded << ": " << d.getStatus().message();
    EXPECT_EQ(*d, plain);
  }
  auto unpadded = in::base64Decode("Zm9vYg");
  ASSERT_TRUE(unpadded.isOk());
  EXPECT_EQ(*unpadded, "foob");

  expectValue("States.Base64Encode($.d)", R"("RGF0YSB0byBlbmNvZGU=")",
              R"({"d": "Data to encode"})");
  expectValue("States.Base64Decode('RGVjb2RlZCBkYXRh')", R"("Decoded data")");
  expectValue("States.Base64Decode(States.Base64Encode('héllo ✓'))",
              R"("héllo ✓")");
  expectError("States.Base64Decode('Zm9v!')",
              "States.Base64Decode: argument 1 (Base64 text) has '!' at "
              "character 5, which is not a Base64 digit");
  expectError("States.Base64Decode('Zm9vY')",
              "States.Base64Decode: argument 1 (Base64 text) has a length "
              "that is not valid Base64");
  expectError("States.Base64Decode('Zg=')",
              "States.Base64Decode: argument 1 (Base64 text) has a length "
              "that is not valid Base64");
  // Bytes that are not text cannot become a JSON string.
  expectError("States.Base64Decode('/w==')",
              "States.Base64Decode: the decoded data is not UTF-8 text");
  expectError("States.Base64Encode(1)",
              "States.Base64Encode: argument 1 (data) must be a string, not "
              "1");
  // Inputs are limited to 10,000 characters (not bytes).
  std::string tenK;
  for (int i = 0; i < 10000; ++i)
    tenK += "é";
  expectValue("States.ArrayLength(States.Array(States.Base64Encode($.s)))", "1",
              R"({"s": ")" + tenK + R"("})");
  expectError("States.Base64Encode($.s)",
              "States.Base64Encode: argument 1 (data) is longer than 10000 "
              "characters",
              R"({"s": ")" + tenK + R"(x"})");
}

TEST(Intrinsics, DigestsMatchPublishedVectors) {
  using digest::Algorithm;
  struct Case {
    std::string data;
    const char *md5, *sha1, *sha256, *sha384, *sha512;
  };
  // Lengths around the padding boundaries: 55/56/64 bytes for 64-byte
  // blocks, 111/112 for SHA-384/512's 128-byte blocks.
  const Case cases[] = {
      {"", "d41d8cd98f00b204e9800998ecf8427e",
       "da39a3ee5e6b4b0d3255bfef95601890afd80709",
       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
       "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274ede"
       "bfe76f65fbd51ad2f14898b95b",
       "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d1"
       "3c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72",
       "a9993e364706816aba3e25717850c26c9cd0d89d",
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed808607"
       "2ba1e7cc2358baeca134c825a7",
       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a219299"
       "2a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
      {std::string(55, 'a'), "ef1772b6dff9a122358552954ad0df65",
       "c1c8bbdc22796e28c0e15163d20899b65621d65a",
       "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
       "5d91ac7e74e62b5c728904b40f10784d66b7af9cb6302123e48c92f0432ceb8d2a92c0"
       "2de77dcb29ed75c4b42bde46f4",
       "b0220c772cbf6c1822e2cb38a437d0e1d58772417a4bbb21c961364f8b6143e05aa631"
       "6dca8d1d7b19e16448419076395f6086cb55101fbd6d5497b148e1745f"},
      {std::string(56, 'a'), "3b0c8ac703f828b04c6c197006d17218",
       "c2db330f6083854c99d4b5bfb6e8f29f201be699",
       "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
       "8a8d9649ea04e993a6ca7135af7e3392cc5fca84f8531cac7aa3feed4eb98f55dcbe0f"
       "3284b61c6f35f98b02cc644b4c",
       "962b64aae357d2a4fee3ded8b539bdc9d325081822b0bfc55583133aab44f18bafe11d"
       "72a7ae16c79ce2ba620ae2242d5144809161945f1367f41b3972e26e04"},
      {std::string(64, 'a'), "014842d480b571495a4a0363793f7367",
       "0098ba824b5c16427bd7a1122a5a442a25ec644d",
       "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
       "2e404b9339da795776e510d96930b3be2904c500395b8cb7413334b82d4dec413b4b81"
       "13045a05bbbcff846f027423f6",
       "01d35c10c6c38c2dcf48f7eebb3235fb5ad74a65ec4cd016e2354c637a8fb49b695ef3"
       "c1d6f7ae4cd74d78cc9c9bcac9d4f23a73019998a7f73038a5c9b2dbde"},
      {std::string(111, 'b'), "b0070ddc2601b54170fbde09da6cff2d",
       "9e9a141d08c1eddadfba282fdcdd9997021fcd29",
       "56772b647d5a52b68f7f4b577a1f8f9f901bb20d0eebb5f1006b7d337b7e3eec",
       "a47bc504cd628dbc1abac61dd4fb95c14a5ce395ce0a2ba23e29f065159ab694335cd8"
       "664a63cdc8a1b1ce318cf99187",
       "419c4a5a61a60515b115bc4c67f412b9d5e3a9b044451cccf91fd9cf917ff1488c0594"
       "2ea6598d2fc40183befd85786cff8ac0bcd5fd7fff666968a198f22e21"},
      {std::string(112, 'b'), "7fb848ee5850dde13e53d79c31371731",
       "7613e3edd19e38b9f5b8df789c0a948eec6a0f04",
       "2e00e3a07d2633eb2a2ae7a01effd634d3b07dfefe3189a24eccb50829c0d1f1",
       "b003f8ded297822e4acefca9d46dc977eaa4ff2ce1a629baafc4eef2e7b7eaf5224fd2"
       "b83e97398bdbc36345677f45f8",
       "fd29e3caf85c0e469f0f157a3d8dad942e776c4cf8fcd1e10fc5592af6024ade7e2c16"
       "3a127cee9f6053311cae50c40d682260c8f1d4d2b63608a55a66e44f1d"},
      {std::string(1000, 'x'), "398533d48111e9f664b1f64cb10c4b63",
       "c3efa690fa3fdd2e2526853eed670538ea127638",
       "44f8354494a5ba03ba1792a8d3e9c534c47a9181980fde7a3f44b06ef2ae7c7f",
       "f096805600f4ca46f56b08074af11e7ec1da65cc3a66457c11ae0724d0c2e3912428db"
       "c43d4ebc1cd0d7886109b07580",
       "ae13575c5d98bfa689617bb19f0f55efdd52b39397fd620bcd1fbc03fda979e6b69bfb"
       "a24698176eafe766d31c48b70273b03198064323082e04cc4eb9126310"},
  };
  for (const Case &c : cases) {
    auto hex = [&](Algorithm a) {
      return digest::hex(digest::compute(a, c.data));
    };
    SCOPED_TRACE("length " + std::to_string(c.data.size()));
    EXPECT_EQ(hex(Algorithm::MD5), c.md5);
    EXPECT_EQ(hex(Algorithm::SHA1), c.sha1);
    EXPECT_EQ(hex(Algorithm::SHA256), c.sha256);
    EXPECT_EQ(hex(Algorithm::SHA384), c.sha384);
    EXPECT_EQ(hex(Algorithm::SHA512), c.sha512);
  }
}

TEST(Intrinsics, Hash) {
  // UTF-8 bytes are hashed.
  const char *input = R"({"d": "héllo wörld ✓"})";
  expectValue("States.Hash($.d, 'MD5')",
              R"("aa0c8a307a4488bfe0cb56530da19bc3")", input);
  expectValue("States.Hash($.d, 'SHA-1')",
              R"("a5e7f35caea50aa6f3bc37d2f24a540fc0b3cb32")", input);
  expectValue(
      "States.Hash($.d, 'SHA-256')",
      R"("c2a59c71097b678dc5af2eb1f98ddc575b63948b0fa6740071a945673aaada4d")",
      input);
  auto sha384 = eval("States.Hash('abc', 'SHA-384')");
  ASSERT_TRUE(sha384.isOk());
  EXPECT_EQ(sha384->getString().size(), 96u);
  auto sha512 = eval("States.Hash('abc', 'SHA-512')");
  ASSERT_TRUE(sha512.isOk());
  EXPECT_EQ(sha512->getString().substr(0, 16), "ddaf35a193617aba");
  expectError("States.Hash('x', 'sha256')",
              "States.Hash: argument 2 (algorithm) must be one of MD5, SHA-1, "
              "SHA-256, SHA-384, SHA-512, not 'sha256'");
  expectError("States.Hash($, 'MD5')",
              "States.Hash: argument 1 (data) must be a string, not an "
              "object",
              input);
  expectError("States.Hash($.s, 'MD5')",
              "States.Hash: argument 1 (data) is longer than 10000 "
              "characters",
              R"({"s": ")" + std::string(10001, 'a') + R"("})");
}

TEST(Intrinsics, JsonMergeLarge) {
  // 100,000 members on each side, half of the second's replacing the
  // first's: O(n log n) (member by member it was quadratic, minutes).
  const size_t n = 100000;
  Value::Object a, b;
  for (size_t i = 0; i < n; ++i) {
    a.emplace_back("k" + std::to_string(i), Value(int64_t(i)));
    b.emplace_back("k" + std::to_string(n / 2 + i), Value(int64_t(-1)));
  }
  Value input = Value::object();
  input.set("a", Value(std::move(a)));
  input.set("b", Value(std::move(b)));
  // CPU time (wall time went over 2 s at load 19); the bound only has to
  // tell O(n log n) (~0.1 s) from quadratic (minutes).
  double start = threadCpuSeconds();
  auto r = in::evaluate("States.JsonMerge($.a, $.b, false)",
                        resolverFor(std::move(input)));
  double seconds = threadCpuSeconds() - start;
  ASSERT_TRUE(r.isOk()) << r.getStatus().message();
  const Value::Object &out = r->getObject();
  ASSERT_EQ(out.size(), n + n / 2);
  // The first's members in their order, the replaced ones in place, then
  // the second's new ones in theirs.
  EXPECT_EQ(out[0], Value::Member("k0", Value(int64_t(0))));
  EXPECT_EQ(out[n / 2 - 1].second, Value(int64_t(n / 2 - 1)));
  EXPECT_EQ(out[n / 2], Value::Member("k" + std::to_string(n / 2), Value(-1)));
  EXPECT_EQ(out[n].first, "k" + std::to_string(n));
  EXPECT_EQ(out.back().first, "k" + std::to_string(n + n / 2 - 1));
  EXPECT_LT(seconds, 10.0) << "States.JsonMerge of 100,000 members";
}

TEST(Intrinsics, JsonMerge) {
  const char *input =
      R"({"a": {"x": 1, "n": {"p": 1}}, "b": {"n": {"q": 2}, "y": 2}})";
  // Shallow: the second object's "n" replaces the first's.
  expectValue("States.JsonMerge($.a, $.b, false)",
              R"({"x": 1, "n": {"q": 2}, "y": 2})", input);
  expectError("States.JsonMerge($.a, $.b, true)",
              "States.JsonMerge: deep merging (argument 3 true) is not "
              "supported; as in Step Functions, only false (a shallow merge) "
              "is",
              input);
  expectError("States.JsonMerge($.a, 1, false)",
              "States.JsonMerge: argument 2 (second object) must be an "
              "object, not 1",
              input);
  expectError("States.JsonMerge($.a, $.b, 'false')",
              "States.JsonMerge: argument 3 (deep merge) must be a boolean, "
              "not a string",
              input);
}

TEST(Intrinsics, MathAdd) {
  expectValue("States.MathAdd(111, -1)", "110");
  expectValue("States.MathAdd($.v, $.step)", "113", R"({"v": 111, "step": 2})");
  // Non-integers are rounded, as Step Functions does.
  expectValue("States.MathAdd(1.6, 1)", "3");
  expectValue("States.MathAdd(2147483647, 2147483647)", "4294967294");
  expectError("States.MathAdd(2147483648, 1)",
              "States.MathAdd: argument 1 (first number) must be an integer "
              "from -2147483648 to 2147483647, not 2147483648");
  expectError("States.MathAdd(1, '1')",
              "States.MathAdd: argument 2 (second number) must be an integer "
              "from -2147483648 to 2147483647, not a string");
}

TEST(Intrinsics, MathRandom) {
  std::set<int64_t> seen;
  for (int k = 0; k < 200; ++k) {
    auto r = eval("States.MathRandom(1, 5)");
    ASSERT_TRUE(r.isOk()) << r.getStatus().message();
    ASSERT_TRUE(r->isInt());
    EXPECT_GE(r->getInt(), 1);
    EXPECT_LT(r->getInt(), 5); // the end is excluded
    seen.insert(r->getInt());
  }
  EXPECT_EQ(seen.size(), 4u); // 1..4 all come up in 200 draws
  // A seed makes it deterministic, on every platform (SplitMix64).
  auto a = eval("States.MathRandom(1, 1000000, 42)");
  auto b = eval("States.MathRandom(1, 1000000, $.seed)", R"({"seed": 42})");
  ASSERT_TRUE(a.isOk() && b.isOk());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(*a, Value(int64_t(487640)));
  auto c = eval("States.MathRandom(1, 1000000, 43)");
  EXPECT_NE(*a, *c);
  // The whole int64 range is a valid range.
  expectValue("States.ArrayLength(States.Array(States.MathRandom("
              "-9223372036854775807, 9223372036854775807)))",
              "1");
  expectError("States.MathRandom(5, 5)",
              "States.MathRandom: the start (5) must be less than the end (5)");
  expectError("States.MathRandom(1, 'x')",
              "States.MathRandom: argument 2 (end) must be an integer, not a "
              "string");
  expectError("States.MathRandom(1, 2, null)",
              "States.MathRandom: argument 3 (seed) must be an integer, not "
              "null");
}

TEST(Intrinsics, StringSplit) {
  expectValue("States.StringSplit($.s, ',')", R"(["1", "2", "3", "4", "5"])",
              R"({"s": "1,2,3,4,5"})");
  // Each character of the second argument is a delimiter; runs of them
  // and delimiters at the ends make no empty strings.
  expectValue("States.StringSplit($.s, $.d)",
              R"(["This", "is", "a", "test", "string"])",
              R"({"s": "This.is+a,test=string", "d": ".+,="})");
  expectValue("States.StringSplit(',,a,,b,', ',')", R"(["a", "b"])");
  expectValue("States.StringSplit('', ',')", "[]");
  // Characters, not bytes: é is a delimiter, its bytes alone are not.
  expectValue("States.StringSplit('aébéc', 'é')", R"(["a", "b", "c"])");
  expectValue("States.StringSplit('aèb', 'é')", R"(["aèb"])");
  expectError("States.StringSplit('a', '')",
              "States.StringSplit: argument 2 (delimiters) must be a "
              "non-empty string, not a string");
  expectError("States.StringSplit(1, ',')",
              "States.StringSplit: argument 1 (string) must be a string, not "
              "1");
  // The text is bounded before it is split (limits::kMaxIntrinsicText
  // characters, so at most half as many pieces): a 32 MB text used to make
  // 827 MB of pieces. The failure is the intrinsic's (DataFlow names it
  // States.IntrinsicFailure, which Catch and Retry see).
  std::string most;
  for (size_t i = 0; i < in::kMaxText / 2; ++i)
    most += "a,";
  auto r = eval("States.StringSplit($.s, ',')", R"({"s": ")" + most + R"("})");
  ASSERT_TRUE(r.isOk()) << r.getStatus().message();
  EXPECT_EQ(r->getArray().size(), in::kMaxText / 2);
  expectError("States.StringSplit($.s, ',')",
              "States.StringSplit: argument 1 (string) is longer than 262144 "
              "characters",
              R"({"s": ")" + most + R"(a"})");
}

TEST(Intrinsics, UUID) {
  std::regex v4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                "[0-9a-f]{12}");
  std::set<std::string> ids;
  for (int k = 0; k < 100; ++k) {
    auto r = eval("States.UUID()");
    ASSERT_TRUE(r.isOk() && r->isString());
    EXPECT_TRUE(std::regex_match(r->getString(), v4)) << r->getString();
    ids.insert(r->getString());
  }
  EXPECT_EQ(ids.size(), 100u);
}

//===----------------------------------------------------------------------===//
// Through the runtime: Parameters, ResultSelector, ItemSelector and `$$`
//===----------------------------------------------------------------------===//

namespace {
RunResult runApp(App &app, const Value &input) {
  auto store = createMemoryStore();
  LocalRunner runner(app, *store, {});
  return runner.run(input);
}

std::string errorsOf(const RunResult &r) {
  std::string s;
  for (const std::string &e : r.errors)
    s += e + "\n";
  return s;
}

/// A handler that records its inputs and returns its input.
struct Recorder {
  std::mutex mu;
  std::vector<Value> inputs;
  std::shared_ptr<Handler> handler() {
    return pure([this](const Value &x) {
      std::lock_guard<std::mutex> lock(mu);
      inputs.push_back(x);
      return x;
    });
  }
};
} // namespace

TEST(DataFlowIntrinsics, ParametersAndResultSelector) {
  App app = appFromJson({R"J({"Name": "Greet", "Start": true,
      "DataFlow": {
        "Parameters": {
          "msg.$": "States.Format('{} is {}', $.who['first name'], $.ages[1])",
          "parts.$": "States.ArrayPartition($.ages, 2)",
          "nested": {"n.$": "States.ArrayLength($.ages)", "fixed": "x"},
          "list": [{"id.$": "$$.Execution.Id"}],
          "state.$": "$$.State.Name"},
        "ResultSelector": {"words.$": "States.StringSplit($.msg, ' ')",
                           "sum.$": "States.MathAdd($.nested.n, 10)"}}})J"});
  Recorder rec;
  (void)app.setHandler("Greet", rec.handler());
  RunResult r = runApp(
      app, json(R"J({"who": {"first name": "Ann"}, "ages": [3, 41, 7]})J"));
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  ASSERT_EQ(rec.inputs.size(), 1u);
  const Value &in = rec.inputs[0];
  EXPECT_EQ(*in.find("msg"), Value("Ann is 41"));
  EXPECT_EQ(*in.find("parts"), json("[[3, 41], [7]]"));
  EXPECT_EQ(*in.find("nested"), json(R"J({"n": 3, "fixed": "x"})J"));
  // $$.Execution.Id is the session; $$.State.Name the function.
  EXPECT_EQ(in.find("list")->getArray()[0],
            json(R"J({"id": ")J" + r.session + R"J("})J"));
  EXPECT_EQ(*in.find("state"), Value("Greet"));
  EXPECT_EQ(r.outputs["Greet"],
            json(R"J({"words": ["Ann", "is", "41"], "sum": 13})J"));
}

TEST(DataFlowIntrinsics, RetryCountIsPerAttempt) {
  // Parameters are applied per attempt, as in Step Functions: the handler
  // fails until it sees RetryCount 2; ResultSelector sees the last attempt.
  App app = appFromJson({R"J({"Name": "Flaky", "Start": true, "Retry": 3,
      "DataFlow": {"Parameters": {"try.$": "$$.State.RetryCount"},
                   "ResultSelector": {"tries.$": "$$.State.RetryCount",
                                      "saw.$": "$.try"}}})J"});
  std::vector<Value> seen;
  (void)app.setHandler("Flaky",
                       makeFunctionHandler([&](const Value &x, Context &) {
                         seen.push_back(x);
                         if (*x.find("try") != Value(int64_t(2)))
                           return HandlerResult::failure("not yet");
                         return HandlerResult::success(x);
                       }));
  RunResult r = runApp(app, Value::object());
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  ASSERT_EQ(seen.size(), 3u);
  for (int64_t k = 0; k < 3; ++k)
    EXPECT_EQ(seen[k], json(R"J({"try": )J" + std::to_string(k) + "}"));
  EXPECT_EQ(r.outputs["Flaky"], json(R"J({"tries": 2, "saw": 2})J"));
}

TEST(DataFlowIntrinsics, ItemSelector) {
  App app = appFromJson({R"J({"Name": "Each", "Start": true,
      "DataFlow": {"ItemsPath": "$.words",
        "ItemSelector": {
          "label.$": "States.Format('{}#{}', $$.Map.Item.Value.w, $$.Map.Item.Index)",
          "first.$": "$$.Map.Item.Value['w']",
          "prefix.$": "$.prefix",
          "whole.$": "$$.Map.Item",
          "run.$": "$$.Execution.Id"}},
      "Next": {"Name": "Word", "InputType": "Map"}})J",
                         R"J({"Name": "Word"})J"});
  (void)app.setHandler("Each", pure([](const Value &x) { return x; }));
  (void)app.setHandler("Word", pure([](const Value &x) { return x; }));
  RunResult r = runApp(
      app, json(R"J({"words": [{"w": "a"}, {"w": "b"}], "prefix": "p"})J"));
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  EXPECT_EQ(r.outputs["Word-unumIndex-1"],
            json(R"J({"label": "b#1", "first": "b", "prefix": "p",
                      "whole": {"Index": 1, "Value": {"w": "b"}},
                      "run": ")J" +
                 r.session + R"J("})J"));
}

TEST(DataFlowIntrinsics, WholeContextObject) {
  App app = appFromJson({R"J({"Name": "F", "Start": true,
      "DataFlow": {"Parameters": {"ctx.$": "$$",
                                  "exec.$": "$$.Execution"}}})J"});
  Recorder rec;
  (void)app.setHandler("F", rec.handler());
  RunResult r = runApp(app, Value::object());
  ASSERT_TRUE(r.ok()) << errorsOf(r);
  std::string exec =
      R"J({"Id": ")J" + r.session + R"J(", "Name": ")J" + r.session + "\"}";
  // The whole object has $$.State.EnteredTime (fixed when first read): an
  // RFC 3339 time; the rest is exact. (No Execution.Input and StartTime:
  // the start function does not record them without "ExecutionContext".)
  const Value &got = rec.inputs.at(0);
  const Value *ctx = got.find("ctx");
  const Value *state = ctx ? ctx->find("State") : nullptr;
  const Value *entered = state ? state->find("EnteredTime") : nullptr;
  ASSERT_TRUE(entered && entered->isString()) << toJson(got);
  EXPECT_TRUE(unum::config::parseTimestamp(entered->getString()))
      << entered->getString();
  EXPECT_EQ(got,
            json(R"J({"ctx": {"Execution": )J" + exec +
                 R"J(, "State": {"Name": "F", "RetryCount": 0,
                                      "EnteredTime": ")J" +
                 entered->getString() + R"J("}}, "exec": )J" + exec + "}"));
}

TEST(DataFlowIntrinsics, ErrorsNameTheFieldFunctionAndIntrinsic) {
  // The error `dataFlow` gives on `input`.
  auto errorOf = [](const std::string &dataFlow,
                    const std::string &input = "{}") {
    App app = appFromJson(
        {R"J({"Name": "Fn", "Start": true, "DataFlow": )J" + dataFlow + "}"});
    (void)app.setHandler("Fn", pure([](const Value &x) { return x; }));
    RunResult r = runApp(app, json(input));
    EXPECT_FALSE(r.ok()) << dataFlow;
    return errorsOf(r);
  };
  auto expectFound = [](const std::string &error, const std::string &part) {
    EXPECT_NE(error.find(part), std::string::npos) << error;
  };
  expectFound(
      errorOf(R"J({"Parameters": {"p.$": "States.ArrayPartition($.a, 0)"}})J",
              R"J({"a": [1]})J"),
      "Parameters of 'Fn': States.ArrayPartition: argument 2 (chunk size) "
      "must be a positive integer, not 0");
  expectFound(
      errorOf(R"J({"ResultSelector": {"p.$": "States.Format('{}' $.a)"}})J"),
      "ResultSelector of 'Fn': 'p.$': invalid intrinsic function call "
      "'States.Format('{}' $.a)' at character 20: expected ',' or ')'");
  // The execution's fields are there when the start function records them
  // ("ExecutionContext": unumc sets it where they are read).
  expectFound(errorOf(R"J({"Parameters": {"i.$": "$$.Execution.Input"}})J"),
              "only when the start function records them: DataFlow "
              "\"ExecutionContext\"");
  expectFound(errorOf(R"J({"Parameters": {"t.$": "$$.State.Entered"}})J"),
              "Parameters of 'Fn': '$$.State.Entered' is not available "
              "in this runtime (it has $$.Execution.Id, ");
  expectFound(errorOf(R"J({"Parameters": {"t.$": "$$.Task.Token"}})J"),
              "'$$.Task.Token' is not available in this runtime");
  expectFound(errorOf(R"J({"Parameters": {"t.$": "$$.State.Nmae"}})J"),
              "'$$.State.Nmae' is not available in this runtime (it has ");
  expectFound(errorOf(R"J({"Parameters": {"v.$": "$$.Map.Item.Value"}})J"),
              "Parameters of 'Fn': '$$.Map.Item.Value' is only available in "
              "a Map state's ItemSelector");
  expectFound(errorOf(R"J({"Parameters": {"v.$": "Format('x')"}})J"),
              "Parameters of 'Fn': 'v.$': invalid path 'Format('x')' at "
              "character 1: a path must start with '$'");
  expectFound(errorOf(R"J({"Parameters": {"v.$": "States.Array($$.Nope)"}})J"),
              "Parameters of 'Fn': States.Array: argument 1: '$$.Nope' is not "
              "available in this runtime");
}
