//===- EvaluatorTest.cpp - Conditionals, fan-in values, modifiers ---------===//

#include "unum/Runtime/Evaluator.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <tuple>

using namespace unum::runtime;
namespace config = unum::config;

namespace {
std::vector<FanOutLevel> levels(std::vector<std::pair<int64_t, int64_t>> l) {
  std::vector<FanOutLevel> out;
  for (auto [i, n] : l)
    out.push_back({"Map", i, n});
  return out;
}

Result<Value> eval(const std::string &text, const Value *out,
                   const std::vector<FanOutLevel> &fanout) {
  config::ParseError error;
  auto e = config::parseConditional(text, error);
  if (!e)
    return Status::error("parse: " + error.message);
  return evaluate(*e->root, EvalEnv{out, &fanout});
}

Value val(const std::string &json) { return *parseJsonValue(json); }

config::NamePattern pattern(const std::string &text) {
  config::ParseError error;
  auto p = config::parseNamePattern(text, error);
  EXPECT_TRUE(p.has_value()) << text << ": " << error.message;
  return *p;
}

config::Modifier modifier(const std::string &text) {
  config::ParseError error;
  auto m = config::parseModifier(text, error);
  EXPECT_TRUE(m.has_value()) << text << ": " << error.message;
  return *m;
}
} // namespace

TEST(Evaluator, ContextObject) {
  // $ctx: a Choice rule's `$$` Variable, read like $out.
  config::ParseError error;
  auto e = config::parseConditional(
      "is_string($ctx.Execution.Input.mode) and "
      "$ctx.Execution.Input.mode == 'fast' and $ctx['State'].Name == 'C'",
      error);
  ASSERT_TRUE(e) << error.message;
  EXPECT_TRUE(config::readsContext(*e->root));
  EXPECT_FALSE(config::readsOutput(*e->root));
  Value ctx = val(R"({"Execution": {"Input": {"mode": "fast"}},
                      "State": {"Name": "C"}})");
  auto r = evaluate(*e->root, EvalEnv{nullptr, nullptr, &ctx});
  ASSERT_TRUE(r.isOk()) << r.getStatus().message();
  EXPECT_EQ(*r, Value(true));
  // Without a context object it is an error, as $out without an output.
  r = evaluate(*e->root, EvalEnv{});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.getStatus().message().find("$ctx is not available here"),
            std::string::npos);
  // An index expression (a modifier) has no context object.
  EXPECT_FALSE(config::parseModifier("$0 = $ctx", error));
}

TEST(Evaluator, Arithmetic) {
  auto f = levels({{3, 10}, {1, 2}});
  EXPECT_EQ(*eval("$0 + 1", nullptr, f), Value(4));
  EXPECT_EQ(*eval("$size - 1 - $0", nullptr, f), Value(6));
  EXPECT_EQ(*eval("$1 * 7 % 4", nullptr, f), Value(3));
  EXPECT_EQ(*eval("-7 % 3", nullptr, f), Value(2)); // sign of the divisor
  EXPECT_EQ(*eval("6 / 3", nullptr, f), Value(2));
  EXPECT_EQ(*eval("7 / 2", nullptr, f), Value(3.5));
  EXPECT_EQ(*eval("0.5 + 1", nullptr, f), Value(1.5));
  EXPECT_EQ(*eval("-(2 * 3)", nullptr, f), Value(-6));
}

TEST(Evaluator, ComparisonsAndLogic) {
  auto f = levels({{0, 2}});
  Value out = val(R"({"items": [10, 60], "name": "bye", "ok": true,
                     "failed": 2, "nested": {"a": null}})");
  EXPECT_EQ(*eval("$0 < $size-1", &out, f), Value(true));
  EXPECT_EQ(*eval("$out.items[1] > 50 and $0 == 0", &out, f), Value(true));
  EXPECT_EQ(*eval("$ret.name == 'bye'", &out, f), Value(true));
  EXPECT_EQ(*eval("$out.name < \"c\"", &out, f), Value(true));
  EXPECT_EQ(*eval("not $out.ok or $out.failed > 0", &out, f), Value(true));
  EXPECT_EQ(*eval("$out.nested.a == null", &out, f), Value(true));
  EXPECT_EQ(*eval("$out['name'] != 'x'", &out, f), Value(true));
  EXPECT_EQ(*eval("$out.items == $out.items", &out, f), Value(true));
  EXPECT_EQ(*eval("1 == 1.0", &out, f), Value(true));
  // Short circuit: the right side would fail.
  EXPECT_EQ(*eval("false and $out.missing", &out, f), Value(false));
  EXPECT_EQ(*eval("true or $out.missing", &out, f), Value(true));
}

TEST(Evaluator, ErrorsAreValuesNotCrashes) {
  auto f = levels({{0, 2}});
  Value out = val(R"({"items": [1], "s": "x"})");
  struct Case {
    const char *text, *expect;
  } cases[] = {
      {"$out.missing", "no member 'missing'"},
      {"$out.items[5]", "out of range"},
      {"$out.items['a']", "must be an integer"},
      {"$out.s.x", "on a string"},
      {"$out.s + 1", "needs numbers"},
      {"$out.s < 1", "cannot compare"},
      {"1 / 0", "division by zero"},
      {"1 % 0", "modulo by zero"},
      {"1.5 % 2", "needs integers"},
      {"9223372036854775807 + 1", "overflow"},
      {"1 and true", "needs booleans"},
      {"not 1", "needs a boolean"},
      {"$2", "$2 needs a fan-out 3 level(s) deep"},
      {"-'a'", "needs a number"},
  };
  for (const Case &c : cases) {
    auto r = eval(c.text, &out, f);
    ASSERT_FALSE(r.isOk()) << c.text;
    EXPECT_NE(r.getStatus().message().find(c.expect), std::string::npos)
        << c.text << " -> " << r.getStatus().message();
  }
  std::vector<FanOutLevel> none;
  EXPECT_FALSE(eval("$size", &out, none).isOk());
  EXPECT_FALSE(eval("$out", nullptr, none).isOk());
}

TEST(Evaluator, ConditionMustBeBoolean) {
  config::ParseError error;
  auto e = config::parseConditional("$0 + 1", error);
  auto f = levels({{0, 1}});
  auto r = evaluateCondition(*e, EvalEnv{nullptr, &f});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.getStatus().message().find("not a boolean"), std::string::npos);
}

TEST(Evaluator, DeepExpressionsAreBounded) {
  // The parser bounds nesting; the evaluator checks again on its own.
  config::Expr leaf;
  leaf.kind = config::Expr::Kind::Int;
  auto node = std::make_shared<const config::Expr>(leaf);
  for (int i = 0; i < 1000; ++i) {
    config::Expr neg;
    neg.kind = config::Expr::Kind::Unary;
    neg.op = config::Expr::Op::Neg;
    neg.lhs = node;
    node = std::make_shared<const config::Expr>(neg);
  }
  auto r = evaluate(*node, EvalEnv{});
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.getStatus().message().find("nested too deeply"),
            std::string::npos);
}

TEST(Evaluator, FanInValuesWildcard) {
  auto f = levels({{2, 4}});
  auto v = resolveFanIn({pattern("B-unumIndex-*")}, EvalEnv{nullptr, &f});
  ASSERT_TRUE(v.isOk()) << v.getStatus().message();
  EXPECT_EQ(v->count, 4u);
  EXPECT_EQ(v->key, "B-unumIndex-*[4]");
  EXPECT_EQ(v->expand(),
            (std::vector<std::string>{"B-unumIndex-0", "B-unumIndex-1",
                                      "B-unumIndex-2", "B-unumIndex-3"}));
  EXPECT_TRUE(v->contains("B-unumIndex-3"));
  EXPECT_FALSE(v->contains("B-unumIndex-4"));
  EXPECT_FALSE(v->contains("B"));
  EXPECT_FALSE(v->contains("C-unumIndex-0"));
}

TEST(Evaluator, FanInValuesNested) {
  // W-unumIndex-*.$1 from W at (i, branch 1): all W of branch 1.
  auto f = levels({{0, 3}, {1, 2}});
  auto v = resolveFanIn({pattern("W-unumIndex-*.$1"), pattern("Z-unumIndex-0")},
                        EvalEnv{nullptr, &f});
  ASSERT_TRUE(v.isOk());
  EXPECT_EQ(v->key, "W-unumIndex-*[3].1,Z-unumIndex-0");
  EXPECT_EQ(v->expand(),
            (std::vector<std::string>{"W-unumIndex-0.1", "W-unumIndex-1.1",
                                      "W-unumIndex-2.1", "Z-unumIndex-0"}));
  EXPECT_TRUE(v->contains("W-unumIndex-2.1"));
  EXPECT_FALSE(v->contains("W-unumIndex-2.0"));
}

TEST(Evaluator, FanInValuesShiftedAgree) {
  // ExCamera: vpxenc at i and xcdec at i-1 name the same instances.
  auto atI = levels({{5, 16}});
  auto atPrev = levels({{4, 16}});
  auto a = resolveFanIn(
      {pattern("vpxenc-unumIndex-$0"), pattern("xcdec-unumIndex-($0-1)")},
      EvalEnv{nullptr, &atI});
  auto b = resolveFanIn(
      {pattern("vpxenc-unumIndex-($0+1)"), pattern("xcdec-unumIndex-$0")},
      EvalEnv{nullptr, &atPrev});
  ASSERT_TRUE(a.isOk() && b.isOk());
  EXPECT_EQ(a->key, b->key);
  EXPECT_EQ(a->expand(), b->expand());
  EXPECT_EQ(a->key, "vpxenc-unumIndex-5,xcdec-unumIndex-4");
}

TEST(Evaluator, FanInValuesErrors) {
  auto f = levels({{0, 2}});
  auto neg =
      resolveFanIn({pattern("X-unumIndex-($0-1)")}, EvalEnv{nullptr, &f});
  ASSERT_FALSE(neg.isOk());
  EXPECT_NE(neg.getStatus().message().find("negative index"),
            std::string::npos);
  auto deep = resolveFanIn({pattern("X-unumIndex-$3")}, EvalEnv{nullptr, &f});
  EXPECT_FALSE(deep.isOk());
  auto star = resolveFanIn({pattern("X-unumIndex-0.*")}, EvalEnv{nullptr, &f});
  EXPECT_FALSE(star.isOk());
  // Bounded size.
  auto huge = levels({{0, 1 << 20}, {0, 4}});
  auto big =
      resolveFanIn({pattern("X-unumIndex-*.*")}, EvalEnv{nullptr, &huge});
  ASSERT_FALSE(big.isOk());
  EXPECT_NE(big.getStatus().message().find("more than"), std::string::npos);
}

TEST(Evaluator, Modifiers) {
  auto f = levels({{1, 3}, {2, 5}});
  auto popped = applyModifiers({modifier("Pop")}, f, nullptr);
  ASSERT_TRUE(popped.isOk());
  EXPECT_EQ(*popped, levels({{2, 5}}));
  auto shifted = applyModifiers({modifier("$0=$0+1")}, f, nullptr);
  EXPECT_EQ(*shifted, levels({{2, 3}, {2, 5}}));
  // Sequential: each sees the result of the one before.
  auto seq =
      applyModifiers({modifier("$size = $size * 2"), modifier("$0 = $size - 1"),
                      modifier("$1 = $1 + $0")},
                     f, nullptr);
  ASSERT_TRUE(seq.isOk()) << seq.getStatus().message();
  EXPECT_EQ(*seq, levels({{5, 6}, {7, 5}}));
  // Pop on nothing is a no-op, as in the original runtime.
  std::vector<FanOutLevel> none;
  EXPECT_TRUE(applyModifiers({modifier("Pop")}, none, nullptr)->empty());
  auto bad = applyModifiers({modifier("$1 = 0")}, levels({{0, 1}}), nullptr);
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.getStatus().message().find("needs 2 fan-out level"),
            std::string::npos);
  auto negative = applyModifiers({modifier("$0 = $0 - 5")}, f, nullptr);
  EXPECT_FALSE(negative.isOk());
}

TEST(Evaluator, ChoiceTypeTestsAndMatches) {
  std::vector<FanOutLevel> none;
  Value out = val(R"({"a": {"b": [1, null]}, "n": 1.5, "s": "photo.jpg",
                     "t": "2016-03-14T01:59:00.123+01:00", "f": false})");
  EXPECT_EQ(*eval("is_present($out.a.b[1])", &out, none), Value(true));
  EXPECT_EQ(*eval("is_present($out.a.b[2])", &out, none), Value(false));
  EXPECT_EQ(*eval("is_present($out.a.x.y)", &out, none), Value(false));
  EXPECT_EQ(*eval("is_present($out.s.x)", &out, none), Value(false));
  EXPECT_EQ(*eval("is_null($out.a.b[1])", &out, none), Value(true));
  EXPECT_EQ(*eval("is_numeric($out.n) and not is_numeric($out.s)", &out, none),
            Value(true));
  EXPECT_EQ(*eval("is_string($out.s)", &out, none), Value(true));
  EXPECT_EQ(*eval("is_boolean($out.f)", &out, none), Value(true));
  EXPECT_EQ(*eval("is_timestamp($out.t)", &out, none), Value(true));
  EXPECT_EQ(*eval("is_timestamp($out.s)", &out, none), Value(false));
  EXPECT_EQ(*eval("matches($out.s, '*.jpg')", &out, none), Value(true));
  EXPECT_EQ(*eval("matches($out.s, 'photo*')", &out, none), Value(true));
  EXPECT_EQ(*eval("matches($out.s, '*.png')", &out, none), Value(false));
  EXPECT_EQ(*eval("matches('a*b', 'a\\\\*b')", &out, none), Value(true));
  EXPECT_EQ(*eval("matches('axb', 'a\\\\*b')", &out, none), Value(false));
  // A type test of a missing member is false: a Choice comparison of an
  // absent variable does not match (the lowering guards every comparison
  // with its type test). matches and instant of a non-string are errors.
  EXPECT_EQ(*eval("is_null($out.missing)", &out, none), Value(false));
  EXPECT_EQ(*eval("is_string($out.missing.deeper)", &out, none), Value(false));
  EXPECT_FALSE(eval("matches($out.n, '*')", &out, none).isOk());
  EXPECT_FALSE(eval("instant($out.n)", &out, none).isOk());
  // Timestamps compare as instants: offsets and fractions of a second.
  auto before = [&](const char *a, const char *b) {
    return *eval(std::string("instant('") + a + "') < instant('" + b + "')",
                 &out, none);
  };
  auto same = [&](const char *a, const char *b) {
    return *eval(std::string("instant('") + a + "') == instant('" + b + "')",
                 &out, none);
  };
  EXPECT_EQ(same("2024-01-01T01:00:00+01:00", "2024-01-01T00:00:00Z"),
            Value(true));
  EXPECT_EQ(same("2024-01-01T00:00:00.500Z", "2024-01-01T00:00:00.5Z"),
            Value(true));
  EXPECT_EQ(before("2024-01-01T00:00:00Z", "2024-01-01T00:00:00.001Z"),
            Value(true));
  EXPECT_EQ(before("2020-01-01T00:30:00+01:00", "2019-12-31T23:45:00Z"),
            Value(true));
  EXPECT_EQ(before("0001-01-01T00:00:00Z", "9999-12-31T23:59:59-23:59"),
            Value(true));
  EXPECT_EQ(*eval("is_timestamp('2023-02-29T00:00:00Z')", &out, none),
            Value(false));
  EXPECT_EQ(*eval("is_timestamp('2024-02-29T00:00:00Z')", &out, none),
            Value(true));
  // Numbers are equal by value.
  EXPECT_EQ(*eval("1 == 1.0", &out, none), Value(true));
  EXPECT_EQ(*eval("1 != 1.0", &out, none), Value(false));
}

//===----------------------------------------------------------------------===//
// Bounds: matches is linear, $out is read in place
//===----------------------------------------------------------------------===//

namespace {
/// The implementation `matches` had until it was made linear (backtracking
/// on the last star, O(|s| * |p|)): the oracle of the differential test.
bool backtrackingGlob(const std::string &s, const std::string &p) {
  std::vector<std::pair<char, bool>> pat; // (char, isStar)
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\' && i + 1 < p.size())
      pat.push_back({p[++i], false});
    else
      pat.push_back({p[i], p[i] == '*'});
  }
  size_t si = 0, pi = 0, starP = std::string::npos, starS = 0;
  while (si < s.size()) {
    if (pi < pat.size() && pat[pi].second) {
      starP = pi++;
      starS = si;
    } else if (pi < pat.size() && pat[pi].first == s[si]) {
      ++pi;
      ++si;
    } else if (starP != std::string::npos) {
      pi = starP + 1;
      si = ++starS;
    } else {
      return false;
    }
  }
  while (pi < pat.size() && pat[pi].second)
    ++pi;
  return pi == pat.size();
}

/// Allocations by this process (the global operator new below counts).
std::atomic<size_t> allocations{0};
} // namespace

void *operator new(size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(size ? size : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }

TEST(Evaluator, MatchesAgreesWithBacktracking) {
  // Random patterns and strings over a small alphabet with stars and
  // backslashes (escaped stars, escaped backslashes, a trailing one): the
  // linear matcher answers as the backtracking one did.
  std::mt19937 rng(18);
  const char patternChars[] = {'a', 'b', '*', '\\'};
  const char textChars[] = {'a', 'b', '*', '\\'};
  size_t matched = 0;
  for (int k = 0; k < 200000; ++k) {
    std::string p, s;
    for (size_t n = rng() % 9; n > 0; --n)
      p += patternChars[rng() % 4];
    for (size_t n = rng() % 12; n > 0; --n)
      s += textChars[rng() % (k % 2 ? 2 : 4)];
    bool expected = backtrackingGlob(s, p);
    matched += expected;
    ASSERT_EQ(globMatch(s, p), expected)
        << "matches('" << s << "', '" << p << "')";
  }
  EXPECT_GT(matched, 1000u); // both answers are well represented
  for (auto [s, p, m] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"", "", true},
           {"", "*", true},
           {"", "**", true},
           {"a", "", false},
           {"abc", "a*c", true},
           {"ac", "a*c", true},
           {"a", "a*a", false},
           {"aa", "a*a", true},
           {"abcabc", "*bc*bc", true},
           {"abcbc", "a*bc*bc", true},
           {"abc", "a*bc*bc", false},
           {"a*b", "a\\*b", true},
           {"axb", "a\\*b", false},
           {"a\\", "a\\", true},
           {"a\\b", "a\\\\b", true},
           {"ab", "\\a\\b", true},
           {"log-2024.txt", "log-*.txt", true},
           {"log-2024.txt.gz", "log-*.txt", false}})
    EXPECT_EQ(globMatch(s, p), m) << "matches('" << s << "', '" << p << "')";
}

TEST(Evaluator, MatchesIsLinear) {
  // 1 MB of text against a 4 KB pattern that the backtracking matcher
  // retried at every position (2.2 s): now O(|s| + |p|).
  std::string s(1 << 20, 'a');
  std::string p = "*" + std::string(4000, 'a') + "b*";
  std::string q = "a*" + std::string(2000, 'a') + "*" + std::string(2000, 'a');
  double start = test::threadCpuSeconds();
  EXPECT_FALSE(globMatch(s, p));
  EXPECT_TRUE(globMatch(s, q));
  s.back() = 'b';
  EXPECT_TRUE(globMatch(s, p));
  double seconds = test::threadCpuSeconds() - start;
  EXPECT_LT(seconds, 0.5) << "matches of 1 MB by 4 KB";
}

TEST(Evaluator, OutputIsReadInPlace) {
  // A 10,000-string output named 60 times in one conditional: $out and its
  // members are read where they are, not copied (each copy allocated every
  // string again: 600,000 allocations).
  Value::Array big;
  for (int i = 0; i < 10000; ++i)
    big.push_back(Value("a string longer than short-string storage " +
                        std::to_string(i)));
  Value out = Value::object();
  out.set("n", Value(1));
  out.set("big", Value(std::move(big)));
  std::string text = "$out.big[9999] != 'x'";
  for (int i = 0; i < 59; ++i)
    text += i % 2 ? " and $out.n == 1" : " and $out['big'][5] == $out.big[5]";
  config::ParseError error;
  auto e = config::parseConditional(text, error);
  ASSERT_TRUE(e) << error.message;
  std::vector<FanOutLevel> none;
  size_t before = allocations.load();
  auto r = evaluateCondition(*e, EvalEnv{&out, &none});
  size_t made = allocations.load() - before;
  ASSERT_TRUE(r.isOk()) << r.getStatus().message();
  EXPECT_TRUE(*r);
  EXPECT_LT(made, 200u) << "evaluating a conditional copied $out";
}
